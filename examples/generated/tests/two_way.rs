//! Two-way references whose copies travel with them, through the generated code
//! (`examples/generated/schemas/two_way.sqn`): for each placement of the copies (the array side,
//! the other side, both) in a one-to-many and a many-to-many relation, random sequences of links,
//! moves to another parent, unlinks and renames of a copied field, checked after every step
//! against a model of the links: both sides agree, every copy equals its source, no array passes
//! its bound, and `load_<f>` reads the documents the array names.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test two_way`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, Document};
use squillion::mongodb::Database;
use squillion::Error;
use squillion_examples_generated::two_way::*;
use squillion_testkit::TestDb;

mod two_way_support;
use two_way_support::*;

/// What the model expects of `step`: `Ok(())`, or `Err(())` for a bound the link would pass
/// (nothing changes then). Applies it to the model.
fn expect(which: Which, model: &mut Model, step: &Step) -> Result<(), ()> {
    let rel = relation(which);
    match *step {
        Step::Link(l, r) => {
            if model.links.contains(&(l, r)) {
                return Ok(());
            }
            let left_full = rel.left.max.is_some_and(|m| model.of_left(l) >= m);
            let right_full = rel.right.max.is_some_and(|m| model.of_right(r) >= m);
            if left_full || right_full {
                return Err(());
            }
            if rel.right.max.is_none() {
                model.links.retain(|(_, y)| *y != r);
            }
            model.links.insert((l, r));
        }
        Step::Unlink(l, r) => {
            if !rel.required {
                model.links.remove(&(l, r));
            }
        }
        Step::RenameLeft(l, n) => model.lefts[l] = format!("name {n}"),
        Step::RenameRight(r, n) => model.rights[r] = format!("name {n}"),
    }
    Ok(())
}

/// The references `end` holds in `d`: the id each names and its copy, if it has one.
fn references(end: &End, d: &Document) -> Vec<(ObjectId, Option<Bson>)> {
    let one = |v: &Bson| -> (ObjectId, Option<Bson>) {
        match (end.key, v) {
            (Some(k), Bson::Document(r)) => {
                let id = r
                    .get_object_id(k)
                    .unwrap_or_else(|e| panic!("{r}: no id at {k}: {e}"));
                (id, end.copy.and_then(|(c, _)| r.get(c).cloned()))
            }
            (None, Bson::ObjectId(id)) => (*id, None),
            (_, other) => panic!(
                "{}.{}: unexpected reference {other}",
                end.collection, end.path
            ),
        }
    };
    match (end.max, d.get(end.path)) {
        (_, None | Some(Bson::Null)) => Vec::new(),
        (Some(_), Some(Bson::Array(items))) => items.iter().map(one).collect(),
        (None, Some(v)) => vec![one(v)],
        (Some(_), Some(other)) => panic!("{}.{}: not an array: {other}", end.collection, end.path),
    }
}

async fn stored(db: &Database, coll: &str, ids: &[ObjectId]) -> Vec<Document> {
    let mut out = Vec::new();
    for id in ids {
        let d = db
            .collection::<Document>(coll)
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{coll} {id} is gone"));
        out.push(d);
    }
    out
}

/// Both sides agree with the model, every copy equals its source, no bound is passed.
async fn check(which: Which, db: &Database, ids: &Ids, model: &Model, after: &Step) {
    let rel = relation(which);
    let lefts = stored(db, rel.left.collection, &ids.lefts).await;
    let rights = stored(db, rel.right.collection, &ids.rights).await;
    let index = |all: &[ObjectId], id: ObjectId| {
        all.iter()
            .position(|x| *x == id)
            .unwrap_or_else(|| panic!("{id} names no document"))
    };
    let mut seen_left = BTreeSet::new();
    for (l, d) in lefts.iter().enumerate() {
        let refs = references(&rel.left, d);
        if let Some(m) = rel.left.max {
            assert!(refs.len() <= m, "after {after:?}: {d} holds more than {m}");
        }
        for (id, copy) in &refs {
            let r = index(&ids.rights, *id);
            assert!(
                seen_left.insert((l, r)),
                "after {after:?}: {d} names {id} twice"
            );
            if let Some((_, source)) = rel.left.copy {
                assert_eq!(
                    copy.as_ref(),
                    Some(&Bson::String(model.rights[r].clone())),
                    "after {after:?}: the copy of {source} in {d}"
                );
            }
        }
        let in_order: Vec<ObjectId> = refs.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            loaded(which, db, ids, l).await,
            in_order,
            "after {after:?}: load of {d}"
        );
    }
    let mut seen_right = BTreeSet::new();
    for (r, d) in rights.iter().enumerate() {
        let refs = references(&rel.right, d);
        if let Some(m) = rel.right.max {
            assert!(refs.len() <= m, "after {after:?}: {d} holds more than {m}");
        }
        for (id, copy) in &refs {
            let l = index(&ids.lefts, *id);
            assert!(
                seen_right.insert((l, r)),
                "after {after:?}: {d} names {id} twice"
            );
            if let Some((_, source)) = rel.right.copy {
                assert_eq!(
                    copy.as_ref(),
                    Some(&Bson::String(model.lefts[l].clone())),
                    "after {after:?}: the copy of {source} in {d}"
                );
            }
        }
        assert_eq!(
            d.get_str(rel.right.source).ok(),
            Some(model.rights[r].as_str())
        );
    }
    assert_eq!(seen_left, model.links, "after {after:?}: the left side");
    assert_eq!(seen_right, model.links, "after {after:?}: the right side");
    for (l, d) in lefts.iter().enumerate() {
        assert_eq!(
            d.get_str(rel.left.source).ok(),
            Some(model.lefts[l].as_str())
        );
    }
}

async fn run(which: Which, steps: &[Step]) {
    let t = TestDb::new(&format!("two_way_{which:?}")).await;
    assert!(
        t.supports_transactions().await,
        "two_way links need transactions: run against a replica set (scripts/with-server.sh)"
    );
    ensure_all(&t.db).await.unwrap();
    let (ids, mut model) = setup(which, &t.db).await;
    check(which, &t.db, &ids, &model, &Step::Link(0, 0)).await;
    for step in steps {
        let wanted = expect(which, &mut model, step);
        let got = apply(which, &t.db, &ids, step).await;
        match (wanted, got) {
            (Ok(()), Ok(())) => {}
            (Err(()), Err(Error::BoundExceeded { .. })) => {}
            (wanted, got) => panic!("{which:?} {step:?}: expected {wanted:?}, got {got:?}"),
        }
        check(which, &t.db, &ids, &model, step).await;
    }
    t.cleanup().await;
}

fn block_on(f: impl std::future::Future<Output = ()>) {
    tokio::runtime::Runtime::new().unwrap().block_on(f);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn one_to_many_with_copies_on_the_array_side(steps in steps()) {
        block_on(run(Which::Ward, &steps));
    }

    #[test]
    fn one_to_many_with_copies_on_the_single_side(steps in steps()) {
        block_on(run(Which::Clinic, &steps));
    }

    #[test]
    fn one_to_many_with_copies_on_both_sides(steps in steps()) {
        block_on(run(Which::Team, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_the_first_side(steps in steps()) {
        block_on(run(Which::Student, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_the_second_side(steps in steps()) {
        block_on(run(Which::Reviewer, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_both_sides(steps in steps()) {
        block_on(run(Which::Member, &steps));
    }
}

/// Moving a doctor to another clinic takes it out of the first clinic's array and writes the new
/// clinic's name in its reference, in one transaction; a full clinic refuses it and nothing
/// changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_rewrites_the_copy_and_a_full_parent_refuses_it() {
    let t = TestDb::new("two_way_move").await;
    ensure_all(&t.db).await.unwrap();
    let (ids, _) = setup(Which::Clinic, &t.db).await;
    let doctors = DoctorRepo::new(&t.db);
    let clinics = ClinicRepo::new(&t.db);
    // Rights 0 and 3 are with clinic 0, 1 with clinic 1, 2 with clinic 2.
    clinics
        .link_doctors(&ids.lefts[1], &ids.rights[0])
        .await
        .unwrap();
    let moved = doctors.get(&ids.rights[0]).await.unwrap().unwrap();
    assert_eq!(
        moved.clinic,
        ClinicRef {
            id: ids.lefts[1],
            name: "left 1".into()
        }
    );
    let first = clinics.get(&ids.lefts[0]).await.unwrap().unwrap();
    assert_eq!(first.doctors.as_slice(), &[ids.rights[3]]);
    clinics
        .link_doctors(&ids.lefts[1], &ids.rights[2])
        .await
        .unwrap();
    // Clinic 1 holds 3 doctors now: its bound.
    let refused = clinics.link_doctors(&ids.lefts[1], &ids.rights[3]).await;
    assert!(
        matches!(refused, Err(Error::BoundExceeded { .. })),
        "{refused:?}"
    );
    let stays = doctors.get(&ids.rights[3]).await.unwrap().unwrap();
    assert_eq!(stays.clinic.id, ids.lefts[0]);
    clinics.set_name(&ids.lefts[1], "renamed").await.unwrap();
    for j in [0, 1, 2] {
        let d = doctors.get(&ids.rights[j]).await.unwrap().unwrap();
        assert_eq!(d.clinic.name, "renamed");
    }
    t.cleanup().await;
}

/// Eight writers linking players to teams (moves included) and renaming both sides at once:
/// afterwards each player is in the one team it names, each team lists exactly the players
/// naming it, within its bound, and every copy holds its source's last name (a link writes both
/// documents it copies from, so a racing rename and link conflict and one retries).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_links_and_renames_leave_both_sides_in_agreement_with_current_copies() {
    let t = TestDb::new("two_way_race").await;
    ensure_all(&t.db).await.unwrap();
    let (ids, _) = setup(Which::Team, &t.db).await;
    let ids = std::sync::Arc::new(ids);
    let mut writers = Vec::new();
    for w in 0..8u64 {
        let (db, ids) = (t.db.clone(), ids.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = squillion_testkit::Lcg(w * 7919 + 1);
            for _ in 0..12 {
                let (l, r) = (
                    rng.below(LEFTS as u64) as usize,
                    rng.below(RIGHTS as u64) as usize,
                );
                let n = rng.below(200) as u8;
                let step = match rng.below(4) {
                    0 => Step::RenameLeft(l, n),
                    1 => Step::RenameRight(r, n),
                    _ => Step::Link(l, r),
                };
                match apply(Which::Team, &db, &ids, &step).await {
                    Ok(()) | Err(Error::BoundExceeded { .. }) => {}
                    Err(e) => panic!("{step:?}: {e:?}"),
                }
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let teams = stored(&t.db, "teams", &ids.lefts).await;
    let players = stored(&t.db, "players", &ids.rights).await;
    let rel = relation(Which::Team);
    let name = |d: &Document| d.get_str("name").unwrap().to_owned();
    let mut from_teams = BTreeSet::new();
    for (l, d) in teams.iter().enumerate() {
        let refs = references(&rel.left, d);
        assert!(refs.len() <= 3, "{d}");
        for (id, copy) in refs {
            let r = ids.rights.iter().position(|x| *x == id).unwrap();
            assert!(from_teams.insert((l, r)), "{d} names {id} twice");
            assert_eq!(copy, Some(Bson::String(name(&players[r]))), "{d}");
        }
    }
    let mut from_players = BTreeSet::new();
    for (r, d) in players.iter().enumerate() {
        for (id, copy) in references(&rel.right, d) {
            let l = ids.lefts.iter().position(|x| *x == id).unwrap();
            from_players.insert((l, r));
            assert_eq!(copy, Some(Bson::String(name(&teams[l]))), "{d}");
        }
    }
    assert_eq!(from_teams, from_players);
    t.cleanup().await;
}
