//! The server-side work of the moves to and from buckets, as data (run by the CLI, written into
//! the mongosh script by [`super::mongosh`]): the guard and stages of each batched step, and the
//! pipeline of each check.
//!
//! Into buckets, per batch of parents: the children (the parent's array, or one plain `$lookup`
//! by their reference) sorted in the buckets' order (`page N by f`: `f` then `_id`; else the
//! order they were added in: the array's, or `_id`), cut with `$range` and `$slice` into buckets
//! of the size, each bucket's `_id` the k-th smallest of its parent's children's ids (fixed, and
//! older than any bucket the new code makes, so the buckets keep their order), its count, time
//! range and summaries computed from its items, `$merge`d with `keepExisting`.

use serde_json::{json, Map, Value};

use super::kept::Children;
use super::pipelines::{reference_value, summary_value, Batched};
use super::{BucketLayout, BucketValue, Check, ParentRef, Source};

/// `FillBuckets`: walks the parents.
pub(super) fn fill(parent_collection: &str, children: &Children, b: &BucketLayout) -> Batched {
    let mut stages = Vec::new();
    let (all, guard) = match children {
        Children::Embedded { array } => {
            // Every child given its id (in the batch, before these stages run): never a bucket
            // under an id that a replay would make differently.
            stages.push(json!({ "$match": {
                array: { "$not": { "$elemMatch": { "_id": { "$exists": false } } } },
            } }));
            // Parents with children.
            (
                json!(format!("${array}")),
                json!({ format!("{array}.0"): { "$exists": true } }),
            )
        }
        Children::Referenced { collection, source } => {
            let (local, foreign) = match source {
                Source::ChildRef { key }
                | Source::Partners { array: key }
                | Source::Links { key, .. } => ("_id".to_owned(), key.clone()),
                Source::ParentIds { array } => (array.clone(), "_id".to_owned()),
            };
            stages.push(json!({ "$lookup": {
                "from": collection, "localField": local, "foreignField": foreign,
                "as": "__children",
            } }));
            stages.push(json!({ "$match": { "__children.0": { "$exists": true } } }));
            (json!("$__children"), json!({}))
        }
    };
    let sorted = match (&b.order_by, children) {
        (Some(f), _) => json!({ "$sortArray": { "input": all, "sortBy": { f: 1, "_id": 1 } } }),
        (None, Children::Referenced { .. }) => {
            json!({ "$sortArray": { "input": all, "sortBy": { "_id": 1 } } })
        }
        (None, Children::Embedded { .. }) => all.clone(),
    };
    stages.push(json!({ "$project": {
        "__sorted": sorted,
        "__ids": { "$sortArray": {
            "input": { "$map": { "input": all, "in": "$$this._id" } }, "sortBy": 1,
        } },
        "__parent": reference_value(&b.parent),
    } }));
    let size = b.size;
    let mut document = Map::new();
    for v in &b.document {
        let (name, value) = match v {
            BucketValue::Id => (
                "_id".to_owned(),
                json!({ "$arrayElemAt": ["$__ids", "$$k"] }),
            ),
            BucketValue::Parent => (b.parent.path.clone(), json!("$__parent")),
            BucketValue::Items => (b.items.clone(), json!("$$items")),
            BucketValue::Summary(s) => (s.path.clone(), summary_value(s, &json!("$$items"))),
        };
        document.insert(name, value);
    }
    let items = json!({ "$map": {
        "input": { "$slice": ["$__sorted", { "$multiply": ["$$k", size] }, size] },
        "as": "c",
        "in": element(&b.fields),
    } });
    stages.push(json!({ "$project": { "__buckets": { "$map": {
        "input": { "$range": [0, { "$toInt": { "$ceil": {
            "$divide": [{ "$size": "$__sorted" }, size],
        } } }] },
        "as": "k",
        "in": { "$let": { "vars": { "items": items }, "in": document } },
    } } } }));
    stages.push(json!({ "$unwind": "$__buckets" }));
    stages.push(json!({ "$replaceWith": "$__buckets" }));
    stages.push(json!({ "$merge": {
        "into": b.collection, "on": "_id",
        "whenMatched": "keepExisting", "whenNotMatched": "insert",
    } }));
    Batched {
        collection: parent_collection.to_owned(),
        guard,
        stages,
    }
}

/// `SplitBuckets`: walks the buckets; each item (its id given) becomes a child referring to the
/// bucket's parent.
pub(super) fn split(
    b: &BucketLayout,
    child_collection: &str,
    reference: &ParentRef,
    version: Option<u32>,
) -> Batched {
    let items = &b.items;
    let mut added = Map::new();
    added.insert(
        reference.path.clone(),
        json!(format!("${}", b.parent.key())),
    );
    if let Some(v) = version {
        added.insert("schema_version".to_owned(), json!({ "$toInt": v }));
    }
    Batched {
        collection: b.collection.clone(),
        guard: json!({ items: { "$type": "object" } }),
        stages: vec![
            json!({ "$unwind": format!("${items}") }),
            // Never a child without its fixed id (the server would make one per run).
            json!({ "$match": { format!("{items}._id"): { "$exists": true } } }),
            json!({ "$replaceWith": { "$mergeObjects": [format!("${items}"), added] } }),
            json!({ "$merge": {
                "into": child_collection, "on": "_id",
                "whenMatched": "keepExisting", "whenNotMatched": "insert",
            } }),
        ],
    }
}

/// The parents a `GatherBuckets` has not filled: their array is absent.
pub(super) fn gather_guard(array: &str) -> Value {
    json!({ array: { "$exists": false } })
}

/// `GatherBuckets`: walks the parents; their buckets looked up once, the items concatenated in
/// the order they were added (buckets by `_id`, their creation order: a time range's start
/// orders reads, not appends), parents within the bound `$merge`d.
pub(super) fn gather(
    parent_collection: &str,
    b: &BucketLayout,
    array: &str,
    fields: &[String],
    bound: Option<u64>,
) -> Batched {
    let concatenated = json!({ "$reduce": {
        "input": { "$sortArray": { "input": "$__buckets", "sortBy": { "_id": 1 } } },
        "initialValue": [],
        "in": { "$concatArrays": ["$$value", { "$ifNull": [format!("$$this.{}", b.items), []] }] },
    } });
    let mut stages = vec![
        json!({ "$lookup": {
            "from": b.collection, "localField": "_id", "foreignField": b.parent.key(),
            "as": "__buckets",
        } }),
        json!({ "$project": { array: { "$map": {
            "input": concatenated, "as": "c", "in": element(fields),
        } } } }),
    ];
    if let Some(n) = bound {
        stages.push(json!({ "$match": { "$expr": {
            "$lte": [{ "$size": format!("${array}") }, n],
        } } }));
    }
    stages.push(json!({ "$merge": {
        "into": parent_collection, "on": "_id",
        "whenMatched": "merge", "whenNotMatched": "discard",
    } }));
    Batched {
        collection: parent_collection.to_owned(),
        guard: gather_guard(array),
        stages,
    }
}

/// One item as the new layout stores it, from the child `$$c`: its fields in the Plan's order.
fn element(fields: &[String]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|f| (f.clone(), json!(format!("$$c.{f}"))))
            .collect(),
    )
}

/// The pipelines of the bucket checks (the first offender, `{_id, n}`), on the collection named.
pub(super) fn check(c: &Check) -> Option<(String, Vec<Value>)> {
    let first = |sort: Value| vec![json!({ "$sort": sort }), json!({ "$limit": 1 })];
    match c {
        Check::Unparented {
            parent_collection,
            collection,
            key,
            ..
        } => {
            let mut p = vec![
                json!({ "$lookup": {
                    "from": parent_collection, "localField": key, "foreignField": "_id",
                    "as": "__parent",
                } }),
                json!({ "$match": { "__parent": { "$size": 0 } } }),
                json!({ "$project": { "_id": 1 } }),
            ];
            p.extend(first(json!({ "_id": 1 })));
            Some((collection.clone(), p))
        }
        Check::BucketBound { buckets, bound, .. } => {
            let mut p = vec![
                json!({ "$group": {
                    "_id": format!("${}", buckets.parent.key()),
                    "n": { "$sum": { "$size": { "$ifNull": [format!("${}", buckets.items), []] } } },
                } }),
                json!({ "$match": { "n": { "$gt": bound } } }),
            ];
            p.extend(first(json!({ "n": -1, "_id": 1 })));
            Some((buckets.collection.clone(), p))
        }
        _ => None,
    }
}
