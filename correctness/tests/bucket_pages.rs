//! Issue 11 against the server: a bucket decided for paging (`families::bucket_pages`: a date, an
//! int32 or a string key; ascending or descending; buckets of 2 to 5; with and without a
//! time-range read for the date and int32 keys) keeps the promise the Plan and docs/derive.md state. Children appended in a
//! random order (keys drawn from a small range, so they tie) are read back a bucket at a time
//! (`comments_bucket(k)`) and a page of buckets at a time (`comments_buckets`), and must equal a
//! reference model of that promise: buckets fill in arrival order, each bucket's children sorted
//! by the declared key in the declared direction, the buckets in creation order (by their
//! smallest key, then creation, with a time range), newest first for `desc`. Children appended
//! in key order come back in key order across every page.

use std::cmp::Ordering;

use squillion::bson::oid::ObjectId;
use squillion::PageRequest;
use squillion_testkit::{Lcg, TestDb};

/// One bucket of the reference: the children (key, body) in the order a page shows them.
type Bucket<K> = Vec<(K, String)>;

/// The promise: `appended` (in arrival order) fills buckets of `size` one after another; each
/// bucket's children are sorted by key (descending for `desc`); the buckets come in creation
/// order, or by their smallest key then creation with a time range, reversed for `desc`.
fn reference<K: Ord + Clone>(
    appended: &[(K, String)],
    size: usize,
    desc: bool,
    by_start: bool,
) -> Vec<Bucket<K>> {
    let mut buckets: Vec<(usize, Bucket<K>)> = appended
        .chunks(size)
        .enumerate()
        .map(|(created, chunk)| {
            let mut items = chunk.to_vec();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            (created, items)
        })
        .collect();
    buckets.sort_by(|(ca, a), (cb, b)| {
        let by_key = if by_start {
            a.first().map(|x| &x.0).cmp(&b.first().map(|x| &x.0))
        } else {
            Ordering::Equal
        };
        by_key.then(ca.cmp(cb))
    });
    if desc {
        buckets.reverse();
    }
    buckets
        .into_iter()
        .map(|(_, mut items)| {
            if desc {
                items.reverse();
            }
            items
        })
        .collect()
}

/// A page as the test compares it: the keys in order (ties may come in any order), and the
/// children as a set.
fn shape<K: Ord + Clone>(items: &[(K, String)]) -> (Vec<K>, Vec<(K, String)>) {
    let mut set = items.to_vec();
    set.sort();
    (items.iter().map(|x| x.0.clone()).collect(), set)
}

macro_rules! check {
    ($m:ident, $desc:expr, $range:expr, |$v:ident| $key:expr) => {{
        use squillion_correctness::$m as m;
        let module = stringify!($m);
        let plan: serde_json::Value = serde_json::from_str(m::PLAN_JSON).expect("the Plan");
        let bucket = plan["relationships"]
            .as_array()
            .expect("relationships")
            .iter()
            .find_map(|d| d.get("bucket").filter(|b| !b.is_null()))
            .unwrap_or_else(|| panic!("{module}: the Plan decides no bucket: {}", m::PLAN_JSON));
        let size = bucket["size"].as_u64().expect("bucket size") as usize;
        assert_eq!(bucket["order_by"], "created", "{module}");
        assert_eq!(bucket["time_range"].is_object(), $range, "{module}");
        let t = TestDb::new(module).await;
        let db = &t.db;
        m::ensure_indexes(db).await.expect("indexes");
        m::ensure_validators(db).await.expect("validators");
        let repo = m::TicketCommentsBucketRepo::new(db);
        let mut r = Lcg(module.len() as u64 * 7919);
        for trial in 0..8 {
            let ticket = ObjectId::new();
            let n = r.below(4 * size as u64 + 2) as usize;
            let span = 1 + r.below(3 * n as u64 + 1);
            let mut appended: Vec<(_, String)> = (0..n)
                .map(|i| {
                    let $v = r.below(span) as i64;
                    ($key, format!("c{i}"))
                })
                .collect();
            // Trial 0 appends in key order (as `created = now` does); the others at random.
            if trial == 0 {
                appended.sort();
            } else {
                r.shuffle(&mut appended);
            }
            for (key, body) in &appended {
                let comment = m::Comment {
                    created: key.clone(),
                    body: body.clone(),
                };
                repo.append_comments(&ticket, &comment)
                    .await
                    .expect("append");
            }
            let want = reference(&appended, size, $desc, $range);
            let items = |b: &m::TicketCommentsBucket| -> Vec<(_, String)> {
                b.comments
                    .iter()
                    .map(|c| (c.created.clone(), c.body.clone()))
                    .collect()
            };
            let mut read = Vec::new();
            for k in 0..=want.len() {
                let page = repo
                    .comments_bucket(&ticket, k as u64)
                    .await
                    .expect("comments_bucket");
                match page {
                    Some(b) => read.push(items(&b)),
                    None => break,
                }
            }
            let shapes = |pages: &[Bucket<_>]| pages.iter().map(|p| shape(p)).collect::<Vec<_>>();
            assert_eq!(
                shapes(&read),
                shapes(&want),
                "{module} trial {trial}: appended {appended:?}"
            );
            if trial == 0 {
                let mut all: Vec<_> = appended.iter().map(|x| x.0.clone()).collect();
                if $desc {
                    all.reverse();
                }
                let keys: Vec<_> = read.iter().flatten().map(|x| x.0.clone()).collect();
                assert_eq!(
                    keys, all,
                    "{module}: appended in key order, read across pages"
                );
            }
            let per_page = 1 + r.below(3);
            let mut paged = Vec::new();
            let mut request = Some(PageRequest::new(0, per_page));
            while let Some(q) = request {
                let page = repo
                    .comments_buckets(&ticket, q)
                    .await
                    .expect("comments_buckets");
                paged.extend(page.items.iter().map(|b| items(b)));
                request = page.next();
            }
            assert_eq!(
                shapes(&paged),
                shapes(&want),
                "{module} trial {trial}: pages of {per_page} buckets"
            );
        }
        t.cleanup().await;
    }};
}

fn date(v: i64) -> squillion::bson::DateTime {
    squillion::bson::DateTime::from_millis(1_700_000_000_000 + v * 60_000)
}

#[tokio::test]
async fn bucket_pages_come_in_the_promised_order() {
    check!(bucket_pages_date_asc, false, false, |v| date(v));
    check!(bucket_pages_date_asc_range, false, true, |v| date(v));
    check!(bucket_pages_date_desc, true, false, |v| date(v));
    check!(bucket_pages_date_desc_range, true, true, |v| date(v));
    check!(bucket_pages_int32_asc, false, false, |v| v as i32);
    check!(bucket_pages_int32_asc_range, false, true, |v| v as i32);
    check!(bucket_pages_int32_desc, true, false, |v| v as i32);
    check!(bucket_pages_int32_desc_range, true, true, |v| v as i32);
    // Not zero-padded: "k10" sorts before "k9", as the server compares strings.
    check!(bucket_pages_string_asc, false, false, |v| format!("k{v}"));
    check!(bucket_pages_string_desc, true, false, |v| format!("k{v}"));
}
