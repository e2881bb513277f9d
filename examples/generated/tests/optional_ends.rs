//! Children that may have no parent (`one?`), on `examples/generated/schemas/optional_ends.sqn`,
//! against the server: players of a team referencing it (child_ref), tags listed by their shelf
//! (parent_refs), badges of a member (one-to-one, unique reference). Children are stored with
//! and without a parent; a child without one has no reference stored, the validator takes it,
//! `find_by_<parent>` and `count_by_<parent>` answer exactly the children of that parent (never
//! one without a parent), and several children without a parent coexist under a unique
//! reference index.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test optional_ends`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Document};
use squillion_examples_generated::optional_ends::{
    Badge, BadgeRepo, Player, PlayerRepo, Shelf, ShelfRepo, Tag, TagRepo, Team, TeamRepo,
};
use squillion_testkit::TestDb;

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// Random players, each in one of a few teams or in none: every team's pages hold exactly
    /// its players, and the players without a team are stored without `team`.
    #[test]
    fn find_by_the_optional_parent_answers_its_children_only(
        teams in 1usize..4,
        players in prop::collection::vec(prop::option::of(0usize..4), 0..16),
        per_page in 1u32..4,
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("optional_child_ref").await;
            let (team_repo, player_repo) = (TeamRepo::new(&t.db), PlayerRepo::new(&t.db));
            player_repo.ensure_validator().await.unwrap();
            player_repo.ensure_indexes().await.unwrap();
            let mut ids = Vec::new();
            for i in 0..teams {
                let team = Team { id: ObjectId::new(), name: format!("t{i}") };
                team_repo.insert(&team).await.unwrap();
                ids.push(team.id);
            }
            let mut stored = Vec::new();
            for (i, team) in players.iter().enumerate() {
                let p = Player {
                    id: ObjectId::new(),
                    nick: format!("p{i}"),
                    team: team.and_then(|k| ids.get(k).copied()),
                };
                player_repo.insert(&p).await.unwrap();
                stored.push(p);
            }
            let raw = t.db.collection::<Document>("players");
            for p in &stored {
                let d = raw.find_one(doc! { "_id": p.id }).await.unwrap().unwrap();
                assert_eq!(d.get_object_id("team").ok(), p.team, "{d}");
                assert_eq!(player_repo.get(&p.id).await.unwrap().as_ref(), Some(p));
            }
            for team in &ids {
                let want: BTreeSet<ObjectId> =
                    stored.iter().filter(|p| p.team == Some(*team)).map(|p| p.id).collect();
                let mut got = Vec::new();
                let mut after = None;
                loop {
                    let page = player_repo
                        .find_by_team(team, after.as_ref(), per_page)
                        .await
                        .unwrap();
                    got.extend(page.items.iter().map(|p| p.id));
                    match page.next {
                        Some(next) => after = Some(next),
                        None => break,
                    }
                }
                let set: BTreeSet<ObjectId> = got.iter().copied().collect();
                assert_eq!(set.len(), got.len(), "a page repeated a player");
                assert_eq!(set, want);
                assert_eq!(player_repo.count_by_team(team).await.unwrap(), want.len() as u64);
            }
            t.cleanup().await;
        });
    }
}

/// The validator takes a child with no parent (absent or null) and refuses a reference of the
/// wrong type.
#[tokio::test]
async fn the_validator_takes_a_missing_parent_and_refuses_a_wrong_one() {
    let t = TestDb::new("optional_validator").await;
    let repo = PlayerRepo::new(&t.db);
    repo.ensure_validator().await.unwrap();
    let raw = t.db.collection::<Document>("players");
    raw.insert_one(doc! { "_id": ObjectId::new(), "nick": "absent" })
        .await
        .unwrap();
    raw.insert_one(doc! { "_id": ObjectId::new(), "nick": "null", "team": null })
        .await
        .unwrap();
    let err = raw
        .insert_one(doc! { "_id": ObjectId::new(), "nick": "bad", "team": "t1" })
        .await
        .unwrap_err();
    assert!(squillion::Error::from(err).is_validation_failure());
    t.cleanup().await;
}

/// Badges without a member coexist under the unique index on `member` (which skips them), and
/// two badges of one member are still refused.
#[tokio::test]
async fn children_without_a_parent_coexist_under_a_unique_reference() {
    let t = TestDb::new("optional_unique").await;
    let repo = BadgeRepo::new(&t.db);
    repo.ensure_validator().await.unwrap();
    repo.ensure_indexes().await.unwrap();
    for i in 0..3 {
        let b = Badge {
            id: ObjectId::new(),
            title: format!("unowned {i}"),
            member: None,
        };
        repo.insert(&b).await.unwrap();
    }
    let member = ObjectId::new();
    let owned = |title: &str| Badge {
        id: ObjectId::new(),
        title: title.to_owned(),
        member: Some(member),
    };
    repo.insert(&owned("first")).await.unwrap();
    assert!(
        repo.insert(&owned("second")).await.is_err(),
        "a member holds one badge at most"
    );
    t.cleanup().await;
}

/// A tag on no shelf is a document of its own that no shelf lists; a shelf's tags load
/// through its id array.
#[tokio::test]
async fn a_tag_on_no_shelf_is_kept_on_its_own() {
    let t = TestDb::new("optional_parent_refs").await;
    let (shelves, tags) = (ShelfRepo::new(&t.db), TagRepo::new(&t.db));
    tags.ensure_validator().await.unwrap();
    shelves.ensure_validator().await.unwrap();
    let loose = Tag {
        id: ObjectId::new(),
        name: "loose".into(),
    };
    let kept = Tag {
        id: ObjectId::new(),
        name: "kept".into(),
    };
    tags.insert(&loose).await.unwrap();
    tags.insert(&kept).await.unwrap();
    let shelf = Shelf {
        id: ObjectId::new(),
        label: "s".into(),
        tags: vec![kept.id].try_into().unwrap(),
    };
    shelves.insert(&shelf).await.unwrap();
    assert_eq!(tags.get(&loose.id).await.unwrap(), Some(loose));
    assert_eq!(shelves.load_tags(&shelf).await.unwrap(), vec![kept]);
    t.cleanup().await;
}
