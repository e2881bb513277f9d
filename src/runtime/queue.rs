//! The queue pattern (seed 001): jobs claimed with find-and-modify, sorted by priority, each
//! handed out once and only once.

use bson::{doc, Bson, DateTime, Document as BsonDocument};
use mongodb::options::ReturnDocument;

use crate::error::Context;
use crate::Result;

/// The fields of a job document the queue reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueSpec {
    /// Priority: the highest is claimed first.
    pub priority: &'static str,
    /// Set when a worker claims the job.
    pub in_progress: &'static str,
    /// Set to the claim time.
    pub started: &'static str,
    /// Set when the job is complete; `None`: completed jobs are deleted.
    pub done: Option<&'static str>,
}

impl QueueSpec {
    /// The filter of jobs waiting to be claimed: `{in_progress: false, done: {$in: [false, null]}}`
    pub fn waiting(&self) -> BsonDocument {
        self.not_done(doc! { self.in_progress: false })
    }

    /// The filter of jobs claimed and not complete.
    pub fn running(&self) -> BsonDocument {
        self.not_done(doc! { self.in_progress: true })
    }

    /// Adds "not done" to `filter` as `done: {$in: [false, null]}` (a missing flag counts as not
    /// done). Not `{$ne: true}`: a `$ne` is two ranges of the claim index, so the server would
    /// read every waiting job and sort them for each claim; two points are merged in index order
    /// and a claim reads one index entry.
    fn not_done(&self, mut filter: BsonDocument) -> BsonDocument {
        if let Some(done) = self.done {
            filter.insert(done, doc! { "$in": [false, Bson::Null] });
        }
        filter
    }

    /// Claim order: highest priority first, then oldest `_id`.
    pub fn order(&self) -> BsonDocument {
        doc! { self.priority: -1, "_id": 1 }
    }

    /// A new job as stored: not in progress, not done.
    pub fn prepare(&self, mut job: BsonDocument) -> BsonDocument {
        job.insert(self.in_progress, false);
        if let Some(done) = self.done {
            job.insert(done, false);
        }
        job
    }
}

/// Claims the waiting job of highest priority:
/// `findOneAndUpdate({in_progress: false, done: {$in: [false, null]}}, {$set: {in_progress: true,
/// started: now}}, {sort: {priority: -1, _id: 1}, returnDocument: "after"})`. The filter is
/// evaluated by the server, so a job is handed to one worker only. The derive's claim index
/// `{in_progress: 1, done: 1, priority: -1, _id: 1}` serves the filter and the whole sort, so a
/// claim reads one index entry however many jobs wait or are done.
pub async fn claim_next(
    coll: &mongodb::Collection<BsonDocument>,
    spec: &QueueSpec,
) -> Result<Option<BsonDocument>> {
    coll.find_one_and_update(
        spec.waiting(),
        doc! { "$set": { spec.in_progress: true, spec.started: DateTime::now() } },
    )
    .sort(spec.order())
    .return_document(ReturnDocument::After)
    .await
    .during("findAndModify", coll.name())
}

/// The filter matching job `id` while it is claimed.
pub fn claimed(spec: &QueueSpec, id: Bson) -> BsonDocument {
    let mut filter = spec.running();
    filter.insert("_id", id);
    filter
}

/// Completes the claimed job `id`: sets `done` (or deletes the job when the queue keeps no done
/// flag). Returns false if no claimed job has that id.
pub async fn complete(
    coll: &mongodb::Collection<BsonDocument>,
    spec: &QueueSpec,
    id: Bson,
) -> Result<bool> {
    let filter = claimed(spec, id);
    match spec.done {
        Some(done) => {
            let r = coll
                .update_one(
                    filter,
                    doc! { "$set": { done: true, spec.in_progress: false } },
                )
                .await
                .during("update", coll.name())?;
            Ok(r.modified_count == 1)
        }
        None => Ok(coll
            .delete_one(filter)
            .await
            .during("delete", coll.name())?
            .deleted_count
            == 1),
    }
}

/// Puts the claimed job `id` back in the queue (a worker gave up on it).
pub async fn release(
    coll: &mongodb::Collection<BsonDocument>,
    spec: &QueueSpec,
    id: Bson,
) -> Result<bool> {
    let mut filter = spec.running();
    filter.insert("_id", id);
    let r = coll
        .update_one(filter, doc! { "$set": { spec.in_progress: false } })
        .await
        .during("update", coll.name())?;
    Ok(r.modified_count == 1)
}
