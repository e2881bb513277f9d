//! Denormalized copies: when a source field changes, every copy is updated (rule of thumb 5).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use super::core::RepoCore;
use crate::error::Context;
use crate::{Document, Result};

/// Where copies of a source field live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy {
    /// The collection holding the copies.
    pub collection: &'static str,
    /// Path of the source document's id beside the copy (inside `array`'s elements when set).
    pub by: &'static str,
    /// Path of the copy (inside `array`'s elements when set).
    pub copy: &'static str,
    /// The array whose elements hold the copies (extended references), if any.
    pub array: Option<&'static str>,
}

/// What a fan-out did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FanOutReport {
    /// Source and copies were written in one transaction.
    pub atomic: bool,
    /// Documents holding copies that matched.
    pub copies_matched: u64,
    /// Documents whose copies changed.
    pub copies_modified: u64,
}

/// The `updateMany` of one copy: `(filter, update, arrayFilters)`.
pub fn copy_update(
    c: &Copy,
    id: &Bson,
    value: &Bson,
) -> (BsonDocument, BsonDocument, Option<Vec<BsonDocument>>) {
    match c.array {
        None => (
            doc! { c.by: id.clone() },
            doc! { "$set": { c.copy: value.clone() } },
            None,
        ),
        Some(array) => (
            doc! { format!("{array}.{}", c.by): id.clone() },
            doc! { "$set": { format!("{array}.$[e].{}", c.copy): value.clone() } },
            Some(vec![doc! { format!("e.{}", c.by): id.clone() }]),
        ),
    }
}

async fn body<T: Document>(
    core: &RepoCore<T>,
    id: &Bson,
    path: &str,
    value: &Bson,
    copies: &[Copy],
    mut session: Option<&mut ClientSession>,
) -> Result<FanOutReport> {
    let r = crate::__squillion_in_session!(
        core.raw().update_one(
            doc! { "_id": id.clone() },
            doc! { "$set": { path: value.clone() } }
        ),
        session
    )
    .during("update", core.name())?;
    if r.matched_count == 0 {
        return Err(core.not_found(id));
    }
    let mut report = FanOutReport {
        atomic: session.is_some(),
        ..FanOutReport::default()
    };
    for c in copies {
        let coll = core.database().collection::<BsonDocument>(c.collection);
        let (filter, update, array_filters) = copy_update(c, id, value);
        let mut action = coll.update_many(filter, update);
        if let Some(af) = array_filters {
            action = action.array_filters(af);
        }
        let r = crate::__squillion_in_session!(action, session).during("update", c.collection)?;
        report.copies_matched += r.matched_count;
        report.copies_modified += r.modified_count;
    }
    Ok(report)
}

/// Sets `path` of document `id` to `value` and updates every copy, in one transaction where the
/// deployment runs them, else source first, then each copy.
pub async fn set_and_fan_out<T: Document>(
    core: &RepoCore<T>,
    id: Bson,
    path: &str,
    value: Bson,
    copies: &[Copy],
) -> Result<FanOutReport> {
    if core.transactions_supported().await? {
        let client = core.raw().client();
        crate::__squillion_transaction!(client, |session| body(
            core,
            &id,
            path,
            &value,
            copies,
            Some(&mut session)
        )
        .await)
    } else {
        body(core, &id, path, &value, copies, None).await
    }
}
