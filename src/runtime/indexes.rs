//! `ensure_indexes` and `ensure_validator`: idempotent, and never dropping what they do not own.

use bson::{doc, Bson, Document as BsonDocument};

use super::core::RepoCore;
use super::txn::server_code;
use crate::error::Context;
use crate::{Document, IndexSpec, Result};

/// What [`ensure_indexes`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexReport {
    /// Indexes created.
    pub created: Vec<String>,
    /// Indexes whose definition changed: dropped and created again under the same name.
    pub replaced: Vec<String>,
    /// Indexes already present as declared.
    pub unchanged: Vec<String>,
}

/// The options of an index document that decide whether two definitions are the same index.
fn comparable(d: &BsonDocument) -> BsonDocument {
    let mut out = BsonDocument::new();
    if let Ok(k) = d.get_document("key") {
        let key: BsonDocument = k
            .iter()
            .map(|(path, v)| {
                let v = match v {
                    Bson::Int32(n) => Bson::Int64(i64::from(*n)),
                    Bson::Double(f) => Bson::Int64(*f as i64),
                    other => other.clone(),
                };
                (path.clone(), v)
            })
            .collect();
        out.insert("key", key);
    }
    for flag in ["unique", "sparse"] {
        if d.get_bool(flag).unwrap_or(false) {
            out.insert(flag, true);
        }
    }
    match d.get("expireAfterSeconds") {
        Some(Bson::Int32(n)) => {
            out.insert("ttl", i64::from(*n));
        }
        Some(Bson::Int64(n)) => {
            out.insert("ttl", *n);
        }
        Some(Bson::Double(f)) => {
            out.insert("ttl", *f as i64);
        }
        _ => {}
    }
    if let Ok(p) = d.get_document("partialFilterExpression") {
        out.insert("partial", p.clone());
    }
    if let Ok(c) = d.get_document("collation") {
        let strength = match c.get("strength") {
            Some(Bson::Int32(n)) => i64::from(*n),
            Some(Bson::Int64(n)) => *n,
            Some(Bson::Double(f)) => *f as i64,
            _ => 3,
        };
        out.insert(
            "collation",
            doc! { "locale": c.get_str("locale").unwrap_or_default(), "strength": strength },
        );
    }
    out
}

/// The index documents of the collection, by name (empty when it does not exist yet).
async fn existing(core_db: &mongodb::Database, coll: &str) -> Result<Vec<BsonDocument>> {
    match core_db.run_command(doc! { "listIndexes": coll }).await {
        Ok(reply) => {
            let batch = reply
                .get_document("cursor")
                .ok()
                .and_then(|c| c.get_array("firstBatch").ok())
                .cloned()
                .unwrap_or_default();
            Ok(batch
                .into_iter()
                .filter_map(|b| match b {
                    Bson::Document(d) => Some(d),
                    _ => None,
                })
                .collect())
        }
        Err(e) if server_code(&e) == Some(26) => Ok(Vec::new()),
        Err(e) => Err(e).during("listIndexes", coll),
    }
}

/// Creates the declared indexes that are missing, replaces those whose definition changed, and
/// leaves every other index alone (unlike tools whose sync drops indexes they do not know).
pub async fn ensure_indexes<T: Document>(core: &RepoCore<T>) -> Result<IndexReport> {
    ensure_index_specs(core.database(), core.name(), T::INDEXES).await
}

/// [`ensure_indexes`] for a list of specs on collection `coll`.
pub async fn ensure_index_specs(
    db: &mongodb::Database,
    coll: &str,
    specs: &[IndexSpec],
) -> Result<IndexReport> {
    let mut report = IndexReport::default();
    let present = existing(db, coll).await?;
    let mut to_create = Vec::new();
    for spec in specs {
        let wanted = spec.to_document()?;
        let name = spec.name();
        match present
            .iter()
            .find(|d| d.get_str("name").is_ok_and(|n| n == name))
        {
            Some(have) if comparable(have) == comparable(&wanted) => {
                report.unchanged.push(name);
            }
            Some(_) => {
                db.run_command(doc! { "dropIndexes": coll, "index": name.as_str() })
                    .await
                    .during("dropIndexes", coll)?;
                to_create.push(wanted);
                report.replaced.push(name);
            }
            None => {
                to_create.push(wanted);
                report.created.push(name);
            }
        }
    }
    if !to_create.is_empty() {
        db.run_command(doc! { "createIndexes": coll, "indexes": to_create })
            .await
            .during("createIndexes", coll)?;
    }
    Ok(report)
}

/// What [`ensure_validator`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidatorReport {
    /// The type declares no validator; nothing was done.
    None,
    /// The collection was created with the validator.
    Created,
    /// The existing collection's validator was set (`collMod`).
    Updated,
}

/// Sets the collection's validator: `collMod` when the collection exists, `create` with the
/// validator when it does not. Running it again sets the same validator again.
pub async fn ensure_validator<T: Document>(core: &RepoCore<T>) -> Result<ValidatorReport> {
    let Some(validator) = T::validator()? else {
        return Ok(ValidatorReport::None);
    };
    let db = core.database();
    let name = core.name();
    let coll_mod = doc! {
        "collMod": name,
        "validator": validator.clone(),
        "validationLevel": "strict",
        "validationAction": "error",
    };
    match db.run_command(coll_mod).await {
        Ok(_) => Ok(ValidatorReport::Updated),
        Err(e) if server_code(&e) == Some(26) => {
            let create = doc! {
                "create": name,
                "validator": validator,
                "validationLevel": "strict",
                "validationAction": "error",
            };
            match db.run_command(create).await {
                Ok(_) => Ok(ValidatorReport::Created),
                // Created meanwhile by someone else: set the validator on it.
                Err(e) if server_code(&e) == Some(48) => {
                    db.run_command(doc! {
                        "collMod": name,
                        "validator": T::validator()?.unwrap_or_default(),
                        "validationLevel": "strict",
                        "validationAction": "error",
                    })
                    .await
                    .during("collMod", name)?;
                    Ok(ValidatorReport::Updated)
                }
                Err(e) => Err(e).during("create", name),
            }
        }
        Err(e) => Err(e).during("collMod", name),
    }
}
