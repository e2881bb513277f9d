//! The `#[derive(squillion::Document)]` macro. Its expansion arrives with the code-generation work;
//! for now the crate only reserves its place in the workspace.
#![deny(missing_docs)]
