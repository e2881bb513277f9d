//! The outlier (overspill) pattern: the usual children embedded, the rare overflow in extra
//! documents, with a flag on the owner (seed 002).

use bson::{doc, Bson, Document as BsonDocument};
use futures::TryStreamExt;
use mongodb::{ClientSession, Collection};

use super::arrays::{add_summaries, push_bounded_with, ComputedField};
use super::core::RepoCore;
use crate::error::Context;
use crate::{Document, Error, Result};

/// Field of an overflow document referencing its owner.
pub const OWNER: &str = "owner";
/// Field counting an overflow document's children.
pub const COUNT: &str = "count";
/// Field holding an overflow document's children.
pub const ITEMS: &str = "items";

/// How an outlier relationship is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutlierSpec {
    /// The embedded array.
    pub path: &'static str,
    /// Its bound.
    pub max: usize,
    /// The flag set on owners that overflowed.
    pub flag: &'static str,
    /// The collection of overflow documents.
    pub overflow: &'static str,
    /// Children per overflow document.
    pub chunk: i64,
    /// The owner's summaries of all its children, embedded and overflowing alike: every push
    /// keeps them with `$inc`/`$max`/`$min` on the owner, in the same write as an embedded push
    /// and in the overflow's transaction otherwise.
    pub computed: &'static [ComputedField],
    /// The owner's lists of copies of its children (`latest`, `top`): every push, embedded or
    /// overflowing, pushes the item's copy into each in the owner's update.
    pub lists: &'static [super::subsets::List],
}

/// The owner's `$push` of the copies of `item` into its lists, merged into `update`.
fn push_copies(update: &mut BsonDocument, spec: &OutlierSpec, item: &Bson) {
    if let (false, Bson::Document(child)) = (spec.lists.is_empty(), item) {
        super::arrays::merge_operator(update, "$push", super::subsets::pushes(spec.lists, child));
    }
}

async fn overflow_body(
    owners: &Collection<BsonDocument>,
    overflow: &Collection<BsonDocument>,
    spec: &OutlierSpec,
    id: &Bson,
    item: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let mut owner = doc! { "$set": { spec.flag: true } };
    add_summaries(&mut owner, spec.computed, item);
    push_copies(&mut owner, spec, item);
    crate::__squillion_in_session!(
        owners.update_one(doc! { "_id": id.clone() }, owner),
        session
    )
    .during("update", owners.name())?;
    crate::__squillion_in_session!(
        overflow
            .update_one(
                doc! { OWNER: id.clone(), COUNT: { "$lt": spec.chunk } },
                doc! { "$push": { ITEMS: item.clone() }, "$inc": { COUNT: 1_i32 } },
            )
            .upsert(true),
        session
    )
    .during("update", overflow.name())?;
    Ok(())
}

/// Appends `item` to the embedded array while it has room, else to the overflow.
pub async fn push<T: Document>(
    core: &RepoCore<T>,
    spec: &OutlierSpec,
    id: Bson,
    item: Bson,
) -> Result<()> {
    let mut copies = BsonDocument::new();
    push_copies(&mut copies, spec, &item);
    match push_bounded_with(
        core.raw(),
        id.clone(),
        spec.path,
        spec.max,
        item.clone(),
        spec.computed,
        &[],
        copies,
    )
    .await
    {
        Err(Error::BoundExceeded { .. }) => {}
        other => return other,
    }
    let overflow = core.database().collection::<BsonDocument>(spec.overflow);
    if core.transactions_supported().await? {
        let client = core.raw().client();
        crate::__squillion_transaction!(client, |session| overflow_body(
            core.raw(),
            &overflow,
            spec,
            &id,
            &item,
            Some(&mut session)
        )
        .await)
    } else {
        overflow_body(core.raw(), &overflow, spec, &id, &item, None).await
    }
}

async fn overflow_items(overflow: &Collection<BsonDocument>, id: &Bson) -> Result<Vec<Bson>> {
    let docs: Vec<BsonDocument> = overflow
        .find(doc! { OWNER: id.clone() })
        .sort(doc! { "_id": 1 })
        .await
        .during("find", overflow.name())?
        .try_collect()
        .await
        .during("find", overflow.name())?;
    Ok(docs
        .into_iter()
        .flat_map(|d| d.get_array(ITEMS).cloned().unwrap_or_default())
        .collect())
}

/// The owner document with its overflow merged into the array (`None`: no such owner).
pub async fn merged<T: Document>(
    core: &RepoCore<T>,
    spec: &OutlierSpec,
    id: Bson,
) -> Result<Option<BsonDocument>> {
    let Some(mut owner) = core
        .raw()
        .find_one(doc! { "_id": id.clone() })
        .await
        .during("find", core.name())?
    else {
        return Ok(None);
    };
    if owner.get_bool(spec.flag).unwrap_or(false) {
        let overflow = core.database().collection::<BsonDocument>(spec.overflow);
        let mut items = owner.get_array(spec.path).cloned().unwrap_or_default();
        items.extend(overflow_items(&overflow, &id).await?);
        owner.insert(spec.path, items);
    }
    Ok(Some(owner))
}

/// Every element, embedded then overflow.
pub async fn all<T: Document>(
    core: &RepoCore<T>,
    spec: &OutlierSpec,
    id: Bson,
) -> Result<Vec<Bson>> {
    match merged(core, spec, id.clone()).await? {
        Some(owner) => Ok(owner.get_array(spec.path).cloned().unwrap_or_default()),
        None => Err(core.not_found(&id)),
    }
}
