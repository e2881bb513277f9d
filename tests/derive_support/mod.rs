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

/// A second server started by the test itself in standalone mode (no replica-set advertisement,
/// so no transactions), on a port the server picks; killed when dropped.
pub struct StandaloneServer {
    child: std::process::Child,
    /// Its URI.
    pub uri: String,
    _dir: std::path::PathBuf,
}

impl StandaloneServer {
    /// Starts `secantusd-rs --standalone` (the server `scripts/with-server.sh` runs, on PATH).
    pub fn start() -> Self {
        use std::io::{BufRead, BufReader};
        let dir = std::env::temp_dir().join(format!("sq-standalone-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut child = std::process::Command::new("secantusd-rs")
            .args([
                "--standalone",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--cache-size",
                "256M",
                "--log-file-max",
                "16MB",
                "--storage-path",
            ])
            .arg(&dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("cannot start secantusd-rs (the test server) for the standalone test");
        let stdout = child.stdout.take().expect("server stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut uri = None;
        for line in lines.by_ref().take(50) {
            let line = line.unwrap_or_default();
            if let Some(addr) = line.split("listening on ").nth(1) {
                uri = Some(format!("mongodb://{}/?directConnection=true", addr.trim()));
                break;
            }
        }
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let uri = uri.expect("the standalone server did not print its address");
        StandaloneServer {
            child,
            uri,
            _dir: dir,
        }
    }
}

impl Drop for StandaloneServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}
