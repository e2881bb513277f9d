//! Helpers for the query methods the code generator writes (one per declared query).

use bson::{doc, Document, Regex};
use futures::TryStreamExt;
use mongodb::options::{Collation, CollationStrength};
use mongodb::Collection;
use serde::de::DeserializeOwned;

use crate::error::Context;
use crate::Result;

/// `{$regex: "^<escaped prefix>"}`: a prefix match an ascending index on the field serves.
pub fn prefix(value: &str) -> Document {
    let mut pattern = String::with_capacity(value.len() + 1);
    pattern.push('^');
    for c in value.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    doc! { "$regex": Regex { pattern, options: String::new() } }
}

/// A case-insensitive prefix match under a strength-2 collation: the range from the prefix to
/// the prefix followed by U+FFFF, which sorts after every character in collation order.
pub fn prefix_ignore_case(value: &str) -> Document {
    doc! { "$gte": value, "$lt": format!("{value}\u{FFFF}") }
}

/// `{$near: {$geometry: point, $maxDistance: meters}}`: points nearest first, up to `max_meters`
/// away (served by a `2dsphere` key).
pub fn near(point: &crate::GeoPoint, max_meters: f64) -> Document {
    doc! { "$near": { "$geometry": point.to_document(), "$maxDistance": max_meters } }
}

/// What [`count`] sends for a `near` condition: `{$geoWithin: {$centerSphere: ...}}`, the points
/// at most `max_meters` from `point`. `countDocuments` runs its filter in an aggregation's
/// `$match`, where `$near` is refused; the points are the same, without the order.
pub fn near_count(point: &crate::GeoPoint, max_meters: f64) -> Document {
    within(&crate::GeoShape::Circle {
        center: *point,
        radius_meters: max_meters,
    })
}

/// `{$geoWithin: shape}`: points inside `shape`.
pub fn within(shape: &crate::GeoShape) -> Document {
    doc! { "$geoWithin": shape.to_document() }
}

/// The collation of case-insensitive indexes (strength 2).
pub fn case_insensitive(locale: &str) -> Collation {
    Collation::builder()
        .locale(locale.to_owned())
        .strength(CollationStrength::Secondary)
        .build()
}

/// The `find` of `filter` with an optional sort, limit, collation and projection.
pub(crate) fn find<T: Send + Sync>(
    collection: &Collection<T>,
    filter: Document,
    sort: Option<Document>,
    limit: Option<i64>,
    collation: Option<Collation>,
    projection: Option<Document>,
) -> mongodb::action::Find<'_, T> {
    let mut find = collection.find(filter);
    if let Some(p) = projection {
        find = find.projection(p);
    }
    if let Some(s) = sort {
        find = find.sort(s);
    }
    if let Some(l) = limit {
        find = find.limit(l);
    }
    if let Some(c) = collation {
        find = find.collation(c);
    }
    find
}

/// Runs `filter` with an optional sort, limit, collation and projection (a query's `returns`,
/// read as `T`, the query's projection struct), and collects the documents.
pub async fn run<T>(
    collection: &Collection<T>,
    filter: Document,
    sort: Option<Document>,
    limit: Option<i64>,
    collation: Option<Collation>,
    projection: Option<Document>,
) -> Result<Vec<T>>
where
    T: DeserializeOwned + Send + Sync,
{
    let cursor = find(collection, filter, sort, limit, collation, projection)
        .await
        .during("find", collection.name())?;
    cursor.try_collect().await.during("find", collection.name())
}

/// How many documents match `filter` (`countDocuments`, with the collation of a case-insensitive
/// query): what a query method's `count_<query>` returns.
pub async fn count<T: Send + Sync>(
    collection: &Collection<T>,
    filter: Document,
    collation: Option<Collation>,
) -> Result<u64> {
    let mut count = collection.count_documents(filter);
    if let Some(c) = collation {
        count = count.collation(c);
    }
    count.await.during("count", collection.name())
}

/// The pipeline stages that turn the documents `parent` selects into the elements of their
/// `array` that pass `filter`: `[{$match: parent}, {$unwind: "$array"}, {$replaceRoot:
/// {newRoot: "$array"}}, {$match: filter}]` (no last `$match` for an empty filter).
fn elements(parent: Document, array: &str, filter: Document) -> Vec<Document> {
    let elements = format!("${array}");
    let mut pipeline = vec![
        doc! { "$match": parent },
        doc! { "$unwind": elements.clone() },
        doc! { "$replaceRoot": { "newRoot": elements } },
    ];
    if !filter.is_empty() {
        pipeline.push(doc! { "$match": filter });
    }
    pipeline
}

/// How many of one parent's children, held as the elements of `array` in the documents `parent`
/// selects, pass `filter`: [`children`]'s pipeline up to its `$match`, then `{$count: "n"}`.
pub async fn count_children<D: Send + Sync>(
    collection: &Collection<D>,
    parent: Document,
    array: &str,
    filter: Document,
    collation: Option<Collation>,
) -> Result<u64> {
    let mut pipeline = elements(parent, array, filter);
    pipeline.push(doc! { "$count": "n" });
    let mut aggregate = collection.aggregate(pipeline);
    if let Some(c) = collation {
        aggregate = aggregate.collation(c);
    }
    let mut cursor = aggregate.await.during("aggregate", collection.name())?;
    // No matching child: `$count` outputs no document at all.
    let Some(counted) = cursor
        .try_next()
        .await
        .during("aggregate", collection.name())?
    else {
        return Ok(0);
    };
    #[derive(serde::Deserialize)]
    struct Counted {
        n: u64,
    }
    let counted: Counted = bson::from_document(counted)?;
    Ok(counted.n)
}

/// One parent's children, held as the elements of `array` in the documents `parent` selects
/// (the parent's own document, or its buckets): each element that passes `filter` (paths
/// relative to the element), in `sort` order, at most `limit`.
/// `[{$match: parent}, {$unwind: "$array"}, {$replaceRoot: {newRoot: "$array"}}, {$match:
/// filter}, {$sort}, {$limit}]`; `parent` is served by `_id` or the bucket's parent index.
pub async fn children<T, D>(
    collection: &Collection<D>,
    parent: Document,
    array: &str,
    filter: Document,
    sort: Option<Document>,
    limit: Option<i64>,
    collation: Option<Collation>,
) -> Result<Vec<T>>
where
    T: DeserializeOwned,
    D: Send + Sync,
{
    let mut pipeline = elements(parent, array, filter);
    if let Some(s) = sort {
        pipeline.push(doc! { "$sort": s });
    }
    if let Some(l) = limit {
        pipeline.push(doc! { "$limit": l });
    }
    let mut aggregate = collection.aggregate(pipeline);
    if let Some(c) = collation {
        aggregate = aggregate.collation(c);
    }
    let cursor = aggregate.await.during("aggregate", collection.name())?;
    let docs: Vec<Document> = cursor
        .try_collect()
        .await
        .during("aggregate", collection.name())?;
    docs.into_iter()
        .map(|d| bson::from_document(d).map_err(crate::Error::from))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_escape_regex_syntax() {
        let d = prefix("a.b*(c)");
        match d.get("$regex") {
            Some(bson::Bson::RegularExpression(r)) => assert_eq!(r.pattern, "^a\\.b\\*\\(c\\)"),
            other => panic!("not a regex: {other:?}"),
        }
    }
}
