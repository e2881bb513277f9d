//! Issue 11 against the server: the child's end of a one-to-many two-way relation. Where the
//! child's reference is required (`one`), the parent's repository has no `unlink_` (it would
//! `$unset` the reference, which the validator refuses: code 121) and children move between
//! parents by `link_`; where it is optional (`one?`), `unlink_` takes it away and the validator
//! accepts the child. Random links and unlinks over several parents, every schema of the
//! `two_way_*` family, both sides and what the parent keeps checked after every step.

mod kept_support;

use std::future::Future;

use kept_support::{all, check_in, owner_doc_in, Lcg};
use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion_testkit::TestDb;

/// What `unlink_items` answers on a repository that has none.
struct NoUnlink;

/// `unlink_items` for repositories without one (the repository's own method, when it has one,
/// is found first).
trait Fallback {
    fn unlink_items(&self, _: &ObjectId, _: &ObjectId) -> NoUnlink {
        NoUnlink
    }
}
impl<T> Fallback for T {}

/// The answer of an unlink: `None` when the repository has no `unlink_items`.
trait Answer {
    fn answer(self) -> impl Future<Output = Option<squillion::Result<()>>>;
}
impl Answer for NoUnlink {
    async fn answer(self) -> Option<squillion::Result<()>> {
        None
    }
}
impl<F: Future<Output = squillion::Result<()>>> Answer for F {
    async fn answer(self) -> Option<squillion::Result<()>> {
        Some(self.await)
    }
}

/// Both sides agree: each owner lists exactly the items naming it.
async fn sides_agree(db: &Database, step: &str) {
    let items = all(db, "items").await.unwrap();
    for owner in all(db, "owners").await.unwrap() {
        let id = owner.get("_id").unwrap();
        let mut listed: Vec<Bson> = owner.get_array("items").unwrap().clone();
        let mut naming: Vec<Bson> = items
            .iter()
            .filter(|i| i.get("owner") == Some(id))
            .map(|i| i.get("_id").unwrap().clone())
            .collect();
        listed.sort_by_key(|b| b.to_string());
        naming.sort_by_key(|b| b.to_string());
        assert_eq!(
            listed, naming,
            "{step}: owner {id} lists other items than name it"
        );
    }
}

macro_rules! family {
    ($test:ident, $m:ident, $required:literal) => {
        #[tokio::test]
        async fn $test() {
            use squillion_correctness::$m as m;
            let t = TestDb::new(stringify!($test)).await;
            let db = &t.db;
            m::ensure_indexes(db).await.unwrap();
            m::ensure_validators(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let kept = m::SQN.contains("latest");
            let (owners, items) = (m::OwnerRepo::new(db), m::ItemRepo::new(db));
            let mut rng = Lcg(41 + m::SQN.len() as u64);
            let mut parents = Vec::new();
            for k in 0..3 {
                let mut d = if kept {
                    owner_doc_in(&plan, "owners", ObjectId::new(), k)
                } else {
                    doc! { "_id": ObjectId::new(), "title": format!("owner {k}") }
                };
                d.insert("items", Bson::Array(vec![]));
                let o: m::Owner = squillion::__private::bson::from_document(d).unwrap();
                owners.insert(&o).await.unwrap();
                parents.push(o.id);
            }
            let mut children = Vec::new();
            for k in 0..5 {
                let owner = parents[k % 3];
                let d = doc! {
                    "_id": ObjectId::new(),
                    "at": DateTime::from_millis(1_700_000_000_000 + rng.below(40) as i64 * 1000),
                    "n": rng.below(30) as i32 - 10,
                    "s": format!("s{k}"),
                    "owner": owner,
                };
                let i: m::Item = squillion::__private::bson::from_document(d).unwrap();
                items.insert(&i).await.unwrap();
                owners.link_items(&owner, &i.id).await.unwrap();
                children.push(i.id);
            }
            // Why a required end has no unlink: the validator refuses a child without it.
            if $required {
                let e = db
                    .collection::<Document>("items")
                    .update_one(
                        doc! { "_id": children[0] },
                        doc! { "$unset": { "owner": "" } },
                    )
                    .await
                    .expect_err("the validator refuses a child without its required owner");
                assert!(
                    e.to_string().contains("121") || e.to_string().contains("validation"),
                    "{e}"
                );
            }
            let mut unlinks = 0;
            for step in 0..40 {
                let (o, c) = (
                    parents[rng.below(3) as usize],
                    children[rng.below(5) as usize],
                );
                let what = if rng.below(3) == 0 {
                    match owners.unlink_items(&o, &c).answer().await {
                        None => {
                            assert!($required, "an optional end has `unlink_items`");
                            "no unlink_items"
                        }
                        Some(r) => {
                            assert!(!$required, "a required end has `unlink_items`");
                            r.unwrap();
                            unlinks += 1;
                            let child = items.get(&c).await.unwrap().expect("the child is stored");
                            let named = squillion::__private::bson::to_document(&child)
                                .unwrap()
                                .get("owner")
                                .cloned();
                            assert_ne!(named, Some(Bson::ObjectId(o)), "step {step}: unlinked");
                            "unlink_items"
                        }
                    }
                } else {
                    owners.link_items(&o, &c).await.unwrap();
                    "link_items"
                };
                let step = format!("{} step {step} ({what})", stringify!($m));
                sides_agree(db, &step).await;
                if kept {
                    check_in(db, &plan, "owners", "owner", &step).await;
                }
            }
            assert!($required || unlinks > 0, "the sequence unlinked nothing");
            t.cleanup().await;
        }
    };
}

family!(required_end_has_no_unlink, two_way_required, true);
family!(required_end_kept_has_no_unlink, two_way_required_kept, true);
family!(optional_end_unlinks, two_way_optional, false);
family!(optional_end_kept_unlinks, two_way_optional_kept, false);
