//! Subsets (`latest N`) and top-N lists kept in a parent, beside the summaries of all its
//! children, in step with the children's own collection (issue 11, defect 6).
//!
//! Each copy carries the child's `_id`. Adding a child inserts it and pushes its copy
//! (`$push` with `$each`, `$sort`, `$slice`) with the summaries' `$inc`/`$max`/`$min`. Changing
//! or removing a child rewrites it in its collection, then refills the parent from the children's
//! collection: the N first by the order, and every summary recomputed over all the children. Both
//! run in one transaction where the deployment runs them.

use bson::{doc, Bson, Document as BsonDocument};
use futures::TryStreamExt;
use mongodb::{ClientSession, Collection, Database};

use super::arrays::{add_summaries, lookup, ComputedField, Summary};
use super::core::{describe, not_found_in as not_found};
use super::kept::{owners, Keeper};
use crate::error::Context;
use crate::{Error, Result};

/// One array of copies a parent keeps: a subset (`latest N`) or a top-N list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct List {
    /// The array in the parent.
    pub path: &'static str,
    /// The child field that orders the copies.
    pub sort_by: &'static str,
    /// Largest first.
    pub descending: bool,
    /// How many copies are kept.
    pub n: i64,
    /// `latest N` (keeps the N largest by `sort_by`, stored in the declared order) rather than
    /// `top N` (keeps the N first in the declared order).
    pub latest: bool,
    /// The child fields each copy holds besides `_id` (empty: all).
    pub keep: &'static [&'static str],
}

impl List {
    /// The copy of `child` this list keeps: its `_id`, when it has one, and kept fields. The
    /// Plan decides which children have one (`SubsetPlan::child_id`): documents of their own
    /// collection do; elements of a bucket or of an embedded array do not (unless an entity is
    /// embedded in itself), and the generated code writes their lists only through the layout's
    /// appends and pushes, so a copy holds an `_id` exactly when the Plan's copies do.
    pub fn copy(&self, child: &BsonDocument) -> BsonDocument {
        if self.keep.is_empty() {
            return child.clone();
        }
        child
            .iter()
            .filter(|(k, _)| *k == "_id" || self.keep.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// `(sort on the children's collection, stored order reversed)`: the copies the parent
    /// keeps are the first `n` children in this sort.
    pub(super) fn ranking(&self) -> (i32, bool) {
        match (self.latest, self.descending) {
            // The latest N, stored ascending: the N largest, then reversed.
            (true, false) => (-1, true),
            (_, true) => (-1, false),
            (false, false) => (1, false),
        }
    }

    /// The `$push` operand that adds `copy`, sorted and sliced to `n`.
    fn push(&self, copy: BsonDocument) -> BsonDocument {
        let (sort, slice) = match (self.latest, self.descending) {
            (true, false) => (1, -self.n),
            (_, true) => (-1, self.n),
            (false, false) => (1, self.n),
        };
        // Ties are broken by `_id`, as the refill's sort does, so both keep the same copies in
        // the same order.
        doc! { "$each": [copy], "$sort": { self.sort_by: sort, "_id": sort }, "$slice": slice }
    }
}

/// The copies a parent keeps of its children (every subset and top-N list of one relationship),
/// the summaries of all of them, and where the children live.
#[derive(Debug, Clone, Copy)]
pub struct Subset {
    /// The arrays of copies.
    pub lists: &'static [List],
    /// The children's collection.
    pub children: &'static str,
    /// Path, in each child, of its parent's `_id` (`post`, or `post.id` for an extended
    /// reference).
    pub key: &'static str,
    /// The summaries of all the children kept in the parent.
    pub computed: &'static [ComputedField],
}

impl Subset {
    /// Whether a change of the child's top-level field `field` can change what the parent keeps:
    /// its reference to the parent, a field a summary reads, or a field a list orders by or copies.
    pub fn reads(&self, field: &str) -> bool {
        let top = |p: &str| p.split('.').next() == Some(field);
        let summarised = self.computed.iter().any(|c| match c.summary {
            Summary::Count => false,
            Summary::Sum(f) | Summary::Max(f) | Summary::Min(f) => top(f),
        });
        let listed = self
            .lists
            .iter()
            .any(|l| top(l.sort_by) || l.keep.is_empty() || l.keep.iter().any(|k| top(k)));
        top(self.key) || summarised || listed
    }
}

fn wrong_parent(s: &Subset, parent: &Bson, child: &BsonDocument) -> Error {
    Error::WrongParent {
        collection: s.children.to_owned(),
        key: s.key.to_owned(),
        child: describe(&child.get("_id").cloned().unwrap_or(Bson::Null)),
        parent: describe(parent),
    }
}

/// The keepers among `others` (every parent keeping something of the child) other than `s` kept
/// in `parents`: a child belonging to several parents that keep it is kept in step in each.
fn other_keepers<'k>(
    parents: &Collection<BsonDocument>,
    s: &Subset,
    others: &'k [Keeper],
) -> impl Iterator<Item = &'k Keeper> {
    let (name, children, key) = (parents.name().to_owned(), s.children, s.key);
    others
        .iter()
        .filter(move |k| !(k.parents == name && k.spec.children == children && k.spec.key == key))
}

/// Inserts `child` into its collection and its copy into the subset of parent `id`, adding it to
/// the summaries, and to those of every other parent in `others` it names; one transaction where
/// the deployment runs them, else the child first.
pub async fn push(
    parents: &Collection<BsonDocument>,
    transactions: bool,
    id: Bson,
    s: &Subset,
    others: &[Keeper],
    child: BsonDocument,
) -> Result<()> {
    if lookup(&Bson::Document(child.clone()), s.key) != Some(&id) {
        return Err(wrong_parent(s, &id, &child));
    }
    if transactions {
        let client = parents.client();
        crate::__squillion_transaction!(client, |session| push_body(
            parents,
            &id,
            (s, others),
            &child,
            Some(&mut session)
        )
        .await)
    } else {
        push_body(parents, &id, (s, others), &child, None).await
    }
}

async fn push_body(
    parents: &Collection<BsonDocument>,
    id: &Bson,
    (s, others): (&Subset, &[Keeper]),
    child: &BsonDocument,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let db = database(parents);
    let children = db.collection::<BsonDocument>(s.children);
    let found = crate::__squillion_in_session!(
        parents.count_documents(doc! { "_id": id.clone() }),
        session
    )
    .during("count", parents.name())?;
    if found == 0 {
        return Err(not_found(parents, id));
    }
    crate::__squillion_in_session!(children.insert_one(child), session)
        .during("insert", s.children)?;
    if !add_child(parents, id, s, child, session.as_deref_mut()).await? {
        return Err(not_found(parents, id));
    }
    let db = database(parents);
    for k in other_keepers(parents, s, others) {
        let theirs = db.collection::<BsonDocument>(k.parents);
        for owner in owners(k, child) {
            // A parent that is not stored keeps nothing.
            add_child(&theirs, &owner, k.spec, child, session.as_deref_mut()).await?;
        }
    }
    Ok(())
}

/// Adds the copies of a new `child` to the lists of parent `id` (`$push` with `$each`, `$sort`,
/// `$slice`) and the child to its summaries (`$inc`, `$max`, `$min`: exact for an addition); false
/// if there is no such parent.
pub(super) async fn add_child(
    parents: &Collection<BsonDocument>,
    id: &Bson,
    s: &Subset,
    child: &BsonDocument,
    session: Option<&mut ClientSession>,
) -> Result<bool> {
    let pushes = pushes(s.lists, child);
    let mut update = BsonDocument::new();
    if !pushes.is_empty() {
        update.insert("$push", pushes);
    }
    add_summaries(&mut update, s.computed, &Bson::Document(child.clone()));
    update_parent(parents, id, update, session).await
}

/// The `$push` operand adding `child`'s copy to each of `lists`, sorted and sliced.
pub(super) fn pushes(lists: &[List], child: &BsonDocument) -> BsonDocument {
    lists
        .iter()
        .map(|l| (l.path.to_owned(), Bson::Document(l.push(l.copy(child)))))
        .collect()
}

/// Applies `update` to parent `id`; an empty update (nothing changes: a largest value of a child
/// without one) only checks that the parent exists. False if there is no such parent.
async fn update_parent(
    parents: &Collection<BsonDocument>,
    id: &Bson,
    update: BsonDocument,
    mut session: Option<&mut ClientSession>,
) -> Result<bool> {
    let filter = doc! { "_id": id.clone() };
    if update.is_empty() {
        let n = crate::__squillion_in_session!(parents.count_documents(filter), session)
            .during("count", parents.name())?;
        return Ok(n > 0);
    }
    let r = crate::__squillion_in_session!(parents.update_one(filter, update), session)
        .during("update", parents.name())?;
    Ok(r.matched_count > 0)
}

/// Replaces the child with `child`'s `_id` in its collection, then refills the subset and the
/// summaries of its parent (and of its former parent, when it moved); false if no such child.
pub async fn replace(
    parents: &Collection<BsonDocument>,
    transactions: bool,
    s: &Subset,
    others: &[Keeper],
    child: BsonDocument,
) -> Result<bool> {
    if transactions {
        let client = parents.client();
        crate::__squillion_transaction!(client, |session| change_body(
            parents,
            (s, others),
            child.get("_id").cloned().unwrap_or(Bson::Null),
            Some(&child),
            Some(&mut session)
        )
        .await)
    } else {
        let id = child.get("_id").cloned().unwrap_or(Bson::Null);
        change_body(parents, (s, others), id, Some(&child), None).await
    }
}

/// Deletes the child `child_id` from its collection, then refills the subset and the summaries of
/// its parent; false if no such child.
pub async fn remove(
    parents: &Collection<BsonDocument>,
    transactions: bool,
    s: &Subset,
    others: &[Keeper],
    child_id: Bson,
) -> Result<bool> {
    if transactions {
        let client = parents.client();
        crate::__squillion_transaction!(client, |session| change_body(
            parents,
            (s, others),
            child_id.clone(),
            None,
            Some(&mut session)
        )
        .await)
    } else {
        change_body(parents, (s, others), child_id, None, None).await
    }
}

/// Replaces (`Some`) or deletes (`None`) child `child_id`, then refills every parent it had or has
/// (of `s`, and of every other keeper in `others`).
async fn change_body(
    parents: &Collection<BsonDocument>,
    (s, others): (&Subset, &[Keeper]),
    child_id: Bson,
    child: Option<&BsonDocument>,
    mut session: Option<&mut ClientSession>,
) -> Result<bool> {
    let db = database(parents);
    let children = db.collection::<BsonDocument>(s.children);
    let filter = doc! { "_id": child_id.clone() };
    let old = crate::__squillion_in_session!(children.find_one(filter.clone()), session)
        .during("find", s.children)?;
    let Some(old) = old else {
        return Ok(false);
    };
    // Every other parent the child named before or names now, to refill after the write.
    let mut theirs: Vec<(&Keeper, Bson)> = Vec::new();
    for k in other_keepers(parents, s, others) {
        for o in owners(k, &old)
            .into_iter()
            .chain(child.map(|c| owners(k, c)).unwrap_or_default())
        {
            if !theirs.iter().any(|(x, y)| std::ptr::eq(*x, k) && *y == o) {
                theirs.push((k, o));
            }
        }
    }
    let mut owners: Vec<Bson> = Vec::new();
    if let Some(p) = lookup(&Bson::Document(old), s.key) {
        owners.push(p.clone());
    }
    match child {
        Some(new) => {
            if let Some(p) = lookup(&Bson::Document(new.clone()), s.key) {
                if !owners.contains(p) {
                    let exists = crate::__squillion_in_session!(
                        parents.count_documents(doc! { "_id": p.clone() }),
                        session
                    )
                    .during("count", parents.name())?;
                    if exists == 0 {
                        return Err(wrong_parent(s, p, new));
                    }
                    owners.push(p.clone());
                }
            }
            let r = crate::__squillion_in_session!(children.replace_one(filter, new), session)
                .during("replace", s.children)?;
            if r.matched_count == 0 {
                return Ok(false);
            }
        }
        None => {
            let r = crate::__squillion_in_session!(children.delete_one(filter), session)
                .during("delete", s.children)?;
            if r.deleted_count == 0 {
                return Ok(false);
            }
        }
    }
    // A parent that is not stored keeps nothing: the child's former parent may have been
    // deleted (the new one, when it changes, was checked before the write).
    for owner in owners {
        refill_body(parents, s, &owner, session.as_deref_mut()).await?;
    }
    let db = database(parents);
    for (k, owner) in theirs {
        // A parent that is not stored keeps nothing.
        let coll = db.collection::<BsonDocument>(k.parents);
        refill_body(&coll, k.spec, &owner, session.as_deref_mut()).await?;
    }
    Ok(true)
}

/// Sets the subset of parent `id` to the first `n` of its children in the order, and its
/// summaries to those of all its children, read from the children's collection.
pub async fn refill(
    parents: &Collection<BsonDocument>,
    transactions: bool,
    s: &Subset,
    id: Bson,
) -> Result<()> {
    if transactions {
        let client = parents.client();
        crate::__squillion_transaction!(client, |session| refill_or_not_found(
            parents,
            s,
            &id,
            Some(&mut session)
        )
        .await)
    } else {
        refill_or_not_found(parents, s, &id, None).await
    }
}

async fn refill_or_not_found(
    parents: &Collection<BsonDocument>,
    s: &Subset,
    id: &Bson,
    session: Option<&mut ClientSession>,
) -> Result<()> {
    if refill_body(parents, s, id, session).await? {
        Ok(())
    } else {
        Err(not_found(parents, id))
    }
}

/// Sets the lists and summaries of parent `id` to those of its children, read from the children's
/// collection (`$group` for the summaries: exact after any change); false if there is no such
/// parent.
pub(super) async fn refill_body(
    parents: &Collection<BsonDocument>,
    s: &Subset,
    id: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<bool> {
    let db = database(parents);
    let children = db.collection::<BsonDocument>(s.children);
    let mut set = BsonDocument::new();
    for l in s.lists {
        let copies = first(&children, s, l, id, session.as_deref_mut()).await?;
        set.insert(l.path, copies);
    }
    let totals = if s.computed.is_empty() {
        BsonDocument::new()
    } else {
        aggregates(&children, s, id, session.as_deref_mut()).await?
    };
    let update = kept_update(s, set, &totals);
    update_parent(parents, id, update, session).await
}

/// The update setting what `s` keeps to `set` (the lists) and `totals` (each summary, by path): a
/// largest or smallest of no children absent, as before the first one; a count or total of no
/// children zero, of the type stored (`$mul` by 0).
fn kept_update(s: &Subset, mut set: BsonDocument, totals: &BsonDocument) -> BsonDocument {
    let (mut unset, mut zero) = (BsonDocument::new(), BsonDocument::new());
    for c in s.computed {
        match totals.get(c.path).filter(|v| !matches!(v, Bson::Null)) {
            Some(v) => {
                set.insert(c.path, v.clone());
            }
            None if matches!(c.summary, Summary::Max(_) | Summary::Min(_)) => {
                unset.insert(c.path, "");
            }
            None => {
                zero.insert(c.path, 0_i32);
            }
        }
    }
    let mut update = BsonDocument::new();
    for (op, fields) in [("$set", set), ("$unset", unset), ("$mul", zero)] {
        if !fields.is_empty() {
            update.insert(op, fields);
        }
    }
    update
}

/// The update setting what `s` keeps to what no children give: empty lists, counts and totals 0,
/// no largest or smallest.
pub(super) fn childless(s: &Subset) -> BsonDocument {
    let mut set = BsonDocument::new();
    for l in s.lists {
        set.insert(l.path, Bson::Array(Vec::new()));
    }
    kept_update(s, set, &BsonDocument::new())
}

/// Whether parent `doc` already holds what [`childless`] sets (no write needed).
pub(super) fn is_childless(s: &Subset, doc: &BsonDocument) -> bool {
    let doc = Bson::Document(doc.clone());
    let lists = s.lists.iter().all(|l| match lookup(&doc, l.path) {
        None => true,
        Some(Bson::Array(a)) => a.is_empty(),
        Some(_) => false,
    });
    let zero = |v: &Bson| match v {
        Bson::Int32(n) => *n == 0,
        Bson::Int64(n) => *n == 0,
        Bson::Double(f) => *f == 0.0,
        Bson::Decimal128(d) => d.to_string().parse::<f64>().is_ok_and(|f| f == 0.0),
        _ => false,
    };
    lists
        && s.computed
            .iter()
            .all(|c| match (lookup(&doc, c.path), c.summary) {
                (None, _) => true,
                (Some(Bson::Null), Summary::Max(_) | Summary::Min(_)) => true,
                (Some(v), Summary::Count | Summary::Sum(_)) => zero(v),
                (Some(_), _) => false,
            })
}

/// The copies list `l` of parent `id` holds: its first `n` children in the order.
async fn first(
    children: &Collection<BsonDocument>,
    s: &Subset,
    l: &List,
    id: &Bson,
    session: Option<&mut ClientSession>,
) -> Result<Vec<Bson>> {
    let (sort, reversed) = l.ranking();
    let mut projection = doc! { "_id": 1 };
    for k in l.keep {
        projection.insert(*k, 1);
    }
    let mut find = children
        .find(doc! { s.key: id.clone() })
        .sort(doc! { l.sort_by: sort, "_id": sort })
        .limit(l.n);
    if !l.keep.is_empty() {
        find = find.projection(projection);
    }
    let mut copies: Vec<Bson> = match session {
        Some(session) => {
            let mut cursor = find
                .session(&mut *session)
                .await
                .during("find", s.children)?;
            let mut out = Vec::new();
            while let Some(d) = cursor
                .next(&mut *session)
                .await
                .transpose()
                .during("find", s.children)?
            {
                out.push(Bson::Document(d));
            }
            out
        }
        None => find
            .await
            .during("find", s.children)?
            .try_collect::<Vec<BsonDocument>>()
            .await
            .during("find", s.children)?
            .into_iter()
            .map(Bson::Document)
            .collect(),
    };
    if reversed {
        copies.reverse();
    }
    Ok(copies)
}

/// Whether the `$group` key `k` (a path with `\u{1f}` for its dots) is a total of `s`.
fn is_sum(s: &Subset, k: &str) -> bool {
    s.computed
        .iter()
        .any(|c| matches!(c.summary, Summary::Sum(_)) && c.path.replace('.', "\u{1f}") == k)
}

/// Every summary of `s` over all the children of parent `id`, recomputed by the server
/// (`$group` with `$sum`, `$max`, `$min`), keyed by the summary's path.
async fn aggregates(
    children: &Collection<BsonDocument>,
    s: &Subset,
    id: &Bson,
    session: Option<&mut ClientSession>,
) -> Result<BsonDocument> {
    let mut group = doc! { "_id": Bson::Null };
    for c in s.computed {
        let (op, value) = match c.summary {
            Summary::Count => ("$sum", Bson::Int32(1)),
            Summary::Sum(f) => ("$sum", Bson::String(format!("${f}"))),
            Summary::Max(f) => ("$max", Bson::String(format!("${f}"))),
            Summary::Min(f) => ("$min", Bson::String(format!("${f}"))),
        };
        group.insert(c.path.replace('.', "\u{1f}"), doc! { op: value });
    }
    let pipeline = vec![
        doc! { "$match": { s.key: id.clone() } },
        doc! { "$group": group },
    ];
    let aggregate = children.aggregate(pipeline);
    let first = match session {
        Some(session) => {
            let mut cursor = aggregate
                .session(&mut *session)
                .await
                .during("aggregate", s.children)?;
            cursor
                .next(&mut *session)
                .await
                .transpose()
                .during("aggregate", s.children)?
        }
        None => aggregate
            .await
            .during("aggregate", s.children)?
            .try_next()
            .await
            .during("aggregate", s.children)?,
    };
    let mut out = BsonDocument::new();
    if let Some(d) = first {
        for (k, v) in d {
            if k != "_id" {
                // `$sum` answers an `int` while the total fits one; totals are stored as longs.
                let v = match v {
                    Bson::Int32(x) if is_sum(s, &k) => Bson::Int64(i64::from(x)),
                    v => v,
                };
                out.insert(k.replace('\u{1f}', "."), v);
            }
        }
    }
    Ok(out)
}

pub(super) fn database(c: &Collection<BsonDocument>) -> Database {
    c.client().database(&c.namespace().db)
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn list(latest: bool, descending: bool) -> List {
        List {
            path: "items",
            sort_by: "at",
            descending,
            n: 3,
            latest,
            keep: &["at"],
        }
    }

    #[test]
    fn the_refill_ranks_the_children_as_the_push_keeps_them() {
        // latest, stored descending: the 3 largest, largest first.
        assert_eq!(list(true, true).ranking(), (-1, false));
        // latest, stored ascending: the 3 largest, smallest first.
        assert_eq!(list(true, false).ranking(), (-1, true));
        // top ascending: the 3 smallest; top descending: the 3 largest.
        assert_eq!(list(false, false).ranking(), (1, false));
        assert_eq!(list(false, true).ranking(), (-1, false));
        let push = |l: List| l.push(doc! { "at": 1 });
        let want = |sort: i32, slice: i64| {
            doc! { "$each": [{ "at": 1 }], "$sort": { "at": sort, "_id": sort }, "$slice": slice }
        };
        assert_eq!(push(list(true, true)), want(-1, 3));
        assert_eq!(push(list(true, false)), want(1, -3));
        assert_eq!(push(list(false, false)), want(1, 3));
        assert_eq!(push(list(false, true)), want(-1, 3));
    }

    #[test]
    fn a_copy_holds_the_child_id_and_the_kept_fields() {
        let copy = list(false, true).copy(&doc! { "_id": 7, "at": 1, "parent": 9, "other": 2 });
        assert_eq!(copy, doc! { "_id": 7, "at": 1 });
    }
}
