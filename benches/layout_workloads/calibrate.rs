//! The server's per-operation costs, measured once per run: what the cost model's constants
//! (`codegen/src/engine/cost.rs`) stand for, each isolated by a difference of two plain driver
//! operations that differ by that one thing. Every figure is the median of several rounds of
//! sequential operations, in microseconds; docs/benchmarks.md ("Calibration") records the runs
//! the constants were taken from.
//!
//! Benchmark harness, not product code: every driver call goes to the test server the bench
//! started itself, with documents it wrote itself, so no user data reaches an `expect`. A failed
//! call means the measurement is void; the panic names the step and stops the run rather than
//! report a figure made of failed operations (as the other workloads' `unwrap`s do).

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use squillion::__private::bson::{doc, oid::ObjectId, Bson, Document};
use squillion::__private::mongodb::{Client, Collection, Database};

use crate::measure::median;

/// Operations per timed round, and rounds (the median counts).
const OPS: usize = 200;
const ROUNDS: usize = 9;

/// One timed step: called with the operation's number.
type Step<'a> = Box<dyn FnMut(usize) -> Pin<Box<dyn Future<Output = ()> + 'a>> + 'a>;

fn small(i: usize) -> Document {
    doc! { "_id": ObjectId::new(), "k": i as i64, "name": "a small document" }
}

/// One calibration: the constant's name, what isolates it, and the figure.
pub struct Figure {
    pub constant: &'static str,
    pub method: &'static str,
    pub micros: f64,
}

/// Runs every calibration against `db` (its collections are dropped with it).
pub async fn run(client: &Client, db: &Database) -> Vec<Figure> {
    let small_docs: Collection<Document> = db.collection("small");
    let many: Collection<Document> = db.collection("many");
    let big: Collection<Document> = db.collection("big");
    let indexed: Collection<Document> = db.collection("indexed");
    let pair: Collection<Document> = db.collection("pair");

    // Seed: 200 small documents, 1,000 small documents to read in one batch, a 128 KiB document
    // and a small one beside it, and a collection with three secondary indexes.
    let docs: Vec<Document> = (0..OPS).map(small).collect();
    let ids: Vec<_> = docs.iter().map(|d| d.get("_id").cloned()).collect();
    small_docs.insert_many(docs).await.expect("seed");
    let reads: Vec<Document> = (0..1_000)
        .map(|i| doc! { "g": 1, "k": i as i64, "v": 0.5 })
        .collect();
    many.insert_many(reads).await.expect("seed");
    many.create_index(
        squillion::__private::mongodb::IndexModel::builder()
            .keys(doc! { "g": 1, "k": 1 })
            .build(),
    )
    .await
    .expect("index");
    // An array of 4,096 small elements (a time series embedded in its parent, as the layouts
    // hold children), and a document with one.
    let element = |k: i64| doc! { "ts": k, "v": 0.25, "note": "a reading" };
    let entries: Vec<Document> = (0..4_096).map(element).collect();
    big.insert_one(doc! { "_id": 1, "a": entries, "n": 0 })
        .await
        .expect("seed");
    big.insert_one(doc! { "_id": 2, "a": [element(0)], "n": 0 })
        .await
        .expect("seed");
    let big_kib = {
        let d = big
            .find_one(doc! { "_id": 1 })
            .await
            .expect("get")
            .expect("seeded");
        squillion::__private::bson::to_vec(&d).expect("bson").len() as f64 / 1_024.0
    };
    for f in ["a", "b", "c"] {
        indexed
            .create_index(
                squillion::__private::mongodb::IndexModel::builder()
                    .keys(doc! { f: 1 })
                    .build(),
            )
            .await
            .expect("index");
    }
    pair.insert_many(vec![doc! { "_id": 1, "n": 0 }, doc! { "_id": 2, "n": 0 }])
        .await
        .expect("seed");

    let push = |id: i32| -> Step<'_> {
        let b = big.clone();
        Box::new(move |i| {
            let c = b.clone();
            Box::pin(async move {
                c.update_one(
                    doc! { "_id": id },
                    doc! { "$push": { "a": element(i as i64) }, "$inc": { "n": 1 } },
                )
                .await
                .expect("update");
            })
        })
    };
    let get_from = |c: &Collection<Document>, id: Bson| -> Step<'_> {
        let c = c.clone();
        Box::new(move |_| {
            let c = c.clone();
            let id = id.clone();
            Box::pin(async move {
                c.find_one(doc! { "_id": id }).await.expect("get");
            })
        })
    };
    let steps: Vec<(usize, Step<'_>)> = vec![
        // 0: a small document by `_id`.
        (OPS, {
            let c = small_docs.clone();
            let ids = ids.clone();
            Box::new(move |i| {
                let c = c.clone();
                let id = ids[i % ids.len()].clone();
                Box::pin(async move {
                    c.find_one(doc! { "_id": id }).await.expect("get");
                })
            })
        }),
        // 1: 100 small documents by an indexed range.
        (OPS / 4, {
            let c = many.clone();
            Box::new(move |i| {
                let c = c.clone();
                Box::pin(async move {
                    let from = (i * 37 % 900) as i64;
                    let mut cur = c
                        .find(doc! { "g": 1, "k": { "$gte": from, "$lt": from + 100 } })
                        .await
                        .expect("find");
                    while cur.advance().await.expect("batch") {}
                })
            })
        }),
        // 2, 3: the big document and the small one beside it.
        (OPS / 4, get_from(&big, Bson::Int32(1))),
        (OPS / 4, get_from(&big, Bson::Int32(2))),
        // 4: an insert.
        (OPS, {
            let c = small_docs.clone();
            Box::new(move |i| {
                let c = c.clone();
                Box::pin(async move {
                    c.insert_one(small(i)).await.expect("insert");
                })
            })
        }),
        // 5: an insert with three more index entries.
        (OPS, {
            let c = indexed.clone();
            Box::new(move |i| {
                let c = c.clone();
                Box::pin(async move {
                    let mut d = small(i);
                    d.insert("a", i as i64);
                    d.insert("b", i as i64);
                    d.insert("c", i as i64);
                    c.insert_one(d).await.expect("insert");
                })
            })
        }),
        // 6: an update of a small document.
        (OPS, {
            let c = small_docs.clone();
            let ids = ids.clone();
            Box::new(move |i| {
                let c = c.clone();
                let id = ids[i % ids.len()].clone();
                Box::pin(async move {
                    c.update_one(doc! { "_id": id }, doc! { "$inc": { "k": 1 } })
                        .await
                        .expect("update");
                })
            })
        }),
        // 7, 8: an element pushed onto the big array and onto the small one.
        (OPS / 8, push(1)),
        (OPS / 8, push(2)),
        // 9: two updates.
        (OPS / 2, {
            let c = pair.clone();
            Box::new(move |_| {
                let c = c.clone();
                Box::pin(async move {
                    for id in [1, 2] {
                        c.update_one(doc! { "_id": id }, doc! { "$inc": { "n": 1 } })
                            .await
                            .expect("update");
                    }
                })
            })
        }),
        // 10: the same two in a transaction, with its commit.
        (OPS / 2, {
            let c = pair.clone();
            let client = client.clone();
            Box::new(move |_| {
                let c = c.clone();
                let client = client.clone();
                Box::pin(async move {
                    let mut s = client.start_session().await.expect("session");
                    s.start_transaction().await.expect("transaction");
                    for id in [1, 2] {
                        c.update_one(doc! { "_id": id }, doc! { "$inc": { "n": 1 } })
                            .session(&mut s)
                            .await
                            .expect("update");
                    }
                    s.commit_transaction().await.expect("commit");
                })
            })
        }),
    ];
    // Every step once per round, the rounds one after another: each constant is a difference
    // of steps timed seconds apart in the same round (a slow moment of the shared machine hits
    // both sides alike), and the median over the rounds counts.
    let mut steps = steps;
    let mut per_round: Vec<Vec<f64>> = Vec::with_capacity(ROUNDS);
    let mut n = 0;
    for _ in 0..ROUNDS {
        let mut times = Vec::with_capacity(steps.len());
        for (ops, step) in steps.iter_mut() {
            let start = Instant::now();
            for _ in 0..*ops {
                step(n).await;
                n += 1;
            }
            times.push(start.elapsed().as_secs_f64() * 1e6 / *ops as f64);
        }
        per_round.push(times);
    }
    let derived = |f: &dyn Fn(&[f64]) -> f64| -> f64 {
        let xs: Vec<f64> = per_round.iter().map(|t| f(t)).collect();
        median(&xs).max(0.0)
    };
    let round_trip = derived(&|t| t[0]);
    let document_read = derived(&|t| (t[1] - t[0]) / 100.0);
    let kib_read = derived(&|t| (t[2] - t[3]) / big_kib);
    let document_inserted = derived(&|t| t[4] - t[0]);
    let document_rewritten = derived(&|t| t[6] - t[0]);
    let kib_rewritten = derived(&|t| (t[7] - t[8]) / big_kib);
    let index_entry = derived(&|t| (t[5] - t[4]) / 3.0);
    let transaction = derived(&|t| t[10] - t[9]);
    vec![
        Figure {
            constant: "ROUND_TRIP_US",
            method: "a small document read by `_id`",
            micros: round_trip,
        },
        Figure {
            constant: "DOCUMENT_READ_US",
            method: "100 small documents read by an indexed range, less one round trip, per document",
            micros: document_read,
        },
        Figure {
            constant: "KIB_READ_US",
            method: "a document holding 4,096 small elements (~150 KiB) read by `_id`, less one holding one, per KiB",
            micros: kib_read,
        },
        Figure {
            constant: "DOCUMENT_INSERTED_US",
            method: "a small document inserted (its `_id` entry), less one round trip",
            micros: document_inserted,
        },
        Figure {
            constant: "DOCUMENT_REWRITTEN_US",
            method: "`$inc` on a small document by `_id`, less one round trip",
            micros: document_rewritten,
        },
        Figure {
            constant: "KIB_REWRITTEN_US",
            method: "an element `$push`ed onto that document's array, less onto the small one's, per KiB",
            micros: kib_rewritten,
        },
        Figure {
            constant: "INDEX_ENTRY_US",
            method: "an insert into a collection with three single-field indexes less a plain insert, per entry",
            micros: index_entry,
        },
        Figure {
            constant: "TRANSACTION_US",
            method: "two `$inc`s in a transaction with its commit, less the same two without one",
            micros: transaction,
        },
    ]
}

/// Runs the calibration `repeats` times, each on a fresh database, and prints per constant the
/// median over the runs and their spread.
pub async fn repeated(client: &Client, repeats: usize, dbs: &mut Vec<Database>) {
    let mut runs = Vec::with_capacity(repeats);
    for k in 0..repeats {
        let d = crate::db(client, &format!("calibrate{k}"));
        dbs.push(d.clone());
        runs.push(run(client, &d).await);
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\n### Calibration (µs; each run the median of {ROUNDS} rounds; median of {repeats} runs, min-max)\n"
    );
    println!("load average at the end: {}", load.trim());
    println!("\n| constant | measured as | µs | runs (min-max) |");
    println!("|---|---|---:|---:|");
    for (i, f) in runs[0].iter().enumerate() {
        let xs: Vec<f64> = runs.iter().map(|r| r[i].micros).collect();
        let lo = xs.iter().copied().fold(f64::MAX, f64::min);
        let hi = xs.iter().copied().fold(0.0, f64::max);
        println!(
            "| `{}` | {} | {:.1} | {:.1}-{:.1} |",
            f.constant,
            f.method,
            median(&xs),
            lo,
            hi
        );
    }
}
