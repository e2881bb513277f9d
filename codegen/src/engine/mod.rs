//! The decision engine: Model -> Plan.
//!
//! One module per rule family. Every decision records the rules it applied, the facts it used and
//! the alternatives it rejected.

use squillion_grammar::SourceFile;

use crate::model::Model;
use crate::plan::Plan;

/// Decides the layout of every relationship and the shape of every collection.
pub fn plan(model: &Model, source: &SourceFile) -> Plan {
    Plan {
        format_version: Plan::FORMAT_VERSION,
        source: source.name().to_owned(),
        settings: model.settings.clone(),
        collections: Vec::new(),
        relationships: Vec::new(),
        warnings: Vec::new(),
    }
}
