//! Entity-level patterns against the real server: trees of ancestors, outlier overflow, and
//! document versioning.

mod derive_support;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId, Bson, DateTime};

// ---- tree (seeds 000 and 001: an array of ancestors and a parent) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "mytree", tree(parent = parent, ancestors = ancestors))]
pub struct Node {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: String,
    pub parent: Option<String>,
    pub ancestors: Vec<String>,
}

fn node(id: &str) -> Node {
    Node {
        id: id.into(),
        parent: None,
        ancestors: vec![],
    }
}

#[tokio::test]
async fn tree_insert_computes_ancestors_and_reads_descendants_children_ancestors() {
    let db = database("tree").await;
    let repo = NodeRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let a = "a".to_owned();
    repo.insert_under(None, &node("a")).await.unwrap();
    for (id, parent) in [
        ("b", "a"),
        ("c", "b"),
        ("d", "b"),
        ("e", "a"),
        ("f", "e"),
        ("g", "d"),
    ] {
        repo.insert_under(Some(&parent.to_owned()), &node(id))
            .await
            .unwrap();
    }
    // The stored documents are the seed's, exactly.
    let g = db
        .collection::<bson::Document>("mytree")
        .find_one(doc! { "_id": "g" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        g,
        doc! { "_id": "g", "parent": "d", "ancestors": ["a", "b", "d"] }
    );
    let root = db
        .collection::<bson::Document>("mytree")
        .find_one(doc! { "_id": "a" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(root.get("parent"), Some(&Bson::Null));

    let ids = |v: Vec<Node>| v.into_iter().map(|n| n.id).collect::<Vec<_>>();
    assert_eq!(
        ids(repo.descendants(&"b".into()).await.unwrap()),
        vec!["c", "d", "g"]
    );
    assert_eq!(
        ids(repo.children(&"b".into()).await.unwrap()),
        vec!["c", "d"]
    );
    assert_eq!(
        ids(repo.ancestors(&"g".into()).await.unwrap()),
        vec!["a", "b", "d"]
    );
    assert_eq!(repo.descendants(&a).await.unwrap().len(), 6);
    assert!(matches!(
        repo.insert_under(Some(&"nope".to_owned()), &node("x"))
            .await,
        Err(squillion::Error::NotFound { .. })
    ));
}

// ---- outlier (seed 002: main cast embedded, the rest overflows) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "movies")]
pub struct Movie {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub title: String,
    #[squillion(outlier(max = 3, flag = has_extras, overflow = "movie_cast_extra", chunk = 2))]
    pub cast: Vec<String>,
    #[serde(default)]
    pub has_extras: bool,
}

#[tokio::test]
async fn outlier_overflows_past_the_bound_and_reads_transparently() {
    let db = database("outlier").await;
    let repo = MovieRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let usual = Movie {
        id: ObjectId::new(),
        title: "Short film".into(),
        cast: vec![],
        has_extras: false,
    };
    let epic = Movie {
        id: ObjectId::new(),
        title: "Epic".into(),
        cast: vec![],
        has_extras: false,
    };
    repo.insert(&usual).await.unwrap();
    repo.insert(&epic).await.unwrap();
    repo.push_cast(&usual.id, &"one".into()).await.unwrap();
    let names: Vec<String> = (0..8).map(|i| format!("actor {i}")).collect();
    for n in &names {
        repo.push_cast(&epic.id, n).await.unwrap();
    }

    let stored = db
        .collection::<bson::Document>("movies")
        .find_one(doc! { "_id": epic.id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_array("cast").unwrap().len(), 3);
    assert!(stored.get_bool("has_extras").unwrap());
    let overflow = db.collection::<bson::Document>("movie_cast_extra");
    assert_eq!(
        overflow
            .count_documents(doc! { "owner": epic.id })
            .await
            .unwrap(),
        3,
        "5 extras in chunks of 2"
    );
    assert_eq!(
        overflow
            .count_documents(doc! { "owner": usual.id })
            .await
            .unwrap(),
        0
    );

    assert_eq!(repo.all_cast(&epic.id).await.unwrap(), names);
    assert_eq!(
        repo.get_with_cast(&epic.id).await.unwrap().unwrap().cast,
        names
    );
    assert_eq!(repo.get(&epic.id).await.unwrap().unwrap().cast.len(), 3);
    assert_eq!(repo.all_cast(&usual.id).await.unwrap(), vec!["one"]);
    assert!(!repo.get(&usual.id).await.unwrap().unwrap().has_extras);
}

// ---- document versioning (seed 002, pattern 1) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "versions", versioned(key = document_id, version = version, valid_from = valid_from, valid_to = valid_to))]
pub struct Plan {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub document_id: String,
    pub version: i64,
    pub payload: String,
    pub valid_from: DateTime,
    pub valid_to: Option<DateTime>,
}

fn date(y: i32) -> DateTime {
    DateTime::builder().year(y).month(1).day(1).build().unwrap()
}

fn plan(payload: &str, from: i32) -> Plan {
    Plan {
        id: ObjectId::new(),
        document_id: "secret plan".into(),
        version: 0,
        payload: payload.into(),
        valid_from: date(from),
        valid_to: None,
    }
}

#[tokio::test]
async fn versioning_numbers_versions_closes_the_previous_and_finds_the_current_one() {
    let db = database("versioning").await;
    let repo = PlanRepo::new(&db);
    repo.ensure_indexes().await.unwrap();
    let v1 = repo.new_version(&plan("Some Data", 2008)).await.unwrap();
    let v2 = repo.new_version(&plan("More Data", 2020)).await.unwrap();
    let v3 = repo.new_version(&plan("Future Data", 2099)).await.unwrap();
    assert_eq!((v1.version, v2.version, v3.version), (1, 2, 3));

    let stored_v1 = db
        .collection::<bson::Document>("versions")
        .find_one(doc! { "_id": v1.id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored_v1.get_datetime("valid_to").unwrap(), &date(2020));

    let key = "secret plan".to_owned();
    let payload_at = |y: i32| {
        let repo = repo.clone();
        let key = key.clone();
        async move {
            repo.current_at(&key, &date(y))
                .await
                .unwrap()
                .map(|p| p.payload)
        }
    };
    assert_eq!(payload_at(2010).await.as_deref(), Some("Some Data"));
    assert_eq!(payload_at(2026).await.as_deref(), Some("More Data"));
    assert_eq!(payload_at(2100).await.as_deref(), Some("Future Data"));
    assert_eq!(payload_at(2000).await, None);
    assert_eq!(repo.versions(&key).await.unwrap().len(), 3);
}
