//! Generated code that is right on any schema (issue 11): the schemas of `families` (each defect's
//! family of layouts and placements, written from facts) are generated at build time, one module
//! each, and the tests in `tests/` run their repositories against the real server.
//!
//! Every module holds what `squillion generate` writes for its schema, plus `SQN` (the schema),
//! `PLAN_JSON` (its Plan) and `ensure_indexes(db)` (every collection's repository).
#![deny(missing_docs)]

pub mod families;

include!(concat!(env!("OUT_DIR"), "/modules.rs"));
