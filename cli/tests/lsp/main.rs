//! `squillion lsp` tested as an editor uses it: each test spawns the server and speaks JSON-RPC to
//! it over standard input and output (initialize, didOpen, didChange, hover, definition,
//! references, completion, codeAction, formatting, inlayHint, shutdown, exit), and checks its
//! answers against `squillion check`, `squillion plan --json`, `squillion fmt` and the syntax tree.

mod client;
mod editing;
mod errors;
mod examples;
mod oracle;
