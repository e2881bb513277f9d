//! `squillion indexes` and `squillion audit`: commands that talk to a live database.

use std::path::PathBuf;

use squillion_codegen::plan::Plan;

use crate::input::{read_schema, stderr_color};
use crate::Exit;

/// Where the database is.
#[derive(Debug, Clone, clap::Args)]
pub struct Connection {
    /// MongoDB connection string.
    #[arg(long, env = "SQUILLION_MONGODB_URI")]
    pub uri: String,
    /// Database name (default: the one in the URI, else `test`).
    #[arg(long)]
    pub db: Option<String>,
}

/// Arguments of `squillion indexes`.
#[derive(Debug, Clone, clap::Args)]
pub struct IndexesArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// The database.
    #[command(flatten)]
    pub connection: Connection,
    /// Create missing indexes and validators, rebuild declared indexes whose options changed.
    #[arg(long)]
    pub apply: bool,
    /// With --apply: also drop indexes the schema does not declare.
    #[arg(long, requires = "apply")]
    pub prune: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::check::OutputFormat,
}

/// Arguments of `squillion audit`.
#[derive(Debug, Clone, clap::Args)]
pub struct AuditArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// The database.
    #[command(flatten)]
    pub connection: Connection,
    /// Documents sampled per collection (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::check::OutputFormat,
}

fn plan_of(file: &std::path::Path) -> Result<Plan, Exit> {
    design_of(file).map(|(_, plan)| plan)
}

/// The schema's model and its plan, or exit 2 after saying why.
fn design_of(file: &std::path::Path) -> Result<(squillion_codegen::model::Model, Plan), Exit> {
    let source = read_schema(file).map_err(|unread| {
        // An invalid schema is a usage error here, like the ones `load` reports below.
        unread.report();
        Exit::Usage
    })?;
    let checked = squillion_codegen::load(&source).map_err(|d| {
        err!("{}", source.render(&d, stderr_color()));
        Exit::Usage
    })?;
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    Ok((checked.model, plan))
}

/// Why a database could not be used, and what to do about it.
struct Unreachable {
    message: String,
    help: &'static str,
}

impl Unreachable {
    /// Says why on stderr, then what to do: a usage error (exit 2).
    fn report(&self) -> Exit {
        errln!("error: {}", self.message);
        errln!("  help: {}", self.help);
        Exit::Usage
    }
}

async fn connect(c: &Connection) -> Result<mongodb::Database, Unreachable> {
    let client = mongodb::Client::with_uri_str(&c.uri)
        .await
        .map_err(|e| Unreachable {
            message: format!("cannot connect to {}: {}", redact(&c.uri), describe(&e)),
            help: "a connection string looks like `mongodb://host:27017/db` \
                   (`mongodb+srv://` for a DNS seed list); give it with --uri or SQUILLION_MONGODB_URI",
        })?;
    let name =
        c.db.clone()
            .or_else(|| client.default_database().map(|d| d.name().to_owned()))
            .unwrap_or_else(|| "test".to_owned());
    let db = client.database(&name);
    db.run_command(mongodb::bson::doc! { "ping": 1 })
        .await
        .map_err(|e| Unreachable {
            message: format!("cannot reach {}: {}", redact(&c.uri), describe(&e)),
            help: "check that the server runs and listens at that address (host, port, \
                   credentials, TLS options), or give another with --uri or SQUILLION_MONGODB_URI",
        })?;
    Ok(db)
}

/// A driver error in one readable line, as the runtime's errors say it
/// ([`squillion::DriverError::reason`]): the server's message, code and code name (a duplicate
/// key in words, never a collation key's bytes), or what went wrong when it did not answer.
pub(crate) fn describe(e: &mongodb::error::Error) -> String {
    squillion::DriverError::new(e.clone()).reason()
}

/// The URI without its password.
fn redact(uri: &str) -> String {
    match (uri.find("://"), uri.find('@')) {
        (Some(s), Some(at)) if at > s => format!("{}<credentials>{}", &uri[..s + 3], &uri[at..]),
        _ => uri.to_owned(),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Exit> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            errln!("error: cannot start the async runtime: {e}");
            Exit::Usage
        })
}

/// Runs `work` with the database `c` names, on a runtime of its own; a database that cannot be
/// reached is a line on stderr saying why, a help line, and exit 2.
pub(crate) fn with_database<F, Fut>(c: &Connection, work: F) -> Exit
where
    F: FnOnce(mongodb::Database) -> Fut,
    Fut: std::future::Future<Output = Exit>,
{
    let rt = match runtime() {
        Ok(r) => r,
        Err(e) => return e,
    };
    rt.block_on(async {
        match connect(c).await {
            Ok(db) => work(db).await,
            Err(u) => u.report(),
        }
    })
}

/// Runs `indexes`: exit 0 in sync (or all applied), 1 drift found (dry run) or not all of it
/// applied, 2 errors.
pub fn indexes(args: &IndexesArgs) -> Exit {
    let plan = match plan_of(&args.file) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let rt = match runtime() {
        Ok(r) => r,
        Err(e) => return e,
    };
    rt.block_on(async {
        let db = match connect(&args.connection).await {
            Ok(db) => db,
            Err(u) => return u.report(),
        };
        let drift = match crate::sync::inspect(&db, &plan).await {
            Ok(d) => d,
            Err(e) => {
                errln!("error: {}", describe(&e));
                return Exit::Usage;
            }
        };
        let drifting = drift.iter().any(|d| d.has_drift());
        let mut applied = crate::sync::Applied::default();
        let stopped = if args.apply {
            crate::sync::apply(&db, &plan, &drift, args.prune, &mut applied)
                .await
                .err()
        } else {
            None
        };
        if args.format == crate::check::OutputFormat::Json {
            let out = serde_json::json!({
                "collections": drift,
                "applied": applied.done,
                "failed": applied.failed,
            });
            if let Err(exit) = outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default())
            {
                return exit;
            }
        } else {
            if let Err(exit) = out!("{}", crate::sync::report::text(&drift)) {
                return exit;
            }
            for a in &applied.done {
                if let Err(exit) = outln!("{a}") {
                    return exit;
                }
            }
            for f in &applied.failed {
                errln!("error: {f}");
            }
        }
        if let Some(e) = stopped {
            errln!("error: --apply stopped: {}", describe(&e));
            return Exit::Usage;
        }
        match (drifting, args.apply) {
            (false, _) => Exit::Ok,
            (true, true) if applied.failed.is_empty() => Exit::Ok,
            (true, _) => Exit::Failed,
        }
    })
}

/// Runs `audit`: exit 0 when the sample agrees with the design, 1 when it does not, 2 errors.
pub fn audit(args: &AuditArgs) -> Exit {
    let (model, plan) = match design_of(&args.file) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let rt = match runtime() {
        Ok(r) => r,
        Err(e) => return e,
    };
    rt.block_on(async {
        let db = match connect(&args.connection).await {
            Ok(db) => db,
            Err(u) => return u.report(),
        };
        let bar = if args.format == crate::check::OutputFormat::Text && crate::input::stdout_color()
        {
            // As long as the documents there are to sample, as far as the server's estimate goes.
            let mut total = 0u64;
            for c in &plan.collections {
                let estimate = db
                    .collection::<mongodb::bson::Document>(&c.name)
                    .estimated_document_count()
                    .await
                    .unwrap_or(args.sample);
                total = total.saturating_add(estimate.min(args.sample));
            }
            indicatif::ProgressBar::new(total)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let progress = |n: u64| bar.inc(n);
        let report = match crate::audit::audit(&db, &model, &plan, args.sample, &progress).await {
            Ok(r) => r,
            Err(e) => {
                errln!("error: {}", describe(&e));
                return Exit::Usage;
            }
        };
        bar.finish_and_clear();
        let printed = if args.format == crate::check::OutputFormat::Json {
            outln!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )
        } else {
            out!("{}", crate::audit::report::text(&report))
        };
        if let Err(exit) = printed {
            return exit;
        }
        if report.findings.is_empty() {
            Exit::Ok
        } else {
            Exit::Failed
        }
    })
}
