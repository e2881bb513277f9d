//! `squillion infer` on a database of 1,000,000 documents: wall time against the 60 s target
//! with the default sample, and peak memory at several sample sizes, to show that memory follows
//! the sample, not the collection.
//!
//! Run against the test server: `nice -n 19 scripts/with-server.sh cargo bench -p squillion-cli
//! --bench infer` (or set `SQUILLION_MONGODB_URI` to a server that lives longer: a database that
//! already holds the fill is reused). `SQUILLION_BENCH_INFER_DOCS` scales the fill (default
//! 1,000,000); `SQUILLION_BENCH_INFER_SAMPLES` lists the samples to run (default
//! `1000,1000,1000,100,10000`; `0` fills and stops).
//!
//! The layout is a shop's: users (with an embedded address), products (with tags), orders
//! referring to a user (with a copy of the user's name) and holding an array of lines that refer
//! to products, reviews referring to a product and a user, and events referring to a user. Ids are
//! made from their index, so references are drawn without holding any list of ids.
//!
//! Each `infer` run is a child process under `/usr/bin/time`, which reports its peak resident set
//! (the kernel's high-water mark) and its CPU time; the server's CPU time over the same run is read
//! from `/proc`, to tell whether `infer` or the server is the bottleneck.

use std::process::Command;
use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, Bson, DateTime, Document};
use futures::TryStreamExt;
use mongodb::options::InsertManyOptions;
use mongodb::{Client, Database, IndexModel};

const DB: &str = "squillion_bench_infer";
const BATCH: usize = 10_000;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Skewed towards small indexes: a few busy users, a few popular products.
    fn skewed(&mut self, n: u64) -> u64 {
        let x = self.below(n);
        x * self.below(n) / n.max(1)
    }
}

/// The id of document `i` of collection `tag`: a plausible timestamp, then the tag and index.
fn id(tag: u8, i: u64) -> ObjectId {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&(1_700_000_000u32 + (i / 64) as u32).to_be_bytes());
    b[4] = tag;
    b[5..].copy_from_slice(&i.to_be_bytes()[1..]);
    ObjectId::from_bytes(b)
}

const CITIES: [&str; 6] = ["Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Evora"];
const KINDS: [&str; 5] = ["view", "search", "cart", "checkout", "login"];
const STATUS: [&str; 4] = ["placed", "paid", "shipped", "delivered"];

/// The collections, their share of the documents and how one document is made.
struct Layout {
    users: u64,
    products: u64,
    orders: u64,
    reviews: u64,
    events: u64,
}

impl Layout {
    fn new(total: u64) -> Layout {
        let users = total / 50;
        let products = total / 200;
        let orders = total * 3 / 10;
        let reviews = total / 5;
        Layout {
            users,
            products,
            orders,
            reviews,
            events: total - users - products - orders - reviews,
        }
    }

    fn collections(&self) -> [(&'static str, u64); 5] {
        [
            ("users", self.users),
            ("products", self.products),
            ("orders", self.orders),
            ("reviews", self.reviews),
            ("events", self.events),
        ]
    }

    fn total(&self) -> u64 {
        self.collections().iter().map(|(_, n)| n).sum()
    }

    fn document(&self, coll: &str, i: u64, rng: &mut Rng) -> Document {
        let at = |ms: u64| DateTime::from_millis(1_700_000_000_000 + ms as i64);
        match coll {
            "users" => doc! {
                "_id": id(1, i),
                "name": format!("user {i}"),
                "email": format!("user{i}@example.com"),
                "joined": at(i * 1000),
                "address": {
                    "street": format!("{} main street", rng.below(900)),
                    "city": CITIES[rng.below(6) as usize],
                },
            },
            "products" => {
                let tags: Vec<Bson> = (0..rng.below(6))
                    .map(|t| Bson::String(format!("tag{}", (i + t) % 40)))
                    .collect();
                doc! {
                    "_id": id(2, i),
                    "title": format!("product {i}"),
                    "price": (rng.below(10_000) as f64) / 100.0,
                    "tags": tags,
                }
            }
            "orders" => {
                let user = rng.skewed(self.users);
                let lines: Vec<Bson> = (0..1 + rng.below(8))
                    .map(|_| {
                        Bson::Document(doc! {
                            "product": id(2, rng.skewed(self.products)),
                            "qty": 1 + rng.below(5) as i32,
                            "price": (rng.below(10_000) as f64) / 100.0,
                        })
                    })
                    .collect();
                doc! {
                    "_id": id(3, i),
                    "user": id(1, user),
                    "user_name": format!("user {user}"),
                    "placed": at(i * 60_000),
                    "status": STATUS[rng.below(4) as usize],
                    "lines": lines,
                    "total": (rng.below(100_000) as f64) / 100.0,
                }
            }
            "reviews" => doc! {
                "_id": id(4, i),
                "product": id(2, rng.skewed(self.products)),
                "user": id(1, rng.skewed(self.users)),
                "stars": 1 + rng.below(5) as i32,
                "body": "Arrived on time, works as described, would buy again from this shop.",
            },
            _ => doc! {
                "_id": id(5, i),
                "user": id(1, rng.skewed(self.users)),
                "kind": KINDS[rng.below(5) as usize],
                "at": at(i * 1000),
                "data": { "page": format!("/p/{}", rng.below(500)), "ms": rng.below(3000) as i32 },
            },
        }
    }
}

/// Fills the database unless it already holds this layout's counts; returns the fill's time.
async fn fill(db: &Database, layout: &Layout) -> Option<Duration> {
    let mut have = Vec::new();
    for (name, _) in layout.collections() {
        let n = db
            .collection::<Document>(name)
            .estimated_document_count()
            .await
            .unwrap_or(0);
        have.push(n);
    }
    let want: Vec<u64> = layout.collections().iter().map(|(_, n)| *n).collect();
    if have == want {
        return None;
    }
    db.drop().await.expect("drop the bench database");
    let start = Instant::now();
    let mut rng = Rng(0x5EED_1234_5678_9ABC);
    for (name, n) in layout.collections() {
        let coll = db.collection::<Document>(name);
        let mut i = 0;
        while i < n {
            let batch: Vec<Document> = (i..(i + BATCH as u64).min(n))
                .map(|k| layout.document(name, k, &mut rng))
                .collect();
            i += batch.len() as u64;
            coll.insert_many(batch)
                .with_options(InsertManyOptions::builder().ordered(false).build())
                .await
                .expect("insert a batch");
        }
        eprintln!("  filled {name}: {n} documents ({:.1?})", start.elapsed());
    }
    // The indexes a team would have made: orders by user, reviews by product, unique emails.
    let index = |keys: Document| IndexModel::builder().keys(keys).build();
    db.collection::<Document>("orders")
        .create_index(index(doc! { "user": 1, "placed": -1 }))
        .await
        .expect("index");
    db.collection::<Document>("reviews")
        .create_index(index(doc! { "product": 1 }))
        .await
        .expect("index");
    Some(start.elapsed())
}

/// CPU seconds (user + system) of the server listening on the URI's port, from `/proc`.
fn server_cpu(uri: &str) -> Option<f64> {
    let port = uri.rsplit(':').next()?.split(['/', '?']).next()?.to_owned();
    let ticks = 100.0; // USER_HZ on Linux
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let is_server = args.first().is_some_and(|a| a.ends_with("secantusd-rs"))
            && args.windows(2).any(|w| w[0] == "--port" && w[1] == port);
        if !is_server {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        let after = stat.rsplit(')').next()?;
        let f: Vec<&str> = after.split_whitespace().collect();
        let utime: f64 = f.get(11)?.parse().ok()?;
        let stime: f64 = f.get(12)?.parse().ok()?;
        return Some((utime + stime) / ticks);
    }
    None
}

/// One `infer` run: wall seconds, peak RSS in MB, CPU seconds of infer and of the server.
struct Run {
    wall: f64,
    rss_mb: f64,
    cpu: f64,
    server_cpu: Option<f64>,
}

fn infer(uri: &str, sample: u64, out: &std::path::Path) -> Run {
    let server_before = server_cpu(uri);
    let start = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args([
            "-f",
            "TIME %e %M %U %S",
            env!("CARGO_BIN_EXE_squillion"),
            "infer",
        ])
        .args(["--uri", uri, "--db", DB, "--sample", &sample.to_string()])
        .arg("-o")
        .arg(out)
        .output()
        .expect("run /usr/bin/time (GNU time)");
    let wall = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "infer failed:\n{stderr}");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("TIME "))
        .expect("GNU time's line");
    let f: Vec<f64> = line
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    Run {
        wall,
        rss_mb: f[1] / 1024.0,
        cpu: f[2] + f[3],
        server_cpu: server_before.zip(server_cpu(uri)).map(|(a, b)| b - a),
    }
}

/// Times one aggregation through the driver: where the server spends a count's time.
async fn timed(db: &Database, coll: &str, pipeline: Vec<Document>) -> f64 {
    let start = Instant::now();
    let docs: Vec<Document> = db
        .collection::<Document>(coll)
        .aggregate(pipeline)
        .await
        .expect("aggregate")
        .try_collect()
        .await
        .expect("aggregate");
    std::hint::black_box(docs);
    start.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let uri = std::env::var("SQUILLION_MONGODB_URI")
        .expect("set SQUILLION_MONGODB_URI, or run under scripts/with-server.sh");
    let total: u64 = std::env::var("SQUILLION_BENCH_INFER_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let layout = Layout::new(total);
    let client = Client::with_uri_str(&uri).await.expect("connect");
    let db = client.database(DB);
    eprintln!("infer bench: {} documents", layout.total());
    match fill(&db, &layout).await {
        Some(t) => eprintln!(
            "fill: {} documents in {:.1} s ({:.0} documents/s)",
            layout.total(),
            t.as_secs_f64(),
            layout.total() as f64 / t.as_secs_f64()
        ),
        None => eprintln!("fill: reused (the database already holds it)"),
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let out = dir.path().join("draft.sqn");
    let mut rows = Vec::new();
    // The default sample three times (the machine is shared: the spread says how much), then
    // smaller and larger samples for memory.
    // `SQUILLION_BENCH_INFER_SAMPLES` (comma-separated) runs other samples, `0` none (fill only).
    let samples: Vec<u64> = std::env::var("SQUILLION_BENCH_INFER_SAMPLES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1000, 1000, 1000, 100, 10_000]);
    if std::env::var("SQUILLION_BENCH_INFER_PROBE").is_ok() {
        probe(&db, &layout).await;
    }
    if samples == [0] {
        return;
    }
    for sample in samples {
        let r = infer(&uri, sample, &out);
        rows.push((sample, r));
    }
    let draft = std::fs::read_to_string(&out).unwrap_or_default();
    let relations = draft.lines().filter(|l| l.starts_with("relation")).count();
    println!(
        "| sample | wall (s) | vs 60 s target | peak RSS (MB) | infer CPU (s) | server CPU (s) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for (sample, r) in &rows {
        println!(
            "| {sample} | {:.1} | {:.2}x | {:.1} | {:.1} | {} |",
            r.wall,
            r.wall / 60.0,
            r.rss_mb,
            r.cpu,
            r.server_cpu.map_or("?".to_owned(), |c| format!("{c:.1}"))
        );
    }
    println!("(the draft at sample 10,000 states {relations} relations)");
    // Where the server's time goes: one sample, one count per parent, one scan.
    let sample = timed(&db, "orders", vec![doc! { "$sample": { "size": 1000 } }]).await;
    let start = Instant::now();
    let windowed = squillion_cli::infer::windows::sample(
        &db.collection::<Document>("orders"),
        1000,
        layout.orders,
        |d| {
            std::hint::black_box(d);
        },
    )
    .await
    .expect("windows");
    let windows = start.elapsed().as_secs_f64();
    let group = timed(
        &db,
        "orders",
        vec![
            doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
            doc! { "$group": { "_id": "$n", "k": { "$sum": 1 } } },
        ],
    )
    .await;
    let lengths = timed(
        &db,
        "orders",
        vec![
            doc! { "$project": { "n": { "$size": "$lines" } } },
            doc! { "$group": { "_id": "$n", "k": { "$sum": 1 } } },
        ],
    )
    .await;
    let count = timed(&db, "orders", vec![doc! { "$count": "n" }]).await;
    println!(
        "server, on orders ({} documents): $sample 1,000 {sample:.2} s; {} documents in `_id` \
         windows {windows:.2} s; $group per user {group:.2} s; array lengths {lengths:.2} s; \
         $count {count:.2} s",
        layout.orders,
        windowed.unwrap_or(0)
    );
}

/// Times the ways of counting on `orders` (`SQUILLION_BENCH_INFER_PROBE=1`): which reads the
/// server serves from an index and which it answers by a pass over the collection.
async fn probe(db: &Database, layout: &Layout) {
    let size = doc! { "$cond": [{ "$isArray": "$lines" }, { "$size": "$lines" }, 0] };
    let by_n = doc! { "$group": { "_id": "$n", "k": { "$sum": 1 } } };
    let runs: Vec<(&str, &str, Vec<Document>)> = vec![
        ("orders", "$count", vec![doc! { "$count": "n" }]),
        (
            "orders",
            "lengths: $project then $group",
            vec![doc! { "$project": { "n": size.clone() } }, by_n.clone()],
        ),
        (
            "orders",
            "lengths: $group on the size",
            vec![doc! { "$group": { "_id": size.clone(), "k": { "$sum": 1 } } }],
        ),
        (
            "orders",
            "per user: $group, $group",
            vec![
                doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "per user: $project user, $group, $group",
            vec![
                doc! { "$project": { "_id": 0, "user": 1 } },
                doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "per user: $sort user (index), $group, $group",
            vec![
                doc! { "$sort": { "user": 1 } },
                doc! { "$project": { "_id": 0, "user": 1 } },
                doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "per user: $match user exists, $group, $group",
            vec![
                doc! { "$match": { "user": { "$exists": true, "$ne": null } } },
                doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "per product: $unwind lines, $group, $group",
            vec![
                doc! { "$unwind": "$lines" },
                doc! { "$group": { "_id": "$lines.product", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "per product: $project lines.product, $unwind, $group, $group",
            vec![
                doc! { "$project": { "_id": 0, "p": "$lines.product" } },
                doc! { "$unwind": "$p" },
                doc! { "$group": { "_id": "$p", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "orders",
            "three in one $group pass: $project all three",
            vec![
                doc! { "$project": { "_id": 0, "user": 1, "p": "$lines.product", "n": size.clone() } },
                doc! { "$count": "n" },
            ],
        ),
        (
            "reviews",
            "per product: $group, $group (indexed)",
            vec![
                doc! { "$group": { "_id": "$product", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "reviews",
            "per product: $sort product, $group, $group",
            vec![
                doc! { "$sort": { "product": 1 } },
                doc! { "$group": { "_id": "$product", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
        (
            "events",
            "per user: $group, $group",
            vec![
                doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
                by_n.clone(),
            ],
        ),
    ];
    for (coll, what, pipeline) in runs {
        let t = timed(db, coll, pipeline).await;
        println!("probe {coll}: {what}: {t:.2} s");
    }
    // Per parent through the index: one count per user, for 200 users.
    let orders = db.collection::<Document>("orders");
    let start = Instant::now();
    for i in 0..200u64 {
        let n = orders
            .count_documents(doc! { "user": id(1, i * (layout.users / 200).max(1)) })
            .await
            .expect("count");
        std::hint::black_box(n);
    }
    println!(
        "probe orders: count_documents per user, 200 users: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let ids: Vec<Bson> = (0..1000u64)
        .map(|i| Bson::ObjectId(id(1, i * (layout.users / 1000).max(1))))
        .collect();
    let t = timed(
        db,
        "orders",
        vec![
            doc! { "$match": { "user": { "$in": ids } } },
            doc! { "$group": { "_id": "$user", "n": { "$sum": 1 } } },
            by_n.clone(),
        ],
    )
    .await;
    println!(
        "probe orders: $match user $in 1,000 users, $group, $group: {t:.2} s ({:.2} s)",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let d = db
        .run_command(doc! { "distinct": "orders", "key": "user" })
        .await
        .map(|d| d.get_array("values").map(|v| v.len()).unwrap_or(0));
    println!(
        "probe orders: distinct user: {:.2} s ({d:?})",
        start.elapsed().as_secs_f64()
    );
}
