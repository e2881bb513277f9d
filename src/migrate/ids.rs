//! The ids given, inside each batch of an [`Op::SplitOut`](super::Op::SplitOut) walk, to the
//! children about to leave an array for documents of their own.
//!
//! The server has no ObjectId generator, and a child split out by `$merge` without an `_id`
//! would get a new one on every run. So, per batch, before the batch's children are written:
//! the batch's documents with an element lacking `_id` are read in `_id` order, each such
//! element gets a new ObjectId (made here, in that order: the ids follow the documents' and
//! the array's order, so the children keep the order they had), and each document is written
//! back only if its array is still the one read (one unordered `update` command per batch).
//! A run killed after this write and resumed reads the ids back from the arrays; one killed
//! before it made no child of the batch.

use bson::{doc, oid::ObjectId, Bson, Document};
use futures::TryStreamExt;
use mongodb::{Collection, Database};

use super::moves::{value_at, Failure};
use super::ops::Ids;

/// Reads and guarded writes tried for one batch whose documents keep changing in between.
const ATTEMPTS: usize = 5;

/// Gives each element of `ids.array` lacking `_id`, in the documents matching `batch` (the
/// batch's bounded `_id` range and the walk's guard), a new ObjectId. Returns the documents
/// updated.
pub(super) async fn give(
    db: &Database,
    coll: &Collection<Document>,
    batch: &Document,
    ids: &Ids,
) -> Result<u64, Failure> {
    let array = ids.array.as_str();
    let lacking = doc! { "$and": [batch.clone(), ids.missing.clone()] };
    let mut updated = 0u64;
    for _ in 0..ATTEMPTS {
        let found: Vec<Document> = coll
            .find(lacking.clone())
            .projection(doc! { "_id": 1, array: 1 })
            // In `_id` order, as the walk: the ids made here follow the documents' order, so
            // the children split out keep the order they had (buckets' items, pages).
            .sort(doc! { "_id": 1 })
            .await?
            .try_collect()
            .await?;
        let updates: Vec<Document> = found
            .iter()
            .filter_map(|d| {
                let (id, items) = (d.get("_id")?, value_at(d, array)?.as_array()?);
                let with_ids: Vec<Bson> = items.iter().map(with_id).collect();
                Some(doc! {
                    "q": { "_id": id.clone(), array: items.clone() },
                    "u": { "$set": { array: with_ids } },
                })
            })
            .collect();
        if updates.is_empty() {
            return Ok(updated);
        }
        let reply = db
            .run_command(doc! {
                "update": coll.name(),
                "updates": &updates,
                "ordered": false,
                "bypassDocumentValidation": true,
            })
            .await?;
        if let Ok(errors) = reply.get_array("writeErrors") {
            if let Some(e) = errors.first() {
                return Err(Failure::Other(format!(
                    "{} of the updates giving ids in {}.{array} failed; the first: {e}",
                    errors.len(),
                    coll.name()
                )));
            }
        }
        let matched = count(&reply, "n");
        updated += count(&reply, "nModified");
        // Every document read was still as read: each of its elements has an id now. Otherwise
        // some changed in between (an old writer): read those again.
        if matched >= updates.len() as u64 {
            return Ok(updated);
        }
    }
    Err(Failure::Other(format!(
        "documents of {} kept changing while their {array} elements were given ids \
         ({ATTEMPTS} attempts in one batch); run the migration again",
        coll.name()
    )))
}

/// A count in a command's reply (`int` or `long`; 0 if absent).
fn count(reply: &Document, key: &str) -> u64 {
    reply
        .get(key)
        .and_then(|n| n.as_i32().map(i64::from).or_else(|| n.as_i64()))
        .unwrap_or(0)
        .max(0) as u64
}

/// An element with an `_id` (first) if it had none.
fn with_id(e: &Bson) -> Bson {
    match e {
        Bson::Document(d) if !d.contains_key("_id") => {
            let mut out = doc! { "_id": ObjectId::new() };
            out.extend(d.clone());
            Bson::Document(out)
        }
        other => other.clone(),
    }
}
