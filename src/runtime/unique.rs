//! Values unique among the elements of an embedded array (`@unique` on a field of an embedded
//! entity). MongoDB's unique multikey index refuses a value another document's array holds, but
//! not a second element of the same array with it; the pushes guard that themselves, in the
//! update's filter: `{"items.code": {$ne: value}}`.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Collection;

use super::arrays::lookup;
use crate::error::Context;
use crate::{Error, Result};

/// The values of `item` at each path of `unique`, skipping absent and null ones (the index is
/// sparse: elements without the field do not collide).
fn values<'a>(item: &'a Bson, unique: &'a [&'a str]) -> impl Iterator<Item = (&'a str, &'a Bson)> {
    unique.iter().filter_map(move |u| match lookup(item, u) {
        None | Some(Bson::Null) => None,
        Some(v) => Some((*u, v)),
    })
}

/// The filter clauses `{"<array>.<u>": {$ne: value}}` that keep `item` out of an array already
/// holding one of its unique values.
pub fn guards(array: &str, unique: &[&str], item: &Bson) -> BsonDocument {
    values(item, unique)
        .map(|(u, v)| {
            (
                format!("{array}.{u}"),
                Bson::Document(doc! { "$ne": v.clone() }),
            )
        })
        .collect()
}

/// The error for a duplicate `value` at `array.u` of a document of `collection`.
pub fn duplicate(collection: &str, array: &str, u: &str, value: &Bson) -> Error {
    Error::DuplicateElement {
        field: format!("{collection}.{array}.{u}"),
        value: super::core::describe(value),
    }
}

/// Why a guarded push matched nothing, if a duplicate is why: the document matching `filter`
/// already holds one of `item`'s unique values in `array`.
pub async fn held(
    coll: &Collection<BsonDocument>,
    filter: BsonDocument,
    array: &str,
    unique: &[&str],
    item: &Bson,
) -> Result<Option<Error>> {
    for (u, v) in values(item, unique) {
        let mut f = filter.clone();
        f.insert(format!("{array}.{u}"), v.clone());
        let n = coll
            .count_documents(f)
            .limit(1)
            .await
            .during("count", coll.name())?;
        if n > 0 {
            return Ok(Some(duplicate(coll.name(), array, u, v)));
        }
    }
    Ok(None)
}

/// The first value two of `items` share at a path of `unique`, as an error.
pub fn first_duplicate(
    collection: &str,
    array: &str,
    unique: &[&str],
    items: &[Bson],
) -> Option<Error> {
    for u in unique {
        let mut seen: Vec<&Bson> = Vec::new();
        for item in items {
            if let Some((_, v)) = values(item, std::slice::from_ref(u)).next() {
                if seen.contains(&v) {
                    return Some(duplicate(collection, array, u, v));
                }
                seen.push(v);
            }
        }
    }
    None
}
