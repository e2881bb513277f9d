//! Test support: the real MongoDB-compatible server the integration tests run against.
//!
//! `scripts/with-server.sh` starts one and exports `SQUILLION_MONGODB_URI`; set it yourself to run
//! the tests against a real MongoDB replica set. Tests that need a server and find none fail with
//! a message saying how to get one: they never skip.
//!
//! [`sqn`] generates schemas for property tests.

pub mod sqn;

use mongodb::{Client, Database};

/// The server's URI, or a panic explaining how to get one (tests must not skip silently).
pub fn uri() -> String {
    match std::env::var("SQUILLION_MONGODB_URI") {
        Ok(u) if !u.trim().is_empty() => u,
        _ => panic!(
            "SQUILLION_MONGODB_URI is not set: these tests run against a real MongoDB-compatible server.\n\
             Run them through `scripts/with-server.sh cargo test ...` (it installs and starts one),\n\
             or set SQUILLION_MONGODB_URI to a MongoDB replica set of your own."
        ),
    }
}

/// A database of its own for one test, dropped by [`TestDb::cleanup`].
pub struct TestDb {
    /// The client.
    pub client: Client,
    /// The test's database.
    pub db: Database,
}

impl TestDb {
    /// Connects and picks a fresh database named after `test` (tests run in parallel).
    pub async fn new(test: &str) -> TestDb {
        let client = Client::with_uri_str(uri())
            .await
            .unwrap_or_else(|e| panic!("cannot connect to SQUILLION_MONGODB_URI: {e}"));
        let suffix = bson::oid::ObjectId::new().to_hex();
        let name: String = format!(
            "t_{}_{}",
            test.chars()
                .filter(char::is_ascii_alphanumeric)
                .take(30)
                .collect::<String>(),
            &suffix[16..]
        );
        let db = client.database(&name);
        TestDb { client, db }
    }

    /// Whether the deployment runs multi-document transactions (a replica set does).
    pub async fn supports_transactions(&self) -> bool {
        match self.db.run_command(bson::doc! { "hello": 1 }).await {
            Ok(reply) => {
                reply.get_str("setName").is_ok()
                    || reply.get_str("msg").is_ok_and(|m| m == "isdbgrid")
            }
            Err(_) => false,
        }
    }

    /// Drops the test's database.
    pub async fn cleanup(self) {
        let _ = self.db.drop().await;
    }
}
