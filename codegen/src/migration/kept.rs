//! The steps of what a parent keeps of its children beside its layout, added, removed or
//! changed while the layout stays: summaries (`count`, `total`, `max`, `min`; an `avg` is kept as
//! a total and a count), subsets (`latest N`) and top-N lists (`docs/migrations.md`, "Steps per
//! change kind").
//!
//! A kept field the new Plan adds or defines differently is computed from the children wherever
//! the layout keeps them (the parent's embedded array, the children's collection by their
//! reference, or by the ids in the parent's array), as the new code keeps it on write; a kept
//! field the new Plan drops is unset in contract. The Plans are compared directly: a change of a
//! list's order or kept fields is not a change of the diff's decision facts.

use std::collections::BTreeSet;

use crate::diff::PlanDiff;
use crate::model::SummaryFn;
use crate::plan::{ComputedFn, Decision, Layout, Plan, Shape};

use super::layouts::Moved;
use super::{Action, Phase, Source, Step, Unsupported};

/// Where the children a parent keeps something of live.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Children {
    /// Embedded in the parent's array (they have no `_id`).
    Embedded {
        /// The array's stored path.
        array: String,
    },
    /// In their own collection.
    Referenced {
        /// The children's collection.
        collection: String,
        /// How the parent's children are found.
        source: Source,
    },
}

/// A summary kept on the parent, as the new Plan stores it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptSummary {
    /// Its stored path in the parent.
    pub path: String,
    /// `count`, `total`, `max` or `min`.
    pub function: SummaryFn,
    /// The child's stored field it reads (none for `count`).
    pub field: Option<String>,
    /// Its BSON type in the parent's validator (`int`, `long`, `double`...).
    pub bson_type: String,
}

/// A list of copies of children kept on the parent (`latest N` or `top N`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptList {
    /// Its stored path in the parent.
    pub path: String,
    /// How many copies.
    pub n: u64,
    /// The child's stored field that orders them.
    pub sort_by: String,
    /// Stored largest first.
    pub descending: bool,
    /// `latest N` (the N largest, stored in the declared order) rather than `top N` (the N first
    /// in the declared order).
    pub latest: bool,
    /// The child's stored fields each copy holds besides its `_id`.
    pub keep: Vec<String>,
}

impl KeptList {
    /// `(sort of the children, stored order reversed)`: the copies are the first `n` children
    /// in this sort (ties by `_id`), as the runtime's refill and `$push` keep them.
    pub fn ranking(&self) -> (i32, bool) {
        match (self.latest, self.descending) {
            (true, false) => (-1, true),
            (_, true) => (-1, false),
            (false, false) => (1, false),
        }
    }
}

/// Everything a relationship keeps on the parent in one Plan.
#[derive(Debug, Default, PartialEq)]
struct Kept {
    summaries: Vec<KeptSummary>,
    lists: Vec<KeptList>,
}

impl Kept {
    fn paths(&self) -> impl Iterator<Item = &String> {
        self.summaries
            .iter()
            .map(|s| &s.path)
            .chain(self.lists.iter().map(|l| &l.path))
    }
}

/// The steps of every relationship whose kept summaries or lists changed while its layout stayed;
/// the relationships and paths handled are added to `moved` (their decision and field changes are
/// not judged again).
pub(super) fn kept(
    old: &Plan,
    new: &Plan,
    diff: &PlanDiff,
    moved: &mut Moved,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) {
    for nd in &new.relationships {
        let Some(od) = old.relationship(&nd.id) else {
            continue;
        };
        if moved.relations.contains(&nd.id)
            || od.strategy != nd.strategy
            || od.bucket != nd.bucket
            || od.outlier != nd.outlier
        {
            continue;
        }
        let (Some(before), Some(after)) = (of(old, od), of(new, nd)) else {
            continue;
        };
        if before == after {
            continue;
        }
        let (Some(parent), Some(children)) = (parent_collection(new, nd), children(new, nd)) else {
            continue;
        };
        let summaries: Vec<KeptSummary> = after
            .summaries
            .iter()
            .filter(|s| !before.summaries.contains(s))
            .cloned()
            .collect();
        let lists: Vec<KeptList> = after
            .lists
            .iter()
            .filter(|l| !before.lists.contains(l))
            .cloned()
            .collect();
        if let (Children::Embedded { .. }, Some(l)) = (&children, lists.first()) {
            // Under `embed` a top-N list is offered by the application (`offer_...`): the
            // embedded children have no `_id` for its copies to hold.
            refused.push(Unsupported::ListWithoutIds {
                relation: nd.id.clone(),
                collection: parent.clone(),
                path: l.path.clone(),
            });
        }
        let old_paths: BTreeSet<&String> = before.paths().collect();
        let new_paths: BTreeSet<&String> = after.paths().collect();
        let embedded_list = matches!(children, Children::Embedded { .. }) && !lists.is_empty();
        if !embedded_list && (!summaries.is_empty() || !lists.is_empty()) {
            // Values recomputed in place (a list's N or fields, a summary's field) match no
            // "absent" guard: every parent is walked (the step is idempotent by its values).
            let recomputed = summaries
                .iter()
                .map(|s| &s.path)
                .chain(lists.iter().map(|l| &l.path))
                .any(|p| old_paths.contains(p));
            steps.push(Step {
                phase: Phase::Move,
                action: Action::Summarise {
                    relation: nd.id.clone(),
                    parent_collection: parent.clone(),
                    children: children.clone(),
                    summaries,
                    lists,
                    recomputed,
                },
            });
        }
        for gone in old_paths.difference(&new_paths) {
            steps.push(Step {
                phase: Phase::Contract,
                action: Action::Unset {
                    collection: parent.clone(),
                    path: (*gone).clone(),
                },
            });
        }
        super::layouts::set_described_validators(old, new, diff, [&parent], steps);
        moved.relations.push(nd.id.clone());
        moved.paths.extend(
            old_paths
                .union(&new_paths)
                .map(|p| (parent.clone(), (*p).clone())),
        );
    }
}

/// What decision `d` keeps on the parent (`None`: a layout whose children this module does not
/// find, e.g. buckets or a link collection).
fn of(plan: &Plan, d: &Decision) -> Option<Kept> {
    let parent = plan.collection(&parent_collection(plan, d)?)?;
    let mut kept = Kept::default();
    for c in &d.computed {
        match &c.function {
            ComputedFn::Summary { summary } => kept.summaries.push(KeptSummary {
                path: c.path.clone(),
                function: *summary,
                field: c.field.clone(),
                bson_type: parent.field_at(&c.path)?.bson_type.clone(),
            }),
            ComputedFn::TopN {
                n,
                sort_by,
                descending,
                keep,
                ..
            } => kept.lists.push(KeptList {
                path: c.path.clone(),
                n: *n,
                sort_by: sort_by.clone(),
                descending: *descending,
                latest: false,
                keep: keep.clone(),
            }),
            ComputedFn::Average { .. } => {}
        }
    }
    if let Some(s) = &d.subset {
        kept.lists.push(KeptList {
            path: s.path.clone(),
            n: s.n,
            sort_by: s.sort_by.clone(),
            descending: s.descending,
            latest: true,
            keep: s.keep.clone(),
        });
    }
    kept.summaries.sort_by(|a, b| a.path.cmp(&b.path));
    kept.lists.sort_by(|a, b| a.path.cmp(&b.path));
    Some(kept)
}

/// The parent's own collection.
fn parent_collection(plan: &Plan, d: &Decision) -> Option<String> {
    super::layouts::entity(plan, &d.parent).map(|c| c.name.clone())
}

/// Where the layout of `d` keeps the children (one-to-many and one-to-one layouts with an
/// embedded array, a reference in each child, or the ids in the parent).
fn children(plan: &Plan, d: &Decision) -> Option<Children> {
    if matches!(d.strategy, Layout::Bucket | Layout::LinkCollection) {
        return None;
    }
    let child = super::layouts::entity(plan, &d.child);
    let top = |p: &&crate::plan::Placement| !p.path.contains('.');
    let reference = d
        .placement
        .iter()
        .filter(top)
        .find(|p| p.holder == d.child && matches!(p.shape, Shape::Id | Shape::ExtendedRef));
    if let (Some(r), Some(c)) = (reference, child) {
        let field = c.field(&r.path)?;
        let key = if field.bson_type == "object" {
            let id = field
                .children
                .iter()
                .find(|f| f.kind == crate::plan::FieldKind::Ref)?;
            format!("{}.{}", r.path, id.name)
        } else {
            r.path.clone()
        };
        return Some(Children::Referenced {
            collection: c.name.clone(),
            source: Source::ChildRef { key },
        });
    }
    let array = d
        .placement
        .iter()
        .filter(top)
        .find(|p| p.holder == d.parent)?;
    match (array.shape, child) {
        (Shape::ArrayOfIds, Some(c)) => Some(Children::Referenced {
            collection: c.name.clone(),
            source: Source::ParentIds {
                array: array.path.clone(),
            },
        }),
        (Shape::ArrayOfSubdocuments, _) => Some(Children::Embedded {
            array: array.path.clone(),
        }),
        _ => None,
    }
}
