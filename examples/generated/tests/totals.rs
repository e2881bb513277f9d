//! Summaries over every numeric type, in every layout that keeps them
//! (`examples/generated/schemas/totals.sqn`), against the server: random children with values at
//! the edges of their types (`i32::MAX`, `i32::MIN`, large longs, decimals with cents) are added,
//! changed and removed through the generated repositories, and after every step each stored
//! summary equals the one a reference computes from the children it holds: totals exact (a total
//! of 32-bit integers beyond `i32::MAX` is a long, and the validator takes it), totals of decimals
//! kept in decimal, counts, largest and smallest, averages.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test totals`.

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{DateTime, Decimal128};
use squillion::BoundedVec;
use squillion_examples_generated::totals::{
    ensure_all, Cart, CartRepo, Feed, FeedPostsBucketRepo, FeedRef, FeedRepo, Line, Listener,
    ListenerRepo, Meter, MeterRepo, MeterTicksBucketRepo, Play, PlayRepo, Post, Reply, Sample,
    Station, StationRepo, StationSamplesBucketRepo, Thread, ThreadRepo, Tick,
};
use squillion_testkit::TestDb;

/// A 32-bit value, often at an edge of its type.
fn int32() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MAX),
        Just(i32::MIN),
        Just(i32::MAX - 1),
        Just(0),
        -1000i32..1000,
    ]
}

/// A 64-bit value whose totals over a few children still fit.
fn int64() -> impl Strategy<Value = i64> {
    prop_oneof![Just(i64::MAX / 64), Just(i64::MIN / 64), -1000i64..1000]
}

/// A decimal amount in cents.
fn cents() -> impl Strategy<Value = i64> {
    prop_oneof![Just(9_999_999_999_999), Just(-1), 0i64..100_000]
}

fn decimal(cents: i64) -> Decimal128 {
    let text = format!(
        "{}{}.{:02}",
        if cents < 0 { "-" } else { "" },
        cents.unsigned_abs() / 100,
        cents.unsigned_abs() % 100
    );
    text.parse().expect("a decimal literal")
}

/// The value of a stored decimal, in cents (every amount here has at most two decimals).
fn in_cents(d: &Decimal128) -> i64 {
    let text = d.to_string();
    let value: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {text}"));
    (value * 100.0).round() as i64
}

#[derive(Debug, Clone)]
struct Values {
    a: i32,
    b: i64,
    c: f64,
    d: i64,
}

fn values() -> impl Strategy<Value = Values> {
    (int32(), int64(), -1.0e6f64..1.0e6, cents()).prop_map(|(a, b, c, d)| Values { a, b, c, d })
}

/// Reference summaries of some children.
fn totals(children: &[Values]) -> (i64, i128, i128, f64, i64, Option<i32>, Option<i64>) {
    (
        children.len() as i64,
        children.iter().map(|v| i128::from(v.a)).sum(),
        children.iter().map(|v| i128::from(v.b)).sum(),
        children.iter().map(|v| v.c).sum(),
        children.iter().map(|v| v.d).sum(),
        children.iter().map(|v| v.a).max(),
        children.iter().map(|v| v.d).min(),
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[derive(Debug, Clone)]
enum Step {
    Add(Values),
    /// Remove the child at this index (modulo the number held), if any.
    Remove(usize),
    /// Set the child's 32-bit value (child_ref only: `set_ms`).
    Set(usize, i32),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            4 => values().prop_map(Step::Add),
            1 => any::<usize>().prop_map(Step::Remove),
            1 => (any::<usize>(), int32()).prop_map(|(i, v)| Step::Set(i, v)),
        ],
        1..14,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Embedded lines: `push_lines`, `remove_lines`, and the cart's summaries after each.
    #[test]
    fn embedded_totals_are_exact(steps in steps()) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_embed").await;
            ensure_all(&t.db).await.unwrap();
            let repo = CartRepo::new(&t.db);
            let cart = Cart {
                id: ObjectId::new(),
                label: "c".into(),
                lines: BoundedVec::new(),
                lines_count: 0,
                lines_total_qty: 0,
                lines_total_grams: 0,
                lines_total_weight: 0.0,
                lines_total_price: decimal(0),
                lines_max: None,
                lines_min: None,
            };
            repo.insert(&cart).await.unwrap();
            let mut held: Vec<Values> = Vec::new();
            let line = |v: &Values| Line { qty: v.a, grams: v.b, weight: v.c, price: decimal(v.d) };
            for step in &steps {
                match step {
                    Step::Add(v) if held.len() < 20 => {
                        repo.push_lines(&cart.id, &line(v)).await.unwrap();
                        held.push(v.clone());
                    }
                    Step::Add(_) | Step::Set(..) => continue,
                    Step::Remove(i) => {
                        if held.is_empty() {
                            continue;
                        }
                        let v = held.remove(i % held.len());
                        // `$pull` removes every equal element: the reference does too.
                        let removed = repo.remove_lines(&cart.id, &line(&v)).await.unwrap();
                        assert!(removed);
                        held.retain(|h| !(h.a == v.a && h.b == v.b && h.c == v.c && h.d == v.d));
                    }
                }
                let got = repo.get(&cart.id).await.unwrap().expect("the cart");
                let (n, a, b, c, d, max, min) = totals(&held);
                assert_eq!(i64::from(got.lines_count), n);
                assert_eq!(i128::from(got.lines_total_qty), a, "{step:?}");
                assert_eq!(i128::from(got.lines_total_grams), b);
                assert!(close(got.lines_total_weight, c), "{} != {c}", got.lines_total_weight);
                assert_eq!(in_cents(&got.lines_total_price), d);
                assert_eq!(got.lines_max, max);
                assert_eq!(got.lines_min.as_ref().map(in_cents), min);
                let avg = got.lines_avg();
                assert_eq!(avg.is_some(), n > 0);
                if let Some(avg) = avg {
                    assert!(close(avg, a as f64 / n as f64));
                }
            }
        });
    }

    /// Plays in their own collection: `insert`, `set_ms`, `delete` keep the listener's summaries
    /// in their transaction.
    #[test]
    fn referenced_totals_are_exact(steps in steps()) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_child_ref").await;
            ensure_all(&t.db).await.unwrap();
            let (listeners, plays) = (ListenerRepo::new(&t.db), PlayRepo::new(&t.db));
            let listener = Listener {
                id: ObjectId::new(),
                name: "l".into(),
                plays_count: 0,
                plays_total_ms: 0,
                plays_total_bytes: 0,
                plays_total_score: 0.0,
                plays_total_fee: decimal(0),
                plays_max: None,
                plays_min: None,
            };
            listeners.insert(&listener).await.unwrap();
            let mut held: Vec<(ObjectId, Values)> = Vec::new();
            for step in &steps {
                match step {
                    Step::Add(v) => {
                        let play = Play {
                            id: ObjectId::new(),
                            ms: v.a,
                            bytes: v.b,
                            score: v.c,
                            fee: decimal(v.d),
                            listener: listener.id,
                        };
                        plays.insert(&play).await.unwrap();
                        held.push((play.id, v.clone()));
                    }
                    Step::Remove(i) => {
                        if held.is_empty() {
                            continue;
                        }
                        let (id, _) = held.remove(i % held.len());
                        assert!(plays.delete(&id).await.unwrap());
                    }
                    Step::Set(i, ms) => {
                        if held.is_empty() {
                            continue;
                        }
                        let k = i % held.len();
                        plays.set_ms(&held[k].0, ms).await.unwrap();
                        held[k].1.a = *ms;
                    }
                }
                let got = listeners.get(&listener.id).await.unwrap().expect("the listener");
                let vs: Vec<Values> = held.iter().map(|(_, v)| v.clone()).collect();
                let (n, a, b, c, d, max, min) = totals(&vs);
                assert_eq!(i64::from(got.plays_count), n);
                assert_eq!(i128::from(got.plays_total_ms), a, "{step:?}");
                assert_eq!(i128::from(got.plays_total_bytes), b);
                assert!(close(got.plays_total_score, c), "{} != {c}", got.plays_total_score);
                assert_eq!(in_cents(&got.plays_total_fee), d);
                assert_eq!(got.plays_max, max);
                assert_eq!(got.plays_min.as_ref().map(in_cents), min);
                if let Some(avg) = got.plays_avg() {
                    assert!(close(avg, a as f64 / n as f64));
                }
            }
        });
    }

    /// Ticks in buckets: every bucket's totals are those of the ticks it holds.
    #[test]
    fn bucket_totals_are_exact(ticks in prop::collection::vec((int32(), cents()), 1..30)) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_bucket").await;
            ensure_all(&t.db).await.unwrap();
            let (meters, buckets) = (MeterRepo::new(&t.db), MeterTicksBucketRepo::new(&t.db));
            let meter = Meter { id: ObjectId::new(), serial: "m".into() };
            meters.insert(&meter).await.unwrap();
            for (k, (units, cost)) in ticks.iter().enumerate() {
                let tick = Tick {
                    at: DateTime::from_millis(1_800_000_000_000 + k as i64 * 1000),
                    units: *units,
                    cost: decimal(*cost),
                };
                buckets.append_ticks(&meter.id, &tick).await.unwrap();
            }
            let stored = buckets.find(squillion::bson::doc! {}).await.unwrap();
            assert_eq!(stored.len(), 1, "30 ticks fit one bucket of 200");
            let b = &stored[0];
            let units: i128 = ticks.iter().map(|(u, _)| i128::from(*u)).sum();
            let cost: i64 = ticks.iter().map(|(_, c)| *c).sum();
            assert_eq!(b.count as usize, ticks.len());
            assert_eq!(i128::from(b.total_units), units);
            assert_eq!(in_cents(&b.total_cost), cost);
            assert_eq!(Some(b.max), ticks.iter().map(|(u, _)| *u).max());
        });
    }

    /// An outlier relationship (4 embedded, the rest overflowing): the thread's summaries count
    /// every reply, embedded or not. Before, neither push kept them.
    #[test]
    fn outlier_totals_count_the_overflow_too(replies in prop::collection::vec((int32(), cents()), 1..12)) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_outlier").await;
            ensure_all(&t.db).await.unwrap();
            let repo = ThreadRepo::new(&t.db);
            let thread = Thread {
                id: ObjectId::new(),
                title: "t".into(),
                replies: Vec::new(),
                replies_overflow: None,
                replies_count: 0,
                replies_total_score: 0,
                replies_max: None,
                replies_total_tip: decimal(0),
            };
            repo.insert(&thread).await.unwrap();
            for (k, (score, tip)) in replies.iter().enumerate() {
                repo.push_replies(&thread.id, &Reply { score: *score, tip: decimal(*tip) })
                    .await
                    .unwrap();
                let held = &replies[..=k];
                let got = repo.get(&thread.id).await.unwrap().expect("the thread");
                assert_eq!(got.replies.len(), held.len().min(4));
                assert_eq!(got.replies_overflow.unwrap_or(false), held.len() > 4);
                assert_eq!(got.replies_count as usize, held.len());
                let scores: i128 = held.iter().map(|(s, _)| i128::from(*s)).sum();
                assert_eq!(i128::from(got.replies_total_score), scores);
                assert_eq!(got.replies_max, held.iter().map(|(s, _)| *s).max());
                let tips: i64 = held.iter().map(|(_, c)| *c).sum();
                assert_eq!(in_cents(&got.replies_total_tip), tips);
            }
            let all = repo.all_replies(&thread.id).await.unwrap();
            assert_eq!(all.len(), replies.len());
        });
    }

    /// Posts of two feeds appended in random order to buckets of 5 (a feed's posts span several
    /// buckets): after every append, each feed's summaries are those of every post appended to
    /// it, whatever bucket holds them, and its buckets hold exactly those posts. Before, the
    /// summaries were kept per bucket only and the feed had none.
    #[test]
    fn owner_totals_span_every_bucket(posts in prop::collection::vec((0..2usize, int32(), cents()), 1..24)) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_bucket_owner").await;
            ensure_all(&t.db).await.unwrap();
            let (feeds, buckets) = (FeedRepo::new(&t.db), FeedPostsBucketRepo::new(&t.db));
            let mut refs = Vec::new();
            for name in ["news", "sport"] {
                let feed = Feed {
                    id: ObjectId::new(),
                    name: name.into(),
                    posts_count: 0,
                    posts_total_likes: 0,
                    posts_total_price: decimal(0),
                    posts_max: None,
                    posts_min: None,
                };
                feeds.insert(&feed).await.unwrap();
                refs.push(FeedRef { id: feed.id, name: name.into() });
            }
            let mut held: [Vec<(i32, i64)>; 2] = [Vec::new(), Vec::new()];
            for (k, (f, likes, cents)) in posts.iter().enumerate() {
                let post = Post {
                    at: DateTime::from_millis(1_800_000_000_000 + k as i64 * 1000),
                    likes: *likes,
                    price: decimal(*cents),
                };
                buckets.append_posts(&refs[*f], &post).await.unwrap();
                held[*f].push((*likes, *cents));
                for (feed, mine) in refs.iter().zip(&held) {
                    let got = feeds.get(&feed.id).await.unwrap().expect("the feed");
                    assert_eq!(got.posts_count as usize, mine.len());
                    let likes: i128 = mine.iter().map(|(l, _)| i128::from(*l)).sum();
                    assert_eq!(i128::from(got.posts_total_likes), likes);
                    let cents: i64 = mine.iter().map(|(_, c)| *c).sum();
                    assert_eq!(in_cents(&got.posts_total_price), cents);
                    assert_eq!(got.posts_max, mine.iter().map(|(l, _)| *l).max());
                    assert_eq!(
                        got.posts_min.as_ref().map(in_cents),
                        mine.iter().map(|(_, c)| *c).min()
                    );
                    let avg = (!mine.is_empty()).then(|| likes as f64 / mine.len() as f64);
                    assert_eq!(got.posts_avg(), avg);
                }
            }
            for (feed, mine) in refs.iter().zip(&held) {
                let stored = buckets
                    .find(squillion::bson::doc! { "feed.id": feed.id })
                    .await
                    .unwrap();
                assert_eq!(stored.len(), mine.len().div_ceil(5), "buckets of 5");
                let likes: Vec<i32> = stored
                    .iter()
                    .flat_map(|b| b.posts.iter().map(|p| p.likes))
                    .collect();
                let want: Vec<i32> = mine.iter().map(|(l, _)| *l).collect();
                assert_eq!(likes, want, "the posts, in order");
            }
        });
    }

    /// Samples of a station in time buckets, appended one after another: the station's count,
    /// extremes, total and mean are those of every sample (the total added in the same order
    /// as the server adds it, so equal to the bit).
    #[test]
    fn owner_extremes_and_mean_of_time_buckets(levels in prop::collection::vec(-1.0e6f64..1.0e6, 1..30)) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("totals_bucket_station").await;
            ensure_all(&t.db).await.unwrap();
            let (stations, buckets) = (StationRepo::new(&t.db), StationSamplesBucketRepo::new(&t.db));
            let station = Station {
                id: ObjectId::new(),
                code: "s".into(),
                samples_count: 0,
                samples_max: None,
                samples_min: None,
                samples_total: 0.0,
            };
            stations.insert(&station).await.unwrap();
            for (k, level) in levels.iter().enumerate() {
                let sample = Sample {
                    at: DateTime::from_millis(1_800_000_000_000 + k as i64 * 1000),
                    level: *level,
                };
                buckets.append_samples(&station.id, &sample).await.unwrap();
            }
            let got = stations.get(&station.id).await.unwrap().expect("the station");
            assert_eq!(got.samples_count as usize, levels.len());
            let total = levels.iter().fold(0.0, |t, l| t + l);
            assert_eq!(got.samples_total, total);
            assert_eq!(got.samples_max, levels.iter().copied().reduce(f64::max));
            assert_eq!(got.samples_min, levels.iter().copied().reduce(f64::min));
            assert_eq!(got.samples_avg(), Some(total / levels.len() as f64));
        });
    }
}

/// Appends racing on one feed (40 at once): the feed counts and totals every one of them, and
/// the buckets hold them all, none over its size.
#[tokio::test]
async fn racing_appends_are_all_counted_by_the_owner() {
    let t = TestDb::new("totals_bucket_race").await;
    ensure_all(&t.db).await.unwrap();
    let (feeds, buckets) = (FeedRepo::new(&t.db), FeedPostsBucketRepo::new(&t.db));
    let feed = Feed {
        id: ObjectId::new(),
        name: "busy".into(),
        posts_count: 0,
        posts_total_likes: 0,
        posts_total_price: decimal(0),
        posts_max: None,
        posts_min: None,
    };
    feeds.insert(&feed).await.unwrap();
    let key = FeedRef {
        id: feed.id,
        name: feed.name.clone(),
    };
    let appends = (0..40).map(|k| {
        let (buckets, key) = (&buckets, &key);
        async move {
            let post = Post {
                at: DateTime::from_millis(1_800_000_000_000 + k * 1000),
                likes: k as i32,
                price: decimal(k * 100),
            };
            buckets.append_posts(key, &post).await
        }
    });
    for r in futures::future::join_all(appends).await {
        r.unwrap();
    }
    let got = feeds.get(&feed.id).await.unwrap().expect("the feed");
    assert_eq!(got.posts_count, 40);
    assert_eq!(got.posts_total_likes, (0..40).sum::<i64>());
    assert_eq!(
        in_cents(&got.posts_total_price),
        (0..40).map(|k| k * 100).sum::<i64>()
    );
    assert_eq!(
        (got.posts_max, got.posts_min.as_ref().map(in_cents)),
        (Some(39), Some(0))
    );
    let stored = buckets.find(squillion::bson::doc! {}).await.unwrap();
    assert!(stored.iter().all(|b| b.posts.len() <= 5));
    assert_eq!(stored.iter().map(|b| b.posts.len()).sum::<usize>(), 40);
}
