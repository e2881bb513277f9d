//! `squillion migrate` of what a parent keeps of its children, against the server: summaries,
//! `latest N` and `top N` added, removed and changed under each layout the children can have
//! (`embed`, `child_ref`, `parent_refs`). Each case fills the first schema's layout through its
//! validators, then migrates schema to schema, and after each migration checks every parent's
//! kept fields against a reference computed here from the stored children (not from the
//! migration's pipelines), the logical data (counts and checksum) unchanged, every document
//! valid under the new validator, the dropped fields gone, and a second run changing nothing.

use super::migrate::{
    a_second_run_changes_nothing, killed_migration, layout_text, migrate, names, Names,
};
use super::migrate_data::*;
use super::*;
use squillion_codegen::plan::{ComputedFn, Decision, Shape, SummaryFn};
use squillion_testkit::Lcg;

/// A kept change: the schemas' patterns one after the other (the first is filled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Summaries added.
    SummaryAdded,
    /// Summaries added, then removed.
    SummaryRemoved,
    /// `latest N` added.
    LatestAdded,
    /// `latest N` added, then removed.
    LatestRemoved,
    /// `top N` added.
    TopAdded,
    /// `top N` added, then removed.
    TopRemoved,
    /// `latest N` and `top N` added, then their N and kept fields changed.
    ListsChanged,
}

/// The patterns of each schema of a kind, drawn with `seed` (the order, the summaries, N).
fn patterns(kind: Kind, n: &Names, seed: u64) -> Vec<String> {
    let (a, b, list) = (n.a, n.b, n.list);
    let summary = if seed % 2 == 0 {
        format!("  summary count, total({b}), max({b}), min({b})\n")
    } else {
        format!("  summary avg({b}), min({b})\n")
    };
    let order = if seed % 3 == 1 { "" } else { " desc" };
    let latest = |k: u64, keep: &str| format!("  latest {k} by {b}{order}{keep}\n");
    let top = |k: u64, keep: &str| {
        if seed % 2 == 0 {
            format!("  top {k} by {a}{keep}\n")
        } else {
            format!("  top {k} by {b} desc{keep}\n")
        }
    };
    let k = 2 + seed % 2;
    let none = String::new();
    match kind {
        Kind::SummaryAdded => vec![none, summary],
        Kind::SummaryRemoved => vec![none.clone(), summary, none],
        Kind::LatestAdded => vec![none, latest(k, &format!(" keep {a}, {b}"))],
        Kind::LatestRemoved => vec![none.clone(), latest(k, ""), none],
        Kind::TopAdded => vec![none, top(k, &format!(" keep {a}, {list}"))],
        Kind::TopRemoved => vec![none.clone(), top(k, ""), none],
        Kind::ListsChanged => vec![
            none,
            latest(k, &format!(" keep {a}, {b}")) + &top(2, &format!(" keep {a}")),
            latest(k + 2, &format!(" keep {b}")) + &top(3, &format!(" keep {a}, {b}")),
        ],
    }
}

/// A schema: the layout of `migrate.rs`'s moves, with `patterns` in the relation.
fn kept_text(n: &Names, layout: &str, patterns: &str) -> String {
    layout_text(n, layout, n.bound * 3).replacen(
        &format!("  force {layout}\n"),
        &format!("  force {layout}\n{patterns}"),
        1,
    )
}

/// A stored value at a top-level field.
fn text(v: Option<&Bson>) -> String {
    v.map_or_else(|| "(absent)".to_owned(), |v| format!("{v:?}"))
}

/// Each parent's children as the Plan's layout of its first relationship stores them, by the
/// parent's `_id` (embedded elements, or the children's documents by reference or by id).
async fn children_of(db: &Database, plan: &Plan, d: &Decision) -> BTreeMap<String, Vec<Document>> {
    let own = |entity: &str| {
        plan.collections.iter().find(|c| {
            c.entity == entity && c.role == squillion_codegen::plan::CollectionRole::Entity
        })
    };
    let all = |name: String| async move { docs_by_id(db, &name).await };
    let parents = all(own(&d.parent).unwrap().name.clone()).await;
    let children = match own(&d.child) {
        Some(c) => all(c.name.clone()).await,
        None => Vec::new(),
    };
    let mut out = BTreeMap::new();
    let reference = d.placement.iter().find(|p| p.shape == Shape::Id);
    for p in &parents {
        let pid = p.get("_id").unwrap();
        let mine: Vec<Document> = if let Some(r) = reference {
            children
                .iter()
                .filter(|c| c.get(&r.path) == Some(pid))
                .cloned()
                .collect()
        } else {
            let array = d.placement.iter().find(|x| x.holder == d.parent).unwrap();
            let items = p.get_array(&array.path).cloned().unwrap_or_default();
            match array.shape {
                Shape::ArrayOfSubdocuments => items
                    .into_iter()
                    .map(|e| e.as_document().unwrap().clone())
                    .collect(),
                Shape::ArrayOfIds => items
                    .iter()
                    .map(|id| {
                        children
                            .iter()
                            .find(|c| c.get("_id") == Some(id))
                            .unwrap_or_else(|| panic!("dangling id {id}"))
                            .clone()
                    })
                    .collect(),
                other => panic!("no reader for {other:?}"),
            }
        };
        out.insert(pid.to_string(), mine);
    }
    out
}

/// Orders two values of one field (ints or strings, as the test's fields are).
fn cmp(a: &Bson, b: &Bson) -> std::cmp::Ordering {
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => x.cmp(y),
        (Bson::String(x), Bson::String(y)) => x.cmp(y),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.cmp(y),
        (x, y) => panic!("cannot order {x:?} and {y:?}"),
    }
}

/// The reference for one list: the first `n` children by `(sort_by, _id)` in the list's
/// direction (latest: the n largest, stored in the declared order), each copied as its `_id`
/// and kept fields in the child's own field order.
fn list_of(
    kids: &[Document],
    (n, sort_by, descending, latest): (u64, &str, bool, bool),
    keep: &[String],
) -> Bson {
    let mut sorted: Vec<&Document> = kids.iter().collect();
    let key = |d: &Document| {
        (
            d.get(sort_by).unwrap().clone(),
            d.get("_id").unwrap().clone(),
        )
    };
    sorted.sort_by(|x, y| {
        let ((a, ia), (b, ib)) = (key(x), key(y));
        cmp(&a, &b).then(cmp(&ia, &ib))
    });
    let largest = latest || descending;
    if largest {
        sorted.reverse();
    }
    sorted.truncate(n as usize);
    if latest && !descending {
        sorted.reverse();
    }
    Bson::Array(
        sorted
            .into_iter()
            .map(|d| {
                let copy: Document = d
                    .iter()
                    .filter(|(k, _)| *k == "_id" || keep.contains(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Bson::Document(copy)
            })
            .collect(),
    )
}

/// Every parent's kept fields equal what the new code keeps for its children, computed here.
/// Returns the number of values checked.
async fn assert_kept_fields(db: &Database, plan: &Plan, what: &str) -> usize {
    let d = plan.relationships.first().unwrap();
    let kids = children_of(db, plan, d).await;
    let parent = plan
        .collections
        .iter()
        .find(|c| c.entity == d.parent)
        .unwrap();
    let parents: Vec<Document> = all_docs(db, &parent.name).await;
    let mut checked = 0;
    for p in &parents {
        let mine = &kids[&p.get("_id").unwrap().to_string()];
        let values = |f: &str| -> Vec<i64> {
            mine.iter()
                .map(|k| i64::from(k.get_i32(f).unwrap()))
                .collect()
        };
        let mut want: Vec<(String, Option<Bson>)> = Vec::new();
        for c in &d.computed {
            let field = c.field.as_deref().unwrap_or("");
            let value = match &c.function {
                ComputedFn::Summary { summary } => match summary {
                    SummaryFn::Count => Some(Bson::Int32(mine.len() as i32)),
                    // A total of int32 values is stored as an int64.
                    SummaryFn::Total => Some(Bson::Int64(values(field).iter().sum::<i64>())),
                    SummaryFn::Max => values(field)
                        .into_iter()
                        .max()
                        .map(|v| Bson::Int32(v as i32)),
                    SummaryFn::Min => values(field)
                        .into_iter()
                        .min()
                        .map(|v| Bson::Int32(v as i32)),
                    SummaryFn::Avg => continue,
                },
                ComputedFn::TopN {
                    n,
                    sort_by,
                    descending,
                    keep,
                    ..
                } => Some(list_of(mine, (*n, sort_by, *descending, false), keep)),
                ComputedFn::Average { .. } => continue,
            };
            want.push((c.path.clone(), value));
        }
        if let Some(s) = &d.subset {
            let value = list_of(mine, (s.n, &s.sort_by, s.descending, true), &s.keep);
            want.push((s.path.clone(), Some(value)));
        }
        for (path, value) in want {
            assert_eq!(
                text(p.get(&path)),
                text(value.as_ref()),
                "{what}: {path} of {}",
                p.get("_id").unwrap()
            );
            checked += 1;
        }
    }
    checked
}

/// One kind under one layout with one seed: fill the first schema's layout, then migrate to
/// each next schema and check it (with `kill`, the first migration is killed after that many
/// steps and that many milliseconds, then run again).
///
/// Returns, for a killed run, how many of its steps were recorded when it was killed, of how many.
async fn kept_case(
    kind: Kind,
    layout: &str,
    seed: u64,
    kill: Option<(usize, u64)>,
) -> (usize, usize) {
    let mut recorded = (0, 0);
    let n = names(seed);
    let texts: Vec<String> = patterns(kind, &n, seed)
        .iter()
        .map(|p| kept_text(&n, layout, p))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| write(dir.path(), &format!("v{i}.sqn"), t))
        .collect();
    let plans: Vec<Plan> = files.iter().map(|f| plan_of(f)).collect();
    let t = TestDb::new(&format!("kept_{kind:?}_{layout}_{seed}")).await;
    let what0 = format!("{kind:?} {layout} seed {seed}");
    indexes(&files[0], &t, &["--apply"]).await.expect(0, &what0);
    let mut rng = Lcg(seed);
    let parents = if seed == 0 { 1_050 } else { 40 };
    fill_layout(&t.db, &plans[0], parents, parents + 60, 0, &mut rng).await;
    if seed != 2 {
        // Few distinct values (ties broken by `_id`, as the new code breaks them), written
        // through the old validator.
        if let Some(c) = plans[0].collections.iter().find(|c| c.entity == n.child) {
            t.db.collection::<Document>(&c.name)
                .update_many(
                    doc! {},
                    vec![doc! { "$set": { n.b: { "$mod": [format!("${}", n.b), 3] } } }],
                )
                .await
                .unwrap();
        }
    }
    for i in 1..files.len() {
        let (old, new) = (&files[i - 1], &files[i]);
        let (old_plan, new_plan) = (&plans[i - 1], &plans[i]);
        let what = format!(
            "{what0}, v{} -> v{i}\n--- old\n{}--- new\n{}",
            i - 1,
            texts[i - 1],
            texts[i]
        );
        let before = logical_data(&t.db, old_plan, new_plan).await;
        let rel_before = relation_data(&t.db, old_plan, &old_plan.relationships[0].id).await;
        let untouched = dump(&t.db).await;
        let dry = migrate(old, new, &t, &["--dry-run"]).await;
        dry.expect(0, &what);
        let script = migrate(old, new, &t, &["--print", "mongosh"]).await;
        script.expect(0, &what);
        assert_eq!(
            script.stdout,
            migrate(old, new, &t, &["--print", "mongosh"]).await.stdout,
            "{what}: deterministic script"
        );
        assert_eq!(
            dump(&t.db).await,
            untouched,
            "{what}: a dry run or a print wrote"
        );
        let steps: Vec<&str> = dry
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("would "))
            .collect();
        for s in &steps {
            assert!(
                script
                    .stdout
                    .contains(&format!("step({}", Value::String((*s).to_owned()))),
                "{what}: `{s}` not in the script"
            );
        }
        if let Some((k, ms)) = kill.filter(|_| i == 1) {
            killed_migration(old, new, &t, k % steps.len().max(1), ms).await;
            let done =
                t.db.collection::<Document>("squillion_migrations")
                    .find_one(doc! {})
                    .await
                    .unwrap()
                    .and_then(|c| c.get_array("done").ok().map(Vec::len))
                    .unwrap_or(0);
            recorded = (done, steps.len());
        }
        // Seed 2: the mongosh script, run by mongosh (the checks are the same).
        let run = if kill.is_none() && seed == 2 {
            super::mongosh::mongosh(&script.stdout, t.db.name()).await
        } else {
            migrate(old, new, &t, &[]).await
        };
        run.expect(0, &what);

        assert_eq!(
            logical_data(&t.db, new_plan, old_plan).await,
            before,
            "{what}: logical data changed"
        );
        assert_eq!(
            relation_data(&t.db, new_plan, &new_plan.relationships[0].id).await,
            rel_before,
            "{what}: the children changed"
        );
        assert_new_validators_accept_everything(&t.db, new_plan).await;
        assert_matches_plan(&t.db, new_plan).await;
        let checked = assert_kept_fields(&t.db, new_plan, &what).await;
        let kept_now = new_plan.relationships[0].computed.len()
            + usize::from(new_plan.relationships[0].subset.is_some());
        assert!(kept_now == 0 || checked > 0, "{what}: nothing checked");
        // The kept fields the new Plan drops are gone from every parent.
        let parent = &new_plan.collections[0].name;
        let old_parent = old_plan.collection(parent).unwrap();
        for f in &old_parent.fields {
            if new_plan
                .collection(parent)
                .unwrap()
                .field(&f.name)
                .is_none()
            {
                let left =
                    t.db.collection::<Document>(parent)
                        .count_documents(doc! { &f.name: { "$exists": true } })
                        .await
                        .unwrap();
                assert_eq!(left, 0, "{what}: {parent}.{} is still stored", f.name);
            }
        }
        a_second_run_changes_nothing(old, new, &t, &what).await;
    }
    t.cleanup().await;
    recorded
}

/// Summaries added and removed under every layout the children can have.
#[tokio::test]
async fn summaries_added_and_removed_are_computed_from_the_children() {
    for kind in [Kind::SummaryAdded, Kind::SummaryRemoved] {
        for layout in ["embed", "child_ref", "parent_refs"] {
            for seed in 0..3 {
                kept_case(kind, layout, seed, None).await;
            }
        }
    }
}

/// `latest N` and `top N` added, removed and changed where the children have ids (in their
/// own collection, by reference or by the parent's ids).
#[tokio::test]
async fn lists_added_removed_and_changed_are_computed_from_the_children() {
    for kind in [
        Kind::LatestAdded,
        Kind::LatestRemoved,
        Kind::TopAdded,
        Kind::TopRemoved,
        Kind::ListsChanged,
    ] {
        for layout in ["child_ref", "parent_refs"] {
            for seed in 0..3 {
                kept_case(kind, layout, seed, None).await;
            }
        }
    }
}

/// A top-N list added to embedded children (which have no `_id` to copy) is refused before
/// anything is written.
#[tokio::test]
async fn a_top_list_of_embedded_children_is_refused() {
    let n = names(1);
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.sqn", &kept_text(&n, "embed", ""));
    let new = write(
        dir.path(),
        "new.sqn",
        &kept_text(&n, "embed", &format!("  top 2 by {}\n", n.a)),
    );
    let t = TestDb::new("kept_top_embedded").await;
    indexes(&old, &t, &["--apply"]).await.expect(0, "indexes");
    fill_layout(&t.db, &plan_of(&old), 30, 50, 0, &mut Lcg(1)).await;
    let untouched = dump(&t.db).await;
    let run = migrate(&old, &new, &t, &[]).await;
    run.expect(1, "top under embed");
    assert!(
        run.stderr.contains("error[M0001]") && run.stderr.contains("offer_top_"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("error[M0001]").count(),
        1,
        "one error for the change:\n{}",
        run.stderr
    );
    assert_eq!(dump(&t.db).await, untouched, "a refused migration wrote");
    t.cleanup().await;
}

/// A run killed at a drawn moment and run again computes the same kept fields.
#[tokio::test]
async fn a_killed_kept_migration_resumes() {
    let mut rng = Lcg(7);
    let mut inside = 0;
    for (kind, layout) in [
        (Kind::SummaryAdded, "embed"),
        (Kind::LatestAdded, "child_ref"),
        (Kind::TopAdded, "parent_refs"),
    ] {
        for _ in 0..2 {
            let kill = (rng.below(4) as usize, rng.below(40));
            let (recorded, steps) = kept_case(kind, layout, 0, Some(kill)).await;
            if recorded > 0 && recorded < steps {
                inside += 1;
            }
        }
    }
    assert!(
        inside > 0,
        "no kill landed between two steps: draw other moments"
    );
}
