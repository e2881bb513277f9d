//! Model-based end-to-end tests of the code squillion generates.
//!
//! `build.rs` draws a fixed-seed batch of valid schemas (`squillion-schemagen`), plans and
//! generates each into a module of this crate ([`schemas`]), with glue that calls its
//! repositories with BSON arguments ([`driver`]). The harness ([`run`]) then drives random
//! operation sequences through those repositories against the real server, keeps a reference
//! model of what each operation must leave behind ([`model`]), and after every step checks that
//! the stored documents equal the reference and satisfy the Plan's invariants ([`checks`]).
//! Failures shrink to a minimal operation sequence. `docs/testing.md` says what is covered and
//! how to reproduce a failure.
#![deny(warnings, missing_docs)]

pub mod apply;
pub mod buckets;
pub mod checks;
pub mod coverage;
pub mod documents;
pub mod draw;
pub mod driver;
pub mod elements;
pub mod links;
pub mod model;
pub mod ops;
pub mod outside;
pub mod patterns;
pub mod queries;
pub mod run;
pub mod shrink;
pub mod subsets;
pub mod unique;
pub mod values;

/// The generated batch: one module per schema, and [`schemas::SCHEMAS`].
pub mod schemas {
    include!(concat!(env!("OUT_DIR"), "/schemas.rs"));
}
