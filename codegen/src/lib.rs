//! squillion's middle and back end: the Model (names resolved, facts checked), the decision engine
//! that turns it into a Plan, and the emitters that read the Plan.
//!
//! Data flows one way: `.sqn` text -> [`squillion_grammar::ast::Schema`] -> [`model::Model`] ->
//! Plan -> outputs.
#![deny(missing_docs)]

pub mod codes;
pub mod diff;
pub mod engine;
pub mod explain;
pub mod files;
pub mod lock;
pub mod migration;
pub mod model;
pub mod pipeline;
pub mod plan;
pub mod prose;
pub mod resolve;
pub mod review;
pub mod rust;
pub mod scripts;
pub mod validator;

pub use resolve::{load, resolve};
