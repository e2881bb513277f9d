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
    /// Documents sampled per collection.
    #[arg(long, default_value_t = 1000)]
    pub sample: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::check::OutputFormat,
}

fn plan_of(file: &std::path::Path) -> Result<Plan, Exit> {
    let source = read_schema(file).map_err(|m| {
        eprintln!("error: {m}");
        Exit::Usage
    })?;
    let checked = squillion_codegen::load(&source).map_err(|d| {
        eprint!("{}", source.render(&d, stderr_color()));
        Exit::Usage
    })?;
    Ok(squillion_codegen::engine::plan(&checked.model, &source))
}

async fn connect(c: &Connection) -> Result<mongodb::Database, String> {
    let client = mongodb::Client::with_uri_str(&c.uri)
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", redact(&c.uri)))?;
    let name =
        c.db.clone()
            .or_else(|| client.default_database().map(|d| d.name().to_owned()))
            .unwrap_or_else(|| "test".to_owned());
    let db = client.database(&name);
    db.run_command(mongodb::bson::doc! { "ping": 1 })
        .await
        .map_err(|e| format!("cannot reach {}: {e}", redact(&c.uri)))?;
    Ok(db)
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
            eprintln!("error: cannot start the async runtime: {e}");
            Exit::Usage
        })
}

/// Runs `indexes`: exit 0 in sync (or all applied), 1 drift found (dry run), 2 errors.
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
            Err(m) => {
                eprintln!("error: {m}");
                return Exit::Usage;
            }
        };
        let drift = match crate::sync::inspect(&db, &plan).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        };
        let drifting = drift.iter().any(|d| d.has_drift());
        let actions = if args.apply {
            match crate::sync::apply(&db, &plan, &drift, args.prune).await {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::Usage;
                }
            }
        } else {
            Vec::new()
        };
        if args.format == crate::check::OutputFormat::Json {
            let out = serde_json::json!({ "collections": drift, "applied": actions });
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        } else {
            print!("{}", crate::sync::report::text(&drift));
            for a in &actions {
                println!("{a}");
            }
        }
        match (drifting, args.apply) {
            (false, _) => Exit::Ok,
            (true, true) => Exit::Ok,
            (true, false) => Exit::Failed,
        }
    })
}

/// Runs `audit`: exit 0 when the sample agrees with the design, 1 when it does not, 2 errors.
pub fn audit(args: &AuditArgs) -> Exit {
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
            Err(m) => {
                eprintln!("error: {m}");
                return Exit::Usage;
            }
        };
        let total = args.sample.saturating_mul(plan.collections.len() as u64);
        let bar = if args.format == crate::check::OutputFormat::Text && crate::input::stdout_color()
        {
            indicatif::ProgressBar::new(total)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let progress = |n: u64| bar.inc(n);
        let report = match crate::audit::audit(&db, &plan, args.sample, &progress).await {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        };
        bar.finish_and_clear();
        if args.format == crate::check::OutputFormat::Json {
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
        } else {
            print!("{}", crate::audit::report::text(&report));
        }
        if report.findings.is_empty() {
            Exit::Ok
        } else {
            Exit::Failed
        }
    })
}
