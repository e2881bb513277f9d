//! `squillion migrate OLD NEW --uri URI [--db NAME]` (or `FILE --base REV`): the steps
//! `squillion_codegen::migration` writes from the diff of the two Plans, applied through the
//! runtime's executor (`squillion::migrate`, the one the modules of `-o` call) (expand, move,
//! contract), each recorded in a checkpoint document so that a second run does nothing;
//! `--dry-run` lists them, `--print mongosh` writes them as a mongosh script, `-o DIR` writes
//! the Rust module and the script (`write.rs`).
//!
//! Exit codes: 0 migrated (or nothing to do, or written), 1 the diff holds changes this version
//! cannot migrate (nothing written), 2 a file could not be read, checked or written, or the
//! database refused.

mod ops;
mod write;

use std::path::PathBuf;

use mongodb::Database;
use squillion::migrate::{MigrationError, Progress, Run, CHECKPOINTS};
use squillion_codegen::migration::{self, Migration, Phase};

use crate::database::{describe, with_database, Connection};
use crate::diff::{plan_at, plan_of_file};
use crate::Exit;

/// What `--print` writes instead of applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PrintFormat {
    /// The steps as a mongosh script (`mongosh URI script.js`).
    Mongosh,
}

/// The last phase `--until` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Until {
    /// The checks, the new collections and indexes, the validators relaxed to accept both
    /// versions: what the new code needs before it is deployed. No document is changed.
    Expand,
    /// Expand, then the data moves; the old indexes and the relaxed validators stay.
    Move,
    /// Every step (the default).
    Contract,
}

impl Until {
    fn phase(self) -> Phase {
        match self {
            Until::Expand => Phase::Expand,
            Until::Move => Phase::Move,
            Until::Contract => Phase::Contract,
        }
    }
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
    #[arg(
        long,
        env = "SQUILLION_MONGODB_URI",
        required_unless_present_any = ["print", "out"]
    )]
    pub uri: Option<String>,
    /// Database name (default: the one in the URI, else `test`).
    #[arg(long)]
    pub db: Option<String>,
    /// List the steps (and which are already done) without writing anything.
    #[arg(long, conflicts_with = "out")]
    pub dry_run: bool,
    /// Run the steps up to the end of this phase only; a later run without it goes on from there
    /// (the checkpoint records each step done). `--until expand` prepares the database for the
    /// new code (indexes, relaxed validators) without changing a document: deploy the new code
    /// (`generate --from OLD`), then migrate the data.
    #[arg(long, value_enum, value_name = "PHASE", conflicts_with_all = ["print", "out"])]
    pub until: Option<Until>,
    /// Write the steps to stdout in this form instead of applying them.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "out")]
    pub print: Option<PrintFormat>,
    /// Write the migration into DIR instead of applying it: `<name>.rs`, a Rust module for the
    /// application (it depends on `squillion` only), and `<name>.js`, the mongosh script.
    /// Touches no database.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The files' name with -o (default: `migrate_<old stem>_<new stem>`).
    #[arg(long, value_name = "NAME", requires = "out")]
    pub name: Option<String>,
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
    if let Some(dir) = &args.out {
        return write::run(args, dir, &m);
    }
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
    let until = args.until.unwrap_or(Until::Contract);
    with_database(&connection, |db| apply(db, m, args.dry_run, until))
}

/// Every step of `m` as the runtime runs it: its name and its `squillion::migrate::Op` (what
/// `migrate --uri` runs, one [`squillion::migrate::Run::step`] each); `Err` names the step whose
/// data is not BSON.
pub fn operations(m: &Migration) -> Result<Vec<(String, squillion::migrate::Op)>, String> {
    ops::steps(m)
}

/// Runs every step not yet recorded in the checkpoint, recording each one when it is done:
/// the runtime's executor (`squillion::migrate`), the one the generated module calls.
async fn apply(db: Database, m: Migration, dry_run: bool, until: Until) -> Exit {
    let steps = match ops::steps(&m) {
        Ok(s) => s,
        Err(why) => {
            errln!("error: {why}\nnote: nothing was written");
            return Exit::Usage;
        }
    };
    let names: Vec<&str> = steps.iter().map(|(n, _)| n.as_str()).collect();
    let migration = squillion::migrate::Migration {
        id: &m.id,
        from: &m.old_source,
        to: &m.new_source,
        steps: &names,
    };
    // The first failure to write to standard output ends the run after the step under way.
    let mut closed: Option<Exit> = None;
    let mut progress = |p: &Progress<'_>| {
        let line = match p {
            Progress::AlreadyDone { .. } | Progress::Done { .. } | Progress::Would { .. } => p,
            Progress::Started { .. } | Progress::Batch { .. } | Progress::IdsGiven { .. } => return,
        };
        if closed.is_none() {
            if let Err(exit) = outln!("{line}") {
                closed = Some(exit);
            }
        }
    };
    let mut run = match Run::open(&db, &migration, dry_run, &mut progress).await {
        Ok(run) => run,
        Err(e) => return failed(&e),
    };
    if run.all_done() {
        drop(run);
        return say(&format!(
            "already migrated: all {} steps from {} to {} are recorded in {CHECKPOINTS} ({}); nothing to do",
            m.steps.len(),
            m.old_source,
            m.new_source,
            m.id
        ));
    }
    let last = until.phase();
    let mut left = 0;
    for ((name, op), step) in steps.into_iter().zip(&m.steps) {
        if step.phase > last {
            left += 1;
            continue;
        }
        if let Err(e) = run.step(&name, op).await {
            return failed(&e);
        }
    }
    drop(run);
    if let Some(exit) = closed {
        return exit;
    }
    if left > 0 {
        let exit = say(&format!(
            "{} after the {} phase: {left} step{} left ({}); run `migrate` again without --until to go on",
            if dry_run { "would stop" } else { "stopped" },
            last.as_str(),
            if left == 1 { "" } else { "s" },
            if last == Phase::Expand {
                "the data moves and the contract"
            } else {
                "the contract"
            }
        ));
        if exit != Exit::Ok {
            return exit;
        }
    }
    if dry_run {
        return say("dry run: nothing was written");
    }
    Exit::Ok
}

/// A step that stopped: the data that does not fit (exit 1), or the server's refusal (exit 2).
fn failed(e: &MigrationError) -> Exit {
    let help = "  help: the steps before it are recorded in";
    match e {
        MigrationError::Data { .. } => {
            errln!("{e}");
            Exit::Failed
        }
        MigrationError::Checkpoint { source, .. } => {
            errln!(
                "error: cannot read the checkpoint in {CHECKPOINTS}: {}",
                describe(source)
            );
            Exit::Usage
        }
        MigrationError::Record { step, source } => {
            errln!(
                "error: `{step}` was done but not recorded in {CHECKPOINTS}: {}\n  help: run migrate again: the step changes nothing the second time",
                describe(source)
            );
            Exit::Usage
        }
        MigrationError::Server { step, source } => {
            errln!(
                "error: step `{step}` failed: {}\n{help} {CHECKPOINTS}; fix the cause and run migrate again to go on from this step",
                describe(source)
            );
            Exit::Usage
        }
        MigrationError::Other { step, why } => {
            errln!(
                "error: step `{step}` failed: {why}\n{help} {CHECKPOINTS}; fix the cause and run migrate again to go on from this step"
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
