//! The steps of a one-to-many relationship moved between plain documents and buckets
//! (`docs/migrations.md`, "Plain documents <-> buckets"): `child_ref` or `embed` -> `bucket` (the
//! children cut into bucket documents in the buckets' order, each filled to its size, with its
//! count, time range and summaries, as the new code's appends would have left them), and
//! `bucket` -> `child_ref` or `embed` (every item given back, in bucket order).
//!
//! What these moves cannot make correctly is refused whole ([`BucketLimit`]): buckets changed in
//! place (size, order, time range, summaries), moves through an array of ids (`parent_refs`,
//! `two_way`), summaries or lists kept on the parent beside the move, and bucket fields this
//! version cannot compute.

use serde::Serialize;

use crate::diff::{DecisionChange, PlanDiff};
use crate::model::SummaryFn;
use crate::plan::{
    BucketPlan, Collection, ComputedFn, Decision, FieldKind, Plan, PlanField, RelationKind,
};

use super::kept::{Children, KeptSummary};
use super::layouts::{check, entity, missing_fields, parent_ref, sides, unset, Planned, Sides};
use super::{Action, Check, ParentRef, Phase, Source, Step, Unsupported};

/// A relationship's bucket documents, as a Plan stores them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BucketLayout {
    /// The bucket collection.
    pub collection: String,
    /// Children per bucket.
    pub size: u64,
    /// The bucket's reference to its parent (its path in the bucket, plain or extended).
    pub parent: ParentRef,
    /// The array of children.
    pub items: String,
    /// Each item's stored fields, in the Plan's order (the element the new code pushes).
    pub fields: Vec<String>,
    /// The child's field the buckets are ordered by (`page N by f`), ties by the child's `_id`;
    /// `None`: the order the children were added in.
    pub order_by: Option<String>,
    /// The bucket document's stored fields, in the Plan's order.
    pub document: Vec<BucketValue>,
}

/// One stored field of a bucket document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BucketValue {
    /// `_id`.
    Id,
    /// The reference to the parent ([`BucketLayout::parent`]).
    Parent,
    /// The children ([`BucketLayout::items`]).
    Items,
    /// A value computed from the bucket's children: its count, a summary, or an end of its time
    /// range (the smallest and largest time).
    Summary(KeptSummary),
}

/// Why a move to or from buckets is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BucketLimit {
    /// Buckets on both sides whose size, order, time range or summaries changed.
    Rebucketed,
    /// The other layout keeps the children's ids in the parent (`parent_refs`, `two_way`) or is
    /// not one-to-many.
    OtherLayout,
    /// The parent keeps summaries or lists of the children beside the layout that moves.
    ParentKeeps,
    /// The children's `_id` is not an ObjectId (the buckets' ids are taken from them).
    ChildIds {
        /// Its BSON type.
        bson_type: String,
    },
    /// A field of the bucket documents this version cannot compute.
    Field {
        /// Its stored path.
        path: String,
    },
    /// The children's new reference copies fields of the parent.
    CopiedReference {
        /// Its stored path.
        path: String,
    },
    /// The child entity keeps a collection of its own beside the buckets.
    ChildCollectionStays {
        /// The collection.
        collection: String,
    },
}

/// The steps of one relationship moved to or from buckets; `None` when neither side is a bucket
/// (or nothing changed), and when it is refused (pushed to `refused`).
pub(super) fn relation(
    old: &Plan,
    new: &Plan,
    change: &DecisionChange,
    refused: &mut Vec<Unsupported>,
) -> Option<Planned> {
    let (o, n) = (change.old.as_ref()?, change.new.as_ref()?);
    let (from, to) = (o.layout == "bucket", n.layout == "bucket");
    if !from && !to {
        return None;
    }
    let refuse = |refused: &mut Vec<Unsupported>, why: BucketLimit| {
        refused.push(Unsupported::Buckets {
            relation: change.relation.clone(),
            old: o.layout.clone(),
            new: n.layout.clone(),
            why,
        });
        None
    };
    if from && to {
        let (od, nd) = (
            old.relationship(&change.relation)?,
            new.relationship(&change.relation)?,
        );
        let same = same_storage(od, nd);
        return if same && o.subset == n.subset && o.outlier == n.outlier {
            None
        } else if keeps_on_parent(od) || keeps_on_parent(nd) {
            // The parent's summaries or lists of the bucketed children added, changed or gone.
            refuse(refused, BucketLimit::ParentKeeps)
        } else {
            refuse(refused, BucketLimit::Rebucketed)
        };
    }
    let (od, nd) = (
        old.relationship(&change.relation)?,
        new.relationship(&change.relation)?,
    );
    let plain = if from { &n.layout } else { &o.layout };
    if od.kind != RelationKind::OneToMany
        || nd.kind != RelationKind::OneToMany
        || !["embed", "child_ref"].contains(&plain.as_str())
    {
        return refuse(refused, BucketLimit::OtherLayout);
    }
    if keeps_on_parent(od) || keeps_on_parent(nd) {
        return refuse(refused, BucketLimit::ParentKeeps);
    }
    let result = if to {
        into_buckets(old, new, od, nd)
    } else {
        out_of_buckets(old, new, od, nd)
    };
    match result {
        Ok(planned) => planned,
        Err(Refusal::Limit(why)) => refuse(refused, why),
        Err(Refusal::Other(u)) => {
            refused.push(u);
            None
        }
    }
}

/// Buckets whose storage changed without a change the diff lists as a decision (the order a
/// page is sorted by, summaries of a bucket): refused, the stored buckets would not be the new
/// code's.
pub(super) fn unlisted(old: &Plan, new: &Plan, diff: &PlanDiff, refused: &mut Vec<Unsupported>) {
    for nd in new.relationships.iter().filter(|d| d.bucket.is_some()) {
        let Some(od) = old.relationship(&nd.id).filter(|d| d.bucket.is_some()) else {
            continue;
        };
        if diff.decisions.iter().any(|d| d.relation == nd.id) || same_storage(od, nd) {
            continue;
        }
        refused.push(Unsupported::Buckets {
            relation: nd.id.clone(),
            old: "bucket".to_owned(),
            new: "bucket".to_owned(),
            why: BucketLimit::Rebucketed,
        });
    }
}

/// Whether two bucket decisions store the same buckets: the same size, collection, fields,
/// order key and summaries (the direction pages are read in aside: both store children
/// ascending).
fn same_storage(a: &Decision, b: &Decision) -> bool {
    let stored = |d: &Decision| {
        d.bucket.clone().map(|mut p| {
            p.newest_first = false;
            (
                p.collection,
                p.size,
                p.parent_path,
                p.items_path,
                p.count_path,
                p.time_range,
                p.order_by,
            )
        })
    };
    stored(a) == stored(b) && a.computed == b.computed
}

/// Why a move is refused: a limit of the bucket moves, or a field change.
enum Refusal {
    Limit(BucketLimit),
    Other(Unsupported),
}

/// Whether the parent keeps something of the children beside the layout (a subset, a summary, a
/// top-N list, an outlier's overflow) outside the bucket documents.
fn keeps_on_parent(d: &Decision) -> bool {
    let buckets = d.bucket.as_ref().map(|b| b.collection.as_str());
    d.subset.is_some()
        || d.outlier.is_some()
        || d.computed
            .iter()
            .any(|c| Some(c.collection.as_str()) != buckets)
}

/// `child_ref` or `embed` -> `bucket`.
fn into_buckets(
    old: &Plan,
    new: &Plan,
    od: &Decision,
    nd: &Decision,
) -> Result<Option<Planned>, Refusal> {
    let (Some(before), Some(plan_buckets)) = (sides(old, od), nd.bucket.as_ref()) else {
        return Ok(None);
    };
    let buckets = layout(new, nd, plan_buckets)?;
    let Some(parent) = entity(old, &od.parent) else {
        return Ok(None);
    };
    if let Some(stays) = entity(new, &nd.child) {
        return Err(Refusal::Limit(BucketLimit::ChildCollectionStays {
            collection: stays.name.clone(),
        }));
    }
    let rel = nd.id.clone();
    let mut out = Planned {
        steps: Vec::new(),
        paths: bucket_paths(new, &buckets),
        collections: vec![buckets.collection.clone()],
    };
    let element: &[PlanField] = match (&before.embedded, &before.reference, &before.ids) {
        (Some(array), None, None) => match parent.field_at(array) {
            Some(f) => &f.children,
            None => return Ok(None),
        },
        (None, Some(_), None) => match entity(old, &od.child) {
            Some(child) => &child.fields,
            None => return Ok(None),
        },
        _ => return Err(Refusal::Limit(BucketLimit::OtherLayout)),
    };
    if let Some(path) = required_without_source(new, &buckets, element) {
        return Err(Refusal::Other(Unsupported::RequiredWithoutSource {
            collection: buckets.collection.clone(),
            path,
        }));
    }
    let step = |phase, action| Step { phase, action };
    if let Some(array) = &before.embedded {
        out.paths.push((parent.name.clone(), array.clone()));
        out.steps.push(step(
            Phase::Move,
            Action::FillBuckets {
                relation: rel,
                parent_collection: parent.name.clone(),
                children: Children::Embedded {
                    array: array.clone(),
                },
                buckets,
            },
        ));
        out.steps.push(unset(&parent.name, array));
    } else if let (Some(reference), Some(child)) = (&before.reference, entity(old, &od.child)) {
        let id_type = child
            .field("_id")
            .map_or("objectId", |f| f.bson_type.as_str());
        if id_type != "objectId" {
            return Err(Refusal::Limit(BucketLimit::ChildIds {
                bson_type: id_type.to_owned(),
            }));
        }
        out.paths.push((child.name.clone(), reference.path.clone()));
        out.collections.push(child.name.clone());
        out.steps.push(check(Check::Unparented {
            relation: rel.clone(),
            parent_collection: parent.name.clone(),
            collection: child.name.clone(),
            key: reference.key(),
        }));
        out.steps.push(step(
            Phase::Move,
            Action::FillBuckets {
                relation: rel,
                parent_collection: parent.name.clone(),
                children: Children::Referenced {
                    collection: child.name.clone(),
                    source: Source::ChildRef {
                        key: reference.key(),
                    },
                },
                buckets,
            },
        ));
        out.steps.push(step(
            Phase::Contract,
            Action::DropCollection {
                collection: child.name.clone(),
            },
        ));
    }
    Ok(Some(out))
}

/// `bucket` -> `child_ref` or `embed`.
fn out_of_buckets(
    old: &Plan,
    new: &Plan,
    od: &Decision,
    nd: &Decision,
) -> Result<Option<Planned>, Refusal> {
    let (Some(after), Some(plan_buckets)) = (sides(new, nd), od.bucket.as_ref()) else {
        return Ok(None);
    };
    let buckets = layout(old, od, plan_buckets)?;
    let Some(parent) = entity(new, &nd.parent) else {
        return Ok(None);
    };
    let rel = nd.id.clone();
    let mut out = Planned {
        steps: Vec::new(),
        paths: bucket_paths(old, &buckets),
        collections: vec![buckets.collection.clone()],
    };
    let Some(items) = old
        .collection(&buckets.collection)
        .and_then(|c| c.field_at(&buckets.items))
    else {
        return Ok(None);
    };
    let step = |phase, action| Step { phase, action };
    match (&after.embedded, &after.reference, &after.ids) {
        (Some(array), None, None) => {
            let Some(element) = parent.field_at(array) else {
                return Ok(None);
            };
            let required = element.children.iter().find(|f| {
                !f.optional
                    && f.kind != FieldKind::Pattern
                    && !items.children.iter().any(|i| i.name == f.name)
            });
            if let Some(f) = required {
                return Err(Refusal::Other(Unsupported::RequiredWithoutSource {
                    collection: parent.name.clone(),
                    path: f.path.clone(),
                }));
            }
            out.paths.push((parent.name.clone(), array.clone()));
            if let Some(bound) = after.bound {
                out.steps.push(check(Check::BucketBound {
                    relation: rel.clone(),
                    parent_collection: parent.name.clone(),
                    buckets: buckets.clone(),
                    bound,
                }));
            }
            out.steps.push(check(Check::Unparented {
                relation: rel.clone(),
                parent_collection: parent.name.clone(),
                collection: buckets.collection.clone(),
                key: buckets.parent.key(),
            }));
            out.steps.push(step(
                Phase::Move,
                Action::GatherBuckets {
                    relation: rel,
                    parent_collection: parent.name.clone(),
                    buckets: buckets.clone(),
                    array: array.clone(),
                    fields: element.children.iter().map(|f| f.name.clone()).collect(),
                    bound: after.bound,
                },
            ));
        }
        (None, Some(reference), None) => {
            let Some(child) = entity(new, &nd.child) else {
                return Ok(None);
            };
            if !reference.copies.is_empty() {
                return Err(Refusal::Limit(BucketLimit::CopiedReference {
                    path: reference.path.clone(),
                }));
            }
            let sides = Sides {
                reference: Some(reference.clone()),
                ..Sides::default()
            };
            if let Some(path) = missing_fields(child, items, &sides) {
                return Err(Refusal::Other(Unsupported::RequiredWithoutSource {
                    collection: child.name.clone(),
                    path,
                }));
            }
            out.paths.push((child.name.clone(), reference.path.clone()));
            out.steps.push(step(
                Phase::Move,
                Action::SplitBuckets {
                    relation: rel,
                    buckets: buckets.clone(),
                    child_collection: child.name.clone(),
                    reference: reference.clone(),
                    version: child.schema_version,
                },
            ));
        }
        _ => return Err(Refusal::Limit(BucketLimit::OtherLayout)),
    }
    out.steps.push(step(
        Phase::Contract,
        Action::DropCollection {
            collection: buckets.collection.clone(),
        },
    ));
    Ok(Some(out))
}

/// Every top-level field of the bucket collection: the move writes or drops them all.
fn bucket_paths(plan: &Plan, b: &BucketLayout) -> Vec<(String, String)> {
    plan.collection(&b.collection)
        .map(|c| {
            c.fields
                .iter()
                .map(|f| (c.name.clone(), f.name.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// A required item field that the old children do not hold, if any.
fn required_without_source(plan: &Plan, b: &BucketLayout, element: &[PlanField]) -> Option<String> {
    let items = plan.collection(&b.collection)?.field_at(&b.items)?;
    items
        .children
        .iter()
        .find(|f| {
            !f.optional && f.kind != FieldKind::Pattern && !element.iter().any(|e| e.name == f.name)
        })
        .map(|f| f.path.clone())
}

/// The bucket documents a decision's Plan describes, each stored field mapped to what fills it;
/// a field this version cannot compute refuses the move.
fn layout(plan: &Plan, d: &Decision, b: &BucketPlan) -> Result<BucketLayout, Refusal> {
    let limit = |path: &str| {
        Refusal::Limit(BucketLimit::Field {
            path: path.to_owned(),
        })
    };
    let coll: &Collection = plan
        .collection(&b.collection)
        .ok_or_else(|| limit(&b.collection))?;
    let parent = parent_ref(plan, coll, &b.parent_path, d).ok_or_else(|| limit(&b.parent_path))?;
    let items = coll
        .field_at(&b.items_path)
        .ok_or_else(|| limit(&b.items_path))?;
    let summary = |f: &PlanField, function: SummaryFn, field: Option<String>| {
        BucketValue::Summary(KeptSummary {
            path: f.name.clone(),
            function,
            field,
            bson_type: f.bson_type.clone(),
        })
    };
    let mut document = Vec::new();
    for f in &coll.fields {
        let time = b.time_range.as_ref();
        let value = if f.name == "_id" {
            BucketValue::Id
        } else if f.name == b.parent_path {
            BucketValue::Parent
        } else if f.name == b.items_path {
            BucketValue::Items
        } else if f.name == b.count_path {
            summary(f, SummaryFn::Count, None)
        } else if let Some(t) = time.filter(|t| t.start_path == f.name) {
            summary(f, SummaryFn::Min, Some(t.field.clone()))
        } else if let Some(t) = time.filter(|t| t.end_path == f.name) {
            summary(f, SummaryFn::Max, Some(t.field.clone()))
        } else {
            let computed = d.computed.iter().find(|c| c.path == f.name);
            match computed.map(|c| (&c.function, &c.field)) {
                Some((ComputedFn::Summary { summary: s }, field))
                    if *s != SummaryFn::Avg
                        && field
                            .as_ref()
                            .is_none_or(|x| items.children.iter().any(|i| &i.name == x)) =>
                {
                    summary(f, *s, field.clone())
                }
                _ => return Err(limit(&f.path)),
            }
        };
        document.push(value);
    }
    Ok(BucketLayout {
        collection: coll.name.clone(),
        size: b.size,
        parent,
        items: b.items_path.clone(),
        fields: items.children.iter().map(|f| f.name.clone()).collect(),
        order_by: b.order_by.clone(),
        document,
    })
}
