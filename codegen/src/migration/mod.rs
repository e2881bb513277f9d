//! The steps of a migration, written from a [`PlanDiff`] and the two Plans it compares
//! (`docs/migrations.md`): **expand** (collections and indexes created, changed validators relaxed
//! to accept both versions), **move** (stored fields renamed, copies backfilled from their
//! source, `schema_version` raised), **contract** (removed fields unset, dropped indexes dropped,
//! validators tightened).
//!
//! A change this slice cannot migrate (a layout flip, a bucket, a subset, a changed `_id`, a type
//! change...) is an [`Unsupported`] change: the whole migration is refused, never made without
//! it. The steps are data; the CLI applies them with the driver and [`mongosh`] writes them as a
//! script.

pub mod mongosh;
mod words;

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{json, Value};

use crate::diff::{CollectionKey, FieldState, PlanDiff};
use crate::plan::{Collection, FanOut, Index, Plan};

pub use words::UNSUPPORTED_CODE;

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

/// What one step does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// A collection the new Plan adds, created with its validator.
    CreateCollection {
        /// The collection.
        collection: String,
        /// Its validator (`{$jsonSchema: ...}`).
        validator: Value,
    },
    /// An index the new Plan adds.
    CreateIndex {
        /// The collection.
        collection: String,
        /// The index, as the new Plan declares it.
        index: Index,
    },
    /// `collMod` with `{$or: [OLD, NEW]}` and `validationLevel: "moderate"`.
    RelaxValidator {
        /// The collection.
        collection: String,
        /// The relaxed validator.
        validator: Value,
    },
    /// `updateMany({from: {$exists: true}}, {$rename: {from: to}})`.
    Rename {
        /// The collection.
        collection: String,
        /// The stored path before.
        from: String,
        /// The stored path after.
        to: String,
    },
    /// A plain reference turned into an extended reference (a copy was added beside it):
    /// `updateMany({path: {$type: OLD}}, [{$set: {path: {id: "$path"}}}])`.
    WrapReference {
        /// The collection.
        collection: String,
        /// The reference's stored path.
        path: String,
        /// The stored name of the id inside the new object.
        id_name: String,
        /// The BSON type of the plain reference (the guard: documents not yet wrapped).
        old_type: String,
    },
    /// A copy filled from its source: the source collection walked in `_id` order, batches of
    /// [`BATCH`], each source document's value written by the Plan's fan-out.
    Backfill {
        /// The source's collection.
        source_collection: String,
        /// The source field's stored path.
        source_path: String,
        /// The write the new code makes when the source changes.
        fan_out: FanOut,
    },
    /// `updateMany` raising `schema_version` where it is lower or absent.
    SetVersion {
        /// The collection.
        collection: String,
        /// The new version.
        version: u32,
    },
    /// `updateMany({path: {$exists: true}}, {$unset: {path: ""}})`.
    Unset {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// `dropIndex` by name.
    DropIndex {
        /// The collection.
        collection: String,
        /// The index.
        name: String,
    },
    /// `collMod` with the new validator and `validationLevel: "strict"`.
    TightenValidator {
        /// The collection.
        collection: String,
        /// The new validator.
        validator: Value,
    },
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

/// A change of the diff this slice of `migrate` cannot make, by what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unsupported {
    /// A relationship's layout, subset, buckets, summaries or outlier changed, or the
    /// relationship was added or removed.
    Decision {
        /// The relationship.
        relation: String,
        /// The old layout (`None`: the relationship is new).
        old: Option<String>,
        /// The new layout (`None`: the relationship was removed).
        new: Option<String>,
        /// Only its patterns changed (subset, buckets, summaries, outlier), not its layout.
        patterns: bool,
    },
    /// A collection removed or renamed (or added for something other than an entity).
    Collection {
        /// The entity it holds.
        entity: String,
        /// Its name before.
        old: Option<String>,
        /// Its name after.
        new: Option<String>,
    },
    /// A stored field whose type, kind, nesting or `_id` changed.
    FieldType {
        /// The collection (new name).
        collection: String,
        /// The field's stored path (new).
        path: String,
        /// `kind bson_type` before and after.
        old: String,
        /// After.
        new: String,
    },
    /// A field that was optional is now required: stored documents may lack it.
    NowRequired {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// A new required field with no source to fill it from.
    RequiredWithoutSource {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// A field renamed or removed inside an array (needs a pipeline update with `$map`).
    InsideArray {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// The `_id` of a collection changed (a natural key added, removed or moved): every
    /// reference to its documents would have to be rewritten.
    IdChanged {
        /// The collection.
        collection: String,
    },
    /// An index whose keys or options changed under the same name.
    IndexRedefined {
        /// The collection.
        collection: String,
        /// The index.
        name: String,
    },
}

/// The migration from `old` to `new` (`diff` is `crate::diff::diff(old, new)`), or every change
/// it cannot make.
pub fn plan(old: &Plan, new: &Plan, diff: &PlanDiff) -> Result<Migration, Vec<Unsupported>> {
    let mut refused = Vec::new();
    let mut steps = Vec::new();
    decisions(diff, &mut refused);
    for c in &diff.collections {
        match (&c.old, &c.new, c.key.role.as_str()) {
            (None, Some(n), "entity") => {
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
        steps.push(Step {
            phase: Phase::Expand,
            action: Action::RelaxValidator {
                collection: v.new_collection.clone(),
                validator: json!({ "$or": [before, after.clone()] }),
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
    fields(old, new, diff, &mut steps, &mut refused);
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
        Action::CreateCollection { .. } => (0, 0),
        Action::CreateIndex { .. } => (1, 0),
        Action::RelaxValidator { .. } => (2, 0),
        Action::Rename { from, .. } => (3, from.matches('.').count()),
        Action::WrapReference { .. } => (4, 0),
        Action::Backfill { .. } => (5, 0),
        Action::SetVersion { .. } => (6, 0),
        Action::Unset { path, .. } => (7, usize::MAX - path.matches('.').count()),
        Action::DropIndex { .. } => (8, 0),
        Action::TightenValidator { .. } => (9, 0),
    }
}

/// Relationships whose layout or patterns changed, added or removed: refused. Copies added or
/// removed (and placements that follow from them) are judged by their fields.
fn decisions(diff: &PlanDiff, refused: &mut Vec<Unsupported>) {
    for d in &diff.decisions {
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

fn fields(
    old: &Plan,
    new: &Plan,
    diff: &PlanDiff,
    steps: &mut Vec<Step>,
    refused: &mut Vec<Unsupported>,
) {
    // Relationships refused with their decision: their fields are not listed again.
    let refused_relations: BTreeSet<String> = refused
        .iter()
        .filter_map(|r| match r {
            Unsupported::Decision { relation, .. } => Some(relation.clone()),
            _ => None,
        })
        .collect();
    let relation_of = |plan: &Plan, s: &Option<FieldState>| {
        let s = s.as_ref()?;
        plan.collection(&s.collection)?
            .field_at(&s.path)?
            .relation
            .clone()
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
        if of_refused {
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

/// The filter of documents whose `schema_version` is below `version` or absent: the guard of
/// [`Action::SetVersion`].
pub fn version_guard(version: u32) -> Value {
    json!({ "$or": [
        { "schema_version": { "$lt": version } },
        { "schema_version": { "$exists": false } },
    ] })
}

/// A hash of a Plan's content (its file name aside): 16 hex digits of FNV-1a over its JSON.
pub fn plan_hash(plan: &Plan) -> String {
    let mut unnamed = plan.clone();
    unnamed.source = String::new();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in unnamed.to_json().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}
