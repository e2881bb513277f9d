//! Any bytes that make a valid schema go through the whole pipeline (parse -> check -> Plan ->
//! Rust) and the Rust written must parse as a Rust file (`syn::parse_file`): every valid schema
//! generates code the compiler can at least read. Invalid inputs must fail with coded,
//! positioned diagnostics.
//!
//! `cd fuzz && cargo fuzz run generate corpus/generate ../examples` (see docs/testing.md for
//! the stable-toolchain command).
#![no_main]

use libfuzzer_sys::fuzz_target;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

fuzz_target!(|data: &[u8]| {
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
                    assert!(d.span.start <= d.span.end && d.span.end <= source.text().len(), "{d:?}");
                }
                let _ = source.render(&diagnostics, false);
                return;
            }
        }
    }
});
