//! Extended JSON declared in attributes (partial filters, validators) to BSON.

use crate::{Error, Result};

/// Parses `text` (relaxed or canonical extended JSON) into a document.
pub fn document(text: &str, what: &str) -> Result<bson::Document> {
    let declaration = |reason: String| Error::Declaration {
        what: what.to_owned(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| declaration(e.to_string()))?;
    match bson::Bson::try_from(value).map_err(|e| declaration(e.to_string()))? {
        bson::Bson::Document(d) => Ok(d),
        other => Err(declaration(format!(
            "expected a JSON object, found {:?}",
            other.element_type()
        ))),
    }
}
