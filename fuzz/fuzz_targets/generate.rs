//! Any bytes that make a valid schema go through the whole pipeline and the Rust written must
//! parse as a Rust file (the property is `checks::generate`).
//!
//! `cd fuzz && cargo fuzz run generate corpus/generate ../examples` (see docs/testing.md for
//! the stable-toolchain command).
#![no_main]

// Each target uses one of the shared properties.
#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::generate(data));
