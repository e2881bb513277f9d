//! Keyset paging and streaming of declared queries: pages in the declared sort order, ties broken
//! by `_id`, each page starting after the previous page's last document (never `skip`).

use bson::{doc, Bson, Document};
use futures::{Stream, StreamExt, TryStreamExt};
use mongodb::options::Collation;
use mongodb::Collection;
use serde::de::DeserializeOwned;

use crate::error::Context;
use crate::{CursorPage, Error, PageCursor, Result};

/// The declared sort with `_id` appended as the tie-breaker (ascending unless declared).
pub fn keyset_sort(sort: Option<Document>) -> Document {
    let mut sort = sort.unwrap_or_default();
    if !sort.contains_key("_id") {
        sort.insert("_id", 1);
    }
    sort
}

/// `(path, ascending)` of each key of a sort document.
fn keys(sort: &Document) -> Vec<(String, bool)> {
    sort.iter()
        .map(|(k, v)| {
            let descending = matches!(v, Bson::Int32(d) if *d < 0)
                || matches!(v, Bson::Int64(d) if *d < 0)
                || matches!(v, Bson::Double(d) if *d < 0.0);
            (k.clone(), !descending)
        })
        .collect()
}

/// The value at a dotted path of a document; `Null` where there is none (as the sort sees it).
fn value_at(doc: &Document, path: &str) -> Bson {
    let mut current = doc;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        match current.get(part) {
            Some(Bson::Document(d)) if parts.peek().is_some() => current = d,
            Some(v) if parts.peek().is_none() => return v.clone(),
            _ => return Bson::Null,
        }
    }
    Bson::Null
}

/// The cursor after `doc` under `sort`.
pub fn cursor_of(doc: &Document, sort: &Document) -> PageCursor {
    let keys: Vec<String> = sort.keys().cloned().collect();
    let values = keys.iter().map(|k| value_at(doc, k)).collect();
    PageCursor { keys, values }
}

/// Documents strictly after `cursor` in `sort` order:
/// `k1 > v1 OR (k1 == v1 AND k2 > v2) OR ...` (`<` on descending keys).
///
/// A missing or null value sorts before every other; `{k: null}` matches both, `{k: {$ne:
/// null}}` is "after null" ascending, `{k: null}` is after every value descending, and nothing
/// is after null descending.
pub fn after(sort: &Document, cursor: &PageCursor) -> Result<Document> {
    let keys = keys(sort);
    let paths: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    if cursor
        .keys
        .iter()
        .map(String::as_str)
        .ne(paths.iter().copied())
        || cursor.values.len() != keys.len()
    {
        return Err(Error::InvalidCursor {
            made_for: cursor.keys.join(", "),
            expected: paths.join(", "),
        });
    }
    let mut branches: Vec<Bson> = Vec::new();
    for (i, ((path, ascending), value)) in keys.iter().zip(&cursor.values).enumerate() {
        // What follows `value` on this key: a comparison only matches values of its own type, so
        // the nulls (and missing values) after every value of a descending key are named too.
        let beyond: Vec<Bson> = match (value, ascending) {
            (Bson::Null, true) => vec![Bson::Document(doc! { "$ne": Bson::Null })],
            (Bson::Null, false) => Vec::new(),
            (v, true) => vec![Bson::Document(doc! { "$gt": v.clone() })],
            (v, false) => vec![Bson::Document(doc! { "$lt": v.clone() }), Bson::Null],
        };
        for beyond in beyond {
            let mut branch = Document::new();
            for ((p, _), v) in keys.iter().zip(&cursor.values).take(i) {
                branch.insert(p.clone(), v.clone());
            }
            branch.insert(path.clone(), beyond);
            branches.push(Bson::Document(branch));
        }
    }
    Ok(match branches.len() {
        // Nothing follows (every key descending from null): a filter no document matches.
        0 => doc! { "_id": { "$in": [] } },
        1 => match branches.pop() {
            Some(Bson::Document(d)) => d,
            _ => doc! { "$or": branches },
        },
        _ => doc! { "$or": branches },
    })
}

/// A page's filter and sort: the declared sort with `_id` last ([`keyset_sort`]), and `filter`
/// narrowed to the documents after `cursor` when given ([`after`]).
pub fn keyset(
    filter: Document,
    sort: Option<Document>,
    cursor: Option<&PageCursor>,
) -> Result<(Document, Document)> {
    let sort = keyset_sort(sort);
    let filter = match cursor {
        Some(c) => doc! { "$and": [filter, after(&sort, c)?] },
        None => filter,
    };
    Ok((filter, sort))
}

/// One page of at most `per_page` documents (at least 1) of `filter` in `sort` order, after
/// `cursor` when given. With a `projection` (a query's `returns`), only those fields are read,
/// with the sort keys the next cursor needs ([`with_sort_keys`]).
pub async fn page<T>(
    collection: &Collection<T>,
    filter: Document,
    sort: Option<Document>,
    collation: Option<Collation>,
    cursor: Option<&PageCursor>,
    per_page: u32,
    projection: Option<Document>,
) -> Result<CursorPage<T>>
where
    T: DeserializeOwned + Send + Sync,
{
    let (filter, sort) = keyset(filter, sort, cursor)?;
    let per_page = i64::from(per_page.max(1));
    let raw = collection.clone_with_type::<Document>();
    let mut find = raw.find(filter).sort(sort.clone()).limit(per_page + 1);
    if let Some(c) = collation {
        find = find.collation(c);
    }
    if let Some(p) = projection {
        find = find.projection(with_sort_keys(p, &sort));
    }
    let cursor = find.await.during("find", collection.name())?;
    let mut docs: Vec<Document> = cursor
        .try_collect()
        .await
        .during("find", collection.name())?;
    let more = docs.len() as i64 > per_page;
    docs.truncate(per_page as usize);
    let next = match docs.last() {
        Some(last) if more => Some(cursor_of(last, &sort)),
        _ => None,
    };
    let items = docs
        .into_iter()
        .map(bson::from_document)
        .collect::<std::result::Result<Vec<T>, _>>()?;
    Ok(CursorPage { items, next })
}

/// The inclusion projection `projection` with every key of `sort` a page's cursor reads (unless
/// a returned field already holds it: projecting `a` and `a.b` together is a path collision).
pub fn with_sort_keys(mut projection: Document, sort: &Document) -> Document {
    for key in sort.keys() {
        let covered = projection
            .keys()
            .any(|p| key == p || key.starts_with(&format!("{p}.")));
        if !covered {
            let inside: Vec<String> = projection
                .keys()
                .filter(|p| p.starts_with(&format!("{key}.")))
                .cloned()
                .collect();
            for p in inside {
                projection.remove(&p);
            }
            projection.insert(key.clone(), 1);
        }
    }
    projection
}

/// Every document of `filter` in `sort` order (at most `limit`), read from one server cursor as
/// the caller consumes them; only the fields of `projection` when given.
pub fn stream<T>(
    collection: Collection<T>,
    filter: Document,
    sort: Option<Document>,
    limit: Option<i64>,
    collation: Option<Collation>,
    projection: Option<Document>,
) -> impl Stream<Item = Result<T>> + Send + 'static
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let name = collection.name().to_owned();
    futures::stream::once(async move {
        let name2 = name.clone();
        super::query::find(&collection, filter, sort, limit, collation, projection)
            .await
            .during("find", &name)
            .map(move |c| c.map(move |r| r.during("find", &name2)))
    })
    .try_flatten()
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_of_other_keys_is_refused() {
        let sort = keyset_sort(Some(doc! { "price": -1 }));
        let other = cursor_of(&doc! { "title": "a", "_id": 1 }, &keyset_sort(None));
        assert!(matches!(
            after(&sort, &other),
            Err(Error::InvalidCursor { .. })
        ));
    }

    #[test]
    fn pages_project_the_sort_keys_without_path_collisions() {
        let sort = keyset_sort(Some(doc! { "author.first_name": 1, "price": -1 }));
        let p = with_sort_keys(doc! { "_id": 1, "author": 1, "title": 1 }, &sort);
        assert_eq!(p, doc! { "_id": 1, "author": 1, "title": 1, "price": 1 });
        let p = with_sort_keys(
            doc! { "_id": 1, "a.b": 1 },
            &keyset_sort(Some(doc! { "a": 1 })),
        );
        assert_eq!(p, doc! { "_id": 1, "a": 1 });
    }

    #[test]
    fn dotted_paths_and_missing_values() {
        let d = doc! { "a": { "b": 3 }, "_id": 7 };
        assert_eq!(value_at(&d, "a.b"), Bson::Int32(3));
        assert_eq!(value_at(&d, "a.c"), Bson::Null);
        assert_eq!(value_at(&d, "z"), Bson::Null);
    }
}
