//! The steps of stored fields: renames, wrapped references, copies backfilled, removed fields
//! unset; or why a field change cannot be made.

use std::collections::BTreeSet;

use crate::diff::{CollectionKey, FieldState, PlanDiff};
use crate::plan::{Collection, CollectionRole, Plan};

use super::layouts::Moved;
use super::{Action, Phase, Step, Unsupported};

/// The steps of every stored field's change, except those a layout move makes (`moved`).
pub(super) fn fields(
    old: &Plan,
    new: &Plan,
    diff: &PlanDiff,
    moved: &Moved,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) {
    // Relationships refused with their decision: their fields are not listed again.
    let refused_relations: BTreeSet<String> = refused
        .iter()
        .filter_map(|r| r.relation().map(str::to_owned))
        .collect();
    // A field's relationship: its own, or that of the buckets holding it.
    let relation_of = |plan: &Plan, s: &Option<FieldState>| {
        let s = s.as_ref()?;
        let holder = plan.collection(&s.collection)?;
        if let CollectionRole::Bucket { relation } = &holder.role {
            return Some(relation.clone());
        }
        holder.field_at(&s.path)?.relation.clone()
    };
    // The ids inside references wrapped into objects: filled by the wrap.
    let wraps: BTreeSet<String> = diff
        .fields
        .iter()
        .filter_map(|f| {
            let (o, n) = (f.old.as_ref()?, f.new.as_ref()?);
            let id = wrapped(new, o, n)?;
            Some(format!("{}.{}.{id}", n.collection, n.path))
        })
        .collect();
    for f in &diff.fields {
        let of_refused = [relation_of(old, &f.old), relation_of(new, &f.new)]
            .into_iter()
            .flatten()
            .any(|r| refused_relations.contains(&r));
        let by_move = [&f.old, &f.new]
            .into_iter()
            .flatten()
            .any(|s| moved.handles(&s.collection, &s.path));
        if of_refused || by_move {
            continue;
        }
        let id = [&f.old, &f.new]
            .into_iter()
            .flatten()
            .find(|s| s.path == "_id");
        if let Some(s) = id {
            let collection = f.new.as_ref().unwrap_or(s).collection.clone();
            let already = refused
                .iter()
                .any(|r| matches!(r, Unsupported::IdChanged { collection: c } if *c == collection));
            if !already {
                refused.push(Unsupported::IdChanged { collection });
            }
            continue;
        }
        match (&f.old, &f.new) {
            (Some(o), Some(n)) => changed(old, new, o, n, steps, refused),
            (None, Some(n)) => added(new, &wraps, n, steps, refused),
            (Some(o), None) => {
                let holder = old.collection(&o.collection);
                if holder.is_some_and(|c| array_above(c, &o.path)) {
                    refused.push(Unsupported::InsideArray {
                        collection: o.collection.clone(),
                        path: o.path.clone(),
                    });
                } else {
                    steps.push(Step {
                        phase: Phase::Contract,
                        action: Action::Unset {
                            collection: new_name(diff, &f.collection)
                                .unwrap_or(&o.collection)
                                .to_owned(),
                            path: o.path.clone(),
                        },
                    });
                }
            }
            (None, None) => {}
        }
    }
}

/// The new name of a collection on both sides.
fn new_name<'a>(diff: &'a PlanDiff, key: &CollectionKey) -> Option<&'a str> {
    diff.validators
        .iter()
        .find(|v| &v.collection == key)
        .map(|v| v.new_collection.as_str())
}

fn changed(
    old: &Plan,
    new: &Plan,
    o: &FieldState,
    n: &FieldState,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) {
    let shape = |s: &FieldState| {
        format!(
            "{} {}{}{}",
            s.kind,
            "[".repeat(usize::from(s.array_depth)),
            if s.map { "map " } else { "" },
            s.bson_type
        ) + &"]".repeat(usize::from(s.array_depth))
    };
    if let Some(id_name) = wrapped(new, o, n) {
        steps.push(Step {
            phase: Phase::Move,
            action: Action::WrapReference {
                collection: n.collection.clone(),
                path: n.path.clone(),
                id_name,
                old_type: o.bson_type.clone(),
            },
        });
        return;
    }
    if shape(o) != shape(n) {
        refused.push(Unsupported::FieldType {
            collection: n.collection.clone(),
            path: n.path.clone(),
            old: shape(o),
            new: shape(n),
        });
        return;
    }
    if o.optional && !n.optional {
        refused.push(Unsupported::NowRequired {
            collection: n.collection.clone(),
            path: n.path.clone(),
        });
        return;
    }
    if o.path == n.path {
        // Bounds, enumerations, optionality relaxed: the validators say it.
        return;
    }
    let in_array = old
        .collection(&o.collection)
        .is_some_and(|c| array_above(c, &o.path))
        || new
            .collection(&n.collection)
            .is_some_and(|c| array_above(c, &n.path));
    if in_array {
        refused.push(Unsupported::InsideArray {
            collection: n.collection.clone(),
            path: n.path.clone(),
        });
        return;
    }
    // Outer renames run first: a nested field is found under its parent's new name.
    let from = match (n.path.rsplit_once('.'), o.path.rsplit_once('.')) {
        (Some((parent, _)), Some((_, last))) => format!("{parent}.{last}"),
        _ => o.path.clone(),
    };
    if from != n.path {
        steps.push(Step {
            phase: Phase::Move,
            action: Action::Rename {
                collection: n.collection.clone(),
                from,
                to: n.path.clone(),
            },
        });
    }
}

/// The stored name of the id inside the extended reference that replaces a plain reference at
/// the same path (`author: ObjectId` becomes `author: {id, name}`), if that is the change.
fn wrapped(new: &Plan, o: &FieldState, n: &FieldState) -> Option<String> {
    let plain = |s: &FieldState| s.array_depth == 0 && !s.map && s.kind == "ref";
    if !(plain(o) && plain(n) && o.path == n.path && o.bson_type != "object")
        || n.bson_type != "object"
    {
        return None;
    }
    let field = new.collection(&n.collection)?.field_at(&n.path)?;
    let id = field
        .children
        .iter()
        .find(|c| c.kind == crate::plan::FieldKind::Ref && c.bson_type == o.bson_type)?;
    Some(id.name.clone())
}

fn added(
    new: &Plan,
    wraps: &BTreeSet<String>,
    n: &FieldState,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) {
    let filled_by_wrap = wraps.contains(&format!("{}.{}", n.collection, n.path));
    if n.optional || filled_by_wrap || (n.kind == "pattern" && n.path == "schema_version") {
        // Optional: documents without it are valid. `schema_version`: set by its own step.
        return;
    }
    let copy = new
        .relationships
        .iter()
        .flat_map(|d| &d.denormalized)
        .find(|d| d.collection == n.collection && d.copy_path == n.path);
    let source = copy.and_then(|d| {
        let (entity, field) = d.source.split_once('.')?;
        let holder = new.collections.iter().find(|c| {
            c.entity == entity && matches!(c.role, crate::plan::CollectionRole::Entity)
        })?;
        let stored = holder.fields.iter().find(|f| f.code_name == field)?;
        Some((holder, stored.path.clone(), d.fan_out.clone()))
    });
    match source {
        Some((holder, source_path, fan_out)) if n.kind == "denormalized" => {
            steps.push(Step {
                phase: Phase::Move,
                action: Action::Backfill {
                    source_collection: holder.name.clone(),
                    source_path,
                    fan_out,
                },
            });
        }
        _ => refused.push(Unsupported::RequiredWithoutSource {
            collection: n.collection.clone(),
            path: n.path.clone(),
        }),
    }
}

/// Whether an array holds the field at `path` (an ancestor of it is an array).
fn array_above(c: &Collection, path: &str) -> bool {
    let segments: Vec<&str> = path.split('.').collect();
    (1..segments.len()).any(|end| {
        c.field_at(&segments[..end].join("."))
            .is_some_and(|f| f.array_depth > 0 || f.map)
    })
}
