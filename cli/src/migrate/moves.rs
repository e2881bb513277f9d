//! The layout moves of `squillion migrate` against the server: the checks that stop a migration
//! the stored data does not fit, the batched aggregations of
//! `squillion_codegen::migration::pipelines` (one per batch of `_id`s, their `$merge` writing),
//! the ids given to embedded children on the client (the server has no ObjectId generator), the
//! ids kept in place of embedded children, and the collections dropped.

use futures::TryStreamExt;
use mongodb::bson::{doc, oid::ObjectId, Bson, Document};
use mongodb::{Collection, Database};
use squillion_codegen::migration::pipelines::{self, Batched};
use squillion_codegen::migration::{Action, Check, BATCH};

use super::{bson_value, document, StepError};

/// Runs a check: `Err(StepError::Data)` naming the first offender, if there is one.
pub(super) async fn check(db: &Database, c: &Check) -> Result<(), StepError> {
    let (collection, pipeline) = pipelines::check(c);
    let first: Vec<Document> = db
        .collection::<Document>(&collection)
        .aggregate(pipeline.iter().map(document).collect::<Vec<_>>())
        .await?
        .try_collect()
        .await?;
    match first.first() {
        None => Ok(()),
        Some(bad) => {
            let id = bad.get("_id").map_or_else(|| "?".to_owned(), text);
            let n = bad.get("n").map_or_else(|| "?".to_owned(), text);
            Err(StepError::Data(c.error(&id, &n)))
        }
    }
}

/// A value as a person reads it: an ObjectId's hex, a string without quotes, a number.
fn text(b: &Bson) -> String {
    match b {
        Bson::ObjectId(id) => id.to_hex(),
        Bson::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The filter of the documents matching `guard` after `last`.
fn after(guard: &Document, last: &Option<Bson>) -> Document {
    match last {
        Some(id) if guard.is_empty() => doc! { "_id": { "$gt": id.clone() } },
        Some(id) => doc! { "$and": [guard.clone(), { "_id": { "$gt": id.clone() } }] },
        None => guard.clone(),
    }
}

/// The next batch of a walk in `_id` order: up to `BATCH` documents matching `guard` after
/// `last`, with `projection`. Every batched step walks its collection this way, so that a
/// killed run resumes at the same boundaries.
pub(super) async fn next_batch(
    coll: &Collection<Document>,
    guard: &Document,
    last: &Option<Bson>,
    projection: Document,
) -> Result<Vec<Document>, StepError> {
    Ok(coll
        .find(after(guard, last))
        .projection(projection)
        .sort(doc! { "_id": 1 })
        .limit(i64::from(BATCH))
        .await?
        .try_collect()
        .await?)
}

/// Walks `b.collection` a batch of `_id`s at a time, running the stages on each batch; returns
/// the documents walked.
pub(super) async fn batched(db: &Database, b: &Batched) -> Result<u64, StepError> {
    let coll = db.collection::<Document>(&b.collection);
    let guard = document(&b.guard);
    let stages: Vec<Document> = b.stages.iter().map(document).collect();
    let (mut last, mut walked) = (None::<Bson>, 0u64);
    loop {
        let ids = next_batch(&coll, &guard, &last, doc! { "_id": 1 }).await?;
        let (Some(first), Some(end)) = (
            ids.first().and_then(|d| d.get("_id")),
            ids.last().and_then(|d| d.get("_id")),
        ) else {
            return Ok(walked);
        };
        let range = doc! { "$and": [guard.clone(), { "_id": { "$gte": first.clone(), "$lte": end.clone() } }] };
        let mut pipeline = vec![doc! { "$match": range }];
        pipeline.extend(stages.iter().cloned());
        let _: Vec<Document> = coll
            .aggregate(pipeline)
            .bypass_document_validation(true)
            .await?
            .try_collect()
            .await?;
        walked += ids.len() as u64;
        last = Some(end.clone());
    }
}

/// `Gather`: the batches, then the parents left over (over the bound) named by the check.
pub(super) async fn gather(db: &Database, a: &Action) -> Result<u64, StepError> {
    let Some(b) = pipelines::batched(a) else {
        return Ok(0);
    };
    let walked = batched(db, &b).await?;
    if let Some((guard, c)) = pipelines::leftover(a) {
        let left = db
            .collection::<Document>(&b.collection)
            .count_documents(document(&guard))
            .await?;
        if left > 0 {
            check(db, &c).await?;
            return Err(StepError::Other(format!(
                "{left} parents of {} were not gathered (changed during the step?)",
                b.collection
            )));
        }
    }
    Ok(walked)
}

/// `AssignIds`: each element of `array` without `_id` gets a new ObjectId, the parent updated
/// only if its array is still the one read (one unordered `update` command per batch); walks
/// again until no parent lacks one. Returns the parents updated.
pub(super) async fn assign_ids(
    db: &Database,
    collection: &str,
    array: &str,
) -> Result<u64, StepError> {
    let coll = db.collection::<Document>(collection);
    let guard = document(&pipelines::assign_ids_guard(array));
    let mut modified = 0u64;
    loop {
        let (mut last, mut found) = (None::<Bson>, false);
        loop {
            let batch = next_batch(&coll, &guard, &last, doc! { "_id": 1, array: 1 }).await?;
            let Some(end) = batch.last().and_then(|d| d.get("_id")).cloned() else {
                break;
            };
            found = true;
            let updates: Vec<Document> = batch
                .iter()
                .filter_map(|d| {
                    let (id, items) = (d.get("_id")?, d.get_array(array).ok()?);
                    let with_ids: Vec<Bson> = items.iter().map(with_id).collect();
                    Some(doc! {
                        "q": { "_id": id.clone(), array: items.clone() },
                        "u": { "$set": { array: with_ids } },
                    })
                })
                .collect();
            let reply = db
                .run_command(doc! {
                    "update": collection,
                    "updates": updates,
                    "ordered": false,
                    "bypassDocumentValidation": true,
                })
                .await?;
            if let Ok(errors) = reply.get_array("writeErrors") {
                if let Some(e) = errors.first() {
                    return Err(StepError::Other(format!(
                        "{} of the updates giving ids in {collection}.{array} failed; the first: {e}",
                        errors.len()
                    )));
                }
            }
            modified += reply
                .get("nModified")
                .and_then(|n| n.as_i32().map(i64::from).or_else(|| n.as_i64()))
                .unwrap_or(0)
                .max(0) as u64;
            last = Some(end);
        }
        if !found {
            return Ok(modified);
        }
    }
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

/// `KeepIds`: the pipeline update replacing embedded children by their ids.
pub(super) async fn keep_ids(
    db: &Database,
    collection: &str,
    from: &str,
    to: &str,
) -> Result<u64, StepError> {
    let (guard, update) = pipelines::keep_ids(from, to);
    let pipeline: Vec<Document> = match bson_value(&update) {
        Bson::Array(stages) => stages
            .into_iter()
            .filter_map(|s| match s {
                Bson::Document(d) => Some(d),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let r = db
        .collection::<Document>(collection)
        .update_many(document(&guard), pipeline)
        .bypass_document_validation(true)
        .await?;
    Ok(r.modified_count)
}
