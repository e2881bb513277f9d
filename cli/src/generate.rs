//! `squillion generate FILE -o DIR [--scripts]`: the Rust module (and mongosh scripts) for teams
//! who check generated code in. Same code as `squillion::build`.

use std::path::PathBuf;

use squillion_codegen::files::{write_all, Output};
use squillion_codegen::pipeline::{compile, GenerateSettings};

use crate::input::{read_schema, stderr_color};
use crate::Exit;

/// Arguments of `squillion generate`.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// Output directory (created if missing), or the `.rs` file to write the module to.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Also write `<stem>.mongosh.js`: collections, validators and indexes for mongosh.
    #[arg(long)]
    pub scripts: bool,
    /// Leave `#[derive(squillion::Document)]` out (plain serde structs).
    #[arg(long, conflicts_with = "from")]
    pub no_derive: bool,
    /// The online mode of a migration: the repositories also read documents of this older
    /// schema's version while `squillion migrate OLD FILE` moves them (renamed fields, copies
    /// added, fields added or removed); a change they cannot read is refused (M0005).
    #[arg(long, value_name = "OLD.sqn")]
    pub from: Option<PathBuf>,
}

/// Runs `generate`. Nothing is written unless the schema is valid.
pub fn run(args: &GenerateArgs) -> Exit {
    let source = match read_schema(&args.file) {
        Ok(s) => s,
        Err(unread) => return unread.report(),
    };
    let settings = GenerateSettings {
        derive_document: !args.no_derive,
    };
    let generated = match compile(&source, &settings) {
        Ok(g) => g,
        Err(diags) => {
            err!("{}", source.render(&diags, stderr_color()));
            return Exit::Failed;
        }
    };
    if !generated.warnings.is_empty() {
        err!("{}", source.render(&generated.warnings, stderr_color()));
    }
    let rust = match &args.from {
        None => generated.rust,
        Some(old) => match online(old, &generated.plan, &settings) {
            Ok(rust) => rust,
            Err(exit) => return exit,
        },
    };
    let (module, scripts) = output_paths(args);
    let mut files = vec![Output {
        path: module,
        content: rust,
    }];
    if args.scripts {
        files.push(Output {
            path: scripts,
            content: squillion_codegen::scripts::mongosh(&generated.plan),
        });
    }
    // All or nothing: a failure leaves every file as it was.
    if let Err(e) = write_all(&files) {
        errln!("error: {e}");
        errln!("note: nothing was written");
        return Exit::Usage;
    }
    for file in &files {
        if let Err(exit) = outln!("wrote {}", file.path.display()) {
            return exit;
        }
    }
    Exit::Ok
}

/// The module of `new` reading the documents of `old`'s version too, or the exit after saying
/// what it cannot read (nothing written).
fn online(
    old: &std::path::Path,
    new: &squillion_codegen::plan::Plan,
    settings: &GenerateSettings,
) -> Result<String, Exit> {
    let old = crate::diff::plan_of_file(old).map_err(|()| Exit::Usage)?;
    match squillion_codegen::migration::online::online(&old, new) {
        Ok(online) => Ok(squillion_codegen::rust::generate_online(
            new, settings, &online,
        )),
        Err(refused) => {
            for r in &refused {
                errln!("{r}");
            }
            errln!(
                "error: nothing was written: {} change{} from {} cannot be read online",
                refused.len(),
                if refused.len() == 1 { "" } else { "s" },
                old.source
            );
            Err(Exit::Failed)
        }
    }
}

/// Where the module and the mongosh script go: `<out>/<schema stem>.rs` and `.mongosh.js` for a
/// directory; for `-o src/clinic.rs` (a `.rs` path that is not a directory), that file and
/// `src/clinic.mongosh.js` beside it.
fn output_paths(args: &GenerateArgs) -> (PathBuf, PathBuf) {
    let names_file = args.out.extension().is_some_and(|e| e == "rs") && !args.out.is_dir();
    let (dir, stem) = if names_file {
        (
            args.out.parent().map(PathBuf::from).unwrap_or_default(),
            args.out.file_stem(),
        )
    } else {
        (args.out.clone(), args.file.file_stem())
    };
    let stem = stem
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "schema".to_owned());
    (
        dir.join(format!("{stem}.rs")),
        dir.join(format!("{stem}.mongosh.js")),
    )
}
