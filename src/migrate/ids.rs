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

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

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
            let mut out = doc! { "_id": next_id() };
            out.extend(d.clone());
            Bson::Document(out)
        }
        other => other.clone(),
    }
}

/// The last id [`next_id`] made in this process.
static LAST: Mutex<u128> = Mutex::new(0);

/// A new ObjectId greater than any made before it, here or by a run stopped earlier (on a
/// clock that does not go back): seconds (4 bytes), microseconds within the second (3), 3
/// bytes of this process's random part, a counter (2); at least the last one plus one.
///
/// `ObjectId::new()` orders ids of one process only: two processes' ids of the same second
/// compare by their random parts. A run stopped after giving the ids of a parent's first
/// bucket and resumed within the second by another process could then give its second
/// bucket's items smaller ids, and the children split out would lose their order.
fn next_id() -> ObjectId {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let random = ObjectId::new().bytes();
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut bytes = [0u8; 12];
    // Seconds as ObjectId::new() writes them (u32, wrapping in 2106).
    bytes[..4].copy_from_slice(&(now.as_secs() as u32).to_be_bytes());
    bytes[4..7].copy_from_slice(&now.subsec_micros().to_be_bytes()[1..]);
    bytes[7..10].copy_from_slice(&random[4..7]);
    let mut counter = [0u8; 16];
    counter[4..].copy_from_slice(&bytes);
    let made = u128::from_be_bytes(counter).max(*last + 1);
    *last = made;
    let mut out = [0u8; 12];
    out.copy_from_slice(&made.to_be_bytes()[4..]);
    ObjectId::from_bytes(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids only grow, in one process (a clock going back included: the last one plus one).
    #[test]
    fn ids_grow() {
        let mut last = next_id();
        for _ in 0..10_000 {
            let id = next_id();
            assert!(id > last, "{id} after {last}");
            last = id;
        }
    }

    /// An element without `_id` gets one, first; one with an `_id` or not a document is kept.
    #[test]
    fn only_elements_without_ids_get_one() {
        let kept = Bson::Document(doc! { "_id": 1, "a": 2 });
        assert_eq!(with_id(&kept), kept);
        assert_eq!(with_id(&Bson::Int32(3)), Bson::Int32(3));
        let given = with_id(&Bson::Document(doc! { "a": 2 }));
        let keys: Vec<&str> = given
            .as_document()
            .map(|d| d.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(keys, ["_id", "a"]);
        assert!(given
            .as_document()
            .is_some_and(|d| d.get_object_id("_id").is_ok()));
    }
}
