//! The whole pipeline for one file, shared by `build.rs` and the CLI: text -> Ast -> Model ->
//! Plan -> Rust. Plan warnings of error severity (a document over 16 MB) fail it like diagnostics.
//!
//! [`check`] is everything short of writing code: what `squillion check` reports, so that a file
//! it accepts never fails in `plan` or `generate`.

use std::path::{Component, Path, PathBuf};

use squillion_grammar::{Diagnostic, SourceFile, Span};

use crate::engine;
use crate::plan::{Plan, Severity};
use crate::resolve::Checked;
use crate::rust::{self, RustSettings};

/// Options shared by `build.rs` ([`squillion::build`]) and `squillion generate`.
pub type GenerateSettings = RustSettings;

/// What one schema file produced.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The plan.
    pub plan: Plan,
    /// The formatted Rust module.
    pub rust: String,
    /// Warnings: from validation, and the plan's warnings as diagnostics.
    pub warnings: Vec<Diagnostic>,
}

/// A file that passed every check: its Model and its Plan.
#[derive(Debug, Clone)]
pub struct Valid {
    /// The Model and the warnings of validation.
    pub checked: Checked,
    /// The Plan.
    pub plan: Plan,
    /// The plan's warnings as diagnostics (no errors).
    pub plan_warnings: Vec<Diagnostic>,
}

/// Parses, validates and plans: every error `plan` or `generate` could meet (the plan's errors, and
/// names the generated Rust would define twice), found without writing anything. On failure
/// returns every diagnostic (errors first, in source order).
pub fn check(source: &SourceFile) -> Result<Valid, Vec<Diagnostic>> {
    let checked = crate::load(source)?;
    let plan = engine::plan(&checked.model, source);
    let plan_warnings = plan_diagnostics(&plan);
    // Names the generated code would define twice: it would not compile.
    let clashes = rust::clashes::diagnostics(&plan, &checked.model);
    if !clashes.is_empty() || plan_warnings.iter().any(Diagnostic::is_error) {
        let mut all = clashes;
        all.extend(plan_warnings);
        all.extend(checked.warnings);
        all.sort_by_key(|d| (!d.is_error(), d.span.start));
        return Err(all);
    }
    Ok(Valid {
        checked,
        plan,
        plan_warnings,
    })
}

/// Parses, validates, plans and generates. On failure returns every diagnostic (errors first).
pub fn compile(
    source: &SourceFile,
    settings: &GenerateSettings,
) -> Result<Generated, Vec<Diagnostic>> {
    let valid = check(source)?;
    let rust = rust::generate(&valid.plan, settings);
    let mut warnings = valid.checked.warnings;
    warnings.extend(valid.plan_warnings);
    Ok(Generated {
        plan: valid.plan,
        rust,
        warnings,
    })
}

/// The plan's warnings as diagnostics (notes are left out).
pub fn plan_diagnostics(plan: &Plan) -> Vec<Diagnostic> {
    plan.warnings
        .iter()
        .filter(|w| w.severity != Severity::Info)
        .map(|w| {
            let code = engine::codes::ALL
                .iter()
                .map(|(c, _)| *c)
                .find(|c| *c == w.code)
                .unwrap_or("W100");
            let span = Span::new(w.position.start, w.position.end);
            let message = format!("{} [{}]", w.message, w.rule.title.to_lowercase());
            let mut d = if w.severity == Severity::Error {
                Diagnostic::error(code, span, message)
            } else {
                Diagnostic::warning(code, span, message)
            };
            if let Some(help) = &w.help {
                d = d.with_help(help.clone());
            }
            d
        })
        .collect()
}

/// How a schema file is named in diagnostics and outputs (the Plan's `source`, the review, the
/// mongosh script): `path` as given when it is relative, else relative to `base` (the working
/// directory, or the manifest directory in build.rs), so that outputs never carry the machine's
/// absolute paths and are the same in every checkout. A path with nothing in common with `base`
/// is named by its file name.
pub fn display_name(path: &Path, base: &Path) -> String {
    if path.is_relative() {
        return path.display().to_string();
    }
    let file_name = || {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string())
    };
    if !base.is_absolute() {
        return file_name();
    }
    let (to, from) = (normal(path), normal(base));
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    // Only the root in common (or a different drive): a relative path would climb to the root.
    if common <= 1
        || from[common..]
            .iter()
            .any(|c| matches!(c, Component::ParentDir))
    {
        return file_name();
    }
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for c in &to[common..] {
        relative.push(c.as_os_str());
    }
    if relative.as_os_str().is_empty() {
        return file_name();
    }
    relative.display().to_string()
}

/// The components of `p` without `.`.
fn normal(p: &Path) -> Vec<Component<'_>> {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_relative_to_the_base_never_absolute() {
        let base = Path::new("/work/app");
        let name = |p: &str| display_name(Path::new(p), base);
        assert_eq!(name("schema/library.sqn"), "schema/library.sqn");
        assert_eq!(name("../other/x.sqn"), "../other/x.sqn");
        assert_eq!(name("/work/app/schema/library.sqn"), "schema/library.sqn");
        assert_eq!(name("/work/app/./library.sqn"), "library.sqn");
        assert_eq!(name("/work/shared/x.sqn"), "../shared/x.sqn");
        assert_eq!(name("/elsewhere/x.sqn"), "x.sqn");
        assert_eq!(
            display_name(Path::new("/work/app/a.sqn"), Path::new("")),
            "a.sqn"
        );
    }
}
