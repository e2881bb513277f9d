//! The code squillion generates for every example schema (`examples/*.sqn`), checked in.
//!
//! `codegen/tests/golden.rs` fails when the generator's output differs from these files; this
//! crate compiles them, so every golden builds without a warning (and passes clippy in CI).
#![deny(warnings, missing_docs)]

// The goldens are the generator's bytes (prettyplease), not rustfmt's.

/// `examples/generated/schemas/attributes.sqn`: the attribute pattern written one attribute at a
/// time (the server test `tests/attributes.rs`).
#[rustfmt::skip]
pub mod attributes;
/// `examples/generated/schemas/children.sqn`: queries on a parent's children, one per layout
/// (the server test `tests/children_queries.rs`).
#[rustfmt::skip]
pub mod children;
/// `examples/generated/schemas/optional_ends.sqn`: children that may have no parent (`one?`), one
/// relation per layout (the server test `tests/optional_ends.rs`).
#[rustfmt::skip]
pub mod optional_ends;
/// `examples/generated/schemas/elements.sqn`: numbers in the elements of arrays, changed one
/// element at a time (the server test `tests/elements.rs`).
#[rustfmt::skip]
pub mod elements;
/// `examples/generated/schemas/helpdesk.sqn`: a helpdesk written from the docs alone (the server
/// test `tests/helpdesk.rs`).
#[rustfmt::skip]
pub mod helpdesk;
/// `examples/generated/schemas/totals.sqn`: summaries over every numeric type in every layout
/// that keeps them (the server test `tests/totals.rs`).
#[rustfmt::skip]
pub mod totals;
/// `examples/generated/schemas/versions.sqn`: document versioning with a history (seed 002,
/// pattern 2; the server test `tests/versions.rs`).
#[rustfmt::skip]
pub mod versions;
/// `examples/generated/schemas/schema_versions.sqn`: every kind of query method of a versioned
/// collection checks each document's schema version (the server test
/// `tests/schema_versions.rs`).
#[rustfmt::skip]
pub mod schema_versions;
/// `examples/generated/schemas/conditions.sqn`: queries comparing one field twice, and fields
/// compared without regard to case (the server test `tests/conditions.rs`).
#[rustfmt::skip]
pub mod conditions;
/// `examples/generated/schemas/outliers.sqn`: the outlier pattern with lists and summaries kept
/// on the parent (the server test `tests/outliers.rs`).
#[rustfmt::skip]
pub mod outliers;
/// `examples/generated/schemas/two_way.sqn`: two-way references with copies on either side or
/// both, one-to-many and many-to-many (the server test `tests/two_way.rs`).
#[rustfmt::skip]
pub mod two_way;
/// `examples/blog.sqn` (seed 003).
#[rustfmt::skip]
pub mod blog;
/// `examples/catalog.sqn` (seed 001).
#[rustfmt::skip]
pub mod catalog;
/// `examples/inventory.sqn` (seed 004).
#[rustfmt::skip]
pub mod inventory;
/// `examples/library.sqn` (seed 000).
#[rustfmt::skip]
pub mod library;
/// `examples/patterns.sqn` (seed 002).
#[rustfmt::skip]
pub mod patterns;
