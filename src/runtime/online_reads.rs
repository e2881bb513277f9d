//! The declared queries of a repository in the online mode (issue 15; [`super::online`]): while
//! the background migration runs, a query's documents may be stored at the old version, under
//! old field names and with plain references where the new code reads extended ones. The query
//! methods the code generator writes for such a collection call these functions instead of
//! [`super::query`]'s and [`super::paging`]'s, so that a query finds, sorts and returns the old
//! documents as the migrated ones:
//!
//! - a query whose conditions or sort name no renamed or wrapped path runs as it would on the new
//!   version (`find` on the declared index); each document read is upgraded in memory and its
//!   copies are taken from their sources ([`RepoCore::upgrade_all`]);
//! - a query naming such a path runs as an aggregation: a first `$match` on the new paths and on
//!   the old ones ([`widen`]: a superset, served by the indexes of both names), the migration's
//!   own shaping stages ([`super::online::shape_pipeline`]: renames and wraps), then the query's
//!   own `$match`, `$sort` and `$limit` on the documents in the new shape.
//!
//! - a query whose conditions or sort name a copy beside a reference at the top level of the
//!   document (`author.name`) runs as that aggregation too, whose stages then take the copy of
//!   every document stored below the current version from its source (`$lookup` on the
//!   reference, [`fill_stages`]): such a document may not hold the copy yet, the migration's
//!   backfill gives it, so the first `$match` lets every old document through on that condition.
//!
//! A query's `returns` is applied in memory, after the copies are filled: the server's projection
//! would name fields an old document does not have yet. What a query cannot find before the
//! migration's backfill: an old document by a copy inside an array of extended references
//! (`lines[].product.name`), and a `near` condition on a renamed field (`$near` runs only in
//! `find`).

use bson::{doc, Bson, Document as BsonDocument};
use futures::{Stream, StreamExt, TryStreamExt};
use mongodb::options::Collation;
use serde::de::DeserializeOwned;

use super::copies::CopyOf;
use super::core::RepoCore;
use super::paging::{cursor_of, keyset};
use crate::error::Context;
use crate::{CursorPage, Document, PageCursor, Result};

/// The documents of `filter` in `sort` order, at most `limit`, as `T` (the document type or the
/// query's projection struct), whatever version each is stored at.
pub async fn run<D, T>(
    core: &RepoCore<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
) -> Result<Vec<T>>
where
    D: Document,
    T: DeserializeOwned,
{
    let docs = read(core, filter, sort.as_ref(), limit, collation).await?;
    decode(core, docs).await
}

/// How many documents match `filter`, whatever version each is stored at.
pub async fn count<D: Document>(
    core: &RepoCore<D>,
    filter: BsonDocument,
    collation: Option<Collation>,
) -> Result<u64> {
    if !reshapes::<D>(&filter, None) {
        return super::query::count(core.raw(), filter, collation).await;
    }
    let mut pipeline = pipeline::<D>(filter, None, None);
    pipeline.push(doc! { "$count": "n" });
    let docs = aggregate(core, pipeline, collation).await?;
    let n = docs
        .first()
        .and_then(|d| match d.get("n") {
            Some(Bson::Int32(n)) => u64::try_from(*n).ok(),
            Some(Bson::Int64(n)) => u64::try_from(*n).ok(),
            _ => None,
        })
        .unwrap_or(0);
    Ok(n)
}

/// One keyset page of `filter` in `sort` order ([`super::paging::page`]), whatever version each
/// document is stored at: the page's cursor holds the values of the new paths.
pub async fn page<D, T>(
    core: &RepoCore<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    collation: Option<Collation>,
    cursor: Option<&PageCursor>,
    per_page: u32,
) -> Result<CursorPage<T>>
where
    D: Document,
    T: DeserializeOwned,
{
    let (filter, sort) = keyset(filter, sort, cursor)?;
    let per_page = i64::from(per_page.max(1));
    let mut docs = read(core, filter, Some(&sort), Some(per_page + 1), collation).await?;
    let more = docs.len() as i64 > per_page;
    docs.truncate(usize::try_from(per_page).unwrap_or(usize::MAX));
    // The cursor holds the upgraded document's values at the new paths, the sort's own.
    let mut upgraded = core.upgrade_all(docs).await?;
    let next = match upgraded.last() {
        Some(last) if more => Some(cursor_of(last, &sort)),
        _ => None,
    };
    let items = upgraded
        .drain(..)
        .map(as_type::<D, T>)
        .collect::<Result<Vec<T>>>()?;
    Ok(CursorPage { items, next })
}

/// Every document of `filter` in `sort` order (at most `limit`) as the caller consumes them,
/// upgraded 100 at a time, whatever version each is stored at.
pub fn stream<D, T>(
    core: RepoCore<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
) -> impl Stream<Item = Result<T>> + Send + 'static
where
    D: Document + 'static,
    T: DeserializeOwned + Send + 'static,
{
    let name = core.name().to_owned();
    futures::stream::once(async move {
        let cursor = open(&core, filter, sort.as_ref(), limit, collation).await?;
        let name = name.clone();
        let chunks = cursor
            .map(move |r| r.during("find", &name))
            .try_chunks(100)
            .map_err(|e| e.1);
        Ok::<_, crate::Error>(chunks.and_then(move |docs| {
            let core = core.clone();
            async move { decode::<D, T>(&core, docs).await }
        }))
    })
    .try_flatten()
    .map_ok(|items| futures::stream::iter(items.into_iter().map(Ok::<T, crate::Error>)))
    .try_flatten()
    .boxed()
}

/// The raw documents of a read, in order.
async fn read<D: Document>(
    core: &RepoCore<D>,
    filter: BsonDocument,
    sort: Option<&BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
) -> Result<Vec<BsonDocument>> {
    let name = core.name().to_owned();
    open(core, filter, sort, limit, collation)
        .await?
        .try_collect()
        .await
        .during("find", &name)
}

/// The server cursor of a read: `find` when the read names no renamed or wrapped path, else the
/// aggregation that gives the old documents the new shape first.
async fn open<D: Document>(
    core: &RepoCore<D>,
    filter: BsonDocument,
    sort: Option<&BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
) -> Result<mongodb::Cursor<BsonDocument>> {
    if !reshapes::<D>(&filter, sort) {
        return super::query::find(core.raw(), filter, sort.cloned(), limit, collation, None)
            .await
            .during("find", core.name());
    }
    aggregation(core, pipeline::<D>(filter, sort.cloned(), limit), collation)
        .await
        .during("aggregate", core.name())
}

/// `aggregate(pipeline)` on the raw collection, with `allowDiskUse` (a `$sort` after the shaping
/// stages runs in memory) and the query's collation.
fn aggregation<D: Document>(
    core: &RepoCore<D>,
    pipeline: Vec<BsonDocument>,
    collation: Option<Collation>,
) -> mongodb::action::Aggregate<'_> {
    let aggregate = core.raw().aggregate(pipeline).allow_disk_use(true);
    match collation {
        Some(c) => aggregate.collation(c),
        None => aggregate,
    }
}

async fn aggregate<D: Document>(
    core: &RepoCore<D>,
    pipeline: Vec<BsonDocument>,
    collation: Option<Collation>,
) -> Result<Vec<BsonDocument>> {
    aggregation(core, pipeline, collation)
        .await
        .during("aggregate", core.name())?
        .try_collect()
        .await
        .during("aggregate", core.name())
}

/// Raw documents as `T`: upgraded, their copies filled, then read as `T`.
async fn decode<D: Document, T: DeserializeOwned>(
    core: &RepoCore<D>,
    docs: Vec<BsonDocument>,
) -> Result<Vec<T>> {
    core.upgrade_all(docs)
        .await?
        .into_iter()
        .map(as_type::<D, T>)
        .collect()
}

/// An upgraded document as `T`, after the version check of a document that was not upgraded.
fn as_type<D: Document, T: DeserializeOwned>(doc: BsonDocument) -> Result<T> {
    super::checked_reads::checked::<D, T>(doc)
}

/// `[{$match: widened}, shaping stages..., copies of old documents from their sources...,
/// {$match: filter}, {$sort}, {$limit}]`.
fn pipeline<D: Document>(
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
) -> Vec<BsonDocument> {
    let unfilled = unfilled::<D>(&filter, sort.as_ref());
    let mut stages = vec![doc! { "$match": widen::<D>(&filter) }];
    stages.extend(super::online::shape_pipeline::<D>());
    stages.extend(fill_stages::<D>(&unfilled));
    if !filter.is_empty() {
        stages.push(doc! { "$match": filter });
    }
    if let Some(s) = sort {
        stages.push(doc! { "$sort": s });
    }
    if let Some(l) = limit {
        stages.push(doc! { "$limit": l });
    }
    stages
}

/// The paths an old document may hold a new path's value under: the new path itself, then the
/// old names of each rename and the plain reference of each wrap (`author.id` was `author`), of
/// every upgrade `D` reads, followed through chains of renames.
pub fn old_paths<D: Document>(path: &str) -> Vec<String> {
    let mut found = vec![path.to_owned()];
    let mut i = 0;
    while i < found.len() {
        let here = found[i].clone();
        for u in D::UPGRADES {
            for (from, to) in u.renames {
                if let Some(old) = moved(&here, to, from) {
                    if !found.contains(&old) {
                        found.push(old);
                    }
                }
            }
            for (wrapped, id) in u.wraps {
                if here == format!("{wrapped}.{id}") && !found.iter().any(|f| f == wrapped) {
                    found.push((*wrapped).to_owned());
                }
            }
        }
        i += 1;
    }
    found
}

/// `path` with its prefix `to` replaced by `from` (`None` when `path` is not at or under `to`).
fn moved(path: &str, to: &str, from: &str) -> Option<String> {
    if path == to {
        return Some(from.to_owned());
    }
    path.strip_prefix(to)
        .and_then(|rest| rest.strip_prefix('.'))
        .map(|rest| format!("{from}.{rest}"))
}

/// Whether a read of `filter` in `sort` order names a path an old document holds elsewhere, or a
/// copy it may not hold yet.
fn reshapes<D: Document>(filter: &BsonDocument, sort: Option<&BsonDocument>) -> bool {
    if !super::online::upgrades::<D>() || names(filter, "$near") {
        return false;
    }
    let moved = |path: &str| old_paths::<D>(path).len() > 1;
    paths(filter).iter().any(|p| moved(p))
        || sort.is_some_and(|s| s.keys().any(|k| moved(k)))
        || !unfilled::<D>(filter, sort).is_empty()
}

/// The copy at `path` (or holding it) that an old document may not hold yet: a copy beside a
/// reference outside any array (`author.name`), which the migration's backfill fills.
fn unfilled_copy<D: Document>(path: &str) -> Option<&'static CopyOf> {
    if !super::online::upgrades::<D>() {
        return None;
    }
    D::COPIES
        .iter()
        .find(|c| !c.copy.contains("[]") && moved(path, c.copy, c.copy).is_some())
}

/// The copies a read of `filter` in `sort` order names that an old document may not hold yet
/// ([`unfilled_copy`]), each once.
fn unfilled<D: Document>(
    filter: &BsonDocument,
    sort: Option<&BsonDocument>,
) -> Vec<&'static CopyOf> {
    let mut named = paths(filter);
    named.extend(sort.into_iter().flat_map(|s| s.keys().cloned()));
    let mut out: Vec<&'static CopyOf> = Vec::new();
    for c in named.iter().filter_map(|p| unfilled_copy::<D>(p)) {
        if !out.iter().any(|o| std::ptr::eq(*o, c)) {
            out.push(c);
        }
    }
    out
}

/// The stages that give each document stored below the current version the `copies` its
/// sources hold now, as the backfill will: one `$lookup` per reference (on the source's `_id`),
/// then each copy `$set` from the source found (documents at the current version keep theirs),
/// then the looked-up sources removed.
fn fill_stages<D: Document>(copies: &[&CopyOf]) -> Vec<BsonDocument> {
    let Some(old) = super::online::is_below_current::<D>() else {
        return Vec::new();
    };
    let mut stages = Vec::new();
    let mut looked: Vec<(&str, &str, String)> = Vec::new();
    for c in copies {
        let at = match looked
            .iter()
            .find(|(from, by, _)| *from == c.from && *by == c.by)
        {
            Some((_, _, at)) => at.clone(),
            None => {
                let at = format!("__squillion_source_{}", looked.len());
                stages.push(doc! { "$lookup": {
                    "from": c.from,
                    "localField": c.by,
                    "foreignField": "_id",
                    "as": at.clone(),
                } });
                looked.push((c.from, c.by, at.clone()));
                at
            }
        };
        // The first source found, then its field (`$$s.name`): a path through the array of
        // sources (`$at.name`) is an array of values in MongoDB, which not every server gives.
        let source = doc! { "$let": {
            "vars": { "s": { "$arrayElemAt": [format!("${at}"), 0] } },
            "in": format!("$$s.{}", c.source),
        } };
        stages.push(doc! { "$set": { c.copy: { "$cond": [
            old.clone(),
            source,
            format!("${}", c.copy),
        ] } } });
    }
    if !looked.is_empty() {
        let temporary: Vec<Bson> = looked
            .into_iter()
            .map(|(_, _, at)| Bson::String(at))
            .collect();
        stages.push(doc! { "$unset": temporary });
    }
    stages
}

/// The field paths a filter's conditions name, through `$and`, `$or` and `$nor`.
fn paths(filter: &BsonDocument) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in filter {
        if let ("$and" | "$or" | "$nor", Bson::Array(branches)) = (k.as_str(), v) {
            for b in branches {
                if let Bson::Document(b) = b {
                    out.extend(paths(b));
                }
            }
        } else if !k.starts_with('$') {
            out.push(k.clone());
        }
    }
    out
}

/// Whether `operator` appears anywhere in `doc`.
fn names(doc: &BsonDocument, operator: &str) -> bool {
    doc.iter().any(|(k, v)| {
        k == operator
            || match v {
                Bson::Document(d) => names(d, operator),
                Bson::Array(a) => a
                    .iter()
                    .any(|b| matches!(b, Bson::Document(d) if names(d, operator))),
                _ => false,
            }
    })
}

/// A filter every document matching `filter` matches, whatever version it is stored at: each
/// condition on a path an old document holds elsewhere ([`old_paths`]) becomes an `$or` of the
/// same condition on each of those paths; `$and` and `$or` are widened branch by branch; a `$nor`
/// is dropped (widening under a negation would narrow); a condition on a copy an old document may
/// not hold yet also lets every old document through. The exact filter runs after the shaping.
pub fn widen<D: Document>(filter: &BsonDocument) -> BsonDocument {
    let mut all: Vec<Bson> = Vec::new();
    for (k, v) in filter {
        match (k.as_str(), v) {
            ("$and" | "$or", Bson::Array(branches)) => {
                let widened: Vec<Bson> = branches
                    .iter()
                    .map(|b| match b {
                        Bson::Document(d) => Bson::Document(widen::<D>(d)),
                        other => other.clone(),
                    })
                    .collect();
                all.push(Bson::Document(doc! { k.clone(): widened }));
            }
            ("$nor", _) => {}
            _ if k.starts_with('$') => all.push(Bson::Document(doc! { k.clone(): v.clone() })),
            _ => {
                let mut alternatives: Vec<Bson> = old_paths::<D>(k)
                    .into_iter()
                    .map(|p| Bson::Document(doc! { p: v.clone() }))
                    .collect();
                // An old document may not hold the copy yet: it is read, and its copy taken
                // from the source, before the exact condition runs.
                if unfilled_copy::<D>(k).is_some() {
                    if let Some(old) = super::online::stored_below_current::<D>() {
                        alternatives.push(Bson::Document(old));
                    }
                }
                all.push(match <[Bson; 1]>::try_from(alternatives) {
                    Ok([one]) => one,
                    Err(many) => Bson::Document(doc! { "$or": many }),
                });
            }
        }
    }
    match <[Bson; 1]>::try_from(all) {
        Ok([Bson::Document(one)]) => one,
        Ok([other]) => doc! { "$and": [other] },
        Err(all) if all.is_empty() => BsonDocument::new(),
        Err(all) => doc! { "$and": all },
    }
}
