//! Defect 4 against the server: `@unique` on a field of documents held in an array (an embedded
//! entity, an optional field of one, a value type, a subdocument of one, children in buckets).
//! The Plan's unique multikey index refuses a value another document holds; the generated push
//! (and bucket append) refuses a value the same array holds; documents without an element do not
//! collide.

use futures::TryStreamExt;
use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion::{BoundedVec, Error};
use squillion_correctness::{
    unique_bucket, unique_entity, unique_nested, unique_optional, unique_value,
};
use squillion_testkit::TestDb;

async fn codes(db: &Database, owner: ObjectId, path: &str) -> Vec<String> {
    let d = db
        .collection::<Document>("owners")
        .find_one(doc! { "_id": owner })
        .await
        .unwrap()
        .unwrap();
    d.get_array("items")
        .unwrap()
        .iter()
        .filter_map(|i| {
            let mut v = i.as_document()?;
            let mut parts: Vec<&str> = path.split('.').collect();
            let last = parts.pop()?;
            for p in parts {
                v = v.get_document(p).ok()?;
            }
            v.get_str(last).ok().map(str::to_owned)
        })
        .collect()
}

fn assert_duplicate_element(e: &Error, field: &str) {
    match e {
        Error::DuplicateElement { field: f, .. } => assert_eq!(f, field),
        other => panic!("expected DuplicateElement on {field}, got {other}"),
    }
    assert!(e.is_duplicate_key());
}

/// The embedded-array families share the shape `Owner { id, name, items: [Item] }`.
macro_rules! embedded_array_family {
    ($db:expr, $m:ident, $item:expr, $path:literal) => {{
        let db: &Database = $db;
        $m::ensure_indexes(db).await.unwrap();
        $m::ensure_validators(db).await.unwrap();
        let owners = $m::OwnerRepo::new(db);
        let (a, b) = (ObjectId::new(), ObjectId::new());
        // Two owners without items: the sparse index lets them both be.
        for id in [a, b] {
            owners
                .insert(&$m::Owner {
                    id,
                    name: "o".into(),
                    items: BoundedVec::new(),
                })
                .await
                .unwrap_or_else(|e| panic!("{}: an empty array collided: {e}", stringify!($m)));
        }
        owners.push_items(&a, &$item("x")).await.unwrap();
        // The same value again in the same array: refused by the push itself.
        let again = owners.push_items(&a, &$item("x")).await.unwrap_err();
        assert_duplicate_element(&again, concat!("owners.items.", $path));
        // The same value in another document's array: refused by the unique index.
        let across = owners.push_items(&b, &$item("x")).await.unwrap_err();
        assert_eq!(
            across.server_code(),
            Some(11000),
            "{}: {across}",
            stringify!($m)
        );
        assert!(across.is_duplicate_key());
        owners.push_items(&a, &$item("y")).await.unwrap();
        // A whole array repeating a value is refused before writing.
        let set = owners
            .set_items(&b, &[$item("p"), $item("p")])
            .await
            .unwrap_err();
        assert_duplicate_element(&set, concat!("owners.items.", $path));
        assert_eq!(
            codes(db, a, $path).await,
            vec!["x", "y"],
            "{}",
            stringify!($m)
        );
        assert!(codes(db, b, $path).await.is_empty(), "{}", stringify!($m));
    }};
}

#[tokio::test]
async fn unique_values_in_arrays_are_unique_across_and_within_documents() {
    let t = TestDb::new("unique_arrays").await;
    let fresh = |name: &str| t.client.database(&format!("{}_{name}", t.db.name()));

    let db = fresh("entity");
    embedded_array_family!(
        &db,
        unique_entity,
        |c: &str| unique_entity::Item {
            code: c.into(),
            label: "l".into(),
        },
        "code"
    );
    db.drop().await.unwrap();

    let db = fresh("value");
    embedded_array_family!(
        &db,
        unique_value,
        |c: &str| unique_value::Item {
            code: c.into(),
            label: "l".into(),
        },
        "code"
    );
    db.drop().await.unwrap();

    let db = fresh("nested");
    embedded_array_family!(
        &db,
        unique_nested,
        |c: &str| unique_nested::Item {
            tag: unique_nested::Tag { code: c.into() },
            label: "l".into(),
        },
        "tag.code"
    );
    db.drop().await.unwrap();

    let db = fresh("optional");
    embedded_array_family!(
        &db,
        unique_optional,
        |c: &str| unique_optional::Item {
            code: Some(c.into()),
            label: "l".into(),
        },
        "code"
    );
    // Items without the optional value never collide, in one array or across documents.
    let owners = unique_optional::OwnerRepo::new(&db);
    let c = ObjectId::new();
    owners
        .insert(&unique_optional::Owner {
            id: c,
            name: "o".into(),
            items: BoundedVec::new(),
        })
        .await
        .unwrap();
    let none = || unique_optional::Item {
        code: None,
        label: "l".into(),
    };
    owners.push_items(&c, &none()).await.unwrap();
    owners.push_items(&c, &none()).await.unwrap();
    db.drop().await.unwrap();

    // Buckets: an open bucket holding the value is passed over, and the new bucket meets the
    // unique index, so no two children share it, in one bucket or across buckets.
    let db = fresh("bucket");
    unique_bucket::ensure_indexes(&db).await.unwrap();
    unique_bucket::ensure_validators(&db).await.unwrap();
    let buckets = unique_bucket::OwnerItemsBucketRepo::new(&db);
    let owner = ObjectId::new();
    let item = |c: &str| unique_bucket::Item {
        code: c.into(),
        at: DateTime::now(),
    };
    buckets.append_items(&owner, &item("x")).await.unwrap();
    let again = buckets.append_items(&owner, &item("x")).await.unwrap_err();
    assert_eq!(again.server_code(), Some(11000), "{again}");
    let other = buckets
        .append_items(&ObjectId::new(), &item("x"))
        .await
        .unwrap_err();
    assert_eq!(other.server_code(), Some(11000), "{other}");
    buckets.append_items(&owner, &item("y")).await.unwrap();
    let docs: Vec<Document> = db
        .collection::<Document>("owner_items")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let all: Vec<&str> = docs
        .iter()
        .flat_map(|d| d.get_array("items").unwrap().iter())
        .filter_map(|i| i.as_document()?.get_str("code").ok())
        .collect();
    assert_eq!(all, vec!["x", "y"], "{docs:?}");
    db.drop().await.unwrap();
    t.cleanup().await;
}
