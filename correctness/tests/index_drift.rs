//! Defect 5 against the server: one source of truth for indexes. For every example, every family
//! schema and a fixed batch of squillion-schemagen's schemas, the generated repositories'
//! `ensure_indexes()` (and `ensure_validator()`) leave a database on which `squillion indexes`
//! reports no drift (exit 0), and `squillion indexes --apply --prune` drops nothing and changes
//! nothing: the repositories create exactly the Plan's indexes.

use squillion::__private::bson::{doc, Document};
use squillion::__private::mongodb::Database;
use squillion_cli::Exit;
use squillion_testkit::TestDb;

/// Every index of every collection of `db`: `collection.name -> definition`.
async fn all_indexes(db: &Database) -> Vec<(String, Document)> {
    let mut out = Vec::new();
    let mut names = db.list_collection_names().await.unwrap();
    names.sort();
    for c in names {
        let reply = db.run_command(doc! { "listIndexes": &c }).await.unwrap();
        let batch = reply
            .get_document("cursor")
            .and_then(|c| c.get_array("firstBatch"))
            .cloned()
            .unwrap_or_default();
        for i in batch.into_iter().filter_map(|b| b.as_document().cloned()) {
            let name = i.get_str("name").unwrap_or_default().to_owned();
            let mut i = i;
            i.remove("v");
            i.remove("ns");
            out.push((format!("{c}.{name}"), i));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `squillion <args>` in a thread of its own (the command line runs its own runtime).
fn squillion(args: Vec<String>) -> Exit {
    std::thread::spawn(move || {
        squillion_cli::run(std::iter::once("squillion".to_owned()).chain(args))
    })
    .join()
    .unwrap()
}

#[tokio::test]
async fn ensure_indexes_creates_exactly_what_squillion_indexes_declares() {
    let t = TestDb::new("index_drift").await;
    let uri = squillion_testkit::uri();
    let dir = tempfile::tempdir().unwrap();
    let modules = squillion_correctness::MODULES;
    assert!(modules.iter().filter(|m| m.starts_with("example_")).count() == 5);
    assert!(modules.iter().filter(|m| m.starts_with("gen_")).count() >= 10);
    let mut failures = Vec::new();
    for module in modules {
        let name = format!("{}_{module}", t.db.name());
        let db = t.client.database(&name);
        db.drop().await.unwrap();
        squillion_correctness::ensure_indexes(module, &db)
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{module}: ensure_indexes: {e}"));
        squillion_correctness::ensure_validators(module, &db)
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{module}: ensure_validator: {e}"));
        // Twice: the second run creates nothing.
        squillion_correctness::ensure_indexes(module, &db)
            .await
            .unwrap()
            .unwrap();
        let file = dir.path().join(format!("{module}.sqn"));
        std::fs::write(&file, squillion_correctness::sqn(module).unwrap()).unwrap();
        let args = |extra: &[&str]| {
            let mut a = vec![
                "indexes".to_owned(),
                file.display().to_string(),
                "--uri".to_owned(),
                uri.clone(),
                "--db".to_owned(),
                name.clone(),
            ];
            a.extend(extra.iter().map(|s| (*s).to_owned()));
            a
        };
        let before = all_indexes(&db).await;
        let dry = squillion(args(&[]));
        if dry != Exit::Ok {
            failures.push(format!(
                "{module}: `squillion indexes` reports drift ({dry:?})"
            ));
        }
        let pruned = squillion(args(&["--apply", "--prune"]));
        if pruned != Exit::Ok {
            failures.push(format!("{module}: `--apply --prune` exits {pruned:?}"));
        }
        let after = all_indexes(&db).await;
        if before != after {
            failures.push(format!(
                "{module}: `--apply --prune` changed the indexes:\n  before {before:?}\n  after  {after:?}"
            ));
        }
        db.drop().await.unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    t.cleanup().await;
}
