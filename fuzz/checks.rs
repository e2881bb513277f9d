//! What every fuzz input must satisfy, shared by the cargo-fuzz targets (`fuzz_targets/`) and by
//! `codegen/tests/fuzz_corpus.rs`, which replays the checked-in corpora in every `cargo test`.
//! Each function panics when the property fails; that panic is the fuzzer's finding.

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

/// Any bytes through parse, validation and, when the file is valid, the decision engine: no
/// panic, no hang, whatever the input.
pub fn parse_validate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let source = SourceFile::new("fuzz.sqn", text.as_ref());
    match squillion_codegen::load(&source) {
        Ok(checked) => {
            let plan = squillion_codegen::engine::plan(&checked.model, &source);
            let _ = plan.has_errors();
        }
        Err(diagnostics) => {
            every_error_has_help(&diagnostics);
            let _ = source.render(&diagnostics, false);
        }
    }
}

/// Every error says what to do: a help line, never empty (the brief: coded diagnostics with a
/// position and a help line).
fn every_error_has_help(diagnostics: &[squillion_grammar::Diagnostic]) {
    for d in diagnostics.iter().filter(|d| d.is_error()) {
        assert!(
            d.help.as_deref().is_some_and(|h| !h.trim().is_empty()),
            "{} has no help line: {}",
            d.code,
            d.message
        );
    }
}

/// Any bytes that make a valid schema go through the whole pipeline (parse -> check -> Plan ->
/// Rust) and the Rust written must parse as a Rust file (`syn::parse_file`). Invalid inputs must
/// fail with coded diagnostics whose spans lie inside the source.
pub fn generate(data: &[u8]) {
    let source = match SourceFile::from_bytes("fuzz.sqn".to_owned(), data.to_vec()) {
        Ok(source) => source,
        Err(e) => {
            assert!(e.diagnostic.code.starts_with('E'));
            return;
        }
    };
    for derive_document in [true, false] {
        match compile(&source, &GenerateSettings { derive_document }) {
            Ok(generated) => {
                if let Err(e) = syn::parse_file(&generated.rust) {
                    // Fuzzing harness, not product code: the panic is how a failed property is
                    // reported to libFuzzer and to the corpus replay test.
                    panic!(
                        "generated Rust does not parse: {e}\n--- schema ---\n{}\n--- rust ---\n{}",
                        source.text(),
                        generated.rust
                    );
                }
            }
            Err(diagnostics) => {
                assert!(diagnostics.iter().any(|d| d.is_error()), "{diagnostics:?}");
                for d in &diagnostics {
                    assert!(!d.code.is_empty(), "{d:?}");
                    assert!(
                        d.span.start <= d.span.end && d.span.end <= source.text().len(),
                        "{d:?}"
                    );
                }
                let _ = source.render(&diagnostics, false);
                return;
            }
        }
    }
}
