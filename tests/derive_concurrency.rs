//! Concurrency and faults against the real server (issue 6, section 3): sixteen writers sharing
//! one repository race on every layout whose correctness depends on the server evaluating a
//! condition inside a write (bucket appends, subset pushes, queue claims) or on a transaction
//! (two-way links); then a two-way link loses its connection in the middle of its transaction.
//!
//! Every scenario uses the real counts, 16 writers x 2,000 operations, on a multi-thread runtime
//! (the queue also drains a smaller backlog: see [`BACKLOG_PER_WORKER`]); each prints how long it
//! took (run with `--nocapture`). The tests take turns (`TURN`), so the timings are not those of
//! several scenarios sharing two cores. Randomness comes from a small xorshift with fixed seeds,
//! so a failure replays the same choices (the interleaving of the writers is the server's).

mod derive_support;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use derive_support::{database, uri};
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId, Bson, DateTime};
use squillion::__private::futures::TryStreamExt;
use squillion::__private::mongodb::{Client, Database};
use squillion::{BucketAppend, Error};

/// Writers (tokio tasks) per scenario.
const WRITERS: usize = 16;
/// Operations per writer.
const OPS: usize = 2_000;

/// One scenario at a time: each `#[tokio::test]` has its own runtime, this lock works across them.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Marsaglia's xorshift64: deterministic, no dependency.
struct XorShift(u64);

impl XorShift {
    /// The generator of writer `w` in a scenario seeded with `scenario`.
    fn new(scenario: u64, w: usize) -> Self {
        XorShift((scenario ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(w as u64 * 2 + 1) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

async fn all(db: &Database, coll: &str, filter: bson::Document) -> Vec<bson::Document> {
    db.collection::<bson::Document>(coll)
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

fn report(scenario: &str, elapsed: Duration, detail: &str) {
    println!(
        "[derive_concurrency] {scenario}: {WRITERS} writers x {OPS} ops in {:.1} s; {detail}",
        elapsed.as_secs_f64()
    );
}

// ---- bucket append (seed 002): no bucket overfills, summaries equal a recomputation ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub writer: i32,
    pub seq: i32,
    pub v: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "samples")]
pub struct SampleBucket {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub stream: i64,
    #[squillion(bucket(size = 100, key = stream, count = count))]
    pub samples: Vec<Sample>,
    pub count: i32,
    #[squillion(computed(count))]
    pub n: i32,
    #[squillion(computed(sum = "v"))]
    pub total: i64,
    #[squillion(computed(max = "v"))]
    pub max: i64,
    #[squillion(computed(min = "v"))]
    pub min: i64,
}

const BUCKET_SIZE: usize = 100;
const STREAMS: u64 = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_appending_to_buckets_never_overfill_and_keep_summaries_exact() {
    let _turn = TURN.lock().await;
    let db = database("conc_bucket").await;
    let repo = SampleBucketRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    repo.ensure_validator().await.unwrap();

    let started = Instant::now();
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let repo = repo.clone();
        writers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(1, w);
            // Per stream: appended, sum of v, buckets this writer's upserts created.
            let mut mine = [(0usize, 0i64, 0usize); STREAMS as usize];
            for seq in 0..OPS {
                let stream = rng.below(STREAMS);
                let v = rng.below(2_001) as i64 - 1_000;
                let sample = Sample {
                    writer: w as i32,
                    seq: seq as i32,
                    v,
                };
                let landed = repo
                    .append_samples(&(stream as i64), &sample)
                    .await
                    .unwrap();
                let m = &mut mine[stream as usize];
                m.0 += 1;
                m.1 += v;
                if let BucketAppend::NewBucket(_) = landed {
                    m.2 += 1;
                }
            }
            mine
        }));
    }
    let mut expected = [(0usize, 0i64, 0usize); STREAMS as usize];
    for w in writers {
        for (e, m) in expected.iter_mut().zip(w.await.unwrap()) {
            e.0 += m.0;
            e.1 += m.1;
            e.2 += m.2;
        }
    }
    let elapsed = started.elapsed();

    let buckets = all(&db, "samples", doc! {}).await;
    let mut seen = HashSet::new();
    let mut per_stream = [(0usize, 0i64, 0usize); STREAMS as usize];
    let mut not_full = 0;
    for b in &buckets {
        let items: Vec<Sample> = b
            .get_array("samples")
            .unwrap()
            .iter()
            .map(|s| bson::from_bson(s.clone()).unwrap())
            .collect();
        let n = items.len();
        assert!(
            n <= BUCKET_SIZE,
            "a bucket holds {n} samples, more than {BUCKET_SIZE}"
        );
        assert_eq!(b.get_i32("count").unwrap() as usize, n, "count of {b:?}");
        assert_eq!(b.get_i32("n").unwrap() as usize, n, "computed count");
        let sum: i64 = items.iter().map(|s| s.v).sum();
        assert_eq!(b.get_i64("total").unwrap(), sum, "computed sum");
        let max = items.iter().map(|s| s.v).max().unwrap();
        let min = items.iter().map(|s| s.v).min().unwrap();
        assert_eq!(b.get_i64("max").unwrap(), max, "computed max");
        assert_eq!(b.get_i64("min").unwrap(), min, "computed min");
        for s in &items {
            assert!(seen.insert((s.writer, s.seq)), "sample {s:?} stored twice");
        }
        let stream = b.get_i64("stream").unwrap() as usize;
        per_stream[stream].0 += n;
        per_stream[stream].1 += sum;
        per_stream[stream].2 += 1;
        if n < BUCKET_SIZE {
            not_full += 1;
        }
        // The typed read agrees with the raw document.
        let typed = repo.get(&b.get_object_id("_id").unwrap()).await.unwrap();
        assert_eq!(typed.unwrap().samples, items);
    }
    assert_eq!(seen.len(), WRITERS * OPS, "every sample stored once");
    let counts: usize = buckets
        .iter()
        .map(|b| b.get_i32("count").unwrap() as usize)
        .sum();
    assert_eq!(counts, WRITERS * OPS, "the sum of the bucket counts");
    assert_eq!(
        per_stream, expected,
        "per stream: samples, sum of v, and one NewBucket per bucket document"
    );
    report(
        "bucket append",
        elapsed,
        &format!(
            "{} buckets of at most {BUCKET_SIZE}, {not_full} not full",
            buckets.len()
        ),
    );
}

// ---- subset push (seed 004): the owner keeps exactly the N newest children ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostCopy {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "feeds")]
pub struct Feed {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(subset(to = Post, n = 50, sort = at, desc, keep(at)))]
    pub latest: Vec<PostCopy>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(child_ref(to = Feed))]
    pub feed: ObjectId,
    pub at: i64,
    pub writer: i32,
    pub body: String,
}

const SUBSET_N: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_pushing_a_subset_leave_exactly_the_n_newest() {
    let _turn = TURN.lock().await;
    let db = database("conc_subset").await;
    let feeds = FeedRepo::new(&db);
    let posts = PostRepo::new(&db);
    feeds.ensure_indexes().await.unwrap();
    feeds.ensure_validator().await.unwrap();
    posts.ensure_indexes().await.unwrap();
    let feed = Feed {
        id: ObjectId::new(),
        name: "everyone".into(),
        latest: vec![],
    };
    feeds.insert(&feed).await.unwrap();

    let started = Instant::now();
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let feeds = feeds.clone();
        let feed_id = feed.id;
        writers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(2, w);
            for i in 0..OPS {
                // Random times, unique by construction (the low part is the operation's number),
                // so the pushes arrive in no particular order and "the N newest" is one set.
                let at = rng.below(1_000_000) as i64 * 100_000 + (w * OPS + i) as i64;
                let post = Post {
                    id: ObjectId::new(),
                    feed: feed_id,
                    at,
                    writer: w as i32,
                    body: format!("post {i} of writer {w}"),
                };
                feeds.push_latest(&feed_id, &post).await.unwrap();
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let elapsed = started.elapsed();

    assert_eq!(
        posts.count_by_feed(&feed.id).await.unwrap(),
        (WRITERS * OPS) as u64,
        "every child in its own collection"
    );
    let stored = feeds.get(&feed.id).await.unwrap().unwrap();
    assert_eq!(stored.latest.len(), SUBSET_N, "exactly N copies");
    let newest: Vec<PostCopy> = db
        .collection::<PostCopy>("posts")
        .find(doc! { "feed": feed.id })
        .sort(doc! { "at": -1 })
        .limit(SUBSET_N as i64)
        .projection(doc! { "_id": 1, "at": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        stored.latest, newest,
        "the owner's copies are the N newest children, newest first"
    );
    let raw = db
        .collection::<bson::Document>("feeds")
        .find_one(doc! { "_id": feed.id })
        .await
        .unwrap()
        .unwrap();
    let first = raw.get_array("latest").unwrap()[0].as_document().unwrap();
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        vec!["_id", "at"],
        "only the kept fields are copied"
    );
    report(
        "subset push",
        elapsed,
        &format!("{SUBSET_N} copies kept, all newest"),
    );
}

// ---- queue (seed 001): every job claimed exactly once ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "jobs", queue(priority = priority, in_progress = in_progress, started = started, done = done))]
pub struct Job {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub priority: i32,
    pub writer: i32,
    pub in_progress: bool,
    pub started: Option<DateTime>,
    pub done: bool,
}

fn new_job(rng: &mut XorShift, w: usize) -> Job {
    Job {
        id: ObjectId::new(),
        priority: rng.below(10) as i32,
        writer: w as i32,
        in_progress: false,
        started: None,
        done: false,
    }
}

/// Claims until the queue is empty, completing each job; the jobs in claim order.
async fn drain(repo: &JobRepo, mine: &mut Vec<Job>) {
    while let Some(job) = repo.claim_next().await.unwrap() {
        claimed_once(repo, job, mine).await;
    }
}

async fn claimed_once(repo: &JobRepo, job: Job, mine: &mut Vec<Job>) {
    assert!(job.in_progress && job.started.is_some() && !job.done);
    assert!(
        repo.complete(&job.id).await.unwrap(),
        "a claimed job could not be completed"
    );
    mine.push(job);
}

/// Every enqueued job was claimed once, none twice, and the queue is empty and all done.
async fn assert_each_claimed_once(repo: &JobRepo, enqueued: &HashSet<ObjectId>, claimed: &[Job]) {
    let unique: HashSet<ObjectId> = claimed.iter().map(|j| j.id).collect();
    assert_eq!(
        unique.len(),
        claimed.len(),
        "{} jobs were claimed twice",
        claimed.len() - unique.len()
    );
    let missing = enqueued.difference(&unique).count();
    assert_eq!(missing, 0, "{missing} jobs were never claimed");
    assert_eq!(
        &unique, enqueued,
        "a job was claimed that was never enqueued"
    );
    assert_eq!(repo.count_waiting().await.unwrap(), 0);
    assert!(repo.in_progress().await.unwrap().is_empty());
    assert_eq!(
        repo.count(doc! { "done": true, "in_progress": false })
            .await
            .unwrap(),
        enqueued.len() as u64
    );
}

/// The full counts: each of the 16 workers enqueues 2,000 jobs and claims one after each enqueue
/// (a queue in steady state, with the completed jobs staying in the collection), then claims until
/// nothing is left: 32,000 enqueues and 32,000 claims racing for a few waiting jobs.
///
/// This is the test that found the claim reading every completed job: with the former filter
/// `done: {$ne: true}` and index `{in_progress: 1, priority: -1}`, done jobs lie in the scanned
/// range and the `_id` tie-break needs an in-memory sort, so every claim costs the whole
/// collection (3,200 jobs: 67 s before the fix, 4 s after, measured with the same server).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_workers_enqueueing_and_claiming_hand_out_every_job_once() {
    let _turn = TURN.lock().await;
    let db = database("conc_queue").await;
    let repo = JobRepo::new(&db);
    repo.ensure_indexes().await.unwrap();

    let started = Instant::now();
    let mut workers = Vec::new();
    for w in 0..WRITERS {
        let repo = repo.clone();
        workers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(3, w);
            let (mut enqueued, mut mine) = (Vec::with_capacity(OPS), Vec::new());
            let mut empty = 0usize;
            for _ in 0..OPS {
                let job = new_job(&mut rng, w);
                repo.enqueue(&job).await.unwrap();
                enqueued.push(job.id);
                match repo.claim_next().await.unwrap() {
                    Some(job) => claimed_once(&repo, job, &mut mine).await,
                    None => empty += 1,
                }
            }
            drain(&repo, &mut mine).await;
            (enqueued, mine, empty)
        }));
    }
    let (mut enqueued, mut claimed, mut empty) = (HashSet::new(), Vec::new(), 0);
    for w in workers {
        let (e, mine, none) = w.await.unwrap();
        enqueued.extend(e);
        claimed.extend(mine);
        empty += none;
    }
    let elapsed = started.elapsed();
    assert_eq!(enqueued.len(), WRITERS * OPS);
    assert_each_claimed_once(&repo, &enqueued, &claimed).await;
    report(
        "queue, steady state",
        elapsed,
        &format!(
            "{} enqueues and {} claims+completes; {empty} claims found the queue empty",
            enqueued.len(),
            claimed.len()
        ),
    );
}

/// Backlog jobs per worker for the drain test: 125, so 2,000 jobs, not 16 x 2,000.
///
/// Why: the test server (secantusd-rs 0.5.3-beta.196) reads a whole index range before applying
/// `limit`, although `explain` reports one key examined: a claim costs time proportional to the
/// number of waiting jobs (about 5 us per waiting job; 170 ms per claim with 32,000 waiting), and
/// the 16 racing claims of one job each repeat that read. Measured on this 2-core machine: with
/// 32,000 jobs waiting, 16 workers claimed 100 to 270 jobs in three minutes (hours for all);
/// 1,000 jobs drain in 18 s, 2,000 in about 90 s. MongoDB walks the same index to its first entry,
/// so this limit is the test server's, not the queue's; the steady-state test above keeps the full
/// 32,000 claims.
const BACKLOG_PER_WORKER: usize = 125;

/// A backlog enqueued first by 16 producers, then drained by 16 racing workers: each job claimed
/// once, and each worker's claims come in claim order (priority descending, then `_id`), since
/// every claim takes the best waiting job and no job arrives meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_workers_draining_a_backlog_claim_each_job_once_by_priority() {
    let _turn = TURN.lock().await;
    let db = database("conc_queue_backlog").await;
    let repo = JobRepo::new(&db);
    repo.ensure_indexes().await.unwrap();

    let started = Instant::now();
    let mut producers = Vec::new();
    for w in 0..WRITERS {
        let repo = repo.clone();
        producers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(6, w);
            let mut ids = Vec::with_capacity(BACKLOG_PER_WORKER);
            for _ in 0..BACKLOG_PER_WORKER {
                let job = new_job(&mut rng, w);
                repo.enqueue(&job).await.unwrap();
                ids.push(job.id);
            }
            ids
        }));
    }
    let mut enqueued = HashSet::new();
    for p in producers {
        enqueued.extend(p.await.unwrap());
    }
    assert_eq!(enqueued.len(), WRITERS * BACKLOG_PER_WORKER);
    let enqueue_time = started.elapsed();

    let claiming = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..WRITERS {
        let repo = repo.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            drain(&repo, &mut mine).await;
            mine
        }));
    }
    let mut claimed = Vec::new();
    let mut per_worker = Vec::new();
    for w in workers {
        let mine = w.await.unwrap();
        for pair in mine.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(
                (a.priority, std::cmp::Reverse(a.id)) > (b.priority, std::cmp::Reverse(b.id)),
                "a worker claimed {b:?} after {a:?}: not in claim order"
            );
        }
        per_worker.push(mine.len());
        claimed.extend(mine);
    }
    let claim_time = claiming.elapsed();
    assert_each_claimed_once(&repo, &enqueued, &claimed).await;
    println!(
        "[derive_concurrency] queue, backlog: {WRITERS} producers x {BACKLOG_PER_WORKER} enqueues \
         in {:.1} s, {WRITERS} workers claimed+completed {} jobs in {:.1} s (per worker {per_worker:?})",
        enqueue_time.as_secs_f64(),
        claimed.len(),
        claim_time.as_secs_f64()
    );
}

// ---- two-way links (seeds 003 and 004): both sides agree, bounds hold ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "authors")]
pub struct Author {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(two_way(to = Book, max = 6, inverse = authors, inverse_max = 3))]
    pub books: Vec<ObjectId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "books")]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub title: String,
    pub authors: Vec<ObjectId>,
}

const AUTHOR_MAX: usize = 6;
const BOOK_MAX: usize = 3;

/// What the writers saw: successes, bound refusals (expected: arrays fill up) and anything else
/// (which fails the test).
#[derive(Debug, Default)]
struct Outcomes {
    ok: usize,
    bound: usize,
    unexpected: Vec<String>,
}

impl Outcomes {
    fn record(&mut self, r: squillion::Result<()>) {
        match r {
            Ok(()) => self.ok += 1,
            Err(Error::BoundExceeded { .. }) => self.bound += 1,
            // By server code and labels: the messages carry the raw reply, unique each time.
            Err(Error::Driver(e)) => self.unexpected.push(format!(
                "driver error, server code {:?}, labels {:?}",
                e.code(),
                e.driver()
                    .labels()
                    .iter()
                    .collect::<std::collections::BTreeSet<_>>()
            )),
            Err(e) => self.unexpected.push(e.to_string()),
        }
    }

    fn merge(&mut self, other: Outcomes) {
        self.ok += other.ok;
        self.bound += other.bound;
        self.unexpected.extend(other.unexpected);
    }

    fn assert_none_unexpected(&self) {
        let mut kinds: HashMap<&str, usize> = HashMap::new();
        for e in &self.unexpected {
            *kinds.entry(e.as_str()).or_default() += 1;
        }
        assert!(
            self.unexpected.is_empty(),
            "{} operations failed (transient transaction errors must be retried by the runtime): {kinds:#?}",
            self.unexpected.len()
        );
    }
}

fn id_set(d: &bson::Document, field: &str) -> Vec<ObjectId> {
    d.get_array(field)
        .unwrap()
        .iter()
        .map(|b| b.as_object_id().unwrap())
        .collect()
}

/// Both sides of a many-to-many agree, no array holds an id twice or exceeds its bound. Returns
/// the number of links.
fn assert_many_to_many_agrees(authors: &[bson::Document], books: &[bson::Document]) -> usize {
    let mut from_authors = HashSet::new();
    for a in authors {
        let bs = id_set(a, "books");
        assert!(bs.len() <= AUTHOR_MAX, "author holds {} books", bs.len());
        let a_id = a.get_object_id("_id").unwrap();
        for b in bs {
            assert!(
                from_authors.insert((a_id, b)),
                "author {a_id} lists {b} twice"
            );
        }
    }
    let mut from_books = HashSet::new();
    for b in books {
        let as_ = id_set(b, "authors");
        assert!(as_.len() <= BOOK_MAX, "book holds {} authors", as_.len());
        let b_id = b.get_object_id("_id").unwrap();
        for a in as_ {
            assert!(from_books.insert((a, b_id)), "book {b_id} lists {a} twice");
        }
    }
    let half_from_authors: Vec<_> = from_authors.difference(&from_books).collect();
    let half_from_books: Vec<_> = from_books.difference(&from_authors).collect();
    assert!(
        half_from_authors.is_empty() && half_from_books.is_empty(),
        "half links: {} only on the author's side, {} only on the book's side",
        half_from_authors.len(),
        half_from_books.len()
    );
    from_authors.len()
}

const AUTHORS: usize = 24;
const BOOKS: usize = 48;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_linking_many_to_many_leave_both_sides_in_agreement() {
    let _turn = TURN.lock().await;
    let db = database("conc_two_way").await;
    let authors = AuthorRepo::new(&db);
    let books = BookRepo::new(&db);
    authors.ensure_validator().await.unwrap();
    books.ensure_validator().await.unwrap();
    let author_ids: Vec<ObjectId> = (0..AUTHORS).map(|_| ObjectId::new()).collect();
    let book_ids: Vec<ObjectId> = (0..BOOKS).map(|_| ObjectId::new()).collect();
    for (i, id) in author_ids.iter().enumerate() {
        authors
            .insert(&Author {
                id: *id,
                name: format!("author {i}"),
                books: vec![],
            })
            .await
            .unwrap();
    }
    for (i, id) in book_ids.iter().enumerate() {
        books
            .insert(&Book {
                id: *id,
                title: format!("book {i}"),
                authors: vec![],
            })
            .await
            .unwrap();
    }

    let started = Instant::now();
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let authors = authors.clone();
        let (author_ids, book_ids) = (author_ids.clone(), book_ids.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(4, w);
            let (mut links, mut unlinks) = (Outcomes::default(), Outcomes::default());
            for _ in 0..OPS {
                let a = author_ids[rng.below(AUTHORS as u64) as usize];
                let b = book_ids[rng.below(BOOKS as u64) as usize];
                if rng.below(5) < 3 {
                    links.record(authors.link_books(&a, &b).await);
                } else {
                    unlinks.record(authors.unlink_books(&a, &b).await);
                }
            }
            (links, unlinks)
        }));
    }
    let (mut links, mut unlinks) = (Outcomes::default(), Outcomes::default());
    for w in writers {
        let (l, u) = w.await.unwrap();
        links.merge(l);
        unlinks.merge(u);
    }
    let elapsed = started.elapsed();
    links.assert_none_unexpected();
    unlinks.assert_none_unexpected();
    assert_eq!(unlinks.bound, 0, "unlinking never meets a bound");

    let a_docs = all(&db, "authors", doc! {}).await;
    let b_docs = all(&db, "books", doc! {}).await;
    let pairs = assert_many_to_many_agrees(&a_docs, &b_docs);
    report(
        "two-way many-to-many",
        elapsed,
        &format!(
            "links: {} ok, {} refused by a bound; unlinks: {} ok; {pairs} links at the end",
            links.ok, links.bound, unlinks.ok
        ),
    );
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "owners")]
pub struct Owner {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(two_way(to = Chore, max = 5, inverse = owner))]
    pub chores: Vec<ObjectId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "chores")]
pub struct Chore {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub what: String,
    pub owner: Option<ObjectId>,
}

const OWNERS: usize = 12;
const CHORES: usize = 40;
const OWNER_MAX: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_moving_chores_between_owners_leave_one_owner_each() {
    let _turn = TURN.lock().await;
    let db = database("conc_two_way_one").await;
    let owners = OwnerRepo::new(&db);
    let chores = ChoreRepo::new(&db);
    let owner_ids: Vec<ObjectId> = (0..OWNERS).map(|_| ObjectId::new()).collect();
    let chore_ids: Vec<ObjectId> = (0..CHORES).map(|_| ObjectId::new()).collect();
    for (i, id) in owner_ids.iter().enumerate() {
        owners
            .insert(&Owner {
                id: *id,
                name: format!("owner {i}"),
                chores: vec![],
            })
            .await
            .unwrap();
    }
    for (i, id) in chore_ids.iter().enumerate() {
        chores
            .insert(&Chore {
                id: *id,
                what: format!("chore {i}"),
                owner: None,
            })
            .await
            .unwrap();
    }

    let started = Instant::now();
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let owners = owners.clone();
        let (owner_ids, chore_ids) = (owner_ids.clone(), chore_ids.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = XorShift::new(5, w);
            let (mut links, mut unlinks) = (Outcomes::default(), Outcomes::default());
            for _ in 0..OPS {
                let o = owner_ids[rng.below(OWNERS as u64) as usize];
                let c = chore_ids[rng.below(CHORES as u64) as usize];
                if rng.below(4) < 3 {
                    links.record(owners.link_chores(&o, &c).await);
                } else {
                    unlinks.record(owners.unlink_chores(&o, &c).await);
                }
            }
            (links, unlinks)
        }));
    }
    let (mut links, mut unlinks) = (Outcomes::default(), Outcomes::default());
    for w in writers {
        let (l, u) = w.await.unwrap();
        links.merge(l);
        unlinks.merge(u);
    }
    let elapsed = started.elapsed();
    links.assert_none_unexpected();
    unlinks.assert_none_unexpected();

    let o_docs = all(&db, "owners", doc! {}).await;
    let c_docs = all(&db, "chores", doc! {}).await;
    let mut listed_by: HashMap<ObjectId, ObjectId> = HashMap::new();
    for o in &o_docs {
        let o_id = o.get_object_id("_id").unwrap();
        let cs = id_set(o, "chores");
        assert!(cs.len() <= OWNER_MAX, "owner holds {} chores", cs.len());
        for c in cs {
            if let Some(other) = listed_by.insert(c, o_id) {
                panic!("chore {c} is listed by two owners, {other} and {o_id}");
            }
        }
    }
    let mut owned = 0;
    for c in &c_docs {
        let c_id = c.get_object_id("_id").unwrap();
        let owner = match c.get("owner") {
            None | Some(Bson::Null) => None,
            Some(b) => Some(b.as_object_id().unwrap()),
        };
        assert_eq!(
            owner,
            listed_by.get(&c_id).copied(),
            "chore {c_id}: its owner and the owner listing it disagree"
        );
        owned += usize::from(owner.is_some());
    }
    report(
        "two-way one-to-many",
        elapsed,
        &format!(
            "links: {} ok, {} refused by a bound; unlinks: {} ok; {owned} chores owned at the end",
            links.ok, links.bound, unlinks.ok
        ),
    );
}

// ---- fault: the connection is cut in the middle of a two-way link's transaction ----

/// A TCP proxy between a client and the test server that reads the wire protocol's messages and
/// cuts every connection right after the server has answered the first write of a transaction
/// (the `OP_MSG` command carrying `startTransaction: true`): the transaction is then open on the
/// server with one side written, and its second write, abort and commit never arrive.
mod cut_proxy {
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
    use std::sync::{Arc, Mutex};

    use squillion::__private::bson::Document;
    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::watch;

    /// What happens after the cut.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum AfterCut {
        /// New connections are closed at once: the server is unreachable from then on.
        Unreachable,
        /// New connections are forwarded again: the cut was a blip.
        Reachable,
    }

    struct State {
        upstream: String,
        after: AfterCut,
        /// Bumped by the cut; connections opened before it close.
        generation: watch::Sender<u64>,
        cut: AtomicBool,
        /// The session (`lsid`) of the transaction that was cut.
        lsid: Mutex<Option<Document>>,
    }

    /// The proxy; it stops accepting when dropped.
    pub struct CutProxy {
        /// Where clients connect.
        pub addr: SocketAddr,
        state: Arc<State>,
        accept: tokio::task::JoinHandle<()>,
    }

    impl Drop for CutProxy {
        fn drop(&mut self) {
            self.accept.abort();
            self.state.generation.send_modify(|g| *g += 1);
        }
    }

    impl CutProxy {
        /// Listens on a free loopback port, forwarding to `upstream` (`host:port`).
        pub async fn start(upstream: String, after: AfterCut) -> CutProxy {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let state = Arc::new(State {
                upstream,
                after,
                generation: watch::channel(0).0,
                cut: AtomicBool::new(false),
                lsid: Mutex::new(None),
            });
            let s = state.clone();
            let accept = tokio::spawn(async move {
                while let Ok((client, _)) = listener.accept().await {
                    if s.cut.load(Ordering::SeqCst) && s.after == AfterCut::Unreachable {
                        drop(client);
                        continue;
                    }
                    tokio::spawn(connection(client, s.clone()));
                }
            });
            CutProxy {
                addr,
                state,
                accept,
            }
        }

        /// Whether the cut happened.
        pub fn was_cut(&self) -> bool {
            self.state.cut.load(Ordering::SeqCst)
        }

        /// The session of the transaction that was cut.
        pub fn lsid(&self) -> Option<Document> {
            self.state.lsid.lock().unwrap().clone()
        }
    }

    async fn read_message<R: AsyncRead + Unpin>(r: &mut R) -> std::io::Result<Vec<u8>> {
        let mut len = [0u8; 4];
        r.read_exact(&mut len).await?;
        let n = i32::from_le_bytes(len);
        if !(16..=48_000_000).contains(&n) {
            return Err(std::io::Error::other(format!("message length {n}")));
        }
        let mut m = vec![0u8; n as usize];
        m[..4].copy_from_slice(&len);
        r.read_exact(&mut m[4..]).await?;
        Ok(m)
    }

    fn header(m: &[u8], at: usize) -> i32 {
        i32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]])
    }

    /// The command document (section kind 0) of an `OP_MSG` (opcode 2013).
    fn command(m: &[u8]) -> Option<Document> {
        if header(m, 12) != 2013 {
            return None;
        }
        let mut at = 20;
        while at < m.len() {
            let kind = m[at];
            at += 1;
            if kind == 0 {
                return Document::from_reader(&m[at..]).ok();
            }
            // Kind 1: a size (covering itself), an identifier and documents.
            at += header(m, at) as usize;
        }
        None
    }

    async fn connection(client: TcpStream, state: Arc<State>) {
        let Ok(server) = TcpStream::connect(&state.upstream).await else {
            return;
        };
        let mut generation = state.generation.subscribe();
        let opened = *generation.borrow_and_update();
        let (mut cr, mut cw) = client.into_split();
        let (mut sr, mut sw) = server.into_split();
        // The request id of the transaction's first write, once seen on this connection.
        let watched = Arc::new(AtomicI64::new(i64::MIN));
        let w = watched.clone();
        let s = state.clone();
        let to_server = async move {
            while let Ok(m) = read_message(&mut cr).await {
                if !s.cut.load(Ordering::SeqCst) {
                    if let Some(cmd) = command(&m) {
                        if cmd.get_bool("startTransaction") == Ok(true) {
                            w.store(header(&m, 4) as i64, Ordering::SeqCst);
                            *s.lsid.lock().unwrap() = cmd.get_document("lsid").ok().cloned();
                        }
                    }
                }
                if sw.write_all(&m).await.is_err() {
                    break;
                }
            }
        };
        let s = state.clone();
        let to_client = async move {
            while let Ok(m) = read_message(&mut sr).await {
                if cw.write_all(&m).await.is_err() {
                    break;
                }
                if header(&m, 8) as i64 == watched.load(Ordering::SeqCst)
                    && !s.cut.swap(true, Ordering::SeqCst)
                {
                    // The first write was answered: cut every connection now.
                    let _ = cw.flush().await;
                    s.generation.send_modify(|g| *g += 1);
                }
            }
        };
        tokio::select! {
            _ = to_server => {}
            _ = to_client => {}
            _ = generation.wait_for(|g| *g != opened) => {}
        }
        // Dropping the halves closes both sockets.
    }
}

/// `host:port` of the test server, from its URI.
fn server_address() -> String {
    let uri = uri();
    let rest = uri
        .split("://")
        .nth(1)
        .expect("SQUILLION_MONGODB_URI has no scheme");
    let hosts = rest.split(['/', '?']).next().unwrap();
    let host = hosts.split(',').next().unwrap();
    host.rsplit('@').next().unwrap().to_owned()
}

async fn client_through(proxy: &cut_proxy::CutProxy) -> Client {
    Client::with_uri_str(format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=250&connectTimeoutMS=250",
        proxy.addr
    ))
    .await
    .unwrap()
}

async fn author_and_book(db: &Database) -> (Author, Book) {
    let a = Author {
        id: ObjectId::new(),
        name: "Kate".into(),
        books: vec![],
    };
    let b = Book {
        id: ObjectId::new(),
        title: "Half a link".into(),
        authors: vec![],
    };
    AuthorRepo::new(db).insert(&a).await.unwrap();
    BookRepo::new(db).insert(&b).await.unwrap();
    (a, b)
}

/// The link as the server stores it: (the author lists the book, the book lists the author).
async fn stored_link(db: &Database, a: &Author, b: &Book) -> (bool, bool) {
    let author = db
        .collection::<bson::Document>("authors")
        .find_one(doc! { "_id": a.id })
        .await
        .unwrap()
        .unwrap();
    let book = db
        .collection::<bson::Document>("books")
        .find_one(doc! { "_id": b.id })
        .await
        .unwrap()
        .unwrap();
    (
        id_set(&author, "books").contains(&b.id),
        id_set(&book, "authors").contains(&a.id),
    )
}

/// The connection of a two-way link is cut after the server has applied the transaction's first
/// write (the author's `$addToSet`) and answered it, and the server stays unreachable: the call
/// returns an error, and the direct client sees neither side of the link.
///
/// How: the repository runs on a client connected through [`cut_proxy::CutProxy`], a TCP proxy
/// inside the test that parses the wire protocol, recognises the transaction's first command by
/// its `startTransaction: true`, forwards the server's answer, then closes every connection and
/// refuses new ones. The runtime runs the transaction again (the network error carries
/// `TransientTransactionError`), meets an unreachable server on every run (250 ms server
/// selection) and, out of attempts, returns the error to the caller. The transaction the
/// server still holds open is then ended the way the server itself would end it after
/// `transactionLifetimeLimitSeconds`: `killSessions` with the session id the proxy read from the
/// command. Before that, a plain write to the author must wait for the open transaction (its
/// first write did reach the server); after it, the author accepts a direct write at once and
/// still does not list the book; a link through a direct client then succeeds on both sides.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_two_way_link_cut_mid_transaction_leaves_no_half_link_and_reports_the_error() {
    let _turn = TURN.lock().await;
    let db = database("fault_cut").await;
    let (a, b) = author_and_book(&db).await;

    let proxy =
        cut_proxy::CutProxy::start(server_address(), cut_proxy::AfterCut::Unreachable).await;
    let cut_client = client_through(&proxy).await;
    let cut_db = cut_client.database(db.name());
    let started = Instant::now();
    let outcome = AuthorRepo::new(&cut_db).link_books(&a.id, &b.id).await;
    let took = started.elapsed();
    assert!(
        proxy.was_cut(),
        "the proxy never saw the transaction's first write"
    );
    match &outcome {
        Err(Error::Driver(e)) => println!(
            "[derive_concurrency] cut link failed after {:.1} s with: {e}",
            took.as_secs_f64()
        ),
        other => panic!("the cut link must report the driver's error, got {other:?}"),
    }
    assert_eq!(
        stored_link(&db, &a, &b).await,
        (false, false),
        "a half link is visible after the cut"
    );

    // The cut came after the first write reached the server: the open transaction still holds
    // the author, so a plain write to it waits (and gives up after one second, code 50).
    let probe = db
        .run_command(doc! {
            "update": "authors",
            "updates": [{ "q": { "_id": a.id }, "u": { "$set": { "name": "probe" } } }],
            "maxTimeMS": 1000,
        })
        .await;
    match &probe {
        Err(e) => assert_eq!(
            squillion::__private::txn::server_code(e),
            Some(50),
            "expected MaxTimeMSExpired, got {e}"
        ),
        Ok(reply) => panic!(
            "the author was not held by the cut transaction (did its first write run?): {reply}"
        ),
    }

    // End the orphaned transaction, as the server would after its lifetime limit.
    let lsid = proxy.lsid().expect("the transaction's session id");
    db.client()
        .database("admin")
        .run_command(doc! { "killSessions": [lsid] })
        .await
        .unwrap();
    // No transaction holds the author any more: a plain write goes through at once.
    tokio::time::timeout(
        Duration::from_secs(10),
        db.collection::<bson::Document>("authors")
            .update_one(doc! { "_id": a.id }, doc! { "$set": { "name": "Kate M." } }),
    )
    .await
    .expect("the author is still locked by the cut transaction")
    .unwrap();
    assert_eq!(
        stored_link(&db, &a, &b).await,
        (false, false),
        "the cut transaction's first write survived its session"
    );

    // The same link through a direct client: both sides, once.
    AuthorRepo::new(&db).link_books(&a.id, &b.id).await.unwrap();
    assert_eq!(stored_link(&db, &a, &b).await, (true, true));
    drop(cut_client);
}

/// The same cut, but the server is reachable again at once (a blip): the runtime runs the whole
/// transaction again on a new connection (the error carries `TransientTransactionError`), the
/// call succeeds, and both sides hold the link exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_two_way_link_cut_once_is_retried_and_completes_on_both_sides() {
    let _turn = TURN.lock().await;
    let db = database("fault_blip").await;
    let (a, b) = author_and_book(&db).await;

    let proxy = cut_proxy::CutProxy::start(server_address(), cut_proxy::AfterCut::Reachable).await;
    let cut_client = client_through(&proxy).await;
    let cut_db = cut_client.database(db.name());
    AuthorRepo::new(&cut_db)
        .link_books(&a.id, &b.id)
        .await
        .expect("a link cut once must be retried by the runtime");
    assert!(
        proxy.was_cut(),
        "the proxy never saw the transaction's first write"
    );
    assert_eq!(stored_link(&db, &a, &b).await, (true, true));
    let author = AuthorRepo::new(&db).get(&a.id).await.unwrap().unwrap();
    let book = BookRepo::new(&db).get(&b.id).await.unwrap().unwrap();
    assert_eq!((author.books, book.authors), (vec![b.id], vec![a.id]));
    drop(cut_client);
}
