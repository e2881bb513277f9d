//! Copies taken from their sources on every write (issue 11): a document holding references with
//! copies (`author: {id, first_name}` copying `Author.first_name`) never stores the caller's copy
//! values. Before each write, the repository reads the sources the references name (one
//! `find({_id: {$in: ids}})` per source collection, projected on the copied fields) and puts their
//! current values in the copies; a reference naming no stored document refuses the write
//! ([`Error::MissingReference`]), so no dangling reference with copies is written. The fan-out
//! (`super::fanout`) keeps them in step afterwards.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document as BsonDocument};
use futures::TryStreamExt;
use mongodb::Database;

use crate::error::Context;
use crate::{Error, Result};

/// One copy a document holds, as its holder's derive declares it (`copy_of(...)`).
///
/// `by` and `copy` are dotted paths from the document's root in which `[]` marks each array on
/// the way (`lines[].product.id`, `lines[].product.name`); they differ in their last segment
/// only: the copy sits beside the id of its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyOf {
    /// The collection of the source documents.
    pub from: &'static str,
    /// The (stored, dotted) path of the copied field in a source document.
    pub source: &'static str,
    /// Path of the source's id beside the copy.
    pub by: &'static str,
    /// Path of the copy.
    pub copy: &'static str,
}

/// One step of a marked path: a field, or every element of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step<'a> {
    Field(&'a str),
    Each,
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let name = segment.trim_end_matches("[]");
        if !name.is_empty() {
            out.push(Step::Field(name));
        }
        for _ in 0..(segment.len() - name.len()) / 2 {
            out.push(Step::Each);
        }
    }
    out
}

/// Where the copy `c` sits in a value written at `at` (a marked path; `""` for a whole
/// document): the steps from that value to each reference, the id's key and the copy's key.
/// `None` when the value holds no such copy.
fn within<'a>(c: &'a CopyOf, at: &str) -> Option<(Vec<Step<'a>>, &'a str, &'a str)> {
    let at = steps(at);
    let by = steps(c.by);
    let copy = steps(c.copy);
    let (Some(Step::Field(id_key)), Some(Step::Field(copy_key))) = (by.last(), copy.last()) else {
        return None;
    };
    let node = &by[..by.len() - 1];
    if copy[..copy.len() - 1] != *node || !by.starts_with(&at) || at.len() > node.len() {
        return None;
    }
    Some((node[at.len()..].to_vec(), id_key, copy_key))
}

/// Calls `f` on every document `steps` reaches from `v`.
fn visit(v: &mut Bson, steps: &[Step<'_>], f: &mut dyn FnMut(&mut BsonDocument)) {
    match (steps.split_first(), v) {
        (None, Bson::Document(d)) => f(d),
        (Some((Step::Each, rest)), Bson::Array(items)) => {
            for item in items {
                visit(item, rest, f);
            }
        }
        (Some((Step::Field(name), rest)), Bson::Document(d)) => {
            if let Some(child) = d.get_mut(*name) {
                visit(child, rest, f);
            }
        }
        _ => {}
    }
}

/// The value at dotted `path` of `doc`.
fn get_path<'d>(doc: &'d BsonDocument, path: &str) -> Option<&'d Bson> {
    let mut parts = path.split('.');
    let mut v = doc.get(parts.next()?)?;
    for p in parts {
        v = v.as_document()?.get(p)?;
    }
    Some(v)
}

/// The copies of `copies` held by a reference written at the marked path `at` (`clinic`, or
/// `doctors[]` for one element of an array) to a document of collection `from`, taken from
/// `source`, that document as stored: `{copy key: value}`, to put beside the id. Two-way links
/// build their extended references with it, from the documents they read in their transaction. A source field `source` does not hold
/// is left out, as an absent optional is stored.
pub(crate) fn reference_copies(
    copies: &[CopyOf],
    from: &str,
    at: &str,
    source: &BsonDocument,
) -> BsonDocument {
    let mut out = BsonDocument::new();
    for c in copies.iter().filter(|c| c.from == from) {
        let Some((node, _, copy_key)) = within(c, at) else {
            continue;
        };
        if !node.is_empty() {
            continue;
        }
        if let Some(v) = get_path(source, c.source) {
            out.insert(copy_key, v.clone());
        }
    }
    out
}

/// A key identifying an id among those read (BSON values are not `Ord`).
fn key(id: &Bson) -> String {
    id.clone().into_canonical_extjson().to_string()
}

/// Puts into every copy of `copies` that `values` (each written at the marked path `at` of a
/// document of `holder`; `""`: whole documents) hold the current value of its source, read from
/// `db`. A reference without an id (an absent optional one) is left alone; a source field the
/// source does not hold leaves the copy out, as an absent optional is stored.
/// [`Error::MissingReference`] when a reference names no stored source: nothing is changed then.
pub async fn fill(
    db: &Database,
    holder: &str,
    copies: &[CopyOf],
    at: &str,
    values: &mut [Bson],
) -> Result<()> {
    let placed: Vec<_> = copies
        .iter()
        .filter_map(|c| within(c, at).map(|w| (c, w)))
        .collect();
    if placed.is_empty() {
        return Ok(());
    }
    // The ids each source collection must give, and the fields read of them.
    let mut wanted: BTreeMap<&str, (Vec<Bson>, BsonDocument)> = BTreeMap::new();
    for (c, (node, id_key, _)) in &placed {
        let entry = wanted.entry(c.from).or_default();
        entry.1.insert(c.source, 1);
        for v in values.iter_mut() {
            visit(v, node, &mut |reference| {
                if let Some(id) = reference.get(*id_key).filter(|id| **id != Bson::Null) {
                    if !entry.0.contains(id) {
                        entry.0.push(id.clone());
                    }
                }
            });
        }
    }
    let mut found: BTreeMap<(&str, String), BsonDocument> = BTreeMap::new();
    for (from, (ids, projection)) in wanted {
        if ids.is_empty() {
            continue;
        }
        let coll = db.collection::<BsonDocument>(from);
        let docs: Vec<BsonDocument> = coll
            .find(doc! { "_id": { "$in": ids } })
            .projection(projection)
            .await
            .during("find", from)?
            .try_collect()
            .await
            .during("find", from)?;
        for d in docs {
            if let Some(id) = d.get("_id") {
                found.insert((from, key(id)), d.clone());
            }
        }
    }
    // Every reference names a stored source, or nothing is changed.
    for (c, (node, id_key, _)) in &placed {
        let mut missing = None;
        for v in values.iter_mut() {
            visit(v, node, &mut |reference| {
                if let Some(id) = reference.get(*id_key).filter(|id| **id != Bson::Null) {
                    if missing.is_none() && !found.contains_key(&(c.from, key(id))) {
                        missing = Some(id.clone());
                    }
                }
            });
        }
        if let Some(id) = missing {
            return Err(Error::MissingReference {
                field: format!("{holder}.{}", c.by.replace("[]", "")),
                collection: c.from.to_owned(),
                id: super::describe(&id),
            });
        }
    }
    for (c, (node, id_key, copy_key)) in &placed {
        for v in values.iter_mut() {
            visit(v, node, &mut |reference| {
                let Some(id) = reference.get(*id_key).filter(|id| **id != Bson::Null) else {
                    return;
                };
                let source = found
                    .get(&(c.from, key(id)))
                    .and_then(|s| get_path(s, c.source))
                    .cloned();
                match source {
                    Some(value) => {
                        reference.insert(*copy_key, value);
                    }
                    None => {
                        reference.remove(*copy_key);
                    }
                }
            });
        }
    }
    Ok(())
}

/// [`fill`] on whole documents.
pub async fn fill_documents(
    db: &Database,
    holder: &str,
    copies: &[CopyOf],
    docs: &mut [BsonDocument],
) -> Result<()> {
    let mut values: Vec<Bson> = docs
        .iter_mut()
        .map(|d| Bson::Document(std::mem::take(d)))
        .collect();
    let filled = fill(db, holder, copies, "", &mut values).await;
    // `fill` changes documents inside the values, never a value's type: every one comes back.
    for (d, v) in docs.iter_mut().zip(values) {
        if let Bson::Document(v) = v {
            *d = v;
        }
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(by: &'static str, copy: &'static str) -> CopyOf {
        CopyOf {
            from: "products",
            source: "name",
            by,
            copy,
        }
    }

    #[test]
    fn a_copy_is_found_from_any_value_that_holds_its_reference() {
        let top = c("author.id", "author.name");
        assert_eq!(within(&top, ""), Some((steps("author"), "id", "name")));
        assert_eq!(within(&top, "author"), Some((vec![], "id", "name")));
        assert_eq!(within(&top, "title"), None);
        // Writing inside the reference (a copy alone) is not a write of a reference.
        assert_eq!(within(&top, "author.name"), None);
        let nested = c("lines[].parts[].product.id", "lines[].parts[].product.name");
        assert_eq!(
            within(&nested, "lines"),
            Some((steps("[].parts[].product"), "id", "name"))
        );
        assert_eq!(
            within(&nested, "lines[]"),
            Some((steps("parts[].product"), "id", "name"))
        );
        assert_eq!(
            steps("a[][].b"),
            vec![Step::Field("a"), Step::Each, Step::Each, Step::Field("b")]
        );
        // A copy beside another reference than its id's is no copy of it.
        assert_eq!(within(&c("a.id", "b.name"), ""), None);
    }

    #[test]
    fn a_reference_takes_the_copies_placed_beside_its_id_from_its_source() {
        let copies = [
            c("doctors[].id", "doctors[].name"),
            CopyOf {
                from: "clinics",
                source: "address.city",
                by: "clinic.id",
                copy: "clinic.city",
            },
        ];
        let doctor = doc! { "_id": 1, "name": "Ada" };
        // Each element of `doctors` copies its doctor's name.
        let copies = [
            CopyOf {
                from: "doctors",
                ..copies[0]
            },
            copies[1],
        ];
        assert_eq!(
            reference_copies(&copies, "doctors", "doctors[]", &doctor),
            doc! { "name": "Ada" }
        );
        // Another collection's copies, or a path holding none, give nothing.
        assert_eq!(
            reference_copies(&copies, "clinics", "doctors[]", &doctor),
            doc! {}
        );
        assert_eq!(
            reference_copies(&copies, "doctors", "clinic", &doctor),
            doc! {}
        );
        let clinic = doc! { "_id": 2, "address": { "city": "Lyon" } };
        assert_eq!(
            reference_copies(&copies, "clinics", "clinic", &clinic),
            doc! { "city": "Lyon" }
        );
        // A source without the field leaves the copy out.
        assert_eq!(
            reference_copies(&copies, "clinics", "clinic", &doc! { "_id": 2 }),
            doc! {}
        );
    }

    #[test]
    fn visit_reaches_every_reference_through_arrays() {
        let mut v = Bson::Document(doc! {
            "lines": [
                { "parts": [ { "product": { "id": 1 } }, { "product": { "id": 2 } } ] },
                { "parts": [] },
                { "parts": [ { "product": { "id": 3 } } ] },
            ]
        });
        let mut seen = Vec::new();
        visit(&mut v, &steps("lines[].parts[].product"), &mut |d| {
            seen.push(d.get("id").cloned());
        });
        assert_eq!(
            seen,
            vec![
                Some(Bson::Int32(1)),
                Some(Bson::Int32(2)),
                Some(Bson::Int32(3))
            ]
        );
    }
}
