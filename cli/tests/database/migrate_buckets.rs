//! `squillion migrate` between plain documents and buckets, against the server: `child_ref` and
//! `embed` to `bucket` and back, with bucket shapes drawn over the seeds (size, `page N by f`
//! ascending or descending, `time_range`, the order children were added in; per-bucket count,
//! total, max, min). The old layout is filled as its code writes it (buckets through the
//! runtime's own append); after the migration:
//! - into buckets: every parent's buckets equal, field for field and child for child, the
//!   buckets the new code's append makes from the same children in the relation's order
//!   (scratch collection, same runtime), and the new validator accepts them;
//! - out of buckets: every parent's children, embedded or by reference, are its bucket items in
//!   bucket order, each with all its fields;
//! - the relation's logical data (count and checksum) read from every side is unchanged, a
//!   second run changes nothing, a run killed at a drawn moment and resumed ends the same, and
//!   the steps run again without their checkpoint change nothing.

use super::migrate::{a_second_run_changes_nothing, killed_migration, migrate, names, Names};
use super::migrate_data::*;
use super::*;
use squillion::__private::arrays::{ComputedField, Summary};
use squillion::__private::bucket::{self, BucketSpec};
use squillion_codegen::plan::{BucketPlan, Collection, CollectionRole, Decision};
use squillion_testkit::Lcg;

/// A plain layout on the other side of the buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plain {
    ChildRef,
    Embed,
}

impl Plain {
    fn layout(self) -> &'static str {
        match self {
            Plain::ChildRef => "child_ref",
            Plain::Embed => "embed",
        }
    }
}

/// The relation's body on the bucket side, drawn by `seed`: size, order, summaries.
fn bucket_body(n: &Names, seed: u64) -> String {
    let size = [3, 4, 5][(seed % 3) as usize];
    match seed % 4 {
        0 => format!(
            "force bucket\n  page {size} by {b} asc\n  summary count, max({b}), total({b}) per bucket",
            b = n.b
        ),
        1 => format!(
            "force bucket\n  page {size} by {a} desc\n  summary count, min(when) per bucket",
            a = n.a
        ),
        2 => format!(
            "force bucket({size})\n  time_range by when\n  summary count, max({b}) per bucket",
            b = n.b
        ),
        _ => format!("force bucket({size})"),
    }
}

/// A schema of the bucket moves: the parent, the child (with a date), and the relation.
pub(super) fn text(n: &Names, body: &str) -> String {
    text_bounded(n, 200, body)
}

/// [`text`] with at most `many` children per parent.
pub(super) fn text_bounded(n: &Names, many: u64, body: &str) -> String {
    format!(
        "entity {p} {{ {s0}: string {s1}: string }}\n\
         entity {c} {{ {a}: string {b}: int32 when: date {list}: [string; {lb}] }}\n\
         relation {p}.{m}: many({many}) <-> {c}.{o}: one {{\n  {body}\n}}\n",
        p = n.parent,
        c = n.child,
        s0 = n.shown[0],
        s1 = n.shown[1],
        a = n.a,
        b = n.b,
        list = n.list,
        lb = n.bound,
        m = n.many,
        o = n.one,
    )
}

pub(super) fn plain_text(n: &Names, plain: Plain) -> String {
    text(n, &format!("force {}", plain.layout()))
}

pub(super) fn relation(plan: &Plan) -> &Decision {
    plan.relationships.first().unwrap()
}

pub(super) fn entity_collection<'a>(plan: &'a Plan, entity: &str) -> Option<&'a Collection> {
    plan.collections
        .iter()
        .find(|c| c.entity == entity && c.role == CollectionRole::Entity)
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The runtime's spec of a Plan's buckets, as the derive writes it.
fn spec(plan: &Plan, d: &Decision) -> BucketSpec {
    let b = d.bucket.as_ref().unwrap();
    let mut computed = Vec::new();
    if let Some(t) = &b.time_range {
        computed.push(ComputedField {
            path: leak(&t.start_path),
            summary: Summary::Min(leak(&t.field)),
        });
        computed.push(ComputedField {
            path: leak(&t.end_path),
            summary: Summary::Max(leak(&t.field)),
        });
    }
    for c in d.computed.iter().filter(|c| c.path != b.count_path) {
        let field = || leak(c.field.as_deref().unwrap());
        let summary = match &c.function {
            squillion_codegen::plan::ComputedFn::Summary { summary } => match summary {
                squillion_codegen::model::SummaryFn::Total => Summary::Sum(field()),
                squillion_codegen::model::SummaryFn::Max => Summary::Max(field()),
                squillion_codegen::model::SummaryFn::Min => Summary::Min(field()),
                squillion_codegen::model::SummaryFn::Count => Summary::Count,
                other => panic!("no runtime summary for {other:?}"),
            },
            other => panic!("no runtime summary for {other:?}"),
        };
        computed.push(ComputedField {
            path: leak(&c.path),
            summary,
        });
    }
    let _ = plan;
    BucketSpec {
        items: leak(&b.items_path),
        count: leak(&b.count_path),
        size: b.size as i64,
        computed: Box::leak(computed.into_boxed_slice()),
        start: b.time_range.as_ref().map(|t| leak(&t.start_path)),
        end: b.time_range.as_ref().map(|t| leak(&t.end_path)),
        sort: b.order_by.as_deref().map(leak),
        newest_first: b.newest_first,
        unique: &[],
    }
}

/// The item fields of a Plan's buckets.
fn item_fields(plan: &Plan, b: &BucketPlan) -> Vec<String> {
    plan.collection(&b.collection)
        .unwrap()
        .field_at(&b.items_path)
        .unwrap()
        .children
        .iter()
        .map(|f| f.name.clone())
        .collect()
}

/// A child as a bucket item: the item's fields, in the Plan's order.
fn as_item(child: &Document, fields: &[String]) -> Document {
    fields
        .iter()
        .filter_map(|f| child.get(f).map(|v| (f.clone(), v.clone())))
        .collect()
}

/// Appends `children` (in this order) to `parent`'s buckets in `coll`, through the runtime.
pub(super) async fn append_all(
    coll: &mongodb::Collection<Document>,
    plan: &Plan,
    parent: &Bson,
    children: &[Document],
) {
    let d = relation(plan);
    let b = d.bucket.as_ref().unwrap();
    let s = spec(plan, d);
    let fields = item_fields(plan, b);
    for c in children {
        bucket::append(
            coll,
            doc! { &b.parent_path: parent.clone() },
            &s,
            Bson::Document(as_item(c, &fields)),
        )
        .await
        .unwrap();
    }
}

/// Fills the bucket layout as its code does: parents inserted, then children drawn for them
/// and appended one by one in a drawn order, through the runtime's bucket append.
pub(super) async fn fill_buckets(
    db: &Database,
    plan: &Plan,
    parents: usize,
    children: usize,
    rng: &mut Lcg,
) {
    let d = relation(plan);
    let b = d.bucket.as_ref().unwrap();
    let parent = entity_collection(plan, &d.parent).unwrap();
    let fields = &plan
        .collection(&b.collection)
        .unwrap()
        .field_at(&b.items_path)
        .unwrap()
        .children;
    let pdocs: Vec<Document> = (0..parents)
        .map(|_| {
            let mut p = doc! { "_id": ObjectId::new() };
            for f in parent.fields.iter().filter(|f| f.name != "_id") {
                p.insert(f.name.clone(), scalar(f, rng));
            }
            p
        })
        .collect();
    db.collection::<Document>(&parent.name)
        .insert_many(pdocs.clone())
        .await
        .unwrap();
    let coll = db.collection::<Document>(&b.collection);
    for _ in 0..children {
        let p = &pdocs[rng.below(parents as u64) as usize];
        let mut kid = Document::new();
        for f in fields {
            kid.insert(f.name.clone(), scalar(f, rng));
        }
        squeeze(&mut kid, plan);
        append_all(&coll, plan, p.get("_id").unwrap(), &[kid]).await;
    }
}

/// The int32 field of the child takes three values only, so that orders by it meet ties
/// (broken by `_id`).
fn squeeze(kid: &mut Document, plan: &Plan) {
    let d = relation(plan);
    let child_fields: Vec<String> = match entity_collection(plan, &d.child) {
        Some(c) => c.fields.iter().map(|f| f.name.clone()).collect(),
        None => kid.keys().cloned().collect(),
    };
    for k in child_fields {
        if let Some(Bson::Int32(v)) = kid.get(&k) {
            let v = *v;
            kid.insert(k, Bson::Int32(v % 3));
        }
    }
}

/// The plain layout filled by `fill_layout`, its int32 field squeezed to three values.
pub(super) async fn fill_plain(
    db: &Database,
    plan: &Plan,
    parents: usize,
    children: usize,
    rng: &mut Lcg,
) {
    fill_layout(db, plan, parents, children, 0, rng).await;
    let d = relation(plan);
    let parent = entity_collection(plan, &d.parent).unwrap();
    let int = |fields: &[squillion_codegen::plan::PlanField]| {
        fields
            .iter()
            .find(|f| f.bson_type == "int" && f.array_depth == 0)
            .map(|f| f.name.clone())
            .unwrap()
    };
    match entity_collection(plan, &d.child) {
        Some(c) => {
            let b = int(&c.fields);
            db.collection::<Document>(&c.name)
                .update_many(
                    doc! {},
                    vec![doc! { "$set": { &b: { "$mod": [format!("${b}"), 3] } } }],
                )
                .await
                .unwrap();
        }
        None => {
            let array = &d.placement[0].path;
            let b = int(&parent.field_at(array).unwrap().children);
            db.collection::<Document>(&parent.name)
                .update_many(
                    doc! {},
                    vec![doc! { "$set": { array: { "$map": {
                        "input": format!("${array}"),
                        "in": { "$mergeObjects": ["$$this", { &b: { "$mod": [format!("$$this.{b}"), 3] } }] },
                    } } } }],
                )
                .await
                .unwrap();
        }
    }
}

/// Per parent (by `_id` text), its children in the relation's order under the plain layout of
/// `plan`, sorted as the buckets of `new` order them: their order key then `_id` (stable), or
/// as they were added (the array's order, or `_id`).
async fn children_in_order(
    db: &Database,
    plan: &Plan,
    new: &Plan,
) -> BTreeMap<String, Vec<Document>> {
    let d = relation(plan);
    let parent = entity_collection(plan, &d.parent).unwrap();
    let parents: Vec<Document> = docs_by_id(db, &parent.name).await;
    let mut out: BTreeMap<String, Vec<Document>> = parents
        .iter()
        .map(|p| (p.get("_id").unwrap().to_string(), Vec::new()))
        .collect();
    match entity_collection(plan, &d.child) {
        Some(c) => {
            let key = &d
                .placement
                .iter()
                .find(|p| p.collection == c.name)
                .unwrap()
                .path;
            for kid in docs_by_id(db, &c.name).await {
                out.get_mut(&kid.get(key).unwrap().to_string())
                    .unwrap()
                    .push(kid);
            }
        }
        None => {
            let array = &d.placement[0].path;
            for p in &parents {
                let kids = p.get_array(array).cloned().unwrap_or_default();
                out.get_mut(&p.get("_id").unwrap().to_string())
                    .unwrap()
                    .extend(kids.into_iter().map(|k| k.as_document().unwrap().clone()));
            }
        }
    }
    if let Some(f) = &relation(new).bucket.as_ref().unwrap().order_by {
        for kids in out.values_mut() {
            // Stable: ties stay in `_id` (or array) order.
            kids.sort_by(|x, y| compare(x.get(f), y.get(f)));
        }
    }
    out
}

fn compare(x: Option<&Bson>, y: Option<&Bson>) -> std::cmp::Ordering {
    match (x, y) {
        (Some(Bson::Int32(a)), Some(Bson::Int32(b))) => a.cmp(b),
        (Some(Bson::String(a)), Some(Bson::String(b))) => a.cmp(b),
        (Some(Bson::DateTime(a)), Some(Bson::DateTime(b))) => a.cmp(b),
        (a, b) => panic!("no order between {a:?} and {b:?}"),
    }
}

/// A document with its top-level fields in name order (the test server's `$merge` writes them
/// so), its nested values untouched.
fn canonical(d: &Document) -> Document {
    let mut keys: Vec<&String> = d.keys().collect();
    keys.sort();
    keys.into_iter()
        .map(|k| (k.clone(), d.get(k).unwrap().clone()))
        .collect()
}

/// Per parent (by `_id` text), its buckets in `coll` in creation order (`_id`): the order their
/// children were added in (a time range's start orders reads, not appends).
async fn buckets_by_parent(
    db: &Database,
    plan: &Plan,
    coll: &str,
) -> BTreeMap<String, Vec<Document>> {
    let b = relation(plan).bucket.as_ref().unwrap();
    let docs = docs_by_id(db, coll).await;
    let mut out: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    for doc in docs {
        out.entry(doc.get(&b.parent_path).unwrap().to_string())
            .or_default()
            .push(doc);
    }
    out
}

/// Into buckets: every parent's buckets are those the new code's appends make from the same
/// children in the relation's order (their `_id`s aside: the scratch ones are new).
async fn assert_buckets_as_appended(
    db: &Database,
    new: &Plan,
    expected_children: &BTreeMap<String, Vec<Document>>,
    what: &str,
) {
    let d = relation(new);
    let b = d.bucket.as_ref().unwrap();
    let scratch = db.collection::<Document>("expected_buckets");
    for (pid, kids) in expected_children {
        let hex = pid
            .trim_start_matches("ObjectId(\"")
            .trim_end_matches("\")");
        let parent = Bson::ObjectId(ObjectId::parse_str(hex).unwrap());
        append_all(&scratch, new, &parent, kids).await;
    }
    let strip = |m: BTreeMap<String, Vec<Document>>| -> BTreeMap<String, Vec<Document>> {
        m.into_iter()
            .map(|(k, v)| {
                let v = v
                    .iter()
                    .map(|d| {
                        let mut d = canonical(d);
                        d.remove("_id");
                        d
                    })
                    .collect();
                (k, v)
            })
            .collect()
    };
    let migrated = buckets_by_parent(db, new, &b.collection).await;
    let appended = buckets_by_parent(db, new, "expected_buckets").await;
    let total: usize = migrated.values().map(Vec::len).sum();
    assert!(total > 0, "{what}: no bucket");
    same_per_parent(
        &strip(migrated.clone()),
        &strip(appended),
        &format!("{what}: the migrated buckets differ from the appended ones"),
    );
    // Every bucket's `_id` is one of its parent's children's ids, made no later than now: the
    // buckets the new code makes from the next second on sort after them.
    let now = ObjectId::new().timestamp();
    for buckets in migrated.values() {
        for bk in buckets {
            assert!(
                bk.get_object_id("_id").unwrap().timestamp() <= now,
                "{what}: {bk}"
            );
        }
    }
    scratch.drop().await.unwrap();
}

/// Out of buckets: per parent, its bucket items in bucket order (`old` Plan).
async fn items_in_order(db: &Database, old: &Plan) -> BTreeMap<String, Vec<Document>> {
    let d = relation(old);
    let b = d.bucket.as_ref().unwrap();
    let parent = entity_collection(old, &d.parent).unwrap();
    let mut out: BTreeMap<String, Vec<Document>> = docs_by_id(db, &parent.name)
        .await
        .iter()
        .map(|p| (p.get("_id").unwrap().to_string(), Vec::new()))
        .collect();
    for (pid, buckets) in buckets_by_parent(db, old, &b.collection).await {
        for bk in buckets {
            let items = bk.get_array(&b.items_path).unwrap();
            out.get_mut(&pid)
                .unwrap()
                .extend(items.iter().map(|i| i.as_document().unwrap().clone()));
        }
    }
    out
}

/// Out of buckets: every parent's children under the new layout are its old bucket items in
/// bucket order, each with every field (and, by reference, its parent).
async fn assert_children_as_items(
    db: &Database,
    new: &Plan,
    items: &BTreeMap<String, Vec<Document>>,
    what: &str,
) {
    let d = relation(new);
    let parent = entity_collection(new, &d.parent).unwrap();
    let got: BTreeMap<String, Vec<Document>> = match entity_collection(new, &d.child) {
        Some(c) => {
            let key = &d
                .placement
                .iter()
                .find(|p| p.collection == c.name)
                .unwrap()
                .path;
            let mut out: BTreeMap<String, Vec<Document>> =
                items.keys().map(|k| (k.clone(), Vec::new())).collect();
            for kid in docs_by_id(db, &c.name).await {
                let mut k = kid.clone();
                let pid = k.remove(key).unwrap().to_string();
                k.remove("_id");
                out.get_mut(&pid).unwrap().push(canonical(&k));
            }
            out
        }
        None => {
            let array = &d.placement[0].path;
            docs_by_id(db, &parent.name)
                .await
                .iter()
                .map(|p| {
                    let kids = p.get_array(array).unwrap();
                    (
                        p.get("_id").unwrap().to_string(),
                        kids.iter()
                            .map(|k| k.as_document().unwrap().clone())
                            .collect(),
                    )
                })
                .collect()
        }
    };
    let expected: BTreeMap<String, Vec<Document>> = if entity_collection(new, &d.child).is_some() {
        items
            .iter()
            .map(|(k, v)| (k.clone(), v.iter().map(canonical).collect()))
            .collect()
    } else {
        items.clone()
    };
    same_per_parent(
        &got,
        &expected,
        &format!("{what}: the children differ from the bucket items"),
    );
}

/// Two maps of documents per parent are equal; else the first parent that differs is shown.
fn same_per_parent(
    got: &BTreeMap<String, Vec<Document>>,
    expected: &BTreeMap<String, Vec<Document>>,
    what: &str,
) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: the parents"
    );
    for (k, v) in got {
        assert_eq!(Some(v), expected.get(k), "{what}: parent {k}");
    }
}

/// One move between `plain` and buckets drawn by `seed`, `into` buckets or out of them: fill,
/// migrate (killed first at `kill` = (steps, ms), then resumed), check, run again, replay.
/// Returns how many steps the killed run had recorded, and the number of steps.
pub(super) async fn bucket_move(
    plain: Plain,
    into: bool,
    seed: u64,
    kill: Option<(usize, u64)>,
) -> (usize, usize) {
    let n = names(seed);
    let (plain_t, bucket_t) = (plain_text(&n, plain), text(&n, &bucket_body(&n, seed)));
    let (old_text, new_text) = if into {
        (plain_t, bucket_t)
    } else {
        (bucket_t, plain_t)
    };
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (
        write(dir.path(), "old.sqn", &old_text),
        write(dir.path(), "new.sqn", &new_text),
    );
    let (old_plan, new_plan) = (plan_of(&old), plan_of(&new));
    let what = format!(
        "{plain:?} {} seed {seed} kill {kill:?}\n--- old\n{old_text}--- new\n{new_text}",
        if into {
            "into buckets"
        } else {
            "out of buckets"
        }
    );
    let t = TestDb::new(&format!("mig_bk_{}_{}_{seed}", plain.layout(), into)).await;
    indexes(&old, &t, &["--apply"]).await.expect(0, &what);
    let mut rng = Lcg(seed + 100);
    let parents = if seed == 0 { 1_050 } else { 40 };
    let children = if seed == 0 { 3_000 } else { 170 };
    if into {
        fill_plain(&t.db, &old_plan, parents, children, &mut rng).await;
    } else {
        fill_buckets(&t.db, &old_plan, parents, children, &mut rng).await;
    }
    let before = logical_data(&t.db, &old_plan, &new_plan).await;
    let ordered = if into {
        children_in_order(&t.db, &old_plan, &new_plan).await
    } else {
        items_in_order(&t.db, &old_plan).await
    };
    let untouched = dump(&t.db).await;
    let dry = migrate(&old, &new, &t, &["--dry-run"]).await;
    dry.expect(0, &what);
    let script = migrate(&old, &new, &t, &["--print", "mongosh"]).await;
    script.expect(0, &what);
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
    assert!(
        steps.iter().any(|s| s.contains("buckets")),
        "{what}\n{}",
        dry.stdout
    );
    for s in &steps {
        assert!(
            script
                .stdout
                .contains(&format!("step({}", Value::String((*s).to_owned()))),
            "{what}: `{s}` not in the script"
        );
    }
    let mut recorded = 0;
    if let Some((k, ms)) = kill {
        killed_migration(&old, &new, &t, k % steps.len(), ms).await;
        recorded =
            t.db.collection::<Document>("squillion_migrations")
                .find_one(doc! {})
                .await
                .unwrap()
                .and_then(|c| c.get_array("done").ok().map(Vec::len))
                .unwrap_or(0);
    }
    let started = Instant::now();
    // Seed 3: the mongosh script, run by mongosh (the checks are the same).
    let run = if kill.is_none() && seed == 3 {
        super::mongosh::mongosh(&script.stdout, t.db.name()).await
    } else {
        migrate(&old, &new, &t, &[]).await
    };
    run.expect(0, &what);
    let took = started.elapsed();
    if seed == 0 && kill.is_none() {
        eprintln!(
            "{plain:?} {}: {parents} parents, {children} children migrated in {took:?}",
            if into { "-> buckets" } else { "<- buckets" }
        );
    }

    let check = |stage: &'static str| {
        let (what, t, ordered, before) = (&what, &t, &ordered, &before);
        let (old_plan, new_plan) = (&old_plan, &new_plan);
        async move {
            let what = format!("{what}\n({stage})");
            assert_eq!(
                logical_data(&t.db, new_plan, old_plan).await,
                *before,
                "{what}: logical data changed"
            );
            if into {
                assert_buckets_as_appended(&t.db, new_plan, ordered, &what).await;
            } else {
                assert_children_as_items(&t.db, new_plan, ordered, &what).await;
            }
            assert_new_validators_accept_everything(&t.db, new_plan).await;
            assert_matches_plan(&t.db, new_plan).await;
            let mut expected: BTreeSet<String> = new_plan
                .collections
                .iter()
                .map(|c| c.name.clone())
                .collect();
            expected.insert("squillion_migrations".to_owned());
            assert_eq!(
                collection_names(&t.db).await,
                expected,
                "{what}: collections"
            );
        }
    };
    check("migrated").await;

    // A second run does nothing.
    a_second_run_changes_nothing(&old, &new, &t, &what).await;

    // Every step replayed without its checkpoint: each is idempotent by its guard.
    t.db.collection::<Document>("squillion_migrations")
        .delete_many(doc! {})
        .await
        .unwrap();
    migrate(&old, &new, &t, &[]).await.expect(0, &what);
    check("replayed without checkpoint").await;
    t.cleanup().await;
    (recorded, steps.len())
}

/// `child_ref` and `embed` into buckets, buckets into `child_ref` and `embed`: four seeds each
/// (every bucket shape), the first with 1,050 parents and 3,000 children (two batches).
#[tokio::test]
async fn every_bucket_move_migrates_every_child() {
    for plain in [Plain::ChildRef, Plain::Embed] {
        for into in [true, false] {
            for seed in 0..4 {
                bucket_move(plain, into, seed, None).await;
            }
        }
    }
}

/// Each bucket move killed at drawn moments and resumed ends as an uninterrupted run.
#[tokio::test]
async fn a_killed_bucket_move_resumes() {
    let mut rng = Lcg(7);
    let mut inside = 0;
    for plain in [Plain::ChildRef, Plain::Embed] {
        for into in [true, false] {
            for _ in 0..2 {
                let kill = (1 + rng.below(6) as usize, rng.below(30));
                let (recorded, steps) = bucket_move(plain, into, 0, Some(kill)).await;
                if recorded > 0 && recorded < steps {
                    inside += 1;
                }
            }
        }
    }
    assert!(
        inside > 0,
        "no kill landed between two steps: draw other moments"
    );
}
