//! Each step as the operation the runtime runs (`squillion::migrate::Op`), as data in JSON:
//! written here once from the [`Action`], then turned into BSON by the CLI at run time and
//! into literals by [`super::rust`], so both run the same filters and pipelines through the
//! same executor.

use serde::Serialize;
use serde_json::{json, Value};

use super::{pipelines, version_guard, Action, Check, Step};

/// The runtime operation of a step (`squillion::migrate::Op`), its BSON as extended JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Op {
    /// `Op::Check`.
    Check(CheckOp),
    /// `Op::CreateCollection`.
    CreateCollection {
        /// The collection.
        collection: String,
        /// Its validator.
        validator: Value,
    },
    /// `Op::CreateIndex`.
    CreateIndex {
        /// The collection.
        collection: String,
        /// The index.
        index: IndexOp,
    },
    /// `Op::CollMod`.
    CollMod {
        /// The collection.
        collection: String,
        /// The validator.
        validator: Value,
        /// `true`: `strict`; `false`: `moderate`.
        strict: bool,
    },
    /// `Op::UpdateMany`.
    UpdateMany {
        /// The collection.
        collection: String,
        /// The guard.
        filter: Value,
        /// An update document, or an array (a pipeline update).
        update: Value,
    },
    /// `Op::SplitOut`: a batched walk whose batches first give ids.
    SplitOut {
        /// The walk.
        batched: BatchedOp,
        /// The array whose elements lacking `_id` get one in each batch.
        array: String,
        /// The documents with an element lacking `_id`.
        missing: Value,
        /// `true`: buckets are walked; `false`: parents.
        buckets: bool,
    },
    /// `Op::Batched`.
    Batched {
        /// The walk.
        batched: BatchedOp,
        /// `true`: buckets are walked; `false`: parents.
        buckets: bool,
    },
    /// `Op::Gather`.
    Gather {
        /// The walk.
        batched: BatchedOp,
        /// The guard of the parents left over, and the check naming one.
        leftover: Option<(Value, CheckOp)>,
    },
    /// `Op::Backfill`.
    Backfill {
        /// The source's collection.
        source_collection: String,
        /// The source's stored path.
        source_path: String,
        /// The collection of the copies.
        collection: String,
        /// The path matched against the source's `_id`.
        match_path: String,
        /// The path set.
        set_path: String,
        /// `arrayFilters` identifiers.
        array_filters: Vec<String>,
    },
    /// `Op::DropCollection`.
    DropCollection {
        /// The collection.
        collection: String,
    },
    /// `Op::DropIndex`.
    DropIndex {
        /// The collection.
        collection: String,
        /// The index's name.
        name: String,
    },
}

/// `squillion::migrate::Batched`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchedOp {
    /// The collection walked.
    pub collection: String,
    /// The documents not yet done.
    pub guard: Value,
    /// The stages after each batch's `$match`.
    pub stages: Vec<Value>,
}

/// `squillion::migrate::Check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckOp {
    /// The collection read.
    pub collection: String,
    /// The pipeline finding the first offender.
    pub pipeline: Vec<Value>,
    /// The error, `{id}` and `{n}` standing for the offender's `_id` and count.
    pub error: String,
}

/// `squillion::migrate::Index`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexOp {
    /// Its name.
    pub name: String,
    /// Its keys, in order.
    pub keys: Value,
    /// Unique.
    pub unique: bool,
    /// Sparse.
    pub sparse: bool,
    /// Partial filter expression.
    pub partial_filter: Option<Value>,
    /// Locale and strength.
    pub collation: Option<(String, u32)>,
    /// TTL.
    pub expire_after_seconds: Option<u64>,
}

fn check(c: &Check) -> CheckOp {
    let (collection, pipeline) = pipelines::check(c);
    CheckOp {
        collection,
        pipeline,
        error: c.error("{id}", "{n}"),
    }
}

fn batched(b: pipelines::Batched) -> BatchedOp {
    BatchedOp {
        collection: b.collection,
        guard: b.guard,
        stages: b.stages,
    }
}

/// `schema_version` as the validator wants it: an `int` (32 bits) while it fits.
fn version_value(version: u32) -> Value {
    json!(version)
}

/// The operation of a step; `None` only for an action without one (none today).
pub fn op(step: &Step) -> Option<Op> {
    let a = &step.action;
    let update = |collection: &str, filter: Value, update: Value| Op::UpdateMany {
        collection: collection.to_owned(),
        filter,
        update,
    };
    // Children leaving an array: their batches give ids first.
    if let Some(array) = pipelines::ids_array(a) {
        return Some(Op::SplitOut {
            batched: batched(pipelines::batched(a)?),
            array: array.to_owned(),
            missing: pipelines::missing_ids(array),
            buckets: matches!(a, Action::SplitBuckets { .. }),
        });
    }
    Some(match a {
        Action::Check { check: c } => Op::Check(check(c)),
        Action::SplitOut { .. }
        | Action::ReferToParent { .. }
        | Action::Summarise { .. }
        | Action::FillBuckets { .. }
        | Action::LinkPairs { .. }
        | Action::SplitBuckets { .. } => Op::Batched {
            batched: batched(pipelines::batched(a)?),
            buckets: matches!(a, Action::SplitBuckets { .. }),
        },
        Action::Gather { .. } | Action::GatherBuckets { .. } => Op::Gather {
            batched: batched(pipelines::batched(a)?),
            leftover: pipelines::leftover(a).map(|(guard, c)| (guard, check(&c))),
        },
        Action::KeepIds {
            collection,
            from,
            to,
        } => {
            let (guard, pipeline) = pipelines::keep_ids(from, to);
            update(collection, guard, pipeline)
        }
        Action::DropCollection { collection } => Op::DropCollection {
            collection: collection.clone(),
        },
        Action::CreateCollection {
            collection,
            validator,
        } => Op::CreateCollection {
            collection: collection.clone(),
            validator: validator.clone(),
        },
        Action::CreateIndex { collection, index } => Op::CreateIndex {
            collection: collection.clone(),
            index: IndexOp {
                name: index.name.clone(),
                keys: crate::scripts::keys(index),
                unique: index.unique,
                sparse: index.sparse,
                partial_filter: index.partial_filter.clone(),
                collation: index
                    .collation
                    .as_ref()
                    .map(|c| (c.locale.clone(), u32::from(c.strength))),
                expire_after_seconds: index.expire_after_seconds,
            },
        },
        Action::RelaxValidator {
            collection,
            validator,
        } => Op::CollMod {
            collection: collection.clone(),
            validator: validator.clone(),
            strict: false,
        },
        Action::TightenValidator {
            collection,
            validator,
        } => Op::CollMod {
            collection: collection.clone(),
            validator: validator.clone(),
            strict: true,
        },
        Action::Rename {
            collection,
            from,
            to,
        } => {
            let (guard, pipeline) = pipelines::rename(from, to);
            update(collection, guard, pipeline)
        }
        Action::WrapReference {
            collection,
            path,
            id_name,
            old_type,
        } => update(
            collection,
            json!({ path: { "$type": old_type } }),
            json!([{ "$set": { path: { id_name: format!("${path}") } } }]),
        ),
        Action::Unset { collection, path } => update(
            collection,
            json!({ path: { "$exists": true } }),
            json!({ "$unset": { path: "" } }),
        ),
        Action::SetVersion {
            collection,
            version,
        } => update(
            collection,
            version_guard(*version),
            json!({ "$set": { "schema_version": version_value(*version) } }),
        ),
        Action::DropIndex { collection, name } => Op::DropIndex {
            collection: collection.clone(),
            name: name.clone(),
        },
        Action::Backfill {
            source_collection,
            source_path,
            fan_out,
        } => Op::Backfill {
            source_collection: source_collection.clone(),
            source_path: source_path.clone(),
            collection: fan_out.collection.clone(),
            match_path: fan_out.match_path.clone(),
            set_path: fan_out.set_path.clone(),
            array_filters: fan_out.array_filters.clone(),
        },
    })
}
