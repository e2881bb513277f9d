//! The drift as a table for the terminal.

use super::{CollectionDrift, IndexDrift, ValidatorDrift};

/// One line per collection in sync, one per difference otherwise.
pub fn text(drift: &[CollectionDrift]) -> String {
    let mut out = String::new();
    for d in drift {
        if !d.has_drift() {
            out.push_str(&format!("{:<28} in sync\n", d.collection));
            continue;
        }
        if !d.exists {
            out.push_str(&format!("{:<28} missing collection\n", d.collection));
        }
        match d.validator {
            ValidatorDrift::InSync => {}
            ValidatorDrift::Missing if d.exists => {
                out.push_str(&format!("{:<28} validator missing\n", d.collection))
            }
            ValidatorDrift::Missing => {}
            ValidatorDrift::Different => {
                out.push_str(&format!("{:<28} validator differs\n", d.collection))
            }
        }
        for i in &d.indexes {
            let line = match i {
                IndexDrift::Missing { name, keys } => format!("missing index {name} {keys}"),
                IndexDrift::Extra { name, keys } => {
                    format!("extra index   {name} {keys} (kept; --prune drops it)")
                }
                IndexDrift::Different { name, differences } => {
                    format!("different     {name}: {}", differences.join("; "))
                }
            };
            out.push_str(&format!("{:<28} {line}\n", d.collection));
        }
    }
    out
}
