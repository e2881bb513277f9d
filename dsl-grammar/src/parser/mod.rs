//! Text -> [`Schema`]: runs the pest grammar and builds the spanned syntax tree.
//!
//! Syntax errors become [`Diagnostic`]s that speak the user's language (pest's rule names never reach
//! the user). After an error the parser resynchronises at the next top-level declaration so that one
//! run reports every broken declaration, not only the first.

mod habits;
mod misplaced;
mod names;
mod queries;
mod relations;
mod syntax_error;
mod syntax_help;
mod tree;
mod types;

use pest::Parser as _;

use crate::ast::Schema;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// The deepest bracket nesting accepted (`[[[...]]]`, `map<map<...>>`).
pub const MAX_NESTING: usize = 64;
/// The largest source accepted, in bytes.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024 * 1024;
/// A word quoted in a syntax error is cut after this many characters.
pub(crate) const MAX_FOUND_CHARS: usize = 40;
/// After this many syntax errors the parser stops looking for more.
const MAX_SYNTAX_ERRORS: usize = 20;

#[derive(pest_derive::Parser)]
#[grammar = "squillion.pest"]
pub(crate) struct SqnParser;

/// Parses a `.sqn` source into its syntax tree, or returns every syntax error found.
pub fn parse(source: &str) -> Result<Schema, Vec<Diagnostic>> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(vec![Diagnostic::error(
            codes::FILE_TOO_LARGE,
            Span::new(0, 0),
            format!(
                "the file is {} bytes, more than the {} bytes squillion reads",
                source.len(),
                MAX_SOURCE_BYTES
            ),
        )
        .with_help("split the schema into several files")]);
    }
    if let Some(deep) = check_nesting(source) {
        // Garbage leaves brackets open too: a syntax error before the point where the nesting
        // became too deep is the first real error. The text before it nests at most
        // `MAX_NESTING` deep, so the parser can look at it safely.
        let cut = deep.span.start;
        let before: Vec<Diagnostic> = match parse_checked(&source[..cut]) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.into_iter().filter(|d| d.span.start < cut).collect(),
        };
        return Err(if before.is_empty() {
            vec![deep]
        } else {
            before
        });
    }
    parse_checked(source)
}

/// Parses a source whose size and nesting were checked.
fn parse_checked(source: &str) -> Result<Schema, Vec<Diagnostic>> {
    // Fast path: most files are valid, and pest's error detail costs time on every token. The
    // detail is a process-wide switch (`pest::set_error_detail`): it is only ever turned on, so
    // a parse on another thread (tests, the language server) never loses the detail its error
    // message needs; a process that met an error keeps paying for the detail.
    if let Ok(pairs) = SqnParser::parse(Rule::schema, source) {
        return build_schema(pairs, source.len()).map_err(|d| vec![*d]);
    }
    // The file has errors: parse again with the detail that names what was expected.
    pest::set_error_detail(true);

    let mut errors = Vec::new();
    let mut offset = 0;
    loop {
        match SqnParser::parse(Rule::schema, &source[offset..]) {
            Ok(pairs) => {
                if errors.is_empty() {
                    return build_schema(pairs, source.len()).map_err(|d| vec![*d]);
                }
                break;
            }
            Err(error) => {
                let diagnostic = syntax_diagnostic(source, offset, &error);
                let at = diagnostic.span.start;
                errors.push(diagnostic);
                match resync_point(source, at) {
                    Some(next) if errors.len() < MAX_SYNTAX_ERRORS => offset = next,
                    _ => break,
                }
            }
        }
    }
    Err(errors)
}

use syntax_error::{check_nesting, resync_point, syntax_diagnostic};
use types::build_schema;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_arrows_and_comparisons_do_not_count_as_nesting() {
        let mut src = String::new();
        for i in 0..200 {
            src.push_str(&format!("relation A.x{i}: one <-> B.y{i}: many\nquery q{i} on A {{ where n > ? and m < ? }}\n"));
        }
        assert!(check_nesting(&src).is_none());
    }

    #[test]
    fn deep_maps_and_arrays_are_refused() {
        let deep = format!(
            "entity A {{ x: {}string{} }}",
            "map<".repeat(70),
            ">".repeat(70)
        );
        assert_eq!(
            check_nesting(&deep).map(|d| d.code),
            Some(codes::NESTING_TOO_DEEP)
        );
        let deep = format!(
            "entity A {{ x: {}string{} }}",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert!(check_nesting(&deep).is_some());
        let fine = format!(
            "entity A {{ x: {}string{} }}",
            "map<".repeat(10),
            ">".repeat(10)
        );
        assert!(check_nesting(&fine).is_none());
    }

    #[test]
    fn garbage_that_also_nests_deeply_is_reported_at_its_first_error() {
        // The first error is the `%` on line 2; the unclosed brackets after it pass the nesting
        // limit much later.
        let garbage = format!("entity A {{ t: string }}\n% {}\n", "([{".repeat(200));
        let errors = parse(&garbage).unwrap_err();
        assert_eq!(errors[0].code, codes::SYNTAX, "{errors:?}");
        assert_eq!(errors[0].span.start, garbage.find('%').unwrap());
        // Deep nesting in a well-formed type is still E0102.
        let deep = format!(
            "entity A {{ x: {}string{} }}",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert_eq!(parse(&deep).unwrap_err()[0].code, codes::NESTING_TOO_DEEP);
    }

    #[test]
    fn a_long_word_is_cut_in_the_message() {
        let text = format!("entity A {{ t string{} }}", "x".repeat(100_000));
        let errors = parse(&text).unwrap_err();
        assert!(errors[0].message.len() < 200, "{}", errors[0].message);
        assert!(errors[0].message.contains("…`"), "{}", errors[0].message);
    }
}
