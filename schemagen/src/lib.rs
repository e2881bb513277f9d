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
//! machine.
#![deny(missing_docs)]

mod build;
mod reduce;
mod render;
mod spec;
mod strategy;

pub use build::build;
pub use reduce::{reduce, reduce_all, reductions};
pub use render::{card, render, ty};
pub use spec::*;
pub use strategy::{
    recipe, schema, schema_with_recipe, Config, EntityRecipe, Feature, Recipe, RelationRecipe,
};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};

/// `count` schemas drawn from `seed`: the same seed gives the same schemas on every machine.
pub fn batch(seed: u64, count: usize, config: Config) -> Vec<(Recipe, Schema)> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(RunnerConfig::default(), rng);
    let strategy = schema_with_recipe(config);
    (0..count)
        .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
        .collect()
}
