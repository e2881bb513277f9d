//! The help line of a syntax error: the specific help for the mistakes people make, and else
//! what the construct being written looks like. `syntax_error` finds what was found and
//! expected; this module says what to do about it.

use super::habits::{
    fact_syntax_help, last_number, operator_help, two_names_help, type_syntax_help, unit_apart_help,
};
use super::syntax_error::found_len;

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
    if let Some(help) = super::names::bound_brackets_help(rest, before) {
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
        if let Some(help) = super::habits::foreign_declaration_help(rest, word) {
            return help;
        }
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
