//! Running a generated mongosh script with mongosh itself (pinned in `tools/mongosh`, installed by
//! `scripts/ensure-node-packages.sh`) against the test server, as a user runs it:
//! `mongosh URI script.js`.

use super::*;

/// The mongosh binary the tests run: missing, the test fails and says how to install it.
fn mongosh_bin() -> PathBuf {
    let bin = root().join("tools/mongosh/node_modules/.bin/mongosh");
    assert!(
        bin.exists(),
        "mongosh is not installed at {}: run scripts/ensure-node-packages.sh (scripts/test.sh does)",
        bin.display()
    );
    bin
}

/// Runs `script` with mongosh on database `db` of the test server: its exit code and output.
pub(super) async fn mongosh(script: &str, db: &str) -> Run {
    let bin = mongosh_bin();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("migration.js");
    std::fs::write(&file, script).unwrap();
    let uri = db_uri(db);
    tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(bin)
            .args(["--quiet", "--norc"])
            .arg(uri)
            .arg(&file)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        drop(dir);
        Run::from(out)
    })
    .await
    .unwrap()
}
