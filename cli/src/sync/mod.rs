//! `squillion indexes FILE --uri URI [--apply] [--prune]`: declared indexes and validators against
//! a live database. A dry run by default; `--apply` creates what is missing, rebuilds declared
//! indexes whose options differ and sets validators; an index squillion did not declare is dropped
//! only with `--prune`.

pub mod diff;
pub mod report;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::{Database, IndexModel};
use serde::Serialize;
use squillion_codegen::plan::{Collection, Plan};

pub use diff::{ExistingIndex, IndexDrift};

/// How a collection's validator compares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidatorDrift {
    /// The server has the declared validator.
    InSync,
    /// The collection has no validator.
    Missing,
    /// The collection's validator differs from the declared one.
    Different,
}

/// The drift of one collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectionDrift {
    /// The collection.
    pub collection: String,
    /// Whether it exists on the server.
    pub exists: bool,
    /// Index differences.
    pub indexes: Vec<IndexDrift>,
    /// Validator comparison.
    pub validator: ValidatorDrift,
}

impl CollectionDrift {
    /// Whether anything differs (extra indexes count: they are reported, not dropped).
    pub fn has_drift(&self) -> bool {
        !self.exists || !self.indexes.is_empty() || self.validator != ValidatorDrift::InSync
    }
}

/// Compares every collection of the plan with the database.
pub async fn inspect(db: &Database, plan: &Plan) -> mongodb::error::Result<Vec<CollectionDrift>> {
    let names: Vec<String> = db.list_collection_names().await?;
    let mut out = Vec::new();
    for c in &plan.collections {
        let exists = names.contains(&c.name);
        let (existing, validator) = if exists {
            (
                existing_indexes(db, &c.name).await?,
                existing_validator(db, &c.name).await?,
            )
        } else {
            (Vec::new(), None)
        };
        let declared = declared_validator(c);
        let validator = match validator {
            None => ValidatorDrift::Missing,
            Some(v) if same_json(&v, &declared) => ValidatorDrift::InSync,
            Some(_) => ValidatorDrift::Different,
        };
        out.push(CollectionDrift {
            collection: c.name.clone(),
            exists,
            indexes: diff::diff(&c.indexes, &existing),
            validator,
        });
    }
    Ok(out)
}

/// What `--apply` did, and what the server refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// Done, one line per action.
    pub done: Vec<String>,
    /// Refused by the server (duplicate keys under a declared unique index, an undeclared index
    /// on the same keys...), one line each with the reason. The rest was still applied.
    pub failed: Vec<String>,
}

/// Applies the drift: creates missing collections (with their validator), sets differing
/// validators with `collMod`, drops extra indexes when `prune` (first, so that a declared index
/// can take their keys), rebuilds declared indexes whose options differ, creates missing ones.
///
/// What the server refuses for one collection or index is recorded in `applied.failed` and the
/// rest goes on; an error that is not about one operation (the connection is gone) stops here,
/// with `applied` holding what was done before it.
pub async fn apply(
    db: &Database,
    plan: &Plan,
    drift: &[CollectionDrift],
    prune: bool,
    applied: &mut Applied,
) -> mongodb::error::Result<()> {
    for d in drift {
        let Some(c) = plan.collection(&d.collection) else {
            continue;
        };
        let validator = validator_document(c);
        if !d.exists {
            let created = db
                .create_collection(&c.name)
                .validator(validator.clone())
                .await;
            record(
                applied,
                created,
                format!("created collection {} with its validator", c.name),
                || format!("cannot create collection {}", c.name),
            )?;
        } else if d.validator != ValidatorDrift::InSync {
            let set = db
                .run_command(doc! { "collMod": &c.name, "validator": validator.clone() })
                .await;
            record(
                applied,
                set,
                format!("set the validator of {} (collMod)", c.name),
                || format!("cannot set the validator of {}", c.name),
            )?;
        }
        let coll = db.collection::<Document>(&c.name);
        for drift in &d.indexes {
            if let IndexDrift::Extra { name, .. } = drift {
                if prune {
                    let dropped = coll.drop_index(name).await;
                    record(
                        applied,
                        dropped,
                        format!("dropped index {}.{} (--prune)", c.name, name),
                        || format!("cannot drop index {}.{}", c.name, name),
                    )?;
                } else {
                    applied.done.push(format!(
                        "kept index {}.{} (not declared; --prune drops it)",
                        c.name, name
                    ));
                }
            }
        }
        for drift in &d.indexes {
            let (name, rebuild) = match drift {
                IndexDrift::Missing { name, .. } => (name, false),
                IndexDrift::Different { name, .. } => (name, true),
                IndexDrift::Extra { .. } => continue,
            };
            let Some(i) = c.indexes.iter().find(|i| &i.name == name) else {
                continue;
            };
            if rebuild {
                // A declared index whose options changed: rebuilt under the same name.
                let dropped = coll.drop_index(name).await;
                let ok = dropped.is_ok();
                record(
                    applied,
                    dropped,
                    format!("dropped index {}.{} (options changed)", c.name, name),
                    || format!("cannot drop index {}.{} to rebuild it", c.name, name),
                )?;
                if !ok {
                    continue;
                }
            }
            let created = coll.create_index(index_model(i)).await;
            record(
                applied,
                created,
                format!("created index {}.{}", c.name, name),
                || {
                    let mut what = format!("cannot create index {}.{}", c.name, name);
                    if let Some(other) = same_keys(&d.indexes, i).filter(|_| !prune) {
                        what.push_str(&format!(
                            " (the undeclared index {other} has the same keys; --prune replaces it)"
                        ));
                    }
                    what
                },
            )?;
        }
    }
    Ok(())
}

/// Records the outcome of one operation: done, refused by the server (kept in `failed`, the
/// apply goes on), or an error that stops the apply.
fn record<T>(
    applied: &mut Applied,
    outcome: mongodb::error::Result<T>,
    done: String,
    failed: impl FnOnce() -> String,
) -> mongodb::error::Result<()> {
    use mongodb::error::ErrorKind;
    match outcome {
        Ok(_) => {
            applied.done.push(done);
            Ok(())
        }
        Err(e) if matches!(*e.kind, ErrorKind::Command(_) | ErrorKind::Write(_)) => {
            applied
                .failed
                .push(format!("{}: {}", failed(), crate::database::describe(&e)));
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// The extra (undeclared) index with the same keys as `declared`, if any.
fn same_keys<'a>(
    drift: &'a [IndexDrift],
    declared: &squillion_codegen::plan::Index,
) -> Option<&'a str> {
    let keys = diff::keys_text(&diff::declared_keys(declared));
    drift.iter().find_map(|d| match d {
        IndexDrift::Extra { name, keys: k } if *k == keys => Some(name.as_str()),
        _ => None,
    })
}

/// The driver's model of a declared index.
pub fn index_model(i: &squillion_codegen::plan::Index) -> IndexModel {
    use mongodb::options::{Collation, CollationStrength, IndexOptions};
    let keys = json_to_document(&squillion_codegen::scripts::keys(i));
    // Built field by field from the Plan: an option the driver could not read is a compile
    // error here, not an index silently created without it.
    let collation = i.collation.as_ref().map(|c| {
        let strength = match c.strength {
            1 => CollationStrength::Primary,
            2 => CollationStrength::Secondary,
            4 => CollationStrength::Quaternary,
            5 => CollationStrength::Identical,
            _ => CollationStrength::Tertiary,
        };
        Collation::builder()
            .locale(c.locale.clone())
            .strength(strength)
            .build()
    });
    let options = IndexOptions::builder()
        .name(i.name.clone())
        .unique(i.unique.then_some(true))
        .sparse(i.sparse.then_some(true))
        .partial_filter_expression(i.partial_filter.as_ref().map(json_to_document))
        .collation(collation)
        .expire_after(i.expire_after_seconds.map(std::time::Duration::from_secs))
        .build();
    IndexModel::builder().keys(keys).options(options).build()
}

fn declared_validator(c: &Collection) -> serde_json::Value {
    squillion_codegen::validator::validator(c)
}

/// The declared validator as BSON.
pub fn validator_document(c: &Collection) -> Document {
    json_to_document(&declared_validator(c))
}

fn json_to_document(v: &serde_json::Value) -> Document {
    match Bson::try_from(v.clone()) {
        Ok(Bson::Document(d)) => d,
        _ => Document::new(),
    }
}

async fn existing_indexes(db: &Database, name: &str) -> mongodb::error::Result<Vec<ExistingIndex>> {
    let coll = db.collection::<Document>(name);
    let models: Vec<IndexModel> = coll.list_indexes().await?.try_collect().await?;
    Ok(models.into_iter().map(existing_index).collect())
}

fn existing_index(m: IndexModel) -> ExistingIndex {
    let keys = m
        .keys
        .iter()
        .map(|(k, v)| {
            let dir = match v {
                Bson::Int32(i) => i.to_string(),
                Bson::Int64(i) => i.to_string(),
                Bson::Double(f) => (*f as i64).to_string(),
                Bson::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), dir)
        })
        .collect();
    let o = m.options.unwrap_or_default();
    ExistingIndex {
        name: o.name.clone().unwrap_or_default(),
        keys,
        unique: o.unique.unwrap_or(false),
        sparse: o.sparse.unwrap_or(false),
        partial_filter: o
            .partial_filter_expression
            .map(|p| Bson::Document(p).into_relaxed_extjson().to_string()),
        collation: o.collation.map(|c| {
            let strength = match c.strength {
                Some(mongodb::options::CollationStrength::Primary) => 1,
                Some(mongodb::options::CollationStrength::Secondary) => 2,
                Some(mongodb::options::CollationStrength::Quaternary) => 4,
                Some(mongodb::options::CollationStrength::Identical) => 5,
                _ => 3,
            };
            (c.locale, strength)
        }),
        expire_after_seconds: o.expire_after.map(|d| d.as_secs()),
    }
}

async fn existing_validator(
    db: &Database,
    name: &str,
) -> mongodb::error::Result<Option<serde_json::Value>> {
    let specs: Vec<mongodb::results::CollectionSpecification> = db
        .list_collections()
        .filter(doc! { "name": name })
        .await?
        .try_collect()
        .await?;
    Ok(specs
        .into_iter()
        .next()
        .and_then(|s| s.options.validator)
        .map(|v| Bson::Document(v).into_relaxed_extjson()))
}

/// JSON equality with numbers compared by value (the server may store 5 as int32 or int64).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
