//! Document versioning with a history collection (seed 002, pattern 2: "easier to query
//! current"): the current version of each document in its collection, numbered by its `version`,
//! and every earlier version in a second collection, one document per version holding the
//! current document's `_id` (`document_id`), its `version`, when it was superseded
//! (`archived_at`) and every other field as it was stored.
//!
//! A new version archives the current one and replaces it, guarded by the version read, so two
//! racing new versions never both win; in one transaction where the deployment runs them.
//! Without transactions the archive comes first, written as an upsert keyed on
//! `{document_id, version}`: run again (by a loser of a race, or after a failure between the two
//! writes) it rewrites the same version's record instead of adding a second one.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection};

use super::core::{describe, not_found_in, RepoCore};
use super::kept::{refill_owners, Keeper};
use super::subsets::{refill_body, Subset};
use crate::error::Context;
use crate::{Document, Error, Result};

/// Where the versions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistorySpec {
    /// The current documents' version number field.
    pub version: &'static str,
    /// The history collection.
    pub history: &'static str,
    /// The history documents' field holding the current document's `_id`.
    pub key: &'static str,
    /// The history documents' field holding when the version was superseded.
    pub archived_at: &'static str,
}

fn as_i64(b: &Bson) -> Option<i64> {
    match b {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(f) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    }
}

/// The number after `version`, in its width (an `i32` field is the validator's `int`: an `i64`
/// there would be refused). A document without a number is version 0.
fn next(version: &Bson) -> Bson {
    let n = as_i64(version).unwrap_or(0).saturating_add(1);
    match version {
        Bson::Int64(_) => Bson::Int64(n),
        _ => i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32),
    }
}

fn conflict(coll: &Collection<BsonDocument>, id: &Bson, version: &Bson) -> Error {
    Error::VersionConflict {
        collection: coll.name().to_owned(),
        id: describe(id),
        version: as_i64(version),
    }
}

/// The record of `current` in the history: its fields, its `_id` as `key`, `archived_at` now.
fn archived(spec: &HistorySpec, current: &BsonDocument, id: &Bson, version: &Bson) -> BsonDocument {
    let mut copy = doc! {
        spec.key: id.clone(),
        spec.version: version.clone(),
        spec.archived_at: bson::DateTime::now(),
    };
    for (k, v) in current {
        if k != "_id" && k != spec.version && !copy.contains_key(k) {
            copy.insert(k.clone(), v.clone());
        }
    }
    copy
}

/// What a new version's writes need besides the document.
struct Versioning<'a> {
    spec: &'a HistorySpec,
    keepers: &'a [Keeper],
    own: &'a [Subset],
}

async fn new_version_body(
    coll: &Collection<BsonDocument>,
    v: &Versioning<'_>,
    doc: &BsonDocument,
    first_read: &mut Option<Bson>,
    mut session: Option<&mut ClientSession>,
) -> Result<BsonDocument> {
    let spec = v.spec;
    let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
    let current =
        crate::__squillion_in_session!(coll.find_one(doc! { "_id": id.clone() }), session)
            .during("find", coll.name())?
            .ok_or_else(|| not_found_in(coll, &id))?;
    let version = current.get(spec.version).cloned().unwrap_or(Bson::Null);
    // A transaction run again after a write conflict reads again: a version other than the one
    // the first run read is a new version made meanwhile, which this one does not build on.
    match first_read {
        Some(seen) if as_i64(seen) != as_i64(&version) => {
            return Err(conflict(coll, &id, seen));
        }
        Some(_) => {}
        None => *first_read = Some(version.clone()),
    }
    let history = coll
        .client()
        .database(&coll.namespace().db)
        .collection::<BsonDocument>(spec.history);
    let record = doc! { spec.key: id.clone(), spec.version: version.clone() };
    let copy = archived(spec, &current, &id, &version);
    let archive = crate::__squillion_in_session!(
        history
            .replace_one(record.clone(), copy.clone())
            .upsert(true),
        session
    )
    .during("archive", spec.history);
    match archive {
        // Two upserts of one version racing: the unique index on `{key, version}` refused the
        // second insert, so the record exists now and the upsert replaces it.
        Err(e) if e.is_duplicate_key() && session.is_none() => {
            history
                .replace_one(record, copy)
                .upsert(true)
                .await
                .during("archive", spec.history)?;
        }
        other => {
            other?;
        }
    }
    let mut new = doc.clone();
    new.insert(spec.version, next(&version));
    let replaced = crate::__squillion_in_session!(
        coll.replace_one(
            doc! { "_id": id.clone(), spec.version: version.clone() },
            new.clone()
        ),
        session
    )
    .during("replace", coll.name())?;
    if replaced.matched_count == 0 {
        return Err(conflict(coll, &id, &version));
    }
    if !v.keepers.is_empty() {
        let db = coll.client().database(&coll.namespace().db);
        refill_owners(&db, v.keepers, &current, session.as_deref_mut()).await?;
        refill_owners(&db, v.keepers, &new, session.as_deref_mut()).await?;
    }
    if v.own.is_empty() {
        return Ok(new);
    }
    // What the document keeps of its own children is refilled from them, not the caller's.
    for s in v.own {
        refill_body(coll, s, &id, session.as_deref_mut()).await?;
    }
    crate::__squillion_in_session!(coll.find_one(doc! { "_id": id.clone() }), session)
        .during("find", coll.name())?
        .ok_or_else(|| not_found_in(coll, &id))
}

/// Archives the current version of `doc`'s document and replaces it with `doc`, numbered after
/// it. [`Error::NotFound`] if no document has `doc`'s `_id`; [`Error::VersionConflict`] if
/// another new version was made between the read and the replace (nothing of this one is kept).
pub async fn new_version<T: Document>(
    core: &RepoCore<T>,
    spec: &HistorySpec,
    doc: BsonDocument,
) -> Result<BsonDocument> {
    let keepers = T::keepers();
    let v = Versioning {
        spec,
        keepers: &keepers,
        own: T::KEEPS,
    };
    let mut first_read = None;
    if core.transactions_supported().await? {
        let client = core.raw().client();
        crate::__squillion_transaction!(client, |session| new_version_body(
            core.raw(),
            &v,
            &doc,
            &mut first_read,
            Some(&mut session)
        )
        .await)
    } else {
        new_version_body(core.raw(), &v, &doc, &mut first_read, None).await
    }
}

/// The history of document `id`, newest first (the index `{key: 1, version: -1}`).
pub async fn history<H: Document>(
    core: &RepoCore<H>,
    spec: &HistorySpec,
    id: Bson,
) -> Result<Vec<H>> {
    core.find(doc! { spec.key: id }, Some(doc! { spec.version: -1 }))
        .await
}

/// Version `version` of document `id` in the history, if archived.
pub async fn version_of<H: Document>(
    core: &RepoCore<H>,
    spec: &HistorySpec,
    id: Bson,
    version: i64,
) -> Result<Option<H>> {
    let mut found = core
        .find(doc! { spec.key: id, spec.version: version }, None)
        .await?;
    Ok(found.pop())
}
