//! squillion: MongoDB schema design for Rust applications.
//!
//! Declare your entities, relationships and access facts in a `.sqn` file; squillion decides the
//! layout of every relationship (embed, reference, bucket, subset, ...) with MongoDB's rules of thumb
//! and design patterns, explains each choice, and generates the Rust code that keeps it honest.
//!
//! Entry points:
//! - the CLI, `squillion check|plan FILE`;
//! - [`grammar`] and [`codegen`] as libraries (parse, validate, plan);
//! - `#[derive(squillion::Document)]` (default feature `derive`) on generated or hand-written
//!   structs: it writes a typed repository, `<Name>Repo`, whose operations keep each layout
//!   correct against MongoDB (bounded arrays, buckets, subsets, queues, trees, ...). The attribute
//!   language is described in `docs/derive.md`.
//!
//! ```ignore
//! #[derive(serde::Serialize, serde::Deserialize, squillion::Document)]
//! #[squillion(collection = "books", schema_version = 1)]
//! struct Book {
//!     #[serde(rename = "_id")]
//!     #[squillion(id)]
//!     id: bson::oid::ObjectId,
//!     #[squillion(index)]
//!     title: String,
//!     #[squillion(embed(max = 200))]
//!     notes: squillion::BoundedVec<Note, 200>,
//! }
//!
//! let books = BookRepo::new(&db);
//! books.ensure_indexes().await?;
//! books.push_notes(&id, &note).await?; // Error::BoundExceeded when 200 are there
//! ```
#![deny(missing_docs)]

#[doc(hidden)]
#[path = "runtime/mod.rs"]
pub mod __private;
mod bounded;
#[cfg(feature = "build")]
pub mod build;
mod document;
mod error;
mod page;

pub use squillion_codegen as codegen;
pub use squillion_grammar as grammar;

pub use __private::bucket::BucketAppend;
pub use __private::indexes::{IndexReport, ValidatorReport};
pub use bounded::{BoundedVec, CapacityError};
pub use document::{Document, IndexCollation, IndexKind, IndexSpec, SchemaVersion};
pub use error::{Error, Result};
pub use page::{Page, PageRequest};

/// `#[derive(squillion::Document)]`: see `docs/derive.md`.
#[cfg(feature = "derive")]
pub use squillion_derive::Document;
