//! Document versioning with a history collection (issue 13; seed 002, pattern 2): a hand-written
//! struct pair with `history(to = ...)`. Random sequences of new versions and reads against a
//! reference model (the current document is the latest version, versions run 1..n without gaps,
//! the history holds every earlier version as it was, newest first), and races of new versions
//! on one document, with and without transactions.

mod derive_support;

use derive_support::{database, StandaloneServer};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document};
use squillion::__private::mongodb::{Client, Database};
use squillion::Error;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "contracts", history(to = ContractVersion))]
pub struct Contract {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub version: i32,
    pub terms: String,
    pub amount: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "contracts_history",
    index(keys(document_id = 1, version = -1), unique, name = "document_id_1_version_-1")
)]
pub struct ContractVersion {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(maintained)]
    pub document_id: ObjectId,
    #[squillion(maintained)]
    pub version: i32,
    #[squillion(maintained)]
    pub archived_at: DateTime,
    pub terms: String,
    pub amount: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The fields of one version, as the reference keeps them.
#[derive(Debug, Clone, PartialEq)]
struct Fields {
    terms: String,
    amount: i32,
    note: Option<String>,
}

impl Fields {
    fn of_current(c: &Contract) -> Self {
        Fields {
            terms: c.terms.clone(),
            amount: c.amount,
            note: c.note.clone(),
        }
    }
    fn of_archived(v: &ContractVersion) -> Self {
        Fields {
            terms: v.terms.clone(),
            amount: v.amount,
            note: v.note.clone(),
        }
    }
    fn contract(&self, id: ObjectId, version: i32) -> Contract {
        Contract {
            id,
            version,
            terms: self.terms.clone(),
            amount: self.amount,
            note: self.note.clone(),
        }
    }
}

async fn setup(db: &Database) -> (ContractRepo, ContractVersionRepo) {
    let (current, history) = (ContractRepo::new(db), ContractVersionRepo::new(db));
    current.ensure_indexes().await.unwrap();
    current.ensure_validator().await.unwrap();
    history.ensure_indexes().await.unwrap();
    history.ensure_validator().await.unwrap();
    (current, history)
}

/// Checks that the stored document `id` and its history are `versions` (oldest first): the
/// current document is the last, numbered `versions.len()`, the history every earlier one,
/// numbered 1.. without gaps, newest first, each record naming `id`.
async fn check(repo: &ContractRepo, id: ObjectId, versions: &[Fields]) {
    let n = versions.len();
    let current = repo.get(&id).await.unwrap().expect("the current document");
    assert_eq!(current.version as usize, n, "current version number");
    assert_eq!(Some(&Fields::of_current(&current)), versions.last());
    let history = repo.history(&id).await.unwrap();
    let numbers: Vec<usize> = history.iter().map(|h| h.version as usize).collect();
    let expected: Vec<usize> = (1..n).rev().collect();
    assert_eq!(numbers, expected, "history numbers, newest first");
    for h in &history {
        assert_eq!(h.document_id, id);
        assert_eq!(Fields::of_archived(h), versions[h.version as usize - 1]);
    }
    if n > 1 {
        let k = (n / 2).max(1);
        let one = repo
            .version_of(&id, k as i64)
            .await
            .unwrap()
            .expect("archived");
        assert_eq!(Fields::of_archived(&one), versions[k - 1]);
    }
    assert!(
        repo.version_of(&id, n as i64).await.unwrap().is_none(),
        "the current version is not archived"
    );
}

#[derive(Debug, Clone)]
enum Op {
    /// A new version of document `doc` (of two) with these fields.
    NewVersion(usize, Fields),
    /// A new version of a document that is not stored.
    Missing,
    /// `replace`, the raw write: the current document changes, nothing is archived.
    Replace(usize, Fields),
}

fn fields() -> impl Strategy<Value = Fields> {
    ("[a-z]{0,6}", -1000i32..1000, prop::option::of("[a-z]{1,4}")).prop_map(
        |(terms, amount, note)| Fields {
            terms,
            amount,
            note,
        },
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0usize..2, fields()).prop_map(|(d, f)| Op::NewVersion(d, f)),
        1 => Just(Op::Missing),
        1 => (0usize..2, fields()).prop_map(|(d, f)| Op::Replace(d, f)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn new_versions_keep_every_earlier_version(
        first in prop::collection::vec(fields(), 2),
        ops in prop::collection::vec(op(), 1..14),
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let db = database("history_model").await;
            let (repo, _) = setup(&db).await;
            let ids = [ObjectId::new(), ObjectId::new()];
            let mut model: Vec<Vec<Fields>> = Vec::new();
            for (id, f) in ids.iter().zip(&first) {
                repo.insert(&f.contract(*id, 1)).await.unwrap();
                model.push(vec![f.clone()]);
            }
            for op in &ops {
                match op {
                    Op::NewVersion(d, f) => {
                        // The version the caller puts in `doc` is not the one stored.
                        let stored = repo.new_version(&f.contract(ids[*d], 77)).await.unwrap();
                        model[*d].push(f.clone());
                        assert_eq!(stored.version as usize, model[*d].len());
                        assert_eq!(Fields::of_current(&stored), *f);
                    }
                    Op::Missing => {
                        let f = &first[0];
                        let r = repo.new_version(&f.contract(ObjectId::new(), 1)).await;
                        assert!(matches!(r, Err(Error::NotFound { .. })), "{r:?}");
                    }
                    Op::Replace(d, f) => {
                        let n = model[*d].len() as i32;
                        assert!(repo.replace(&f.contract(ids[*d], n)).await.unwrap());
                        if let Some(last) = model[*d].last_mut() {
                            *last = f.clone();
                        }
                    }
                }
                for (id, versions) in ids.iter().zip(&model) {
                    check(&repo, *id, versions).await;
                }
            }
            db.drop().await.unwrap();
        });
    }
}

/// Races two new versions of one document, `rounds` times: each round at least one wins, a
/// loser gets `VersionConflict`, and the versions and the history stay 1..n without a duplicate.
/// Returns how many rounds had a loser.
async fn race(db: &Database, rounds: usize) -> usize {
    let (repo, _) = setup(db).await;
    let id = ObjectId::new();
    let start = Fields {
        terms: "v1".into(),
        amount: 0,
        note: None,
    };
    repo.insert(&start.contract(id, 1)).await.unwrap();
    let mut versions = vec![start];
    let mut lost = 0;
    for round in 0..rounds {
        let a = Fields {
            terms: format!("a{round}"),
            amount: 1,
            note: None,
        };
        let b = Fields {
            terms: format!("b{round}"),
            amount: 2,
            note: None,
        };
        let (da, db_) = (a.contract(id, 0), b.contract(id, 0));
        let (ra, rb) = tokio::join!(repo.new_version(&da), repo.new_version(&db_));
        // Both may win, one after the other (the second read the first's version): in the
        // order of the versions they were given.
        let mut winners = Vec::new();
        for (r, f) in [(ra, a), (rb, b)] {
            match r {
                Ok(stored) => {
                    assert_eq!(Fields::of_current(&stored), f);
                    winners.push((stored.version as usize, f));
                }
                Err(e @ Error::VersionConflict { .. }) => {
                    // One line for people, naming the collection, the id and what to do.
                    let text = e.to_string();
                    assert!(!text.contains('\n'), "{text}");
                    assert!(
                        text.contains("`contracts`") && text.contains(&id.to_hex()),
                        "{text}"
                    );
                    assert!(text.contains("read it again and retry"), "{text}");
                    lost += 1;
                }
                Err(e) => panic!("unexpected error: {e}"),
            }
        }
        assert!(!winners.is_empty(), "round {round}: no new version won");
        winners.sort_by_key(|(v, _)| *v);
        for (v, f) in winners {
            versions.push(f);
            assert_eq!(v, versions.len(), "round {round}: the winners' numbers");
        }
        check(&repo, id, &versions).await;
    }
    eprintln!(
        "race: {rounds} rounds, {lost} lost, transactions: {}",
        repo.core().transactions_supported().await.unwrap()
    );
    let raw = db.collection::<Document>("contracts_history");
    let count = raw
        .count_documents(doc! { "document_id": id })
        .await
        .unwrap();
    assert_eq!(
        count as usize,
        versions.len() - 1,
        "one history record per earlier version"
    );
    lost
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_new_versions_one_wins_in_a_transaction() {
    let db = database("history_race").await;
    let lost = race(&db, 40).await;
    assert!(lost > 0, "no round raced: the test did not test the race");
    db.drop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_transactions_racing_new_versions_and_a_replayed_archive() {
    let standalone = StandaloneServer::start();
    let client = Client::with_uri_str(&standalone.uri).await.unwrap();
    let db = client.database("sq_derive_history_standalone");
    db.drop().await.unwrap();
    let lost = race(&db, 40).await;
    assert!(lost > 0, "no round raced: the test did not test the race");

    // A failure between the archive and the replace leaves the current version's record in the
    // history: the next new version writes that record again instead of a second one.
    let repo = ContractRepo::new(&db);
    let id = ObjectId::new();
    let v1 = Fields {
        terms: "one".into(),
        amount: 1,
        note: Some("n".into()),
    };
    repo.insert(&v1.contract(id, 1)).await.unwrap();
    let raw = db.collection::<Document>("contracts_history");
    raw.insert_one(doc! {
        "document_id": id, "version": 1, "archived_at": DateTime::now(),
        "terms": "one", "amount": 1, "note": "n",
    })
    .await
    .unwrap();
    let v2 = Fields {
        terms: "two".into(),
        amount: 2,
        note: None,
    };
    repo.new_version(&v2.contract(id, 1)).await.unwrap();
    check(&repo, id, &[v1, v2]).await;
    db.drop().await.unwrap();
}
