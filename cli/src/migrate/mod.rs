//! `squillion migrate OLD NEW --uri URI [--db NAME]` (or `FILE --base REV`): the steps
//! `squillion_codegen::migration` writes from the diff of the two Plans, applied with the driver
//! (expand, move, contract), each recorded in a checkpoint document so that a second run does
//! nothing; `--dry-run` lists them, `--print mongosh` writes them as a mongosh script.
//!
//! Exit codes: 0 migrated (or nothing to do), 1 the diff holds changes this version cannot
//! migrate (nothing written), 2 a file could not be read or checked, or the database refused.

mod moves;

use std::path::PathBuf;

use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::migration::{self, Action, Migration, Step, CHECKPOINTS};

use crate::database::{describe, with_database, Connection};
use crate::diff::{plan_at, plan_of_file};
use crate::Exit;

/// What `--print` writes instead of applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PrintFormat {
    /// The steps as a mongosh script (`mongosh URI script.js`).
    Mongosh,
}

/// Arguments of `squillion migrate`.
#[derive(Debug, Clone, clap::Args)]
pub struct MigrateArgs {
    /// The old schema file; with --base, the schema file to compare with its earlier version.
    pub old: PathBuf,
    /// The new schema file.
    #[arg(required_unless_present = "base")]
    pub new: Option<PathBuf>,
    /// Migrate from FILE's version at this git revision (`HEAD`, `main`, a commit) to FILE.
    #[arg(long, value_name = "REV", conflicts_with = "new")]
    pub base: Option<String>,
    /// MongoDB connection string.
    #[arg(long, env = "SQUILLION_MONGODB_URI", required_unless_present = "print")]
    pub uri: Option<String>,
    /// Database name (default: the one in the URI, else `test`).
    #[arg(long)]
    pub db: Option<String>,
    /// List the steps (and which are already done) without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Write the steps to stdout in this form instead of applying them.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub print: Option<PrintFormat>,
}

/// Runs `squillion migrate`.
pub fn run(args: &MigrateArgs) -> Exit {
    let (old, new) = match (&args.new, &args.base) {
        (Some(new), _) => (plan_of_file(&args.old), plan_of_file(new)),
        (None, Some(rev)) => (plan_at(&args.old, rev), plan_of_file(&args.old)),
        (None, None) => {
            errln!("error: give the new schema file, or --base REV to migrate from a git revision");
            return Exit::Usage;
        }
    };
    let (old, new) = match (old, new) {
        (Ok(o), Ok(n)) => (o, n),
        _ => return Exit::Usage,
    };
    let d = squillion_codegen::diff::diff(&old, &new);
    let m = match migration::plan(&old, &new, &d) {
        Ok(m) => m,
        Err(refused) => {
            for r in &refused {
                errln!("{r}");
            }
            errln!(
                "error: nothing was written: {} change{} from {} to {} cannot be migrated by this version of squillion",
                refused.len(),
                if refused.len() == 1 { "" } else { "s" },
                d.old_source,
                d.new_source
            );
            return Exit::Failed;
        }
    };
    if args.print == Some(PrintFormat::Mongosh) {
        return match out!("{}", migration::mongosh::script(&m)) {
            Ok(()) => Exit::Ok,
            Err(exit) => exit,
        };
    }
    if m.steps.is_empty() {
        return match outln!(
            "nothing to migrate: {} and {} store the same documents",
            m.old_source,
            m.new_source
        ) {
            Ok(()) => Exit::Ok,
            Err(exit) => exit,
        };
    }
    let Some(uri) = args.uri.clone() else {
        errln!("error: give the database with --uri URI (or SQUILLION_MONGODB_URI)");
        return Exit::Usage;
    };
    let connection = Connection {
        uri,
        db: args.db.clone(),
    };
    with_database(&connection, |db| apply(db, m, args.dry_run))
}

/// Runs every step not yet recorded in the checkpoint, recording each one when it is done.
async fn apply(db: Database, m: Migration, dry_run: bool) -> Exit {
    let checkpoints = db.collection::<Document>(CHECKPOINTS);
    let done: Vec<String> = match checkpoints.find_one(doc! { "_id": &m.id }).await {
        Ok(found) => found
            .and_then(|c| c.get_array("done").ok().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|b| b.as_str().map(str::to_owned))
            .collect(),
        Err(e) => {
            errln!(
                "error: cannot read the checkpoint in {CHECKPOINTS}: {}",
                describe(&e)
            );
            return Exit::Usage;
        }
    };
    if m.steps.iter().all(|s| done.contains(&s.name())) {
        return say(&format!(
            "already migrated: all {} steps from {} to {} are recorded in {CHECKPOINTS} ({}); nothing to do",
            m.steps.len(),
            m.old_source,
            m.new_source,
            m.id
        ));
    }
    // Checks that passed are recorded with the first write after them, so that data refused by
    // a later check leaves the database (checkpoint included) as it was.
    let mut passed: Vec<String> = Vec::new();
    for step in &m.steps {
        let name = step.name();
        let line = if done.contains(&name) {
            format!("already done: {name}")
        } else if dry_run {
            // Checks only read: a dry run makes them, and stops where the migration would.
            if let Action::Check { check } = &step.action {
                if let Err(e) = moves::check(&db, check).await {
                    return failed(&name, e);
                }
            }
            format!("would {name}")
        } else {
            match run_step(&db, step).await {
                Ok(detail) if matches!(step.action, Action::Check { .. }) => {
                    passed.push(name.clone());
                    format!("done: {name}{detail}")
                }
                Ok(detail) => {
                    passed.push(name.clone());
                    let names = std::mem::take(&mut passed);
                    let recorded = checkpoints
                        .update_one(
                            doc! { "_id": &m.id },
                            doc! {
                                "$addToSet": { "done": { "$each": &names } },
                                "$setOnInsert": { "from": &m.old_source, "to": &m.new_source },
                            },
                        )
                        .upsert(true)
                        .await;
                    if let Err(e) = recorded {
                        errln!(
                            "error: `{name}` was done but not recorded in {CHECKPOINTS}: {}\n  help: run migrate again: the step changes nothing the second time",
                            describe(&e)
                        );
                        return Exit::Usage;
                    }
                    format!("done: {name}{detail}")
                }
                Err(e) => return failed(&name, e),
            }
        };
        if let Err(exit) = outln!("{line}") {
            return exit;
        }
    }
    if dry_run {
        return say("dry run: nothing was written");
    }
    Exit::Ok
}

/// A step that stopped: the data that does not fit (exit 1), or the server's refusal (exit 2).
fn failed(name: &str, e: StepError) -> Exit {
    match e {
        StepError::Data(error) => {
            errln!("{error}");
            errln!("error: step `{name}` stopped the migration: the stored data does not fit the new layout");
            Exit::Failed
        }
        StepError::Server(e) => {
            errln!(
                "error: step `{name}` failed: {}\n  help: the steps before it are recorded in {CHECKPOINTS}; fix the cause and run migrate again to go on from this step",
                describe(&e)
            );
            Exit::Usage
        }
        StepError::Other(why) => {
            errln!(
                "error: step `{name}` failed: {why}\n  help: the steps before it are recorded in {CHECKPOINTS}; fix the cause and run migrate again to go on from this step"
            );
            Exit::Usage
        }
    }
}

fn say(line: &str) -> Exit {
    match outln!("{line}") {
        Ok(()) => Exit::Ok,
        Err(exit) => exit,
    }
}

fn document(v: &serde_json::Value) -> Document {
    match Bson::try_from(v.clone()) {
        Ok(Bson::Document(d)) => d,
        _ => Document::new(),
    }
}

fn bson_value(v: &serde_json::Value) -> Bson {
    Bson::try_from(v.clone()).unwrap_or(Bson::Null)
}

/// Why a step stopped.
enum StepError {
    /// The server refused or could not be reached.
    Server(mongodb::error::Error),
    /// The stored data does not fit the new layout (a check found it): the error, in full.
    Data(String),
    /// Something else, in words.
    Other(String),
}

impl From<mongodb::error::Error> for StepError {
    fn from(e: mongodb::error::Error) -> StepError {
        StepError::Server(e)
    }
}

/// Runs one step; `Ok` holds what it changed, for the progress line.
async fn run_step(db: &Database, step: &Step) -> Result<String, StepError> {
    let coll = |name: &str| db.collection::<Document>(name);
    let changed = |n: u64| format!(" ({n} document{})", if n == 1 { "" } else { "s" });
    let walked = |n: u64| format!(" ({n} parent{} walked)", if n == 1 { "" } else { "s" });
    match &step.action {
        Action::Check { check } => {
            moves::check(db, check).await?;
            Ok(String::new())
        }
        Action::AssignIds { collection, array } => {
            Ok(changed(moves::assign_ids(db, collection, array).await?))
        }
        Action::SplitOut { .. }
        | Action::ReferToParent { .. }
        | Action::Summarise { .. }
        | Action::FillBuckets { .. }
        | Action::LinkPairs { .. } => match migration::pipelines::batched(&step.action) {
            Some(b) => Ok(walked(moves::batched(db, &b).await?)),
            None => Ok(String::new()),
        },
        Action::SplitBuckets { .. } => match migration::pipelines::batched(&step.action) {
            Some(b) => Ok(format!(
                " ({} buckets walked)",
                moves::batched(db, &b).await?
            )),
            None => Ok(String::new()),
        },
        Action::Gather { .. } | Action::GatherBuckets { .. } => {
            Ok(walked(moves::gather(db, &step.action).await?))
        }
        Action::KeepIds {
            collection,
            from,
            to,
        } => Ok(changed(moves::keep_ids(db, collection, from, to).await?)),
        Action::DropCollection { collection } => {
            coll(collection).drop().await?;
            Ok(String::new())
        }
        Action::CreateCollection {
            collection,
            validator,
        } => {
            if !db.list_collection_names().await?.contains(collection) {
                db.create_collection(collection)
                    .validator(document(validator))
                    .await?;
            }
            Ok(String::new())
        }
        Action::CreateIndex { collection, index } => {
            coll(collection)
                .create_index(crate::sync::index_model(index))
                .await?;
            Ok(String::new())
        }
        Action::RelaxValidator {
            collection,
            validator,
        } => coll_mod(db, collection, validator, "moderate").await,
        Action::TightenValidator {
            collection,
            validator,
        } => coll_mod(db, collection, validator, "strict").await,
        Action::Rename {
            collection,
            from,
            to,
        } => {
            let r = coll(collection)
                .update_many(
                    doc! { from: { "$exists": true } },
                    doc! { "$rename": { from: to } },
                )
                .bypass_document_validation(true)
                .await?;
            Ok(changed(r.modified_count))
        }
        Action::WrapReference {
            collection,
            path,
            id_name,
            old_type,
        } => {
            let r = coll(collection)
                .update_many(
                    doc! { path: { "$type": old_type } },
                    vec![doc! { "$set": { path: { id_name: format!("${path}") } } }],
                )
                .bypass_document_validation(true)
                .await?;
            Ok(changed(r.modified_count))
        }
        Action::Unset { collection, path } => {
            let r = coll(collection)
                .update_many(
                    doc! { path: { "$exists": true } },
                    doc! { "$unset": { path: "" } },
                )
                .bypass_document_validation(true)
                .await?;
            Ok(changed(r.modified_count))
        }
        Action::SetVersion {
            collection,
            version,
        } => {
            let r = coll(collection)
                .update_many(
                    document(&migration::version_guard(*version)),
                    doc! { "$set": { "schema_version": version_value(*version) } },
                )
                .bypass_document_validation(true)
                .await?;
            Ok(changed(r.modified_count))
        }
        Action::DropIndex { collection, name } => {
            let c = coll(collection);
            if c.list_index_names().await?.contains(name) {
                c.drop_index(name).await?;
            }
            Ok(String::new())
        }
        Action::Backfill {
            source_collection,
            source_path,
            fan_out,
        } => {
            let (sources, copies) = (coll(source_collection), coll(&fan_out.collection));
            let (mut last, mut modified) = (None::<Bson>, 0u64);
            loop {
                let batch =
                    moves::next_batch(&sources, &doc! {}, &last, doc! { source_path: 1 }).await?;
                let Some(end) = batch.last().and_then(|d| d.get("_id")).cloned() else {
                    break;
                };
                for source in &batch {
                    let (Some(id), Some(value)) =
                        (source.get("_id"), value_at(source, source_path))
                    else {
                        continue;
                    };
                    let filters: Vec<Document> = fan_out
                        .array_filters
                        .iter()
                        .map(|path| doc! { path: id.clone() })
                        .collect();
                    let mut update = copies
                        .update_many(
                            doc! { &fan_out.match_path: id.clone() },
                            doc! { "$set": { &fan_out.set_path: value.clone() } },
                        )
                        .bypass_document_validation(true);
                    if !filters.is_empty() {
                        update = update.array_filters(filters);
                    }
                    modified += update.await?.modified_count;
                }
                last = Some(end);
            }
            Ok(changed(modified))
        }
    }
}

async fn coll_mod(
    db: &Database,
    collection: &str,
    validator: &serde_json::Value,
    level: &str,
) -> Result<String, StepError> {
    db.run_command(doc! {
        "collMod": collection,
        "validator": document(validator),
        "validationLevel": level,
    })
    .await?;
    Ok(String::new())
}

/// `schema_version` as the validator wants it: an `int` (32 bits) while it fits.
fn version_value(version: u32) -> Bson {
    i32::try_from(version).map_or(Bson::Int64(i64::from(version)), Bson::Int32)
}

/// The value at a dotted path of a document (`None`: absent).
fn value_at<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut segments = path.split('.');
    let mut value = d.get(segments.next()?)?;
    for s in segments {
        value = value.as_document()?.get(s)?;
    }
    Some(value)
}
