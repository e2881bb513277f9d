//! Queries that compare one field more than once, and fields declared `@ignore_case`, against
//! the server (`examples/generated/schemas/conditions.sqn`). Random visits and random parameters:
//! every query returns exactly the visits a reference model selects (in the declared order where
//! there is one), and its `count_` agrees.
//!
//! Two defects of one family are pinned here: a filter document holds a key once, so `at >= ?
//! and at < ?` was sent as `{at: {$lt}}` and the lower bound was dropped; and a field declared
//! `@ignore_case` was compared with case by queries that did not repeat `ignore_case`, though
//! its index (and the docs) compare without.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test conditions`.

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion_examples_generated::conditions::{Visit, VisitRepo};
use squillion_testkit::TestDb;

const NAMES: [&str; 8] = ["a", "ab", "abc", "Ab", "b", "ba", "bb", "c"];
const TAGS: [&str; 4] = ["red", "Red", "RED", "blue"];

fn visits() -> impl Strategy<Value = Vec<Visit>> {
    prop::collection::vec(
        (
            -4..12i32,
            0..4u8,
            0..NAMES.len(),
            0..TAGS.len(),
            any::<bool>(),
        ),
        0..40,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (at, score, name, tag, upper))| Visit {
                id: ObjectId::new(),
                at,
                score: f64::from(score) / 2.0,
                name: NAMES[name].to_owned(),
                // Distinct without regard to case: the unique index compares that way.
                email: if upper {
                    format!("U{i}@EXAMPLE.com")
                } else {
                    format!("u{i}@example.com")
                },
                tag: TAGS[tag].to_owned(),
            })
            .collect()
    })
}

#[derive(Debug, Clone)]
struct Params {
    at: [i32; 3],
    score: [u8; 2],
    name: (usize, usize),
    email: (usize, bool),
    tags: Vec<usize>,
}

fn params() -> impl Strategy<Value = Params> {
    (
        [-5..13i32, -5..13i32, -5..13i32],
        [0..4u8, 0..4u8],
        (0..NAMES.len(), 0..NAMES.len()),
        (0..45usize, any::<bool>()),
        prop::collection::vec(0..TAGS.len(), 0..3),
    )
        .prop_map(|(at, score, name, email, tags)| Params {
            at,
            score,
            name,
            email,
            tags,
        })
}

/// The ids of `found`, and of the model's selection in the same order (sorted by `key` then
/// `_id` when the query sorts, as sets when it does not).
fn check<K: Ord>(
    what: &str,
    found: Vec<Visit>,
    count: u64,
    all: &[Visit],
    keep: impl Fn(&Visit) -> bool,
    key: Option<&dyn Fn(&Visit) -> K>,
) {
    let mut want: Vec<&Visit> = all.iter().filter(|v| keep(v)).collect();
    let mut got: Vec<ObjectId> = found.iter().map(|v| v.id).collect();
    match key {
        Some(k) => want.sort_by(|a, b| k(a).cmp(&k(b)).then(a.id.cmp(&b.id))),
        None => {
            want.sort_by_key(|v| v.id);
            got.sort();
        }
    }
    let want: Vec<ObjectId> = want.iter().map(|v| v.id).collect();
    assert_eq!(got, want, "{what}");
    assert_eq!(count, want.len() as u64, "count of {what}");
}

async fn run(all: Vec<Visit>, ps: Vec<Params>) {
    let t = TestDb::new("conditions").await;
    let repo = VisitRepo::new(&t.db);
    repo.ensure_indexes().await.unwrap();
    repo.ensure_validator().await.unwrap();
    if !all.is_empty() {
        repo.insert_many(&all).await.unwrap();
    }
    for p in ps {
        let [a, b, c] = p.at;
        let (s0, s1) = (f64::from(p.score[0]) / 2.0, f64::from(p.score[1]) / 2.0);
        let what = |q: &str| format!("{q} with {p:?}");
        check(
            &what("window"),
            repo.window(&a, &b).await.unwrap(),
            repo.count_window(&a, &b).await.unwrap(),
            &all,
            |v| v.at >= a && v.at < b,
            Some(&|v: &Visit| v.at),
        );
        check(
            &what("open_window"),
            repo.open_window(&a, &b, &s0, &s1).await.unwrap(),
            repo.count_open_window(&a, &b, &s0, &s1).await.unwrap(),
            &all,
            |v| v.at > a && v.at <= b && v.score >= s0 && v.score < s1,
            // `sort at desc`, ties by `_id` ascending.
            Some(&|v: &Visit| std::cmp::Reverse(v.at)),
        );
        check(
            &what("excluding_two"),
            repo.excluding_two(&a, &b).await.unwrap(),
            repo.count_excluding_two(&a, &b).await.unwrap(),
            &all,
            |v| v.at != a && v.at != b,
            None::<&dyn Fn(&Visit) -> i32>,
        );
        check(
            &what("equal_but_not"),
            repo.equal_but_not(&a, &s0).await.unwrap(),
            repo.count_equal_but_not(&a, &s0).await.unwrap(),
            &all,
            |v| v.at == a && v.score != s0,
            None::<&dyn Fn(&Visit) -> i32>,
        );
        let (prefix, below) = (NAMES[p.name.0], NAMES[p.name.1]);
        check(
            &what("prefix_below"),
            repo.prefix_below(prefix, below).await.unwrap(),
            repo.count_prefix_below(prefix, below).await.unwrap(),
            &all,
            |v| v.name.starts_with(prefix) && v.name.as_str() < below,
            Some(&|v: &Visit| v.name.clone()),
        );
        let within = [a, b];
        check(
            &what("some_not"),
            repo.some_not(&within, &c).await.unwrap(),
            repo.count_some_not(&within, &c).await.unwrap(),
            &all,
            |v| within.contains(&v.at) && v.at != c,
            None::<&dyn Fn(&Visit) -> i32>,
        );
        check(
            &what("between_not"),
            repo.between_not(&a, &b, &c).await.unwrap(),
            repo.count_between_not(&a, &b, &c).await.unwrap(),
            &all,
            |v| v.at >= a && v.at <= b && v.at != c,
            None::<&dyn Fn(&Visit) -> i32>,
        );
        // `email` and `tag` are `@ignore_case`: compared without regard to case.
        let email = if p.email.1 {
            format!("U{}@example.COM", p.email.0)
        } else {
            format!("u{}@Example.com", p.email.0)
        };
        check(
            &what("by_email"),
            repo.by_email(&email).await.unwrap(),
            repo.count_by_email(&email).await.unwrap(),
            &all,
            |v| v.email.eq_ignore_ascii_case(&email),
            None::<&dyn Fn(&Visit) -> i32>,
        );
        let prefix = &TAGS[p.tags.first().copied().unwrap_or(0)][..2];
        check(
            &what("by_tag_prefix"),
            repo.by_tag_prefix(prefix).await.unwrap(),
            repo.count_by_tag_prefix(prefix).await.unwrap(),
            &all,
            |v| v.tag.to_lowercase().starts_with(&prefix.to_lowercase()),
            None::<&dyn Fn(&Visit) -> i32>,
        );
        let tags: Vec<String> = p.tags.iter().map(|i| TAGS[*i].to_owned()).collect();
        check(
            &what("by_tags"),
            repo.by_tags(&tags).await.unwrap(),
            repo.count_by_tags(&tags).await.unwrap(),
            &all,
            |v| tags.iter().any(|t| t.eq_ignore_ascii_case(&v.tag)),
            None::<&dyn Fn(&Visit) -> i32>,
        );
    }
    t.db.drop().await.unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_condition_holds_in_the_results(
        all in visits(),
        ps in prop::collection::vec(params(), 1..6),
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(run(all, ps));
    }
}
