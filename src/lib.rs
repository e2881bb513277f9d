//! squillion: MongoDB schema design for Rust applications.
//!
//! Declare your entities, relationships and access facts in a `.sqn` file; squillion decides the
//! layout of every relationship (embed, reference, bucket, subset, ...) with MongoDB's rules of thumb
//! and design patterns, explains each choice, and generates the Rust code that keeps it honest.
//!
//! Entry points:
//! - the CLI, `squillion check|plan FILE`;
//! - [`grammar`] and [`codegen`] as libraries (parse, validate, plan).
#![deny(missing_docs)]

pub use squillion_codegen as codegen;
pub use squillion_grammar as grammar;

#[cfg(feature = "build")]
pub mod build;
