//! Issue 11 against the server: the summaries a parent keeps of children living in their own
//! collection (no array beside them), and the subsets and top-N lists refilled from that
//! collection, stay equal to what the children's collection gives after every write of the
//! children's *own* repository: insert, insert_many, replace (moving the child to another owner
//! or not), delete, `set_<f>` and `inc_<f>` of a field a summary or a list reads. Random
//! sequences, several owners, every schema of the `kept_*` family (layouts x summary kinds).

mod kept_support;

use kept_support::{check, counting, owner_doc, Lcg};
use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion_testkit::TestDb;

macro_rules! family {
    ($test:ident, $m:ident) => {
        #[tokio::test]
        async fn $test() {
            use squillion_correctness::$m as m;
            let t = TestDb::new(stringify!($test)).await;
            let db = &t.db;
            m::ensure_indexes(db).await.unwrap();
            m::ensure_validators(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = m::SQN.contains("show Owner.title");
            let owners: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
            for (k, id) in owners.iter().enumerate() {
                db.collection::<Document>("owners")
                    .insert_one(owner_doc(&plan, *id, k))
                    .await
                    .unwrap();
            }
            let items = m::ItemRepo::new(db);
            let mut rng = Lcg(17 + m::SQN.len() as u64);
            let mut children: Vec<ObjectId> = Vec::new();
            let make = |id: ObjectId, rng: &mut Lcg| -> m::Item {
                let k = rng.below(3) as usize;
                let owner = if extended {
                    Bson::Document(doc! { "id": owners[k], "title": format!("owner {k}") })
                } else {
                    Bson::ObjectId(owners[k])
                };
                let d = doc! {
                    "_id": id,
                    "at": DateTime::from_millis(1_700_000_000_000 + rng.below(40) as i64 * 1000),
                    "n": rng.below(30) as i32 - 10,
                    "s": format!("s{}", rng.below(20)),
                    "owner": owner,
                };
                squillion::__private::bson::from_document(d).unwrap()
            };
            for step in 0..90 {
                let pick = |rng: &mut Lcg, children: &[ObjectId]| {
                    children[rng.below(children.len() as u64) as usize]
                };
                let what = match rng.below(9) {
                    0 | 1 => {
                        let id = ObjectId::new();
                        items.insert(&make(id, &mut rng)).await.unwrap();
                        children.push(id);
                        "insert"
                    }
                    2 => {
                        let batch: Vec<m::Item> =
                            (0..3).map(|_| make(ObjectId::new(), &mut rng)).collect();
                        items.insert_many(&batch).await.unwrap();
                        children.extend(batch.iter().map(|i| i.id));
                        "insert_many"
                    }
                    3 if !children.is_empty() => {
                        // A new owner one time in three: the child moves.
                        let id = pick(&mut rng, &children);
                        assert!(items.replace(&make(id, &mut rng)).await.unwrap());
                        "replace"
                    }
                    4 if !children.is_empty() => {
                        let k = rng.below(children.len() as u64) as usize;
                        let id = children.remove(k);
                        assert!(items.delete(&id).await.unwrap());
                        assert!(!items.delete(&id).await.unwrap(), "deleted twice");
                        "delete"
                    }
                    5 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        items
                            .set_n(&id, &(rng.below(40) as i32 - 15))
                            .await
                            .unwrap();
                        "set_n"
                    }
                    6 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        items.inc_n(&id, rng.below(9) as i32 - 4).await.unwrap();
                        "inc_n"
                    }
                    7 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        let at =
                            DateTime::from_millis(1_700_000_000_000 + rng.below(40) as i64 * 1000);
                        items.set_at(&id, &at).await.unwrap();
                        "set_at"
                    }
                    // The owner replaced with lists and summaries of no children: they are
                    // refilled from the children, not taken from the caller.
                    8 => {
                        let k = rng.below(owners.len() as u64) as usize;
                        let fresh = owner_doc(&plan, owners[k], k);
                        let owner: m::Owner =
                            squillion::__private::bson::from_document(fresh).unwrap();
                        assert!(m::OwnerRepo::new(db).replace(&owner).await.unwrap());
                        "Owner.replace"
                    }
                    _ => continue,
                };
                check(
                    db,
                    &plan,
                    &format!("{} step {step} ({what})", stringify!($m)),
                )
                .await;
            }
            t.cleanup().await;
        }
    };
}

family!(counts_follow_the_childrens_writes, kept_counts);
family!(extremes_follow_the_childrens_writes, kept_extremes);
family!(
    extended_references_follow_the_childrens_writes,
    kept_extended
);
family!(latest_follows_the_childrens_writes, kept_latest);
family!(top_follows_the_childrens_writes, kept_top);

/// A bulk insert of many children, then the parent's own push of one more: with and without
/// a transaction, every kept family. The bulk insert writes each parent once, whatever the number
/// of its children (one update per child made inventory's 5,160-message insert outlive the
/// server's transaction limit: "transaction already closed"), and the pushes that follow it keep
/// every list and summary equal to what the children give.
macro_rules! bulk {
    ($test:ident, $m:ident) => {
        #[tokio::test]
        async fn $test() {
            use squillion::__private::{kept, subsets};
            use squillion::Document as _;
            use squillion_correctness::$m as m;
            let (db, updates) = counting(stringify!($test)).await;
            let db = &db;
            m::ensure_indexes(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = m::SQN.contains("show Owner.title");
            let key = if extended { "owner.id" } else { "owner" };
            let mut keepers = Vec::new();
            kept::keepers("owners", m::Owner::KEEPS, "items", key, &mut keepers);
            assert_eq!(keepers.len(), 1, "Owner keeps one kind of the items");
            let spec = keepers[0].spec;
            let (owners_c, items_c) = (
                db.collection::<Document>("owners"),
                db.collection::<Document>("items"),
            );
            let mut rng = Lcg(5 + m::SQN.len() as u64);
            for transactions in [true, false] {
                let owners: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
                for (k, id) in owners.iter().enumerate() {
                    owners_c.insert_one(owner_doc(&plan, *id, k)).await.unwrap();
                }
                let item = |k: usize, rng: &mut Lcg| {
                    let owner = if extended {
                        Bson::Document(doc! { "id": owners[k], "title": format!("owner {k}") })
                    } else {
                        Bson::ObjectId(owners[k])
                    };
                    doc! {
                        "_id": ObjectId::new(),
                        "at": DateTime::from_millis(1_700_000_000_000 + rng.below(400) as i64 * 1000),
                        "n": rng.below(300) as i32 - 100,
                        "s": format!("s{}", rng.below(200)),
                        "owner": owner,
                    }
                };
                let step = format!("{} transactions {transactions}", stringify!($m));
                // 200 children of owner 0, 40 of owner 1, one of owner 2, interleaved.
                let batch: Vec<Document> = (0..241)
                    .map(|i| item(if i == 120 { 2 } else if i % 6 == 1 { 1 } else { 0 }, &mut rng))
                    .collect();
                updates.take();
                kept::insert(&items_c, transactions, &keepers, &[], batch).await.unwrap();
                let written = updates.take();
                assert!(
                    written <= owners.len(),
                    "{step}: a bulk insert of 241 children of 3 owners updated `owners` {written} times"
                );
                check(db, &plan, &format!("{step}: after the bulk insert")).await;
                for p in 0..6 {
                    let k = p % owners.len();
                    let child = item(k, &mut rng);
                    subsets::push(&owners_c, transactions, Bson::ObjectId(owners[k]), spec, &keepers, child)
                        .await
                        .unwrap();
                    check(db, &plan, &format!("{step}: after the owner's push {p}")).await;
                }
                owners_c.delete_many(doc! {}).await.unwrap();
                items_c.delete_many(doc! {}).await.unwrap();
            }
            db.drop().await.unwrap();
        }
    };
}

bulk!(counts_bulk_then_push, kept_counts);
bulk!(extremes_bulk_then_push, kept_extremes);
bulk!(extended_bulk_then_push, kept_extended);
bulk!(latest_bulk_then_push, kept_latest);
bulk!(top_bulk_then_push, kept_top);
