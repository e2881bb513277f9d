//! Layouts under the examples' workloads (issue 6): for the library (seed 000), blog (seed 003)
//! and IoT (seed 002, `examples/patterns.sqn`) examples, the example's read/write mix runs on the
//! layout the engine chose for its hot relationship and on the alternatives forced with `force`,
//! including all references (the relational shape). Every variant is code squillion generated:
//! `benches/layouts/<variant>.sqn` -> `benches/layouts/<variant>.rs` (kept fresh by
//! `tests/layout_variants.rs`), and the workload uses the generated repositories; where a layout
//! has no repository method for an operation, the plain driver call used is named in `NOTES`.
//!
//! Run against the test server: `scripts/with-server.sh cargo bench --bench layouts`
//! (or set `SQUILLION_MONGODB_URI`). `SQUILLION_BENCH_OPS` sets the operations per round
//! (default 300), `SQUILLION_BENCH_ONLY` one example (`blog`, `iot`, `library`),
//! `SQUILLION_BENCH_ROUNDS` the alternating rounds (default 5; the median counts).
//! Round trips are counted with the driver's command monitoring (`CommandStartedEvent`s), not
//! reasoned about.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document as BsonDocument};
use squillion::__private::mongodb::event::command::CommandEvent;
use squillion::__private::mongodb::event::EventHandler;
use squillion::__private::mongodb::options::ClientOptions;
use squillion::__private::mongodb::{Client, Collection, Database};
use squillion::BoundedVec;

macro_rules! variant {
    ($name:ident, $file:literal) => {
        #[allow(dead_code, clippy::all)]
        #[path = $file]
        mod $name;
    };
}
variant!(blog_chosen, "layouts/blog_chosen.rs");
variant!(blog_all_refs, "layouts/blog_all_refs.rs");
variant!(blog_embed, "layouts/blog_embed.rs");
variant!(blog_parent_refs, "layouts/blog_parent_refs.rs");
variant!(iot_chosen, "layouts/iot_chosen.rs");
variant!(iot_bucket50, "layouts/iot_bucket50.rs");
variant!(iot_embed, "layouts/iot_embed.rs");
variant!(iot_all_refs, "layouts/iot_all_refs.rs");
variant!(library_chosen, "layouts/library_chosen.rs");
variant!(library_parent_refs, "layouts/library_parent_refs.rs");
variant!(library_embed, "layouts/library_embed.rs");
variant!(library_all_refs, "layouts/library_all_refs.rs");

/// Commands sent to the server (every `CommandStartedEvent` but the handshake's).
static COMMANDS: AtomicU64 = AtomicU64::new(0);

fn commands() -> u64 {
    COMMANDS.load(Ordering::SeqCst)
}

/// A deterministic spread of `i`.
fn h(i: usize, salt: u64) -> usize {
    let mut x = (i as u64)
        .wrapping_add(salt)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 29)) as usize
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// The example's hot read.
    Hot,
    /// Another declared read (library: 0 by title, 1 by author, 2 author by name).
    Other(u8),
    Write,
}

trait Variant {
    fn name(&self) -> &'static str;
    async fn seed(&self);
    /// Runs one operation; returns the number of children/items it read (checked, so that every
    /// variant reads the same thing).
    async fn run(&self, op: Op, i: usize) -> usize;
}

// ---------------------------------------------------------------------------------------------
// Blog: BlogPost.comments, page 50 by created_on asc, append-heavy.

const POSTS: usize = 20;
const COMMENTS_PER_POST: usize = 200;
const COMMENT_PAGE: usize = 50;

fn blog_mix(i: usize) -> Op {
    if i % 11 == 10 {
        Op::Write
    } else {
        Op::Hot
    }
}

fn post_ids() -> Vec<ObjectId> {
    (0..POSTS).map(|_| ObjectId::new()).collect()
}

/// An id from an hour ago: seeded documents are older than anything the workload writes. (A
/// bucket without a `start` field is ordered by `_id`; an upsert's server-made `_id` from the
/// same second as a client-made one may sort before it.)
fn old_id() -> ObjectId {
    let mut bytes = ObjectId::new().bytes();
    let then = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 3_600) as u32;
    bytes[..4].copy_from_slice(&then.to_be_bytes());
    ObjectId::from_bytes(bytes)
}

fn comment_time(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 1_000)
}

/// The post and page read by operation `i`: pages of the seeded comments.
fn blog_target(i: usize) -> (usize, usize) {
    (
        h(i, 1) % POSTS,
        h(i, 2) % (COMMENTS_PER_POST / COMMENT_PAGE),
    )
}

macro_rules! blog_post {
    ($m:ident, $id:expr $(, $f:ident: $v:expr)*) => {
        $m::BlogPost {
            id: $id,
            title: "An awesome blog".into(),
            url: "http://awesomeblog.com".into(),
            text: "This is an awesome blog we have just started".into(),
            $($f: $v,)*
        }
    };
}

macro_rules! comment {
    ($m:ident, $k:expr $(, $f:ident: $v:expr)*) => {
        $m::Comment {
            name: format!("Peter Critic {}", $k),
            created_on: comment_time($k),
            comment: "Awesome blog post, with a few more words to make it a realistic comment.".into(),
            $($f: $v,)*
        }
    };
}

struct BlogChosen {
    posts: Vec<ObjectId>,
    post_repo: blog_chosen::BlogPostRepo,
    buckets: blog_chosen::BlogPostCommentsBucketRepo,
}

impl Variant for BlogChosen {
    fn name(&self) -> &'static str {
        "bucket(50) (chosen)"
    }
    async fn seed(&self) {
        self.buckets.ensure_indexes().await.unwrap();
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| blog_post!(blog_chosen, *id))
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
        let mut buckets = Vec::new();
        for p in &self.posts {
            for b in 0..COMMENTS_PER_POST / COMMENT_PAGE {
                let comments: Vec<_> = (0..COMMENT_PAGE)
                    .map(|k| comment!(blog_chosen, b * COMMENT_PAGE + k))
                    .collect();
                buckets.push(blog_chosen::BlogPostCommentsBucket {
                    id: old_id(),
                    blog_entry_id: *p,
                    comments: BoundedVec::try_from(comments).unwrap(),
                    count: COMMENT_PAGE as i32,
                });
            }
        }
        self.buckets.insert_many(&buckets).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            let c = comment!(blog_chosen, COMMENTS_PER_POST + i);
            self.buckets
                .append_comments(&self.posts[p], &c)
                .await
                .unwrap();
            return 0;
        }
        let bucket = self
            .buckets
            .comments_bucket(&self.posts[p], page as u64)
            .await
            .unwrap()
            .unwrap();
        bucket.comments.len()
    }
}

struct BlogAllRefs {
    posts: Vec<ObjectId>,
    post_repo: blog_all_refs::BlogPostRepo,
    comments: blog_all_refs::CommentRepo,
}

impl Variant for BlogAllRefs {
    fn name(&self) -> &'static str {
        "child_ref (all references)"
    }
    async fn seed(&self) {
        self.comments.ensure_indexes().await.unwrap();
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| blog_post!(blog_all_refs, *id))
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
        let mut all = Vec::new();
        for p in &self.posts {
            for k in 0..COMMENTS_PER_POST {
                all.push(comment!(blog_all_refs, k, id: old_id(), blog_entry_id: *p));
            }
        }
        self.comments.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        // The first page: the keyset `find_by_` starts from a cursor, not a page number.
        let (p, _) = blog_target(i);
        if op == Op::Write {
            let c = comment!(blog_all_refs, COMMENTS_PER_POST + i,
                id: ObjectId::new(), blog_entry_id: self.posts[p]);
            self.comments.insert(&c).await.unwrap();
            return 0;
        }
        let page = self
            .comments
            .find_by_blog_entry_id(&self.posts[p], None, COMMENT_PAGE as u32)
            .await
            .unwrap();
        page.items.len()
    }
}

struct BlogEmbed {
    posts: Vec<ObjectId>,
    post_repo: blog_embed::BlogPostRepo,
    raw: Collection<BsonDocument>,
}

impl Variant for BlogEmbed {
    fn name(&self) -> &'static str {
        "embed (forced)"
    }
    async fn seed(&self) {
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| {
                blog_post!(blog_embed, *id, comments:
                    (0..COMMENTS_PER_POST).map(|k| comment!(blog_embed, k)).collect())
            })
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            // No repository method: the forced embed of an unbounded relation is a plain `Vec`
            // without a layout attribute. Plain driver `$push`.
            let c =
                squillion::__private::bson::to_bson(&comment!(blog_embed, COMMENTS_PER_POST + i))
                    .unwrap();
            self.raw
                .update_one(
                    doc! { "_id": self.posts[p] },
                    doc! { "$push": { "comments": c } },
                )
                .await
                .unwrap();
            return 0;
        }
        // The whole post through the repository; the page is cut out in the application.
        let post = self.post_repo.get(&self.posts[p]).await.unwrap().unwrap();
        post.comments
            .iter()
            .skip(page * COMMENT_PAGE)
            .take(COMMENT_PAGE)
            .count()
    }
}

struct BlogParentRefs {
    posts: Vec<ObjectId>,
    post_repo: blog_parent_refs::BlogPostRepo,
    comments: blog_parent_refs::CommentRepo,
    raw_posts: Collection<BsonDocument>,
}

impl Variant for BlogParentRefs {
    fn name(&self) -> &'static str {
        "parent_refs (forced)"
    }
    async fn seed(&self) {
        let mut posts = Vec::new();
        let mut all = Vec::new();
        for p in &self.posts {
            let cs: Vec<_> = (0..COMMENTS_PER_POST)
                .map(|k| comment!(blog_parent_refs, k, id: ObjectId::new()))
                .collect();
            posts.push(
                blog_post!(blog_parent_refs, *p, comments: cs.iter().map(|c| c.id).collect()),
            );
            all.extend(cs);
        }
        self.post_repo.insert_many(&posts).await.unwrap();
        self.comments.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            // The comment through the repository; the id is added with a plain driver `$push`
            // (the forced, unbounded id array has no layout attribute, so no `add_comments`).
            let c = comment!(blog_parent_refs, COMMENTS_PER_POST + i, id: ObjectId::new());
            self.comments.insert(&c).await.unwrap();
            self.raw_posts
                .update_one(
                    doc! { "_id": self.posts[p] },
                    doc! { "$push": { "comments": c.id } },
                )
                .await
                .unwrap();
            return 0;
        }
        // The post, then the page's ids with `find({_id: {$in: ..}})`, both through repositories.
        let post = self.post_repo.get(&self.posts[p]).await.unwrap().unwrap();
        let ids: Vec<ObjectId> = post
            .comments
            .iter()
            .skip(page * COMMENT_PAGE)
            .take(COMMENT_PAGE)
            .copied()
            .collect();
        let mut cs = self
            .comments
            .find(doc! { "_id": { "$in": ids } })
            .await
            .unwrap();
        cs.sort_by_key(|c| c.created_on);
        cs.len()
    }
}

// ---------------------------------------------------------------------------------------------
// IoT: Sensor.readings, append-heavy, read by time range with summaries.

const SENSORS: usize = 10;
const READINGS_PER_SENSOR: usize = 4_000;
/// The windows a range read covers, in seconds (one reading per second per sensor): one bucket's
/// worth, and an hour.
const WINDOWS: [usize; 2] = [200, 3_600];

fn iot_mix(i: usize) -> Op {
    if i % 11 == 10 {
        Op::Hot
    } else {
        Op::Write
    }
}

fn reading_time(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 1_000)
}

fn reading_value(sensor: usize, k: usize) -> f64 {
    ((sensor * 7 + k * 13) % 100) as f64 / 4.0
}

/// The sensor and window `[from, to]` read by operation `i`, inside the seeded readings.
fn iot_window(i: usize, range: usize) -> (i32, DateTime, DateTime) {
    let s = h(i, 3) % SENSORS;
    let k = h(i, 4) % (READINGS_PER_SENSOR - range);
    (s as i32, reading_time(k), reading_time(k + range - 1))
}

/// Count, total and max of the readings in `[from, to]`.
fn summarize<'a>(
    readings: impl Iterator<Item = (&'a DateTime, f64)>,
    from: DateTime,
    to: DateTime,
) -> usize {
    let (mut n, mut total, mut max) = (0usize, 0.0, f64::MIN);
    for (t, v) in readings {
        if *t >= from && *t <= to {
            n += 1;
            total += v;
            max = max.max(v);
        }
    }
    std::hint::black_box((total, max));
    n
}

macro_rules! iot_bucketed {
    ($ty:ident, $m:ident, $size:expr, $label:literal) => {
        struct $ty {
            buckets: $m::SensorReadingsBucketRepo,
            range: Cell<usize>,
        }

        impl Variant for $ty {
            fn name(&self) -> &'static str {
                $label
            }
            async fn seed(&self) {
                self.buckets.ensure_indexes().await.unwrap();
                let mut docs = Vec::new();
                for s in 0..SENSORS {
                    for b in 0..READINGS_PER_SENSOR / $size {
                        let rs: Vec<$m::Reading> = (b * $size..(b + 1) * $size)
                            .map(|k| $m::Reading {
                                time: reading_time(k),
                                value: reading_value(s, k),
                            })
                            .collect();
                        docs.push($m::SensorReadingsBucket {
                            id: ObjectId::new(),
                            sensor: s as i32,
                            count: $size as i32,
                            start: rs[0].time,
                            end: rs[$size - 1].time,
                            total: rs.iter().map(|r| r.value).sum(),
                            max: rs.iter().map(|r| r.value).fold(f64::MIN, f64::max),
                            readings: BoundedVec::try_from(rs).unwrap(),
                        });
                    }
                }
                self.buckets.insert_many(&docs).await.unwrap();
            }
            async fn run(&self, op: Op, i: usize) -> usize {
                if op == Op::Write {
                    let s = h(i, 5) % SENSORS;
                    let r = $m::Reading {
                        time: reading_time(READINGS_PER_SENSOR + i),
                        value: reading_value(s, i),
                    };
                    self.buckets.append_readings(&(s as i32), &r).await.unwrap();
                    return 0;
                }
                let (s, from, to) = iot_window(i, self.range.get());
                let bs = self.buckets.readings_between(&s, &from, &to).await.unwrap();
                summarize(
                    bs.iter()
                        .flat_map(|b| b.readings.iter().map(|r| (&r.time, r.value))),
                    from,
                    to,
                )
            }
        }
    };
}
iot_bucketed!(
    IotChosen,
    iot_chosen,
    200,
    "bucket(200) + computed (chosen)"
);
iot_bucketed!(
    IotBucket50,
    iot_bucket50,
    50,
    "bucket(50) + computed (forced)"
);

struct IotEmbed {
    range: Cell<usize>,
    sensors: iot_embed::SensorRepo,
    raw: Collection<BsonDocument>,
}

impl Variant for IotEmbed {
    fn name(&self) -> &'static str {
        "embed + computed (forced)"
    }
    async fn seed(&self) {
        let docs: Vec<_> = (0..SENSORS)
            .map(|s| {
                let rs: Vec<iot_embed::Reading> = (0..READINGS_PER_SENSOR)
                    .map(|k| iot_embed::Reading {
                        time: reading_time(k),
                        value: reading_value(s, k),
                    })
                    .collect();
                iot_embed::Sensor {
                    number: s as i32,
                    readings_count: rs.len() as i32,
                    readings_total: rs.iter().map(|r| r.value).sum(),
                    readings_max: rs.iter().map(|r| r.value).reduce(f64::max),
                    readings: rs,
                }
            })
            .collect();
        self.sensors.insert_many(&docs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            // No repository method (`computed` is declared, but the unbounded forced array has
            // no layout attribute, so no `push_readings`): the plain driver update the computed
            // fields describe.
            let s = h(i, 5) % SENSORS;
            let v = reading_value(s, i);
            let r = doc! { "ts": reading_time(READINGS_PER_SENSOR + i), "v": v };
            self.raw
                .update_one(
                    doc! { "_id": s as i32 },
                    doc! {
                        "$push": { "readings": r },
                        "$inc": { "readings_count": 1, "readings_total": v },
                        "$max": { "readings_max": v },
                    },
                )
                .await
                .unwrap();
            return 0;
        }
        let (s, from, to) = iot_window(i, self.range.get());
        let sensor = self.sensors.get(&s).await.unwrap().unwrap();
        summarize(sensor.readings.iter().map(|r| (&r.time, r.value)), from, to)
    }
}

struct IotAllRefs {
    range: Cell<usize>,
    readings: iot_all_refs::ReadingRepo,
}

impl Variant for IotAllRefs {
    fn name(&self) -> &'static str {
        "child_ref (all references)"
    }
    async fn seed(&self) {
        self.readings.ensure_indexes().await.unwrap();
        let mut docs = Vec::new();
        for s in 0..SENSORS {
            for k in 0..READINGS_PER_SENSOR {
                docs.push(iot_all_refs::Reading {
                    id: ObjectId::new(),
                    time: reading_time(k),
                    value: reading_value(s, k),
                    sensor: s as i32,
                });
            }
        }
        self.readings.insert_many(&docs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let s = h(i, 5) % SENSORS;
            let r = iot_all_refs::Reading {
                id: ObjectId::new(),
                time: reading_time(READINGS_PER_SENSOR + i),
                value: reading_value(s, i),
                sensor: s as i32,
            };
            self.readings.insert(&r).await.unwrap();
            return 0;
        }
        // The repository's `find` with the range filter (the child_ref methods page by `_id`,
        // not by time), served by the index `{sensor: 1, ts: 1}` the plan declares.
        let (s, from, to) = iot_window(i, self.range.get());
        let rs = self
            .readings
            .find(doc! { "sensor": s, "ts": { "$gte": from, "$lte": to } })
            .await
            .unwrap();
        summarize(rs.iter().map(|r| (&r.time, r.value)), from, to)
    }
}

// ---------------------------------------------------------------------------------------------
// Library: Author.books with the author's names shown on every book, and the example's queries.

const AUTHORS: usize = 200;
const BOOKS_PER_AUTHOR: usize = 5;
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRST";

/// The example's rates: first name 200/s, title 100/s, by author 50/s, author by name 20/s
/// (a cycle of 37), and one rename of an author per 1,000 reads of the copied names
/// (`show ... ratio 1000:1`).
fn library_mix(i: usize) -> Op {
    if i % 1000 == 999 {
        return Op::Write;
    }
    match i % 37 {
        0..=19 => Op::Hot,
        20..=29 => Op::Other(0),
        30..=34 => Op::Other(1),
        _ => Op::Other(2),
    }
}

fn first_name(a: usize) -> String {
    format!("{}{:03} Scott", LETTERS[a % LETTERS.len()] as char, a)
}

fn last_name(a: usize) -> String {
    format!("Fitzgerald{a}")
}

fn title(a: usize, b: usize) -> String {
    format!("The Great Gatsby {a}-{b}")
}

/// The case-insensitive first-name prefix read by operation `i`: about five authors (25 books).
fn name_prefix(i: usize) -> String {
    let l = h(i, 6) % LETTERS.len();
    let hundred = h(i, 7) % (AUTHORS / 100);
    format!("{}{}", (LETTERS[l] as char).to_ascii_lowercase(), hundred)
}

macro_rules! book {
    ($m:ident, $a:expr, $b:expr $(, $f:ident: $v:expr)*) => {
        $m::Book {
            id: ObjectId::new(),
            title: title($a, $b),
            isbn: format!("97818571{:05}", $a * 10 + $b),
            slug: format!("97818571{:05}-the-great-gatsby", $a * 10 + $b),
            available: true,
            pages: 176,
            summary: "Set in the post-Great War world of the Long Island elite. ".repeat(16),
            language: "English".into(),
            $($f: $v,)*
        }
    };
}

macro_rules! library_copied {
    ($ty:ident, $m:ident, $label:literal, $parent_refs:expr) => {
        struct $ty {
            authors: Vec<ObjectId>,
            author_repo: $m::AuthorRepo,
            books: $m::BookRepo,
        }

        impl Variant for $ty {
            fn name(&self) -> &'static str {
                $label
            }
            async fn seed(&self) {
                self.books.ensure_indexes().await.unwrap();
                self.author_repo.ensure_indexes().await.unwrap();
                let mut books = Vec::new();
                let mut authors = Vec::new();
                for (a, id) in self.authors.iter().enumerate() {
                    let bs: Vec<$m::Book> = (0..BOOKS_PER_AUTHOR)
                        .map(|b| {
                            book!($m, a, b, author: $m::AuthorRef {
                                id: *id,
                                first_name: first_name(a),
                                last_name: last_name(a),
                            })
                        })
                        .collect();
                    let ids: Vec<ObjectId> = bs.iter().map(|b| b.id).collect();
                    authors.push($parent_refs(*id, a, ids));
                    books.extend(bs);
                }
                self.author_repo.insert_many(&authors).await.unwrap();
                self.books.insert_many(&books).await.unwrap();
            }
            async fn run(&self, op: Op, i: usize) -> usize {
                let a = h(i, 8) % AUTHORS;
                match op {
                    Op::Hot => {
                        let bs = self
                            .books
                            .books_by_author_first_name(&name_prefix(i))
                            .await
                            .unwrap();
                        bs.iter().map(|b| b.author.first_name.len().min(1)).sum()
                    }
                    Op::Other(0) => {
                        let b = h(i, 9) % BOOKS_PER_AUTHOR;
                        let bs = self.books.books_by_title(&title(a, b)).await.unwrap();
                        bs.iter().map(|b| b.author.last_name.len().min(1)).sum()
                    }
                    Op::Other(1) => {
                        let bs = self.books.books_by_author(&self.authors[a]).await.unwrap();
                        bs.iter().map(|b| b.author.last_name.len().min(1)).sum()
                    }
                    Op::Other(_) => self
                        .author_repo
                        .author_by_name(&first_name(a), &last_name(a))
                        .await
                        .unwrap()
                        .len(),
                    Op::Write => {
                        // A rename keeps the copies in step: `set_first_name` fans out.
                        self.author_repo
                            .set_first_name(&self.authors[a], &first_name(a))
                            .await
                            .unwrap();
                        0
                    }
                }
            }
        }
    };
}
library_copied!(
    LibraryChosen,
    library_chosen,
    "child_ref + names copied (chosen)",
    |id, a, _ids| library_chosen::Author {
        id,
        first_name: first_name(a),
        last_name: last_name(a),
    }
);
library_copied!(
    LibraryParentRefs,
    library_parent_refs,
    "parent_refs + names copied (forced)",
    |id, a, ids: Vec<ObjectId>| library_parent_refs::Author {
        id,
        first_name: first_name(a),
        last_name: last_name(a),
        books: BoundedVec::try_from(ids).unwrap(),
    }
);

struct LibraryAllRefs {
    authors: Vec<ObjectId>,
    author_repo: library_all_refs::AuthorRepo,
    books: library_all_refs::BookRepo,
    raw_authors: Collection<BsonDocument>,
}

impl Variant for LibraryAllRefs {
    fn name(&self) -> &'static str {
        "child_ref, nothing copied (all references)"
    }
    async fn seed(&self) {
        self.books.ensure_indexes().await.unwrap();
        self.author_repo.ensure_indexes().await.unwrap();
        let mut books = Vec::new();
        let mut authors = Vec::new();
        for (a, id) in self.authors.iter().enumerate() {
            books.extend((0..BOOKS_PER_AUTHOR).map(|b| book!(library_all_refs, a, b, author: *id)));
            authors.push(library_all_refs::Author {
                id: *id,
                first_name: first_name(a),
                last_name: last_name(a),
            });
        }
        self.author_repo.insert_many(&authors).await.unwrap();
        self.books.insert_many(&books).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let a = h(i, 8) % AUTHORS;
        match op {
            Op::Hot => {
                // Application-level join: the authors by first name, then their books.
                let authors = self
                    .author_repo
                    .authors_by_first_name(&name_prefix(i))
                    .await
                    .unwrap();
                let ids: Vec<ObjectId> = authors.iter().map(|x| x.id).collect();
                let bs = self
                    .books
                    .find(doc! { "author": { "$in": ids } })
                    .await
                    .unwrap();
                bs.iter()
                    .filter(|b| authors.iter().any(|x| x.id == b.author))
                    .count()
            }
            Op::Other(0) => {
                // The books, then their author's name.
                let b = h(i, 9) % BOOKS_PER_AUTHOR;
                let bs = self.books.books_by_title(&title(a, b)).await.unwrap();
                let author = self.author_repo.get(&bs[0].author).await.unwrap().unwrap();
                bs.len() * author.last_name.len().min(1)
            }
            Op::Other(1) => {
                let bs = self.books.books_by_author(&self.authors[a]).await.unwrap();
                let author = self
                    .author_repo
                    .get(&self.authors[a])
                    .await
                    .unwrap()
                    .unwrap();
                bs.len() * author.last_name.len().min(1)
            }
            Op::Other(_) => self
                .author_repo
                .author_by_name(&first_name(a), &last_name(a))
                .await
                .unwrap()
                .len(),
            Op::Write => {
                // Nothing to fan out; no repository setter without a copy: plain `$set`.
                self.raw_authors
                    .update_one(
                        doc! { "_id": self.authors[a] },
                        doc! { "$set": { "first_name": first_name(a) } },
                    )
                    .await
                    .unwrap();
                0
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[derive(Default)]
struct Measured {
    mix: Vec<f64>,
    hot: Vec<f64>,
    /// Round trips per hot read and per mixed operation.
    rt_hot: f64,
    rt_mix: f64,
    items_hot: f64,
}

/// One round: `ops` mixed operations, then `ops` hot reads; operations per second of each.
async fn round<V: Variant>(
    v: &V,
    mix: fn(usize) -> Op,
    ops: usize,
    offset: usize,
    m: &mut Measured,
) {
    let c0 = commands();
    let start = Instant::now();
    for i in offset..offset + ops {
        v.run(mix(i), i).await;
    }
    let t = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    m.mix.push(ops as f64 / t);
    m.rt_mix = (commands() - c0) as f64 / ops as f64;

    let c0 = commands();
    let mut items = 0;
    let start = Instant::now();
    for i in offset..offset + ops {
        items += v.run(Op::Hot, i).await;
    }
    let t = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    m.hot.push(ops as f64 / t);
    m.rt_hot = (commands() - c0) as f64 / ops as f64;
    m.items_hot = items as f64 / ops as f64;
}

struct Table {
    example: &'static str,
    rows: Vec<(&'static str, Measured)>,
}

fn print(t: &Table) {
    println!("\n### {}\n", t.example);
    println!("| layout | mix ops/s | hot reads/s | round trips per hot read | items per hot read | round trips per mixed op |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, m) in &t.rows {
        println!(
            "| {} | {:.0} | {:.0} | {:.2} | {:.1} | {:.2} |",
            name,
            median(m.mix.clone()),
            median(m.hot.clone()),
            m.rt_hot,
            m.items_hot,
            m.rt_mix
        );
    }
    let chosen = &t.rows[0].1;
    let all_refs = &t.rows.last().unwrap().1;
    let (cm, ch) = (median(chosen.mix.clone()), median(chosen.hot.clone()));
    let best_mix = t
        .rows
        .iter()
        .map(|(_, m)| median(m.mix.clone()))
        .fold(0.0, f64::max);
    let best_hot = t
        .rows
        .iter()
        .map(|(_, m)| median(m.hot.clone()))
        .fold(0.0, f64::max);
    println!(
        "\nchosen / best: mix {:.2}x, hot reads {:.2}x; chosen / all references: mix {:.2}x, hot reads {:.2}x",
        cm / best_mix,
        ch / best_hot,
        cm / median(all_refs.mix.clone()),
        ch / median(all_refs.hot.clone())
    );
}

async fn client() -> Client {
    let mut options = ClientOptions::parse(squillion_testkit::uri())
        .await
        .expect("SQUILLION_MONGODB_URI");
    options.command_event_handler = Some(EventHandler::callback(|ev: CommandEvent| {
        if let CommandEvent::Started(s) = ev {
            if !matches!(
                s.command_name.as_str(),
                "hello" | "isMaster" | "ismaster" | "endSessions"
            ) {
                COMMANDS.fetch_add(1, Ordering::SeqCst);
            }
        }
    }));
    Client::with_options(options).expect("client")
}

/// The winning plan's stages and the documents and keys it examined.
async fn explain(db: &Database, find: BsonDocument) -> String {
    let reply = match db
        .run_command(doc! { "explain": find, "verbosity": "executionStats" })
        .await
    {
        Ok(r) => r,
        Err(e) => return format!("explain failed: {e}"),
    };
    let mut stages = Vec::new();
    let mut plan = reply
        .get_document("queryPlanner")
        .and_then(|q| q.get_document("winningPlan"))
        .ok();
    while let Some(p) = plan {
        let stage = p.get_str("stage").unwrap_or("?");
        match p.get_str("indexName") {
            Ok(index) => stages.push(format!("{stage} {index}")),
            Err(_) => stages.push(stage.to_owned()),
        }
        plan = p.get_document("inputStage").ok();
    }
    let stats = reply.get_document("executionStats").ok();
    let n = |k: &str| {
        stats
            .and_then(|s| s.get(k))
            .map_or_else(|| "?".to_owned(), |v| v.to_string())
    };
    format!(
        "{} (returned {}, docs examined {}, keys examined {})",
        stages.join(" <- "),
        n("nReturned"),
        n("totalDocsExamined"),
        n("totalKeysExamined")
    )
}

fn db(client: &Client, name: &str) -> Database {
    client.database(&format!(
        "bench_layouts_{name}_{}",
        &ObjectId::new().to_hex()[18..]
    ))
}

async fn run_rounds<V: Variant>(
    v: &V,
    mix: fn(usize) -> Op,
    ops: usize,
    r: usize,
    m: &mut Measured,
) {
    round(v, mix, ops, r * ops, m).await;
}

fn main() {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let ops = env("SQUILLION_BENCH_OPS", 300);
    let rounds = env("SQUILLION_BENCH_ROUNDS", 5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let client = client().await;
        let mut dbs = Vec::new();
        println!("ops per round: {ops}, rounds: {rounds} (median round)");

        let only = std::env::var("SQUILLION_BENCH_ONLY").unwrap_or_default();
        let run = |x: &str| only.is_empty() || only == x;
        // Blog
        if run("blog") {
            let posts = post_ids();
            let d: Vec<Database> = (0..4).map(|k| db(&client, &format!("blog{k}"))).collect();
            dbs.extend(d.iter().cloned());
            let chosen = BlogChosen {
                posts: posts.clone(),
                post_repo: blog_chosen::BlogPostRepo::new(&d[0]),
                buckets: blog_chosen::BlogPostCommentsBucketRepo::new(&d[0]),
            };
            let embed = BlogEmbed {
                posts: posts.clone(),
                post_repo: blog_embed::BlogPostRepo::new(&d[1]),
                raw: d[1].collection("blog_posts"),
            };
            let parent_refs = BlogParentRefs {
                posts: posts.clone(),
                post_repo: blog_parent_refs::BlogPostRepo::new(&d[2]),
                comments: blog_parent_refs::CommentRepo::new(&d[2]),
                raw_posts: d[2].collection("blog_posts"),
            };
            let all_refs = BlogAllRefs {
                posts: posts.clone(),
                post_repo: blog_all_refs::BlogPostRepo::new(&d[3]),
                comments: blog_all_refs::CommentRepo::new(&d[3]),
            };
            chosen.seed().await;
            embed.seed().await;
            parent_refs.seed().await;
            all_refs.seed().await;
            let mut ms: Vec<Measured> = (0..4).map(|_| Measured::default()).collect();
            for r in 0..rounds {
                run_rounds(&chosen, blog_mix, ops, r, &mut ms[0]).await;
                run_rounds(&embed, blog_mix, ops, r, &mut ms[1]).await;
                run_rounds(&parent_refs, blog_mix, ops, r, &mut ms[2]).await;
                run_rounds(&all_refs, blog_mix, ops, r, &mut ms[3]).await;
            }
            let names = [chosen.name(), embed.name(), parent_refs.name(), all_refs.name()];
            print(&Table {
                example: "Blog (seed 003): BlogPost.comments, 10 page reads : 1 append",
                rows: names.into_iter().zip(ms).collect(),
            });
        }

        // IoT: seeded once, measured with each window.
        if run("iot") {
            let d: Vec<Database> = (0..4).map(|k| db(&client, &format!("iot{k}"))).collect();
            dbs.extend(d.iter().cloned());
            let chosen = IotChosen {
                buckets: iot_chosen::SensorReadingsBucketRepo::new(&d[0]),
                range: Cell::new(WINDOWS[0]),
            };
            let b50 = IotBucket50 {
                buckets: iot_bucket50::SensorReadingsBucketRepo::new(&d[1]),
                range: Cell::new(WINDOWS[0]),
            };
            let embed = IotEmbed {
                sensors: iot_embed::SensorRepo::new(&d[2]),
                raw: d[2].collection("sensors"),
                range: Cell::new(WINDOWS[0]),
            };
            let all_refs = IotAllRefs {
                readings: iot_all_refs::ReadingRepo::new(&d[3]),
                range: Cell::new(WINDOWS[0]),
            };
            chosen.seed().await;
            b50.seed().await;
            embed.seed().await;
            all_refs.seed().await;
            for (w, window) in WINDOWS.into_iter().enumerate() {
                chosen.range.set(window);
                b50.range.set(window);
                embed.range.set(window);
                all_refs.range.set(window);
                let mut ms: Vec<Measured> = (0..4).map(|_| Measured::default()).collect();
                for r in 0..rounds {
                    // Later windows continue the write sequence: appends never collide.
                    let r = r + w * rounds;
                    run_rounds(&chosen, iot_mix, ops, r, &mut ms[0]).await;
                    run_rounds(&b50, iot_mix, ops, r, &mut ms[1]).await;
                    run_rounds(&embed, iot_mix, ops, r, &mut ms[2]).await;
                    run_rounds(&all_refs, iot_mix, ops, r, &mut ms[3]).await;
                }
                let names = [chosen.name(), b50.name(), embed.name(), all_refs.name()];
                print(&Table {
                    example: if window == WINDOWS[0] {
                        "IoT (seed 002): Sensor.readings, 10 appends : 1 range read of 200 s (200 readings)"
                    } else {
                        "IoT (seed 002): Sensor.readings, 10 appends : 1 range read of 1 h (3,600 readings)"
                    },
                    rows: names.into_iter().zip(ms).collect(),
                });
            }
        }

        // Library
        if run("library") {
            let authors: Vec<ObjectId> = (0..AUTHORS).map(|_| ObjectId::new()).collect();
            let d: Vec<Database> = (0..3).map(|k| db(&client, &format!("lib{k}"))).collect();
            dbs.extend(d.iter().cloned());
            let chosen = LibraryChosen {
                authors: authors.clone(),
                author_repo: library_chosen::AuthorRepo::new(&d[0]),
                books: library_chosen::BookRepo::new(&d[0]),
            };
            let parent_refs = LibraryParentRefs {
                authors: authors.clone(),
                author_repo: library_parent_refs::AuthorRepo::new(&d[1]),
                books: library_parent_refs::BookRepo::new(&d[1]),
            };
            let all_refs = LibraryAllRefs {
                authors: authors.clone(),
                author_repo: library_all_refs::AuthorRepo::new(&d[2]),
                books: library_all_refs::BookRepo::new(&d[2]),
                raw_authors: d[2].collection("authors"),
            };
            chosen.seed().await;
            parent_refs.seed().await;
            all_refs.seed().await;
            let mut ms: Vec<Measured> = (0..3).map(|_| Measured::default()).collect();
            for r in 0..rounds {
                run_rounds(&chosen, library_mix, ops, r, &mut ms[0]).await;
                run_rounds(&parent_refs, library_mix, ops, r, &mut ms[1]).await;
                run_rounds(&all_refs, library_mix, ops, r, &mut ms[2]).await;
            }
            let names = [chosen.name(), parent_refs.name(), all_refs.name()];
            print(&Table {
                example: "Library (seed 000): Author.books, first name 200/s : title 100/s : by author 50/s : author by name 20/s, 1 rename per 1,000 reads",
                rows: names.into_iter().zip(ms).collect(),
            });
            // How the server runs the hot read of each: the copied name on 1,000 books against
            // the join's two queries.
            let prefix = name_prefix(0);
            let range = squillion::__private::query::prefix_ignore_case(&prefix);
            let collation = doc! { "locale": "en", "strength": 2 };
            let ids: Vec<ObjectId> = authors.iter().take(5).copied().collect();
            for (label, d, find) in [
                (
                    "chosen: books by author.first_name",
                    &d[0],
                    doc! { "find": "books", "filter": { "author.first_name": range.clone() }, "collation": collation.clone() },
                ),
                (
                    "all references: authors by first_name",
                    &d[2],
                    doc! { "find": "authors", "filter": { "first_name": range.clone() }, "collation": collation.clone() },
                ),
                (
                    "all references: books by author $in",
                    &d[2],
                    doc! { "find": "books", "filter": { "author": { "$in": ids } } },
                ),
            ] {
                println!("explain, {label}: {}", explain(d, find).await);
            }
            // Each query alone, through the plain driver: where the hot read's time goes.
            let n = ops.max(50);
            let books_copied: Collection<BsonDocument> = d[0].collection("books");
            let authors_plain: Collection<BsonDocument> = d[2].collection("authors");
            let books_plain: Collection<BsonDocument> = d[2].collection("books");
            let ci = squillion::__private::query::case_insensitive("en");
            let mut per_query = Vec::new();
            for q in 0..3 {
                let start = Instant::now();
                for i in 0..n {
                    let range = squillion::__private::query::prefix_ignore_case(&name_prefix(i));
                    let cursor = match q {
                        0 => books_copied
                            .find(doc! { "author.first_name": range })
                            .collation(ci.clone())
                            .await,
                        1 => authors_plain
                            .find(doc! { "first_name": range })
                            .collation(ci.clone())
                            .await,
                        _ => {
                            let ids: Vec<ObjectId> =
                                (0..5).map(|k| authors[(i * 5 + k) % AUTHORS]).collect();
                            books_plain.find(doc! { "author": { "$in": ids } }).await
                        }
                    };
                    let docs: Vec<BsonDocument> =
                        futures::TryStreamExt::try_collect(cursor.unwrap()).await.unwrap();
                    std::hint::black_box(docs);
                }
                per_query.push(start.elapsed().as_secs_f64() * 1e6 / n as f64);
            }
            println!(
                "plain driver, µs per query: books by copied first name (collation) {:.0}; authors by first name (collation) {:.0}; books by author $in {:.0}",
                per_query[0], per_query[1], per_query[2]
            );
        }

        println!("\nNot measured: library embed (forced) - see docs/benchmarks.md.");
        for d in dbs {
            let _ = d.drop().await;
        }
    });
}
