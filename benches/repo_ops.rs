//! Generated repository operations against hand-written `mongodb` driver code doing the same
//! thing, on the same server, in one run: get by id, insert, bounded push, bucket append and
//! queue claim. Target: the repositories reach at least 0.97x the hand-written throughput.
//!
//! Run against the test server: `scripts/with-server.sh cargo bench --bench repo_ops`
//! (or set `SQUILLION_MONGODB_URI`). `SQUILLION_BENCH_OPS` sets the operations per round
//! (default 2,000); each operation is measured in 5 alternating rounds and the median round counts.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document};
use squillion::__private::mongodb::options::ReturnDocument;
use squillion::__private::mongodb::{Collection, Database};
use squillion::BoundedVec;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "items")]
struct Item {
    #[serde(rename = "_id")]
    #[squillion(id)]
    id: ObjectId,
    name: String,
    n: i64,
    #[squillion(embed(max = 1000))]
    tags: BoundedVec<String, 1000>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    ts: DateTime,
    v: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "buckets")]
struct SensorBucket {
    #[serde(rename = "_id")]
    #[squillion(id)]
    id: ObjectId,
    sensor: i64,
    #[squillion(bucket(size = 200, key = sensor, count = count))]
    readings: Vec<Reading>,
    count: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "jobs", queue(priority = priority))]
struct Job {
    #[serde(rename = "_id")]
    #[squillion(id)]
    id: ObjectId,
    priority: i32,
    in_progress: bool,
    started: Option<DateTime>,
}

fn item(i: usize) -> Item {
    Item {
        id: ObjectId::new(),
        name: format!("item {i}"),
        n: i as i64,
        tags: BoundedVec::default(),
    }
}

fn job(i: usize) -> Job {
    Job {
        id: ObjectId::new(),
        priority: (i % 10) as i32,
        in_progress: false,
        started: None,
    }
}

/// Operations per second of `ops` calls of `f`.
async fn rate<F, Fut>(ops: usize, mut f: F) -> f64
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let start = Instant::now();
    for i in 0..ops {
        f(i).await;
    }
    ops as f64 / start.elapsed().max(Duration::from_micros(1)).as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

struct Row {
    op: &'static str,
    repo: f64,
    hand: f64,
}

async fn fresh(db: &Database, name: &str) {
    let _ = db.collection::<Document>(name).drop().await;
}

async fn measure(db: &Database, ops: usize, rounds: usize) -> Vec<Row> {
    let items = ItemRepo::new(db);
    let raw_items: Collection<Item> = db.collection("items");
    let buckets = SensorBucketRepo::new(db);
    let raw_buckets: Collection<Document> = db.collection("buckets");
    let jobs = JobRepo::new(db);
    let raw_jobs: Collection<Job> = db.collection("jobs");
    let mut rows = Vec::new();

    // insert
    let (mut r, mut h) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        fresh(db, "items").await;
        r.push(
            rate(ops, |i| {
                let x = item(i);
                let items = &items;
                async move {
                    items.insert(&x).await.expect("insert");
                }
            })
            .await,
        );
        fresh(db, "items").await;
        h.push(
            rate(ops, |i| {
                let x = item(i);
                let raw = &raw_items;
                async move {
                    raw.insert_one(&x).await.expect("insert_one");
                }
            })
            .await,
        );
    }
    rows.push(Row {
        op: "insert",
        repo: median(r),
        hand: median(h),
    });

    // get by id (on the last round's documents)
    let ids: Vec<ObjectId> = {
        fresh(db, "items").await;
        let docs: Vec<Item> = (0..ops).map(item).collect();
        raw_items.insert_many(&docs).await.expect("insert_many");
        docs.iter().map(|d| d.id).collect()
    };
    let (mut r, mut h) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        r.push(
            rate(ops, |i| {
                let id = ids[i];
                let items = &items;
                async move {
                    items.get(&id).await.expect("get").expect("found");
                }
            })
            .await,
        );
        h.push(
            rate(ops, |i| {
                let id = ids[i];
                let raw = &raw_items;
                async move {
                    raw.find_one(doc! { "_id": id })
                        .await
                        .expect("find_one")
                        .expect("found");
                }
            })
            .await,
        );
    }
    rows.push(Row {
        op: "get by id",
        repo: median(r),
        hand: median(h),
    });

    // bounded push: the bound is in the update's filter in both
    let (mut r, mut h) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        r.push(
            rate(ops, |i| {
                let id = ids[i % ids.len()];
                let items = &items;
                async move {
                    items.push_tags(&id, &format!("t{i}")).await.expect("push");
                }
            })
            .await,
        );
        h.push(
            rate(ops, |i| {
                let id = ids[i % ids.len()];
                let raw = &raw_items;
                async move {
                    let res = raw
                        .update_one(
                            doc! { "_id": id, "tags.999": { "$exists": false } },
                            doc! { "$push": { "tags": format!("t{i}") } },
                        )
                        .await
                        .expect("update_one");
                    assert_eq!(res.matched_count, 1);
                }
            })
            .await,
        );
    }
    rows.push(Row {
        op: "bounded push",
        repo: median(r),
        hand: median(h),
    });

    // bucket append: upsert guarded by count < 200
    buckets.ensure_indexes().await.expect("bucket indexes");
    let (mut r, mut h) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let sensor = round as i64;
        r.push(
            rate(ops, |i| {
                let b = &buckets;
                let x = Reading {
                    ts: DateTime::from_millis(i as i64),
                    v: i as f64,
                };
                async move {
                    b.append_readings(&sensor, &x).await.expect("append");
                }
            })
            .await,
        );
        let sensor = 1_000 + round as i64;
        h.push(
            rate(ops, |i| {
                let raw = &raw_buckets;
                let x = Reading {
                    ts: DateTime::from_millis(i as i64),
                    v: i as f64,
                };
                async move {
                    let x = squillion::__private::bson::to_bson(&x).expect("bson");
                    raw.update_one(
                        doc! { "sensor": sensor, "count": { "$lt": 200 } },
                        doc! { "$push": { "readings": x }, "$inc": { "count": 1 } },
                    )
                    .upsert(true)
                    .await
                    .expect("upsert");
                }
            })
            .await,
        );
    }
    rows.push(Row {
        op: "bucket append",
        repo: median(r),
        hand: median(h),
    });

    // queue claim: find-and-modify on in_progress, highest priority first
    jobs.ensure_indexes().await.expect("queue index");
    let (mut r, mut h) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        fresh(db, "jobs").await;
        jobs.ensure_indexes().await.expect("queue index");
        raw_jobs
            .insert_many((0..ops).map(job).collect::<Vec<_>>())
            .await
            .expect("jobs");
        r.push(
            rate(ops, |_| {
                let jobs = &jobs;
                async move {
                    jobs.claim_next().await.expect("claim").expect("a job");
                }
            })
            .await,
        );
        fresh(db, "jobs").await;
        jobs.ensure_indexes().await.expect("queue index");
        raw_jobs
            .insert_many((0..ops).map(job).collect::<Vec<_>>())
            .await
            .expect("jobs");
        h.push(
            rate(ops, |_| {
                let raw = &raw_jobs;
                async move {
                    raw.find_one_and_update(
                        doc! { "in_progress": false },
                        doc! { "$set": { "in_progress": true, "started": DateTime::now() } },
                    )
                    .sort(doc! { "priority": -1, "_id": 1 })
                    .return_document(ReturnDocument::After)
                    .await
                    .expect("claim")
                    .expect("a job");
                }
            })
            .await,
        );
    }
    rows.push(Row {
        op: "queue claim",
        repo: median(r),
        hand: median(h),
    });
    rows
}

fn main() {
    let ops: usize = std::env::var("SQUILLION_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let t = squillion_testkit::TestDb::new("bench_repo_ops").await;
        let rows = measure(&t.db, ops, 5).await;
        println!("| operation | repository ops/s | hand-written ops/s | ratio |");
        println!("|---|---:|---:|---:|");
        for r in &rows {
            println!(
                "| {} | {:.0} | {:.0} | {:.3}x |",
                r.op,
                r.repo,
                r.hand,
                r.repo / r.hand
            );
        }
        t.cleanup().await;
    });
}
