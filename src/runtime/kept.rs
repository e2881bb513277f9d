//! The writes of a child whose parents keep something of it (issue 11, defect 3 and 6): the
//! summaries of all their children (`count`, `total`, `max`, `min`, and the total and count an
//! average divides) and the subsets and top-N lists refilled from the children's collection.
//!
//! The child's own repository writes through here, so the parents stay in step whichever
//! repository writes the child: an insert adds the child to its parent's lists and summaries
//! (`$push` with `$each`/`$sort`/`$slice`, `$inc`, `$max`, `$min`: exact for an addition), an
//! insert of several children of one parent refills that parent once (one write per parent, not
//! per child: a bulk insert stays a short transaction); a
//! replace, a delete and an update of a field a parent reads recompute everything the parents
//! (the one before and the one after, when the child moved) keep from the children's collection
//! (`$group`: exact after any change, where a `$inc` of a removed maximum could not be). Each
//! runs in one transaction with the child's write where the deployment runs them.

use std::collections::hash_map::{Entry, HashMap};

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::{ReturnDocument, UpdateModifications};
use mongodb::{ClientSession, Collection};

use super::arrays::lookup;
use super::core::{describe, not_found_in};
use super::subsets::{add_child, database, is_childless, refill_body, Subset};
use crate::error::Context;
use crate::Result;

/// A parent collection and what it keeps of the children.
#[derive(Debug, Clone, Copy)]
pub struct Keeper {
    /// The parents' collection.
    pub parents: &'static str,
    /// Its lists and summaries of these children, and the children's reference to it.
    pub spec: &'static Subset,
}

/// The keepers among `specs` (what parent type `parents` keeps) of the children in collection
/// `children` referencing it at `key`.
pub fn keepers(
    parents: &'static str,
    specs: &'static [Subset],
    children: &str,
    key: &str,
    out: &mut Vec<Keeper>,
) {
    for spec in specs
        .iter()
        .filter(|s| s.children == children && s.key == key)
    {
        out.push(Keeper { parents, spec });
    }
}

/// Whether an update of the child's field `field` can change what a keeper keeps.
pub fn read_by(keepers: &[Keeper], field: &str) -> bool {
    keepers.iter().any(|k| k.spec.reads(field))
}

/// The parents `child` names at the keeper's key (none, one, or each of an array of them).
pub(super) fn owners(k: &Keeper, child: &BsonDocument) -> Vec<Bson> {
    match lookup(&Bson::Document(child.clone()), k.spec.key) {
        None | Some(Bson::Null) => Vec::new(),
        Some(Bson::Array(ids)) => ids.clone(),
        Some(id) => vec![id.clone()],
    }
}

/// Runs `$body(session)` in a transaction when `$transactions`, else without a session.
macro_rules! in_transaction {
    ($children:expr, $transactions:expr, |$session:ident| $body:expr) => {
        if $transactions {
            let client = $children.client();
            crate::__squillion_transaction!(client, |session| {
                let $session = Some(&mut session);
                $body.await
            })
        } else {
            let $session = None;
            $body.await
        }
    };
}

/// Inserts `docs` and adds each to the lists and summaries of the parents it names (a parent
/// that is not stored keeps nothing), and fills what each keeps of its own children (`own`, its
/// `KEEPS`) from the children already stored: a parent may be inserted after its children.
pub async fn insert(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    own: &[Subset],
    docs: Vec<BsonDocument>,
) -> Result<()> {
    if docs.is_empty() {
        return Ok(());
    }
    in_transaction!(children, transactions, |session| insert_body(
        children,
        (keepers, own),
        &docs,
        session
    ))
}

async fn insert_body(
    children: &Collection<BsonDocument>,
    (keepers, own): (&[Keeper], &[Subset]),
    docs: &[BsonDocument],
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    if let [one] = docs {
        crate::__squillion_in_session!(children.insert_one(one), session)
            .during("insert", children.name())?;
    } else {
        crate::__squillion_in_session!(children.insert_many(docs), session)
            .during("insert", children.name())?;
    }
    let db = database(children);
    for k in keepers {
        let parents = db.collection::<BsonDocument>(k.parents);
        for (owner, mine) in by_owner(k, docs) {
            // One write per parent, whatever the number of its new children: a parent with one
            // adds it (`$push`, `$inc`, ...); a parent with several is refilled from the
            // children's collection once (exact, and a bulk insert of thousands of children
            // stays one short transaction instead of one update per child).
            match mine.as_slice() {
                [one] => {
                    add_child(&parents, &owner, k.spec, one, session.as_deref_mut()).await?;
                }
                _ => {
                    refill_body(&parents, k.spec, &owner, session.as_deref_mut()).await?;
                }
            }
        }
    }
    for s in own {
        fill_own(children, s, docs, session.as_deref_mut()).await?;
    }
    Ok(())
}

/// What each new parent of `docs` keeps of its children (`s`): refilled from the children already
/// naming it, set to what no children give for the others (the caller's values are not kept; no
/// write when the document already holds that). One `distinct` finds the parents with children.
async fn fill_own(
    parents: &Collection<BsonDocument>,
    s: &Subset,
    docs: &[BsonDocument],
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let ids: Vec<Bson> = docs.iter().filter_map(|d| d.get("_id").cloned()).collect();
    let children = database(parents).collection::<BsonDocument>(s.children);
    let named = crate::__squillion_in_session!(
        children.distinct(s.key, doc! { s.key: { "$in": ids } }),
        session
    )
    .during("distinct", s.children)?;
    let mut childless = Vec::new();
    for d in docs {
        let Some(id) = d.get("_id") else {
            continue;
        };
        if named.contains(id) {
            refill_body(parents, s, id, session.as_deref_mut()).await?;
        } else if !is_childless(s, d) {
            childless.push(id.clone());
        }
    }
    let update = super::subsets::childless(s);
    if !childless.is_empty() && !update.is_empty() {
        crate::__squillion_in_session!(
            parents.update_many(doc! { "_id": { "$in": childless } }, update),
            session
        )
        .during("update", parents.name())?;
    }
    Ok(())
}

/// The parents the keeper's key names in `docs`, each with its children among them, in the
/// order first named.
fn by_owner<'d>(k: &Keeper, docs: &'d [BsonDocument]) -> Vec<(Bson, Vec<&'d BsonDocument>)> {
    let mut out: Vec<(Bson, Vec<&BsonDocument>)> = Vec::new();
    // Each parent's place in `out`, by its id's extended JSON (BSON values are not `Hash`).
    let mut at: HashMap<String, usize> = HashMap::new();
    for child in docs {
        for owner in owners(k, child) {
            match at.entry(describe(&owner)) {
                Entry::Occupied(e) => {
                    if let Some((_, mine)) = out.get_mut(*e.get()) {
                        mine.push(child);
                    }
                }
                Entry::Vacant(e) => {
                    e.insert(out.len());
                    out.push((owner, vec![child]));
                }
            }
        }
    }
    out
}

/// Replaces the child with `doc`'s `_id`, then refills its parents (before and after), and what
/// the document itself keeps of its own children (`own`, its `KEEPS`: the caller's values of
/// those fields are not what the children give); false if there is no such document.
pub async fn replace(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    own: &[Subset],
    doc: BsonDocument,
) -> Result<bool> {
    let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
    let filter = doc! { "_id": id.clone() };
    in_transaction!(children, transactions, |session| replace_body(
        children,
        (keepers, own),
        &filter,
        &doc,
        session
    ))
    .map(|d| d.is_some())
}

async fn replace_body(
    coll: &Collection<BsonDocument>,
    (keepers, own): (&[Keeper], &[Subset]),
    filter: &BsonDocument,
    doc: &BsonDocument,
    mut session: Option<&mut ClientSession>,
) -> Result<Option<BsonDocument>> {
    let written = change_body(
        coll,
        keepers,
        filter,
        Change::Replace(doc),
        session.as_deref_mut(),
    )
    .await?;
    if written.is_some() {
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        for s in own {
            refill_body(coll, s, &id, session.as_deref_mut()).await?;
        }
    }
    Ok(written)
}

/// Deletes child `id`, then refills its parents; false if there was no such child.
pub async fn delete(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    id: Bson,
) -> Result<bool> {
    delete_matching(children, transactions, keepers, doc! { "_id": id }).await
}

/// Deletes the child matching `filter` (its `_id` and any guard), then refills its parents;
/// false if none matched.
pub async fn delete_matching(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    filter: BsonDocument,
) -> Result<bool> {
    in_transaction!(children, transactions, |session| change_body(
        children,
        keepers,
        &filter,
        Change::Delete,
        session
    ))
    .map(|d| d.is_some())
}

/// Applies `update` to the child matching `filter` (its `_id`, and any guard), then refills its
/// parents (before and after); the child as updated, or `None` if the filter matched nothing.
/// `update` is a document of update operators or a pipeline.
pub async fn update(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    filter: BsonDocument,
    update: impl Into<UpdateModifications>,
) -> Result<Option<BsonDocument>> {
    let update = update.into();
    in_transaction!(children, transactions, |session| change_body(
        children,
        keepers,
        &filter,
        Change::Update(&update),
        session
    ))
}

/// A write of one existing child.
#[derive(Clone, Copy)]
enum Change<'a> {
    Replace(&'a BsonDocument),
    Update(&'a UpdateModifications),
    Delete,
}

/// Writes the child matching `filter`, then refills every parent it named before or names now:
/// the child as written (`Some(empty)` once deleted), or `None` if no child matched.
async fn change_body(
    children: &Collection<BsonDocument>,
    keepers: &[Keeper],
    filter: &BsonDocument,
    change: Change<'_>,
    mut session: Option<&mut ClientSession>,
) -> Result<Option<BsonDocument>> {
    let name = children.name();
    let old = crate::__squillion_in_session!(children.find_one(filter.clone()), session)
        .during("find", name)?;
    let Some(old) = old else {
        return Ok(None);
    };
    let by_id = doc! { "_id": old.get("_id").cloned().unwrap_or(Bson::Null) };
    let new = match change {
        Change::Replace(doc) => {
            let r = crate::__squillion_in_session!(children.replace_one(by_id, doc), session)
                .during("replace", name)?;
            (r.matched_count > 0).then(|| doc.clone())
        }
        Change::Update(update) => crate::__squillion_in_session!(
            children
                .find_one_and_update(by_id, update.clone())
                .return_document(ReturnDocument::After),
            session
        )
        .during("update", name)?,
        Change::Delete => {
            let r = crate::__squillion_in_session!(children.delete_one(by_id), session)
                .during("delete", name)?;
            (r.deleted_count > 0).then(BsonDocument::new)
        }
    };
    let Some(new) = new else {
        return Ok(None);
    };
    let db = database(children);
    for k in keepers {
        let parents = db.collection::<BsonDocument>(k.parents);
        let mut all = owners(k, &old);
        for o in owners(k, &new) {
            if !all.contains(&o) {
                all.push(o);
            }
        }
        for owner in all {
            // A parent that is not stored keeps nothing.
            refill_body(&parents, k.spec, &owner, session.as_deref_mut()).await?;
        }
    }
    Ok(Some(new))
}

/// Refills what each keeper keeps in every parent `child` names (a parent that is not stored keeps
/// nothing).
pub(super) async fn refill_owners(
    db: &mongodb::Database,
    keepers: &[Keeper],
    child: &BsonDocument,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    for k in keepers {
        let parents = db.collection::<BsonDocument>(k.parents);
        for owner in owners(k, child) {
            refill_body(&parents, k.spec, &owner, session.as_deref_mut()).await?;
        }
    }
    Ok(())
}

/// [`super::fields::set`] of a field a parent reads, then the parents refilled.
pub async fn set(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    id: Bson,
    path: &str,
    value: Bson,
    optional: bool,
) -> Result<()> {
    let change = super::fields::set_update(path, value, optional);
    update_by_id(children, transactions, keepers, id, change)
        .await
        .map(drop)
}

/// [`update`] of the child with this `_id`: the child as written, or not found.
async fn update_by_id(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    id: Bson,
    change: BsonDocument,
) -> Result<BsonDocument> {
    let filter = doc! { "_id": id.clone() };
    update(children, transactions, keepers, filter, change)
        .await?
        .ok_or_else(|| not_found_in(children, &id))
}

/// [`super::fields::inc`] of a field a parent reads, then the parents refilled: the new value.
pub async fn inc(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    id: Bson,
    path: &str,
    by: Bson,
) -> Result<Bson> {
    let change = doc! { "$inc": { path: by } };
    let d = update_by_id(children, transactions, keepers, id, change).await?;
    Ok(lookup(&Bson::Document(d), path)
        .cloned()
        .unwrap_or(Bson::Null))
}

/// [`super::fields::dec_guarded`] of a field a parent reads, then the parents refilled: the new
/// value, or `None` when the decrement was refused.
pub async fn dec_guarded(
    children: &Collection<BsonDocument>,
    transactions: bool,
    keepers: &[Keeper],
    id: Bson,
    path: &str,
    by: Bson,
    minimum: f64,
) -> Result<Option<Bson>> {
    let floor = super::fields::decrement_floor(minimum, &by, path)?;
    let minus = super::fields::negate(&by, path)?;
    let filter = doc! { "_id": id.clone(), path: { "$gte": floor } };
    let change = doc! { "$inc": { path: minus } };
    match update(children, transactions, keepers, filter, change).await? {
        Some(d) => Ok(Some(
            lookup(&Bson::Document(d), path)
                .cloned()
                .unwrap_or(Bson::Null),
        )),
        None => {
            let exists = children
                .count_documents(doc! { "_id": id.clone() })
                .await
                .during("count", children.name())?;
            if exists == 0 {
                Err(not_found_in(children, &id))
            } else {
                Ok(None)
            }
        }
    }
}
