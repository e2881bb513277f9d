//! The sentences of the hot-field warning (W122), made from the numbers the engine found.

use super::{bytes, thousands};

/// A field updated often in a large document that is read often (seed 002: "Storing seldom used
/// data fields with frequently used data fields"; "Does the embedded info change often?").
#[derive(Debug, Clone, PartialEq)]
pub struct HotField {
    /// The collection holding the documents.
    pub collection: String,
    /// The field's path in them.
    pub path: String,
    /// `@updates`: updates of the field per document per day.
    pub updates_per_day: f64,
    /// The documents' average size, in bytes.
    pub document_bytes: u64,
    /// Reads of the documents per day, from the rates the schema's queries declare.
    pub reads_per_day: f64,
    /// The field is a counter (`@counter`).
    pub counter: bool,
}

/// `n` per day as people read it: `about 1,440 times a day`.
fn per_day(n: f64) -> String {
    let rounded = n.round().max(1.0) as u64;
    format!("about {} times a day", thousands(rounded))
}

/// The warning's message and help.
pub fn sentences(h: &HotField) -> (String, String) {
    let what = if h.counter { "counter" } else { "field" };
    let message = format!(
        "`{}.{}` is a {what} updated {} in documents of about {} read {}: every update rewrites \
         the whole document and competes with its readers",
        h.collection,
        h.path,
        per_day(h.updates_per_day),
        bytes(h.document_bytes),
        per_day(h.reads_per_day),
    );
    let help = format!(
        "split the often-changed `{}` out of the large document (seed 002: separate seldom-used \
         and often-changed data), e.g. into a one-to-one entity of its own, or shrink the `{}` \
         document by moving its large, seldom-read fields out",
        h.path, h.collection
    );
    (message, help)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_reach_the_sentences() {
        let h = HotField {
            collection: "products".into(),
            path: "stock".into(),
            updates_per_day: 2880.0,
            document_bytes: 20 * 1024,
            reads_per_day: 86_400.0,
            counter: true,
        };
        let (m, help) = sentences(&h);
        for part in ["`products.stock`", "counter", "2,880", "20 KB", "86,400"] {
            assert!(m.contains(part), "{part} missing from {m}");
        }
        assert!(
            help.contains("seed 002") && help.contains("`stock`"),
            "{help}"
        );
    }
}
