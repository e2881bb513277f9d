//! Replays the checked-in fuzz corpora (`fuzz/corpus/<target>/`) through the same properties the
//! fuzzer checks (`fuzz/checks.rs`), so every input the fuzzer ever found interesting stays a
//! regression test of plain `cargo test`, without the nightly sanitizer build.

#[path = "../../fuzz/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {} cannot be read: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    // The corpora are checked in: an empty one means the replay would prove nothing.
    assert!(
        files.len() > 100,
        "{} holds only {} inputs",
        dir.display(),
        files.len()
    );
    files
}

fn replay(target: &str, property: fn(&[u8])) {
    for path in corpus(target) {
        let data = std::fs::read(&path).expect("a corpus input");
        let outcome = std::panic::catch_unwind(|| property(&data));
        assert!(outcome.is_ok(), "{target} fails on {}", path.display());
    }
}

#[test]
fn every_parse_validate_input_is_answered_without_a_panic() {
    replay("parse_validate", checks::parse_validate);
}

#[test]
fn every_generate_input_compiles_to_rust_that_parses_or_is_refused_with_codes() {
    replay("generate", checks::generate);
}
