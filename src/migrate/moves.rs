//! How each [`Op`] runs against the server: the checks, the walks in `_id` order running
//! aggregation stages per batch (after giving ids to the children about to leave the batch's
//! arrays: [`super::ids`]), the copies backfilled, and the single commands (collections,
//! indexes, validators, `updateMany`).

use bson::{doc, Bson, Document};
use futures::TryStreamExt;
use mongodb::{Collection, Database};

use super::ops::{Backfill, Batched, Check, Ids, Op, Update, Walk};
use super::run::Changed;
use super::BATCH;

/// Why a step stopped (the step's name is added by the caller).
pub(super) enum Failure {
    /// The server refused or could not be reached.
    Server(mongodb::error::Error),
    /// The stored data does not fit the new layout: the error, in full.
    Data(String),
    /// Something else, in words.
    Other(String),
}

impl From<mongodb::error::Error> for Failure {
    fn from(e: mongodb::error::Error) -> Failure {
        Failure::Server(e)
    }
}

/// What a walk reports as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tick {
    /// A batch is done: `walked` documents so far.
    Batch {
        /// Documents walked so far.
        walked: u64,
    },
    /// The batch after `walked` documents gave ids in `documents` documents; its children are
    /// not written yet.
    IdsGiven {
        /// Documents walked before this batch.
        walked: u64,
        /// Documents whose elements were given ids.
        documents: u64,
    },
}

/// Runs one step; `on_batch` hears each batch of a walk (and its ids given, for a split).
pub(super) async fn execute(
    db: &Database,
    op: &Op,
    on_batch: &mut dyn FnMut(Tick),
) -> Result<Changed, Failure> {
    let coll = |name: &str| db.collection::<Document>(name);
    match op {
        Op::Check(c) => {
            check(db, c).await?;
            Ok(Changed::Nothing)
        }
        Op::CreateCollection {
            collection,
            validator,
        } => {
            if !db.list_collection_names().await?.contains(collection) {
                db.create_collection(collection)
                    .validator(validator.clone())
                    .await?;
            }
            Ok(Changed::Nothing)
        }
        Op::CreateIndex { collection, index } => {
            coll(collection).create_index(index.model()).await?;
            Ok(Changed::Nothing)
        }
        Op::CollMod {
            collection,
            validator,
            level,
        } => {
            db.run_command(doc! {
                "collMod": collection,
                "validator": validator.clone(),
                "validationLevel": level.as_str(),
            })
            .await?;
            Ok(Changed::Nothing)
        }
        Op::UpdateMany {
            collection,
            filter,
            update,
        } => {
            let c = coll(collection);
            let r = match update {
                Update::Document(u) => {
                    c.update_many(filter.clone(), u.clone())
                        .bypass_document_validation(true)
                        .await?
                }
                Update::Pipeline(p) => {
                    c.update_many(filter.clone(), p.clone())
                        .bypass_document_validation(true)
                        .await?
                }
            };
            Ok(Changed::Documents(r.modified_count))
        }
        Op::Batched { batched: b, walk } => Ok(Changed::Walked {
            count: walk_batches(db, b, None, on_batch).await?,
            walk: *walk,
        }),
        Op::SplitOut {
            batched: b,
            ids,
            walk,
        } => Ok(Changed::Walked {
            count: walk_batches(db, b, Some(ids), on_batch).await?,
            walk: *walk,
        }),
        Op::Gather {
            batched: b,
            leftover,
        } => {
            let walked = walk_batches(db, b, None, on_batch).await?;
            if let Some((guard, c)) = leftover {
                let left = coll(&b.collection).count_documents(guard.clone()).await?;
                if left > 0 {
                    check(db, c).await?;
                    return Err(Failure::Other(format!(
                        "{left} parents of {} were not gathered (changed during the step?)",
                        b.collection
                    )));
                }
            }
            Ok(Changed::Walked {
                count: walked,
                walk: Walk::Parents,
            })
        }
        Op::Backfill(b) => Ok(Changed::Documents(backfill(db, b, on_batch).await?)),
        Op::DropCollection { collection } => {
            coll(collection).drop().await?;
            Ok(Changed::Nothing)
        }
        Op::DropIndex { collection, name } => {
            let c = coll(collection);
            if c.list_index_names().await?.contains(name) {
                c.drop_index(name).await?;
            }
            Ok(Changed::Nothing)
        }
    }
}

/// Runs a check: `Err(Failure::Data)` naming the first offender, if there is one.
pub(super) async fn check(db: &Database, c: &Check) -> Result<(), Failure> {
    let first: Vec<Document> = db
        .collection::<Document>(&c.collection)
        .aggregate(c.pipeline.clone())
        .await?
        .try_collect()
        .await?;
    match first.first() {
        None => Ok(()),
        Some(bad) => {
            let id = bad.get("_id").map_or_else(|| "?".to_owned(), text);
            let n = bad.get("n").map_or_else(|| "?".to_owned(), text);
            Err(Failure::Data(
                c.error.replace("{id}", &id).replace("{n}", &n),
            ))
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

/// The documents matching `guard` with `_id` from `first` to `last`: a bounded range, which
/// the server reads through the `_id` index.
fn range(guard: &Document, first: &Bson, last: &Bson) -> Document {
    let ids = doc! { "_id": { "$gte": first.clone(), "$lte": last.clone() } };
    if guard.is_empty() {
        ids
    } else {
        doc! { "$and": [guard.clone(), ids] }
    }
}

/// A walk of a collection in `_id` order, [`BATCH`] documents at a time: one cursor over the
/// `_id`s matching the guard, read a batch at a time; each batch is then read or aggregated as
/// its bounded `_id` range. Every batched step walks its collection this way, so that a killed
/// run replays the same boundaries. (A fresh `find({_id: {$gt: last}}).sort({_id: 1}).limit(B)`
/// per batch made the server read every document after `last` for each batch: on SecantusDB an
/// open range with a limit is a scan, so a walk cost the square of the collection's size.)
struct Walker {
    cursor: mongodb::Cursor<Document>,
}

impl Walker {
    /// The documents of `coll` matching `guard`, in `_id` order, with `projection`.
    async fn open(
        coll: &Collection<Document>,
        guard: &Document,
        projection: Document,
    ) -> Result<Walker, Failure> {
        let cursor = coll
            .find(guard.clone())
            .projection(projection)
            .sort(doc! { "_id": 1 })
            .batch_size(BATCH)
            .await?;
        Ok(Walker { cursor })
    }

    /// The next batch: up to [`BATCH`] documents (empty at the end).
    async fn next(&mut self) -> Result<Vec<Document>, Failure> {
        let mut batch = Vec::new();
        while batch.len() < BATCH as usize {
            match self.cursor.try_next().await? {
                Some(d) => batch.push(d),
                None => break,
            }
        }
        Ok(batch)
    }
}

/// The first and last `_id` of a batch (`None`: empty).
fn ends(batch: &[Document]) -> Option<(&Bson, &Bson)> {
    Some((batch.first()?.get("_id")?, batch.last()?.get("_id")?))
}

/// Walks `b.collection` a batch of `_id`s at a time, running the stages on each batch (after
/// giving the elements of `ids` lacking one an `_id`, if given); returns the documents walked.
async fn walk_batches(
    db: &Database,
    b: &Batched,
    ids: Option<&Ids>,
    on_batch: &mut dyn FnMut(Tick),
) -> Result<u64, Failure> {
    let coll = db.collection::<Document>(&b.collection);
    let mut walk = Walker::open(&coll, &b.guard, doc! { "_id": 1 }).await?;
    let mut walked = 0u64;
    loop {
        let read = walk.next().await?;
        let Some((first, end)) = ends(&read) else {
            return Ok(walked);
        };
        let batch = range(&b.guard, first, end);
        if let Some(ids) = ids {
            // Written before the batch's children are: a run killed after this splits out the
            // same children under the same ids.
            let documents = super::ids::give(db, &coll, &batch, ids).await?;
            on_batch(Tick::IdsGiven { walked, documents });
        }
        let mut pipeline = vec![doc! { "$match": batch }];
        pipeline.extend(b.stages.iter().cloned());
        let _: Vec<Document> = coll
            .aggregate(pipeline)
            .bypass_document_validation(true)
            .await?
            .try_collect()
            .await?;
        walked += read.len() as u64;
        on_batch(Tick::Batch { walked });
    }
}

/// The source walked in `_id` order, each source document's value written where it is copied;
/// then every source read again, and where its value changed since, the copies written from the
/// value read first are given the new one ([`recheck`]).
async fn backfill(
    db: &Database,
    b: &Backfill,
    on_batch: &mut dyn FnMut(Tick),
) -> Result<u64, Failure> {
    let sources = db.collection::<Document>(&b.source_collection);
    let copies = db.collection::<Document>(&b.collection);
    let mut walk = Walker::open(&sources, &doc! {}, doc! { &b.source_path: 1 }).await?;
    let (mut modified, mut walked) = (0u64, 0u64);
    let mut read: Vec<(Bson, Bson)> = Vec::new();
    loop {
        let batch = walk.next().await?;
        if batch.is_empty() {
            break;
        }
        for source in &batch {
            if let (Some(id), Some(value)) = (source.get("_id"), value_at(source, &b.source_path)) {
                modified += write_copy(&copies, b, id, value, None).await?;
                read.push((id.clone(), value.clone()));
            }
        }
        walked += batch.len() as u64;
        on_batch(Tick::Batch { walked });
    }
    modified += recheck(&sources, &copies, b, &read).await?;
    Ok(modified)
}

/// The second pass of a backfill. A source changed while the walk ran may have missed copies
/// the walk had not written yet: its change's fan-out ran in a transaction whose snapshot was
/// older than the document holding the copy (wrapped into an extended reference by the step
/// before, say), and the walk then wrote the value it had read before the change. Each source
/// is read again; where its value differs from the one first read, the copies still holding that
/// first value are set to the current one. A copy a later change already rewrote holds neither
/// and is left alone, so this pass never writes a value older than one already there.
async fn recheck(
    sources: &Collection<Document>,
    copies: &Collection<Document>,
    b: &Backfill,
    read: &[(Bson, Bson)],
) -> Result<u64, Failure> {
    let mut modified = 0;
    for chunk in read.chunks(BATCH as usize) {
        let ids: Vec<Bson> = chunk.iter().map(|(id, _)| id.clone()).collect();
        let now: Vec<Document> = sources
            .find(doc! { "_id": { "$in": ids } })
            .projection(doc! { &b.source_path: 1 })
            .await?
            .try_collect()
            .await?;
        let current: std::collections::HashMap<String, &Bson> = now
            .iter()
            .filter_map(|d| Some((d.get("_id")?.to_string(), value_at(d, &b.source_path)?)))
            .collect();
        for (id, first) in chunk {
            match current.get(&id.to_string()) {
                Some(value) if *value != first => {
                    modified += write_copy(copies, b, id, value, Some(first)).await?;
                }
                _ => {}
            }
        }
    }
    Ok(modified)
}

/// Source `id`'s `value` written where it is copied (one `updateMany`): where the copy is still
/// absent (`replacing: None`), or where it still holds `replacing`. A copy already there was
/// written by the new code (an insert, a replace or the fan-out of a source's change, all of
/// which take the source's value at the time), and is never overwritten by a value read before
/// it (the online mode).
async fn write_copy(
    copies: &Collection<Document>,
    b: &Backfill,
    id: &Bson,
    value: &Bson,
    replacing: Option<&Bson>,
) -> Result<u64, Failure> {
    let guard = match replacing {
        None => doc! { "$exists": false },
        Some(old) => doc! { "$eq": old.clone() },
    };
    let mut filters: Vec<Document> = b
        .array_filters
        .iter()
        .map(|path| doc! { path: id.clone() })
        .collect();
    let mut filter = doc! { &b.match_path: id.clone() };
    let (copy_key, last_filter) = (absent_key(&b.set_path), b.array_filters.last());
    match (last_filter, filters.last_mut()) {
        // In an array: only the elements whose copy is absent (or still the value replaced).
        (Some(path), Some(f)) => {
            f.insert(sibling(path, copy_key), guard);
        }
        _ => {
            filter.insert(&b.set_path, guard);
        }
    }
    let mut update = copies
        .update_many(filter, doc! { "$set": { &b.set_path: value.clone() } })
        .bypass_document_validation(true);
    if !filters.is_empty() {
        update = update.array_filters(filters);
    }
    Ok(update.await?.modified_count)
}

/// The last segment of a dotted path (the copy's key beside the id).
fn absent_key(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(_, last)| last)
}

/// `path` with its last segment replaced by `key` (`e0.product.id` -> `e0.product.name`).
fn sibling(path: &str, key: &str) -> String {
    match path.rsplit_once('.') {
        Some((parent, _)) => format!("{parent}.{key}"),
        None => key.to_owned(),
    }
}

/// The value at a dotted path of a document (`None`: absent).
pub(super) fn value_at<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut segments = path.split('.');
    let mut value = d.get(segments.next()?)?;
    for s in segments {
        value = value.as_document()?.get(s)?;
    }
    Some(value)
}
