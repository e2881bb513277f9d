//! The steps of a many-to-many relationship whose layout changed among `one_way` (one side holds
//! the other's ids), `two_way` (both sides hold arrays of ids) and `link_collection` (one
//! document per pair): which stores of the pairs the new layout needs, where each is filled from,
//! and the checks that only read before (`docs/migrations.md`).
//!
//! Each store of the new layout is filled from the old layout's pairs: an array kept in place,
//! an array gathered from the other side's arrays (`$lookup` by the array) or from the links
//! (`$lookup` by the link's key, in the links' `_id` order, the order they were made in), or the
//! link collection filled from one side's arrays (`$unwind`, `$merge` on the pair, its unique
//! index). What these moves cannot make correctly is refused whole ([`LinkLimit`]).

use serde::Serialize;

use crate::diff::DecisionChange;
use crate::plan::{CollectionRole, Decision, FieldKind, Plan, RelationKind, Shape};

use super::layouts::{check, entity, unset, Planned};
use super::{Action, Check, Keep, Phase, Source, Step, Unsupported};

/// What stops a many-to-many move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinkLimit {
    /// The relationship has fields of its own (`fields { ... }`), or its arrays hold copies:
    /// elements are objects, not ids.
    Fields,
    /// Both ends are the same entity (`from`/`to` links).
    SameEntity,
    /// An outlier cap, summaries or kept lists beside the layout.
    Patterns,
}

/// One store of a relationship's pairs.
#[derive(Debug, Clone, PartialEq)]
enum Store {
    /// An array of the other side's ids in the entity `holder`'s documents.
    Array {
        holder: String,
        collection: String,
        path: String,
        bound: Option<u64>,
    },
    /// The link collection: the key naming each entity's document.
    Link {
        collection: String,
        /// `(entity, key)` for both ends.
        keys: Vec<(String, String)>,
        version: Option<u32>,
    },
}

/// The steps of a many-to-many move, `None` when this is not one (or it is refused).
pub(super) fn relation(
    old: &Plan,
    new: &Plan,
    change: &DecisionChange,
    refused: &mut Vec<Unsupported>,
) -> Option<Planned> {
    let (o, n) = (change.old.as_ref()?, change.new.as_ref()?);
    let three = ["one_way", "two_way", "link_collection"];
    if !three.contains(&o.layout.as_str()) || !three.contains(&n.layout.as_str()) {
        return None;
    }
    let (od, nd) = (
        old.relationship(&change.relation)?,
        new.relationship(&change.relation)?,
    );
    if od.kind != RelationKind::ManyToMany || nd.kind != RelationKind::ManyToMany {
        return None;
    }
    let mut refuse = |why| {
        refused.push(Unsupported::Links {
            relation: change.relation.clone(),
            old: o.layout.clone(),
            new: n.layout.clone(),
            why,
        });
        None
    };
    if od.from == od.to {
        return refuse(LinkLimit::SameEntity);
    }
    let patterned =
        |d: &Decision| d.outlier.is_some() || d.subset.is_some() || !d.computed.is_empty();
    if patterned(od) || patterned(nd) || o.bucket.is_some() || n.bucket.is_some() {
        return refuse(LinkLimit::Patterns);
    }
    let (Some(before), Some(after)) = (stores(old, od), stores(new, nd)) else {
        return refuse(LinkLimit::Fields);
    };
    if before == after {
        return None;
    }
    let rel = change.relation.clone();
    let mut out = Planned {
        steps: Vec::new(),
        paths: Vec::new(),
        collections: Vec::new(),
    };
    for s in before.iter().chain(&after) {
        match s {
            Store::Array {
                collection, path, ..
            } => out.paths.push((collection.clone(), path.clone())),
            Store::Link { collection, .. } => out.collections.push(collection.clone()),
        }
    }
    let old_link = before.iter().find_map(|s| match s {
        Store::Link {
            collection, keys, ..
        } => Some((collection.clone(), keys.clone())),
        Store::Array { .. } => None,
    });
    let old_arrays: Vec<(&String, &String, &String, Option<u64>)> = before
        .iter()
        .filter_map(|s| match s {
            Store::Array {
                holder,
                collection,
                path,
                bound,
            } => Some((holder, collection, path, *bound)),
            Store::Link { .. } => None,
        })
        .collect();
    let key_of = |keys: &[(String, String)], e: &str| {
        keys.iter()
            .find(|(k, _)| k == e)
            .map(|(_, key)| key.clone())
    };
    let coll_of = |plan: &Plan, e: &str| entity(plan, e).map(|c| c.name.clone());
    let mut steps = Vec::new();
    // Two arrays: each pair is on both sides before either is read for the other.
    if let [a, b] = old_arrays.as_slice() {
        for (x, y) in [(a, b), (b, a)] {
            steps.push(check(Check::OneSided {
                relation: rel.clone(),
                collection: x.1.clone(),
                array: x.2.clone(),
                other_collection: y.1.clone(),
                other_array: y.2.clone(),
            }));
        }
    }
    let dangling = |steps: &mut Vec<Step>, holder: &(&String, &String, &String, Option<u64>)| {
        let other = if *holder.0 == od.from {
            &od.to
        } else {
            &od.from
        };
        if old_arrays.len() == 1 {
            if let Some(c) = coll_of(old, other) {
                steps.push(check(Check::Dangling {
                    relation: rel.clone(),
                    parent_collection: holder.1.clone(),
                    array: holder.2.clone(),
                    child_collection: c,
                }));
            }
        }
    };
    let mut dangling_checked = false;
    for s in &after {
        match s {
            Store::Array {
                holder,
                collection,
                path,
                bound,
            } => {
                let other = if *holder == nd.from { &nd.to } else { &nd.from };
                let kept = old_arrays
                    .iter()
                    .find(|a| a.0 == holder && a.1 == collection && a.2 == path);
                let source = if let Some(a) = kept {
                    if let Some(b) = bound.filter(|b| a.3.is_none_or(|ob| ob > *b)) {
                        steps.push(check(Check::Bound {
                            relation: rel.clone(),
                            parent_collection: collection.clone(),
                            child_collection: coll_of(new, other)?,
                            source: Source::ParentIds {
                                array: path.clone(),
                            },
                            bound: b,
                        }));
                    }
                    continue;
                } else if let Some(a) = old_arrays.iter().find(|a| a.0 == other) {
                    if !dangling_checked {
                        dangling(&mut steps, a);
                        dangling_checked = true;
                    }
                    (a.1.clone(), Source::Partners { array: a.2.clone() })
                } else if let Some((link, keys)) = &old_link {
                    let (key, other_key) = (key_of(keys, holder)?, key_of(keys, other)?);
                    if !dangling_checked {
                        for (e, k) in keys {
                            steps.push(check(Check::Unparented {
                                relation: rel.clone(),
                                parent_collection: coll_of(old, e)?,
                                collection: link.clone(),
                                key: k.clone(),
                            }));
                        }
                        dangling_checked = true;
                    }
                    (
                        link.clone(),
                        Source::Links {
                            key,
                            other: other_key,
                        },
                    )
                } else {
                    return None;
                };
                if let Some(b) = bound {
                    steps.push(check(Check::Bound {
                        relation: rel.clone(),
                        parent_collection: collection.clone(),
                        child_collection: source.0.clone(),
                        source: source.1.clone(),
                        bound: *b,
                    }));
                }
                steps.push(Step {
                    phase: Phase::Move,
                    action: Action::Gather {
                        relation: rel.clone(),
                        parent_collection: collection.clone(),
                        child_collection: source.0,
                        source: source.1,
                        array: path.clone(),
                        keep: Keep::Ids,
                        bound: *bound,
                        id_type: "objectId".to_owned(),
                    },
                });
            }
            Store::Link {
                collection,
                keys,
                version,
            } => {
                // From the arrays of `from` when both sides hold them (they agree: checked).
                let a = old_arrays
                    .iter()
                    .find(|a| *a.0 == od.from)
                    .or(old_arrays.first())?;
                let other = if *a.0 == od.from { &od.to } else { &od.from };
                if !dangling_checked {
                    dangling(&mut steps, a);
                    dangling_checked = true;
                }
                steps.push(Step {
                    phase: Phase::Move,
                    action: Action::LinkPairs {
                        relation: rel.clone(),
                        holder_collection: a.1.clone(),
                        array: a.2.clone(),
                        link_collection: collection.clone(),
                        holder_key: key_of(keys, a.0)?,
                        other_key: key_of(keys, other)?,
                        version: *version,
                    },
                });
            }
        }
    }
    // Contract: what the new layout no longer stores.
    for s in &before {
        if after.contains(s) {
            continue;
        }
        match s {
            Store::Array {
                collection, path, ..
            } => {
                let still = after.iter().any(|t| {
                    matches!(t, Store::Array { collection: c, path: p, .. } if c == collection && p == path)
                });
                if !still {
                    steps.push(unset(collection, path));
                }
            }
            Store::Link { collection, .. } => steps.push(Step {
                phase: Phase::Contract,
                action: Action::DropCollection {
                    collection: collection.clone(),
                },
            }),
        }
    }
    out.steps = steps;
    Some(out)
}

/// Where a layout stores the pairs; `None` for shapes these moves do not handle (arrays of
/// objects, a link collection with fields of its own).
fn stores(plan: &Plan, d: &Decision) -> Option<Vec<Store>> {
    let mut out = Vec::new();
    let mut link_keys = Vec::new();
    let mut link_collection = None;
    for p in &d.placement {
        match p.shape {
            Shape::ArrayOfIds
                if (p.holder == d.from || p.holder == d.to) && !p.path.contains('.') =>
            {
                out.push(Store::Array {
                    holder: p.holder.clone(),
                    collection: p.collection.clone(),
                    path: p.path.clone(),
                    bound: p.max_items,
                });
            }
            Shape::Id if p.holder.ends_with(" (link)") => {
                link_keys.push((p.target.clone(), p.path.clone()));
                link_collection = Some(p.collection.clone());
            }
            _ => return None,
        }
    }
    if let Some(name) = link_collection {
        let c = plan.collection(&name)?;
        if !matches!(&c.role, CollectionRole::Link { relation } if *relation == d.id) {
            return None;
        }
        // Only the pair (and `_id`, `schema_version`): fields of the relationship are refused.
        let own = c.fields.iter().any(|f| {
            let key = link_keys.iter().any(|(_, k)| *k == f.name);
            !(f.name == "_id"
                || key
                || (f.kind == FieldKind::Pattern && f.name == "schema_version"))
        });
        if own || link_keys.len() != 2 {
            return None;
        }
        out.push(Store::Link {
            collection: name,
            keys: link_keys,
            version: c.schema_version,
        });
    }
    Some(out)
}
