//! `squillion infer` against a real server: bad input, odd documents, hand-made legacy layouts,
//! and the round trip from every example's generated code back to its facts. Run with
//! `scripts/with-server.sh cargo test -p squillion-cli --test infer`; without a server the tests
//! fail, saying how to get one.

use squillion_testkit::{uri, TestDb};

#[path = "common/run.rs"]
mod run;
use run::{root, squillion, Run};

/// Runs `squillion infer` on the test's database, writing the draft to a temporary file; returns
/// the run, the draft's text and its directory (kept alive by the caller).
async fn infer(t: &TestDb, extra: &[&str]) -> (Run, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("draft.sqn");
    let mut args: Vec<String> = vec![
        "infer".into(),
        "--uri".into(),
        uri(),
        "--db".into(),
        t.db.name().into(),
        "-o".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = squillion(args).await;
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    (run, text, dir)
}

/// The draft passes `squillion check` and is formatted as `squillion fmt` formats.
async fn assert_valid(dir: &tempfile::TempDir) {
    let file = dir.path().join("draft.sqn");
    let f = file.display().to_string();
    squillion(["check", f.as_str()])
        .await
        .expect(0, "check of the draft");
    squillion(["fmt", "--check", f.as_str()])
        .await
        .expect(0, "fmt --check of the draft");
}

#[path = "infer/errors.rs"]
mod errors;

#[path = "infer/fill.rs"]
mod fill;

#[path = "infer/roundtrip.rs"]
mod roundtrip;

#[path = "infer/legacy.rs"]
mod legacy;

#[path = "infer/plan_fill.rs"]
mod plan_fill;
#[path = "infer/plan_summaries.rs"]
mod plan_summaries;

#[path = "infer/generated.rs"]
mod generated;

#[path = "infer/counts.rs"]
mod counts;

#[path = "infer/coherent.rs"]
mod coherent;

#[path = "infer/windows.rs"]
mod windows;
