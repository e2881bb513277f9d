//! Array layouts: bounded embedded arrays, arrays of references, subsets and top-N lists, and the
//! summaries maintained when an element is appended.

use std::collections::HashMap;

use bson::{doc, Bson, Document as BsonDocument};
use futures::TryStreamExt;
use mongodb::options::UpdateModifications;
use mongodb::Collection;

use crate::error::Context;
use crate::{Error, Result};

/// How many ids one `$in` query carries when loading referenced documents.
pub const IN_CHUNK: usize = 1000;

/// A summary kept in a document and updated whenever an element is appended to an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    /// Number of elements (`$inc` 1).
    Count,
    /// Sum of an element field (`$inc` by its value).
    Sum(&'static str),
    /// Largest value of an element field (`$max`).
    Max(&'static str),
    /// Smallest value of an element field (`$min`).
    Min(&'static str),
}

/// A computed field: where it is stored and what it summarises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputedField {
    /// Path of the stored value.
    pub path: &'static str,
    /// Its function.
    pub summary: Summary,
}

/// The value at dotted `path` inside `item`.
pub fn lookup<'a>(item: &'a Bson, path: &str) -> Option<&'a Bson> {
    let mut current = item;
    for segment in path.split('.') {
        current = current.as_document()?.get(segment)?;
    }
    Some(current)
}

/// Adds `extra` to the operator document `op` of `update` (creating it when missing).
pub fn merge_operator(update: &mut BsonDocument, op: &str, extra: BsonDocument) {
    if extra.is_empty() {
        return;
    }
    match update.get_document_mut(op) {
        Ok(d) => d.extend(extra),
        Err(_) => {
            update.insert(op, extra);
        }
    }
}

/// What a total adds for value `v`: 32-bit integers widened to 64 bits (a total of them is
/// stored as a long, which an `int` increment on a missing field would not create), other
/// numbers as they are, decimals included; `None` for anything else.
pub fn addend(v: &Bson) -> Option<Bson> {
    match v {
        Bson::Int32(x) => Some(Bson::Int64(i64::from(*x))),
        Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => Some(v.clone()),
        _ => None,
    }
}

/// Adds to `update` the `$inc`/`$max`/`$min` that keep `computed` in step with appending `item`.
pub fn add_summaries(update: &mut BsonDocument, computed: &[ComputedField], item: &Bson) {
    let (mut inc, mut max, mut min) = (
        BsonDocument::new(),
        BsonDocument::new(),
        BsonDocument::new(),
    );
    for c in computed {
        match c.summary {
            Summary::Count => {
                inc.insert(c.path, 1_i32);
            }
            Summary::Sum(field) => {
                if let Some(v) = lookup(item, field).and_then(addend) {
                    inc.insert(c.path, v);
                }
            }
            Summary::Max(field) => {
                if let Some(v) = lookup(item, field).filter(|v| !matches!(v, Bson::Null)) {
                    max.insert(c.path, v.clone());
                }
            }
            Summary::Min(field) => {
                if let Some(v) = lookup(item, field).filter(|v| !matches!(v, Bson::Null)) {
                    min.insert(c.path, v.clone());
                }
            }
        }
    }
    merge_operator(update, "$inc", inc);
    merge_operator(update, "$max", max);
    merge_operator(update, "$min", min);
}

/// The filter clause "the array at `path` has fewer than `max` elements": its element `max - 1`
/// does not exist. Evaluated by the update itself, so two racing appends cannot both pass it.
pub fn room_for_one(path: &str, max: usize) -> BsonDocument {
    doc! { format!("{path}.{}", max.saturating_sub(1)): { "$exists": false } }
}

/// Why an update matched nothing: the document is missing, or the bound stopped it.
pub(crate) async fn missing_or_full(
    coll: &Collection<BsonDocument>,
    id: &Bson,
    path: &str,
    max: usize,
) -> Error {
    match super::core::id_exists(coll, id).await {
        Ok(false) => super::core::not_found_in(coll, id),
        Ok(true) => Error::BoundExceeded {
            field: format!("{}.{path}", coll.name()),
            max,
        },
        Err(e) => e,
    }
}

/// Appends `item` to the array at `path` of document `id`, unless it already holds `max`
/// elements, or an element with one of `item`'s values at a path of `unique`:
/// `updateOne({_id, "path.<max-1>": {$exists: false}, "path.u": {$ne: v}}, {$push: {path: item},
/// ...})`. Summaries in `computed` are updated in the same write.
pub async fn push_bounded(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    max: usize,
    item: Bson,
    computed: &[ComputedField],
    unique: &[&str],
) -> Result<()> {
    push_bounded_with(
        coll,
        id,
        path,
        max,
        item,
        computed,
        unique,
        BsonDocument::new(),
    )
    .await
}

/// [`push_bounded`], with the copies of `item` pushed into the owner's `lists` (`top N` of an
/// embedded array) in the same write.
#[allow(clippy::too_many_arguments)]
pub async fn push_bounded_kept(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    max: usize,
    item: Bson,
    computed: &[ComputedField],
    unique: &[&str],
    lists: &[super::subsets::List],
) -> Result<()> {
    let extra = match (&item, lists.is_empty()) {
        (Bson::Document(child), false) => doc! { "$push": super::subsets::pushes(lists, child) },
        _ => BsonDocument::new(),
    };
    push_bounded_with(coll, id, path, max, item, computed, unique, extra).await
}

/// [`push_bounded`], with the operators of `extra` (an update document: the `$push` of copies
/// into the owner's lists) merged into the same write.
#[allow(clippy::too_many_arguments)]
pub async fn push_bounded_with(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    max: usize,
    item: Bson,
    computed: &[ComputedField],
    unique: &[&str],
    extra: BsonDocument,
) -> Result<()> {
    let mut filter = doc! { "_id": id.clone() };
    filter.extend(room_for_one(path, max));
    filter.extend(super::unique::guards(path, unique, &item));
    let mut update = doc! { "$push": { path: item.clone() } };
    add_summaries(&mut update, computed, &item);
    for (op, operands) in extra {
        if let Bson::Document(operands) = operands {
            merge_operator(&mut update, &op, operands);
        }
    }
    let r = coll
        .update_one(filter, update)
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        if let Some(dup) =
            super::unique::held(coll, doc! { "_id": id.clone() }, path, unique, &item).await?
        {
            return Err(dup);
        }
        return Err(missing_or_full(coll, &id, path, max).await);
    }
    Ok(())
}

/// Sets the array at `path` of document `id` to `items` (checked against `max`, and for values
/// two items share at a path of `unique`, first).
pub async fn set_bounded(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    max: usize,
    items: Vec<Bson>,
    unique: &[&str],
) -> Result<()> {
    if items.len() > max {
        return Err(Error::BoundExceeded {
            field: format!("{}.{path}", coll.name()),
            max,
        });
    }
    if let Some(dup) = super::unique::first_duplicate(coll.name(), path, unique, &items) {
        return Err(dup);
    }
    let r = coll
        .update_one(doc! { "_id": id.clone() }, doc! { "$set": { path: items } })
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(super::core::not_found_in(coll, &id));
    }
    Ok(())
}

/// Sets the field at `path` of document `id` (`$set`).
pub async fn set_field(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    value: Bson,
) -> Result<()> {
    let r = coll
        .update_one(doc! { "_id": id.clone() }, doc! { "$set": { path: value } })
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(super::core::not_found_in(coll, &id));
    }
    Ok(())
}

/// Removes from the array at `path` of document `id` every element matching `condition` (a value,
/// or a query on the elements): `$pull`. Returns whether the document changed.
pub async fn pull(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    condition: Bson,
) -> Result<bool> {
    let r = coll
        .update_one(
            doc! { "_id": id.clone() },
            doc! { "$pull": { path: condition } },
        )
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(super::core::not_found_in(coll, &id));
    }
    Ok(r.modified_count == 1)
}

/// Adds `reference` to the id array at `path` of document `id` unless it is there already
/// (`$addToSet`), refusing when the array is full and does not hold it yet. Returns whether the
/// array changed.
pub async fn add_ref_bounded(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    max: usize,
    reference: Bson,
) -> Result<bool> {
    let filter = add_ref_filter(id.clone(), path, max, reference.clone());
    let r = coll
        .update_one(filter, doc! { "$addToSet": { path: reference } })
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(missing_or_full(coll, &id, path, max).await);
    }
    Ok(r.modified_count == 1)
}

/// `{_id, $or: [{"path.<max-1>": {$exists: false}}, {path: reference}]}`: there is room, or the
/// reference is there already (adding it again is a no-op, not an error).
pub fn add_ref_filter(id: Bson, path: &str, max: usize, reference: Bson) -> BsonDocument {
    doc! {
        "_id": id,
        "$or": [ room_for_one(path, max), { path: reference } ],
    }
}

/// Loads the documents whose `_id` is in `ids`, in the order of `ids` (missing ones are left out),
/// with one `$in` query per [`IN_CHUNK`] ids and the given projection (rule of thumb 4).
pub async fn load_by_ids(
    coll: &Collection<BsonDocument>,
    ids: &[Bson],
    projection: Option<BsonDocument>,
) -> Result<Vec<BsonDocument>> {
    let mut found: HashMap<String, BsonDocument> = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IN_CHUNK) {
        let mut find = coll.find(doc! { "_id": { "$in": chunk.to_vec() } });
        if let Some(p) = &projection {
            find = find.projection(p.clone());
        }
        let docs: Vec<BsonDocument> = find
            .await
            .during("find", coll.name())?
            .try_collect()
            .await
            .during("find", coll.name())?;
        for d in docs {
            if let Some(id) = d.get("_id") {
                found.insert(super::core::describe(id), d);
            }
        }
    }
    Ok(ids
        .iter()
        .filter_map(|id| found.remove(&super::core::describe(id)))
        .collect())
}

/// The projection `{_id: 1, f: 1, ...}`, or none when `fields` is empty.
pub fn projection(fields: &[&str]) -> Option<BsonDocument> {
    if fields.is_empty() {
        return None;
    }
    let mut p = doc! { "_id": 1 };
    for f in fields {
        p.insert(*f, 1);
    }
    Some(p)
}

/// Keeps only `fields` (and `_id`) of a serialized child; all of it when `fields` is empty.
pub fn keep_fields(item: BsonDocument, fields: &[&str]) -> BsonDocument {
    if fields.is_empty() {
        return item;
    }
    item.into_iter()
        .filter(|(k, _)| k == "_id" || fields.contains(&k.as_str()))
        .collect()
}

/// The `$push` with `$each`, `$sort` and `$slice` that keeps a sorted, bounded array.
pub fn push_sorted_sliced(
    path: &str,
    item: Bson,
    sort_by: &str,
    sort: i32,
    slice: i64,
) -> BsonDocument {
    doc! {
        "$push": {
            path: {
                "$each": [item],
                "$sort": { sort_by: sort },
                "$slice": slice,
            }
        }
    }
}

/// Pushes `item` into the subset at `path` of document `id`, keeping the `n` latest by `sort_by`:
/// ascending storage uses `$sort: {sort_by: 1}, $slice: -n` (seed 004's last 1000 log messages),
/// descending `$sort: {sort_by: -1}, $slice: n`. The summaries `computed` of all the children
/// (not only the `n` kept) take `child`, the whole child document, in the same write.
#[allow(clippy::too_many_arguments)]
pub async fn push_subset(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    item: Bson,
    sort_by: &str,
    descending: bool,
    n: i64,
    computed: &[ComputedField],
    child: &Bson,
) -> Result<()> {
    let (sort, slice) = if descending { (-1, n) } else { (1, -n) };
    // Ties by `_id` (each copy holds the child's), so equal keys keep one order.
    let mut update = doc! {
        "$push": { path: { "$each": [item], "$sort": { sort_by: sort, "_id": sort }, "$slice": slice } }
    };
    add_summaries(&mut update, computed, child);
    let r = coll
        .update_one(doc! { "_id": id.clone() }, update)
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(super::core::not_found_in(coll, &id));
    }
    Ok(())
}

/// Offers `item` to the top-`n` list at `path` of document `id` (created by the upsert when
/// missing): `$push: {path: {$each: [item], $sort: {sort_by: ±1}, $slice: n}}` (seed 002's best
/// times). Descending keeps the `n` largest, ascending the `n` smallest.
#[allow(clippy::too_many_arguments)]
pub async fn push_top(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    item: Bson,
    sort_by: &str,
    descending: bool,
    n: i64,
    schema_version: Option<i64>,
) -> Result<()> {
    let mut update = push_sorted_sliced(path, item, sort_by, if descending { -1 } else { 1 }, n);
    if let Some(v) = schema_version {
        update.insert(
            "$setOnInsert",
            doc! { crate::SchemaVersion::FIELD: crate::SchemaVersion::stored(v) },
        );
    }
    coll.update_one(doc! { "_id": id }, UpdateModifications::Document(update))
        .upsert(true)
        .await
        .during("update", coll.name())?;
    Ok(())
}
