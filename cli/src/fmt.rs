//! `squillion fmt [--check] FILE...`: the canonical layout of schema files.
//!
//! Files are rewritten in place through a temporary file beside them and a rename, so a failure
//! never leaves a half-written schema. A file with syntax errors is reported and left alone.
//! `-` formats standard input to standard output (for editors).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use squillion_grammar::SourceFile;

use crate::input::{read_schema, stderr_color};
use crate::Exit;

/// Arguments of `squillion fmt`.
#[derive(Debug, Clone, clap::Args)]
pub struct FmtArgs {
    /// Schema files (`.sqn`) to format in place; `-` reads standard input and writes standard output.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Change nothing: show a diff of every file that is not formatted and exit 1 if there is one.
    #[arg(long)]
    pub check: bool,
}

/// Runs `fmt`.
pub fn run(args: &FmtArgs) -> Exit {
    let mut exit = Exit::Ok;
    for path in &args.files {
        let outcome = if path.as_os_str() == "-" {
            stdin(args.check)
        } else {
            file(path, args.check)
        };
        exit = exit.max(outcome);
    }
    exit
}

fn file(path: &Path, check: bool) -> Exit {
    let source = match read_schema(path) {
        Ok(source) => source,
        Err(unread) => return unread.report(),
    };
    let Some(formatted) = formatted(&source) else {
        return Exit::Failed;
    };
    if formatted == source.text() {
        return Exit::Ok;
    }
    if check {
        show_diff(&source, &formatted);
        return Exit::Failed;
    }
    match replace(path, &formatted) {
        Ok(()) => Exit::Ok,
        Err(e) => {
            errln!(
                "error: {}: could not write the formatted file: {e}",
                path.display()
            );
            Exit::Usage
        }
    }
}

fn stdin(check: bool) -> Exit {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        errln!("error: standard input: {e}");
        return Exit::Usage;
    }
    let source = SourceFile::new("<stdin>".to_owned(), text);
    let Some(formatted) = formatted(&source) else {
        return Exit::Failed;
    };
    if check {
        if formatted == source.text() {
            return Exit::Ok;
        }
        show_diff(&source, &formatted);
        return Exit::Failed;
    }
    match out!("{formatted}") {
        Ok(()) => Exit::Ok,
        Err(exit) => exit,
    }
}

/// The formatted text, or `None` after printing the syntax errors.
fn formatted(source: &SourceFile) -> Option<String> {
    match squillion_grammar::format(source.text()) {
        Ok(text) => Some(text),
        Err(diagnostics) => {
            err!("{}", source.render(&diagnostics, stderr_color()));
            None
        }
    }
}

/// Prints the diff on standard output. A reader that stops early (`| head`) is not an error: the
/// exit code already says that the file is not formatted.
fn show_diff(source: &SourceFile, formatted: &str) {
    let text = diff(source.name(), source.text(), formatted);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// A unified diff from the file as it is to the file formatted.
fn diff(name: &str, before: &str, after: &str) -> String {
    // Patience stays fast on large files where most lines changed; the deadline bounds the rest
    // (past it the diff is coarser, never wrong).
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(name, &format!("{name} (formatted)"))
        .to_string()
}

/// Replaces `path`'s content: a temporary file in the same directory, renamed over it, with the
/// original's permissions.
fn replace(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(path)?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".squillion-fmt")
        .tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.as_file().set_permissions(permissions)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
