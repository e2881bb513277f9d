//! Unknown words in facts (a summary function, a growth kind, a layout): the known ones listed,
//! and a fix where the word is a near miss of one or another tool's name for it (`sum` for
//! `total`, `average` for `avg`, `frequent` for `append_heavy`).

use squillion_grammar::ast::Ident;
use squillion_grammar::Diagnostic;

use super::names::{closest, one_of};

/// Words people write for the summary functions.
pub(super) const SUMMARY_SYNONYMS: &[(&[&str], &str)] = &[
    (&["sum", "add", "plus"], "total"),
    (&["average", "mean", "avg_of", "average_of"], "avg"),
    (&["maximum", "largest", "highest", "greatest"], "max"),
    (&["minimum", "smallest", "lowest", "least"], "min"),
    (&["counter", "number", "size", "length", "len"], "count"),
];

/// Words people write for the growth kinds.
pub(super) const GROWTH_SYNONYMS: &[(&[&str], &str)] = &[
    (
        &[
            "fast",
            "frequent",
            "heavy",
            "append",
            "appends",
            "often",
            "write_heavy",
            "insert_heavy",
        ],
        "append_heavy",
    ),
    (
        &[
            "infinite",
            "unlimited",
            "endless",
            "forever",
            "unbound",
            "boundless",
        ],
        "unbounded",
    ),
    (
        &[
            "fixed",
            "readonly",
            "read_only",
            "constant",
            "frozen",
            "none",
            "never",
        ],
        "static",
    ),
];

/// Words people write for the layouts.
pub(super) const LAYOUT_SYNONYMS: &[(&[&str], &str)] = &[
    (
        &["embedded", "nest", "nested", "inline", "subdocument"],
        "embed",
    ),
    (
        &[
            "join_table",
            "junction",
            "link",
            "links",
            "link_table",
            "through",
        ],
        "link_collection",
    ),
    (&["buckets", "bucketed", "bucketing", "pages"], "bucket"),
    (
        &["bidirectional", "both", "two_ways", "both_ways"],
        "two_way",
    ),
    (&["one_way_ref", "oneway"], "one_way"),
    (
        &["child_refs", "foreign_key", "fk", "parent_id"],
        "child_ref",
    ),
    (
        &["parent_ref", "id_array", "ids", "array_of_ids"],
        "parent_refs",
    ),
];

/// Words people write for `navigate both`.
pub(super) const BOTH: &[&str] = &[
    "bidirectional",
    "bidi",
    "both_ways",
    "two_way",
    "two_ways",
    "all",
    "either",
    "each",
];

/// What `word` means in `table` (rows of the words people write and what squillion calls it),
/// compared without ASCII case.
pub(super) fn meaning(table: &[(&[&str], &'static str)], word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    table
        .iter()
        .find(|(words, _)| words.contains(&lower.as_str()))
        .map(|(_, meant)| *meant)
}

/// An unknown `word` of a fact: `known` listed, a fix to the one it misspells or means.
pub(super) fn unknown_word(
    code: &'static str,
    word: &Ident,
    message: &str,
    which: &str,
    known: &[&str],
    synonyms: &[(&[&str], &'static str)],
) -> Diagnostic {
    let meant = meaning(synonyms, &word.name);
    let bare = known.iter().map(|k| k.split('(').next().unwrap_or(k));
    let close = meant.or_else(|| closest(&word.name, bare));
    let help = match close {
        Some(close) => format!(
            "did you mean `{close}`? {which} are {}",
            one_of(known.iter().copied())
        ),
        None => format!("{which} are {}", one_of(known.iter().copied())),
    };
    Diagnostic::error(code, word.span, message.to_owned())
        .with_label("not known")
        .with_help(help)
        .with_fix_from(close.map(|c| (word.span, c)))
}
