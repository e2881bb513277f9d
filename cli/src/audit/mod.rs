//! `squillion audit FILE --uri URI [--sample N]`: samples each collection and reports where the
//! data contradicts the design.

pub mod checks;
pub mod report;

use std::collections::BTreeMap;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use serde::Serialize;
use squillion_codegen::plan::Plan;

pub use checks::{Finding, FindingKind};

/// The outcome of an audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// Documents sampled per collection.
    pub sampled: BTreeMap<String, u64>,
    /// Contradictions found, by collection, kind and path.
    pub findings: Vec<Finding>,
}

/// Progress callback: called once per sampled document.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Audits every collection of the plan, sampling up to `sample` documents in each.
pub async fn audit(
    db: &Database,
    plan: &Plan,
    sample: u64,
    progress: Progress<'_>,
) -> mongodb::error::Result<AuditReport> {
    let mut sampled = BTreeMap::new();
    let mut findings: BTreeMap<(String, FindingKind, Option<String>), Finding> = BTreeMap::new();
    let existing = db.list_collection_names().await?;
    let entity_collection: BTreeMap<&str, &str> = plan
        .collections
        .iter()
        .filter(|c| c.role == squillion_codegen::plan::CollectionRole::Entity)
        .map(|c| (c.entity.as_str(), c.name.as_str()))
        .collect();
    for c in &plan.collections {
        if !existing.contains(&c.name) {
            sampled.insert(c.name.clone(), 0);
            continue;
        }
        let schema_version = c.schema_version;
        let size = i64::try_from(sample).unwrap_or(i64::MAX);
        let docs: Vec<Document> = db
            .collection::<Document>(&c.name)
            .aggregate(vec![doc! { "$sample": { "size": size } }])
            .await?
            .try_collect()
            .await?;
        sampled.insert(c.name.clone(), docs.len() as u64);
        let mut refs: BTreeMap<String, Vec<(Bson, String)>> = BTreeMap::new();
        for d in &docs {
            progress(1);
            let id = d.get("_id").map(|v| v.to_string());
            for o in checks::check_document(c, &plan.settings, d, schema_version) {
                let key = (c.name.clone(), o.kind, o.path.clone());
                let entry = findings.entry(key).or_insert_with(|| Finding {
                    collection: c.name.clone(),
                    kind: o.kind,
                    path: o.path.clone(),
                    count: 0,
                    example: id.clone(),
                    detail: String::new(),
                });
                entry.count += 1;
                entry.detail = detail(&o, entry.count);
            }
            for (target, value) in checks::references(c, d) {
                refs.entry(target)
                    .or_default()
                    .push((value, id.clone().unwrap_or_default()));
            }
        }
        for (target, values) in refs {
            let Some(coll) = entity_collection.get(target.as_str()) else {
                continue;
            };
            let ids: Vec<Bson> = values.iter().map(|(v, _)| v.clone()).take(1000).collect();
            let found: Vec<Document> = db
                .collection::<Document>(coll)
                .find(doc! { "_id": { "$in": ids.clone() } })
                .projection(doc! { "_id": 1 })
                .await?
                .try_collect()
                .await?;
            let found: Vec<&Bson> = found.iter().filter_map(|d| d.get("_id")).collect();
            let dangling: Vec<&(Bson, String)> = values
                .iter()
                .take(1000)
                .filter(|(v, _)| !found.contains(&v))
                .collect();
            if let Some((value, example)) = dangling.first() {
                findings.insert(
                    (
                        c.name.clone(),
                        FindingKind::DanglingReference,
                        Some(target.clone()),
                    ),
                    Finding {
                        collection: c.name.clone(),
                        kind: FindingKind::DanglingReference,
                        path: Some(target.clone()),
                        count: dangling.len() as u64,
                        example: Some(example.clone()),
                        detail: format!(
                            "{} of {} sampled references to {target} point nowhere (e.g. {value})",
                            dangling.len(),
                            ids.len()
                        ),
                    },
                );
            }
        }
    }
    for d in crate::sync::inspect(db, plan).await? {
        for i in &d.indexes {
            if let crate::sync::IndexDrift::Missing { name, keys } = i {
                findings.insert(
                    (d.collection.clone(), FindingKind::MissingIndex, Some(name.clone())),
                    Finding {
                        collection: d.collection.clone(),
                        kind: FindingKind::MissingIndex,
                        path: Some(name.clone()),
                        count: 1,
                        example: None,
                        detail: format!("declared index {name} {keys} is missing (squillion indexes --apply creates it)"),
                    },
                );
            }
        }
    }
    Ok(AuditReport {
        sampled,
        findings: findings.into_values().collect(),
    })
}

fn detail(o: &checks::Observation, count: u64) -> String {
    match o.kind {
        FindingKind::ArrayOverBound => format!(
            "{count} sampled documents; an array of {} elements where the design allows {}",
            o.value, o.limit
        ),
        FindingKind::DocumentSize => format!(
            "{count} sampled documents over {} bytes (largest seen: {} bytes)",
            o.limit, o.value
        ),
        FindingKind::UnknownField => {
            format!("{count} sampled documents have a field the schema does not declare")
        }
        FindingKind::OldSchemaVersion => format!(
            "{count} sampled documents below schema version {} (found {})",
            o.limit, o.value
        ),
        FindingKind::MissingIndex | FindingKind::DanglingReference => String::new(),
    }
}
