//! `squillion indexes`, `audit` and `migrate` against a real server: the binary, run as a user runs
//! it, on small schemas written to temporary files and on the seed examples. Every test has a
//! database of its own. Run them with
//! `scripts/with-server.sh cargo test -p squillion-cli --test database`: without a server they
//! fail, saying how to get one.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, Bson, DateTime, Document};
use futures::TryStreamExt;
use mongodb::options::{CollationStrength, IndexOptions};
use mongodb::{Database, IndexModel};
use serde_json::Value;
use squillion_codegen::plan::{FieldKind, Plan, PlanField};
use squillion_testkit::{uri, TestDb};

/// A customer with a schema version, a case-insensitive unique email, an optional unique
/// nickname (sparse), a TTL on `created`, a bounded array with a multikey index, and the ids of
/// its orders (many: an array of ids in the customer).
const SHOP: &str = r#"
entity Customer @schema_version(2) {
  email: string @unique @ignore_case
  nickname: string? @unique
  created: date @expires(30d)
  tags: [string; 3] @index
}
entity Order { total: double }
relation Customer.orders: many <-> Order.customer: one { standalone Order }
"#;

#[path = "common/run.rs"]
mod run;
use run::{root, squillion, Run};

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }

    /// Whether one line of stdout holds every one of `parts`.
    fn has_line(&self, parts: &[&str]) -> bool {
        self.stdout
            .lines()
            .any(|l| parts.iter().all(|p| l.contains(p)))
    }

    /// The lines saying what `--apply` did.
    fn actions(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| {
                [
                    "created ",
                    "dropped ",
                    "set the validator",
                    "kept ",
                    "cannot ",
                ]
                .iter()
                .any(|verb| l.starts_with(verb))
            })
            .collect()
    }

    fn assert_line(&self, parts: &[&str]) {
        assert!(
            self.has_line(parts),
            "no line of the output holds {parts:?}:\n{}",
            self.stdout
        );
    }
}

/// The server's URI with `db` as its path: how a user names the database in the URI.
fn db_uri(db: &str) -> String {
    let u = uri();
    let (base, query) = match u.split_once('?') {
        Some((b, q)) => (b.to_owned(), Some(q.to_owned())),
        None => (u.clone(), None),
    };
    let hosts = base.find("://").map_or(0, |i| i + 3);
    let end = base[hosts..].find('/').map_or(base.len(), |i| hosts + i);
    let mut out = format!("{}/{db}", &base[..end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(&q);
    }
    out
}

/// A schema written to a temporary file (kept while the directory lives).
fn schema(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.sqn");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// `indexes FILE --uri URI-with-the-database EXTRA...`.
async fn indexes(file: &Path, t: &TestDb, extra: &[&str]) -> Run {
    let mut args: Vec<OsString> = vec![
        "indexes".into(),
        file.into(),
        "--uri".into(),
        db_uri(t.db.name()).into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    squillion(args).await
}

/// `audit FILE --uri URI-with-the-database EXTRA...`.
async fn audit(file: &Path, t: &TestDb, extra: &[&str]) -> Run {
    let mut args: Vec<OsString> = vec![
        "audit".into(),
        file.into(),
        "--uri".into(),
        db_uri(t.db.name()).into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    squillion(args).await
}

/// The Plan the CLI works from, computed in process to compare the server with.
fn plan_of(file: &Path) -> Plan {
    let text = std::fs::read_to_string(file).unwrap();
    let source = squillion_grammar::SourceFile::new(file.display().to_string(), text);
    let checked = squillion_codegen::load(&source)
        .unwrap_or_else(|d| panic!("{} does not load: {d:?}", file.display()));
    squillion_codegen::engine::plan(&checked.model, &source)
}

async fn index_names(db: &Database, coll: &str) -> BTreeSet<String> {
    db.collection::<Document>(coll)
        .list_index_names()
        .await
        .unwrap()
        .into_iter()
        .collect()
}

async fn index_models(db: &Database, coll: &str) -> BTreeMap<String, IndexModel> {
    let models: Vec<IndexModel> = db
        .collection::<Document>(coll)
        .list_indexes()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    models
        .into_iter()
        .map(|m| {
            let name = m.options.as_ref().and_then(|o| o.name.clone()).unwrap();
            (name, m)
        })
        .collect()
}

/// Every document of `coll`, in the server's order.
async fn all_docs(db: &Database, coll: &str) -> Vec<Document> {
    db.collection::<Document>(coll)
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// Every document of `coll`, in `_id` order.
async fn docs_by_id(db: &Database, coll: &str) -> Vec<Document> {
    db.collection::<Document>(coll)
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn collection_names(db: &Database) -> BTreeSet<String> {
    db.list_collection_names()
        .await
        .unwrap()
        .into_iter()
        .collect()
}

async fn validator_of(db: &Database, coll: &str) -> Option<Document> {
    let specs: Vec<mongodb::results::CollectionSpecification> = db
        .list_collections()
        .filter(doc! { "name": coll })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(specs.len(), 1, "collection {coll}");
    specs.into_iter().next().unwrap().options.validator
}

fn strength(s: Option<CollationStrength>) -> u8 {
    match s {
        Some(CollationStrength::Primary) => 1,
        Some(CollationStrength::Secondary) => 2,
        Some(CollationStrength::Tertiary) | None => 3,
        Some(CollationStrength::Quaternary) => 4,
        Some(CollationStrength::Identical) => 5,
        Some(other) => panic!("unexpected collation strength {other:?}"),
    }
}

/// JSON equality with numbers compared by value (the server may store 3 as an int or a double).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// Every collection of the plan exists with exactly its declared indexes (and `_id_`), each with
/// the keys and options the Plan says, and with the declared `$jsonSchema` validator.
async fn assert_matches_plan(db: &Database, plan: &Plan) {
    let collections = collection_names(db).await;
    for c in &plan.collections {
        assert!(collections.contains(&c.name), "{} was not created", c.name);
        let existing = index_models(db, &c.name).await;
        let mut declared: BTreeSet<String> = c.indexes.iter().map(|i| i.name.clone()).collect();
        declared.insert("_id_".to_owned());
        assert_eq!(
            existing.keys().cloned().collect::<BTreeSet<_>>(),
            declared,
            "indexes of {}",
            c.name
        );
        for i in &c.indexes {
            let m = &existing[&i.name];
            let keys: Vec<(String, f64)> = m
                .keys
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_f64()
                            .or(v.as_i64().map(|n| n as f64))
                            .or(v.as_i32().map(f64::from))
                            .unwrap(),
                    )
                })
                .collect();
            let declared_keys: Vec<(String, f64)> = i
                .keys
                .iter()
                .map(|k| (k.path.clone(), f64::from(k.direction)))
                .collect();
            assert_eq!(keys, declared_keys, "keys of {}.{}", c.name, i.name);
            let o = m.options.clone().unwrap_or_default();
            let what = format!("{}.{}: {o:?}", c.name, i.name);
            assert_eq!(o.unique.unwrap_or(false), i.unique, "unique of {what}");
            assert_eq!(o.sparse.unwrap_or(false), i.sparse, "sparse of {what}");
            assert_eq!(
                o.collation
                    .as_ref()
                    .map(|c| (c.locale.clone(), strength(c.strength))),
                i.collation.as_ref().map(|c| (c.locale.clone(), c.strength)),
                "collation of {what}"
            );
            assert_eq!(
                o.expire_after.map(|d| d.as_secs()),
                i.expire_after_seconds,
                "TTL of {what}"
            );
            match (&o.partial_filter_expression, &i.partial_filter) {
                (None, None) => {}
                (Some(p), Some(d)) => assert!(
                    same_json(&Bson::Document(p.clone()).into_relaxed_extjson(), d),
                    "partial filter of {what}"
                ),
                _ => panic!("partial filter of {what}: declared {:?}", i.partial_filter),
            }
        }
        let validator = validator_of(db, &c.name)
            .await
            .unwrap_or_else(|| panic!("{} has no validator", c.name));
        let declared = squillion_codegen::validator::validator(c);
        assert!(
            same_json(
                &Bson::Document(validator.clone()).into_relaxed_extjson(),
                &declared
            ),
            "validator of {}: on the server {validator:#?}\ndeclared {declared:#}",
            c.name
        );
    }
}

fn customer(email: &str, tags: &[&str], orders: &[ObjectId]) -> Document {
    doc! {
        "_id": ObjectId::new(),
        "schema_version": 2,
        "email": email,
        "created": DateTime::now(),
        "tags": tags.iter().map(|t| Bson::from(*t)).collect::<Vec<_>>(),
        "orders": orders.iter().map(|o| Bson::ObjectId(*o)).collect::<Vec<_>>(),
    }
}

fn findings(report: &Value) -> &Vec<Value> {
    report["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings array: {report:#}"))
}

/// The one finding of this kind at this path (`""`: no path), or a panic showing them all.
fn finding<'a>(report: &'a Value, kind: &str, path: &str) -> &'a Value {
    let found: Vec<&Value> = findings(report)
        .iter()
        .filter(|f| f["kind"] == kind && f["path"].as_str().unwrap_or("") == path)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {kind} finding at {path}: {:#}",
        report["findings"]
    );
    found[0]
}

#[path = "database/sync.rs"]
mod sync;

#[path = "database/examples.rs"]
mod examples;

#[path = "database/audit_findings.rs"]
mod audit_findings;

#[path = "database/audit_drift.rs"]
mod audit_drift;

#[path = "database/mongosh.rs"]
mod mongosh;

#[path = "database/migrate_until.rs"]
mod migrate_until;

#[path = "database/migrate.rs"]
mod migrate;

#[path = "database/migrate_data.rs"]
mod migrate_data;

#[path = "database/migrate_refused.rs"]
mod migrate_refused;

#[path = "database/migrate_kept.rs"]
mod migrate_kept;

#[path = "database/migrate_buckets.rs"]
mod migrate_buckets;

#[path = "database/migrate_buckets_refused.rs"]
mod migrate_buckets_refused;

#[path = "database/migrate_links.rs"]
mod migrate_links;

#[path = "database/migrate_evolution.rs"]
mod migrate_evolution;

#[path = "database/migrate_generated.rs"]
mod migrate_generated;

#[path = "database/migrate_split.rs"]
mod migrate_split;

#[path = "database/migrate_online.rs"]
mod migrate_online;

// ---------------------------------------------------------------------------------------------
// Errors

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error() {
    let (_dir, file) = schema(SHOP);
    for command in ["indexes", "audit"] {
        let started = Instant::now();
        let run = squillion([
            command,
            file.to_str().unwrap(),
            "--uri",
            "mongodb://squillion:secret@127.0.0.1:1/?serverSelectionTimeoutMS=1000",
        ])
        .await;
        run.expect(2, command);
        assert!(run.stdout.is_empty(), "{command}: {}", run.stdout);
        assert!(
            run.stderr
                .starts_with("error: cannot reach mongodb://<credentials>@127.0.0.1:1/"),
            "{command}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("secret"), "{command}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("no server answered before the server selection timeout (127.0.0.1:1: ")
                && !run.stderr.contains(['{', '['])
                && run.stderr.lines().count() == 2
                && run
                    .stderr
                    .lines()
                    .nth(1)
                    .is_some_and(|l| l.starts_with("  help: ")),
            "one line saying why, one saying what to do: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("labels:") && !run.stderr.contains("source: None"),
            "without the driver's noise: {}",
            run.stderr
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{command} gave up after {:?}",
            started.elapsed()
        );

        let run = squillion([command, file.to_str().unwrap(), "--uri", "not-a-uri"]).await;
        run.expect(2, command);
        assert!(
            run.stderr.starts_with("error: cannot connect to not-a-uri"),
            "{command}: {}",
            run.stderr
        );
    }
}
