//! The bucket layout: children grouped in bounded bucket documents that reference their owner
//! (seed 002's IoT readings, seed 003's comment pages).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use super::arrays::{add_summaries, merge_operator, ComputedField};
use crate::error::Context;
use crate::{PageRequest, Result};

/// How a bucket document is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketSpec {
    /// Path of the array of children.
    pub items: &'static str,
    /// Path of the count of children.
    pub count: &'static str,
    /// Children per bucket.
    pub size: i64,
    /// Summaries kept in each bucket.
    pub computed: &'static [ComputedField],
    /// Field holding the smallest time of the bucket's children (for range reads and ordering).
    pub start: Option<&'static str>,
    /// Field holding the largest time.
    pub end: Option<&'static str>,
    /// Path, in each child, of the key the pages are ordered by (`page N by f`): each append
    /// keeps the bucket's children sorted by it (ascending, then by `_id`), whatever order they
    /// arrive in. `None`: children stay in arrival order.
    pub sort: Option<&'static str>,
    /// Pages newest first: the newest bucket is page 0 and its children come newest first.
    pub newest_first: bool,
    /// Paths, in each child, of values no two children of one bucket share: a bucket holding
    /// one of them is passed over, and the new bucket then meets the unique index.
    pub unique: &'static [&'static str],
}

/// Where an append landed.
#[derive(Debug, Clone, PartialEq)]
pub enum BucketAppend {
    /// Into an existing bucket with room.
    Existing,
    /// Into a new bucket, created by the upsert; its `_id`.
    NewBucket(Bson),
}

/// Appends `item` to the owner's bucket that has room, or to a new one:
/// `updateOne({key..., count: {$lt: size}}, {$push: {items: item}, $inc: {count: 1, ...},
/// $max: ..., $min: ...}, {upsert: true})`. The `count < size` filter is evaluated by the update,
/// so no bucket ever holds more than `size` children, however many appends race. With a sort key
/// the push is `{$each: [item], $sort: {key: 1, _id: 1}}`: a child that arrives out of order
/// lands sorted inside its bucket.
pub async fn append(
    coll: &mongodb::Collection<BsonDocument>,
    key: BsonDocument,
    spec: &BucketSpec,
    item: Bson,
) -> Result<BucketAppend> {
    let (filter, update) = upsert(key, spec, &item);
    let r = coll
        .update_one(filter, update)
        .upsert(true)
        .await
        .during("update", coll.name())?;
    Ok(landed(r.upserted_id))
}

/// What the owner keeps of its bucketed children beside the buckets: the latest N (`latest`) or
/// the best N (`top`) copies, and summaries of all its children (`count`, `total`, `max`, `min`),
/// written by every append in the same transaction where the deployment runs them.
#[derive(Debug, Clone, Copy)]
pub struct Kept {
    /// The owners' collection.
    pub owners: &'static str,
    /// The bucket's field holding its owner's `_id`.
    pub key: &'static str,
    /// Where the key holds the `_id` when it is an extended reference (`id` in `{id, name}`).
    pub key_id: Option<&'static str>,
    /// The owner's arrays of copies.
    pub lists: &'static [super::subsets::List],
    /// The owner's summaries of all its children (`$inc`, `$max`, `$min` by every append).
    pub summaries: &'static [ComputedField],
}

/// [`append`], then the copy of `item` pushed into each of the owner's lists (`$push` with
/// `$each`, `$sort`, `$slice`), in one transaction when `transactions`, else the bucket first. An
/// owner that is not stored keeps nothing.
pub async fn append_kept(
    coll: &mongodb::Collection<BsonDocument>,
    transactions: bool,
    key: BsonDocument,
    spec: &BucketSpec,
    kept: &Kept,
    item: Bson,
) -> Result<BucketAppend> {
    if transactions {
        let client = coll.client();
        crate::__squillion_transaction!(client, |session| append_body(
            coll,
            &key,
            spec,
            kept,
            &item,
            Some(&mut session)
        )
        .await)
    } else {
        append_body(coll, &key, spec, kept, &item, None).await
    }
}

async fn append_body(
    coll: &mongodb::Collection<BsonDocument>,
    key: &BsonDocument,
    spec: &BucketSpec,
    kept: &Kept,
    item: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<BucketAppend> {
    let (filter, update) = upsert(key.clone(), spec, item);
    let r = crate::__squillion_in_session!(coll.update_one(filter, update).upsert(true), session)
        .during("update", coll.name())?;
    let owner = match (key.get(kept.key), kept.key_id) {
        (Some(Bson::Document(reference)), Some(id)) => reference.get(id),
        (owner, _) => owner,
    };
    let (Some(owner), Bson::Document(child)) = (owner, item) else {
        return Ok(landed(r.upserted_id));
    };
    let mut update = BsonDocument::new();
    merge_operator(
        &mut update,
        "$push",
        super::subsets::pushes(kept.lists, child),
    );
    add_summaries(&mut update, kept.summaries, item);
    if update.is_empty() {
        return Ok(landed(r.upserted_id));
    }
    let owners = coll
        .client()
        .database(&coll.namespace().db)
        .collection::<BsonDocument>(kept.owners);
    crate::__squillion_in_session!(
        owners.update_one(doc! { "_id": owner.clone() }, update),
        session
    )
    .during("update", kept.owners)?;
    Ok(landed(r.upserted_id))
}

fn landed(upserted: Option<Bson>) -> BucketAppend {
    match upserted {
        Some(id) => BucketAppend::NewBucket(id),
        None => BucketAppend::Existing,
    }
}

/// The filter and update of an append: the owner's bucket with room, the item pushed (sorted
/// when the spec orders the children), the count and summaries raised.
fn upsert(key: BsonDocument, spec: &BucketSpec, item: &Bson) -> (BsonDocument, BsonDocument) {
    let mut filter = key;
    filter.insert(spec.count, doc! { "$lt": spec.size });
    filter.extend(super::unique::guards(spec.items, spec.unique, item));
    let push = match spec.sort {
        Some(key) => {
            Bson::Document(doc! { "$each": [item.clone()], "$sort": { key: 1_i32, "_id": 1_i32 } })
        }
        None => item.clone(),
    };
    let mut update = doc! { "$push": { spec.items: push } };
    merge_operator(&mut update, "$inc", doc! { spec.count: 1_i32 });
    add_summaries(&mut update, spec.computed, item);
    (filter, update)
}

/// The order of an owner's buckets: by start time when there is one, then by `_id`; newest
/// first when the spec says so.
pub fn order(spec: &BucketSpec) -> BsonDocument {
    let direction = if spec.newest_first { -1 } else { 1 };
    let mut sort = BsonDocument::new();
    if let Some(start) = spec.start {
        sort.insert(start, direction);
    }
    sort.insert("_id", direction);
    sort
}

/// A bucket as a page: its children are stored ascending (sorted by the key on each append, or in
/// arrival order without one), so a newest-first page reverses them.
fn as_page(mut bucket: BsonDocument, spec: &BucketSpec) -> BsonDocument {
    if spec.newest_first {
        if let Ok(items) = bucket.get_array_mut(spec.items) {
            items.reverse();
        }
    }
    bucket
}

/// The owner's bucket number `k` (0-based) in bucket order.
pub async fn page(
    coll: &mongodb::Collection<BsonDocument>,
    key: BsonDocument,
    spec: &BucketSpec,
    k: u64,
) -> Result<Option<BsonDocument>> {
    let bucket = coll
        .find_one(key)
        .sort(order(spec))
        .skip(k)
        .await
        .during("find", coll.name())?;
    Ok(bucket.map(|b| as_page(b, spec)))
}

/// A page of the owner's buckets, in bucket order.
pub async fn buckets(
    coll: &mongodb::Collection<BsonDocument>,
    key: BsonDocument,
    spec: &BucketSpec,
    request: PageRequest,
) -> Result<Vec<BsonDocument>> {
    let buckets = super::core::find_page_raw(coll, key, order(spec), None, request).await?;
    Ok(buckets.into_iter().map(|b| as_page(b, spec)).collect())
}

/// A page of the owner's buckets, in bucket order, decoded.
pub async fn pages<T: crate::Document>(
    core: &super::RepoCore<T>,
    key: BsonDocument,
    spec: &BucketSpec,
    request: PageRequest,
) -> Result<crate::Page<T>> {
    let docs = buckets(core.raw(), key, spec, request).await?;
    core.page_of(docs, request)
}

/// The filter of buckets whose children's times overlap `[from, to]`:
/// `{key..., end: {$gte: from}, start: {$lte: to}}`.
pub fn range_filter(
    mut key: BsonDocument,
    start: &str,
    end: &str,
    from: Bson,
    to: Bson,
) -> BsonDocument {
    key.insert(end, doc! { "$gte": from });
    key.insert(start, doc! { "$lte": to });
    key
}
