//! The outlier pattern's lists and summaries against the server
//! (`examples/generated/schemas/outliers.sqn`): most posts have a few replies, embedded (up to
//! 4), rare ones more, the rest in overflow documents. Random replies pushed to a few posts,
//! interleaved: every post keeps its latest 3 replies by date, its best 2 by votes, their count
//! and largest score, as a reference model computes them over all its replies, embedded or
//! overflowing; `all_replies` returns every reply, and the overflow flag is set exactly when a
//! post holds more than 4.
//!
//! Before, a `latest N` under the outlier pattern kept nothing (the Plan said the latest were
//! "already embedded", but the newest of a large post are in the overflow), and a `top N` was a
//! list only `offer_` wrote.
//!
//! The second half: a plainly embedded array (`Board.pins: few(8)`) whose board keeps its best 3
//! pins. Random pushes, removals, pulls by a condition and replacements of the array: after each,
//! the list holds the 3 best scores of the array as it is (a removed pin leaves it; before, the
//! list was written by `offer_` only and kept nothing).
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test outliers`.

use proptest::prelude::*;
use squillion::bson::{oid::ObjectId, DateTime};
use squillion_examples_generated::outliers::{Board, BoardRepo, Pin, Post, PostRepo, Reply};
use squillion_testkit::TestDb;

const POSTS: usize = 3;

async fn run(replies: Vec<(usize, i32)>) {
    let t = TestDb::new("outliers").await;
    let repo = PostRepo::new(&t.db);
    repo.ensure_indexes().await.unwrap();
    repo.ensure_validator().await.unwrap();
    let ids: Vec<ObjectId> = (0..POSTS).map(|_| ObjectId::new()).collect();
    for id in &ids {
        repo.insert(&Post {
            id: *id,
            title: "p".into(),
            replies: Vec::new(),
            replies_overflow: None,
            latest_replies: Default::default(),
            top_replies: Default::default(),
            replies_count: 0,
            replies_max: None,
        })
        .await
        .unwrap();
    }
    // The model: each post's replies. Dates are distinct (the k-th reply of the run), in a
    // shuffled order of arrival, so "latest" has one answer.
    let mut model: Vec<Vec<Reply>> = vec![Vec::new(); POSTS];
    let n = replies.len() as i64;
    for (k, (post, votes)) in replies.into_iter().enumerate() {
        // Arrival order is not date order: every third reply is dated before the others.
        let at = if k % 3 == 0 { k as i64 } else { n + k as i64 };
        let reply = Reply {
            at: DateTime::from_millis(1_800_000_000_000 + at * 1000),
            votes,
            text: format!("r{k}"),
        };
        repo.push_replies(&ids[post], &reply).await.unwrap();
        model[post].push(reply);
    }
    for (i, id) in ids.iter().enumerate() {
        let stored = repo.get(id).await.unwrap().unwrap();
        let all = &model[i];
        let what = format!("post {i} with {} replies", all.len());
        let mut by_date: Vec<DateTime> = all.iter().map(|r| r.at).collect();
        by_date.sort_by(|a, b| b.cmp(a));
        by_date.truncate(3);
        let latest: Vec<DateTime> = stored.latest_replies.iter().map(|r| r.at).collect();
        assert_eq!(latest, by_date, "latest 3 of {what}");
        let mut by_votes: Vec<i32> = all.iter().map(|r| r.votes).collect();
        by_votes.sort_by(|a, b| b.cmp(a));
        by_votes.truncate(2);
        let top: Vec<i32> = stored.top_replies.iter().map(|r| r.votes).collect();
        assert_eq!(top, by_votes, "top 2 of {what}");
        // Each kept copy is one of the post's replies (its text names it).
        for c in stored.top_replies.iter() {
            assert!(
                all.iter().any(|r| r.text == c.text && r.votes == c.votes),
                "{what}: {c:?} is no reply of it"
            );
        }
        assert_eq!(stored.replies_count as usize, all.len(), "count of {what}");
        assert_eq!(
            stored.replies_max,
            all.iter().map(|r| r.votes).max(),
            "max of {what}"
        );
        assert_eq!(
            stored.replies_overflow.unwrap_or(false),
            all.len() > 4,
            "{what}"
        );
        assert!(stored.replies.len() <= 4, "{what}");
        let every = repo.all_replies(id).await.unwrap();
        assert_eq!(every.len(), all.len(), "all_replies of {what}");
        let mut texts: Vec<&String> = every.iter().map(|r| &r.text).collect();
        let mut want: Vec<&String> = all.iter().map(|r| &r.text).collect();
        texts.sort();
        want.sort();
        assert_eq!(texts, want, "{what}");
    }
    t.db.drop().await.unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn an_outlying_parent_keeps_its_lists_and_summaries(
        replies in prop::collection::vec((0..POSTS, -5..50i32), 0..40),
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(run(replies));
    }
}

#[derive(Debug, Clone)]
enum PinOp {
    Push(i32),
    /// Removes the pin at this position of the model (modulo its length), by equality.
    Remove(usize),
    /// Pulls every pin scoring below this.
    PullBelow(i32),
    Set(Vec<i32>),
}

fn pin_op() -> impl Strategy<Value = PinOp> {
    prop_oneof![
        4 => (-3..20i32).prop_map(PinOp::Push),
        2 => (0..8usize).prop_map(PinOp::Remove),
        1 => (-3..20i32).prop_map(PinOp::PullBelow),
        1 => prop::collection::vec(-3..20i32, 0..8).prop_map(PinOp::Set),
    ]
}

async fn run_pins(ops: Vec<PinOp>) {
    let t = TestDb::new("outlier_pins").await;
    let repo = BoardRepo::new(&t.db);
    repo.ensure_validator().await.unwrap();
    let id = ObjectId::new();
    repo.insert(&Board {
        id,
        name: "b".into(),
        pins: Default::default(),
        top_pins: Default::default(),
        pins_count: 0,
    })
    .await
    .unwrap();
    let mut model: Vec<Pin> = Vec::new();
    let mut n = 0;
    for op in ops {
        let what = format!(
            "{op:?} on {:?}",
            model.iter().map(|p| p.score).collect::<Vec<_>>()
        );
        let mut pin = |score: i32| {
            n += 1;
            Pin {
                label: format!("p{n}"),
                score,
            }
        };
        match op {
            PinOp::Push(score) => {
                let p = pin(score);
                let r = repo.push_pins(&id, &p).await;
                if model.len() < 8 {
                    r.unwrap();
                    model.push(p);
                } else {
                    assert!(
                        matches!(r, Err(squillion::Error::BoundExceeded { .. })),
                        "{what}"
                    );
                }
            }
            PinOp::Remove(k) if !model.is_empty() => {
                let p = model.remove(k % model.len());
                assert!(repo.remove_pins(&id, &p).await.unwrap(), "{what}");
            }
            PinOp::Remove(_) => continue,
            PinOp::PullBelow(x) => {
                repo.pull_pins(&id, squillion::bson::doc! { "score": { "$lt": x } })
                    .await
                    .unwrap();
                model.retain(|p| p.score >= x);
            }
            PinOp::Set(scores) => {
                let pins: Vec<Pin> = scores.into_iter().map(&mut pin).collect();
                repo.set_pins(&id, &pins).await.unwrap();
                model = pins;
            }
        }
        let stored = repo.get(&id).await.unwrap().unwrap();
        let mut best: Vec<i32> = model.iter().map(|p| p.score).collect();
        best.sort_by(|a, b| b.cmp(a));
        best.truncate(3);
        let top: Vec<i32> = stored.top_pins.iter().map(|p| p.score).collect();
        assert_eq!(top, best, "{what}");
        for c in stored.top_pins.iter() {
            assert!(
                model
                    .iter()
                    .any(|p| p.label == c.label && p.score == c.score),
                "{what}: {c:?} is no pin of the board"
            );
        }
        assert_eq!(stored.pins_count as usize, model.len(), "{what}");
    }
    t.db.drop().await.unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn an_embedded_array_keeps_its_best_through_every_write(
        ops in prop::collection::vec(pin_op(), 1..30),
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(run_pins(ops));
    }
}
