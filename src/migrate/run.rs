//! A run of a migration: the checkpoint read once, each step skipped if recorded or run and
//! recorded, progress reported to the caller's callback.

use std::fmt;

use bson::{doc, Document};
use mongodb::Database;

use super::moves::{self, Failure, Tick};
use super::ops::{Op, Walk};
use super::CHECKPOINTS;

/// Which migration runs: the checkpoint's id, the two schemas' names, and every step's name in
/// order (the checkpoint records steps by name).
#[derive(Debug, Clone, Copy)]
pub struct Migration<'a> {
    /// The checkpoint document's `_id`: `<old plan hash>..<new plan hash>`.
    pub id: &'a str,
    /// The old schema's name.
    pub from: &'a str,
    /// The new schema's name.
    pub to: &'a str,
    /// The steps' names, in the order they run.
    pub steps: &'a [&'a str],
}

/// What a step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// Nothing to count (a check, an index, a collection, a validator).
    Nothing,
    /// Documents modified.
    Documents(u64),
    /// Documents walked (each batch's aggregation writes through a guarded `$merge`, which does
    /// not count what it wrote).
    Walked {
        /// How many.
        count: u64,
        /// Parents or buckets.
        walk: Walk,
    },
}

impl fmt::Display for Changed {
    /// ` (3 documents)`, ` (1 parent walked)`, ` (2 buckets walked)`, or nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        match self {
            Changed::Nothing => Ok(()),
            Changed::Documents(n) => write!(f, " ({n} document{})", s(*n)),
            Changed::Walked {
                count,
                walk: Walk::Parents,
            } => write!(f, " ({count} parent{} walked)", s(*count)),
            Changed::Walked {
                count,
                walk: Walk::Buckets,
            } => write!(f, " ({count} buckets walked)"),
        }
    }
}

/// What a run reports as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress<'a> {
    /// The step is recorded in the checkpoint: skipped.
    AlreadyDone {
        /// Its name.
        step: &'a str,
    },
    /// The step starts.
    Started {
        /// Its name.
        step: &'a str,
        /// Its place in the migration, from 1.
        number: usize,
        /// The migration's steps.
        of: usize,
    },
    /// A batch of a walk is done.
    Batch {
        /// The step's name.
        step: &'a str,
        /// Documents walked so far by the step.
        walked: u64,
    },
    /// In a batch of a walk that splits children out of an array ([`Op::SplitOut`]): the
    /// elements lacking an `_id` were given one and written, the batch's children not yet.
    IdsGiven {
        /// The step's name.
        step: &'a str,
        /// Documents walked before this batch.
        walked: u64,
        /// Documents of the batch whose elements were given ids.
        documents: u64,
    },
    /// The step is done (and recorded, unless it is a check: a check is recorded with the
    /// first write after it).
    Done {
        /// Its name.
        step: &'a str,
        /// What it changed.
        changed: Changed,
    },
    /// A dry run: the step would run (a check is made: it only reads).
    Would {
        /// Its name.
        step: &'a str,
    },
}

impl fmt::Display for Progress<'_> {
    /// The CLI's lines: `done: move: ... (3 documents)`, `already done: ...`, `would ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::AlreadyDone { step } => write!(f, "already done: {step}"),
            Progress::Started { step, number, of } => {
                write!(f, "step {number} of {of}: {step}")
            }
            Progress::Batch { step, walked } => write!(f, "  {step}: {walked} walked"),
            Progress::IdsGiven {
                step,
                walked,
                documents,
            } => write!(
                f,
                "  {step}: ids given in {documents} documents after {walked} walked"
            ),
            Progress::Done { step, changed } => write!(f, "done: {step}{changed}"),
            Progress::Would { step } => write!(f, "would {step}"),
        }
    }
}

/// Why a migration stopped.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The checkpoint could not be read.
    #[error("cannot read the checkpoint {id} in {CHECKPOINTS}: {source}")]
    Checkpoint {
        /// The migration's id.
        id: String,
        /// The driver's error.
        source: mongodb::error::Error,
    },
    /// A step was done but could not be recorded.
    #[error("`{step}` was done but not recorded in {CHECKPOINTS}: {source}\n  help: run the migration again: the step changes nothing the second time")]
    Record {
        /// The step.
        step: String,
        /// The driver's error.
        source: mongodb::error::Error,
    },
    /// The stored data does not fit the new layout; nothing of this step was written.
    #[error("{message}\nerror: step `{step}` stopped the migration: the stored data does not fit the new layout")]
    Data {
        /// The step (a check).
        step: String,
        /// What does not fit, which document, and what to do.
        message: String,
    },
    /// The server refused a step.
    #[error("step `{step}` failed: {source}\n  help: the steps before it are recorded in {CHECKPOINTS}; fix the cause and run the migration again to go on from this step")]
    Server {
        /// The step.
        step: String,
        /// The driver's error.
        source: mongodb::error::Error,
    },
    /// A step failed for another reason.
    #[error("step `{step}` failed: {why}\n  help: the steps before it are recorded in {CHECKPOINTS}; fix the cause and run the migration again to go on from this step")]
    Other {
        /// The step.
        step: String,
        /// Why, in words.
        why: String,
    },
}

/// What a finished run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Steps run now.
    pub run: usize,
    /// Steps skipped: recorded by an earlier run.
    pub skipped: usize,
}

/// A migration under way: open it (the checkpoint is read), call [`Run::step`] for each step in
/// order, then [`Run::finish`].
pub struct Run<'a> {
    db: &'a Database,
    id: String,
    from: String,
    to: String,
    steps: Vec<String>,
    done: Vec<String>,
    /// Checks passed since the last write, recorded with the next one.
    passed: Vec<String>,
    dry_run: bool,
    summary: Summary,
    progress: &'a mut dyn FnMut(&Progress<'_>),
}

impl<'a> Run<'a> {
    /// Reads the checkpoint of `migration` in [`CHECKPOINTS`]. A dry run writes nothing: it
    /// makes the checks (they only read) and reports what it would run.
    pub async fn open(
        db: &'a Database,
        migration: &Migration<'_>,
        dry_run: bool,
        progress: &'a mut dyn FnMut(&Progress<'_>),
    ) -> Result<Run<'a>, MigrationError> {
        let found = db
            .collection::<Document>(CHECKPOINTS)
            .find_one(doc! { "_id": migration.id })
            .await
            .map_err(|source| MigrationError::Checkpoint {
                id: migration.id.to_owned(),
                source,
            })?;
        let done = found
            .and_then(|c| c.get_array("done").ok().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|b| b.as_str().map(str::to_owned))
            .collect();
        Ok(Run {
            db,
            id: migration.id.to_owned(),
            from: migration.from.to_owned(),
            to: migration.to.to_owned(),
            steps: migration.steps.iter().map(|s| (*s).to_owned()).collect(),
            done,
            passed: Vec::new(),
            dry_run,
            summary: Summary { run: 0, skipped: 0 },
            progress,
        })
    }

    /// Whether every step of the migration is recorded in the checkpoint.
    pub fn all_done(&self) -> bool {
        self.steps.iter().all(|s| self.done.contains(s))
    }

    /// Runs the step `name` unless the checkpoint records it, and records it. Checks that pass
    /// are recorded with the first write after them, so that data refused by a later check
    /// leaves the database (checkpoint included) as it was.
    pub async fn step(&mut self, name: &str, op: Op) -> Result<(), MigrationError> {
        if self.done.iter().any(|d| d == name) {
            self.summary.skipped += 1;
            (self.progress)(&Progress::AlreadyDone { step: name });
            return Ok(());
        }
        if self.dry_run {
            if let Op::Check(c) = &op {
                moves::check(self.db, c)
                    .await
                    .map_err(|f| failed(name, f))?;
            }
            (self.progress)(&Progress::Would { step: name });
            return Ok(());
        }
        let number = self
            .steps
            .iter()
            .position(|s| s == name)
            .map_or(0, |i| i + 1);
        (self.progress)(&Progress::Started {
            step: name,
            number,
            of: self.steps.len(),
        });
        let progress = &mut *self.progress;
        let mut on_batch = |tick: Tick| {
            progress(&match tick {
                Tick::Batch { walked } => Progress::Batch { step: name, walked },
                Tick::IdsGiven { walked, documents } => Progress::IdsGiven {
                    step: name,
                    walked,
                    documents,
                },
            })
        };
        let changed = moves::execute(self.db, &op, &mut on_batch)
            .await
            .map_err(|f| failed(name, f))?;
        self.passed.push(name.to_owned());
        if !matches!(op, Op::Check(_)) {
            let names = std::mem::take(&mut self.passed);
            self.db
                .collection::<Document>(CHECKPOINTS)
                .update_one(
                    doc! { "_id": &self.id },
                    doc! {
                        "$addToSet": { "done": { "$each": &names } },
                        "$setOnInsert": { "from": &self.from, "to": &self.to },
                    },
                )
                .upsert(true)
                .await
                .map_err(|source| MigrationError::Record {
                    step: name.to_owned(),
                    source,
                })?;
            self.done.extend(names);
        }
        self.summary.run += 1;
        (self.progress)(&Progress::Done {
            step: name,
            changed,
        });
        Ok(())
    }

    /// What the run did.
    pub fn finish(self) -> Summary {
        self.summary
    }
}

fn failed(step: &str, f: Failure) -> MigrationError {
    let step = step.to_owned();
    match f {
        Failure::Server(source) => MigrationError::Server { step, source },
        Failure::Data(message) => MigrationError::Data { step, message },
        Failure::Other(why) => MigrationError::Other { step, why },
    }
}
