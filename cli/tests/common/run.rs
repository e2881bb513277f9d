//! Running the `squillion` binary as a user runs it, for the tests that talk to the server.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

/// What one run of the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A finished process's exit code and output, as text.
impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts the exit code and that nothing panicked.
    pub fn expect(&self, code: i32, what: &str) -> &Self {
        assert_eq!(
            self.code, code,
            "{what}: exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "{what}: panicked\n{}",
            self.stderr
        );
        self
    }
}

/// The workspace's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `squillion ARGS` (off the async runtime, so the test's own client keeps running).
pub async fn squillion<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    tokio::task::spawn_blocking(move || {
        let out = Command::cargo_bin("squillion")
            .unwrap()
            .current_dir(root())
            .env("NO_COLOR", "1")
            .env_remove("SQUILLION_MONGODB_URI")
            .args(&args)
            .timeout(Duration::from_secs(300))
            .output()
            .unwrap();
        Run::from(out)
    })
    .await
    .unwrap()
}
