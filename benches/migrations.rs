//! Migration throughput (issue 15): squillion's migration against a hand-written aggregation
//! pipeline doing the same move on the same data.
//!
//! For each kind, the old layout is seeded in bulk (`insert_many` of raw documents in batches of
//! 10,000, through the old layout's validators; not timed), then migrated by the module
//! `squillion migrate OLD NEW -o DIR` writes (checked in under `benches/migrations/`, kept fresh
//! by `tests/migration_bench_modules.rs`): every step through `squillion::migrate::Run`, the
//! executor the CLI runs too, with its checkpoint. The database is then seeded again, the same
//! documents, and the hand-written pipeline runs: what a competent engineer would write for the
//! same move, in one pass, no batches, no checkpoint (below, per kind). Both end states are read
//! back and must agree (the count and an order-free checksum of the moved data), or the bench
//! fails. Which goes first alternates by round.
//!
//! Kinds (`SQUILLION_BENCH_ONLY` picks one):
//! - `embed_to_child_ref`: authors with their books embedded (no `_id` in the elements, as the
//!   old code writes them) -> books in their own collection referring to their author. Counted
//!   unit: books moved. Hand-written: `authors.aggregate([$unwind books, $replaceWith books +
//!   {author: _id}, $merge into books])` (the server makes each book's `_id`), the index on
//!   `books.author` the new code queries by created first (as squillion's expand does), then
//!   `$unset` of `authors.books`.
//! - `copy_backfilled`: books referring to their author by id -> `author: {id, name}` with the
//!   author's name copied. Counted unit: books updated. Hand-written: `books.aggregate([$lookup
//!   the author, $project author: {id, name}, $merge into books (whenMatched merge)])`, the index on
//!   `author.id` created first and the old index on `author` dropped after (as squillion does).
//!
//! Run: `scripts/with-server.sh cargo bench --bench migrations` (or set
//! `SQUILLION_MONGODB_URI`). `SQUILLION_BENCH_CHILDREN` is a comma-separated list of sizes
//! (books; default `100000`), `SQUILLION_BENCH_ROUNDS` the rounds per size (default 2),
//! `SQUILLION_BENCH_PER_PARENT` the books per author (default 10).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, Document};
use squillion::migrate::{MigrationError, Progress, Summary};
use squillion::mongodb::{Client, Database, IndexModel};

// Generated (prettyplease's layout, kept byte for byte by tests/migration_bench_modules.rs).
#[rustfmt::skip]
#[allow(dead_code, clippy::all)]
#[path = "migrations/embed_to_child_ref.rs"]
mod embed_to_child_ref;

#[rustfmt::skip]
#[allow(dead_code, clippy::all)]
#[path = "migrations/copy_backfilled.rs"]
mod copy_backfilled;

const INSERT_BATCH: usize = 10_000;

/// squillion's and the hand-written pipeline's times (s), one per round.
type Times = (Vec<f64>, Vec<f64>);

/// One benchmarked kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    EmbedToChildRef,
    CopyBackfilled,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::EmbedToChildRef => "embed_to_child_ref",
            Kind::CopyBackfilled => "copy_backfilled",
        }
    }

    /// The old and new schema files (for the validators the seed is inserted through).
    fn old_schema(self) -> &'static str {
        match self {
            Kind::EmbedToChildRef => "embed",
            Kind::CopyBackfilled => "plain",
        }
    }
}

/// A deterministic spread of `i` (splitmix64's finaliser).
fn h(i: u64, salt: u64) -> u64 {
    let mut x = i.wrapping_add(salt).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// The `i`-th id of a series: the same every seed, ascending.
fn id(series: u8, i: u64) -> ObjectId {
    let mut b = [0u8; 12];
    b[0..4].copy_from_slice(&0x6a00_0000u32.to_be_bytes());
    b[4] = series;
    b[5..12].copy_from_slice(&i.to_be_bytes()[1..]);
    ObjectId::from_bytes(b)
}

/// The `j`-th book, without `_id` or author.
fn book(j: u64) -> Document {
    let tags: Vec<String> = (0..h(j, 3) % 4)
        .map(|t| format!("tag{}", h(j, t) % 50))
        .collect();
    doc! {
        "title": format!("Book {j} {}", h(j, 1) % 1_000_000),
        "pages": (50 + h(j, 2) % 900) as i32,
        "tags": tags,
    }
}

fn author(i: u64) -> Document {
    doc! {
        "_id": id(1, i),
        "name": format!("Author {i}"),
        "city": format!("City {}", h(i, 9) % 300),
    }
}

/// The old layout's validators, from the Plan of its schema (as `squillion indexes --apply`
/// sets them before the old code writes).
fn validators(kind: Kind) -> Vec<(String, Document)> {
    let stem = kind.old_schema();
    let path = format!(
        "{}/benches/migrations/{stem}.sqn",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the old schema of a benchmarked kind");
    let source = squillion_grammar::SourceFile::new(format!("{stem}.sqn"), text);
    let plan = match squillion_codegen::pipeline::check(&source) {
        Ok(v) => v.plan,
        Err(d) => panic!("{stem}: {}", source.render(&d, false)),
    };
    plan.collections
        .iter()
        .map(|c| {
            let v = Bson::try_from(squillion_codegen::validator::validator(c))
                .expect("a validator is BSON");
            let Bson::Document(v) = v else {
                panic!("a validator is a document")
            };
            (c.name.clone(), v)
        })
        .collect()
}

async fn insert_all(db: &Database, collection: &str, docs: impl Iterator<Item = Document>) {
    let coll = db.collection::<Document>(collection);
    let mut batch = Vec::with_capacity(INSERT_BATCH);
    for d in docs {
        batch.push(d);
        if batch.len() == INSERT_BATCH {
            coll.insert_many(std::mem::take(&mut batch))
                .await
                .expect("seeding: insert_many");
        }
    }
    if !batch.is_empty() {
        coll.insert_many(batch).await.expect("seeding: insert_many");
    }
}

/// The old layout with `books` books, `per` per author, in a fresh database.
async fn seed(db: &Database, kind: Kind, books: u64, per: u64) {
    db.drop().await.expect("seeding: drop the database");
    for (name, validator) in validators(kind) {
        db.create_collection(&name)
            .validator(validator)
            .await
            .expect("seeding: create a collection with its validator");
    }
    let authors = books.div_ceil(per);
    match kind {
        Kind::EmbedToChildRef => {
            let docs = (0..authors).map(|i| {
                let mut a = author(i);
                let mine: Vec<Document> = (i * per..((i + 1) * per).min(books)).map(book).collect();
                a.insert("books", mine);
                a
            });
            insert_all(db, "authors", docs).await;
        }
        Kind::CopyBackfilled => {
            insert_all(db, "authors", (0..authors).map(author)).await;
            let docs = (0..books).map(|j| {
                let mut b = doc! { "_id": id(2, j) };
                b.extend(book(j));
                b.insert("author", id(1, j / per));
                b
            });
            let books_coll = db.collection::<Document>("books");
            books_coll
                .create_index(
                    IndexModel::builder()
                        .keys(doc! { "author": 1, "_id": 1 })
                        .options(
                            squillion::mongodb::options::IndexOptions::builder()
                                .name("author_1__id_1".to_owned())
                                .build(),
                        )
                        .build(),
                )
                .await
                .expect("seeding: the old index");
            insert_all(db, "books", docs).await;
        }
    }
}

/// Runs squillion's generated migration; returns its steps' wall times.
async fn squillion_run(db: &Database, kind: Kind) -> Vec<(String, Duration)> {
    let mut steps: Vec<(String, Duration)> = Vec::new();
    let mut started: Option<Instant> = None;
    // The batches of the step under way: when the last one ended, and each one's time.
    let mut batch_end: Option<Instant> = None;
    let mut batches: Vec<Duration> = Vec::new();
    // Of those, the time until each batch's ids were written (a split's first part).
    let mut ids = Duration::ZERO;
    let mut progress = |p: &Progress<'_>| match p {
        Progress::Started { .. } => {
            started = Some(Instant::now());
            batch_end = started;
            batches.clear();
            ids = Duration::ZERO;
        }
        Progress::IdsGiven { .. } => {
            ids += batch_end.map_or(Duration::ZERO, |b| b.elapsed());
        }
        Progress::Batch { .. } => {
            let now = Instant::now();
            batches.push(batch_end.map_or(Duration::ZERO, |b| now - b));
            batch_end = Some(now);
        }
        Progress::Done { step, .. } => {
            let took = started.take().map_or(Duration::ZERO, |s| s.elapsed());
            let mut name = (*step).to_owned();
            if let (Some(first), Some(last)) = (batches.first(), batches.last()) {
                let max = batches.iter().max().copied().unwrap_or_default();
                name.push_str(&format!(
                    " [{} batches: first {:.3} s, last {:.3} s, max {:.3} s]",
                    batches.len(),
                    secs(*first),
                    secs(*last),
                    secs(max)
                ));
            }
            if !ids.is_zero() {
                name.push_str(&format!(" [ids given: {:.3} s]", secs(ids)));
            }
            steps.push((name, took));
        }
        _ => {}
    };
    let done: Result<Summary, MigrationError> = match kind {
        Kind::EmbedToChildRef => embed_to_child_ref::migrate(db, &mut progress).await,
        Kind::CopyBackfilled => copy_backfilled::migrate(db, &mut progress).await,
    };
    let done = done.unwrap_or_else(|e| panic!("squillion's migration failed: {e}"));
    assert_eq!(done.skipped, 0, "a fresh seed has no checkpoint");
    steps
}

fn index(keys: Document, name: &str) -> IndexModel {
    IndexModel::builder()
        .keys(keys)
        .options(
            squillion::mongodb::options::IndexOptions::builder()
                .name(name.to_owned())
                .build(),
        )
        .build()
}

/// The hand-written pipeline doing the same move; returns its parts' wall times.
async fn hand_run(db: &Database, kind: Kind) -> Vec<(String, Duration)> {
    let mut parts = Vec::new();
    let mut t = Instant::now();
    let mut lap = |name: &str, parts: &mut Vec<(String, Duration)>| {
        parts.push((name.to_owned(), t.elapsed()));
        t = Instant::now();
    };
    match kind {
        Kind::EmbedToChildRef => {
            // The index first, as squillion's expand creates it: built after the move, over
            // 1,000,000 books, it had not finished after ten minutes on the test server.
            db.collection::<Document>("books")
                .create_index(index(doc! { "author": 1, "_id": 1 }, "author_1__id_1"))
                .await
                .expect("hand-written: index");
            lap("createIndex", &mut parts);
            let authors = db.collection::<Document>("authors");
            let _: Vec<Document> = authors
                .aggregate(vec![
                    doc! { "$unwind": "$books" },
                    doc! { "$replaceWith": { "$mergeObjects": ["$books", { "author": "$_id" }] } },
                    doc! { "$merge": { "into": "books", "whenNotMatched": "insert" } },
                ])
                .await
                .expect("hand-written: $merge")
                .try_collect()
                .await
                .expect("hand-written: $merge");
            lap("$unwind/$replaceWith/$merge", &mut parts);
            authors
                .update_many(
                    doc! { "books": { "$exists": true } },
                    doc! { "$unset": { "books": "" } },
                )
                .bypass_document_validation(true)
                .await
                .expect("hand-written: $unset");
            lap("$unset", &mut parts);
        }
        Kind::CopyBackfilled => {
            let books = db.collection::<Document>("books");
            books
                .create_index(index(
                    doc! { "author.id": 1, "_id": 1 },
                    "author.id_1__id_1",
                ))
                .await
                .expect("hand-written: index");
            lap("createIndex", &mut parts);
            let _: Vec<Document> = books
                .aggregate(vec![
                    doc! { "$lookup": { "from": "authors", "localField": "author", "foreignField": "_id", "as": "a" } },
                    doc! { "$project": { "author": {
                        "id": "$author",
                        "name": { "$let": { "vars": { "a": { "$arrayElemAt": ["$a", 0] } }, "in": "$$a.name" } },
                    } } },
                    doc! { "$merge": { "into": "books", "on": "_id", "whenMatched": "merge", "whenNotMatched": "discard" } },
                ])
                .bypass_document_validation(true)
                .await
                .expect("hand-written: $merge")
                .try_collect()
                .await
                .expect("hand-written: $merge");
            lap("$lookup/$project/$merge", &mut parts);
            books
                .drop_index("author_1__id_1")
                .await
                .expect("hand-written: drop index");
            lap("dropIndex", &mut parts);
        }
    }
    parts
}

/// FNV-1a, 64 bits: a checksum that does not depend on the process.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What the end state holds, for comparing two runs: the books' count and an order-free
/// checksum of their data (the author's id and name where kept, title, pages, tags; not the
/// book's `_id`, which the hand-written pipeline lets the server make), the authors' count and
/// how many still hold a `books` array.
async fn end_state(db: &Database) -> (u64, u64, u64, u64) {
    let books: Vec<Document> = db
        .collection::<Document>("books")
        .find(doc! {})
        .projection(doc! { "_id": 0, "author": 1, "title": 1, "pages": 1, "tags": 1 })
        .await
        .expect("reading books")
        .try_collect()
        .await
        .expect("reading books");
    let sum = books.iter().fold(0u64, |s, b| {
        let (author, name) = match b.get("author") {
            Some(Bson::ObjectId(a)) => (a.to_hex(), String::new()),
            Some(Bson::Document(a)) => (
                a.get_object_id("id")
                    .map(|i| i.to_hex())
                    .unwrap_or_default(),
                a.get_str("name").unwrap_or_default().to_owned(),
            ),
            _ => panic!("a book without its author: {b}"),
        };
        let tags: Vec<&str> = b
            .get_array("tags")
            .map(|t| t.iter().filter_map(Bson::as_str).collect())
            .unwrap_or_default();
        let line = format!(
            "{author}|{name}|{}|{}|{}",
            b.get_str("title").unwrap_or_default(),
            b.get_i32("pages").unwrap_or(-1),
            tags.join(",")
        );
        s.wrapping_add(fnv(line.as_bytes()))
    });
    let authors = db.collection::<Document>("authors");
    let n_authors = authors.count_documents(doc! {}).await.expect("counting");
    let with_books = authors
        .count_documents(doc! { "books": { "$exists": true } })
        .await
        .expect("counting");
    (books.len() as u64, sum, n_authors, with_books)
}

fn env(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let sizes: Vec<u64> = std::env::var("SQUILLION_BENCH_CHILDREN")
        .unwrap_or_else(|_| "100000".to_owned())
        .split(',')
        .map(|s| s.trim().parse().expect("SQUILLION_BENCH_CHILDREN: numbers"))
        .collect();
    let rounds = env("SQUILLION_BENCH_ROUNDS", 2);
    let per = env("SQUILLION_BENCH_PER_PARENT", 10);
    let only = std::env::var("SQUILLION_BENCH_ONLY").ok();
    let kinds: Vec<Kind> = [Kind::EmbedToChildRef, Kind::CopyBackfilled]
        .into_iter()
        .filter(|k| only.as_deref().is_none_or(|o| o == k.name()))
        .collect();
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    rt.block_on(async {
        let client = Client::with_uri_str(squillion_testkit::uri())
            .await
            .expect("SQUILLION_MONGODB_URI");
        let db = client.database(&format!(
            "bench_migrations_{}",
            &ObjectId::new().to_hex()[18..]
        ));
        // (kind, size) -> the squillion and hand-written times of every round.
        let mut results: BTreeMap<(&str, u64), Times> = BTreeMap::new();
        for kind in &kinds {
            for &n in &sizes {
                for round in 0..rounds {
                    let order: [bool; 2] = if round % 2 == 0 {
                        [true, false]
                    } else {
                        [false, true]
                    };
                    let mut states = Vec::new();
                    for squillion_side in order {
                        let t = Instant::now();
                        seed(&db, *kind, n, per).await;
                        let seeded = t.elapsed();
                        let load_before = load();
                        let t = Instant::now();
                        let parts = if squillion_side {
                            squillion_run(&db, *kind).await
                        } else {
                            hand_run(&db, *kind).await
                        };
                        let took = t.elapsed();
                        let who = if squillion_side { "squillion" } else { "hand-written" };
                        println!(
                            "{} n={n} round {round} {who}: {:.2} s ({:.0} books/s; seeded in {:.1} s; load {load_before})",
                            kind.name(),
                            secs(took),
                            n as f64 / secs(took),
                            secs(seeded)
                        );
                        for (name, d) in &parts {
                            println!("    {:>8.3} s  {name}", secs(*d));
                        }
                        let state = end_state(&db).await;
                        states.push((who, state));
                        let entry = results.entry((kind.name(), n)).or_default();
                        if squillion_side {
                            entry.0.push(secs(took));
                        } else {
                            entry.1.push(secs(took));
                        }
                    }
                    let (a, b) = (&states[0], &states[1]);
                    assert_eq!(
                        a.1, b.1,
                        "{} n={n}: the end states differ ({} {:?}, {} {:?})",
                        kind.name(), a.0, a.1, b.0, b.1
                    );
                    assert_eq!(a.1 .0, n, "every book is in the end state");
                    assert_eq!(a.1 .3, 0, "no author keeps its books array");
                    println!(
                        "    end states agree: {} books, checksum {:016x}, {} authors",
                        a.1 .0, a.1 .1, a.1 .2
                    );
                }
            }
        }
        db.drop().await.expect("dropping the bench database");
        println!("\nkind | books | squillion s (runs) | hand-written s (runs) | throughput ratio (median)");
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            let m = v.len() / 2;
            if v.len() % 2 == 0 {
                (v[m - 1] + v[m]) / 2.0
            } else {
                v[m]
            }
        };
        let mut by_kind: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
        for ((kind, n), (s, hw)) in &results {
            let (ms, mh) = (median(s), median(hw));
            println!(
                "{kind} | {n} | {ms:.2} ({s:.2?}) | {mh:.2} ({hw:.2?}) | {:.2}x",
                mh / ms
            );
            by_kind.entry(kind).or_default().push((*n, ms));
        }
        for (kind, sizes) in by_kind {
            for w in sizes.windows(2) {
                println!(
                    "{kind}: squillion's cost from {} to {} books: {:.2}x",
                    w[0].0,
                    w[1].0,
                    w[1].1 / w[0].1
                );
            }
        }
    });
}
