//! One entry of an `@attributes` map (the attribute pattern): a map stored as an array of
//! `{k, v}` documents, so one index on `k` and `v` finds any attribute. Set one entry, remove one.
//!
//! The key is data (the value of `k`), not a path, so any string is a key. Setting an entry is one
//! pipeline update: the array without the key's element, then the new element appended, so the
//! other elements keep their order. On a bounded map (`map<T; N> @attributes`, `maxItems: N`)
//! the update's filter holds the bound: `{_id, $or: [{"<path>.k": key}, {$expr: {$lt: [{$size:
//! {$ifNull: ["$<path>", []]}}, N]}}]}`, so racing setters never take the array past N elements,
//! and replacing a key the map holds works at the bound.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Collection;

use super::maps::{apply, Keeping};
use crate::{Error, Result};

/// The filter of an entry write: document `id`, and for a bounded map "the key is there, or the
/// array has room for one more element".
pub fn entry_filter(id: &Bson, path: &str, key: &str, max: Option<usize>) -> BsonDocument {
    match max {
        None => doc! { "_id": id.clone() },
        Some(max) => doc! {
            "_id": id.clone(),
            "$or": [
                { format!("{path}.k"): key },
                { "$expr": { "$lt": [
                    { "$size": { "$ifNull": [format!("${path}"), []] } },
                    i64::try_from(max).unwrap_or(i64::MAX),
                ] } },
            ],
        },
    }
}

/// The pipeline that sets entry `key` of the array of `{k, v}` at `path` to `value`: the elements
/// whose `k` is not `key`, in their order, then `{k: key, v: value}`. The key and the value are
/// `$literal`s (a string starting with `$` is not read as a path); the elements are read with
/// `$filter` and `$$this`.
pub fn set_pipeline(path: &str, key: &str, value: Bson) -> Vec<BsonDocument> {
    let key = doc! { "$literal": key };
    vec![doc! { "$set": { path: { "$concatArrays": [
        { "$filter": {
            "input": { "$ifNull": [format!("${path}"), []] },
            "cond": { "$ne": ["$$this.k", key.clone()] },
        } },
        [ { "k": key, "v": { "$literal": value } } ],
    ] } } }]
}

/// Sets entry `key` of the `@attributes` map at `path` of document `id` to `value`
/// ([`set_pipeline`], guarded by [`entry_filter`] when the map is bounded by `max`).
/// [`Error::NotFound`] if no document has this id, [`Error::MapFull`] when the key is new and the
/// map holds `max` entries; nothing is written then.
pub async fn set_entry(
    coll: &Collection<BsonDocument>,
    keeping: Keeping<'_>,
    id: Bson,
    path: &str,
    key: &str,
    value: Bson,
    max: Option<usize>,
) -> Result<()> {
    let filter = entry_filter(&id, path, key, max);
    if apply(coll, keeping, filter, set_pipeline(path, key, value)).await? {
        return Ok(());
    }
    if !super::core::id_exists(coll, &id).await? {
        return Err(super::core::not_found_in(coll, &id));
    }
    match max {
        Some(max) => Err(Error::MapFull {
            field: format!("{}.{path}", coll.name()),
            max,
        }),
        // The filter was the id alone: the document was missing when the update ran (and was
        // inserted since).
        None => Err(super::core::not_found_in(coll, &id)),
    }
}

/// Removes entry `key` of the `@attributes` map at `path` of document `id` (`$pull: {<path>: {k:
/// key}}`); whether it was there. [`Error::NotFound`] if no document has this id.
pub async fn remove_entry(
    coll: &Collection<BsonDocument>,
    keeping: Keeping<'_>,
    id: Bson,
    path: &str,
    key: &str,
) -> Result<bool> {
    let filter = doc! { "_id": id.clone(), format!("{path}.k"): key };
    let update = doc! { "$pull": { path: { "k": key } } };
    if apply(coll, keeping, filter, update).await? {
        return Ok(true);
    }
    if super::core::id_exists(coll, &id).await? {
        Ok(false)
    } else {
        Err(super::core::not_found_in(coll, &id))
    }
}
