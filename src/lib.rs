//! squillion: MongoDB schema design for Rust applications.
//!
//! Declare your entities, relationships and access facts in a `.sqn` file; squillion decides the
//! layout of every relationship (embed, reference, bucket, subset, ...) with MongoDB's rules of thumb
//! and design patterns, explains each choice, and generates the Rust code that keeps it honest.
//!
//! Three ways in:
//!
//! - **The CLI**: `squillion check|plan|review|generate FILE`, and `indexes`/`audit` against a
//!   live database (crate `squillion-cli`).
//! - **build.rs**: the `squillion-build` crate (a build dependency only, so the parser, the
//!   engine and the emitters never enter the application's own build, as with `prost` and
//!   `prost-build`) writes `$OUT_DIR/<stem>.rs` for each schema `<stem>.sqn`, which the crate
//!   brings in with `include!`:
//!
//!   ```toml
//!   [dependencies]
//!   squillion = "0.1"
//!
//!   [build-dependencies]
//!   squillion-build = "0.1"
//!   ```
//!
//!   ```text
//!   // build.rs: schema/library.sqn becomes $OUT_DIR/library.rs
//!   squillion_build::Builder::new().schema("schema/library.sqn").compile()?;
//!   // src/lib.rs
//!   include!(concat!(env!("OUT_DIR"), "/library.rs"));
//!   ```
//!
//! - **The derive** (default feature `derive`): `#[derive(squillion::Document)]` on generated or
//!   hand-written structs writes a typed repository, `<Name>Repo`, whose operations keep each
//!   layout correct against MongoDB (bounded arrays, buckets, subsets, queues, trees, ...). The
//!   attribute language is described in `docs/derive.md`.
//!
//! The driver and BSON are re-exported as [`mongodb`] and [`bson`], so an application needs no
//! dependency of its own on them (and no matching versions).
//!
//! ```no_run
//! use squillion::BoundedVec;
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Note {
//!     text: String,
//! }
//!
//! #[derive(serde::Serialize, serde::Deserialize, squillion::Document)]
//! #[squillion(collection = "books", schema_version = 1)]
//! struct Book {
//!     #[serde(rename = "_id")]
//!     #[squillion(id)]
//!     id: squillion::bson::oid::ObjectId,
//!     #[squillion(index)]
//!     title: String,
//!     #[squillion(embed(max = 200))]
//!     notes: BoundedVec<Note, 200>,
//! }
//!
//! async fn add_note(
//!     db: &squillion::mongodb::Database,
//!     id: squillion::bson::oid::ObjectId,
//! ) -> squillion::Result<()> {
//!     let books = BookRepo::new(db);
//!     books.ensure_indexes().await?;
//!     // Error::BoundExceeded when 200 notes are there: the update itself carries the guard.
//!     books.push_notes(&id, &Note { text: "first edition".into() }).await
//! }
//! ```
//!
//! The parser and the engine are libraries of their own (`squillion-grammar`, `squillion-codegen`).
#![deny(missing_docs)]

#[doc(hidden)]
#[path = "runtime/mod.rs"]
pub mod __private;
mod bounded;
mod document;
mod error;
mod geo;
mod page;

pub mod migrate;

/// BSON, the version the driver and the generated code use.
pub use ::bson;
/// The official MongoDB driver, the version the generated repositories use.
pub use ::mongodb;
/// `squillion-build`, for build scripts written before it was a crate of its own: prefer
/// `squillion-build` in `[build-dependencies]`.
#[cfg(feature = "build")]
pub use ::squillion_build as build;

pub use __private::bucket::BucketAppend;
pub use __private::indexes::{IndexReport, ValidatorReport};
pub use bounded::{BoundedVec, CapacityError};
pub use document::{Document, IndexCollation, IndexKind, IndexSpec, SchemaVersion};
pub use error::{DriverError, Error, Result};
pub use geo::{GeoPoint, GeoShape, EARTH_RADIUS_METERS};
pub use page::{CursorPage, Page, PageCursor, PageRequest};

/// `#[derive(squillion::Document)]`: see `docs/derive.md`.
#[cfg(feature = "derive")]
pub use squillion_derive::Document;
