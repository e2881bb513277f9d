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

/// Applies the drift: creates missing collections (with their validator), creates missing
/// indexes, rebuilds declared indexes whose options differ, sets differing validators with
/// `collMod`; drops extra indexes only when `prune`. Returns what it did, one line per action.
pub async fn apply(
    db: &Database,
    plan: &Plan,
    drift: &[CollectionDrift],
    prune: bool,
) -> mongodb::error::Result<Vec<String>> {
    let mut actions = Vec::new();
    for d in drift {
        let Some(c) = plan.collection(&d.collection) else {
            continue;
        };
        let validator = validator_document(c);
        if !d.exists {
            db.create_collection(&c.name)
                .validator(validator.clone())
                .await?;
            actions.push(format!("created collection {} with its validator", c.name));
        } else if d.validator != ValidatorDrift::InSync {
            db.run_command(doc! { "collMod": &c.name, "validator": validator.clone() })
                .await?;
            actions.push(format!("set the validator of {} (collMod)", c.name));
        }
        let coll = db.collection::<Document>(&c.name);
        for drift in &d.indexes {
            match drift {
                IndexDrift::Missing { name, .. } => {
                    if let Some(i) = c.indexes.iter().find(|i| &i.name == name) {
                        coll.create_index(index_model(i)).await?;
                        actions.push(format!("created index {}.{}", c.name, name));
                    }
                }
                IndexDrift::Different { name, .. } => {
                    if let Some(i) = c.indexes.iter().find(|i| &i.name == name) {
                        // A declared index whose options changed: rebuilt under the same name.
                        if coll.drop_index(name).await.is_ok() {
                            actions.push(format!(
                                "dropped index {}.{} (options changed)",
                                c.name, name
                            ));
                        }
                        coll.create_index(index_model(i)).await?;
                        actions.push(format!("created index {}.{}", c.name, name));
                    }
                }
                IndexDrift::Extra { name, .. } => {
                    if prune {
                        coll.drop_index(name).await?;
                        actions.push(format!("dropped index {}.{} (--prune)", c.name, name));
                    } else {
                        actions.push(format!(
                            "kept index {}.{} (not declared; --prune drops it)",
                            c.name, name
                        ));
                    }
                }
            }
        }
    }
    Ok(actions)
}

/// The driver's model of a declared index.
pub fn index_model(i: &squillion_codegen::plan::Index) -> IndexModel {
    let keys = json_to_document(&squillion_codegen::scripts::keys(i));
    let options = json_to_document(&squillion_codegen::scripts::options(i));
    // The options document was written by squillion from the Plan; if the driver ever refused
    // it, the index would still be created with its keys and name.
    let options = mongodb::bson::from_document::<mongodb::options::IndexOptions>(options)
        .unwrap_or_else(|_| {
            mongodb::options::IndexOptions::builder()
                .name(i.name.clone())
                .build()
        });
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
