//! `squillion infer --uri URI [--db NAME] [--sample N] [-o draft.sqn]`: start from an existing
//! database. Each collection is sampled, its documents' shapes read as entities, value types and
//! embedded relations; values that are other documents' `_id`s as references, fields beside them
//! that equal the referenced document's as copies; buckets, subsets, trees, variants and natural
//! keys as the patterns they are; and every relation is counted over the whole collection with
//! aggregation. The draft states it all as `.sqn` facts, each with a comment saying what was
//! measured, for `squillion plan` to decide and `squillion audit` to compare with.
//!
//! The work is split by what is found: [`sample`] and [`shape`] (document shapes; [`windows`]
//! samples large collections through the `_id` index), [`evidence`] (relations between a
//! document's fields), [`references`] (with [`backrefs`]: references held on both sides,
//! confirmed on the data), [`copies`], [`patterns`], [`link_collections`],
//! [`layout`] (the layout read as entities and links), [`counts`] (cardinalities by
//! aggregation), [`stats`] (observed access), [`finish`] (the draft as data), [`write`] (the
//! one place that writes `.sqn` text) and [`repair`] (the draft always passes `check`).

pub mod backrefs;
pub mod copies;
pub mod counts;
pub mod draft;
pub mod evidence;
pub mod finish;
pub mod histogram;
pub mod layout;
pub mod link_collections;
pub mod names;
pub mod path;
pub mod patterns;
pub mod queries;
pub mod references;
pub mod repair;
pub mod sample;
pub mod server;
pub mod shape;
pub mod stats;
pub mod windows;
pub mod words;
pub mod write;

use std::io::Write as _;
use std::path::PathBuf;

use futures::TryStreamExt;
use mongodb::bson::{doc, DateTime, Document};
use mongodb::Database;

use crate::database::{describe, with_database, Connection};
use crate::Exit;

pub use finish::Inferred;

/// Progress callback: called with the number of documents sampled since the last call.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Arguments of `squillion infer`.
#[derive(Debug, Clone, clap::Args)]
pub struct InferArgs {
    /// The database.
    #[command(flatten)]
    pub connection: Connection,
    /// Documents sampled per collection (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Where to write the draft (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Do without an aggregation stage or command the server offers, as if it were missing
    /// ($sample, $collStats, $indexStats, profiler): for trying the fallbacks.
    #[arg(long, hide = true, value_parser = clap::builder::PossibleValuesParser::new(server::OPTIONAL))]
    pub without: Vec<String>,
}

/// Why `infer` could not make a draft.
#[derive(Debug)]
pub enum InferError {
    /// The server failed (or could not be reached).
    Driver(mongodb::error::Error),
    /// Nothing to infer from.
    Empty(String),
    /// The draft did not pass `squillion check`: a defect of `infer`.
    Invalid(String),
}

impl std::fmt::Display for InferError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InferError::Driver(e) => write!(f, "{}", describe(e)),
            InferError::Empty(m) => write!(f, "{m}"),
            InferError::Invalid(m) => write!(
                f,
                "the inferred draft does not pass `squillion check` (please report this with the \
                 database's shape):\n{m}"
            ),
        }
    }
}

impl From<mongodb::error::Error> for InferError {
    fn from(e: mongodb::error::Error) -> Self {
        InferError::Driver(e)
    }
}

/// What `infer` made: the draft's text and the relations it states.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The `.sqn` draft, formatted; it passes `squillion check`.
    pub text: String,
    /// The draft as data.
    pub draft: draft::Draft,
    /// Its relations, with where each entity lives.
    pub relations: Vec<Inferred>,
    /// Collections read.
    pub collections: usize,
    /// Documents sampled.
    pub sampled: u64,
}

/// Options of [`infer`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Documents sampled per collection.
    pub sample: u64,
    /// Stages to do without.
    pub without: Vec<String>,
}

/// The collections worth reading, and why the others are not.
async fn collections(db: &Database) -> mongodb::error::Result<(Vec<(String, u64)>, Vec<String>)> {
    let specs: Vec<Document> = db
        .run_cursor_command(doc! { "listCollections": 1, "nameOnly": false })
        .await?
        .try_collect()
        .await?;
    let mut names = Vec::new();
    let mut skipped = Vec::new();
    for spec in specs {
        let Ok(name) = spec.get_str("name") else {
            continue;
        };
        let kind = spec.get_str("type").unwrap_or("collection");
        if name.starts_with("system.") {
            continue;
        }
        if kind != "collection" {
            skipped.push(format!("`{name}` is a {kind}, not a collection"));
            continue;
        }
        names.push(name.to_owned());
    }
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let estimate = db
            .collection::<Document>(&name)
            .estimated_document_count()
            .await?;
        out.push((name, estimate));
    }
    Ok((out, skipped))
}

/// How many documents sampling will read, for a progress bar.
pub async fn planned(db: &Database, sample: u64) -> mongodb::error::Result<u64> {
    let (colls, _) = collections(db).await?;
    Ok(colls.iter().map(|(_, n)| (*n).min(sample)).sum())
}

/// Infers a draft from the database.
pub async fn infer(
    db: &Database,
    options: &Options,
    progress: Progress<'_>,
) -> Result<Outcome, InferError> {
    let mut server = server::Server::new(options.without.iter().cloned());
    let (colls, skipped) = collections(db).await?;
    if colls.is_empty() {
        return Err(InferError::Empty(format!(
            "database `{}` has no collections to infer from (check --db, or the database name in the URI)",
            db.name()
        )));
    }
    let names: Vec<String> = colls.iter().map(|(n, _)| n.clone()).collect();
    // Observed access first, so that infer's own reads are not counted.
    let access = stats::observe(db, &mut server, &names).await?;
    let mut samples = Vec::new();
    for name in &names {
        samples.push(sample::sample(db, &mut server, name, options.sample, progress).await?);
    }
    if samples.iter().all(|s| s.sampled == 0) {
        return Err(InferError::Empty(format!(
            "the collections of database `{}` ({}) hold no documents to infer from",
            db.name(),
            names.join(", ")
        )));
    }
    let candidates = references::candidates(&samples);
    let refs = references::find(db, &samples, &candidates).await?;
    let copies = copies::find(db, &samples, &refs).await?;
    let buckets = patterns::buckets(&samples, &refs);
    let outliers = patterns::outliers(&samples, &refs, &buckets);
    let trees = patterns::trees(&samples, &refs);
    let variants = patterns::variants(&samples);
    let taken: Vec<(usize, String)> = outliers
        .iter()
        .map(|o| (refs[buckets[o.bucket].owner].target, o.array.clone()))
        .collect();
    let mut subsets = Vec::new();
    for s in patterns::subsets(&samples, &refs, &taken) {
        let (checked, mirrored, truncated) = patterns::mirrors(db, &samples, &refs, &s).await?;
        // An array holding every child's id is the other side of the link, not a subset.
        if !s.holds_ids || truncated > 0 {
            subsets.push((s, checked, mirrored));
        }
    }
    let bucket_colls = buckets.iter().map(|b| b.coll).collect();
    let link_colls = link_collections::find(&samples, &refs, &bucket_colls);
    let backrefs = backrefs::check(db, &samples, &refs).await?;
    let layout = layout::read(layout::Found {
        samples: &samples,
        refs: &refs,
        copies: &copies,
        buckets: &buckets,
        outliers: &outliers,
        trees: &trees,
        variants: &variants,
        subsets: &subsets,
        link_collections: &link_colls,
        backrefs: &backrefs,
    });
    let measures: Vec<&layout::Measure> = layout
        .links
        .iter()
        .flat_map(|l| [&l.left_measure, &l.right_measure])
        .collect();
    let mut measured = counts::measure_all(db, &mut server, &samples, &measures)
        .await?
        .into_iter();
    let mut counted = Vec::new();
    while let (Some(left), Some(right)) = (measured.next(), measured.next()) {
        counted.push((left, right));
    }
    let (draft, relations) = finish::draft(finish::Inputs {
        database: db.name(),
        sample: options.sample,
        samples: &samples,
        layout,
        counted,
        access: &access,
        notes: &server.notes,
        skipped: &skipped,
        now: DateTime::now(),
    });
    // Never a draft its own `check` refuses: mended, or an error.
    let (draft, relations, text) = repair::checked(draft, relations)?;
    Ok(Outcome {
        text,
        draft,
        relations,
        collections: samples.len(),
        sampled: samples.iter().map(|s| s.sampled).sum(),
    })
}

/// Runs `infer`: exit 0 with the draft written, 2 when it could not be made.
pub fn run(args: &InferArgs) -> Exit {
    with_database(&args.connection, |db| async move {
        let bar = if crate::input::stderr_color() {
            let total = planned(&db, args.sample).await.unwrap_or(0);
            indicatif::ProgressBar::new(total)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let progress = |n: u64| bar.inc(n);
        let options = Options {
            sample: args.sample,
            without: args.without.clone(),
        };
        let outcome = match infer(&db, &options, &progress).await {
            Ok(o) => o,
            Err(e) => {
                bar.finish_and_clear();
                errln!("error: {e}");
                return Exit::Usage;
            }
        };
        bar.finish_and_clear();
        let written = match &args.output {
            Some(path) => write_file(path, &outcome.text)
                .map_err(|e| format!("{}: could not write the draft: {e}", path.display())),
            None => {
                if let Err(exit) = out!("{}", outcome.text) {
                    return exit;
                }
                Ok(())
            }
        };
        if let Err(m) = written {
            errln!("error: {m}");
            return Exit::Usage;
        }
        let d = &outcome.draft;
        errln!(
            "inferred {} entities, {} value types, {} relations and {} queries from {} collections ({} documents sampled){}",
            d.entities.len(),
            d.values.len(),
            d.relations.len(),
            d.queries.len(),
            outcome.collections,
            words::n(outcome.sampled),
            args.output
                .as_ref()
                .map_or(String::new(), |p| format!(": {}", p.display()))
        );
        Exit::Ok
    })
}

/// Writes the file whole or not at all: a temporary file beside it, renamed over it.
fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".squillion-infer")
        .tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
