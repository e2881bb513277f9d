//! The squillion schema language (`.sqn`): grammar, parser, spanned syntax tree and diagnostics.
//!
//! ```
//! let schema = squillion_grammar::parse("entity Book { title: string @index }").unwrap();
//! assert_eq!(schema.items.len(), 1);
//! ```
#![deny(missing_docs)]

pub mod ast;
pub mod codes;
pub mod diagnostic;
mod format;
mod keywords;
mod parser;
mod render;
pub mod span;

pub use diagnostic::{Diagnostic, Fix, LocatedDiagnostic, NotText, Severity, SourceFile};
pub use format::format;
pub use keywords::keywords;
pub use parser::{parse, MAX_NESTING, MAX_SOURCE_BYTES};
pub use render::{escape_invisible, is_invisible};
pub use span::{LineIndex, Position, Span};
