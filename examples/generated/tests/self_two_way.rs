//! A two-way many-to-many of an entity with itself (`Gamer.follows <-> Gamer.followers`,
//! `examples/generated/schemas/two_way.sqn`): both arrays sit in one struct, and each is linked
//! by the derive, so a link or unlink made from either side writes both arrays, copies
//! included. Random sequences of links and unlinks (from either side), and renames of the copied
//! name, checked after every step against a model of the pairs: both arrays agree, no array
//! passes its bound (a link past it is refused and writes nothing), every copy equals its
//! source, and `load_<f>` of each side reads the documents its array names.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test self_two_way`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::Error;
use squillion_examples_generated::two_way::*;
use squillion_testkit::TestDb;

const GAMERS: usize = 5;
const BOUND: usize = 3;

#[derive(Debug, Clone)]
enum Step {
    /// `a` follows `b`, written from `a`'s side (`link_follows`) or `b`'s (`link_followers`).
    Link {
        a: usize,
        b: usize,
        from_followed: bool,
    },
    /// `a` stops following `b`, from either side.
    Unlink {
        a: usize,
        b: usize,
        from_followed: bool,
    },
    /// Gamer `a` is renamed (`set_name` fans out to the copies in `follows`).
    Rename { a: usize, name: u8 },
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let pair = (0..GAMERS, 0..GAMERS - 1).prop_map(|(a, b)| (a, if b >= a { b + 1 } else { b }));
    let step = prop_oneof![
        3 => (pair.clone(), any::<bool>()).prop_map(|((a, b), f)| Step::Link { a, b, from_followed: f }),
        1 => (pair, any::<bool>()).prop_map(|((a, b), f)| Step::Unlink { a, b, from_followed: f }),
        1 => (0..GAMERS, any::<u8>()).prop_map(|(a, name)| Step::Rename { a, name }),
    ];
    prop::collection::vec(step, 1..24)
}

/// The pairs `(follower, followed)` and the names.
struct Model {
    pairs: BTreeSet<(usize, usize)>,
    names: Vec<String>,
}

impl Model {
    /// `Ok` when the step is taken, `Err` when a bound refuses it (nothing changes).
    fn apply(&mut self, step: &Step) -> Result<(), ()> {
        match *step {
            Step::Link { a, b, .. } => {
                if self.pairs.contains(&(a, b)) {
                    return Ok(());
                }
                let follows = self.pairs.iter().filter(|p| p.0 == a).count();
                let followers = self.pairs.iter().filter(|p| p.1 == b).count();
                if follows >= BOUND || followers >= BOUND {
                    return Err(());
                }
                self.pairs.insert((a, b));
            }
            Step::Unlink { a, b, .. } => {
                self.pairs.remove(&(a, b));
            }
            Step::Rename { a, name } => self.names[a] = format!("gamer-{name}"),
        }
        Ok(())
    }
}

async fn apply(gamers: &GamerRepo, ids: &[ObjectId], step: &Step) -> squillion::Result<()> {
    match *step {
        Step::Link {
            a,
            b,
            from_followed: false,
        } => gamers.link_follows(&ids[a], &ids[b]).await.map(|_| ()),
        Step::Link {
            a,
            b,
            from_followed: true,
        } => gamers.link_followers(&ids[b], &ids[a]).await.map(|_| ()),
        Step::Unlink {
            a,
            b,
            from_followed: false,
        } => gamers.unlink_follows(&ids[a], &ids[b]).await.map(|_| ()),
        Step::Unlink {
            a,
            b,
            from_followed: true,
        } => gamers.unlink_followers(&ids[b], &ids[a]).await.map(|_| ()),
        Step::Rename { a, name } => gamers
            .set_name(&ids[a], &format!("gamer-{name}"))
            .await
            .map(|_| ()),
    }
}

async fn check(gamers: &GamerRepo, ids: &[ObjectId], model: &Model, after: &Step) {
    for (g, id) in ids.iter().enumerate() {
        let doc = gamers.get(id).await.unwrap().unwrap();
        let follows: BTreeSet<ObjectId> = doc.follows.iter().map(|r| r.id).collect();
        let want: BTreeSet<ObjectId> = model
            .pairs
            .iter()
            .filter(|p| p.0 == g)
            .map(|p| ids[p.1])
            .collect();
        assert_eq!(follows, want, "after {after:?}: follows of {g}");
        assert_eq!(
            doc.follows.len(),
            want.len(),
            "after {after:?}: {g} follows twice"
        );
        for r in doc.follows.iter() {
            let k = ids.iter().position(|i| *i == r.id).unwrap();
            assert_eq!(r.name, model.names[k], "after {after:?}: stale copy in {g}");
        }
        let followers: BTreeSet<ObjectId> = doc.followers.iter().copied().collect();
        let want: BTreeSet<ObjectId> = model
            .pairs
            .iter()
            .filter(|p| p.1 == g)
            .map(|p| ids[p.0])
            .collect();
        assert_eq!(followers, want, "after {after:?}: followers of {g}");
        assert_eq!(doc.followers.len(), want.len());
        let loaded: BTreeSet<ObjectId> = gamers
            .load_followers(&doc)
            .await
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect();
        assert_eq!(loaded, followers, "after {after:?}: load_followers of {g}");
        let loaded: BTreeSet<ObjectId> = gamers
            .load_follows(&doc)
            .await
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect();
        assert_eq!(loaded, follows, "after {after:?}: load_follows of {g}");
    }
}

async fn run(steps: &[Step]) {
    let t = TestDb::new("self_two_way").await;
    assert!(
        t.supports_transactions().await,
        "two_way links need transactions: run against a replica set (scripts/with-server.sh)"
    );
    ensure_all(&t.db).await.unwrap();
    let gamers = GamerRepo::new(&t.db);
    let mut model = Model {
        pairs: BTreeSet::new(),
        names: (0..GAMERS).map(|g| format!("start-{g}")).collect(),
    };
    let mut ids = Vec::new();
    for name in &model.names {
        let g = Gamer {
            id: ObjectId::new(),
            name: name.clone(),
            follows: Default::default(),
            followers: Default::default(),
        };
        gamers.insert(&g).await.unwrap();
        ids.push(g.id);
    }
    for step in steps {
        let wanted = model.apply(step);
        let got = apply(&gamers, &ids, step).await;
        match (wanted, got) {
            (Ok(()), Ok(())) => {}
            (Err(()), Err(Error::BoundExceeded { .. })) => {}
            (wanted, got) => panic!("{step:?}: expected {wanted:?}, got {got:?}"),
        }
        check(&gamers, &ids, &model, step).await;
    }
    t.cleanup().await;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn links_of_an_entity_with_itself_agree_from_either_side(steps in steps()) {
        tokio::runtime::Runtime::new().unwrap().block_on(run(&steps));
    }
}
