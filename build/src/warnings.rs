//! A schema's warnings as a build script prints them: Cargo shows each `cargo:warning=` line on
//! its own, so a warning is its located message and then, where it has one, its help, each on a
//! line of its own (a line break inside either would end Cargo's line and lose the rest).

use squillion_grammar::{escape_invisible, Diagnostic, SourceFile};

/// The lines a build script prints for warning `w` of `source`, without the `cargo:warning=`
/// prefix: `file:line:col: warning[W101]: what is wrong`, then `  help: what to do` where the
/// warning says what to do. Line breaks are spaces and invisible characters are escaped.
pub fn cargo_warning_lines(source: &SourceFile, w: &Diagnostic) -> Vec<String> {
    let pos = source.position(w.span.start);
    let mut lines = vec![format!(
        "{}:{}:{}: {}",
        one_line(source.name()),
        pos.line,
        pos.column,
        one_line(&w.to_string())
    )];
    if let Some(help) = &w.help {
        lines.push(format!("  help: {}", one_line(help)));
    }
    lines
}

/// `text` on one line: line breaks become spaces, invisible characters are written out.
fn one_line(text: &str) -> String {
    escape_invisible(&text.replace(['\r', '\n'], " ")).into_owned()
}
