//! Ast -> Model: name resolution and semantic validation.
//!
//! Every error of the pass is collected (like serde's `Ctxt`) and reported together.

use squillion_grammar::ast::Schema;
use squillion_grammar::{Diagnostic, SourceFile};

use crate::model::Model;

/// A validated model and the warnings found while validating it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The model.
    pub model: Model,
    /// Warnings (never errors).
    pub warnings: Vec<Diagnostic>,
}

/// Resolves names and validates a parsed schema. On failure, returns every diagnostic found
/// (errors and warnings), errors first in source order.
pub fn resolve(schema: &Schema) -> Result<Checked, Vec<Diagnostic>> {
    let _ = schema;
    Err(vec![])
}

/// Parses and resolves a source file.
pub fn load(source: &SourceFile) -> Result<Checked, Vec<Diagnostic>> {
    let schema = squillion_grammar::parse(source.text())?;
    resolve(&schema)
}
