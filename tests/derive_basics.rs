//! `#[derive(squillion::Document)]` against the real server: CRUD, schema versions, indexes,
//! validators, and bounded embedded arrays.

mod derive_support;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId, Bson};
use squillion::{BoundedVec, Document as _, Error};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub user: String,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "books",
    schema_version = 2,
    min_schema_version = 1,
    index(keys(author = 1, title = -1), name = "author_title"),
    index(keys(slug), unique, collation(locale = "en", strength = 2)),
    index(keys(isbn), partial = r#"{"isbn": {"$exists": true}}"#, name = "isbn_partial"),
    index(keys(pages = -1, title), sparse)
)]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(min_length = 1, max_length = 200)]
    pub title: String,
    pub slug: String,
    #[squillion(index)]
    pub author: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isbn: Option<String>,
    #[squillion(minimum = 0)]
    pub pages: i32,
    #[squillion(embed(max = 3), index(name = "notes_user"))]
    pub notes: BoundedVec<Note, 3>,
    #[squillion(embed(max = 5))]
    pub subjects: Vec<String>,
}

fn book(title: &str) -> Book {
    Book {
        id: ObjectId::new(),
        title: title.to_owned(),
        slug: title.to_lowercase().replace(' ', "-"),
        author: 1,
        isbn: None,
        pages: 176,
        notes: BoundedVec::new(),
        subjects: vec!["Jazz Age".into()],
    }
}

fn note(i: usize) -> Note {
    Note {
        user: format!("user{i}"),
        note: format!("note {i}"),
    }
}

#[tokio::test]
async fn crud_round_trip_stamps_and_checks_the_schema_version() {
    let db = database("crud").await;
    let repo = BookRepo::new(&db);
    let b = book("The Great Gatsby");
    repo.insert(&b).await.unwrap();

    let stored = db
        .collection::<bson::Document>("books")
        .find_one(doc! { "_id": b.id })
        .await
        .unwrap()
        .unwrap();
    // A 32-bit integer, as the Plan's validator (`bsonType: "int"`) and the generated `i32` have it.
    assert_eq!(stored.get_i32("schema_version").unwrap(), 2);
    assert_eq!(stored.get_str("title").unwrap(), "The Great Gatsby");
    assert!(!stored.contains_key("isbn"));

    assert_eq!(repo.get(&b.id).await.unwrap(), Some(b.clone()));
    let mut changed = b.clone();
    changed.pages = 200;
    assert!(repo.replace(&changed).await.unwrap());
    assert_eq!(repo.get(&b.id).await.unwrap().unwrap().pages, 200);
    let after_replace = db
        .collection::<bson::Document>("books")
        .find_one(doc! { "_id": b.id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after_replace.get_i32("schema_version").unwrap(), 2);

    // Version 1 is still read; version 3 (newer code wrote it) and a missing version are refused.
    let raw = db.collection::<bson::Document>("books");
    raw.update_one(
        doc! { "_id": b.id },
        doc! { "$set": { "schema_version": 1 } },
    )
    .await
    .unwrap();
    assert!(repo.get(&b.id).await.unwrap().is_some());
    raw.update_one(
        doc! { "_id": b.id },
        doc! { "$set": { "schema_version": 3 } },
    )
    .await
    .unwrap();
    match repo.get(&b.id).await {
        Err(Error::SchemaVersion {
            found: Some(3),
            expected: 2,
            min_accepted: 1,
        }) => {}
        other => panic!("expected a schema version error, got {other:?}"),
    }
    raw.update_one(
        doc! { "_id": b.id },
        doc! { "$unset": { "schema_version": "" } },
    )
    .await
    .unwrap();
    assert!(matches!(
        repo.get(&b.id).await,
        Err(Error::SchemaVersion { found: None, .. })
    ));

    assert!(repo.delete(&b.id).await.unwrap());
    assert!(!repo.delete(&b.id).await.unwrap());
    assert_eq!(repo.get(&b.id).await.unwrap(), None);
}

#[tokio::test]
async fn ensure_indexes_is_idempotent_and_keeps_unknown_indexes() {
    let db = database("indexes").await;
    let repo = BookRepo::new(&db);
    let first = repo.ensure_indexes().await.unwrap();
    assert_eq!(
        first.created,
        vec![
            "author_title",
            "slug_1",
            "isbn_partial",
            "pages_-1_title_1",
            "author_1",
            "notes_user"
        ]
    );
    let raw = db.collection::<bson::Document>("books");
    raw.create_index(
        squillion::__private::mongodb::IndexModel::builder()
            .keys(doc! { "pages": 1 })
            .build(),
    )
    .await
    .unwrap();

    let second = repo.ensure_indexes().await.unwrap();
    assert!(second.created.is_empty(), "{second:?}");
    assert!(second.replaced.is_empty(), "{second:?}");
    assert_eq!(second.unchanged.len(), 6);

    let listed = db
        .run_command(doc! { "listIndexes": "books" })
        .await
        .unwrap();
    let batch = listed
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()
        .clone();
    let by_name = |n: &str| {
        batch
            .iter()
            .filter_map(Bson::as_document)
            .find(|d| d.get_str("name").ok() == Some(n))
            .cloned()
    };
    assert!(by_name("pages_1").is_some(), "an unknown index was dropped");
    let slug = by_name("slug_1").unwrap();
    assert!(slug.get_bool("unique").unwrap());
    let strength = slug
        .get_document("collation")
        .unwrap()
        .get("strength")
        .unwrap();
    assert_eq!(
        strength.as_i32().map(i64::from).or(strength.as_i64()),
        Some(2)
    );
    let author_title = by_name("author_title").unwrap();
    assert_eq!(
        author_title
            .get_document("key")
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["author", "title"]
    );
    assert!(by_name("isbn_partial")
        .unwrap()
        .get_document("partialFilterExpression")
        .is_ok());

    // The unique, case-insensitive slug index refuses a slug differing only in case.
    let a = book("Same Slug");
    repo.insert(&a).await.unwrap();
    let mut b = book("x");
    b.slug = "SAME-SLUG".into();
    let err = repo.insert(&b).await.unwrap_err();
    assert!(err.is_duplicate_key(), "{err:?}");
}

#[tokio::test]
async fn ensure_validator_creates_then_updates_and_the_server_enforces_it() {
    let db = database("validator").await;
    let repo = BookRepo::new(&db);
    assert_eq!(
        repo.ensure_validator().await.unwrap(),
        squillion::ValidatorReport::Created
    );
    assert_eq!(
        repo.ensure_validator().await.unwrap(),
        squillion::ValidatorReport::Updated
    );
    let validator = Book::validator().unwrap().unwrap();
    let schema = validator.get_document("$jsonSchema").unwrap();
    let required: Vec<&str> = schema
        .get_array("required")
        .unwrap()
        .iter()
        .filter_map(Bson::as_str)
        .collect();
    assert!(required.contains(&"title") && required.contains(&"schema_version"));
    assert!(!required.contains(&"isbn"));
    let notes = schema
        .get_document("properties")
        .unwrap()
        .get_document("notes")
        .unwrap();
    assert_eq!(notes.get("maxItems"), Some(&Bson::Int32(3)));

    repo.insert(&book("Fine")).await.unwrap();
    let raw = db.collection::<bson::Document>("books");
    // An over-full array written behind the repository's back is refused by the server.
    let err = raw
        .insert_one(doc! {
            "_id": ObjectId::new(), "title": "Bad", "slug": "bad", "author": 1_i64, "pages": 1,
            "notes": [ {"user":"a","note":"1"}, {"user":"a","note":"2"}, {"user":"a","note":"3"}, {"user":"a","note":"4"} ],
            "subjects": [], "schema_version": 2,
        })
        .await
        .unwrap_err();
    assert!(
        squillion::Error::from(err).is_validation_failure(),
        "the validator did not refuse an array of 4 > maxItems 3"
    );
    let mut empty_title = book("");
    empty_title.title.clear();
    assert!(repo
        .insert(&empty_title)
        .await
        .unwrap_err()
        .is_validation_failure());
}

#[tokio::test]
async fn embed_bound_is_enforced_by_the_update() {
    let db = database("embed").await;
    let repo = BookRepo::new(&db);
    let b = book("Bounded");
    repo.insert(&b).await.unwrap();
    for i in 0..3 {
        repo.push_notes(&b.id, &note(i)).await.unwrap();
    }
    match repo.push_notes(&b.id, &note(3)).await {
        Err(Error::BoundExceeded { field, max: 3 }) => assert_eq!(field, "books.notes"),
        other => panic!("expected BoundExceeded, got {other:?}"),
    }
    let stored = db
        .collection::<bson::Document>("books")
        .find_one(doc! { "_id": b.id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_array("notes").unwrap().len(), 3);

    assert!(repo.remove_notes(&b.id, &note(1)).await.unwrap());
    assert!(!repo.remove_notes(&b.id, &note(1)).await.unwrap());
    assert!(repo
        .pull_notes(&b.id, doc! { "user": "user0" })
        .await
        .unwrap());
    assert_eq!(
        repo.get(&b.id).await.unwrap().unwrap().notes.as_slice(),
        &[note(2)]
    );
    assert!(matches!(
        repo.set_notes(&b.id, &[note(1), note(2), note(3), note(4)])
            .await,
        Err(Error::BoundExceeded { .. })
    ));
    let missing = ObjectId::new();
    assert!(matches!(
        repo.push_notes(&missing, &note(0)).await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn racing_appends_at_the_bound_never_overfill() {
    let db = database("embed_race").await;
    let repo = BookRepo::new(&db);
    for round in 0..5 {
        let b = book(&format!("Race {round}"));
        repo.insert(&b).await.unwrap();
        repo.push_subjects(&b.id, &"a".into()).await.unwrap();
        repo.push_subjects(&b.id, &"b".into()).await.unwrap();
        repo.push_subjects(&b.id, &"c".into()).await.unwrap();
        // One slot left (bound 5, 4 present): eight writers race for it.
        let mut tasks = Vec::new();
        for w in 0..8 {
            let repo = repo.clone();
            let id = b.id;
            tasks.push(tokio::spawn(async move {
                repo.push_subjects(&id, &format!("w{w}")).await
            }));
        }
        let mut ok = 0;
        let mut full = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(()) => ok += 1,
                Err(Error::BoundExceeded { .. }) => full += 1,
                Err(e) => panic!("unexpected error {e:?}"),
            }
        }
        assert_eq!((ok, full), (1, 7), "round {round}");
        let stored = db
            .collection::<bson::Document>("books")
            .find_one(doc! { "_id": b.id })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.get_array("subjects").unwrap().len(), 5);
    }
}
