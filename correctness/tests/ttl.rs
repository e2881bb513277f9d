//! Defect 1 against the server: for an expiring child under every relation kind and cardinality
//! (`families::expiring`), the generated repositories' `ensure_indexes()` create the TTL index on
//! the child's own collection only, and the server's TTL monitor, run every second, deletes
//! expired children and never a parent, even a parent holding copies of expired children.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion_testkit::TestDb;

macro_rules! modules {
    ($($m:ident),* $(,)?) => {
        vec![$((stringify!($m), squillion_correctness::$m::PLAN_JSON, {
            fn ensure(db: &Database) -> futures::future::BoxFuture<'_, squillion::Result<()>> {
                Box::pin(squillion_correctness::$m::ensure_indexes(db))
            }
            ensure as fn(&Database) -> futures::future::BoxFuture<'_, squillion::Result<()>>
        })),*]
    };
}

type Ensure = fn(&Database) -> futures::future::BoxFuture<'_, squillion::Result<()>>;

fn all() -> Vec<(&'static str, &'static str, Ensure)> {
    modules![
        ttl_one_plain,
        ttl_one_both,
        ttl_few_plain,
        ttl_few_latest,
        ttl_few_top,
        ttl_few_both,
        ttl_many_plain,
        ttl_many_latest,
        ttl_many_top,
        ttl_many_both,
        ttl_squillions_plain,
        ttl_squillions_latest,
        ttl_squillions_top,
        ttl_squillions_both,
        ttl_few_few_plain,
        ttl_few_few_both,
        ttl_few_many_plain,
        ttl_few_many_both,
    ]
}

async fn indexes(db: &Database, coll: &str) -> Vec<Document> {
    let reply = db
        .run_command(doc! { "listIndexes": coll })
        .await
        .unwrap_or_default();
    reply
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .map(|b| b.iter().filter_map(|d| d.as_document().cloned()).collect())
        .unwrap_or_default()
}

async fn count(db: &Database, coll: &str) -> u64 {
    db.collection::<Document>(coll)
        .count_documents(doc! {})
        .await
        .unwrap()
}

/// The Plan's collections whose documents hold relationship fields: `(collection, field, is an
/// array of documents)`.
fn relation_arrays(plan: &Value, collection: &str) -> Vec<(String, bool)> {
    plan["collections"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"] == collection)
        .flat_map(|c| c["fields"].as_array().cloned().unwrap_or_default())
        .filter(|f| !f["relation"].is_null() && f["array_depth"].as_u64() == Some(1))
        .map(|f| {
            (
                f["name"].as_str().unwrap_or_default().to_owned(),
                f["bson_type"] == "object",
            )
        })
        .collect()
}

#[tokio::test]
async fn expiring_children_have_their_ttl_index_alone_and_never_delete_a_parent() {
    let t = TestDb::new("ttl_families").await;
    // Run the TTL monitor every second, not every minute.
    t.client
        .database("admin")
        .run_command(doc! { "setParameter": 1, "ttlMonitorSleepSecs": 1 })
        .await
        .expect("the server takes ttlMonitorSleepSecs");
    let modules = all();
    let names: Vec<&str> = modules.iter().map(|(n, _, _)| *n).collect();
    let expected: Vec<&str> = squillion_correctness::MODULES
        .iter()
        .copied()
        .filter(|m| m.starts_with("ttl_"))
        .collect();
    assert_eq!(names, expected, "every ttl_ module of the family is tested");

    let now = DateTime::now().timestamp_millis();
    let past = DateTime::from_millis(now - 3_600_000);
    let future = DateTime::from_millis(now + 3_600_000);
    let mut dbs = Vec::new();
    for (name, plan_json, ensure) in &modules {
        let db = t.client.database(&format!("{}_{name}", t.db.name()));
        db.drop().await.unwrap();
        ensure(&db).await.unwrap();
        let plan: Value = serde_json::from_str(plan_json).unwrap();
        let collections: Vec<String> = plan["collections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect();
        assert!(
            collections.contains(&"parts".to_owned()),
            "{name}: {collections:?}"
        );
        for c in &collections {
            for i in indexes(&db, c).await {
                if i.contains_key("expireAfterSeconds") {
                    assert_eq!(
                        (c.as_str(), i.get_document("key").unwrap()),
                        ("parts", &doc! { "exp": 1 }),
                        "{name}: TTL index {i} on `{c}`, not on the expiring Parts' own collection"
                    );
                }
            }
        }
        assert!(
            indexes(&db, "parts")
                .await
                .iter()
                .any(|i| i.contains_key("expireAfterSeconds")),
            "{name}: no TTL index on `parts`"
        );

        // Owners whose documents hold copies (or ids) of expired Parts, and Parts half expired.
        // One Part per Owner (one-to-one ends are unique), every other one expired.
        let owners: Vec<ObjectId> = (0..4).map(|_| ObjectId::new()).collect();
        let parts: Vec<Document> = owners
            .iter()
            .enumerate()
            .map(|(k, owner)| {
                doc! {
                    "_id": ObjectId::new(), "at": DateTime::from_millis(now), "n": k as i32,
                    "s": "p", "exp": if k % 2 == 0 { past } else { future }, "owner": *owner,
                }
            })
            .collect();
        let mut owner_docs = Vec::new();
        for owner in &owners {
            let mut d = doc! { "_id": *owner, "at": DateTime::from_millis(now), "n": 1, "s": "o" };
            for (field, documents) in relation_arrays(&plan, "owners") {
                let held: Vec<Bson> = parts
                    .iter()
                    .filter(|p| p.get_object_id("owner").ok() == Some(*owner))
                    .map(|p| {
                        if documents {
                            Bson::Document(p.clone())
                        } else {
                            p.get("_id").cloned().unwrap_or(Bson::Null)
                        }
                    })
                    .collect();
                d.insert(field, held);
            }
            owner_docs.push(d);
        }
        db.collection::<Document>("owners")
            .insert_many(owner_docs)
            .await
            .unwrap();
        db.collection::<Document>("parts")
            .insert_many(parts)
            .await
            .unwrap();
        dbs.push((name, db));
    }

    // The monitor deletes the expired Parts (2 per module)...
    let started = Instant::now();
    for (name, db) in &dbs {
        while count(db, "parts").await > 2 {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{name}: the TTL monitor deleted no expired Part in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // ...one more pass, then nothing else may be gone.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    for (name, db) in &dbs {
        let left: Vec<Document> = db
            .collection::<Document>("parts")
            .find(doc! {})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(left.len(), 2, "{name}: {left:?}");
        assert!(
            left.iter()
                .all(|p| p.get_datetime("exp").ok() == Some(&future)),
            "{name}: a Part that has not expired was deleted"
        );
        assert_eq!(
            count(db, "owners").await,
            4,
            "{name}: expiring Parts deleted an Owner"
        );
        db.drop().await.unwrap();
    }
    t.cleanup().await;
}
