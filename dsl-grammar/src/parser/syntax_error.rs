//! Syntax errors in the user's words: what was found, what was expected, where to resynchronise.

use super::{Rule, MAX_FOUND_CHARS, MAX_NESTING};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::habits::{
    fact_syntax_help, last_number, operator_help, two_names_help, type_syntax_help, unit_apart_help,
};

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

/// The help line of a syntax error: a specific one for the mistakes people make (a unit written
/// apart from its number, SQL's `order by`, a literal where a query takes `?`, `;`), else what the
/// construct being written looks like, from what the parser expected; every syntax error gets one.
pub(super) fn syntax_help(rest: &str, before: &str, expected: &[String]) -> String {
    let has = |s: &str| expected.iter().any(|e| e == s);
    let word = &rest[..found_len(rest)];
    if rest.starts_with(';') {
        return "no `;` is needed: declarations, fields and facts are separated by whitespace"
            .into();
    }
    if rest.starts_with('\'') {
        return "strings are written in double quotes: `\"open\"`".into();
    }
    if let Some(help) = unclosed_body_help(rest, before, expected) {
        return help;
    }
    if let Some(help) = super::misplaced::misplaced_fact_help(rest, before, expected) {
        return help;
    }
    if let Some(help) = super::misplaced::arrow_help(rest, expected) {
        return help.into();
    }
    // A keyword expected here, misspelt (`standalon`, `wher`): the help says it, as the fix
    // writes it.
    if !declaration_expected(before, expected) {
        if let Some((_, kw)) = syntax_fix(rest, before, expected) {
            return format!("did you mean `{kw}`? {}", construct_help(expected));
        }
    }
    if let Some(help) = type_syntax_help(rest, before).or_else(|| fact_syntax_help(rest, before)) {
        return help.into();
    }
    if has("a unit") && rest.starts_with(|c: char| c.is_alphabetic()) {
        return unit_apart_help(last_number(before), word);
    }
    if (has("`asc` or `desc`") || has("`asc`"))
        && ["ascending", "descending", "ascend", "descend", "up", "down"]
            .contains(&word.to_ascii_lowercase().as_str())
    {
        let kw = if word.to_ascii_lowercase().starts_with("asc") || word == "up" {
            "asc"
        } else {
            "desc"
        };
        return format!("did you mean `{kw}`? a direction is written `asc` or `desc`");
    }
    if word == "order" && (has("`sort`") || has("`where`")) {
        return "did you mean `sort`? a query orders its results with `sort field [asc|desc]`"
            .into();
    }
    let in_condition = has("a condition like `title == ?`")
        || expected.iter().any(|e| e.starts_with("a comparison"));
    if in_condition || has("`and`") {
        if let Some(help) = operator_help(rest, before) {
            return help.into();
        }
    }
    if has("`?`") && in_condition && !rest.starts_with('?') {
        return super::misplaced::missing_parameter_help(rest, before).unwrap_or_else(|| {
            "a condition compares with a parameter `?`, never a literal: the generated method \
             takes the value as an argument (`where status == ?`, `where status in ?`)"
                .into()
        });
    }
    if has("`<->`") {
        return "a relation joins two ends: `relation Author.books: many <-> Book.author: one`"
            .into();
    }
    if let Some(help) = super::misplaced::inside_word_help(before, rest) {
        return help.into();
    }
    if has("`:`") && (has("`variant`") || rest.starts_with(|c: char| c.is_alphabetic())) {
        return "a field is written `name: type`, for example `title: string`".into();
    }
    if has("`{`") && rest.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        if let Some(help) = two_names_help(before, word) {
            return help;
        }
    }
    if declaration_expected(before, expected) {
        if super::habits::FILLERS.contains(&word.to_ascii_lowercase().as_str()) {
            return format!(
                "`{word}` is another language's word: a thing with identity and a collection is \
                 an `entity` (`entity Name {{ ... }}`), a shape embedded in documents a `value`; \
                 the file also holds `relation`, `query` and `settings`"
            );
        }
        return match misspelt_keyword(word) {
            Some(kw) => format!(
                "did you mean `{kw}`? a file holds `settings`, `value`, `entity`, `relation` and \
                 `query` declarations"
            ),
            None => {
                "a file holds `settings`, `value`, `entity`, `relation` and `query` declarations"
                    .into()
            }
        };
    }
    construct_help(expected).into()
}

/// A declaration keyword that starts a line inside a body whose `{` is still open: the body
/// before it lacks its `}` (`entity Show { title: string` then `entity Episode { ... }`). The
/// parser stops at the keyword (where a fact, a clause or `}` was expected), or just after it,
/// having read the keyword as a field's or a setting's name (`entity: ...`, `entity = ...`).
fn unclosed_body_help(rest: &str, before: &str, expected: &[String]) -> Option<String> {
    const DECLARATIONS: [&str; 5] = ["settings", "value", "entity", "relation", "query"];
    let has = |s: &str| expected.iter().any(|e| e == s);
    let starts_line = |text: &str| {
        let head = text.trim_end_matches([' ', '\t']);
        head.is_empty() || head.ends_with('\n')
    };
    let word = &rest[..found_len(rest)];
    let keyword = if DECLARATIONS.contains(&word) && has("`}`") && starts_line(before) {
        if !declaration_follows(word, &rest[word.len()..]) {
            return None;
        }
        word
    } else {
        let head = before.trim_end_matches([' ', '\t']);
        let last_len: usize = head
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .map(char::len_utf8)
            .sum();
        let (text, last) = head.split_at(head.len() - last_len);
        let named = has("`:`") || has("`=`");
        let declaration = DECLARATIONS.contains(&last) && named && starts_line(text);
        if !(declaration && declaration_follows(last, rest)) {
            return None;
        }
        last
    };
    let line = open_brace_line(before)?;
    Some(format!(
        "`{keyword}` starts a new declaration, but the `{{` on line {line} is not closed: add `}}` \
         before `{keyword}`"
    ))
}

/// Whether `after` (the text after `keyword`) goes on as that declaration does: a name and `{`
/// or an attribute (`entity`, `value`), an end `Name.` (`relation`), a name and `on` (`query`),
/// `{` (`settings`). A field named like the keyword (`entity string`, its `:` forgotten) does not.
fn declaration_follows(keyword: &str, after: &str) -> bool {
    let after = after.trim_start();
    if keyword == "settings" {
        return after.starts_with('{');
    }
    let name = &after[..found_len(after)];
    if name.is_empty() || !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return false;
    }
    let next = after[name.len()..].trim_start();
    match keyword {
        "relation" => next.starts_with('.'),
        "query" => {
            next.starts_with("on")
                && !next[2..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        }
        _ => next.starts_with(['{', '@']),
    }
}

/// The line of the last `{` of `text` that no `}` closes, outside comments and strings.
fn open_brace_line(text: &str) -> Option<usize> {
    let mut open: Vec<usize> = Vec::new();
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' | '\n' => {
                            if c == '\n' {
                                line += 1;
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            '{' => open.push(line),
            '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.last().copied()
}

/// The word typed where a syntax error is, and how many bytes of it come before the error: pest
/// stops inside a word that starts like a keyword (`standalonex` stops after `standalone`).
fn typed_word(rest: &str, before: &str) -> (usize, String) {
    let head: usize = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .map(char::len_utf8)
        .sum();
    let word = &rest[..found_len(rest)];
    (head, format!("{}{word}", &before[before.len() - head..]))
}

/// The keyword among those the parser expected that `word` misspells (`standalon` for
/// `standalone` in a relation's body, `wher` for `where` in a query).
fn misspelt_expected<'e>(word: &str, expected: &'e [String]) -> Option<&'e str> {
    if word.is_empty() {
        return None;
    }
    expected
        .iter()
        .filter_map(|e| e.strip_prefix('`')?.strip_suffix('`'))
        .filter(|kw| kw.len() > 2 && kw.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .find(|kw| near_miss(word, kw))
}

/// Whether a declaration may start where a syntax error is: the parser expected the file's
/// keywords, or nothing it could name outside every brace (a misspelt first keyword).
fn declaration_expected(before: &str, expected: &[String]) -> bool {
    let has = |s: &str| expected.iter().any(|e| e == s);
    let top_level = before.matches('{').count() == before.matches('}').count();
    (has("`entity`") && has("`relation`")) || (expected.is_empty() && top_level)
}

/// The declaration keyword `word` misspells, if it is a near miss of one.
fn misspelt_keyword(word: &str) -> Option<&'static str> {
    ["entity", "value", "relation", "query", "settings"]
        .into_iter()
        .find(|kw| near_miss(word, kw))
}

/// The fix of a syntax error at `rest`: the keyword a misspelt one meant (a declaration's, or
/// one the parser expected there: a fact's, a clause's), with how many bytes of the misspelt
/// word come before the error.
pub(super) fn syntax_fix(rest: &str, before: &str, expected: &[String]) -> Option<(usize, String)> {
    if declaration_expected(before, expected) {
        return misspelt_keyword(&rest[..found_len(rest)]).map(|kw| (0, kw.to_owned()));
    }
    let (head, typed) = typed_word(rest, before);
    misspelt_expected(&typed, expected).map(|kw| (head, kw.to_owned()))
}

/// Whether `word` is a near miss of keyword `kw`: one letter changed, added, dropped or swapped
/// with its neighbour, compared without case.
fn near_miss(word: &str, kw: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) =
        (word.to_lowercase().chars().collect(), kw.chars().collect());
    if a == b {
        return true;
    }
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > 1 || n == 0 {
        return false;
    }
    let first = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = |x: &[char], y: &[char]| x == y;
    match n.cmp(&m) {
        std::cmp::Ordering::Equal => {
            tail(&a[first + 1..], &b[first + 1..])
                || (first + 1 < n
                    && a[first] == b[first + 1]
                    && a[first + 1] == b[first]
                    && tail(&a[first + 2..], &b[first + 2..]))
        }
        std::cmp::Ordering::Greater => tail(&a[first + 1..], &b[first..]),
        std::cmp::Ordering::Less => tail(&a[first..], &b[first + 1..]),
    }
}

/// What the construct the parser was in looks like, from what it expected next.
fn construct_help(expected: &[String]) -> &'static str {
    let has = |s: &str| expected.iter().any(|e| e == s);
    let first =
        |items: &[(&str, &'static str)]| items.iter().find(|(e, _)| has(e)).map(|(_, help)| *help);
    first(&[
        (
            "a relation end like `Author.books: many`",
            "a relation end is `Entity.field: cardinality`: `relation Author.books: many <-> Book.author: one`",
        ),
        (
            "`.`",
            "a relation end is `Entity.field: cardinality`: `relation Author.books: many <-> Book.author: one`",
        ),
        (
            "`on`",
            "a query is written `query name on Entity { where field == ? sort by field desc }`",
        ),
        (
            "`=`",
            "a setting is written `name = value` inside `settings { ... }`: `embed_array_max = 300`",
        ),
        (
            "`one_of(...)`",
            "a field's type is a BSON type (`string`, `int32`, `date`...), a value type, `[type]`, `map<type>`, `one_of(\"a\", \"b\")` or `counters(...)`",
        ),
        (
            "a field `name: type`",
            "an entity's body holds fields `name: type` (with `?` and `@attributes` after the type); close it with `}`",
        ),
        (
            "`]`",
            "an array type is `[type]`, or `[type; N]` with at most N elements",
        ),
        (
            "`>`",
            "a map type is `map<type>`, or `map<type?>` when values may be null",
        ),
        (
            "a number",
            "write a number here, in decimal: `many(300)`, `[string; 10]`, `@range(1, 5)`",
        ),
        (
            "`)`",
            "close the parentheses: an attribute's arguments are `@name(arg, arg)`",
        ),
        (
            "`{`",
            "a declaration's body is in braces: `entity Book { title: string }`",
        ),
        (
            "`standalone`",
            "a relation's body holds facts: `standalone B`, `show A.f on B ratio 100:1`, `navigate both`, `page 20 by f desc`, `latest 10 by f desc keep f, g`, `top 10 by f desc`, `summary count, total(f)`, `time_range by f`, `growth append_heavy`, `atomic_move`, `force embed`, `fields { ... }`",
        ),
        (
            "`returns`",
            "a query's body holds clauses: `where f == ? and g > ?`, `sort f desc`, `limit 20`, `rate 10/s`, `returns f, g`",
        ),
        (
            "a name",
            "a name starts with an ASCII letter (a-z, A-Z) or `_` and goes on with them and digits: `Book`, `due_date` (names become Rust identifiers); keep other characters for strings and doc comments",
        ),
        (
            "`}`",
            "close every `{` with `}`",
        ),
    ])
    .unwrap_or("see the whole grammar at the end of docs/language.md for what may come here")
}

pub(super) fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}
