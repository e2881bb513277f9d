//! The reference model: the documents every collection must hold after the operations so far, as
//! the Plan and the operations' documented meaning say, kept in memory and compared with the
//! server's after every step.

use std::collections::BTreeMap;

use bson::{Bson, Document};

/// Every collection's expected documents, in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reference {
    /// Documents by collection.
    pub collections: BTreeMap<String, Vec<Document>>,
    /// Documents deleted while others may still name them, by collection: a queue's `complete`
    /// deletes the job whatever names it, as `delete` would (MongoDB has no foreign keys, and
    /// docs/derive.md says plain references are not checked: `squillion audit` reports them).
    /// What names them is left as it was, which the stored documents are checked against; the
    /// invariants that a bucket's owner and a link's ends exist accept these.
    pub deleted: Vec<(String, Bson)>,
}

impl Reference {
    /// The documents of `c`.
    pub fn docs(&self, c: &str) -> &[Document] {
        self.collections.get(c).map_or(&[], Vec::as_slice)
    }

    /// The documents of `c`, to change.
    pub fn docs_mut(&mut self, c: &str) -> &mut Vec<Document> {
        self.collections.entry(c.to_owned()).or_default()
    }

    /// The document of `c` with `_id` `id`.
    pub fn get(&self, c: &str, id: &Bson) -> Option<&Document> {
        self.docs(c).iter().find(|d| d.get("_id") == Some(id))
    }

    /// The document of `c` with `_id` `id`, to change.
    pub fn get_mut(&mut self, c: &str, id: &Bson) -> Option<&mut Document> {
        self.docs_mut(c)
            .iter_mut()
            .find(|d| d.get("_id") == Some(id))
    }

    /// Removes the document of `c` with `_id` `id`; true if it was there.
    pub fn remove(&mut self, c: &str, id: &Bson) -> bool {
        let docs = self.docs_mut(c);
        let before = docs.len();
        docs.retain(|d| d.get("_id") != Some(id));
        docs.len() != before
    }

    /// Whether the document of `c` with `_id` `id` was deleted by an operation that deletes
    /// whatever names it ([`Reference::deleted`]).
    pub fn was_deleted(&self, c: &str, id: &Bson) -> bool {
        self.deleted.iter().any(|(dc, did)| dc == c && did == id)
    }

    /// Whether `value` occurs anywhere in any document other than as its own `_id`.
    pub fn mentions(&self, value: &Bson) -> bool {
        self.collections.values().flatten().any(|d| {
            d.iter()
                .any(|(k, v)| k != "_id" && (v == value || contains(v, value)))
        })
    }
}

fn contains(haystack: &Bson, needle: &Bson) -> bool {
    match haystack {
        Bson::Document(d) => d.values().any(|v| v == needle || contains(v, needle)),
        Bson::Array(a) => a.iter().any(|v| v == needle || contains(v, needle)),
        _ => false,
    }
}

/// A value with every document's keys sorted, so that field order does not count.
pub fn normalized(v: &Bson) -> Bson {
    match v {
        Bson::Document(d) => Bson::Document(normalized_doc(d)),
        Bson::Array(a) => Bson::Array(a.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

/// A document with its keys sorted, recursively.
pub fn normalized_doc(d: &Document) -> Document {
    let mut keys: Vec<&String> = d.keys().collect();
    keys.sort();
    let mut out = Document::new();
    for k in keys {
        if let Some(v) = d.get(k) {
            out.insert(k.clone(), normalized(v));
        }
    }
    out
}

/// A short, readable rendering of a value (relaxed extended JSON, cut at 400 characters).
pub fn show(v: &Bson) -> String {
    let s = v.clone().into_relaxed_extjson().to_string();
    if s.len() > 400 {
        let mut end = 400;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    } else {
        s
    }
}

/// The first difference between two values, as `path: expected X, found Y`.
pub fn first_difference(path: &str, expected: &Bson, found: &Bson) -> Option<String> {
    match (expected, found) {
        (Bson::Document(a), Bson::Document(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(&p, x, y) {
                            return Some(d);
                        }
                    }
                    (Some(x), None) => return Some(format!("{p}: expected {}, missing", show(x))),
                    (None, Some(y)) => {
                        return Some(format!("{p}: not expected, found {}", show(y)))
                    }
                    (None, None) => {}
                }
            }
            None
        }
        (Bson::Array(a), Bson::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!(
                    "{path}: expected {} elements {}, found {} {}",
                    a.len(),
                    show(expected),
                    b.len(),
                    show(found)
                ));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(&format!("{path}.{i}"), x, y))
        }
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: expected {}, found {}", show(a), show(b))),
    }
}
