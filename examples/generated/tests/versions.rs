//! Document versioning with a history through the generated code
//! (`examples/generated/schemas/versions.sqn`, seed 002 pattern 2): a contract's new versions
//! archive the current one in `contracts_history`, the history reads newest first, the unique
//! index the Plan declares on it is created, and two racing new versions never both win.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test versions`.

use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Document};
use squillion::{BoundedVec, Error};
use squillion_examples_generated::versions::{
    ensure_all, Clause, Client, ClientRepo, Contract, ContractRepo,
};
use squillion_testkit::TestDb;

fn contract(id: ObjectId, client: ObjectId, terms: &str, amount: i32, clauses: usize) -> Contract {
    let clauses: Vec<Clause> = (0..clauses)
        .map(|i| Clause {
            title: format!("{terms} {i}"),
            text: format!("clause {i} of {terms}"),
        })
        .collect();
    Contract {
        id,
        version: 1,
        terms: terms.to_owned(),
        amount,
        note: (amount % 2 == 0).then(|| format!("note {terms}")),
        clauses: BoundedVec::try_from(clauses).unwrap(),
        client,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn new_versions_keep_the_history() {
    let t = TestDb::new("versions").await;
    ensure_all(&t.db).await.unwrap();
    let indexes =
        t.db.collection::<Document>("contracts_history")
            .list_index_names()
            .await
            .unwrap();
    assert!(
        indexes.contains(&"document_id_1_version_-1".to_owned()),
        "{indexes:?}"
    );

    let clients = ClientRepo::new(&t.db);
    let client = Client {
        id: ObjectId::new(),
        name: "Acme".into(),
        contracts_count: 0,
        contracts_total: 0,
    };
    clients.insert(&client).await.unwrap();
    let repo = ContractRepo::new(&t.db);
    let id = ObjectId::new();
    let mut made = vec![contract(id, client.id, "v1", 10, 1)];
    repo.insert(&made[0]).await.unwrap();
    for n in 2..=6 {
        let next = contract(id, client.id, &format!("v{n}"), 10 * n, n as usize);
        let stored = repo.new_version(&next).await.unwrap();
        assert_eq!(stored.version, n);
        made.push(Contract { version: n, ..next });
        let current = repo.get(&id).await.unwrap().unwrap();
        assert_eq!(&current, made.last().unwrap());
        let history = repo.history(&id).await.unwrap();
        let numbers: Vec<i32> = history.iter().map(|h| h.version).collect();
        assert_eq!(numbers, (1..n).rev().collect::<Vec<_>>());
        for h in &history {
            let was = &made[h.version as usize - 1];
            assert_eq!(h.document_id, id);
            assert_eq!(
                (&h.terms, h.amount, &h.note, &h.clauses, h.client),
                (&was.terms, was.amount, &was.note, &was.clauses, was.client)
            );
        }
    }
    let third = repo.version_of(&id, 3).await.unwrap().unwrap();
    assert_eq!(third.terms, "v3");
    assert!(repo.version_of(&id, 6).await.unwrap().is_none());
    assert_eq!(repo.count_by_client(&client.id).await.unwrap(), 1);

    // The client keeps the number and total amount of its contracts' current versions.
    let acme = clients.get(&client.id).await.unwrap().unwrap();
    assert_eq!((acme.contracts_count, acme.contracts_total), (1, 60));

    // Racing new versions: at least one wins each round, a loser gets VersionConflict, and the
    // history keeps one record per earlier version.
    let mut lost = 0;
    for round in 0..20 {
        let a = contract(id, client.id, &format!("a{round}"), 1, 0);
        let b = contract(id, client.id, &format!("b{round}"), 2, 0);
        let (ra, rb) = tokio::join!(repo.new_version(&a), repo.new_version(&b));
        let mut won = 0;
        for r in [ra, rb] {
            match r {
                Ok(_) => won += 1,
                Err(Error::VersionConflict { .. }) => lost += 1,
                Err(e) => panic!("unexpected error: {e}"),
            }
        }
        assert!(won >= 1);
    }
    assert!(lost > 0, "no round raced");
    let current = repo.get(&id).await.unwrap().unwrap();
    let history = repo.history(&id).await.unwrap();
    let numbers: Vec<i32> = history.iter().map(|h| h.version).collect();
    assert_eq!(numbers, (1..current.version).rev().collect::<Vec<_>>());
    let records =
        t.db.collection::<Document>("contracts_history")
            .count_documents(doc! { "document_id": id })
            .await
            .unwrap();
    assert_eq!(records as i32, current.version - 1);

    // A new version naming another client moves the contract: both clients are refilled.
    let other = Client {
        id: ObjectId::new(),
        name: "Other".into(),
        contracts_count: 0,
        contracts_total: 0,
    };
    clients.insert(&other).await.unwrap();
    let moved = contract(id, other.id, "moved", 7, 0);
    repo.new_version(&moved).await.unwrap();
    let acme = clients.get(&client.id).await.unwrap().unwrap();
    assert_eq!((acme.contracts_count, acme.contracts_total), (0, 0));
    let other = clients.get(&other.id).await.unwrap().unwrap();
    assert_eq!((other.contracts_count, other.contracts_total), (1, 7));
    let last = repo.history(&id).await.unwrap().remove(0);
    assert_eq!(
        last.client, client.id,
        "the archived version names the client it had"
    );

    // A contract that is not stored has no current version to archive.
    let missing = contract(ObjectId::new(), client.id, "x", 1, 0);
    assert!(matches!(
        repo.new_version(&missing).await,
        Err(Error::NotFound { .. })
    ));
    t.cleanup().await;
}
