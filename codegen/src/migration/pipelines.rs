//! The server-side work of the layout moves, as data: the guard selecting the documents a step
//! has not done, the aggregation stages run on each batch of them (`$lookup`, `$unwind`,
//! `$merge`...), and the pipeline of each check. The CLI runs them with the driver and
//! [`super::mongosh`] writes the same ones into the script, so both do the same work.
//!
//! A batched step walks `collection` in `_id` order: the next [`super::BATCH`] `_id`s matching
//! the guard, then `aggregate([{$match: {$and: [guard, {_id: {$gte: first, $lte: last}}]}},
//! ...stages])`. Every `$merge` is guarded (`keepExisting`, `discard`, or a guard that the merge
//! itself makes false), so a batch replayed after a kill changes nothing.

use serde_json::{json, Map, Value};

use super::{
    bucket_stages, Action, Check, Children, Keep, KeptList, KeptSummary, ParentRef, Source,
};
use crate::model::SummaryFn;

/// A step run as one aggregation per batch of `_id`s.
#[derive(Debug, Clone, PartialEq)]
pub struct Batched {
    /// The collection walked.
    pub collection: String,
    /// The documents the step has not done.
    pub guard: Value,
    /// The stages after the batch's `$match`.
    pub stages: Vec<Value>,
}

/// The batched form of a layout move (`SplitOut`, `Gather`, `ReferToParent`, `Summarise` and
/// the moves to and from buckets).
pub fn batched(a: &Action) -> Option<Batched> {
    match a {
        Action::FillBuckets {
            parent_collection,
            children,
            buckets,
            ..
        } => Some(bucket_stages::fill(parent_collection, children, buckets)),
        Action::SplitBuckets {
            buckets,
            child_collection,
            reference,
            version,
            ..
        } => Some(bucket_stages::split(
            buckets,
            child_collection,
            reference,
            *version,
        )),
        Action::GatherBuckets {
            parent_collection,
            buckets,
            array,
            fields,
            bound,
            ..
        } => Some(bucket_stages::gather(
            parent_collection,
            buckets,
            array,
            fields,
            *bound,
        )),
        Action::SplitOut {
            parent_collection,
            array,
            child_collection,
            reference,
            version,
            ..
        } => {
            let mut added = Map::new();
            if let Some(r) = reference {
                added.insert(r.path.clone(), reference_value(r));
            }
            if let Some(v) = version {
                added.insert("schema_version".to_owned(), json!({ "$toInt": v }));
            }
            Some(Batched {
                collection: parent_collection.clone(),
                guard: json!({ array: { "$type": "object" } }),
                stages: vec![
                    json!({ "$unwind": format!("${array}") }),
                    // Never a child without its fixed id (the server would make one per run).
                    json!({ "$match": { format!("{array}._id"): { "$exists": true } } }),
                    json!({ "$replaceWith": { "$mergeObjects": [format!("${array}"), added] } }),
                    json!({ "$merge": {
                        "into": child_collection, "on": "_id",
                        "whenMatched": "keepExisting", "whenNotMatched": "insert",
                    } }),
                ],
            })
        }
        Action::Gather {
            parent_collection,
            child_collection,
            source,
            array,
            keep,
            bound,
            ..
        } => {
            let (lookup, list) = match source {
                Source::ChildRef { key } => (
                    json!({ "$lookup": {
                        "from": child_collection, "localField": "_id", "foreignField": key,
                        "pipeline": [{ "$sort": { "_id": 1 } }], "as": "__children",
                    } }),
                    json!({ "$map": {
                        "input": "$__children", "as": "c", "in": element(keep),
                    } }),
                ),
                Source::Partners { array: key } | Source::Links { key, .. } => {
                    let partner = match source {
                        Source::Links { other, .. } => format!("$$c.{other}"),
                        _ => "$$c._id".to_owned(),
                    };
                    // A plain `$lookup` (the pipeline form is far slower on the test server),
                    // sorted by `_id`: for links, the order they were made in.
                    (
                        json!({ "$lookup": {
                            "from": child_collection, "localField": "_id", "foreignField": key,
                            "as": "__children",
                        } }),
                        json!({ "$map": {
                            "input": { "$sortArray": { "input": "$__children", "sortBy": { "_id": 1 } } },
                            "as": "c", "in": partner,
                        } }),
                    )
                }
                Source::ParentIds { array: ids } => (
                    json!({ "$lookup": {
                        "from": child_collection, "localField": ids, "foreignField": "_id",
                        "as": "__children",
                    } }),
                    // In the order of the ids (a `$lookup` does not keep it).
                    json!({ "$map": {
                        "input": { "$ifNull": [format!("${ids}"), []] }, "as": "id",
                        "in": { "$let": {
                            "vars": { "c": { "$arrayElemAt": [{ "$filter": {
                                "input": "$__children", "as": "x",
                                "cond": { "$eq": ["$$x._id", "$$id"] },
                            } }, 0] } },
                            "in": element(keep),
                        } },
                    } }),
                ),
            };
            let mut stages = vec![lookup, json!({ "$project": { array: list } })];
            if let Some(b) = bound {
                stages.push(json!({ "$match": { "$expr": {
                    "$lte": [{ "$size": format!("${array}") }, b],
                } } }));
            }
            stages.push(json!({ "$merge": {
                "into": parent_collection, "on": "_id",
                "whenMatched": "merge", "whenNotMatched": "discard",
            } }));
            Some(Batched {
                collection: parent_collection.clone(),
                guard: gather_guard(a)?,
                stages,
            })
        }
        Action::LinkPairs {
            holder_collection,
            array,
            link_collection,
            holder_key,
            other_key,
            version,
            ..
        } => {
            let mut link = Map::new();
            link.insert("_id".to_owned(), json!(0));
            link.insert(holder_key.clone(), json!("$_id"));
            link.insert(other_key.clone(), json!(format!("${array}")));
            if let Some(v) = version {
                link.insert("schema_version".to_owned(), json!({ "$literal": v }));
            }
            Some(Batched {
                collection: holder_collection.clone(),
                guard: json!({ array: { "$exists": true } }),
                stages: vec![
                    json!({ "$unwind": format!("${array}") }),
                    json!({ "$project": link }),
                    // On the pair (the link collection's unique index): a replay finds it.
                    json!({ "$merge": {
                        "into": link_collection, "on": [holder_key, other_key],
                        "whenMatched": "keepExisting", "whenNotMatched": "insert",
                    } }),
                ],
            })
        }
        Action::ReferToParent {
            parent_collection,
            array,
            child_collection,
            reference,
            ..
        } => Some(Batched {
            collection: parent_collection.clone(),
            guard: json!({ array: { "$exists": true } }),
            stages: vec![
                json!({ "$unwind": format!("${array}") }),
                json!({ "$project": {
                    "_id": format!("${array}"), reference.path.clone(): reference_value(reference),
                } }),
                json!({ "$merge": {
                    "into": child_collection, "on": "_id",
                    "whenMatched": "merge", "whenNotMatched": "discard",
                } }),
            ],
        }),
        Action::Summarise {
            parent_collection,
            children,
            summaries,
            lists,
            recomputed,
            ..
        } => Some(Batched {
            collection: parent_collection.clone(),
            guard: summarise_guard(summaries, lists, *recomputed),
            stages: summarise(parent_collection, children, summaries, lists),
        }),
        _ => None,
    }
}

/// The parents a `Summarise` has not done: those lacking a value it always writes (a count, a
/// total, a list; a largest or smallest of no children stays absent); every parent when a value
/// is recomputed in place.
fn summarise_guard(summaries: &[KeptSummary], lists: &[KeptList], recomputed: bool) -> Value {
    let always: Vec<Value> = summaries
        .iter()
        .filter(|s| matches!(s.function, SummaryFn::Count | SummaryFn::Total))
        .map(|s| &s.path)
        .chain(lists.iter().map(|l| &l.path))
        .map(|p| json!({ p: { "$exists": false } }))
        .collect();
    if recomputed || always.is_empty() {
        json!({})
    } else {
        json!({ "$or": always })
    }
}

/// The stages of a `Summarise`: the children looked up once (a plain `$lookup`: the test server
/// runs one with a `pipeline` some 20 times slower), the new values `$project`ed (each list
/// sorted by its field then `_id`, as the runtime breaks ties, `$slice`d to N, each copy the
/// child's `_id` and kept fields in the child's own field order), `$merge`d into the parents.
fn summarise(
    parent_collection: &str,
    children: &Children,
    summaries: &[KeptSummary],
    lists: &[KeptList],
) -> Vec<Value> {
    let mut stages = Vec::new();
    let all = match children {
        Children::Embedded { array } => json!({ "$ifNull": [format!("${array}"), []] }),
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
            json!("$__children")
        }
    };
    let mut values = Map::new();
    for s in summaries {
        values.insert(s.path.clone(), summary_value(s, &all));
    }
    for l in lists {
        let (sort, reversed) = l.ranking();
        let mut kept = vec![json!("_id")];
        kept.extend(l.keep.iter().map(|k| json!(k)));
        let first = json!({ "$slice": [
            { "$sortArray": { "input": all, "sortBy": { l.sort_by.clone(): sort, "_id": sort } } },
            l.n,
        ] });
        let first = if reversed {
            json!({ "$reverseArray": first })
        } else {
            first
        };
        let copy = json!({ "$arrayToObject": { "$filter": {
            "input": { "$objectToArray": "$$this" }, "as": "f",
            "cond": { "$in": ["$$f.k", kept] },
        } } });
        values.insert(
            l.path.clone(),
            json!({ "$map": { "input": first, "in": copy } }),
        );
    }
    stages.push(json!({ "$project": values }));
    stages.push(json!({ "$merge": {
        "into": parent_collection, "on": "_id",
        "whenMatched": "merge", "whenNotMatched": "discard",
    } }));
    stages
}

/// One summary of the children `all` (an array expression), of the type the new validator
/// gives it; a largest or smallest of no values is left absent (`$$REMOVE`), as the runtime
/// leaves it.
pub(super) fn summary_value(s: &KeptSummary, all: &Value) -> Value {
    let values = |f: &str| json!({ "$map": { "input": all, "in": format!("$$this.{f}") } });
    let typed = |v: Value| match s.bson_type.as_str() {
        "long" => json!({ "$toLong": v }),
        "double" => json!({ "$toDouble": v }),
        "decimal" => json!({ "$toDecimal": v }),
        _ => v,
    };
    match (s.function, &s.field) {
        (SummaryFn::Total, Some(f)) => typed(json!({ "$sum": values(f) })),
        (SummaryFn::Max, Some(f)) => json!({ "$ifNull": [{ "$max": values(f) }, "$$REMOVE"] }),
        (SummaryFn::Min, Some(f)) => json!({ "$ifNull": [{ "$min": values(f) }, "$$REMOVE"] }),
        _ => typed(json!({ "$size": all })),
    }
}

/// The parents a `Gather` has not filled: their array is absent, or still holds ids where the
/// children are to be embedded in its place.
fn gather_guard(a: &Action) -> Option<Value> {
    let Action::Gather {
        source,
        array,
        id_type,
        ..
    } = a
    else {
        return None;
    };
    Some(match source {
        Source::ParentIds { array: ids } if ids == array => json!({ array: { "$type": id_type } }),
        _ => json!({ array: { "$exists": false } }),
    })
}

/// After a `Gather` or `GatherBuckets`: the parents it left (over the bound, by children added
/// since the check), and the check that names one.
pub fn leftover(a: &Action) -> Option<(Value, Check)> {
    if let Action::GatherBuckets {
        relation,
        parent_collection,
        buckets,
        array,
        bound,
        ..
    } = a
    {
        let check = Check::BucketBound {
            relation: relation.clone(),
            parent_collection: parent_collection.clone(),
            buckets: buckets.clone(),
            bound: (*bound)?,
        };
        return Some((bucket_stages::gather_guard(array), check));
    }
    let Action::Gather {
        relation,
        parent_collection,
        child_collection,
        source,
        bound,
        ..
    } = a
    else {
        return None;
    };
    let check = Check::Bound {
        relation: relation.clone(),
        parent_collection: parent_collection.clone(),
        child_collection: child_collection.clone(),
        source: source.clone(),
        bound: (*bound)?,
    };
    Some((gather_guard(a)?, check))
}

/// The reference to the parent, computed from the parent document (`$_id` and the sources of
/// its copies).
pub(super) fn reference_value(r: &ParentRef) -> Value {
    match &r.id_name {
        None => json!("$_id"),
        Some(id) => {
            let mut ext = Map::new();
            ext.insert(id.clone(), json!("$_id"));
            for (name, source) in &r.copies {
                ext.insert(name.clone(), json!(format!("${source}")));
            }
            Value::Object(ext)
        }
    }
}

/// One element of the gathered array, from the child `$$c`.
fn element(keep: &Keep) -> Value {
    match keep {
        Keep::Ids => json!("$$c._id"),
        Keep::Embedded { fields } => Value::Object(
            fields
                .iter()
                .map(|f| (f.clone(), json!(format!("$$c.{f}"))))
                .collect(),
        ),
    }
}

/// The array of the walked documents whose elements, lacking `_id`, get one in each batch
/// before the stages run: the children about to leave it for documents of their own
/// (`SplitOut`, `SplitBuckets`, `FillBuckets` from an embedded array).
pub fn ids_array(a: &Action) -> Option<&str> {
    match a {
        Action::SplitOut { array, .. } => Some(array),
        Action::SplitBuckets { buckets, .. } => Some(&buckets.items),
        Action::FillBuckets {
            children: Children::Embedded { array },
            ..
        } => Some(array),
        _ => None,
    }
}

/// The documents of a batch with an element of `array` lacking `_id`.
pub fn missing_ids(array: &str) -> Value {
    json!({ array: { "$elemMatch": { "_id": { "$exists": false } } } })
}

/// `Rename`: the guard (documents still holding the old name) and the pipeline update moving
/// the old value to the new name where the new name is absent, then removing the old name. Unlike
/// `$rename`, it never overwrites a value written under the new name (by the new code, while the
/// migration runs: the online mode), so the application's write is not lost.
pub fn rename(from: &str, to: &str) -> (Value, Value) {
    (
        json!({ from: { "$exists": true } }),
        json!([
            { "$set": { to: { "$cond": [
                { "$eq": [{ "$type": format!("${to}") }, "missing"] },
                format!("${from}"),
                format!("${to}"),
            ] } } },
            { "$unset": from },
        ]),
    )
}

/// `KeepIds`: the guard (parents whose array still holds embedded children) and the pipeline
/// update replacing them by their ids.
pub fn keep_ids(from: &str, to: &str) -> (Value, Value) {
    let guard = if from == to {
        json!({ from: { "$type": "object" } })
    } else {
        json!({ from: { "$exists": true }, to: { "$exists": false } })
    };
    let update = json!([{ "$set": { to: { "$map": {
        "input": format!("${from}"), "in": "$$this._id",
    } } } }]);
    (guard, update)
}

/// A check's collection and pipeline: the first offender, as `{_id, n}` (`n`: the count that
/// offends, where there is one).
pub fn check(c: &Check) -> (String, Vec<Value>) {
    if let Some(bucket_check) = bucket_stages::check(c) {
        return bucket_check;
    }
    let first = |sort: Value| vec![json!({ "$sort": sort }), json!({ "$limit": 1 })];
    match c {
        Check::Bound {
            parent_collection,
            child_collection,
            source,
            bound,
            ..
        } => match source {
            Source::Partners { array } => {
                let mut p = vec![
                    json!({ "$unwind": format!("${array}") }),
                    json!({ "$group": { "_id": format!("${array}"), "n": { "$sum": 1 } } }),
                    json!({ "$match": { "n": { "$gt": bound } } }),
                ];
                p.extend(first(json!({ "n": -1, "_id": 1 })));
                (child_collection.clone(), p)
            }
            Source::ChildRef { key } | Source::Links { key, .. } => {
                let mut p = vec![
                    json!({ "$match": { key: { "$exists": true, "$ne": null } } }),
                    json!({ "$group": { "_id": format!("${key}"), "n": { "$sum": 1 } } }),
                    json!({ "$match": { "n": { "$gt": bound } } }),
                ];
                p.extend(first(json!({ "n": -1, "_id": 1 })));
                (child_collection.clone(), p)
            }
            Source::ParentIds { array } => {
                let mut p = vec![
                    json!({ "$project": { "n": { "$size": {
                        "$ifNull": [format!("${array}"), []],
                    } } } }),
                    json!({ "$match": { "n": { "$gt": bound } } }),
                ];
                p.extend(first(json!({ "n": -1, "_id": 1 })));
                (parent_collection.clone(), p)
            }
        },
        Check::Dangling {
            parent_collection,
            array,
            child_collection,
            ..
        } => {
            let mut p = vec![
                // Arrays of ids (not yet embedded in their place by a resumed run).
                json!({ "$match": { format!("{array}.0"): { "$exists": true },
                    array: { "$not": { "$type": "object" } } } }),
                json!({ "$lookup": {
                    "from": child_collection, "localField": array, "foreignField": "_id",
                    "as": "__found",
                } }),
                json!({ "$project": { "n": { "$subtract": [
                    { "$size": { "$setUnion": [format!("${array}"), []] } },
                    { "$size": "$__found" },
                ] } } }),
                json!({ "$match": { "n": { "$gt": 0 } } }),
            ];
            p.extend(first(json!({ "_id": 1 })));
            (parent_collection.clone(), p)
        }
        Check::Shared {
            parent_collection,
            array,
            ..
        } => {
            let mut p = vec![
                json!({ "$unwind": format!("${array}") }),
                json!({ "$group": { "_id": format!("${array}"), "p": { "$addToSet": "$_id" } } }),
                json!({ "$project": { "n": { "$size": "$p" } } }),
                json!({ "$match": { "n": { "$gt": 1 } } }),
            ];
            p.extend(first(json!({ "_id": 1 })));
            (parent_collection.clone(), p)
        }
        Check::Orphan {
            parent_collection,
            array,
            child_collection,
            ..
        } => {
            let mut p = vec![
                json!({ "$lookup": {
                    "from": parent_collection, "localField": "_id", "foreignField": array,
                    "as": "__parents",
                } }),
                json!({ "$match": { "__parents": { "$size": 0 } } }),
                json!({ "$project": { "_id": 1 } }),
            ];
            p.extend(first(json!({ "_id": 1 })));
            (child_collection.clone(), p)
        }
        Check::OneSided {
            collection,
            array,
            other_collection,
            other_array,
            ..
        } => {
            // A document missing lists nothing; one whose array is gone (a resumed run past
            // the contract) was checked before its array was unset.
            let back = json!({ "$cond": [
                { "$eq": [{ "$size": "$__other" }, 0] },
                [],
                { "$ifNull": [{ "$arrayElemAt": [{ "$map": {
                    "input": "$__other", "in": format!("$$this.{other_array}"),
                } }, 0] }, ["$_id"]] },
            ] });
            let mut p = vec![
                json!({ "$unwind": format!("${array}") }),
                json!({ "$lookup": {
                    "from": other_collection, "localField": array, "foreignField": "_id",
                    "as": "__other",
                } }),
                json!({ "$match": { "$expr": { "$not": [{ "$in": ["$_id", back] }] } } }),
                json!({ "$group": { "_id": "$_id", "n": { "$sum": 1 } } }),
            ];
            p.extend(first(json!({ "_id": 1 })));
            (collection.clone(), p)
        }
        Check::Unparented { collection, .. } => (collection.clone(), Vec::new()),
        Check::BucketBound { buckets, .. } => (buckets.collection.clone(), Vec::new()),
    }
}
