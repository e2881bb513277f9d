//! Link collections: one document per pair of a many-to-many relation (a relational join table).
//! A collection is read as one when its documents hold exactly two references, each one id at
//! the root, a unique index says a pair is stored once, nothing refers to its documents and its
//! other fields are plain values (the relation's fields). Without the unique index it stays an
//! entity holding two references: a review of a product by a user is laid out the same way, and
//! only the index says the pair is the document's identity.

use std::collections::BTreeSet;

use super::references::{Form, Reference};
use super::sample::Sampled;
use super::shape::Kind;

/// A link collection found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCollection {
    /// The collection (index into the samples).
    pub coll: usize,
    /// The reference to the left side's documents (index into the references).
    pub left: usize,
    /// The reference to the right side's documents.
    pub right: usize,
    /// The unique index's keys, as stated in the comment: `{e0: 1, e1: 1}`.
    pub index: String,
}

/// The link collections among the sampled ones; `buckets` are the bucket collections.
pub fn find(
    samples: &[Sampled],
    refs: &[Reference],
    buckets: &BTreeSet<usize>,
) -> Vec<LinkCollection> {
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        if buckets.contains(&i) || refs.iter().any(|r| r.target == i) {
            continue;
        }
        let held: Vec<(usize, &Reference)> = refs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.holder == i)
            .collect();
        let [(a, ra), (b, rb)] = held.as_slice() else {
            continue;
        };
        let scalar_root = |r: &Reference| r.form == Form::Scalar && r.place.is_root();
        if !scalar_root(ra) || !scalar_root(rb) {
            continue;
        }
        let plain = s.shape.fields.iter().all(|(key, f)| {
            key == &ra.field
                || key == &rb.field
                || key == "_id"
                || match f.main_kind().map(|(k, _)| k) {
                    Some(Kind::Document) => false,
                    Some(Kind::Array) => f
                        .array
                        .as_deref()
                        .and_then(|a| a.main_kind())
                        .is_none_or(|(k, _)| !matches!(k, Kind::Document | Kind::Array)),
                    _ => true,
                }
        });
        if !plain {
            continue;
        }
        let Some(index) = s.indexes.iter().find_map(|(keys, options)| {
            let names: BTreeSet<&str> = keys.keys().map(String::as_str).collect();
            let pair: BTreeSet<&str> = [ra.field.as_str(), rb.field.as_str()].into();
            (options.unique == Some(true) && names == pair).then(|| keys.to_string())
        }) else {
            continue;
        };
        // The left side: `from` of a link of an entity with itself, else the side whose
        // collection's name the link collection's name starts with, else the first field.
        let starts = |r: &Reference| {
            let target = &samples[r.target].name;
            let stem = super::names::snake(&super::names::singular(&super::names::snake(target)));
            r.field == "from" || s.name.starts_with(&format!("{stem}_"))
        };
        let (left, right) = if rb.field != "to" && starts(rb) && !starts(ra) {
            (*b, *a)
        } else {
            (*a, *b)
        };
        out.push(LinkCollection {
            coll: i,
            left,
            right,
            index,
        });
    }
    out
}
