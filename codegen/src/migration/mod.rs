//! The steps of a migration, written from a [`PlanDiff`] and the two Plans it compares
//! (`docs/migrations.md`): **expand** (collections and indexes created, changed validators relaxed
//! to accept both versions), **move** (stored fields renamed, copies backfilled from their
//! source, `schema_version` raised), **contract** (removed fields unset, dropped indexes dropped,
//! validators tightened).
//!
//! Layout moves among `embed`, `child_ref`, `parent_refs` and `two_way` are made by `layouts`,
//! many-to-many moves among `one_way`, `two_way` and `link_collection` by `links`,
//! summaries and kept lists added, removed or changed under the same layout by `kept`. A change
//! this slice cannot migrate (a bucket, an outlier, a changed `_id`, a type change...) is an
//! [`Unsupported`] change: the whole migration is refused, never made without it. The steps are
//! data; the CLI applies them with the driver and [`mongosh`] writes them as a script.

mod actions;
mod bucket_stages;
mod buckets;
mod fields;
mod kept;
mod layouts;
mod links;
pub mod mongosh;
pub mod online;
pub mod ops;
pub mod pipelines;
mod refused;
pub mod rust;
mod words;

use serde::Serialize;
use serde_json::{json, Value};

use crate::diff::PlanDiff;
use crate::plan::Plan;

pub use actions::{Action, Check, Keep, ParentRef, Source};
pub use buckets::{BucketLayout, BucketLimit, BucketValue};
pub use kept::{Children, KeptList, KeptSummary};
pub use links::LinkLimit;
pub use refused::Unsupported;
pub use words::{DATA_CODE, UNSUPPORTED_CODE};

/// Documents read per batch when a step walks a collection in `_id` order.
pub const BATCH: u32 = 1_000;

/// The collection holding one checkpoint document per migration.
pub const CHECKPOINTS: &str = "squillion_migrations";

/// The three phases, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before any data moves: what the new code needs, while the old code still runs.
    Expand,
    /// The data steps.
    Move,
    /// After the move: what only the old code needed.
    Contract,
}

impl Phase {
    /// `expand`, `move`, `contract`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Expand => "expand",
            Phase::Move => "move",
            Phase::Contract => "contract",
        }
    }
}

/// One step of a migration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// When it runs.
    pub phase: Phase,
    /// What it does.
    pub action: Action,
}

impl Step {
    /// Its name, unique in a migration and stable: the checkpoint records steps by it.
    pub fn name(&self) -> String {
        format!("{}: {}", self.phase.as_str(), words::action(&self.action))
    }
}

/// A migration: its checkpoint id and its steps in the order they run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Migration {
    /// The checkpoint document's `_id`: `<old plan hash>..<new plan hash>`.
    pub id: String,
    /// The old schema's name.
    pub old_source: String,
    /// The new schema's name.
    pub new_source: String,
    /// The steps, expand first, then move, then contract.
    pub steps: Vec<Step>,
}

/// The migration from `old` to `new` (`diff` is `crate::diff::diff(old, new)`), or every change
/// it cannot make.
pub fn plan(old: &Plan, new: &Plan, diff: &PlanDiff) -> Result<Migration, Vec<Unsupported>> {
    let mut refused = Vec::new();
    let mut steps = Vec::new();
    let mut moved = layouts::moves(old, new, diff, &mut steps, &mut refused);
    kept::kept(old, new, diff, &mut moved, &mut steps, &mut refused);
    buckets::unlisted(old, new, diff, &mut refused);
    decisions(diff, &moved.relations, &mut refused);
    // A refused relationship's own collections (buckets, links, overflow) are not listed again.
    let refused_relations: Vec<String> = refused
        .iter()
        .filter_map(|r| r.relation().map(str::to_owned))
        .collect();
    // ...nor the children's own collection it adds or removes (children into or out of buckets).
    let refused_children: Vec<&str> = refused_relations
        .iter()
        .filter_map(|r| new.relationship(r).or_else(|| old.relationship(r)))
        .map(|d| d.child.as_str())
        .collect();
    for c in &diff.collections {
        let of_refused = c
            .key
            .relation
            .as_ref()
            .is_some_and(|r| refused_relations.contains(r));
        let children_moved = c.key.role == "entity"
            && (c.old.is_none() || c.new.is_none())
            && refused_children.contains(&c.key.entity.as_str());
        if of_refused || children_moved {
            continue;
        }
        let by_move = [&c.old, &c.new]
            .into_iter()
            .flatten()
            .any(|s| moved.collections.contains(&s.name));
        match (&c.old, &c.new, c.key.role.as_str()) {
            // A collection a move drops (or, for buckets, fills: created below like an entity's).
            (Some(_), None, _) if by_move => {}
            (None, Some(n), role) if role == "entity" || by_move => {
                if let Some(coll) = new.collection(&n.name) {
                    steps.push(Step {
                        phase: Phase::Expand,
                        action: Action::CreateCollection {
                            collection: n.name.clone(),
                            validator: crate::validator::validator(coll),
                        },
                    });
                    // The diff lists the indexes of collections on both sides only.
                    for index in &coll.indexes {
                        steps.push(Step {
                            phase: Phase::Expand,
                            action: Action::CreateIndex {
                                collection: n.name.clone(),
                                index: index.clone(),
                            },
                        });
                    }
                }
            }
            (o, n, _) => refused.push(Unsupported::Collection {
                entity: c.key.entity.clone(),
                old: o.as_ref().map(|s| s.name.clone()),
                new: n.as_ref().map(|s| s.name.clone()),
            }),
        }
    }
    for i in &diff.indexes {
        match (&i.old, &i.new) {
            (None, Some(n)) => {
                let declared = new
                    .collection(&n.collection)
                    .and_then(|c| c.indexes.iter().find(|x| x.name == i.name));
                if let Some(index) = declared {
                    steps.push(Step {
                        phase: Phase::Expand,
                        action: Action::CreateIndex {
                            collection: n.collection.clone(),
                            index: index.clone(),
                        },
                    });
                }
            }
            (Some(o), None) => steps.push(Step {
                phase: Phase::Contract,
                action: Action::DropIndex {
                    collection: o.collection.clone(),
                    name: i.name.clone(),
                },
            }),
            _ => refused.push(Unsupported::IndexRedefined {
                collection: i
                    .new
                    .as_ref()
                    .or(i.old.as_ref())
                    .map(|s| s.collection.clone())
                    .unwrap_or_default(),
                name: i.name.clone(),
            }),
        }
    }
    for v in &diff.validators {
        let (Some(o), Some(n)) = (
            old.collection(&v.old_collection),
            new.collection(&v.new_collection),
        ) else {
            continue;
        };
        let (before, after) = (
            crate::validator::validator(o),
            crate::validator::validator(n),
        );
        // The new branch accepts a document in the new shape whose copies and computed values
        // are not filled yet: what the online mode's writes leave before the backfill.
        let filling = crate::validator::filling_validator(n);
        steps.push(Step {
            phase: Phase::Expand,
            action: Action::RelaxValidator {
                collection: v.new_collection.clone(),
                validator: json!({ "$or": [before, filling] }),
            },
        });
        steps.push(Step {
            phase: Phase::Contract,
            action: Action::TightenValidator {
                collection: v.new_collection.clone(),
                validator: after,
            },
        });
    }
    fields::fields(old, new, diff, &moved, &mut steps, &mut refused);
    for v in &diff.versions {
        if let Some(version) = v.new.filter(|n| Some(*n) != v.old) {
            steps.push(Step {
                phase: Phase::Move,
                action: Action::SetVersion {
                    collection: v.new_collection.clone(),
                    version,
                },
            });
        }
    }
    if !refused.is_empty() {
        return Err(refused);
    }
    // Stable within each phase: renames outermost first, then backfills, then versions.
    steps.sort_by_key(|s| (s.phase, order(&s.action)));
    Ok(Migration {
        id: format!("{}..{}", plan_hash(old), plan_hash(new)),
        old_source: diff.old_source.clone(),
        new_source: diff.new_source.clone(),
        steps,
    })
}

/// The order of actions inside a phase.
fn order(a: &Action) -> (u8, usize) {
    match a {
        // Checks first: a migration the data does not fit writes nothing.
        Action::Check { .. } => (0, 0),
        Action::CreateCollection { .. } => (1, 0),
        Action::CreateIndex { .. } => (2, 0),
        Action::RelaxValidator { .. } => (3, 0),
        Action::Rename { from, .. } => (4, from.matches('.').count()),
        Action::WrapReference { .. } => (5, 0),
        // Layouts before copies: children split out before the parent keeps only their ids.
        Action::SplitOut { .. }
        | Action::SplitBuckets { .. }
        | Action::FillBuckets { .. }
        | Action::LinkPairs { .. } => (7, 0),
        Action::KeepIds { .. } => (8, 0),
        Action::Gather { .. } | Action::GatherBuckets { .. } => (9, 0),
        Action::ReferToParent { .. } => (10, 0),
        Action::Backfill { .. } => (11, 0),
        // Kept summaries and lists after the layouts and copies they read.
        Action::Summarise { .. } => (12, 0),
        Action::SetVersion { .. } => (13, 0),
        Action::Unset { path, .. } => (14, usize::MAX - path.matches('.').count()),
        Action::DropCollection { .. } => (15, 0),
        Action::DropIndex { .. } => (16, 0),
        Action::TightenValidator { .. } => (17, 0),
    }
}

/// Relationships whose layout or patterns changed, added or removed, except the layout moves
/// made by [`layouts`]: refused. Copies added or removed (and placements that follow from them)
/// are judged by their fields.
fn decisions(diff: &PlanDiff, moved: &[String], refused: &mut Vec<Unsupported>) {
    let already: Vec<String> = refused
        .iter()
        .filter_map(|r| r.relation().map(str::to_owned))
        .collect();
    for d in diff
        .decisions
        .iter()
        .filter(|d| !moved.contains(&d.relation) && !already.contains(&d.relation))
    {
        let layout = |s: &Option<crate::diff::DecisionState>| s.as_ref().map(|s| s.layout.clone());
        let patterns = match (&d.old, &d.new) {
            (Some(o), Some(n)) => {
                if o.layout == n.layout
                    && o.subset == n.subset
                    && o.bucket == n.bucket
                    && o.computed == n.computed
                    && o.outlier == n.outlier
                {
                    continue;
                }
                o.layout == n.layout
            }
            _ => false,
        };
        refused.push(Unsupported::Decision {
            relation: d.relation.clone(),
            old: layout(&d.old),
            new: layout(&d.new),
            patterns,
        });
    }
}

/// The filter of documents whose `schema_version` is below `version` or absent: the guard of
/// [`Action::SetVersion`].
pub fn version_guard(version: u32) -> Value {
    json!({ "$or": [
        { "schema_version": { "$lt": version } },
        { "schema_version": { "$exists": false } },
    ] })
}

/// A hash of a Plan's content (its file name aside, also in its warnings' positions): 16 hex
/// digits of FNV-1a over its JSON.
pub fn plan_hash(plan: &Plan) -> String {
    let mut unnamed = plan.clone();
    unnamed.source = String::new();
    for w in &mut unnamed.warnings {
        w.position.file = String::new();
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in unnamed.to_json().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}
