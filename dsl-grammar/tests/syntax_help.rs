//! Every syntax error says what to do: a help line, specific for the mistakes people make (a
//! unit written apart from its number, SQL's `order by`, a literal where a query takes `?`) and
//! otherwise what the construct being written looks like. Tested over the mistakes themselves,
//! spelled several ways, and over random damage to every example schema.

use proptest::prelude::*;
use squillion_grammar::{parse, Diagnostic};

fn errors(src: &str) -> Vec<Diagnostic> {
    match parse(src) {
        Ok(_) => Vec::new(),
        Err(d) => d,
    }
}

fn help_of(src: &str) -> String {
    let d = errors(src);
    let first = d
        .first()
        .unwrap_or_else(|| panic!("parses, but should not: {src}"));
    first
        .help
        .clone()
        .unwrap_or_else(|| panic!("{} has no help: {}\n{src}", first.code, first.message))
}

#[test]
fn a_unit_written_apart_or_spelled_out_is_shown_joined() {
    let cases = [
        ("@expires(90 days)", "`90d`"),
        ("@expires(90 day)", "`90d`"),
        ("@expires(12 hours)", "`12h`"),
        ("@expires(30 minutes)", "`30min`"),
        ("@expires(30 seconds)", "`30s`"),
        ("@expires(30 d)", "`30d`"),
        ("@large(20 KB)", "`20KB`"),
        ("@large(20 mb)", "`20MB`"),
        ("@size(200 bytes)", "`200B`"),
    ];
    for (attr, shown) in cases {
        let src = format!("entity A {{ at: date {attr} }}\n");
        let help = help_of(&src);
        assert!(help.contains(shown), "{attr}: {help}");
        assert!(help.contains("without a space"), "{attr}: {help}");
    }
    // A word that is no unit at all still gets the list of units.
    let help = help_of("entity A { at: date @expires(3 fortnights) }\n");
    assert!(help.contains("`s`, `min`, `h` or `d`"), "{help}");
}

#[test]
fn sql_order_by_points_to_sort_by() {
    for tail in ["order by a", "order by a desc", "where a == ? order by a"] {
        let src = format!("entity A {{ a: int32 }}\nquery q on A {{ {tail} }}\n");
        assert!(help_of(&src).contains("`sort by"), "{tail}");
    }
}

#[test]
fn a_literal_in_a_condition_points_to_the_parameter() {
    for cond in [
        "a == 5",
        "a == -1",
        "a == \"x\"",
        "a == true",
        "a != null",
        "a in [1, 2]",
        "a >= 3.5",
    ] {
        let src = format!("entity A {{ a: int32 }}\nquery q on A {{ where {cond} }}\n");
        let help = help_of(&src);
        assert!(help.contains("parameter `?`"), "{cond}: {help}");
    }
}

/// Tokens that damage a schema when put in the wrong place.
const NOISE: [&str; 16] = [
    "", "{", "}", "(", ")", ":", "=", "?", "@", "<->", ";", "42", "\"s\"", "few", "where", "x y",
];

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    out.sort();
    assert!(out.len() >= 5);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, .. ProptestConfig::default() })]

    /// Replace a random word of an example by noise: whatever error that makes has a help line.
    #[test]
    fn every_syntax_error_of_a_damaged_example_has_help(
        which in 0usize..5,
        at in 0usize..100_000,
        noise in 0usize..NOISE.len(),
    ) {
        let text = &examples()[which];
        let words: Vec<(usize, &str)> = text
            .split_inclusive(char::is_whitespace)
            .scan(0usize, |pos, w| { let start = *pos; *pos += w.len(); Some((start, w)) })
            .collect();
        let (start, word) = words[at % words.len()];
        let damaged = format!("{}{} {}", &text[..start], NOISE[noise], &text[start + word.len()..]);
        for d in errors(&damaged) {
            prop_assert!(
                d.help.as_deref().is_some_and(|h| !h.trim().is_empty()),
                "{} without help: {}\n{}", d.code, d.message, damaged
            );
        }
    }
}
