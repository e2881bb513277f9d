//! The migrations `benches/migrations.rs` times are what squillion generates: each pair of
//! schemas `benches/migrations/<old>.sqn` -> `<new>.sqn` has its generated Rust migration (the
//! module `squillion migrate OLD NEW -o DIR` writes) checked in as `<kind>.rs`, and this test
//! fails when the generator's output differs from it, so the benchmark never times stale steps.
//! Updating is opt-in: `SQUILLION_BLESS=1 cargo test --test migration_bench_modules`.

mod checked_in;

use std::path::{Path, PathBuf};

use squillion_codegen::migration;
use squillion_codegen::pipeline::check;
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

/// Each benchmarked kind: its module and its two schemas.
const KINDS: &[(&str, &str, &str)] = &[
    ("embed_to_child_ref", "embed", "child_ref"),
    ("copy_backfilled", "plain", "copied"),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/migrations")
}

fn plan(stem: &str) -> Plan {
    let name = format!("{stem}.sqn");
    let text = std::fs::read_to_string(dir().join(&name)).unwrap();
    let source = SourceFile::new(name, text);
    match check(&source) {
        Ok(valid) => valid.plan,
        Err(d) => panic!("{stem}: {}", source.render(&d, false)),
    }
}

fn generate(old: &str, new: &str) -> String {
    let (old, new) = (plan(old), plan(new));
    let diff = squillion_codegen::diff::diff(&old, &new);
    let m =
        migration::plan(&old, &new, &diff).unwrap_or_else(|refused| panic!("refused: {refused:?}"));
    migration::rust::module(&m).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_benchmarked_migration_matches_the_generator() {
    let bench = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/migrations.rs"),
    )
    .unwrap();
    let mut differ = Vec::new();
    for (kind, old, new) in KINDS {
        let generated = generate(old, new);
        let path = dir().join(format!("{kind}.rs"));
        checked_in::compare_or_bless(&path, &generated, &mut differ);
        assert!(
            bench.contains(&format!("\"migrations/{kind}.rs\"")),
            "benches/migrations.rs does not include the migration {kind}"
        );
    }
    assert!(
        differ.is_empty(),
        "generated migrations changed ({}); regenerate with SQUILLION_BLESS=1 cargo test --test migration_bench_modules",
        differ.join(", ")
    );
}
