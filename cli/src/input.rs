//! Reading schema files: every failure becomes a clear message naming the file.

use std::path::Path;

use squillion_grammar::SourceFile;

/// Reads a schema file. Directories, unreadable and non-UTF-8 files give a message, not a panic.
pub fn read_schema(path: &Path) -> Result<SourceFile, String> {
    if path.is_dir() {
        return Err(format!(
            "{}: is a directory, not a .sqn file",
            path.display()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(SourceFile::new(path.display().to_string(), text))
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
