//! Document versioning: every version in one collection with `valid_from`/`valid_to`; the current
//! one at time t is the latest `valid_from` before t (seed 002, pattern 1).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection};

use super::core::RepoCore;
use super::kept::{refill_owners, Keeper};
use crate::error::Context;
use crate::{Document, Result};

/// The fields of a versioned document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionSpec {
    /// The id shared by every version of one document.
    pub key: &'static str,
    /// The version number.
    pub version: &'static str,
    /// When the version starts to apply.
    pub valid_from: &'static str,
    /// When it stops (`null`: open).
    pub valid_to: &'static str,
}

fn as_i64(b: Option<&Bson>) -> Option<i64> {
    match b? {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(f) => Some(*f as i64),
        _ => None,
    }
}

async fn new_version_body(
    coll: &Collection<BsonDocument>,
    (spec, keepers): (&VersionSpec, &[Keeper]),
    mut doc: BsonDocument,
    mut session: Option<&mut ClientSession>,
) -> Result<BsonDocument> {
    let key = doc.get(spec.key).cloned().unwrap_or(Bson::Null);
    let latest = crate::__squillion_in_session!(
        coll.find_one(doc! { spec.key: key.clone() })
            .sort(doc! { spec.version: -1 }),
        session
    )
    .during("find", coll.name())?;
    let next = latest
        .as_ref()
        .and_then(|d| as_i64(d.get(spec.version)))
        .map_or(1, |v| v + 1);
    // In the width the document's own type gives the version (the struct's `i32` is the
    // validator's `int`): an `i64` here would be refused by the validator.
    let numbered = match doc.get(spec.version) {
        Some(Bson::Int64(_)) => Bson::Int64(next),
        _ => i32::try_from(next).map_or(Bson::Int64(next), Bson::Int32),
    };
    doc.insert(spec.version, numbered);
    if let (Some(latest), Some(from)) = (&latest, doc.get(spec.valid_from).cloned()) {
        if let Some(latest_id) = latest.get("_id") {
            crate::__squillion_in_session!(
                coll.update_one(
                    doc! {
                        "_id": latest_id.clone(),
                        "$or": [ { spec.valid_to: null }, { spec.valid_to: { "$gt": from.clone() } } ],
                    },
                    doc! { "$set": { spec.valid_to: from } },
                ),
                session
            )
            .during("update", coll.name())?;
        }
    }
    crate::__squillion_in_session!(coll.insert_one(doc.clone()), session)
        .during("insert", coll.name())?;
    if !keepers.is_empty() {
        let db = coll.client().database(&coll.namespace().db);
        if let Some(closed) = &latest {
            refill_owners(&db, keepers, closed, session.as_deref_mut()).await?;
        }
        refill_owners(&db, keepers, &doc, session).await?;
    }
    Ok(doc)
}

/// Stores `doc` as the next version of its document, closing the one it supersedes.
pub async fn new_version<T: Document>(
    core: &RepoCore<T>,
    spec: &VersionSpec,
    doc: BsonDocument,
) -> Result<BsonDocument> {
    // The parents keeping lists or summaries of the versions: both writes refill them.
    let keepers = T::keepers();
    if core.transactions_supported().await? {
        let client = core.raw().client();
        crate::__squillion_transaction!(client, |session| new_version_body(
            core.raw(),
            (spec, &keepers),
            doc.clone(),
            Some(&mut session)
        )
        .await)
    } else {
        new_version_body(core.raw(), (spec, &keepers), doc, None).await
    }
}

/// The version of `key` current at `at`.
pub async fn current_at(
    coll: &Collection<BsonDocument>,
    spec: &VersionSpec,
    key: Bson,
    at: Bson,
) -> Result<Option<BsonDocument>> {
    coll.find_one(doc! {
        spec.key: key,
        spec.valid_from: { "$lte": at.clone() },
        "$or": [ { spec.valid_to: { "$gt": at } }, { spec.valid_to: null } ],
    })
    .sort(doc! { spec.valid_from: -1 })
    .await
    .during("find", coll.name())
}
