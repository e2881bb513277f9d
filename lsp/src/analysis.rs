//! One document's analysis: the pipeline `squillion check` runs (parse, then resolve), the Plan
//! when the file is valid, and every diagnostic they report, plus the Plan's warnings as
//! `squillion generate` reports them. Nothing here words a message: diagnostics and sentences come
//! from the grammar and codegen crates as they are.

use squillion_codegen::plan::Plan;
use squillion_codegen::resolve::Checked;
use squillion_grammar::ast::Schema;
use squillion_grammar::{Diagnostic, SourceFile};

use crate::symbols::Symbols;

/// What is known about one version of a document.
#[derive(Debug)]
pub struct Analysis {
    /// The file, named as the client names it.
    pub source: SourceFile,
    /// The syntax tree, when the text parses.
    pub schema: Option<Schema>,
    /// The validated model, when the file is valid.
    pub checked: Option<Checked>,
    /// The Plan, when the file is valid.
    pub plan: Option<Plan>,
    /// Every diagnostic: syntax errors; or resolution errors and warnings; or validation
    /// warnings and the Plan's warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// Declarations and the names that refer to them, when the text parses.
    pub symbols: Symbols,
    /// The decision engine panicked on this valid file (a defect to report): there is no Plan.
    pub engine_failed: bool,
}

impl Analysis {
    /// Parses, resolves and plans `text`. Never panics: if the engine fails, the analysis has no
    /// Plan and says so ([`Analysis::engine_failed`]), and the server keeps running.
    pub fn new(name: &str, text: &str) -> Analysis {
        let source = SourceFile::new(name, text);
        let schema = match squillion_grammar::parse(text) {
            Ok(schema) => schema,
            Err(diagnostics) => {
                return Analysis {
                    source,
                    schema: None,
                    checked: None,
                    plan: None,
                    diagnostics,
                    symbols: Symbols::default(),
                    engine_failed: false,
                }
            }
        };
        let mut engine_failed = false;
        let (checked, plan, diagnostics) = match squillion_codegen::resolve(&schema) {
            Err(diagnostics) => (None, None, diagnostics),
            Ok(checked) => {
                let planned = std::panic::catch_unwind(|| {
                    squillion_codegen::engine::plan(&checked.model, &source)
                });
                match planned {
                    Ok(plan) => {
                        let mut diagnostics = checked.warnings.clone();
                        diagnostics.extend(squillion_codegen::pipeline::plan_diagnostics(&plan));
                        (Some(checked), Some(plan), diagnostics)
                    }
                    Err(_) => {
                        engine_failed = true;
                        let diagnostics = checked.warnings.clone();
                        (Some(checked), None, diagnostics)
                    }
                }
            }
        };
        let symbols = Symbols::new(&schema, checked.as_ref());
        Analysis {
            source,
            schema: Some(schema),
            checked,
            plan,
            diagnostics,
            symbols,
            engine_failed,
        }
    }
}
