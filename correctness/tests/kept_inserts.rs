//! Issue 11 against the server: a parent inserted after its children (through its repository's
//! `insert` or `insert_many`) holds what the children already stored give, whatever lists and
//! summaries the caller passed; a parent with no children holds what no children give (empty
//! lists, counts and totals 0), and one already holding that costs no update. Every schema of the
//! `kept_*` families (layouts x summaries x lists, extended references, two-way, two parents).

mod kept_support;

use kept_support::{check_in, counting, kept_in, owner_doc_in, Lcg};
use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};

/// A new parent of `parents` as a caller might pass it: the counts and totals wrong (99), the
/// lists empty, `extra`'s fields added.
fn stale_parent(plan: &Value, parents: &str, id: ObjectId, k: usize, extra: &Document) -> Document {
    let mut d = owner_doc_in(plan, parents, id, k);
    for (path, f, _) in kept_in(plan, parents).1 {
        if f == "count" {
            d.insert(path, 99);
        } else if f == "total" {
            // A total of int32 values is stored as an int64.
            d.insert(path, 99_i64);
        }
    }
    d.extend(extra.clone());
    d
}

macro_rules! family {
    ($test:ident, $m:ident, $parents:literal, $Parent:ident, $Repo:ident, $key:literal) => {
        #[tokio::test]
        async fn $test() {
            use squillion_correctness::$m as m;
            let (db, updates) = counting(stringify!($test)).await;
            let db = &db;
            m::ensure_indexes(db).await.unwrap();
            m::ensure_validators(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = m::SQN.contains("show Owner.title");
            let two_parents = m::SQN.contains("entity Other");
            // The two-way side's array of ids (the test is about what the parent keeps).
            let extra = if m::SQN.contains("force two_way") {
                doc! { "items": [] }
            } else {
                Document::new()
            };
            let mut rng = Lcg(31 + m::SQN.len() as u64);
            // Parents 0 to 2 get children before they are stored; 3 and 4 none.
            let owners: Vec<ObjectId> = (0..5).map(|_| ObjectId::new()).collect();
            let others: Vec<ObjectId> = (0..5).map(|_| ObjectId::new()).collect();
            let item = |rng: &mut Lcg| {
                let k = rng.below(3) as usize;
                let owner = if extended {
                    Bson::Document(doc! { "id": owners[k], "title": format!("owner {k}") })
                } else {
                    Bson::ObjectId(owners[k])
                };
                let mut d = doc! {
                    "_id": ObjectId::new(),
                    "at": DateTime::from_millis(1_700_000_000_000 + rng.below(40) as i64 * 1000),
                    "n": rng.below(30) as i32 - 10,
                    "s": format!("s{}", rng.below(20)),
                    "owner": owner,
                };
                if two_parents {
                    d.insert("other", others[rng.below(3) as usize]);
                }
                squillion::__private::bson::from_document::<m::Item>(d).unwrap()
            };
            let items = m::ItemRepo::new(db);
            let ids = if $parents == "others" {
                &others
            } else {
                &owners
            };
            let parent = |k: usize| -> m::$Parent {
                let d = stale_parent(&plan, $parents, ids[k], k, &extra);
                squillion::__private::bson::from_document(d).unwrap()
            };
            let repo = m::$Repo::new(db);
            if extended {
                // A child copying its parent's title cannot come before it (the copy is taken
                // from the parent): refused, nothing written. The parents come first, with the
                // caller's stale values, which their children's inserts then correct.
                match items.insert(&item(&mut rng)).await {
                    Err(squillion::Error::MissingReference { .. }) => {}
                    other => panic!("a child copying a parent not stored yet: {other:?}"),
                }
                assert_eq!(items.count(doc! {}).await.unwrap(), 0, "nothing written");
                repo.insert(&parent(0)).await.unwrap();
                repo.insert_many(&[parent(1), parent(2), parent(3)])
                    .await
                    .unwrap();
            }
            let batch: Vec<m::Item> = (0..9).map(|_| item(&mut rng)).collect();
            items.insert_many(&batch).await.unwrap();
            for _ in 0..4 {
                items.insert(&item(&mut rng)).await.unwrap();
            }
            if !extended {
                // One through `insert`, three through `insert_many` (one of them childless).
                repo.insert(&parent(0)).await.unwrap();
                repo.insert_many(&[parent(1), parent(2), parent(3)])
                    .await
                    .unwrap();
            }
            check_in(
                db,
                &plan,
                $parents,
                $key,
                "parents inserted after their children",
            )
            .await;
            // A childless parent already holding what no children give: no update.
            let mut rest = owner_doc_in(&plan, $parents, ids[4], 4);
            rest.extend(extra.clone());
            updates.take();
            repo.insert(&squillion::__private::bson::from_document(rest).unwrap())
                .await
                .unwrap();
            if $parents == "owners" {
                assert_eq!(
                    updates.take(),
                    0,
                    "a childless parent at rest is inserted, not updated"
                );
            }
            check_in(db, &plan, $parents, $key, "a childless parent at rest").await;
            // Children written after: the parents inserted late keep them in step as any other.
            for _ in 0..5 {
                items.insert(&item(&mut rng)).await.unwrap();
            }
            check_in(
                db,
                &plan,
                $parents,
                $key,
                "children inserted after their parents",
            )
            .await;
            db.drop().await.unwrap();
        }
    };
}

family!(
    counts_parent_inserted_last,
    kept_counts,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    extremes_parent_inserted_last,
    kept_extremes,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    extended_parent_inserted_last,
    kept_extended,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    latest_parent_inserted_last,
    kept_latest,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    top_parent_inserted_last,
    kept_top,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    two_way_parent_inserted_last,
    kept_two_way,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    copied_parent_inserted_last,
    kept_copied,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    first_of_two_parents_inserted_last,
    kept_two_parents,
    "owners",
    Owner,
    OwnerRepo,
    "owner"
);
family!(
    second_of_two_parents_inserted_last,
    kept_two_parents,
    "others",
    Other,
    OtherRepo,
    "other"
);
