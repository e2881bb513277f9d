//! The code squillion generates for hostile but valid schemas (`hostile/schemas/*.sqn`): names
//! like Rust's prelude, keywords and the generated items, doc comments Rust and rustdoc refuse or
//! would run, strings that break literals and Markdown.
//!
//! `codegen/tests/hostile.rs` fails when the generator's output differs from these files; this
//! crate compiles them with `#![deny(warnings)]` (and clippy `-D warnings` in CI), and
//! `cargo test` runs their doc comments, which must hold no doctest.
#![deny(warnings, missing_docs)]

/// `hostile/schemas/docs.sqn`: doc comments.
#[rustfmt::skip]
pub mod docs;
/// `hostile/schemas/names.sqn`: names.
#[rustfmt::skip]
pub mod names;
/// `hostile/schemas/strings.sqn`: strings.
#[rustfmt::skip]
pub mod strings;
