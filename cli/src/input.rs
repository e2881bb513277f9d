//! Reading schema files: every failure becomes a clear message naming the file.

use std::path::Path;

use squillion_codegen::pipeline::display_name;
use squillion_grammar::{NotText, SourceFile};

use crate::Exit;

/// Why a schema file could not be read.
#[derive(Debug)]
pub enum Unread {
    /// A directory, a missing or unreadable file: a usage error (exit 2).
    Unreadable(String),
    /// The bytes are not UTF-8: a coded diagnostic in the file (exit 1), like any other error in
    /// its text.
    NotText(Box<NotText>),
}

impl Unread {
    /// Prints why on standard error and returns the exit code it deserves.
    pub fn report(self) -> Exit {
        match self {
            Unread::Unreadable(message) => {
                errln!("error: {message}");
                Exit::Usage
            }
            Unread::NotText(e) => {
                err!("{}", e.source.render(&[e.diagnostic], stderr_color()));
                Exit::Failed
            }
        }
    }
}

/// Reads a schema file, named in diagnostics and outputs as given relative to the working
/// directory (never by an absolute path). Directories, unreadable and non-UTF-8 files give a
/// message, not a panic.
pub fn read_schema(path: &Path) -> Result<SourceFile, Unread> {
    let name = display(path);
    if path.is_dir() {
        return Err(Unread::Unreadable(format!(
            "{name}: is a directory, not a .sqn file"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Unread::Unreadable(format!("{name}: {e}")))?;
    SourceFile::from_bytes(name, bytes).map_err(Unread::NotText)
}

/// A file's name as diagnostics and outputs write it: relative to the working directory.
pub fn display(path: &Path) -> String {
    match std::env::current_dir() {
        Ok(dir) => display_name(path, &dir),
        Err(_) => display_name(path, Path::new("")),
    }
}

/// Whether diagnostics on stderr should be coloured.
pub fn stderr_color() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Whether output on stdout should be coloured.
pub fn stdout_color() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}
