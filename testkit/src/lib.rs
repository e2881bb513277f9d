//! Test support: the real MongoDB-compatible server the integration tests run against.
//!
//! `scripts/with-server.sh` starts one and exports `SQUILLION_MONGODB_URI`; set it yourself to run
//! the tests against a real MongoDB replica set. Tests that need a server and find none fail with
//! a message saying how to get one: they never skip.
//!
//! [`sqn`] generates schemas for property tests.

mod lcg;
pub mod sqn;

pub use lcg::Lcg;

use std::sync::{Arc, Mutex, PoisonError};

use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
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
        Self::on(client, test)
    }

    /// Like [`TestDb::new`], with a client that records every document the server sends in
    /// reply to a `find` or `getMore`: what crossed the wire, before any decoding (to check, for
    /// example, that a projection was sent).
    pub async fn watching_reads(test: &str) -> (TestDb, SentDocuments) {
        let mut options = ClientOptions::parse(uri())
            .await
            .unwrap_or_else(|e| panic!("cannot parse SQUILLION_MONGODB_URI: {e}"));
        let sent = SentDocuments::default();
        let record = sent.clone();
        options.command_event_handler = Some(EventHandler::callback(move |event| {
            if let CommandEvent::Succeeded(e) = event {
                record.record(&e.command_name, &e.reply);
            }
        }));
        let client = Client::with_options(options)
            .unwrap_or_else(|e| panic!("cannot connect to SQUILLION_MONGODB_URI: {e}"));
        (Self::on(client, test), sent)
    }

    fn on(client: Client, test: &str) -> TestDb {
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

/// The documents of the `find` and `getMore` replies a client of [`TestDb::watching_reads`]
/// received, in order.
#[derive(Debug, Clone, Default)]
pub struct SentDocuments(Arc<Mutex<Vec<bson::Document>>>);

impl SentDocuments {
    fn record(&self, command: &str, reply: &bson::Document) {
        let batch = match command {
            "find" => "firstBatch",
            "getMore" => "nextBatch",
            _ => return,
        };
        let Ok(docs) = reply
            .get_document("cursor")
            .and_then(|c| c.get_array(batch))
        else {
            return;
        };
        let mut sent = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sent.extend(docs.iter().filter_map(|d| d.as_document().cloned()));
    }

    /// The documents received since the last call, and forgets them.
    pub fn take(&self) -> Vec<bson::Document> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Every document of collection `name`, in the server's order, or the server's error.
pub async fn documents(db: &Database, name: &str) -> mongodb::error::Result<Vec<bson::Document>> {
    use futures::TryStreamExt;
    db.collection::<bson::Document>(name)
        .find(bson::doc! {})
        .await?
        .try_collect()
        .await
}
