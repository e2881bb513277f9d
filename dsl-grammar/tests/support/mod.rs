//! What the tests of syntax errors share: the first diagnostic of a text that must not parse.

use squillion_grammar::{parse, Diagnostic};

/// The first diagnostic of `src`, which must not parse (the panic shows the text).
pub fn first_error(src: &str) -> Diagnostic {
    match parse(src) {
        Ok(_) => panic!("parses, but should not:\n{src}"),
        Err(d) => d
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no diagnostic\n{src}")),
    }
}
