//! `squillion audit` on databases written by generated repositories, for every schema of the
//! batch: the database as the repositories leave it has no finding at all; then, one at a time,
//! drift is written behind the repositories' back (a copy's source changed, a summary off by
//! one, a subset missing its first child or holding a changed copy, one side of a two-way link
//! dropped), and the audit's data findings are exactly the ones that drift makes, before the
//! drift is undone.

use std::collections::BTreeSet;

use bson::{doc, Bson, Document};
use futures::StreamExt;
use mongodb::Database;
use squillion_codegen::plan::{
    Collection, CollectionRole, ComputedFn, Layout, Plan, Shape, SummaryFn,
};
use squillion_modelcheck::run::populate;
use squillion_modelcheck::schemas::SCHEMAS;

/// `(collection, kind, path, count)` of a finding.
type Row = (String, String, String, u64);

/// The data invariants' finding kinds.
const DATA: [&str; 5] = [
    "stale_copy",
    "wrong_subset",
    "stale_subset",
    "wrong_summary",
    "broken_link",
];

fn row(c: &str, kind: &str, path: &str, n: u64) -> Row {
    (c.to_owned(), kind.to_owned(), path.to_owned(), n)
}

/// The findings of an audit of `db`, each with its detail.
async fn audit(db: &Database, sqn: &str, name: &str) -> Result<Vec<(Row, String)>, String> {
    let source = squillion_grammar::SourceFile::new(format!("{name}.sqn"), sqn.to_owned());
    let checked = squillion_codegen::load(&source).map_err(|d| format!("{d:?}"))?;
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    let report = squillion_cli::audit::audit(db, &checked.model, &plan, 100_000, &|_| {})
        .await
        .map_err(|e| format!("audit failed: {e}"))?;
    Ok(report
        .findings
        .iter()
        .map(|f| {
            let kind = serde_json::to_value(f.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            (
                (
                    f.collection.clone(),
                    kind,
                    f.path.clone().unwrap_or_default(),
                    f.count,
                ),
                f.detail.clone(),
            )
        })
        .collect())
}

fn data(rows: &[(Row, String)]) -> BTreeSet<Row> {
    rows.iter()
        .map(|(r, _)| r)
        .filter(|r| DATA.contains(&r.1.as_str()))
        .cloned()
        .collect()
}

/// Another value of the same type.
fn changed(v: &Bson) -> Option<Bson> {
    Some(match v {
        Bson::String(s) => Bson::String(format!("{s}~")),
        Bson::Int32(n) => Bson::Int32(n.wrapping_add(1)),
        Bson::Int64(n) => Bson::Int64(n.wrapping_add(1)),
        Bson::Double(n) => Bson::Double(n + 1.5),
        Bson::Boolean(b) => Bson::Boolean(!b),
        Bson::DateTime(d) => Bson::DateTime(bson::DateTime::from_millis(
            d.timestamp_millis().wrapping_add(1000),
        )),
        _ => return None,
    })
}

/// The first document of `collection` matching `filter`.
async fn first(db: &Database, collection: &str, filter: Document) -> Option<Document> {
    db.collection::<Document>(collection)
        .find_one(filter)
        .await
        .ok()
        .flatten()
}

/// Sets `field` of document `id` to `value` (`None`: removes it).
async fn set(db: &Database, collection: &str, id: &Bson, field: &str, value: Option<&Bson>) {
    let change = match value {
        Some(v) => doc! { "$set": { field: v.clone() } },
        None => doc! { "$unset": { field: "" } },
    };
    db.collection::<Document>(collection)
        .update_one(doc! { "_id": id.clone() }, change)
        .await
        .unwrap_or_else(|e| panic!("{collection}: {e}"));
}

/// One drift: what to write, the findings it makes, and how to undo it.
struct Drift {
    what: String,
    collection: String,
    id: Bson,
    field: String,
    before: Option<Bson>,
    after: Bson,
    expected: BTreeSet<Row>,
    /// A collection whose lists and summaries kept over the ids the drift removes may also
    /// disagree (whether they do depends on the data: a removed child outside the top N
    /// changes nothing): their `wrong_subset`, `stale_subset` and `wrong_summary` findings
    /// are allowed beside `expected`.
    lists_in: Option<String>,
}

fn entity_collection<'p>(plan: &'p Plan, entity: &str) -> Option<&'p Collection> {
    plan.collections
        .iter()
        .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
}

/// Whether the field `Entity.field` feeds something else than copies: a subset's or top-N's
/// order or kept fields, a summary, a key.
fn feeds_more_than_copies(plan: &Plan, entity: &str, field: &str) -> bool {
    plan.relationships.iter().any(|d| {
        d.child == entity
            && (d
                .subset
                .as_ref()
                .is_some_and(|s| s.sort_by == field || s.keep.iter().any(|k| k == field))
                || d.computed.iter().any(|x| {
                    x.field.as_deref() == Some(field)
                        || matches!(&x.function, ComputedFn::TopN { keep, .. } if keep.iter().any(|k| k == field))
                }))
    })
}

/// A source changed without its copies: every place copying it, in the documents naming that
/// source, is stale.
async fn copy_drifts(db: &Database, plan: &Plan) -> Vec<Drift> {
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    for x in plan.relationships.iter().flat_map(|d| &d.denormalized) {
        let Some((entity, field)) = x.source.split_once('.') else {
            continue;
        };
        if !done.insert(x.source.clone()) || feeds_more_than_copies(plan, entity, field) {
            continue;
        }
        let Some(source) = entity_collection(plan, entity) else {
            continue;
        };
        let Some(stored) = source
            .fields
            .iter()
            .find(|f| f.code_name == field || f.name == field)
        else {
            continue;
        };
        if stored.name == "_id" || stored.flags.unique {
            continue;
        }
        // A holder of this copy, and the source it names.
        let Some(holder) = first(
            db,
            &x.fan_out.collection,
            doc! { &x.fan_out.match_path: { "$exists": true } },
        )
        .await
        else {
            continue;
        };
        let Some(id) = ids_at(&holder, &x.fan_out.match_path).into_iter().next() else {
            continue;
        };
        let Some(s) = first(db, &source.name, doc! { "_id": id.clone() }).await else {
            continue;
        };
        let Some(before) = s.get(&stored.name).cloned() else {
            continue;
        };
        let Some(after) = changed(&before) else {
            continue;
        };
        let mut expected = BTreeSet::new();
        for y in plan
            .relationships
            .iter()
            .flat_map(|d| &d.denormalized)
            .filter(|y| y.source == x.source)
        {
            let n = db
                .collection::<Document>(&y.fan_out.collection)
                .count_documents(doc! { &y.fan_out.match_path: id.clone() })
                .await
                .unwrap_or(0);
            if n > 0 {
                expected.insert(row(&y.collection, "stale_copy", &y.copy_path, n));
            }
        }
        out.push(Drift {
            what: format!("{} of {} changed without its copies", x.source, id),
            collection: source.name.clone(),
            id,
            field: stored.name.clone(),
            before: Some(before),
            after,
            expected,
            lists_in: None,
        });
    }
    out
}

/// The ids at a dotted path, through arrays.
fn ids_at(doc: &Document, path: &str) -> Vec<Bson> {
    let mut current = vec![Bson::Document(doc.clone())];
    for seg in path.split('.') {
        let mut next = Vec::new();
        for v in current {
            let items = match v {
                Bson::Array(a) => a,
                other => vec![other],
            };
            for i in items {
                if let Bson::Document(d) = i {
                    match d.get(seg) {
                        Some(Bson::Array(a)) => next.extend(a.iter().cloned()),
                        Some(v) => next.push(v.clone()),
                        None => {}
                    }
                }
            }
        }
        current = next;
    }
    current
        .into_iter()
        .filter(|v| !matches!(v, Bson::Null))
        .collect()
}

/// A summary written off by one (or a second later), in one document.
async fn summary_drifts(db: &Database, plan: &Plan) -> Vec<Drift> {
    let mut out = Vec::new();
    for d in &plan.relationships {
        for x in &d.computed {
            let ComputedFn::Summary { summary } = &x.function else {
                continue;
            };
            if *summary == SummaryFn::Avg || x.path.contains('.') {
                continue;
            }
            let Some(holder) = first(
                db,
                &x.collection,
                doc! { &x.path: { "$exists": true, "$ne": null } },
            )
            .await
            else {
                continue;
            };
            let (Some(id), Some(before)) = (holder.get("_id"), holder.get(&x.path)) else {
                continue;
            };
            let Some(after) = changed(before) else {
                continue;
            };
            out.push(Drift {
                what: format!("{}.{} of {id} changed", x.collection, x.path),
                collection: x.collection.clone(),
                id: id.clone(),
                field: x.path.clone(),
                before: Some(before.clone()),
                after,
                expected: [row(&x.collection, "wrong_summary", &x.path, 1)].into(),
                lists_in: None,
            });
        }
    }
    out
}

/// A subset or top-N list without its first copy (wrong), or with one of its copied fields
/// changed (stale).
async fn subset_drifts(db: &Database, plan: &Plan) -> Vec<Drift> {
    let mut out = Vec::new();
    for d in &plan.relationships {
        let mut lists: Vec<(&str, &str, &str)> = Vec::new();
        if let Some(s) = &d.subset {
            lists.push((&s.collection, &s.path, &s.sort_by));
        }
        for x in &d.computed {
            if let ComputedFn::TopN { sort_by, .. } = &x.function {
                lists.push((&x.collection, &x.path, sort_by));
            }
        }
        for (collection, path, sort_by) in lists {
            let Some(c) = plan.collection(collection) else {
                continue;
            };
            let Some(list) = c.field(path) else { continue };
            // Lists of children in their own collection: an embedded array's lists (an entity
            // embedded in itself has a collection, but its children are in the array) are kept
            // by the array's writes, not audited against a collection.
            let embedded = d.strategy == squillion_codegen::model::Layout::Embed;
            let has_children = !embedded
                && entity_collection(plan, &d.child).is_some_and(|children| {
                    d.placement
                        .iter()
                        .any(|p| p.collection == children.name && !p.path.contains('.'))
                });
            if !has_children || path.contains('.') {
                continue;
            }
            let Some(parent) = first(
                db,
                collection,
                doc! { format!("{path}.0"): { "$exists": true } },
            )
            .await
            else {
                continue;
            };
            let (Some(id), Ok(items)) = (parent.get("_id"), parent.get_array(path)) else {
                continue;
            };
            let before = Bson::Array(items.clone());
            out.push(Drift {
                what: format!("{collection}.{path} of {id} without its first copy"),
                collection: collection.to_owned(),
                id: id.clone(),
                field: path.to_owned(),
                before: Some(before.clone()),
                after: Bson::Array(items[1..].to_vec()),
                expected: [row(collection, "wrong_subset", path, 1)].into(),
                lists_in: None,
            });
            // A kept scalar that does not order the list.
            let kept = list.children.iter().find(|k| {
                k.name != "_id"
                    && k.code_name != sort_by
                    && k.name != sort_by
                    && k.children.is_empty()
                    && k.array_depth == 0
            });
            let mut copy = items[0].as_document().cloned().unwrap_or_default();
            let Some(k) = kept else { continue };
            let Some(after) = copy.get(&k.name).and_then(changed) else {
                continue;
            };
            copy.insert(k.name.clone(), after);
            let mut after = items.clone();
            after[0] = Bson::Document(copy);
            out.push(Drift {
                what: format!("{collection}.{path}.0.{} of {id} changed", k.name),
                collection: collection.to_owned(),
                id: id.clone(),
                field: path.to_owned(),
                before: Some(before),
                after: Bson::Array(after),
                expected: [row(collection, "stale_subset", path, 1)].into(),
                lists_in: None,
            });
        }
    }
    out
}

/// One id dropped from the array side of a two-way link: the document it named still names
/// the holder, which no longer names it back.
async fn link_drifts(db: &Database, plan: &Plan) -> Vec<Drift> {
    let mut out = Vec::new();
    for d in plan
        .relationships
        .iter()
        .filter(|d| d.strategy == Layout::TwoWay)
    {
        let [a, b] = d.placement.as_slice() else {
            continue;
        };
        for (here, other) in [(a, b), (b, a)] {
            if here.path.contains('.')
                || other.path.contains('.')
                || !matches!(here.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs)
            {
                continue;
            }
            let Some(holder) = first(
                db,
                &here.collection,
                doc! { format!("{}.0", here.path): { "$exists": true } },
            )
            .await
            else {
                continue;
            };
            let (Some(id), Ok(items)) = (holder.get("_id"), holder.get_array(&here.path)) else {
                continue;
            };
            out.push(Drift {
                what: format!(
                    "{}.{} of {id} without its first id",
                    here.collection, here.path
                ),
                collection: here.collection.clone(),
                id: id.clone(),
                field: here.path.clone(),
                before: Some(Bson::Array(items.clone())),
                after: Bson::Array(items[1..].to_vec()),
                expected: [row(&other.collection, "broken_link", &other.path, 1)].into(),
                lists_in: Some(here.collection.clone()),
            });
            break;
        }
    }
    out
}

/// What one schema's audits showed: the drifts written and found, and the data findings on the
/// database as the repositories left it.
struct Checked {
    drifts: Vec<String>,
    left: BTreeSet<Row>,
}

/// Audits one schema's database as the repositories left it, then each drift.
async fn check(db: &Database, plan: &Plan, sqn: &str, name: &str) -> Result<Checked, String> {
    let clean = audit(db, sqn, name).await?;
    // Summaries of children named by an id array or naming several parents, and top-N lists fed
    // only by `offer_<f>`, are not maintained by every write the harness makes (see the test's
    // assertion): what the repositories leave there is real drift, and the baseline the drifts
    // below are added to.
    let left = data(&clean);
    // A queue's `complete` without a done flag deletes the job whatever names it, as `delete`
    // does (docs/derive.md: plain references are not checked): what named a completed job (a
    // bucket's owner) points nowhere, and the audit says so.
    let names_a_job = |r: &Row| {
        r.1 == "dangling_reference"
            && plan
                .collection(&r.0)
                .and_then(|c| c.field(&r.2))
                .and_then(|f| f.source.as_deref())
                .and_then(|e| entity_collection(plan, e))
                .is_some_and(|c| c.patterns.iter().any(|p| p.name == "queue"))
    };
    let unexpected: Vec<&(Row, String)> = clean
        .iter()
        .filter(|(r, _)| !matches!(r.1.as_str(), "wrong_summary" | "wrong_subset"))
        .filter(|(r, _)| !names_a_job(r))
        .collect();
    if !unexpected.is_empty() {
        return Err(format!(
            "findings on the database the repositories wrote: {unexpected:#?}"
        ));
    }
    let touched = |r: &Row| left.iter().any(|l| l.0 == r.0 && l.2 == r.2);
    let mut drifts = copy_drifts(db, plan).await;
    drifts.extend(summary_drifts(db, plan).await);
    drifts.extend(subset_drifts(db, plan).await);
    drifts.extend(link_drifts(db, plan).await);
    let mut written = Vec::new();
    for dr in drifts.iter().filter(|d| !d.expected.iter().any(touched)) {
        set(db, &dr.collection, &dr.id, &dr.field, Some(&dr.after)).await;
        let report = audit(db, sqn, name).await?;
        set(db, &dr.collection, &dr.id, &dr.field, dr.before.as_ref()).await;
        let found: BTreeSet<Row> = data(&report)
            .into_iter()
            .filter(|r| {
                left.contains(r)
                    || dr.expected.contains(r)
                    || dr.lists_in.as_deref() != Some(r.0.as_str())
                    || !matches!(
                        r.1.as_str(),
                        "wrong_subset" | "stale_subset" | "wrong_summary"
                    )
            })
            .collect();
        let expected: BTreeSet<Row> = left.union(&dr.expected).cloned().collect();
        if found != expected {
            return Err(format!(
                "{}: the audit found {found:?}, the drift makes {:?}\n{report:#?}",
                dr.what, dr.expected
            ));
        }
        written.extend(dr.expected.iter().map(|r| r.1.clone()));
    }
    let after = data(&audit(db, sqn, name).await?);
    if after != left {
        return Err(format!("findings once every drift is undone: {after:#?}"));
    }
    Ok(Checked {
        drifts: written,
        left,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_finds_exactly_the_drift_written_behind_the_repositories_back() {
    let steps = std::env::var("SQUILLION_MODELCHECK_AUDIT_STEPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(80);
    let client = mongodb::Client::with_uri_str(squillion_testkit::uri())
        .await
        .unwrap_or_else(|e| panic!("cannot connect to SQUILLION_MONGODB_URI: {e}"));
    let generated: Vec<_> = SCHEMAS.iter().filter(|s| s.origin == "generated").collect();
    let results: Vec<(&str, Result<Checked, String>)> =
        futures::stream::iter(generated.iter().enumerate())
            .map(|(i, entry)| {
                let client = client.clone();
                async move {
                    let result = match populate(&client, entry, 5000 + i as u64, steps).await {
                        Ok((db, plan)) => {
                            let r = check(&db, &plan, entry.sqn, entry.name).await;
                            let _ = db.drop().await;
                            r
                        }
                        // The batch test reports failures of the repositories themselves.
                        Err(_) => Ok(Checked {
                            drifts: vec![],
                            left: BTreeSet::new(),
                        }),
                    };
                    (entry.name, result)
                }
            })
            .buffer_unordered(4)
            .collect()
            .await;
    let mut drifts = std::collections::BTreeMap::<String, usize>::new();
    let mut left = Vec::new();
    for (name, r) in &results {
        if let Ok(c) = r {
            for k in &c.drifts {
                *drifts.entry(k.clone()).or_default() += 1;
            }
            left.extend(c.left.iter().map(|l| format!("{name}: {l:?}")));
        }
    }
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(name, r)| r.as_ref().err().map(|e| format!("{name}: {e}")))
        .collect();
    eprintln!(
        "audit: {} schemas, drifts written and found by kind {drifts:?}, {} failed; data findings on what the repositories wrote ({}):\n{}",
        results.len(),
        failures.len(),
        left.len(),
        left.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {} schemas:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
    // Subsets and top-N lists the batch fills are rare (and those it leaves wrong are skipped):
    // the examples' tests in the CLI write their drift.
    for kind in ["stale_copy", "wrong_summary", "broken_link"] {
        assert!(
            drifts.contains_key(kind),
            "the batch writes drift of this kind: {kind} ({drifts:?})"
        );
    }
}
