//! The server the tests use does what squillion relies on: checked against the real process.

use bson::{doc, Document};
use futures::TryStreamExt;
use mongodb::options::{Collation, CollationStrength, IndexOptions};
use mongodb::IndexModel;
use squillion_testkit::TestDb;

#[tokio::test]
async fn crud_unique_index_and_validator_code_121() {
    let t = TestDb::new("smoke_crud").await;
    let books = t.db.collection::<Document>("books");
    books
        .create_index(
            IndexModel::builder()
                .keys(doc! { "isbn": 1 })
                .options(IndexOptions::builder().unique(true).build())
                .build(),
        )
        .await
        .unwrap();
    let id = books
        .insert_one(doc! { "isbn": "1", "title": "Gatsby" })
        .await
        .unwrap()
        .inserted_id;
    let found = books.find_one(doc! { "_id": id }).await.unwrap().unwrap();
    assert_eq!(found.get_str("title").unwrap(), "Gatsby");
    assert!(
        books.insert_one(doc! { "isbn": "1" }).await.is_err(),
        "unique index refuses a duplicate"
    );

    t.db.create_collection("checked")
        .validator(doc! { "$jsonSchema": { "bsonType": "object", "required": ["n"], "properties": { "n": { "bsonType": "int" } } } })
        .await
        .unwrap();
    let err =
        t.db.collection::<Document>("checked")
            .insert_one(doc! { "n": "x" })
            .await
            .unwrap_err();
    assert!(
        err.to_string().contains("121"),
        "validation failure is code 121: {err}"
    );
    t.cleanup().await;
}

#[tokio::test]
async fn guarded_bucket_upserts_and_sliced_pushes() {
    let t = TestDb::new("smoke_bucket").await;
    let buckets = t.db.collection::<Document>("buckets");
    for v in 0..5 {
        buckets
            .update_one(
                doc! { "sensor": 1, "count": { "$lt": 2 } },
                doc! { "$push": { "readings": v }, "$inc": { "count": 1 } },
            )
            .upsert(true)
            .await
            .unwrap();
    }
    let all: Vec<Document> = buckets
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 3, "5 readings in buckets of 2");
    assert!(all.iter().all(|b| b.get_i32("count").unwrap() <= 2));

    let hosts = t.db.collection::<Document>("hosts");
    hosts
        .insert_one(doc! { "_id": 1, "latest": [] })
        .await
        .unwrap();
    for n in 0..10 {
        hosts
            .update_one(doc! { "_id": 1 }, doc! { "$push": { "latest": { "$each": [{ "t": n }], "$sort": { "t": 1 }, "$slice": -3 } } })
            .await
            .unwrap();
    }
    let host = hosts.find_one(doc! { "_id": 1 }).await.unwrap().unwrap();
    let latest: Vec<i32> = host
        .get_array("latest")
        .unwrap()
        .iter()
        .map(|d| d.as_document().unwrap().get_i32("t").unwrap())
        .collect();
    assert_eq!(latest, vec![7, 8, 9]);
    t.cleanup().await;
}

#[tokio::test]
async fn transactions_commit_and_abort() {
    let t = TestDb::new("smoke_txn").await;
    assert!(
        t.supports_transactions().await,
        "the test server presents itself as a replica set"
    );
    let coll = t.db.collection::<Document>("pairs");
    coll.insert_one(doc! { "seed": true }).await.unwrap();
    let mut session = t.client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    coll.insert_one(doc! { "a": 1 })
        .session(&mut session)
        .await
        .unwrap();
    session.abort_transaction().await.unwrap();
    assert_eq!(
        coll.count_documents(doc! { "a": 1 }).await.unwrap(),
        0,
        "aborted: nothing left"
    );
    session.start_transaction().await.unwrap();
    coll.insert_one(doc! { "a": 2 })
        .session(&mut session)
        .await
        .unwrap();
    session.commit_transaction().await.unwrap();
    assert_eq!(coll.count_documents(doc! { "a": 2 }).await.unwrap(), 1);
    t.cleanup().await;
}

#[tokio::test]
async fn case_insensitive_index_with_collation() {
    let t = TestDb::new("smoke_collation").await;
    let authors = t.db.collection::<Document>("authors");
    let collation = Collation::builder()
        .locale("en")
        .strength(CollationStrength::Secondary)
        .build();
    authors
        .create_index(
            IndexModel::builder()
                .keys(doc! { "name": 1 })
                .options(IndexOptions::builder().collation(collation.clone()).build())
                .build(),
        )
        .await
        .unwrap();
    authors
        .insert_one(doc! { "name": "F. Scott" })
        .await
        .unwrap();
    let n = authors
        .count_documents(doc! { "name": "f. scott" })
        .collation(collation)
        .await
        .unwrap();
    assert_eq!(n, 1);
    t.cleanup().await;
}
