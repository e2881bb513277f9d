//! Help for a construct written in the wrong place: a relation fact (`standalone B`, `page 20`)
//! inside an entity's body or a query's, and an arrow other than `<->` between relation ends.

/// The facts that belong in a relation's body (`relation A.bs: many <-> B.a: one { ... }`).
const RELATION_FACTS: [&str; 12] = [
    "standalone",
    "show",
    "navigate",
    "growth",
    "atomic_move",
    "page",
    "latest",
    "top",
    "summary",
    "time_range",
    "force",
    "fields",
];

/// The help when a relation fact is written among an entity's fields (the parser read the
/// keyword as a field's name and expected `:`) or among a query's clauses.
pub(super) fn misplaced_fact_help(rest: &str, before: &str, expected: &[String]) -> Option<String> {
    let has = |s: &str| expected.iter().any(|e| e == s);
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let last = before
        .trim_end()
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let in_query = has("`where`") || has("`sort`") || has("`limit`");
    if in_query && RELATION_FACTS.contains(&word.as_str()) {
        let pages = if word == "page" {
            " A query is read a page at a time by its generated `_page` method (keyset pages, \
             `per_page` chosen by the caller), with no clause."
        } else {
            ""
        };
        return Some(format!(
            "`{word}` is a relation fact, not a query clause: write it in the body of the \
             relation it describes (`relation Author.books: many <-> Book.author: one {{ {word} \
             ... }}`); a query's body holds `where`, `sort`, `limit`, `rate` and `returns`.{pages}"
        ));
    }
    let field_name_expected = has("`:`") && !before.trim_end().ends_with(':');
    if field_name_expected && RELATION_FACTS.contains(&last) && !rest.starts_with(':') {
        return Some(format!(
            "`{last}` is a relation fact: write it in the body of the relation it describes \
             (`relation Author.books: many <-> Book.author: one {{ {last} ... }}`), not among an \
             entity's fields; a field of that name is written `{last}: type`"
        ));
    }
    None
}

/// The help when two relation ends are joined by an arrow other than `<->` (`->`, `<-`, `--`,
/// `<=>`, `=>`).
pub(super) fn arrow_help(rest: &str, expected: &[String]) -> Option<&'static str> {
    wrong_arrow(rest, expected).map(|_| {
        "did you mean `<->`? a relation's two ends are joined by `<->`, whatever the direction it \
         is read in: `relation Author.books: many <-> Book.author: one`"
    })
}

/// The length of the arrow other than `<->` that starts `rest` where `<->` was expected (the
/// quick fix replaces it).
pub(super) fn wrong_arrow(rest: &str, expected: &[String]) -> Option<usize> {
    if !expected.iter().any(|e| e == "`<->`") {
        return None;
    }
    ["<=>", "->", "<-", "--", "=>", "<>", "-"]
        .iter()
        .find(|a| rest.starts_with(**a))
        .map(|a| a.len())
}

/// The help when a condition's operator is followed by nothing it could compare with (the query's
/// `}`, the next clause, `and`): the `?` was left out, no literal was written.
pub(super) fn missing_parameter_help(rest: &str, before: &str) -> Option<String> {
    const NEXT: [&str; 6] = ["and", "sort", "limit", "rate", "returns", "where"];
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let nothing =
        rest.trim_start().is_empty() || rest.starts_with('}') || NEXT.contains(&word.as_str());
    if !nothing {
        return None;
    }
    let condition = before
        .trim_end()
        .rsplit("where")
        .next()
        .unwrap_or("")
        .rsplit(" and ")
        .next()
        .unwrap_or("")
        .trim();
    Some(format!(
        "the condition lacks its parameter: write `{condition} ?` (the generated method takes the \
         value as an argument)"
    ))
}

/// The help when a word that names no argument comes inside a cardinality's parentheses
/// (`few(up to 5)`, `many(at most 300)`): the arguments are numbers, the bound first,
/// optionally named.
pub(super) fn cardinality_args_help(before: &str) -> Option<&'static str> {
    let open = before.rfind('(')?;
    if before[open..].contains(')') {
        return None;
    }
    let head = before[..open].trim_end();
    let class = head
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()?;
    ["one", "few", "many", "squillions"]
        .contains(&class)
        .then_some(
            "a cardinality's arguments are numbers, the bound first, optionally named: \
             `few(5)`, `many(max: 1000, typical: 50)`",
        )
}

/// The help when the parser stops inside `ascending` or `descending` (it reads `asc`/`desc`,
/// then finds the rest of the word): the direction is written short.
pub(super) fn direction_help(before: &str, rest: &str) -> Option<&'static str> {
    let word_goes_on = rest.starts_with(|c: char| c.is_ascii_alphabetic());
    let direction = before.ends_with("asc") || before.ends_with("desc");
    (word_goes_on && direction && rest.starts_with("ending"))
        .then_some("a direction is written `asc` or `desc`, not `ascending` or `descending`")
}

/// The help of the two mistakes above, whichever this is.
pub(super) fn inside_word_help(before: &str, rest: &str) -> Option<&'static str> {
    cardinality_args_help(before).or_else(|| direction_help(before, rest))
}
