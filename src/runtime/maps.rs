//! One entry of a map whose keys are data (`map<T>`, `map<T; N>`): set, remove.
//!
//! An entry is written at `<path>.<key>`, so a key MongoDB would read as more than one key (a
//! `.` steps into a subdocument, a leading `$` is an operator) is refused before anything is
//! sent. On a bounded map a new key is added only while the map holds fewer than N entries, and
//! the update's own filter checks it: `{_id, $or: [{"<path>.<key>": {$exists: true}},
//! {$expr: {$lt: [{$size: {$objectToArray: {$ifNull: ["$<path>", {}]}}}, N]}}]}`, so racing
//! setters cannot overfill the map, and replacing a key it holds works at the bound.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::UpdateModifications;
use mongodb::Collection;

use super::kept::Keeper;
use crate::error::Context;
use crate::{Error, Result};

/// Where a repository's entry update runs: alone, or (when parents keep lists or summaries that
/// read the map) with the parents refilled, in a transaction where the deployment has them.
#[derive(Clone, Copy)]
pub enum Keeping<'a> {
    /// Nothing reads the map elsewhere.
    Alone,
    /// Parents read it: [`super::kept::update`].
    Kept {
        /// The deployment runs transactions.
        transactions: bool,
        /// The parents keeping lists or summaries.
        keepers: &'a [Keeper],
    },
}

/// The path of entry `key` of the map at `path`, or why `key` cannot be one key there.
pub fn entry_path(coll: &Collection<BsonDocument>, path: &str, key: &str) -> Result<String> {
    let reason = if key.is_empty() {
        Some("an empty key cannot be stored")
    } else if key.contains('.') {
        Some("it contains `.`, which MongoDB reads as a step into a subdocument")
    } else if key.starts_with('$') {
        Some("it starts with `$`, which MongoDB reads as an operator")
    } else if key.contains('\0') {
        Some("it contains a NUL character, which no BSON name can hold")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidMapKey {
            field: format!("{}.{path}", coll.name()),
            key: key.to_owned(),
            reason,
        }),
        None => Ok(format!("{path}.{key}")),
    }
}

/// The filter of a guarded entry write: document `id`, and for a bounded map "the key is there,
/// or the map has room for one more".
pub fn entry_filter(id: &Bson, path: &str, entry: &str, max: Option<usize>) -> BsonDocument {
    match max {
        None => doc! { "_id": id.clone() },
        Some(max) => doc! {
            "_id": id.clone(),
            "$or": [
                { entry: { "$exists": true } },
                { "$expr": { "$lt": [
                    { "$size": { "$objectToArray": { "$ifNull": [format!("${path}"), {}] } } },
                    i64::try_from(max).unwrap_or(i64::MAX),
                ] } },
            ],
        },
    }
}

/// Runs `update` (update operators or a pipeline) on the document `filter` matches; whether it
/// matched.
pub(super) async fn apply(
    coll: &Collection<BsonDocument>,
    keeping: Keeping<'_>,
    filter: BsonDocument,
    update: impl Into<UpdateModifications>,
) -> Result<bool> {
    match keeping {
        Keeping::Alone => {
            let r = coll
                .update_one(filter, update)
                .await
                .during("update", coll.name())?;
            Ok(r.matched_count > 0)
        }
        Keeping::Kept {
            transactions,
            keepers,
        } => Ok(
            super::kept::update(coll, transactions, keepers, filter, update)
                .await?
                .is_some(),
        ),
    }
}

/// Sets entry `key` of the map at `path` of document `id` to `value`: `$set: {"<path>.<key>":
/// value}`, guarded by [`entry_filter`] when the map is bounded by `max`.
/// [`Error::InvalidMapKey`] for a key that would address another path, [`Error::NotFound`] if no
/// document has this id, [`Error::MapFull`] when the key is new and the map holds `max` entries;
/// nothing is written then.
pub async fn set_entry(
    coll: &Collection<BsonDocument>,
    keeping: Keeping<'_>,
    id: Bson,
    path: &str,
    key: &str,
    value: Bson,
    max: Option<usize>,
) -> Result<()> {
    let entry = entry_path(coll, path, key)?;
    let filter = entry_filter(&id, path, &entry, max);
    if apply(coll, keeping, filter, doc! { "$set": { entry: value } }).await? {
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

/// Removes entry `key` of the map at `path` of document `id` (`$unset`); whether it was there.
/// [`Error::InvalidMapKey`] for a key that would address another path, [`Error::NotFound`] if no
/// document has this id.
pub async fn remove_entry(
    coll: &Collection<BsonDocument>,
    keeping: Keeping<'_>,
    id: Bson,
    path: &str,
    key: &str,
) -> Result<bool> {
    let entry = entry_path(coll, path, key)?;
    let filter = doc! { "_id": id.clone(), entry.as_str(): { "$exists": true } };
    if apply(coll, keeping, filter, doc! { "$unset": { entry: "" } }).await? {
        return Ok(true);
    }
    if super::core::id_exists(coll, &id).await? {
        Ok(false)
    } else {
        Err(super::core::not_found_in(coll, &id))
    }
}

/// Refuses a whole map `value` of more than `max` entries for the map at `path`
/// ([`Error::MapFull`]), before it is written.
pub fn within_bound(
    coll: &Collection<BsonDocument>,
    path: &str,
    value: &Bson,
    max: usize,
) -> Result<()> {
    match value {
        Bson::Document(d) if d.len() > max => Err(Error::MapFull {
            field: format!("{}.{path}", coll.name()),
            max,
        }),
        _ => Ok(()),
    }
}
