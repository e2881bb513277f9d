//! The library example's documented evolution (`docs/evolution.md`, seed 000's notes story),
//! replayed against the server: `examples/evolution/library_v1.sqn` (notes embedded in the
//! book) filled, migrated to `_v2` (notes linked from their own collection), checked, migrated
//! to `_v3` (notes in `book_notes` buckets of 10: `examples/library.sqn`'s Plan), checked. Each
//! check compares every book's notes, each whole (its user and its tree of comments), in order,
//! with what was filled, and the total count and a checksum; the buckets are compared with those
//! the generated library code (`BookNotesBucketRepo::append_notes`) writes from the same notes.

use super::migrate::{a_second_run_changes_nothing, killed_migration, migrate};
use super::migrate_data::*;
use super::*;
use squillion_examples_generated::library::{BookNotesBucketRepo, Note};
use squillion_testkit::Lcg;

fn version(v: u8) -> PathBuf {
    root().join(format!("examples/evolution/library_v{v}.sqn"))
}

/// The bucketed end state is the library example: the same Plan.
#[test]
fn the_last_version_is_the_library_example() {
    // The Plans as JSON, their file names and the positions of their warnings aside (the
    // headers differ in length).
    let unplaced = |path: PathBuf| {
        let mut v: Value = serde_json::from_str(&plan_of(&path).to_json()).unwrap();
        v.as_object_mut().unwrap().remove("source");
        for w in v["warnings"].as_array_mut().unwrap() {
            w.as_object_mut().unwrap().remove("position");
        }
        v
    };
    assert!(
        unplaced(version(3)) == unplaced(root().join("examples/library.sqn")),
        "examples/evolution/library_v3.sqn and examples/library.sqn give different Plans"
    );
    // The docs tell the story with the commands.
    let docs = std::fs::read_to_string(root().join("docs/evolution.md")).unwrap();
    for v in 1..=3 {
        assert!(
            docs.contains(&format!("library_v{v}.sqn")),
            "evolution.md names v{v}"
        );
    }
}

/// A document with its fields in name order, at every level (the test server's `$merge` writes
/// top-level fields so): notes compare by content.
fn canonical(b: &Bson) -> Bson {
    match b {
        Bson::Document(d) => {
            let mut keys: Vec<&String> = d.keys().collect();
            keys.sort();
            Bson::Document(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(d.get(k).unwrap())))
                    .collect(),
            )
        }
        Bson::Array(items) => Bson::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Fills version 1: authors, users, and books with their notes embedded (each with its user
/// and a small tree of comments and replies), through the v1 validators.
async fn fill_v1(db: &Database, books: usize, rng: &mut Lcg) {
    let authors: Vec<Document> = (0..30)
        .map(|i| doc! { "_id": ObjectId::new(), "first_name": format!("F{i}"), "last_name": format!("L{i}") })
        .collect();
    db.collection::<Document>("authors")
        .insert_many(authors.clone())
        .await
        .unwrap();
    let users: Vec<String> = (0..20).map(|i| format!("reader{i}@example.com")).collect();
    db.collection::<Document>("users")
        .insert_many(
            users
                .iter()
                .map(|u| doc! { "_id": u, "password": "x" })
                .collect::<Vec<_>>(),
        )
        .await
        .unwrap();
    let day = 86_400_000_i64;
    let pick_user = |rng: &mut Lcg| users[rng.below(users.len() as u64) as usize].clone();
    let mut docs = Vec::new();
    for i in 0..books {
        let a = &authors[rng.below(authors.len() as u64) as usize];
        let notes: Vec<Bson> = (0..rng.below(26))
            .map(|k| {
                let comments: Vec<Bson> = (0..rng.below(3))
                    .map(|c| {
                        let replies: Vec<Bson> = (0..rng.below(2))
                            .map(|r| {
                                Bson::Document(doc! {
                                    "text": format!("reply {r}"), "replies": [], "user": pick_user(rng),
                                })
                            })
                            .collect();
                        Bson::Document(doc! {
                            "text": format!("comment {c}"), "replies": replies, "user": pick_user(rng),
                        })
                    })
                    .collect();
                // Few dates: notes of one day are ordered by their id (the order they came in).
                Bson::Document(doc! {
                    "note": format!("note {i}.{k}"),
                    "date": DateTime::from_millis(1_600_000_000_000 + day * rng.below(6) as i64),
                    "user": pick_user(rng),
                    "comments": comments,
                })
            })
            .collect();
        docs.push(doc! {
            "_id": ObjectId::new(),
            "title": format!("Book {i}"),
            "isbn": format!("978{i:010}"),
            "slug": format!("book-{i}"),
            "publisher": {
                "publisher_name": "Everyman's Library",
                "date": DateTime::from_millis(685_238_400_000),
                "publisher_city": "London",
            },
            "available": i % 2 == 0,
            "pages": (100 + i % 300) as i32,
            "summary": "Set in the post-Great War...",
            "subjects": ["Love stories", "1920s"],
            "language": "English",
            "author": { "id": a.get("_id").unwrap().clone(), "first_name": a.get("first_name").unwrap().clone(), "last_name": a.get("last_name").unwrap().clone() },
            "notes": notes,
        });
    }
    db.collection::<Document>("books")
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| panic!("the v1 validator of books refuses the filler: {e}"));
}

/// Every book's notes as the version `v` stores them, in its order, each whole (its `_id` and
/// book reference aside).
async fn notes_of(db: &Database, v: u8) -> BTreeMap<String, Vec<Bson>> {
    let all = |name: &'static str| async move { docs_by_id(db, name).await };
    let books = all("books").await;
    let mut out: BTreeMap<String, Vec<Bson>> = books
        .iter()
        .map(|b| (b.get("_id").unwrap().to_string(), Vec::new()))
        .collect();
    let mut add = |book: &Bson, note: &Document| {
        let mut n = note.clone();
        n.remove("_id");
        n.remove("book");
        out.get_mut(&book.to_string())
            .unwrap_or_else(|| panic!("v{v}: a note of no book: {note}"))
            .push(canonical(&Bson::Document(n)));
    };
    match v {
        1 => {
            for b in &books {
                for n in b.get_array("notes").unwrap() {
                    add(b.get("_id").unwrap(), n.as_document().unwrap());
                }
            }
        }
        2 => {
            for n in all("notes").await {
                add(n.get("book").unwrap(), &n);
            }
        }
        _ => {
            for bucket in all("book_notes").await {
                for n in bucket.get_array("notes").unwrap() {
                    add(bucket.get("book").unwrap(), n.as_document().unwrap());
                }
            }
        }
    }
    out
}

/// The count of notes and a checksum of their contents (per book, order aside).
fn count_and_checksum(notes: &BTreeMap<String, Vec<Bson>>) -> (usize, u64) {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (book, list) in notes {
        let mut texts: Vec<String> = list.iter().map(|n| format!("{n}")).collect();
        texts.sort();
        for byte in format!("{book}{texts:?}").bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    (notes.values().map(Vec::len).sum(), hash)
}

fn same_per_book(
    got: &BTreeMap<String, Vec<Bson>>,
    expected: &BTreeMap<String, Vec<Bson>>,
    what: &str,
) {
    assert_eq!(got.len(), expected.len(), "{what}: books");
    for (k, v) in expected {
        assert_eq!(got.get(k), Some(v), "{what}: the notes of book {k}");
    }
}

/// The buckets of `book_notes` per book (`_id` order), each without its `_id`, fields in name
/// order.
async fn buckets_per_book(db: &Database) -> BTreeMap<String, Vec<Bson>> {
    let mut out: BTreeMap<String, Vec<Bson>> = BTreeMap::new();
    let docs: Vec<Document> = docs_by_id(db, "book_notes").await;
    for mut d in docs {
        d.remove("_id");
        out.entry(d.get("book").unwrap().to_string())
            .or_default()
            .push(canonical(&Bson::Document(d)));
    }
    out
}

/// One migration step of the story: a dry run and a script that write nothing, then the
/// migration (killed first at `kill`, then resumed), then a second run that changes nothing.
async fn step(from: u8, to: u8, t: &TestDb, kill: Option<(usize, u64)>) -> Duration {
    let (old, new) = (version(from), version(to));
    let what = format!("library v{from} -> v{to}");
    let untouched = dump(&t.db).await;
    migrate(&old, &new, t, &["--dry-run"])
        .await
        .expect(0, &what);
    migrate(&old, &new, t, &["--print", "mongosh"])
        .await
        .expect(0, &what);
    assert_eq!(
        dump(&t.db).await,
        untouched,
        "{what}: a dry run or a print wrote"
    );
    if let Some((k, ms)) = kill {
        killed_migration(&old, &new, t, k, ms).await;
    }
    let started = Instant::now();
    let run = migrate(&old, &new, t, &[]).await;
    run.expect(0, &what);
    let took = started.elapsed();
    a_second_run_changes_nothing(&old, &new, t, &what).await;
    assert_new_validators_accept_everything(&t.db, &plan_of(&new)).await;
    assert_matches_plan(&t.db, &plan_of(&new)).await;
    took
}

/// The story, with `kill` applied to both migrations: v1 filled, v1 -> v2, v2 -> v3, each
/// checked against what was filled.
async fn evolution(name: &str, books: usize, seed: u64, kill: Option<(usize, u64)>) {
    let t = TestDb::new(name).await;
    indexes(&version(1), &t, &["--apply"])
        .await
        .expect(0, "v1 indexes");
    fill_v1(&t.db, books, &mut Lcg(seed)).await;
    let v1 = notes_of(&t.db, 1).await;
    let total = count_and_checksum(&v1);
    assert!(total.0 > books * 10, "few notes: {total:?}");

    // Embedded -> linked: every book's notes, in their order (the ids given follow it).
    let took_v2 = step(1, 2, &t, kill).await;
    let v2 = notes_of(&t.db, 2).await;
    same_per_book(&v2, &v1, "v1 -> v2");
    assert_eq!(count_and_checksum(&v2), total);

    // Linked -> bucketed: every book's notes in date order (ties by id: the order they came
    // in), buckets of 10 filled in that order, as the generated code appends them.
    let took_v3 = step(2, 3, &t, kill).await;
    let v3 = notes_of(&t.db, 3).await;
    let mut by_date = v2.clone();
    for notes in by_date.values_mut() {
        notes.sort_by_key(|n| {
            n.as_document()
                .unwrap()
                .get_datetime("date")
                .unwrap()
                .timestamp_millis()
        });
    }
    same_per_book(&v3, &by_date, "v2 -> v3");
    assert_eq!(count_and_checksum(&v3), total);
    let scratch = TestDb::new(&format!("{name}_appended")).await;
    let repo = BookNotesBucketRepo::new(&scratch.db);
    for (book, notes) in &by_date {
        let hex = book
            .trim_start_matches("ObjectId(\"")
            .trim_end_matches("\")");
        let id = ObjectId::parse_str(hex).unwrap();
        for n in notes {
            let note: Note = bson::from_bson(n.clone()).unwrap();
            repo.append_notes(&id, &note).await.unwrap();
        }
    }
    let (migrated, appended) = (
        buckets_per_book(&t.db).await,
        buckets_per_book(&scratch.db).await,
    );
    assert_eq!(migrated.len(), appended.len(), "books with buckets");
    for (book, buckets) in &appended {
        assert_eq!(
            migrated.get(book),
            Some(buckets),
            "the buckets of book {book}"
        );
    }
    scratch.cleanup().await;
    if kill.is_none() {
        eprintln!(
            "library evolution, {books} books and {} notes: v1 -> v2 in {took_v2:?}, v2 -> v3 in {took_v3:?}",
            total.0
        );
    }
    t.cleanup().await;
}

/// The library's notes embedded -> linked -> bucketed, 1,050 books (two batches) and some 13,000
/// notes, each checked whole after each step.
#[tokio::test]
async fn the_library_evolution_replays() {
    evolution("mig_library", 1_050, 0, None).await;
}

/// The same story with both migrations killed at drawn moments and resumed.
#[tokio::test]
async fn the_library_evolution_resumes_after_a_kill() {
    let mut rng = Lcg(15);
    for i in 0..3 {
        let kill = (1 + rng.below(8) as usize, rng.below(40));
        evolution(&format!("mig_library_killed_{i}"), 300, i + 1, Some(kill)).await;
    }
}
