//! Generated `.sqn` schemas for tests: proptest strategies over a structured description of a
//! schema (entities, value types, fields with features, relations with cardinalities, facts and
//! forced layouts, queries), rendered to text.
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//!
//! let mut runner = TestRunner::deterministic();
//! let schema = squillion_schemagen::schema(Default::default())
//!     .new_tree(&mut runner)
//!     .unwrap()
//!     .current();
//! let text = squillion_schemagen::render(&schema);
//! assert!(text.contains("entity E0"));
//! ```
//!
//! Every generated schema is valid (`squillion check` accepts it and the Plan has no error; a
//! property test holds the generator to that), and together they cover every layout family,
//! forced and chosen, with copies, subsets, top-N lists, summaries and outliers, and fields with
//! every feature at every placement. [`batch`] draws a fixed-seed batch, the same on every
//! machine; [`covering_batch`] opens it with one schema per [`ANCHORS`] entry, so the rows
//! the model-based harness must cover are there whatever the seed.
#![deny(missing_docs)]

mod anchor;
mod build;
mod reduce;
mod render;
mod spec;
mod strategy;

pub use anchor::{anchored_recipe, batch, covering_batch, Anchor, Modifiers, ANCHORS};
pub use build::build;
pub use reduce::{reduce, reduce_all, reductions};
pub use render::{card, render, ty};
pub use spec::*;
pub use strategy::{
    recipe, schema, schema_with_recipe, Config, EntityRecipe, Feature, Recipe, RelationRecipe,
};
