//! Syntax errors in the user's words: what was found, what was expected, where to resynchronise.

use super::{Rule, MAX_FOUND_CHARS, MAX_NESTING};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::syntax_help::{syntax_fix, syntax_help};

/// Rejects bracket nesting deeper than [`MAX_NESTING`] before the recursive parser sees it.
pub(super) fn check_nesting(source: &str) -> Option<Diagnostic> {
    // `[`, `(`, `{` nest; `<` nests only as `map<`: `<->` and the comparisons of queries do not.
    let mut depth = 0usize;
    let mut angles = 0usize;
    let mut in_comment = false;
    let mut in_string = false;
    let mut prev = '\0';
    for (i, c) in source.char_indices() {
        if in_comment {
            in_comment = c != '\n';
        } else if in_string {
            in_string = !(c == '"' && prev != '\\') && c != '\n';
        } else {
            let opens = match c {
                '/' if prev == '/' => {
                    in_comment = true;
                    false
                }
                '"' => {
                    in_string = true;
                    false
                }
                '[' | '(' | '{' => true,
                '<' if source[..i].trim_end().ends_with("map") => {
                    angles += 1;
                    true
                }
                ']' | ')' | '}' => {
                    depth = depth.saturating_sub(1);
                    false
                }
                '>' if angles > 0 && prev != '-' => {
                    angles -= 1;
                    depth = depth.saturating_sub(1);
                    false
                }
                _ => false,
            };
            if opens {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diagnostic::error(
                            codes::NESTING_TOO_DEEP,
                            Span::new(i, i + 1),
                            format!("brackets are nested more than {MAX_NESTING} deep"),
                        )
                        .with_help("flatten the type: declare a `value` type for the inner part"),
                    );
                }
            }
        }
        prev = if prev == '\\' && c == '\\' { '\0' } else { c };
    }
    None
}

/// The start of the next line, after `at`, that begins a top-level declaration.
pub(super) fn resync_point(source: &str, at: usize) -> Option<usize> {
    const STARTS: [&str; 6] = ["entity", "value", "relation", "query", "settings", "///"];
    let mut pos = source.get(at..)?.find('\n').map(|i| at + i + 1)?;
    while pos < source.len() {
        let rest = &source[pos..];
        let starts_item = STARTS.iter().any(|kw| {
            rest.strip_prefix(kw)
                .is_some_and(|after| *kw == "///" || after.starts_with(|c: char| c.is_whitespace()))
        });
        if starts_item {
            return Some(pos);
        }
        pos += rest.find('\n')? + 1;
    }
    None
}

pub(super) fn syntax_diagnostic(
    source: &str,
    offset: usize,
    error: &pest::error::Error<Rule>,
) -> Diagnostic {
    let mut local = match error.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    if let Some(attempts) = error.parse_attempts() {
        local = local.max(attempts.max_position);
    }
    let at = word_start(source, (offset + local).min(source.len()));
    let rest = &source[at..];
    let found = describe_found(rest);
    let span = Span::new(at, at + found_len(rest));

    if let Some(doc) = stray_doc_comment(source, at) {
        return Diagnostic::error(
            codes::STRAY_DOC_COMMENT,
            doc,
            "doc comment with nothing to document",
        )
        .with_label("no declaration, field or fact follows")
        .with_help(
            "put `///` comments right before what they describe, or use `//` for a plain comment",
        );
    }
    // The parser may stop inside the string (at the end of its line, in an attribute's
    // argument): the error is the string left open, shown where it opens.
    let open = open_string_before(source, at)
        .map(|quote| Span::new(quote, at.max(quote + 1)))
        .or_else(|| (rest.starts_with('"') && !closes_on_line(rest)).then_some(span));
    if let Some(span) = open {
        return Diagnostic::error(
            codes::UNTERMINATED_STRING,
            span,
            "string literal is not closed on its line",
        )
        .with_help("add the closing `\"`");
    }

    if let Some(d) = super::names::non_ascii_name(&rest[..found_len(rest)], span) {
        return d;
    }
    let expected = expected_descriptions(error);
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("unexpected {found}: expected {}", join_or(&expected))
    };
    let diagnostic =
        Diagnostic::error(codes::SYNTAX, span, message).with_label(if expected.is_empty() {
            "not expected here".to_owned()
        } else {
            format!("expected {} here", join_or(&expected))
        });
    let fix = syntax_fix(rest, &source[..at], &expected)
        .map(|(head, kw)| (Span::new(span.start - head, span.end), kw))
        .or_else(|| {
            super::misplaced::wrong_arrow(rest, &expected)
                .map(|len| (Span::new(span.start, span.start + len), "<->".to_owned()))
        });
    diagnostic
        .with_help(syntax_help(rest, &source[..at], &expected))
        .with_fix_from(fix.as_ref().map(|(span, kw)| (*span, kw.as_str())))
}

/// Where a word that holds `at` begins: the parser may have read a keyword's letters before
/// finding the word goes on (`desc` in `descending`, `page` in `pages`), and an error points at
/// the whole word, not at its tail (`ending`). Numbers are left alone: in `20kb` the error is the
/// unit after the number.
fn word_start(source: &str, at: usize) -> usize {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if !source.get(at..).is_some_and(|r| r.starts_with(is_word)) {
        return at;
    }
    let start = source[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(at, |(i, _)| i);
    if source[start..].starts_with(|c: char| c.is_alphabetic() || c == '_') {
        start
    } else {
        at
    }
}

/// The doc comment a syntax error at `at` is really about: the error falls inside a `///` line,
/// or a `}` or the end of the file follows a `///` line.
pub(super) fn stray_doc_comment(source: &str, at: usize) -> Option<Span> {
    let line_start = source[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = source[at..]
        .find('\n')
        .map(|i| at + i)
        .unwrap_or(source.len());
    let line = &source[line_start..line_end];
    if line.trim_start().starts_with("///") {
        let start = line_start + (line.len() - line.trim_start().len());
        return Some(Span::new(start, line_end));
    }
    let rest = source[at..].trim_start();
    if !(rest.is_empty() || rest.starts_with('}')) {
        return None;
    }
    let before = source[..at].trim_end();
    let last_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let last = &before[last_start..];
    if last.trim_start().starts_with("///") {
        let start = last_start + (last.len() - last.trim_start().len());
        return Some(Span::new(start, before.len()));
    }
    None
}

/// The opening quote of a string literal still open at `at` (scanning `at`'s line from its
/// start, outside `//` comments).
pub(super) fn open_string_before(source: &str, at: usize) -> Option<usize> {
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let (mut open, mut escaped, mut slash) = (None, false, false);
    for (i, c) in source[start..at].char_indices() {
        match (open, c) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(_), '"') if !escaped => open = None,
            (None, '"') => open = Some(start + i),
            (None, '/') if slash => return None,
            _ => {}
        }
        slash = open.is_none() && c == '/';
        escaped = false;
    }
    open
}

pub(super) fn closes_on_line(rest: &str) -> bool {
    let line = rest[1..].split('\n').next().unwrap_or("");
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return true,
            _ => escaped = false,
        }
    }
    false
}

pub(super) fn found_len(rest: &str) -> usize {
    let word: usize = rest
        .char_indices()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .map(|(_, c)| c.len_utf8())
        .sum();
    if word > 0 {
        word
    } else {
        rest.chars().next().map(char::len_utf8).unwrap_or(0)
    }
}

pub(super) fn describe_found(rest: &str) -> String {
    match rest.chars().next() {
        None => "end of file".to_owned(),
        Some(c) if c.is_alphanumeric() || c == '_' => {
            let word = &rest[..found_len(rest)];
            match word.char_indices().nth(MAX_FOUND_CHARS) {
                Some((cut, _)) => format!("`{}…`", &word[..cut]),
                None => format!("`{word}`"),
            }
        }
        Some(c) if c.is_control() => format!("character U+{:04X}", c as u32),
        Some(c) => format!("`{c}`"),
    }
}

/// What the parser would have accepted, in words, sorted and without duplicates.
pub(super) fn expected_descriptions(error: &pest::error::Error<Rule>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let pest::error::ErrorVariant::ParsingError { positives, .. } = &error.variant {
        out.extend(
            positives
                .iter()
                .filter_map(|r| describe_rule(*r))
                .map(str::to_owned),
        );
    }
    if let Some(attempts) = error.parse_attempts() {
        for token in attempts.expected_tokens() {
            if let Some(word) = describe_token(&token.to_string()) {
                out.push(word);
            }
        }
    }
    // The comparisons are said once, in words: not also each operator's token.
    if out.iter().any(|e| e.starts_with("a comparison")) {
        out.retain(|e| !OPERATOR_TOKENS.contains(&e.as_str()));
    }
    out.sort();
    out.dedup();
    out
}

/// The tokens of the comparison operators, as [`describe_token`] writes them.
const OPERATOR_TOKENS: &[&str] = &[
    "`==`",
    "`!=`",
    "`<`",
    "`<=`",
    "`>`",
    "`>=`",
    "`starts_with`",
];

pub(super) fn describe_token(token: &str) -> Option<String> {
    // Keywords are reported by their rules; `x` in `counters(24 x 60)` and digits are noise here.
    match token {
        "\u{FEFF}" | " " | "\t" | "\r" | "\n" | "//" | "////" | "///" | "_" | "" => None,
        t if t.contains("..") || t.chars().all(|c| c.is_ascii_alphabetic()) => None,
        t => Some(format!("`{t}`")),
    }
}

/// Words for the rules a user may meet in an error; `None` for rules that are never worth naming.
pub(super) fn describe_rule(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::EOI => "end of file",
        Rule::ident | Rule::named_type => "a name",
        Rule::path => "a name or dotted path",
        Rule::string => "a string",
        Rule::number => "a number",
        Rule::unit => "a unit",
        Rule::quantity => "a number",
        Rule::ratio => "a ratio like `1000:1`",
        Rule::attr => "an attribute like `@index`",
        Rule::attr_arg => "an attribute argument",
        Rule::setting => "a setting `name = value`",
        Rule::field => "a field `name: type`",
        Rule::optional => "`?`",
        Rule::array_type => "`[type]`",
        Rule::map_type => "`map<type>` or `map<type; N>`",
        Rule::counters_type => "`counters(...)`",
        Rule::counters_shape => "a counter shape like `24 x 60`",
        Rule::counter_dim => "a number",
        Rule::one_of_type | Rule::kw_one_of => "`one_of(...)`",
        Rule::relation_end => "a relation end like `Author.books: many`",
        Rule::cardinality => "a cardinality (one, few, many, squillions)",
        Rule::card_arg => "a bound like `1000` or `typical 50`",
        Rule::relation_body => "`{`",
        Rule::settings_decl | Rule::kw_settings => "`settings`",
        Rule::value_decl | Rule::kw_value => "`value`",
        Rule::entity_decl | Rule::kw_entity => "`entity`",
        Rule::variant_decl | Rule::kw_variant => "`variant`",
        Rule::relation_decl | Rule::kw_relation => "`relation`",
        Rule::query_decl | Rule::kw_query => "`query`",
        Rule::kw_map => "`map`",
        Rule::kw_counters => "`counters`",
        Rule::standalone_fact | Rule::kw_standalone => "`standalone`",
        Rule::show_fact | Rule::kw_show => "`show`",
        Rule::kw_on => "`on`",
        Rule::kw_ratio => "`ratio`",
        Rule::navigate_fact | Rule::kw_navigate => "`navigate`",
        Rule::growth_fact | Rule::kw_growth => "`growth`",
        Rule::atomic_move_fact | Rule::kw_atomic_move => "`atomic_move`",
        Rule::page_fact | Rule::kw_page => "`page`",
        Rule::latest_fact | Rule::kw_latest => "`latest`",
        Rule::top_fact | Rule::kw_top => "`top`",
        Rule::summary_fact | Rule::kw_summary => "`summary`",
        Rule::summary_item => "a summary like `count` or `max(value)`",
        Rule::time_range_fact | Rule::kw_time_range => "`time_range`",
        Rule::force_fact | Rule::kw_force => "`force`",
        Rule::fields_fact | Rule::kw_fields => "`fields`",
        Rule::sort_spec | Rule::kw_by => "`by`",
        Rule::direction | Rule::kw_asc | Rule::kw_desc => "`asc` or `desc`",
        Rule::keep_list | Rule::kw_keep => "`keep`",
        Rule::where_clause | Rule::kw_where => "`where`",
        Rule::condition => "a condition like `title == ?`",
        Rule::operator => {
            "a comparison (==, !=, <, <=, >, >=, starts_with, between, in, near, within)"
        }
        Rule::kw_starts_with | Rule::kw_between | Rule::kw_in | Rule::kw_near | Rule::kw_within => {
            "a comparison"
        }
        Rule::ignore_case | Rule::kw_ignore_case => "`ignore_case`",
        // pest names the condition's alternative (`has`) where a condition's `?` is missing.
        Rule::attribute_match | Rule::kw_has => "a condition like `title == ?`",
        Rule::attribute_key | Rule::attribute_k => "`k == ?`",
        Rule::attribute_value | Rule::attribute_v => "`v` and a comparison, like `v == ?`",
        Rule::kw_and => "`and`",
        Rule::sort_clause | Rule::kw_sort => "`sort`",
        Rule::sort_key => "a sort key like `created desc`",
        Rule::limit_clause | Rule::kw_limit => "`limit`",
        Rule::rate_clause | Rule::kw_rate => "`rate`",
        Rule::returns_clause | Rule::kw_returns => "`returns`",
        _ => return None,
    })
}

pub(super) fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}
