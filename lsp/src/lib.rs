//! The squillion language server (`squillion lsp`): speaks the Language Server Protocol over
//! standard input and output, built on rust-analyzer's `lsp-server` scaffold.
//!
//! For each open `.sqn` document it gives:
//!
//! - diagnostics as the text changes: the codes, places, messages and help of `squillion check`,
//!   plus the Plan's warnings ([`analysis`], [`diagnostics`]);
//! - hover: a relation's decision, a field's stored path, type, size and indexes ([`hover`]);
//! - go to definition and find references of entities, value types, fields and relation ends
//!   ([`symbols`]);
//! - completion of keywords, names, attributes, types and units ([`completion`]);
//! - quick fixes for "did you mean" diagnostics ([`actions`]);
//! - inlay hints with the layout chosen for each relation ([`inlay`]);
//! - formatting with `squillion fmt`'s layout.
//!
//! Every message and sentence comes from the grammar and codegen crates; the server only places
//! them. Positions are converted between byte offsets and the protocol's UTF-16 columns
//! ([`text`]).
#![deny(missing_docs)]

pub mod actions;
pub mod analysis;
pub mod completion;
mod context;
pub mod diagnostics;
pub mod documents;
pub mod hover;
pub mod inlay;
mod server;
pub mod symbols;
pub mod text;

pub use server::{capabilities, run, Server};

/// Serves one client over standard input and output until it exits.
///
/// Returns an error when the client breaks the protocol (for example, closes the connection
/// without `shutdown` and `exit`).
pub fn run_stdio() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    run(&connection)?;
    drop(connection);
    io_threads.join()?;
    Ok(())
}
