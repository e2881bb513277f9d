//! The steps of a relationship whose layout changed between `embed`, `child_ref`, `parent_refs`
//! and `two_way` (one-to-many, the children's ids or the children themselves in one array of
//! the parent, or a reference in each child): what each side of the old layout holds, what the
//! new one needs, and the moves from one to the other (`docs/migrations.md`, "Steps per change
//! kind").
//!
//! Each layout is read from the Plan's placements: an array of embedded children in the parent
//! (`embed`), an array of ids in the parent (`parent_refs`, `two_way`), a reference in each child
//! (`child_ref`, `two_way`). Other shapes (a one-to-one's subdocument, arrays of extended
//! references, buckets, links) are left to the caller to refuse.

use crate::diff::{DecisionChange, PlanDiff};
use crate::plan::{Collection, CollectionRole, Decision, FieldKind, Plan, RelationKind, Shape};

use super::{Action, Check, Keep, ParentRef, Phase, Source, Step, Unsupported};

/// Where one layout keeps a relationship.
#[derive(Debug, Default)]
pub(super) struct Sides {
    /// The parent's array of embedded children.
    pub embedded: Option<String>,
    /// The parent's array of ids.
    pub ids: Option<String>,
    /// The reference in each child.
    pub reference: Option<ParentRef>,
    /// The new array's bound (the array of the parent, embedded or of ids).
    pub bound: Option<u64>,
}

/// A relationship whose layout change this module migrates: the steps it makes and the stored
/// paths it handles (their field changes are not judged again).
#[derive(Debug, Default)]
pub(super) struct Moved {
    /// The relationships moved.
    pub relations: Vec<String>,
    /// `(collection, path)`: the relationship's fields on either side, on either Plan.
    pub paths: Vec<(String, String)>,
    /// The collections the moves create or drop (their entity's collection change is made).
    pub collections: Vec<String>,
}

impl Moved {
    /// Whether a stored field is one a move handles (at or under a handled path).
    pub fn handles(&self, collection: &str, path: &str) -> bool {
        self.paths
            .iter()
            .any(|(c, p)| c == collection && (path == p || path.starts_with(&format!("{p}."))))
    }
}

/// The steps of every layout change among the four layouts; the decisions it cannot move are
/// left for the caller to refuse (not in `Moved::relations`).
pub(super) fn moves(
    old: &Plan,
    new: &Plan,
    diff: &PlanDiff,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) -> Moved {
    let mut moved = Moved::default();
    for d in &diff.decisions {
        let planned = relation(old, new, d, refused)
            .or_else(|| super::buckets::relation(old, new, d, refused))
            .or_else(|| super::links::relation(old, new, d, refused));
        if let Some(s) = planned {
            let collections: std::collections::BTreeSet<&String> =
                s.paths.iter().map(|(c, _)| c).collect();
            set_described_validators(old, new, diff, collections, steps);
            moved.relations.push(d.relation.clone());
            moved.paths.extend(s.paths);
            moved.collections.extend(s.collections);
            steps.extend(s.steps);
        }
    }
    moved
}

/// A validator whose rules stay and whose words change (the layout or the list named in a
/// field's description) is not a change the diff lists: it is set all the same in contract, so
/// the server holds the new Plan's validator.
pub(super) fn set_described_validators<'a>(
    old: &Plan,
    new: &Plan,
    diff: &PlanDiff,
    collections: impl IntoIterator<Item = &'a String>,
    steps: &mut Vec<Step>,
) {
    let listed = |name: &str| diff.validators.iter().any(|v| v.new_collection == name);
    for name in collections {
        if let (Some(o), Some(n)) = (old.collection(name), new.collection(name)) {
            let validator = crate::validator::validator(n);
            let set = |s: &Step| matches!(&s.action, Action::TightenValidator { collection, .. } if collection == name);
            if !listed(name)
                && crate::validator::validator(o) != validator
                && !steps.iter().any(set)
            {
                steps.push(Step {
                    phase: Phase::Contract,
                    action: Action::TightenValidator {
                        collection: name.clone(),
                        validator,
                    },
                });
            }
        }
    }
}

/// The steps of one relationship.
pub(super) struct Planned {
    pub steps: Vec<Step>,
    pub paths: Vec<(String, String)>,
    pub collections: Vec<String>,
}

fn relation(
    old: &Plan,
    new: &Plan,
    change: &DecisionChange,
    refused: &mut Vec<Unsupported>,
) -> Option<Planned> {
    let (o, n) = (change.old.as_ref()?, change.new.as_ref()?);
    let four = ["embed", "child_ref", "parent_refs", "two_way"];
    if o.layout == n.layout || !four.contains(&o.layout.as_str()) {
        return None;
    }
    if !four.contains(&n.layout.as_str())
        || o.subset != n.subset
        || o.bucket != n.bucket
        || o.computed != n.computed
        || o.outlier != n.outlier
    {
        return None;
    }
    let (od, nd) = (
        old.relationship(&change.relation)?,
        new.relationship(&change.relation)?,
    );
    if od.kind != RelationKind::OneToMany || nd.kind != RelationKind::OneToMany {
        return None;
    }
    let (parent_old, parent_new) = (entity(old, &od.parent)?, entity(new, &nd.parent)?);
    let (before, after) = (sides(old, od)?, sides(new, nd)?);
    let child_old = entity(old, &od.child);
    let child_new = entity(new, &nd.child);
    let children = child_new.or(child_old)?.name.clone();
    let (p, rel) = (parent_new.name.clone(), change.relation.clone());
    let mut out = Planned {
        steps: Vec::new(),
        paths: Vec::new(),
        collections: Vec::new(),
    };
    for (plan_side, parent, child) in [
        (&before, parent_old, child_old),
        (&after, parent_new, child_new),
    ] {
        for array in [&plan_side.embedded, &plan_side.ids].into_iter().flatten() {
            out.paths.push((parent.name.clone(), array.clone()));
        }
        if let (Some(r), Some(c)) = (&plan_side.reference, child) {
            out.paths.push((c.name.clone(), r.path.clone()));
        }
    }
    let step = |phase, action| Step { phase, action };
    let mut steps = Vec::new();
    match (&before.embedded, &after.embedded) {
        // The children move out of the parent into their own collection.
        (Some(array), None) => {
            let child = child_new?;
            if let Some(missing) = missing_fields(child, parent_old.field_at(array)?, &after) {
                refused.push(Unsupported::RequiredWithoutSource {
                    collection: child.name.clone(),
                    path: missing,
                });
                return None;
            }
            out.collections.push(child.name.clone());
            steps.push(step(
                Phase::Move,
                Action::SplitOut {
                    relation: rel.clone(),
                    parent_collection: p.clone(),
                    array: array.clone(),
                    child_collection: children.clone(),
                    reference: after.reference.clone(),
                    version: child.schema_version,
                },
            ));
            if let Some(ids) = &after.ids {
                steps.push(step(
                    Phase::Move,
                    Action::KeepIds {
                        collection: p.clone(),
                        from: array.clone(),
                        to: ids.clone(),
                    },
                ));
            }
            if after.ids.as_ref() != Some(array) {
                steps.push(unset(&p, array));
            }
        }
        // The children move into the parent's array.
        (None, Some(array)) => {
            let child = child_old?;
            let element = parent_new.field_at(array)?;
            let fields: Vec<String> = element.children.iter().map(|f| f.name.clone()).collect();
            let required = element.children.iter().find(|f| {
                !f.optional && child.field(&f.name).is_none() && f.kind != FieldKind::Pattern
            });
            if let Some(f) = required {
                refused.push(Unsupported::RequiredWithoutSource {
                    collection: p.clone(),
                    path: f.path.clone(),
                });
                return None;
            }
            let source = match (&before.ids, &before.reference) {
                (Some(ids), _) => Source::ParentIds { array: ids.clone() },
                (None, Some(r)) => Source::ChildRef { key: r.key() },
                (None, None) => return None,
            };
            if let Some(bound) = after.bound {
                steps.push(check(Check::Bound {
                    relation: rel.clone(),
                    parent_collection: p.clone(),
                    child_collection: child.name.clone(),
                    source: source.clone(),
                    bound,
                }));
            }
            if let Source::ParentIds { array } = &source {
                steps.push(check(Check::Dangling {
                    relation: rel.clone(),
                    parent_collection: p.clone(),
                    array: array.clone(),
                    child_collection: child.name.clone(),
                }));
            }
            steps.push(step(
                Phase::Move,
                Action::Gather {
                    relation: rel.clone(),
                    parent_collection: p.clone(),
                    child_collection: child.name.clone(),
                    source: source.clone(),
                    array: array.clone(),
                    keep: Keep::Embedded { fields },
                    bound: after.bound,
                    id_type: id_type(child),
                },
            ));
            if let Some(ids) = before.ids.as_ref().filter(|ids| *ids != array) {
                steps.push(unset(&p, ids));
            }
            if child_new.is_none() {
                out.collections.push(child.name.clone());
                steps.push(step(
                    Phase::Contract,
                    Action::DropCollection {
                        collection: child.name.clone(),
                    },
                ));
            } else if let Some(r) = &before.reference {
                steps.push(unset(&child.name, &r.path));
            }
        }
        (Some(_), Some(_)) => return None,
        // References on both sides: the ids in the parent, the reference in each child.
        (None, None) => {
            let child = child_new?;
            match (&before.ids, &after.ids) {
                (None, Some(array)) => {
                    let key = before.reference.as_ref()?.key();
                    let source = Source::ChildRef { key };
                    if let Some(bound) = after.bound {
                        steps.push(check(Check::Bound {
                            relation: rel.clone(),
                            parent_collection: p.clone(),
                            child_collection: children.clone(),
                            source: source.clone(),
                            bound,
                        }));
                    }
                    steps.push(step(
                        Phase::Move,
                        Action::Gather {
                            relation: rel.clone(),
                            parent_collection: p.clone(),
                            child_collection: children.clone(),
                            source,
                            array: array.clone(),
                            keep: Keep::Ids,
                            bound: after.bound,
                            id_type: id_type(child),
                        },
                    ));
                }
                (Some(array), None) => steps.push(unset(&p, array)),
                (Some(a), Some(b)) if a != b => return None,
                _ => {}
            }
            match (&before.reference, &after.reference) {
                (None, Some(reference)) => {
                    let array = before.ids.clone()?;
                    let (relation, parent_collection, child_collection) =
                        (rel.clone(), p.clone(), children.clone());
                    steps.push(check(Check::Shared {
                        relation: relation.clone(),
                        parent_collection: parent_collection.clone(),
                        array: array.clone(),
                        child_collection: child_collection.clone(),
                    }));
                    let required = child.field(&reference.path).is_some_and(|f| !f.optional);
                    if required {
                        steps.push(check(Check::Orphan {
                            relation: relation.clone(),
                            parent_collection: parent_collection.clone(),
                            array: array.clone(),
                            child_collection: child_collection.clone(),
                        }));
                    }
                    steps.push(step(
                        Phase::Move,
                        Action::ReferToParent {
                            relation,
                            parent_collection,
                            array,
                            child_collection,
                            reference: reference.clone(),
                        },
                    ));
                }
                (Some(r), None) => steps.push(unset(&children, &r.path)),
                (Some(a), Some(b)) if a.path != b.path => return None,
                _ => {}
            }
        }
    }
    out.steps = steps;
    Some(out)
}

pub(super) fn check(check: Check) -> Step {
    Step {
        phase: Phase::Expand,
        action: Action::Check { check },
    }
}

pub(super) fn unset(collection: &str, path: &str) -> Step {
    Step {
        phase: Phase::Contract,
        action: Action::Unset {
            collection: collection.to_owned(),
            path: path.to_owned(),
        },
    }
}

/// The collection of an entity's own documents.
pub(super) fn entity<'a>(plan: &'a Plan, name: &str) -> Option<&'a Collection> {
    plan.collections
        .iter()
        .find(|c| c.entity == name && c.role == CollectionRole::Entity)
}

/// The BSON type of a collection's `_id`.
fn id_type(c: &Collection) -> String {
    c.field("_id")
        .map_or_else(|| "objectId".to_owned(), |f| f.bson_type.clone())
}

/// Where a decision keeps its relationship, from its placements; `None` for a shape these moves
/// do not handle.
pub(super) fn sides(plan: &Plan, d: &Decision) -> Option<Sides> {
    let mut s = Sides::default();
    for p in &d.placement {
        let top_level = !p.path.contains('.');
        match p.shape {
            Shape::ArrayOfSubdocuments if p.holder == d.parent && top_level => {
                s.embedded = Some(p.path.clone());
                s.bound = p.max_items;
            }
            Shape::ArrayOfIds if p.holder == d.parent && top_level => {
                s.ids = Some(p.path.clone());
                s.bound = p.max_items;
            }
            Shape::Id | Shape::ExtendedRef if p.holder == d.child && top_level => {
                let c = entity(plan, &d.child)?;
                s.reference = Some(parent_ref(plan, c, &p.path, d)?);
            }
            _ => return None,
        }
    }
    Some(s)
}

/// The reference at `path` in the child's collection, plain or extended with copies of the
/// parent's fields.
pub(super) fn parent_ref(
    plan: &Plan,
    child: &Collection,
    path: &str,
    d: &Decision,
) -> Option<ParentRef> {
    let field = child.field(path)?;
    if field.bson_type != "object" {
        return Some(ParentRef {
            path: path.to_owned(),
            id_name: None,
            copies: Vec::new(),
        });
    }
    let parent = entity(plan, &d.parent)?;
    let mut id_name = None;
    let mut copies = Vec::new();
    for f in &field.children {
        match f.kind {
            FieldKind::Ref => id_name = Some(f.name.clone()),
            FieldKind::Denormalized => {
                let (_, code) = f.source.as_deref()?.split_once('.')?;
                let source = parent.fields.iter().find(|s| s.code_name == code)?;
                copies.push((f.name.clone(), source.path.clone()));
            }
            _ => return None,
        }
    }
    Some(ParentRef {
        path: path.to_owned(),
        id_name: Some(id_name?),
        copies,
    })
}

/// A required field of the children's new collection that neither the embedded element holds
/// nor the move writes (`_id`, the reference, `schema_version`), if any.
pub(super) fn missing_fields(
    child: &Collection,
    element: &crate::plan::PlanField,
    after: &Sides,
) -> Option<String> {
    child
        .fields
        .iter()
        .find(|f| {
            let written = f.name == "_id"
                || after.reference.as_ref().is_some_and(|r| r.path == f.name)
                || (f.kind == FieldKind::Pattern && f.name == "schema_version");
            !f.optional && !written && !element.children.iter().any(|e| e.name == f.name)
        })
        .map(|f| f.path.clone())
}
