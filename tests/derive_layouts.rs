//! Layouts against the real server: buckets, subsets, top-N lists, the queue, arrays of
//! references and child references.

mod derive_support;

use std::collections::HashSet;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId, DateTime};
use squillion::{BoundedVec, BucketAppend, Error, PageRequest};

// ---- bucket (seed 002: IoT readings with computed summaries) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub ts: DateTime,
    pub v: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "iot")]
pub struct SensorBucket {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub sensor: i64,
    #[squillion(bucket(size = 200, key = sensor, count = count, start = first, end = last))]
    pub readings: Vec<Reading>,
    pub count: i32,
    #[squillion(computed(sum = "v"))]
    pub total: f64,
    #[squillion(computed(max = "v"))]
    pub max: f64,
    #[squillion(computed(min = "v"))]
    pub min: f64,
    #[squillion(computed(min = "ts"))]
    pub first: DateTime,
    #[squillion(computed(max = "ts"))]
    pub last: DateTime,
}

fn reading(i: i64) -> Reading {
    Reading {
        ts: DateTime::from_millis(1_557_532_800_000 + i * 60_000),
        v: (i % 50) as f64,
    }
}

#[tokio::test]
async fn bucket_fills_buckets_of_size_with_summaries_and_reads_pages_and_ranges() {
    let db = database("bucket").await;
    let repo = SensorBucketRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let mut new_buckets = 0;
    for i in 0..450 {
        if let BucketAppend::NewBucket(_) = repo.append_readings(&5, &reading(i)).await.unwrap() {
            new_buckets += 1;
        }
    }
    repo.append_readings(&6, &reading(0)).await.unwrap();
    assert_eq!(new_buckets, 3);

    let raw: Vec<bson::Document> = {
        use squillion::__private::futures::TryStreamExt;
        db.collection::<bson::Document>("iot")
            .find(doc! { "sensor": 5_i64 })
            .sort(doc! { "first": 1 })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap()
    };
    let counts: Vec<i32> = raw.iter().map(|d| d.get_i32("count").unwrap()).collect();
    assert_eq!(counts, vec![200, 200, 50]);
    for d in &raw {
        let items = d.get_array("readings").unwrap();
        assert_eq!(items.len() as i32, d.get_i32("count").unwrap());
        let sum: f64 = items
            .iter()
            .map(|r| r.as_document().unwrap().get_f64("v").unwrap())
            .sum();
        assert_eq!(d.get_f64("total").unwrap(), sum);
        assert_eq!(d.get_f64("max").unwrap(), 49.0);
        assert_eq!(d.get_f64("min").unwrap(), 0.0);
    }

    let second = repo.readings_bucket(&5, 1).await.unwrap().unwrap();
    assert_eq!(second.readings.len(), 200);
    assert_eq!(second.readings[0], reading(200));
    assert_eq!(second.first, reading(200).ts);
    assert_eq!(second.last, reading(399).ts);
    assert!(repo.readings_bucket(&5, 3).await.unwrap().is_none());

    let page = repo
        .readings_buckets(&5, PageRequest::new(0, 2))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 2);
    assert!(page.has_more);

    // Readings 390..=410 straddle buckets 1 and 2.
    let overlapping = repo
        .readings_between(&5, &reading(390).ts, &reading(410).ts)
        .await
        .unwrap();
    assert_eq!(overlapping.len(), 2);
    assert_eq!(overlapping[0].first, reading(200).ts);
}

// ---- bucket read newest first (`page 3 by at desc`: a feed, newest comments on page 1) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedItem {
    pub n: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "feed")]
pub struct FeedBucket {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub post: i64,
    #[squillion(bucket(size = 3, key = post, count = count, desc))]
    pub items: Vec<FeedItem>,
    pub count: i32,
}

#[tokio::test]
async fn a_newest_first_bucket_reads_the_newest_page_first_and_its_items_newest_first() {
    let db = database("bucket_desc").await;
    let repo = FeedBucketRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    for n in 1..=7 {
        repo.append_items(&1, &FeedItem { n }).await.unwrap();
    }
    let numbers = |b: &FeedBucket| b.items.iter().map(|i| i.n).collect::<Vec<_>>();
    let pages: Vec<Vec<i32>> = {
        let mut pages = Vec::new();
        for k in 0..3 {
            pages.push(numbers(&repo.items_bucket(&1, k).await.unwrap().unwrap()));
        }
        pages
    };
    // Buckets fill oldest first ([1,2,3], [4,5,6], [7]); read newest first.
    assert_eq!(pages, vec![vec![7], vec![6, 5, 4], vec![3, 2, 1]]);
    assert!(repo.items_bucket(&1, 3).await.unwrap().is_none());
    let listed = repo
        .items_buckets(&1, PageRequest::new(0, 2))
        .await
        .unwrap();
    let listed: Vec<Vec<i32>> = listed.items.iter().map(numbers).collect();
    assert_eq!(listed, vec![vec![7], vec![6, 5, 4]]);
    // Stored oldest first: only the reads turn the order round.
    let stored = db
        .collection::<bson::Document>("feed")
        .find_one(doc! { "post": 1_i64, "count": 1 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_array("items").unwrap().len(), 1);
}

#[tokio::test]
async fn racing_bucket_appends_never_overfill_a_bucket() {
    let db = database("bucket_race").await;
    let repo = SensorBucketRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let mut tasks = Vec::new();
    for w in 0..10_i64 {
        let repo = repo.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..100 {
                repo.append_readings(&7, &reading(w * 1000 + i))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    use squillion::__private::futures::TryStreamExt;
    let raw: Vec<bson::Document> = db
        .collection::<bson::Document>("iot")
        .find(doc! { "sensor": 7_i64 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut total = 0;
    for d in &raw {
        let n = d.get_array("readings").unwrap().len();
        assert!(n <= 200, "a bucket holds {n} readings");
        assert_eq!(n as i32, d.get_i32("count").unwrap());
        total += n;
    }
    assert_eq!(total, 1000);
}

// ---- subset (seed 004: the last N log messages in the host) + child_ref ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    pub time: DateTime,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "hosts")]
pub struct Host {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(subset(to = LogMsg, n = 3, sort = "time", keep(time, message)))]
    pub logmsgs: Vec<LogLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "logmsg")]
pub struct LogMsg {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(child_ref(to = Host))]
    pub host: ObjectId,
    pub time: DateTime,
    pub message: String,
    pub ipaddr: String,
}

#[tokio::test]
async fn subset_keeps_the_latest_n_and_every_child_in_its_collection() {
    let db = database("subset").await;
    let hosts = HostRepo::new(&db);
    let logs = LogMsgRepo::new(&db);
    logs.ensure_indexes().await.unwrap();
    let host = Host {
        id: ObjectId::new(),
        name: "goofy.example.com".into(),
        logmsgs: vec![],
    };
    hosts.insert(&host).await.unwrap();
    for minute in [5_i64, 1, 4, 2, 3] {
        let msg = LogMsg {
            id: ObjectId::new(),
            host: host.id,
            time: DateTime::from_millis(minute * 60_000),
            message: format!("minute {minute}"),
            ipaddr: "127.66.66.66".into(),
        };
        hosts.push_logmsgs(&host.id, &msg).await.unwrap();
    }
    let stored = db
        .collection::<bson::Document>("hosts")
        .find_one(doc! { "_id": host.id })
        .await
        .unwrap()
        .unwrap();
    let kept: Vec<&str> = stored
        .get_array("logmsgs")
        .unwrap()
        .iter()
        .map(|m| m.as_document().unwrap().get_str("message").unwrap())
        .collect();
    assert_eq!(kept, vec!["minute 3", "minute 4", "minute 5"]);
    let copy = stored.get_array("logmsgs").unwrap()[0]
        .as_document()
        .unwrap();
    assert!(
        !copy.contains_key("ipaddr"),
        "only the kept fields are copied"
    );
    assert_eq!(logs.count_by_host(&host.id).await.unwrap(), 5);

    // child_ref: the children of the host through the index, a page at a time (keyset on `_id`).
    let mut read = Vec::new();
    let mut sizes = Vec::new();
    let mut after = None;
    loop {
        let page = logs
            .find_by_host(&host.id, after.as_ref(), 2)
            .await
            .unwrap();
        sizes.push(page.items.len());
        read.extend(page.items.iter().map(|l| l.id));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(sizes, [2, 2, 1]);
    let mut ids = read.clone();
    ids.sort();
    ids.dedup();
    assert_eq!(read, ids, "pages follow `_id`, each child once");
    let explain = db
        .run_command(doc! {
            "explain": { "find": "logmsg", "filter": { "host": host.id } },
            "verbosity": "queryPlanner",
        })
        .await
        .unwrap();
    let text = format!("{explain}");
    assert!(
        text.contains("IXSCAN") || text.contains("host_1"),
        "child_ref read does not use the index: {text}"
    );
}

// ---- computed top-N (seed 002: best times) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effort {
    pub athlete: String,
    pub time: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "best_times")]
pub struct BestTimes {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub section: String,
    #[squillion(top(n = 3, sort = "time"))]
    pub times: Vec<Effort>,
}

#[tokio::test]
async fn top_n_keeps_the_best_with_an_upsert() {
    let db = database("top").await;
    let repo = BestTimesRepo::new(&db);
    let section = "LDN bridge to eye".to_owned();
    for (athlete, time) in [
        ("john", 920),
        ("carol", 840),
        ("ann", 990),
        ("bob", 700),
        ("eve", 860),
    ] {
        repo.offer_times(
            &section,
            &Effort {
                athlete: athlete.into(),
                time,
            },
        )
        .await
        .unwrap();
    }
    let best = repo.get(&section).await.unwrap().unwrap();
    let times: Vec<i32> = best.times.iter().map(|e| e.time).collect();
    assert_eq!(times, vec![700, 840, 860]);
}

// ---- queue (seed 001) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "jobs", queue(priority = priority, in_progress = in_progress, started = started, done = done))]
pub struct Job {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub priority: i32,
    pub message: String,
    pub in_progress: bool,
    pub started: Option<DateTime>,
    pub done: bool,
}

fn job(priority: i32, message: &str) -> Job {
    Job {
        id: ObjectId::new(),
        priority,
        message: message.into(),
        in_progress: false,
        started: None,
        done: false,
    }
}

#[tokio::test]
async fn queue_claims_by_priority_and_completes() {
    let db = database("queue").await;
    let repo = JobRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    repo.enqueue(&job(1, "low")).await.unwrap();
    repo.enqueue(&job(5, "high")).await.unwrap();
    repo.enqueue(&job(3, "mid")).await.unwrap();
    let first = repo.claim_next().await.unwrap().unwrap();
    assert_eq!(first.message, "high");
    assert!(first.in_progress);
    assert!(first.started.is_some());
    assert_eq!(repo.count_waiting().await.unwrap(), 2);
    assert_eq!(repo.in_progress().await.unwrap().len(), 1);
    assert!(repo.complete(&first.id).await.unwrap());
    assert!(!repo.complete(&first.id).await.unwrap(), "completed twice");
    let stored = db
        .collection::<bson::Document>("jobs")
        .find_one(doc! { "_id": first.id })
        .await
        .unwrap()
        .unwrap();
    assert!(stored.get_bool("done").unwrap());
    assert!(!stored.get_bool("in_progress").unwrap());
    let second = repo.claim_next().await.unwrap().unwrap();
    assert_eq!(second.message, "mid");
    assert!(repo.release(&second.id).await.unwrap());
    assert_eq!(repo.claim_next().await.unwrap().unwrap().message, "mid");
}

#[tokio::test]
async fn racing_workers_claim_each_job_once() {
    let db = database("queue_race").await;
    let repo = JobRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let jobs: Vec<Job> = (0..60).map(|i| job(i % 7, &format!("job {i}"))).collect();
    for j in &jobs {
        repo.enqueue(j).await.unwrap();
    }
    let mut workers = Vec::new();
    for _ in 0..6 {
        let repo = repo.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(j) = repo.claim_next().await.unwrap() {
                mine.push(j.id);
                repo.complete(&j.id).await.unwrap();
            }
            mine
        }));
    }
    let mut claimed = Vec::new();
    for w in workers {
        claimed.extend(w.await.unwrap());
    }
    assert_eq!(claimed.len(), 60, "every job claimed exactly once");
    let unique: HashSet<_> = claimed.iter().collect();
    assert_eq!(unique.len(), 60);
    assert_eq!(repo.count_waiting().await.unwrap(), 0);
}

// ---- parent_refs (seed 004: products and parts) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "parts")]
pub struct Part {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub partno: String,
    pub name: String,
    pub qty: i32,
    pub price: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartName {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub price: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(parent_refs(to = Part, fields(name)))]
    pub parts: BoundedVec<ObjectId, 3>,
    #[squillion(parent_refs(to = Part, max = 3000))]
    pub spares: Vec<ObjectId>,
}

fn part(i: usize) -> Part {
    Part {
        id: ObjectId::new(),
        partno: format!("{i:03}-aff"),
        name: format!("part {i}"),
        qty: 94,
        price: 3.99,
    }
}

#[tokio::test]
async fn parent_refs_bounded_add_and_projected_chunked_load() {
    let db = database("parent_refs").await;
    let parts_repo = PartRepo::new(&db);
    let products = ProductRepo::new(&db);
    let parts: Vec<Part> = (0..2500).map(part).collect();
    parts_repo.insert_many(&parts).await.unwrap();
    let p = Product {
        id: ObjectId::new(),
        name: "left-handed smoke shifter".into(),
        parts: BoundedVec::new(),
        spares: vec![],
    };
    products.insert(&p).await.unwrap();
    for i in [2, 0, 1] {
        assert!(products.add_parts(&p.id, &parts[i].id).await.unwrap());
    }
    // Re-adding a present reference at the bound is a no-op, not an error.
    assert!(!products.add_parts(&p.id, &parts[0].id).await.unwrap());
    assert!(matches!(
        products.add_parts(&p.id, &parts[3].id).await,
        Err(Error::BoundExceeded { max: 3, .. })
    ));
    let product = products.get(&p.id).await.unwrap().unwrap();
    let loaded = products.load_parts(&product).await.unwrap();
    let names: Vec<&str> = loaded.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["part 2", "part 0", "part 1"],
        "in the owner's order"
    );
    // The projection is what `PartName` reads (its `Deserialize` names `_id`, `name`, `price`);
    // a type that cannot name its fields (a document) gets the declared `fields(name)`.
    let projected: Vec<PartName> = products.load_parts_projected(&product).await.unwrap();
    assert_eq!(projected[0].name, "part 2");
    assert_eq!(
        projected[0].price,
        Some(parts[2].price),
        "PartName reads price"
    );
    let declared: Vec<bson::Document> = products.load_parts_projected(&product).await.unwrap();
    let keys: Vec<&str> = declared[0].keys().map(String::as_str).collect();
    assert_eq!(keys, ["_id", "name"], "the declared fields, for a document");
    assert!(products.remove_parts(&p.id, &parts[0].id).await.unwrap());

    // 2,500 references: loaded with three $in queries of at most 1,000 ids.
    let spares: Vec<ObjectId> = parts.iter().rev().map(|x| x.id).collect();
    let raw = db.collection::<bson::Document>("products");
    raw.update_one(
        doc! { "_id": p.id },
        doc! { "$set": { "spares": spares.clone() } },
    )
    .await
    .unwrap();
    let product = products.get(&p.id).await.unwrap().unwrap();
    let all = products.load_spares(&product).await.unwrap();
    assert_eq!(all.len(), 2500);
    assert_eq!(all[0].id, spares[0]);
    assert_eq!(all[2499].id, spares[2499]);
}
