//! Each step of a migration as the runtime's operation (`squillion::migrate::Op`): the data
//! `squillion_codegen::migration::ops` writes, its JSON read as BSON (extended JSON). The
//! generated module writes the same data as literals.

use mongodb::bson::{Bson, Document};
use squillion::migrate as rt;
use squillion_codegen::migration::ops::{self, BatchedOp, CheckOp, IndexOp, Op};
use squillion_codegen::migration::Migration;

/// Every step's name and operation, in order; `Err` names the step whose data is not BSON.
pub(super) fn steps(m: &Migration) -> Result<Vec<(String, rt::Op)>, String> {
    m.steps
        .iter()
        .map(|step| {
            let name = step.name();
            let op = ops::op(step)
                .ok_or_else(|| format!("step `{name}` has no operation (a bug in squillion)"))
                .and_then(|o| runtime(&o).map_err(|why| format!("step `{name}`: {why}")))?;
            Ok((name, op))
        })
        .collect()
}

fn bson(v: &serde_json::Value) -> Result<Bson, String> {
    Bson::try_from(v.clone()).map_err(|e| format!("{v} is not valid extended JSON: {e}"))
}

fn document(v: &serde_json::Value) -> Result<Document, String> {
    match bson(v)? {
        Bson::Document(d) => Ok(d),
        _ => Err(format!("{v} is not a document")),
    }
}

fn documents(vs: &[serde_json::Value]) -> Result<Vec<Document>, String> {
    vs.iter().map(document).collect()
}

fn check(c: &CheckOp) -> Result<rt::Check, String> {
    Ok(rt::Check {
        collection: c.collection.clone(),
        pipeline: documents(&c.pipeline)?,
        error: c.error.clone(),
    })
}

/// What a walked document is, for the progress report.
fn walk(buckets: bool) -> rt::Walk {
    if buckets {
        rt::Walk::Buckets
    } else {
        rt::Walk::Parents
    }
}

fn batched(b: &BatchedOp) -> Result<rt::Batched, String> {
    Ok(rt::Batched {
        collection: b.collection.clone(),
        guard: document(&b.guard)?,
        stages: documents(&b.stages)?,
    })
}

fn index(i: &IndexOp) -> Result<rt::Index, String> {
    Ok(rt::Index {
        name: i.name.clone(),
        keys: document(&i.keys)?,
        unique: i.unique,
        sparse: i.sparse,
        partial_filter: i.partial_filter.as_ref().map(document).transpose()?,
        collation: i.collation.clone(),
        expire_after_seconds: i.expire_after_seconds,
    })
}

/// The runtime's operation.
fn runtime(o: &Op) -> Result<rt::Op, String> {
    Ok(match o {
        Op::Check(c) => rt::Op::Check(check(c)?),
        Op::CreateCollection {
            collection,
            validator,
        } => rt::Op::CreateCollection {
            collection: collection.clone(),
            validator: document(validator)?,
        },
        Op::CreateIndex {
            collection,
            index: i,
        } => rt::Op::CreateIndex {
            collection: collection.clone(),
            index: index(i)?,
        },
        Op::CollMod {
            collection,
            validator,
            strict,
        } => rt::Op::CollMod {
            collection: collection.clone(),
            validator: document(validator)?,
            level: if *strict {
                rt::ValidationLevel::Strict
            } else {
                rt::ValidationLevel::Moderate
            },
        },
        Op::UpdateMany {
            collection,
            filter,
            update,
        } => rt::Op::UpdateMany {
            collection: collection.clone(),
            filter: document(filter)?,
            update: match update {
                serde_json::Value::Array(stages) => rt::Update::Pipeline(documents(stages)?),
                other => rt::Update::Document(document(other)?),
            },
        },
        Op::Batched {
            batched: b,
            buckets,
        } => rt::Op::Batched {
            batched: batched(b)?,
            walk: walk(*buckets),
        },
        Op::SplitOut {
            batched: b,
            array,
            missing,
            buckets,
        } => rt::Op::SplitOut {
            batched: batched(b)?,
            ids: rt::Ids {
                array: array.clone(),
                missing: document(missing)?,
            },
            walk: walk(*buckets),
        },
        Op::Gather {
            batched: b,
            leftover,
        } => rt::Op::Gather {
            batched: batched(b)?,
            leftover: match leftover {
                Some((guard, c)) => Some((document(guard)?, check(c)?)),
                None => None,
            },
        },
        Op::Backfill {
            source_collection,
            source_path,
            collection,
            match_path,
            set_path,
            array_filters,
        } => rt::Op::Backfill(rt::Backfill {
            source_collection: source_collection.clone(),
            source_path: source_path.clone(),
            collection: collection.clone(),
            match_path: match_path.clone(),
            set_path: set_path.clone(),
            array_filters: array_filters.clone(),
        }),
        Op::DropCollection { collection } => rt::Op::DropCollection {
            collection: collection.clone(),
        },
        Op::DropIndex { collection, name } => rt::Op::DropIndex {
            collection: collection.clone(),
            name: name.clone(),
        },
    })
}
