//! The runtime the derive's generated code calls, re-exported as `squillion::__private`.
//!
//! Not a public API: names here change without notice. Generated code reaches every dependency
//! through this module (`::squillion::__private::mongodb::...`), so applications need not depend on
//! the driver, bson, futures or serde themselves.

pub mod arrays;
pub mod attributes;
pub mod bucket;
pub mod checked_reads;
pub mod copies;
pub mod core;
pub mod elements;
pub mod fanout;
pub mod fields;
pub mod history;
pub mod indexes;
pub mod json;
pub mod kept;
pub mod links;
pub mod maps;
pub mod online;
pub mod online_reads;
pub mod outlier;
pub mod paging;
pub mod query;
pub mod queue;
mod session;
pub mod shape;
pub mod subsets;
pub mod summaries;
pub mod tree;
pub mod two_way;
pub mod txn;
pub mod unique;
pub mod versioning;

pub use ::bson;
pub use ::futures;
pub use ::mongodb;
pub use ::serde;
pub use ::serde_json;

pub use self::core::{check_schema_version, describe, to_bson, to_document, RepoCore};
pub use crate::error::Context;

/// `Option`, `Result`, `Vec`, `String` by absolute path, for generated code.
pub use ::core::option::Option;
pub use ::core::result::Result as StdResult;
pub use ::std::string::String;
pub use ::std::vec::Vec;
