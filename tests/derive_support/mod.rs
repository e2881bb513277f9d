//! Shared by the `derive_*` integration tests: a database of the real server per test.
//!
//! The tests need a running MongoDB-compatible server: run them through
//! `scripts/with-server.sh cargo test ...`, which exports `SQUILLION_MONGODB_URI`. Without it they
//! fail (they never skip).
#![allow(dead_code)]

use squillion::__private::bson::Document;
use squillion::__private::mongodb::{Client, Collection, Database};

/// The server's URI; panics with the way to get one.
pub fn uri() -> String {
    match std::env::var("SQUILLION_MONGODB_URI") {
        Ok(u) if !u.is_empty() => u,
        _ => panic!(
            "SQUILLION_MONGODB_URI is not set: these tests run against a real server; \
             run them with `scripts/with-server.sh cargo test ...`"
        ),
    }
}

/// A fresh database for test `name` (dropped first, so reruns start empty).
pub async fn database(name: &str) -> Database {
    let client = Client::with_uri_str(uri())
        .await
        .expect("cannot connect to SQUILLION_MONGODB_URI");
    let db = client.database(&format!("sq_derive_{name}"));
    db.drop().await.expect("drop test database");
    db
}

/// The same database seen through a client that believes the deployment is standalone
/// (`directConnection`), for the transaction-refusal tests.
pub async fn raw(db: &Database, coll: &str) -> Collection<Document> {
    db.collection::<Document>(coll)
}
