//! Stable codes of the syntax diagnostics (documented in `docs/diagnostics.md`).

/// The text does not follow the grammar.
pub const SYNTAX: &str = "E0101";
/// Brackets nested deeper than [`crate::MAX_NESTING`].
pub const NESTING_TOO_DEEP: &str = "E0102";
/// The file is larger than [`crate::MAX_SOURCE_BYTES`].
pub const FILE_TOO_LARGE: &str = "E0103";
/// A doc comment (`///`) where no declaration, field or fact follows.
pub const STRAY_DOC_COMMENT: &str = "E0104";
/// A string literal not closed on its line.
pub const UNTERMINATED_STRING: &str = "E0105";

/// The file is not UTF-8 text.
pub const INVALID_UTF8: &str = "E0106";

/// Every syntax code with a one-line summary.
pub const ALL: &[(&str, &str)] = &[
    (SYNTAX, "syntax error: the text does not follow the grammar"),
    (NESTING_TOO_DEEP, "brackets nested too deeply"),
    (FILE_TOO_LARGE, "file too large"),
    (STRAY_DOC_COMMENT, "doc comment with nothing to document"),
    (UNTERMINATED_STRING, "unterminated string literal"),
    (INVALID_UTF8, "the file is not UTF-8 text"),
];
