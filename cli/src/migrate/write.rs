//! `squillion migrate OLD NEW -o DIR`: the migration written, not applied: `DIR/<name>.rs`, a
//! Rust module whose `migrate(&db, progress)` runs the steps through the runtime's executor
//! (the one the CLI uses, with the same checkpoint), and `DIR/<name>.js`, the mongosh script.
//! Both files or neither (staged, then renamed into place); no database is touched.

use std::path::Path;

use squillion_codegen::files::{write_all, Output};
use squillion_codegen::migration::{self, Migration};

use super::MigrateArgs;
use crate::Exit;

/// The code of a migration that could not be written into DIR (an I/O error).
pub const WRITE_CODE: &str = "M0003";

/// The code of a migration the generated Rust cannot hold (a value in extended JSON).
pub const RUST_CODE: &str = "M0004";

/// Writes the two files, or neither.
pub(super) fn run(args: &MigrateArgs, dir: &Path, m: &Migration) -> Exit {
    let name = args.name.clone().unwrap_or_else(|| default_name(args));
    let name = identifier(&name);
    let rust = match migration::rust::module(m) {
        Ok(r) => r,
        Err(e) => {
            errln!("error[{RUST_CODE}]: {e}\nnote: nothing was written");
            return Exit::Failed;
        }
    };
    let files = [
        Output {
            path: dir.join(format!("{name}.rs")),
            content: rust,
        },
        Output {
            path: dir.join(format!("{name}.js")),
            content: migration::mongosh::script(m),
        },
    ];
    if let Err(e) = write_all(&files) {
        errln!(
            "error[{WRITE_CODE}]: cannot write the migration into {}: {e}\n  help: give -o a directory you can write to (it is created if missing)\nnote: nothing was written",
            dir.display()
        );
        return Exit::Usage;
    }
    for f in &files {
        if let Err(exit) = outln!("wrote {}", f.path.display()) {
            return exit;
        }
    }
    Exit::Ok
}

/// `migrate_<old stem>_<new stem>`, or `migrate_<stem>_since_<rev>` with `--base`.
fn default_name(args: &MigrateArgs) -> String {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "schema".to_owned())
    };
    match (&args.new, &args.base) {
        (Some(new), _) => format!("migrate_{}_{}", stem(&args.old), stem(new)),
        (None, Some(rev)) => format!("migrate_{}_since_{rev}", stem(&args.old)),
        (None, None) => format!("migrate_{}", stem(&args.old)),
    }
}

/// A file name that is also a Rust module name: lower case ASCII letters, digits and `_`.
fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.insert_str(0, "migrate_");
    }
    out
}
