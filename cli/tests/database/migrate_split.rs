//! Children leaving an array for documents of their own (`Op::SplitOut`: embed -> child_ref,
//! parent_refs, two_way; embed -> bucket; bucket -> child_ref), each run stopped at the exact
//! moments where the ids given in a batch and the children written from them disagree, then
//! finished by `squillion migrate`: nothing lost, nothing duplicated, every child under the id
//! its element was given before the stop, and every parent's children in the order they had.
//!
//! The runs go through the runtime (`squillion::migrate::Run`, the operations `migrate --uri`
//! runs); the stop is the progress callback unwinding out of the step, between two writes of
//! the walk, as a killed process stops:
//! - after a batch's ids are written, before its children are (`Progress::IdsGiven`);
//! - after a batch's children are written, before the next batch's ids (`Progress::Batch`);
//! - after the whole move, before the step that unsets or rewrites the array.

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use squillion::migrate::{Migration, Op, Progress, Run};

use super::migrate::{a_second_run_changes_nothing, migrate};
use super::migrate_data::write;
use super::*;
use squillion_testkit::Lcg;

/// Parents seeded: about 2,600 with books, three batches of the walk (1,000 each).
const PARENTS: usize = 3_000;

fn schema(layout: &str) -> String {
    format!(
        "entity Author {{ name: string  city: string }}\n\
         entity Book {{ title: string  pages: int32  tags: [string; 8] }}\n\
         relation Author.books: many(100) <-> Book.author: one {{\n  force {layout}\n}}\n"
    )
}

/// Where a run is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The second batch's ids are written, its children not.
    AfterIds,
    /// The second batch's children are written, the third batch's ids not.
    AfterChildren,
    /// The move is done and recorded; the next step (the array unset or rewritten) not begun.
    BeforeNextStep,
}

const STOPS: [Stop; 3] = [Stop::AfterIds, Stop::AfterChildren, Stop::BeforeNextStep];

/// The unwinding payload of a stop (`resume_unwind`: no panic message).
struct Stopped;

/// The stop landed where it was meant to: `given` elements held ids, `children` books had
/// documents of their own, of `total`.
fn assert_between_writes(what: &str, stop: Stop, given: usize, children: u64, total: usize) {
    let children = children as usize;
    match stop {
        Stop::AfterIds => assert!(
            children < given && given < total,
            "{what}: {given} ids given, {children} books written, of {total}"
        ),
        Stop::AfterChildren => assert!(
            children == given && given < total,
            "{what}: {given} ids given, {children} books written, of {total}"
        ),
        Stop::BeforeNextStep => assert!(
            children == given && given == total,
            "{what}: {given} ids given, {children} books written, of {total}"
        ),
    }
}

/// Seeds `PARENTS` authors with 0 to 7 books embedded, no book with an `_id` (as the old code
/// writes them); returns each author's books, in order, as `(title, pages, tags)`.
async fn seed(db: &Database, rng: &mut Lcg) -> BTreeMap<ObjectId, Vec<Document>> {
    let mut out = BTreeMap::new();
    let mut docs = Vec::new();
    for i in 0..PARENTS {
        let id = ObjectId::new();
        let books: Vec<Document> = (0..rng.below(8))
            .map(|k| {
                doc! {
                    "title": format!("t{i}-{k}-{}", rng.below(1000)),
                    "pages": k as i32,
                    "tags": (0..rng.below(3)).map(|t| format!("g{t}")).collect::<Vec<_>>(),
                }
            })
            .collect();
        docs.push(doc! { "_id": id, "name": format!("a{i}"), "city": "c", "books": books.clone() });
        out.insert(id, books);
    }
    db.collection::<Document>("authors")
        .insert_many(docs)
        .await
        .unwrap();
    out
}

/// A book as seeded: its own fields only (no `_id`, no reference).
fn content(d: &Document) -> Document {
    let mut out = Document::new();
    for k in ["title", "pages", "tags"] {
        if let Some(v) = d.get(k) {
            out.insert(k, v.clone());
        }
    }
    out
}

/// Runs the migration `old` -> `new` through the runtime, stopping it at `stop`; returns the
/// ids the embedded elements (or bucket items) held when it stopped, by content.
async fn stopped_run(
    old: &Path,
    new: &Path,
    t: &TestDb,
    stop: Stop,
    array_of: (&str, &str),
) -> BTreeMap<String, Bson> {
    let (old_plan, new_plan) = (plan_of(old), plan_of(new));
    let diff = squillion_codegen::diff::diff(&old_plan, &new_plan);
    let m = squillion_codegen::migration::plan(&old_plan, &new_plan, &diff).unwrap();
    let steps = squillion_cli::migrate::operations(&m).unwrap();
    let names: Vec<&str> = steps.iter().map(|(n, _)| n.as_str()).collect();
    let split = steps
        .iter()
        .position(|(_, op)| matches!(op, Op::SplitOut { .. }))
        .unwrap_or_else(|| panic!("no split among {names:?}"));
    let (move_step, next_step) = (names[split], names.get(split + 1).copied());
    let migration = Migration {
        id: &m.id,
        from: &m.old_source,
        to: &m.new_source,
        steps: &names,
    };
    let mut progress = |p: &Progress<'_>| {
        let now = match (stop, p) {
            (Stop::AfterIds, Progress::IdsGiven { step, walked, .. }) => {
                *step == move_step && *walked == 1_000
            }
            (Stop::AfterChildren, Progress::Batch { step, walked }) => {
                *step == move_step && *walked == 2_000
            }
            (Stop::BeforeNextStep, Progress::Started { step, .. }) => Some(*step) == next_step,
            _ => false,
        };
        if now {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    };
    let run = async {
        let mut run = Run::open(&t.db, &migration, false, &mut progress)
            .await
            .unwrap();
        for (name, op) in steps.clone() {
            run.step(&name, op).await.unwrap();
        }
    };
    let stopped = AssertUnwindSafe(run).catch_unwind().await;
    match stopped {
        Err(payload) if payload.is::<Stopped>() => {}
        Err(payload) => std::panic::resume_unwind(payload),
        Ok(()) => panic!("{stop:?}: the run ended without reaching the stop"),
    }
    // The ids the array holds now, by content: the resumed run must split out these.
    let (collection, array) = array_of;
    let mut ids = BTreeMap::new();
    for d in docs_by_id(&t.db, collection).await {
        for e in d.get_array(array).cloned().unwrap_or_default() {
            if let Bson::Document(e) = e {
                if let Some(id) = e.get("_id") {
                    ids.insert(format!("{}", content(&e)), id.clone());
                }
            }
        }
    }
    ids
}

/// Each author's books, read where `layout` keeps them, in the order that layout reads them.
async fn books_of(db: &Database, layout: &str, plan: &Plan) -> BTreeMap<ObjectId, Vec<Document>> {
    let mut out: BTreeMap<ObjectId, Vec<Document>> = BTreeMap::new();
    let authors = docs_by_id(db, "authors").await;
    for a in &authors {
        out.insert(a.get_object_id("_id").unwrap(), Vec::new());
    }
    match layout {
        "child_ref" | "two_way" => {
            // By `_id` under each author: the order the new code lists them in.
            for b in docs_by_id(db, "books").await {
                let author = b.get_object_id("author").unwrap();
                out.get_mut(&author)
                    .unwrap_or_else(|| panic!("{b} refers to no author"))
                    .push(b);
            }
            if layout == "two_way" {
                let by_id: BTreeMap<ObjectId, Document> = docs_by_id(db, "books")
                    .await
                    .into_iter()
                    .map(|b| (b.get_object_id("_id").unwrap(), b))
                    .collect();
                for a in &authors {
                    let listed: Vec<Document> = a
                        .get_array("books")
                        .unwrap()
                        .iter()
                        .map(|id| by_id[&id.as_object_id().unwrap()].clone())
                        .collect();
                    assert_eq!(
                        listed,
                        out[&a.get_object_id("_id").unwrap()],
                        "two_way: the author's ids list its books in _id order"
                    );
                }
            }
        }
        "parent_refs" => {
            let by_id: BTreeMap<ObjectId, Document> = docs_by_id(db, "books")
                .await
                .into_iter()
                .map(|b| (b.get_object_id("_id").unwrap(), b))
                .collect();
            let mut listed = 0;
            for a in &authors {
                let ids = a.get_array("books").unwrap();
                let mut sorted = ids.clone();
                sorted.sort_by_key(|id| id.as_object_id().unwrap());
                assert_eq!(ids, &sorted, "parent_refs: the ids follow the books' order");
                listed += ids.len();
                out.insert(
                    a.get_object_id("_id").unwrap(),
                    ids.iter()
                        .map(|id| by_id[&id.as_object_id().unwrap()].clone())
                        .collect(),
                );
            }
            assert_eq!(
                listed,
                by_id.len(),
                "parent_refs: a book in no author's ids"
            );
        }
        _ => {
            // Buckets: by bucket `_id`, items in place.
            let d = plan.relationship("Author.books").unwrap();
            let b = d.bucket.as_ref().unwrap();
            for bucket in docs_by_id(db, &b.collection).await {
                let author = bucket.get_object_id(&b.parent_path).unwrap();
                let items = bucket.get_array(&b.items_path).unwrap();
                out.get_mut(&author)
                    .unwrap()
                    .extend(items.iter().map(|i| i.as_document().unwrap().clone()));
            }
        }
    }
    out
}

/// Every author's books, in order, are the seeded ones: none lost, none twice; each book
/// `documents` of its own under the id its element held when the run stopped (none made twice).
fn assert_same_books(
    what: &str,
    documents: bool,
    seeded: &BTreeMap<ObjectId, Vec<Document>>,
    read: &BTreeMap<ObjectId, Vec<Document>>,
    ids_at_stop: &BTreeMap<String, Bson>,
) {
    let mut all = BTreeSet::new();
    for (author, books) in seeded {
        let got = &read[author];
        let contents: Vec<Document> = got.iter().map(content).collect();
        assert_eq!(&contents, books, "{what}: the books of {author}, in order");
        for b in got {
            // Bucket items keep no id of their own.
            let Some(id) = b.get("_id") else {
                assert!(!documents, "{what}: {b} has no _id");
                continue;
            };
            assert!(all.insert(id.as_object_id().unwrap()), "{what}: {id} twice");
            if let Some(before) = ids_at_stop.get(&format!("{}", content(b))) {
                assert_eq!(id, before, "{what}: {b} changed its id across the stop");
            }
        }
    }
    if documents {
        let seeded_count: usize = seeded.values().map(Vec::len).sum();
        assert_eq!(all.len(), seeded_count, "{what}: the number of books");
    }
}

/// Seeds the embedded layout, runs `embed` -> `layout` stopped at each stop, finishes it with
/// the CLI, and checks the books.
async fn embed_to(layout: &str, stop: Stop) {
    let what = format!("embed -> {layout}, stopped {stop:?}");
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.sqn", &schema("embed"));
    let new = write(dir.path(), "new.sqn", &schema(layout));
    let t = TestDb::new(&format!("split_{layout}_{stop:?}").replace(['(', ')'], "")).await;
    indexes(&old, &t, &["--apply"]).await.expect(0, &what);
    let seeded = seed(&t.db, &mut Lcg(7)).await;
    let ids = stopped_run(&old, &new, &t, stop, ("authors", "books")).await;
    let total = seeded.values().map(Vec::len).sum();
    if layout.starts_with("bucket") {
        assert!(!ids.is_empty(), "{what}: no id given before the stop");
    } else {
        let written =
            t.db.collection::<Document>("books")
                .count_documents(doc! {})
                .await
                .unwrap();
        assert_between_writes(&what, stop, ids.len(), written, total);
    }
    migrate(&old, &new, &t, &[]).await.expect(0, &what);
    let read = books_of(&t.db, layout, &plan_of(&new)).await;
    let documents = !layout.starts_with("bucket");
    assert_same_books(&what, documents, &seeded, &read, &ids);
    a_second_run_changes_nothing(&old, &new, &t, &what).await;
    t.cleanup().await;
}

#[tokio::test]
async fn embed_to_child_ref_stopped_between_its_writes_resumes() {
    for stop in STOPS {
        embed_to("child_ref", stop).await;
    }
}

#[tokio::test]
async fn embed_to_parent_refs_stopped_between_its_writes_resumes() {
    for stop in STOPS {
        embed_to("parent_refs", stop).await;
    }
}

#[tokio::test]
async fn embed_to_two_way_stopped_between_its_writes_resumes() {
    for stop in STOPS {
        embed_to("two_way", stop).await;
    }
}

#[tokio::test]
async fn embed_to_bucket_stopped_between_its_writes_resumes() {
    for stop in STOPS {
        embed_to("bucket(4)", stop).await;
    }
}

/// Buckets split into documents of their own: the buckets filled (uninterrupted) from the
/// embedded layout, then `bucket` -> `child_ref` stopped at each stop and finished.
#[tokio::test]
async fn bucket_to_child_ref_stopped_between_its_writes_resumes() {
    for stop in STOPS {
        let what = format!("bucket -> child_ref, stopped {stop:?}");
        let dir = tempfile::tempdir().unwrap();
        let embedded = write(dir.path(), "embed.sqn", &schema("embed"));
        let old = write(dir.path(), "old.sqn", &schema("bucket(4)"));
        let new = write(dir.path(), "new.sqn", &schema("child_ref"));
        let t = TestDb::new(&format!("split_buckets_{stop:?}")).await;
        indexes(&embedded, &t, &["--apply"]).await.expect(0, &what);
        let seeded = seed(&t.db, &mut Lcg(11)).await;
        migrate(&embedded, &old, &t, &[]).await.expect(0, &what);
        let old_plan = plan_of(&old);
        let b = old_plan
            .relationship("Author.books")
            .and_then(|d| d.bucket.clone())
            .unwrap();
        let ids = stopped_run(&old, &new, &t, stop, (&b.collection, &b.items_path)).await;
        let total = seeded.values().map(Vec::len).sum();
        let written =
            t.db.collection::<Document>("books")
                .count_documents(doc! {})
                .await
                .unwrap();
        assert_between_writes(&what, stop, ids.len(), written, total);
        migrate(&old, &new, &t, &[]).await.expect(0, &what);
        let read = books_of(&t.db, "child_ref", &plan_of(&new)).await;
        assert_same_books(&what, true, &seeded, &read, &ids);
        a_second_run_changes_nothing(&old, &new, &t, &what).await;
        t.cleanup().await;
    }
}
