//! Maps of a hand-written struct (issue 12): every map field (`BTreeMap`, `HashMap`) gets
//! `set_<f>_entry` and `remove_<f>_entry`; `#[squillion(map(max = N))]` bounds one: the derived
//! validator carries `maxProperties: N` (the server refuses a document over it), a new key is
//! refused at the bound and an existing one replaced, and `set_<f>` refuses a whole map over it.
//! The random sequences and races over generated schemas are `correctness/tests/maps.rs`.

mod derive_support;

use std::collections::{BTreeMap, HashMap};

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{doc, oid::ObjectId, Document};
use squillion::Error;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "scores")]
pub struct Scores {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(map(max = 2))]
    pub best: BTreeMap<String, i64>,
    pub labels: HashMap<String, String>,
}

fn scores() -> Scores {
    Scores {
        id: ObjectId::new(),
        best: BTreeMap::new(),
        labels: HashMap::new(),
    }
}

#[tokio::test]
async fn a_bounded_map_of_a_hand_written_struct() {
    let db = database("maps_hand_written").await;
    let repo = ScoresRepo::new(&db);
    repo.ensure_validator().await.unwrap();
    let s = scores();
    repo.insert(&s).await.unwrap();

    repo.set_best_entry(&s.id, "ann", &3).await.unwrap();
    repo.set_best_entry(&s.id, "bob", &5).await.unwrap();
    match repo.set_best_entry(&s.id, "cy", &1).await {
        Err(Error::MapFull { field, max: 2 }) => assert_eq!(field, "scores.best"),
        other => panic!("expected MapFull, got {other:?}"),
    }
    repo.set_best_entry(&s.id, "ann", &9).await.unwrap();
    let got = repo.get(&s.id).await.unwrap().unwrap();
    assert_eq!(
        got.best,
        BTreeMap::from([("ann".to_owned(), 9), ("bob".to_owned(), 5)])
    );
    assert!(repo.remove_best_entry(&s.id, "bob").await.unwrap());
    assert!(!repo.remove_best_entry(&s.id, "bob").await.unwrap());
    repo.set_best_entry(&s.id, "cy", &1).await.unwrap();

    // The unbounded map: no bound, the same key rules.
    for i in 0..30 {
        repo.set_labels_entry(&s.id, &format!("l{i}"), &format!("v{i}"))
            .await
            .unwrap();
    }
    assert!(matches!(
        repo.set_labels_entry(&s.id, "a.b", &"x".to_owned()).await,
        Err(Error::InvalidMapKey { .. })
    ));
    assert_eq!(repo.get(&s.id).await.unwrap().unwrap().labels.len(), 30);

    // The whole map's setter refuses more than the bound before writing.
    let three = BTreeMap::from([
        ("a".to_owned(), 1),
        ("b".to_owned(), 2),
        ("c".to_owned(), 3),
    ]);
    assert!(matches!(
        repo.set_best(&s.id, &three).await,
        Err(Error::MapFull { max: 2, .. })
    ));
    assert_eq!(repo.get(&s.id).await.unwrap().unwrap().best.len(), 2);

    // The derived validator: `maxProperties` on the bounded map only.
    let raw = db.collection::<Document>("scores");
    let over = doc! { "_id": ObjectId::new(), "best": { "a": 1_i64, "b": 2_i64, "c": 3_i64 }, "labels": {} };
    let e = Error::from(raw.insert_one(over).await.expect_err("over the bound"));
    assert!(e.is_validation_failure(), "{e}");
    let labels: Document = (0..300).map(|i| (format!("l{i}"), "v".into())).collect();
    let at = doc! { "_id": ObjectId::new(), "best": { "a": 1_i64, "b": 2_i64 }, "labels": labels };
    raw.insert_one(at).await.unwrap();
}
