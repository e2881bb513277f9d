//! The whole pipeline for one file, shared by `build.rs` and the CLI: text -> Ast -> Model ->
//! Plan -> Rust. Plan warnings of error severity (a document over 16 MB) fail it like diagnostics.

use squillion_grammar::{Diagnostic, SourceFile, Span};

use crate::engine;
use crate::plan::{Plan, Severity};
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

/// Parses, validates, plans and generates. On failure returns every diagnostic (errors first).
pub fn compile(
    source: &SourceFile,
    settings: &GenerateSettings,
) -> Result<Generated, Vec<Diagnostic>> {
    let checked = crate::load(source)?;
    let plan = engine::plan(&checked.model, source);
    let plan_diags = plan_diagnostics(&plan);
    if plan_diags.iter().any(Diagnostic::is_error) {
        let mut all = plan_diags;
        all.extend(checked.warnings);
        all.sort_by_key(|d| (!d.is_error(), d.span.start));
        return Err(all);
    }
    let rust = rust::generate(&plan, settings);
    let mut warnings = checked.warnings;
    warnings.extend(plan_diags);
    Ok(Generated {
        plan,
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
