//! Preallocated counters (`counters(minute_of_day)`, seed 002's histogram) against the server,
//! on `EventHistogram.minutes` of `examples/patterns.sqn`: `inc_minutes` from several tasks at
//! once, at random slots and amounts, against a reference model (no increment lost, every other
//! counter untouched); slots outside 24 x 60 and unknown ids refused with nothing written.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test histogram`.

use proptest::prelude::*;
use squillion::BoundedVec;
use squillion_examples_generated::patterns::{EventHistogram, EventHistogramRepo};
use squillion_testkit::TestDb;

type Minutes = BoundedVec<BoundedVec<i64, 60>, 24>;

fn flat(m: &Minutes) -> Vec<i64> {
    m.iter().flat_map(|h| h.iter().copied()).collect()
}

async fn run(tasks: Vec<Vec<(usize, usize, i64)>>, bad: Vec<(usize, usize)>) {
    let t = TestDb::new("histogram").await;
    let repo = EventHistogramRepo::new(&t.db);
    repo.ensure_validator().await.unwrap();
    let name = "clicks".to_string();
    repo.insert(&EventHistogram {
        name: name.clone(),
        minutes: BoundedVec::filled(BoundedVec::filled(0)),
    })
    .await
    .unwrap();
    let mut model = vec![0i64; 24 * 60];
    for task in &tasks {
        for (h, m, by) in task {
            model[h * 60 + m] += by;
        }
    }
    let handles: Vec<_> = tasks
        .into_iter()
        .map(|task| {
            let repo = EventHistogramRepo::new(&t.db);
            let name = name.clone();
            tokio::spawn(async move {
                for (h, m, by) in task {
                    repo.inc_minutes(&name, [h, m], by).await.unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    for (h, m) in bad {
        let e = repo.inc_minutes(&name, [h, m], 1).await.unwrap_err();
        assert!(
            matches!(e, squillion::Error::NoSuchSlot { .. }),
            "[{h}, {m}]: {e:?}"
        );
        assert!(e.to_string().contains("24 x 60"), "{e}");
    }
    let e = repo
        .inc_minutes(&"nobody".to_string(), [0, 0], 1)
        .await
        .unwrap_err();
    assert!(matches!(e, squillion::Error::NotFound { .. }), "{e:?}");
    let stored = repo.get(&name).await.unwrap().unwrap();
    assert_eq!(stored.minutes.len(), 24);
    assert!(stored.minutes.iter().all(|h| h.len() == 60));
    assert_eq!(flat(&stored.minutes), model);
    t.db.drop().await.unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn increments_land_on_their_slot_and_none_is_lost(
        tasks in prop::collection::vec(
            prop::collection::vec((0..24usize, 0..60usize, -3..20i64), 1..25),
            1..5,
        ),
        bad in prop::collection::vec(
            prop_oneof![
                (24..30usize, 0..60usize),
                (0..24usize, 60..70usize),
                (24..100usize, 60..100usize),
            ],
            1..4,
        ),
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(run(tasks, bad));
    }
}
