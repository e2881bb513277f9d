//! `squillion audit FILE --uri URI [--sample N]`: samples each collection and reports where the
//! data contradicts the design.

pub mod checks;
pub mod copies;
pub mod drift;
pub mod layout;
pub mod links;
pub mod prose;
pub mod rank;
pub mod report;
pub mod subsets;
pub mod summaries;

use std::collections::BTreeMap;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use serde::Serialize;
use squillion_codegen::model::Model;
use squillion_codegen::plan::Plan;

pub use checks::{Finding, FindingKind};

/// The outcome of an audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// Documents sampled per collection.
    pub sampled: BTreeMap<String, u64>,
    /// Contradictions found, what to change first first: ranked by the documents each concerns
    /// times the plan's average document size.
    pub findings: Vec<Finding>,
}

/// Progress callback: called once per sampled document.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Distinct references checked per field: beyond this many, the detail says how many were.
const REFERENCES_CHECKED: usize = 10_000;
/// Ids per `$in` query.
const IDS_PER_QUERY: usize = 1_000;

/// The references one field holds over the sample.
struct FieldReferences {
    /// The entity referenced.
    target: String,
    /// Per distinct id (by [`id_key`]): the id and the `_id`s of the documents holding it.
    ids: BTreeMap<String, (Bson, Vec<String>)>,
}

/// Findings as they accumulate over the sample: the count and the worst observation.
struct Tally {
    count: u64,
    worst: checks::Observation,
    example: Option<String>,
}

impl Tally {
    /// Whether `o` is worse than what was seen: a longer array, a larger document, an older
    /// version.
    fn is_worse(&self, o: &checks::Observation) -> bool {
        match o.kind {
            FindingKind::OldSchemaVersion => o.value < self.worst.value,
            _ => o.value > self.worst.value,
        }
    }
}

/// Audits every collection of the plan, sampling up to `sample` documents in each.
pub async fn audit(
    db: &Database,
    model: &Model,
    plan: &Plan,
    sample: u64,
    progress: Progress<'_>,
) -> mongodb::error::Result<AuditReport> {
    let mut sampled = BTreeMap::new();
    let mut tallies: BTreeMap<(String, FindingKind, Option<String>), Tally> = BTreeMap::new();
    let mut findings: BTreeMap<(String, FindingKind, Option<String>), Finding> = BTreeMap::new();
    let existing = db.list_collection_names().await?;
    let mut estimated = BTreeMap::new();
    let mut layouts = Vec::new();
    let entity_collection: BTreeMap<&str, &str> = plan
        .collections
        .iter()
        .filter(|c| c.role == squillion_codegen::plan::CollectionRole::Entity)
        .map(|c| (c.entity.as_str(), c.name.as_str()))
        .collect();
    for c in &plan.collections {
        if !existing.contains(&c.name) {
            sampled.insert(c.name.clone(), 0);
            if let Some(f) = layout::missing_collection(plan, &c.name) {
                findings.insert((c.name.clone(), f.kind, None), f);
            }
            continue;
        }
        let coll = db.collection::<Document>(&c.name);
        estimated.insert(c.name.clone(), coll.estimated_document_count().await?);
        let mut shape = crate::infer::shape::Shape::default();
        let size = i64::try_from(sample).unwrap_or(i64::MAX);
        // One document at a time: a sample of large documents is never held in memory whole.
        let mut cursor = db
            .collection::<Document>(&c.name)
            .aggregate(vec![doc! { "$sample": { "size": size } }])
            .await?;
        let mut count = 0u64;
        let mut refs: BTreeMap<String, FieldReferences> = BTreeMap::new();
        let mut data = drift::Collector::new(plan, c);
        while let Some(d) = cursor.try_next().await? {
            let d = &d;
            count += 1;
            progress(1);
            shape.observe(d, 0);
            data.observe(d);
            let id = d.get("_id").map(|v| v.to_string());
            for o in checks::check_document(c, &plan.settings, d, c.schema_version) {
                let key = (c.name.clone(), o.kind, o.path.clone());
                match tallies.get_mut(&key) {
                    Some(t) => {
                        t.count += 1;
                        if t.is_worse(&o) {
                            t.worst = o;
                            t.example = id.clone();
                        }
                    }
                    None => {
                        tallies.insert(
                            key,
                            Tally {
                                count: 1,
                                worst: o,
                                example: id.clone(),
                            },
                        );
                    }
                }
            }
            for r in checks::references(c, d) {
                let holders = refs
                    .entry(r.path)
                    .or_insert_with(|| FieldReferences {
                        target: r.target,
                        ids: BTreeMap::new(),
                    })
                    .ids
                    .entry(id_key(&r.id))
                    .or_insert_with(|| (r.id, Vec::new()));
                let holder = id.clone().unwrap_or_default();
                if !holders.1.contains(&holder) {
                    holders.1.push(holder);
                }
            }
        }
        sampled.insert(c.name.clone(), count);
        for f in data.finish(db).await? {
            findings.insert((f.collection.clone(), f.kind, f.path.clone()), f);
        }
        layouts.extend(layout::findings(model, plan, &c.name, &shape));
        for (path, FieldReferences { target, ids }) in refs {
            let Some(coll) = entity_collection.get(target.as_str()) else {
                continue;
            };
            let checked: Vec<&(Bson, Vec<String>)> =
                ids.values().take(REFERENCES_CHECKED).collect();
            let mut found = std::collections::BTreeSet::new();
            for chunk in checked.chunks(IDS_PER_QUERY) {
                let wanted: Vec<Bson> = chunk.iter().map(|(v, _)| v.clone()).collect();
                let mut cursor = db
                    .collection::<Document>(coll)
                    .find(doc! { "_id": { "$in": wanted } })
                    .projection(doc! { "_id": 1 })
                    .await?;
                while let Some(d) = cursor.try_next().await? {
                    if let Some(id) = d.get("_id") {
                        found.insert(id_key(id));
                    }
                }
            }
            let dangling: Vec<&&(Bson, Vec<String>)> = checked
                .iter()
                .filter(|(v, _)| !found.contains(&id_key(v)))
                .collect();
            let Some((value, _)) = dangling.first() else {
                continue;
            };
            let mut holders: Vec<&String> = dangling.iter().flat_map(|(_, h)| h).collect();
            holders.sort();
            holders.dedup();
            let of = if ids.len() > checked.len() {
                format!("{} checked (of {})", checked.len(), ids.len())
            } else {
                checked.len().to_string()
            };
            let key = (
                c.name.clone(),
                FindingKind::DanglingReference,
                Some(path.clone()),
            );
            findings.insert(
                key,
                Finding {
                    collection: c.name.clone(),
                    kind: FindingKind::DanglingReference,
                    path: Some(path),
                    count: holders.len() as u64,
                    example: holders.first().map(|h| (*h).clone()),
                    detail: format!(
                        "{} of {of} distinct sampled references to {target} point nowhere \
                         (e.g. {value})",
                        dangling.len()
                    ),
                    help: None,
                    drift: None,
                    cost: Default::default(),
                },
            );
        }
    }
    for (key, t) in tallies {
        findings.insert(
            key,
            Finding {
                collection: String::new(),
                kind: t.worst.kind,
                path: t.worst.path.clone(),
                count: t.count,
                example: t.example,
                detail: detail(&t.worst, t.count, &plan.settings),
                help: None,
                drift: None,
                cost: Default::default(),
            },
        );
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
                        help: None,
                        drift: None,
                        cost: Default::default(),
                    },
                );
            }
        }
    }
    let mut findings: Vec<Finding> = findings
        .into_iter()
        .map(|((collection, _, _), f)| Finding { collection, ..f })
        .collect();
    // A relation held elsewhere explains the fields it leaves undeclared.
    findings.retain(|f| {
        f.kind != FindingKind::UnknownField
            || !layouts.iter().any(|l| {
                l.collection == f.collection
                    && f.path
                        .as_deref()
                        .zip(l.path.as_deref())
                        .is_some_and(|(p, end)| p == end || p.starts_with(&format!("{end}.")))
            })
    });
    findings.extend(layouts);
    for f in &mut findings {
        f.help = prose::help(f);
    }
    rank::rank(&mut findings, plan, &sampled, &estimated);
    Ok(AuditReport { sampled, findings })
}

/// A key under which equal ids compare equal: numbers by value (an int32 reference finds an
/// int64 `_id`, as `$in` does), everything else by its extended JSON.
fn id_key(v: &Bson) -> String {
    match v {
        Bson::Int32(n) => format!("n:{}", f64::from(*n)),
        Bson::Int64(n) => format!("n:{}", *n as f64),
        Bson::Double(n) => format!("n:{n}"),
        other => other.clone().into_canonical_extjson().to_string(),
    }
}

fn detail(
    o: &checks::Observation,
    count: u64,
    settings: &squillion_codegen::plan::Settings,
) -> String {
    match o.kind {
        FindingKind::ArrayOverBound => format!(
            "{count} sampled documents; the longest array has {} elements where the design allows {}",
            o.value, o.limit
        ),
        FindingKind::MapOverBound => format!(
            "{count} sampled documents; the largest map has {} entries where the design allows {}",
            o.value, o.limit
        ),
        FindingKind::DocumentSize => format!(
            "{count} sampled documents over {} bytes (largest seen: {} bytes, {}% of the {} byte limit)",
            o.limit,
            o.value,
            o.value.saturating_mul(100) / settings.doc_max_size.max(1),
            settings.doc_max_size
        ),
        FindingKind::UnknownField => {
            format!("{count} sampled documents have a field the schema does not declare")
        }
        FindingKind::OldSchemaVersion if o.value == 0 => format!(
            "{count} sampled documents below schema version {} (some carry no version)",
            o.limit
        ),
        FindingKind::OldSchemaVersion => format!(
            "{count} sampled documents below schema version {} (oldest found: {})",
            o.limit, o.value
        ),
        FindingKind::MissingIndex
        | FindingKind::DanglingReference
        | FindingKind::LayoutDiffers
        | FindingKind::MissingCollection
        | FindingKind::StaleCopy
        | FindingKind::WrongSubset
        | FindingKind::StaleSubset
        | FindingKind::WrongSummary
        | FindingKind::BrokenLink => String::new(),
    }
}
