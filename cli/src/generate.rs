//! `squillion generate FILE -o DIR [--scripts]`: the Rust module (and mongosh scripts) for teams
//! who check generated code in. Same code as `squillion::build`.

use std::path::{Path, PathBuf};

use squillion_codegen::pipeline::{compile, GenerateSettings};

use crate::input::{read_schema, stderr_color};
use crate::Exit;

/// Arguments of `squillion generate`.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// Output directory (created if missing).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Also write `<stem>.mongosh.js`: collections, validators and indexes for mongosh.
    #[arg(long)]
    pub scripts: bool,
    /// Leave `#[derive(squillion::Document)]` out (plain serde structs).
    #[arg(long)]
    pub no_derive: bool,
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
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "schema".to_owned());
    let mut files = vec![(args.out.join(format!("{stem}.rs")), generated.rust)];
    if args.scripts {
        files.push((
            args.out.join(format!("{stem}.mongosh.js")),
            squillion_codegen::scripts::mongosh(&generated.plan),
        ));
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        errln!("error: {}: {e}", args.out.display());
        return Exit::Usage;
    }
    for (path, content) in files {
        if let Err(e) = write(&path, &content) {
            errln!("error: {}: {e}", path.display());
            return Exit::Usage;
        }
        if let Err(exit) = outln!("wrote {}", path.display()) {
            return exit;
        }
    }
    Exit::Ok
}

fn write(path: &Path, content: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(());
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, content)?;
    std::fs::rename(&tmp, path)
}
