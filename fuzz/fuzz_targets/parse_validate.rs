//! Any bytes through parse, validation and, when the file is valid, the decision engine: no
//! panic, no hang, whatever the input (the property is `checks::parse_validate`).
//!
//! `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none parse_validate corpus/parse_validate
//! ../examples` (stable toolchain, see docs/testing.md; the examples seed the corpus, new inputs
//! go to `corpus/parse_validate`).
#![no_main]

// Each target uses one of the shared properties.
#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::parse_validate(data));
