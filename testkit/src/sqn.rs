//! Generated `.sqn` schemas for property tests: every construct of the language (settings, value
//! types, entities with attributes and variants, every type form, relations with every fact,
//! queries with every clause), referring to names that exist so that most of them plan, written
//! with random spacing, line breaks, `//` comments, `////` banners and `///` doc comments (some
//! of them non-ASCII) wherever the grammar allows them.
//!
//! A schema is first a list of [`Token`]s; [`render`] writes it with a spacing drawn by proptest,
//! [`canonical`] with one space between tokens. The comments a rendering inserts are returned with
//! it, in order, so that a test can check that they all survive.

use proptest::prelude::*;

/// One token of a generated schema. Atomic pieces of the grammar (`20KB`, `1000:1`, `@range(`)
/// are single tokens, so any whitespace or comment may go between two tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token's text.
    pub text: String,
    /// A `///` doc comment may precede it (it starts a declaration, field, setting or fact).
    pub doc: bool,
    /// It starts a statement: the canonical rendering breaks the line before it.
    pub line: bool,
}

/// A generated schema, as tokens.
#[derive(Clone)]
pub struct Generated {
    /// The tokens in order.
    pub tokens: Vec<Token>,
}

impl std::fmt::Debug for Generated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Generated {{\n{}}}", canonical(self))
    }
}

/// A rendering of a [`Generated`] schema.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The source text.
    pub text: String,
    /// Every `//` comment inserted (including `////` banners), in order, as written.
    pub comments: Vec<String>,
    /// Every `///` doc comment line inserted, in order, as written.
    pub docs: Vec<String>,
}

const TYPES: &[&str] = &[
    "string",
    "int32",
    "int64",
    "double",
    "bool",
    "date",
    "objectId",
    "decimal128",
    "binary",
    "[string; 10]",
    "[int32]",
    "[[int32?; 5]; 3]",
    "map<string>",
    "map<[int32]>?",
    "counters(24 x 60)",
    "counters(hour_of_day)",
];
const FIELD_ATTRS: &[&str] = &[
    "@index",
    "@unique",
    "@immutable",
    "@sensitive",
    "@seldom_read",
    "@payload",
    "@large(20KB)",
    "@size(200B)",
    "@updates(5/day)",
    "@updates(1/month)",
];
const CLASSES: &[&str] = &[
    "one",
    "few",
    "few(5)",
    "many",
    "many(1000)",
    "many(20000, typical 50)",
    "many(max: 3000)",
    "squillions",
];
const LAYOUTS: &[&str] = &[
    "embed",
    "parent_refs",
    "child_ref",
    "two_way",
    "one_way",
    "bucket(50)",
    "link_collection",
];
const CONDITIONS: &[&str] = &[
    "n == ?",
    "n != ?",
    "n < ?",
    "n >= ?",
    "s starts_with ? ignore_case",
    "at between ?",
    "n in ?",
    "s == ?",
];
const SETTINGS: &[&str] = &[
    "embed_array_max = 300",
    "id_array_max = 4000",
    "denormalize_min_ratio = 50",
    "doc_warn_size = 4MB",
    "max_indexes = 40",
    "bucket_size = 100",
];

/// Words for comments: ASCII and not, one or two UTF-16 units per character.
const WORDS: &[&str] = &[
    "why",
    "seed 004",
    "naïve",
    "größe",
    "日本語",
    "emoji 😀 here",
    "a // b",
    "{ } : <-> ,",
];

#[derive(Debug, Clone)]
struct EntitySpec {
    extra: Vec<(usize, Vec<usize>)>,
    attr: u8,
    value_field: Option<usize>,
}

#[derive(Debug, Clone)]
struct RelSpec {
    a: usize,
    b: usize,
    ca: usize,
    cb: usize,
    facts: Vec<u8>,
    force: Option<usize>,
    ratio: u32,
}

#[derive(Debug, Clone)]
struct QuerySpec {
    entity: usize,
    conditions: Vec<usize>,
    sort: u8,
    limit: Option<u8>,
    rate: bool,
}

struct Writer {
    tokens: Vec<Token>,
}

impl Writer {
    /// Tokens separated by spaces in `text`; the first starts a statement that may have docs.
    fn statement(&mut self, text: &str) {
        self.push(text, true, true);
    }

    /// A statement that takes no doc comment (query clauses, closing braces).
    fn line(&mut self, text: &str) {
        self.push(text, false, true);
    }

    /// Tokens continuing the current statement.
    fn more(&mut self, text: &str) {
        self.push(text, false, false);
    }

    fn push(&mut self, text: &str, doc: bool, line: bool) {
        for (i, word) in split(text).into_iter().enumerate() {
            self.tokens.push(Token {
                text: word,
                doc: doc && i == 0,
                line: line && i == 0,
            });
        }
    }
}

/// Whether each character of `text` lies inside a string literal (its quotes included).
fn quoted(text: &str) -> Vec<bool> {
    let (mut inside, mut escaped) = (false, false);
    text.chars()
        .map(|c| {
            let here = inside || c == '"';
            if inside && escaped {
                escaped = false;
            } else if inside && c == '\\' {
                escaped = true;
            } else if c == '"' {
                inside = !inside;
            }
            here
        })
        .collect()
}

/// The words of `text` between spaces, a string literal's spaces kept (`"on hold"`).
fn words(text: &str) -> Vec<&str> {
    let inside = quoted(text);
    let mut out = Vec::new();
    let mut start = 0;
    for (k, (i, c)) in text.char_indices().enumerate() {
        if c == ' ' && !inside[k] {
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out.retain(|w| !w.is_empty());
    out
}

/// Splits on spaces, keeping atomic pieces (`@range(`, `20KB`) and string literals whole as
/// written.
fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        if !word.contains(|c: char| c.is_ascii_alphanumeric()) {
            // `<->`, `==`, `{`: one token.
            out.push(word.to_owned());
            continue;
        }
        // `name:` and `x,` are two tokens each, so that comments may go between them.
        let mut rest = word;
        while !rest.is_empty() {
            let inside = quoted(rest);
            let cut = rest
                .char_indices()
                .enumerate()
                .find(|&(k, (i, c))| {
                    i > 0 && !inside[k] && matches!(c, ',' | ':' | ')' | ']' | '>' | '?' | ';')
                })
                .map(|(_, (i, _))| i);
            let atomic_ratio = rest.starts_with(|c: char| c.is_ascii_digit())
                && rest.contains(':')
                && !rest.ends_with(':');
            match cut {
                Some(i) if !atomic_ratio && !rest.starts_with('@') => {
                    out.push(rest[..i].to_owned());
                    rest = &rest[i..];
                    let c = rest.chars().next().map_or(1, char::len_utf8);
                    out.push(rest[..c].to_owned());
                    rest = &rest[c..];
                }
                _ => {
                    out.push(rest.to_owned());
                    rest = "";
                }
            }
        }
    }
    out
}

fn schema_tokens(
    settings: &[usize],
    values: &[Vec<usize>],
    entities: &[EntitySpec],
    rels: &[RelSpec],
    queries: &[QuerySpec],
) -> Vec<Token> {
    let mut w = Writer { tokens: Vec::new() };
    if !settings.is_empty() {
        w.statement("settings {");
        let mut seen = Vec::new();
        for s in settings {
            let s = s % SETTINGS.len();
            if !seen.contains(&s) {
                seen.push(s);
                w.statement(SETTINGS[s]);
            }
        }
        w.line("}");
    }
    for (i, fields) in values.iter().enumerate() {
        w.statement(&format!("value V{i} {{"));
        w.statement("label: string");
        for (j, t) in fields.iter().enumerate() {
            // Value types hold scalars only: no counters, no other value types.
            w.statement(&format!("v{j}: {}", TYPES[t % 9]));
        }
        w.line("}");
    }
    let n = entities.len();
    for (i, e) in entities.iter().enumerate() {
        let attr = match e.attr % 8 {
            0 => " @tree",
            1 => " @queue(priority: n)",
            2 => " @schema_version(3)",
            3 => " @versioned(future)",
            4 => " @collection(\"coll_e",
            5 => " @polymorphic(discriminator: \"kind\")",
            _ => "",
        };
        if attr.ends_with("coll_e") {
            w.statement(&format!("entity E{i} @collection(\"coll_{i}\") {{"));
        } else {
            w.statement(&format!("entity E{i}{attr} {{"));
        }
        w.statement("at: date");
        w.statement("n: int32 @index");
        w.statement("s: string?");
        for (j, (t, attrs)) in e.extra.iter().enumerate() {
            let mut text = format!("f{j}: {}", TYPES[t % TYPES.len()]);
            let mut used = Vec::new();
            for a in attrs {
                let a = a % FIELD_ATTRS.len();
                if !used.contains(&a) {
                    used.push(a);
                    text.push(' ');
                    text.push_str(FIELD_ATTRS[a]);
                }
            }
            w.statement(&text);
        }
        if let Some(v) = e.value_field.filter(|_| !values.is_empty()) {
            w.statement(&format!("info: V{}", v % values.len()));
        }
        if e.attr % 8 == 5 {
            w.statement("variant Circle {");
            w.statement("radius: double");
            w.line("}");
            w.statement("variant Square {");
            w.statement("side: double");
            w.line("}");
        }
        w.line("}");
    }
    for (k, r) in rels.iter().enumerate() {
        let (a, b) = (r.a % n, r.b % n);
        w.statement(&format!(
            "relation E{a}.ra{k}: {} <-> E{b}.rb{k}: {}",
            CLASSES[r.ca % CLASSES.len()],
            CLASSES[r.cb % CLASSES.len()]
        ));
        if r.facts.is_empty() && r.force.is_none() {
            continue;
        }
        w.more("{");
        for f in &r.facts {
            match f % 12 {
                0 => w.statement(&format!("standalone E{b}")),
                1 => w.statement("navigate both"),
                2 => w.statement("growth append_heavy, unbounded"),
                3 => w.statement("page 50 by at desc"),
                4 => w.statement("latest 100 by at keep at, n"),
                5 => w.statement("summary count, total(n), max(n)"),
                6 => w.statement("time_range by at"),
                7 => w.statement(&format!("show E{a}.n, E{a}.s on E{b} ratio {}:1", r.ratio)),
                8 => w.statement(&format!("show E{a}.n on E{b} ratio {}", r.ratio)),
                9 => w.statement("top 5 by n desc keep n, s"),
                10 => w.statement("atomic_move"),
                _ => {
                    w.statement("fields {");
                    w.statement("role: string");
                    w.statement("since: date?");
                    w.line("}");
                }
            }
        }
        if let Some(l) = r.force {
            w.statement(&format!("force {}", LAYOUTS[l % LAYOUTS.len()]));
        }
        w.line("}");
    }
    for (k, q) in queries.iter().enumerate() {
        w.statement(&format!("query q{k} on E{} {{", q.entity % n));
        if !q.conditions.is_empty() {
            let conditions: Vec<&str> = q
                .conditions
                .iter()
                .map(|c| CONDITIONS[c % CONDITIONS.len()])
                .collect();
            w.line(&format!("where {}", conditions.join(" and ")));
        }
        match q.sort % 4 {
            0 => w.line("sort at desc"),
            1 => w.line("sort n, at asc"),
            _ => {}
        }
        if let Some(l) = q.limit {
            w.line(&format!("limit {}", u32::from(l) + 1));
        }
        if q.rate {
            w.line("rate 100/s");
        }
        w.line("}");
    }
    w.tokens
}

fn entity_spec() -> impl Strategy<Value = EntitySpec> {
    (
        prop::collection::vec(
            (
                0..TYPES.len(),
                prop::collection::vec(0..FIELD_ATTRS.len(), 0..3),
            ),
            0..4,
        ),
        any::<u8>(),
        prop::option::of(0..4usize),
    )
        .prop_map(|(extra, attr, value_field)| EntitySpec {
            extra,
            attr,
            value_field,
        })
}

fn rel_spec() -> impl Strategy<Value = RelSpec> {
    (
        0..6usize,
        0..6usize,
        0..CLASSES.len(),
        0..CLASSES.len(),
        prop::collection::vec(any::<u8>(), 0..4),
        prop::option::weighted(0.2, 0..LAYOUTS.len()),
        1..2000u32,
    )
        .prop_map(|(a, b, ca, cb, facts, force, ratio)| RelSpec {
            a,
            b,
            ca,
            cb,
            facts,
            force,
            ratio,
        })
}

fn query_spec() -> impl Strategy<Value = QuerySpec> {
    (
        0..6usize,
        prop::collection::vec(0..CONDITIONS.len(), 0..3),
        any::<u8>(),
        prop::option::of(0..100u8),
        any::<bool>(),
    )
        .prop_map(|(entity, conditions, sort, limit, rate)| QuerySpec {
            entity,
            conditions,
            sort,
            limit,
            rate,
        })
}

/// Schemas using every construct of the language.
pub fn schema() -> impl Strategy<Value = Generated> {
    (
        prop::collection::vec(0..SETTINGS.len(), 0..3),
        prop::collection::vec(prop::collection::vec(0..9usize, 0..3), 0..2),
        prop::collection::vec(entity_spec(), 1..5),
        prop::collection::vec(rel_spec(), 0..5),
        prop::collection::vec(query_spec(), 0..3),
    )
        .prop_map(|(settings, values, entities, rels, queries)| Generated {
            tokens: schema_tokens(&settings, &values, &entities, &rels, &queries),
        })
}

/// The tokens of a schema written one statement per line (as `squillion fmt` or
/// `squillion_schemagen::render` write them), so that [`render`] can re-space it: every line
/// starts a statement, which takes doc comments unless it closes a block or is a query's clause.
pub fn tokens_of(text: &str) -> Generated {
    let mut w = Writer { tokens: Vec::new() };
    let mut in_query = false;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line == "}" {
            in_query = false;
            w.line(line);
        } else if in_query {
            w.line(line);
        } else {
            in_query = line.starts_with("query ");
            w.statement(line);
        }
    }
    Generated { tokens: w.tokens }
}

/// Choices for [`render`]: one byte per gap between tokens (longer than any generated schema).
pub fn spacing() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 600)
}

/// The schema with one space between tokens and a line break before each statement.
pub fn canonical(schema: &Generated) -> String {
    let mut out = String::new();
    for (i, t) in schema.tokens.iter().enumerate() {
        if i > 0 {
            out.push(if t.line { '\n' } else { ' ' });
        }
        out.push_str(&t.text);
    }
    out.push('\n');
    out
}

/// Whether two tokens written side by side would read as one.
fn glued(before: &str, after: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let b = before.chars().last();
    let a = after.chars().next();
    (word(b) && word(a))
        || (b == Some('/') && a == Some('/'))
        || (word(b) && a == Some('.'))
        || (b == Some('<') && a == Some('-'))
        || (b == Some('-') && a == Some('>'))
        || (matches!(b, Some('=' | '!' | '<' | '>')) && a == Some('='))
        || (b == Some('?') && a == Some('?'))
}

/// The schema with the gaps between tokens chosen by `choices`: nothing (where the tokens stay
/// apart), spaces, tabs, line breaks (LF or CRLF), empty lines, trailing and own-line `//`
/// comments, `////` banners, and `///` doc comments before statements that take them.
pub fn render(schema: &Generated, choices: &[u8]) -> Rendered {
    let mut text = String::new();
    let mut comments = Vec::new();
    let mut docs = Vec::new();
    for (i, t) in schema.tokens.iter().enumerate() {
        let choice = choices.get(i).copied().unwrap_or(0);
        let word = WORDS[usize::from(choice / 16) % WORDS.len()];
        if i > 0 {
            let gap = match choice % 12 {
                0 if !glued(&schema.tokens[i - 1].text, &t.text) => String::new(),
                0 | 1 => " ".to_owned(),
                2 => " \t  ".to_owned(),
                3 => "\n".to_owned(),
                4 => "\r\n    ".to_owned(),
                5 => "\n\n\n".to_owned(),
                6 => {
                    let c = format!("// c{i} {word}");
                    let gap = format!("  {c}\n");
                    comments.push(c);
                    gap
                }
                7 => {
                    let c = format!("// own line {i}: {word}");
                    let gap = format!("\n\n{c}\n");
                    comments.push(c);
                    gap
                }
                8 if t.line => {
                    let c = format!("//// banner {i} ////");
                    let gap = format!("\n{c}\n");
                    comments.push(c);
                    gap
                }
                _ if t.line => "\n".to_owned(),
                _ => " ".to_owned(),
            };
            text.push_str(&gap);
        }
        if t.doc && choice % 3 == 0 {
            let lines = 1 + usize::from(choice % 2);
            for k in 0..lines {
                let d = format!("/// doc {i}.{k} {word}");
                text.push_str(&d);
                text.push('\n');
                docs.push(d);
            }
        }
        text.push_str(&t.text);
    }
    text.push('\n');
    Rendered {
        text,
        comments,
        docs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_atomic_pieces() {
        assert_eq!(
            split("n: int32? @large(20KB) x, y ratio 10:1"),
            [
                "n",
                ":",
                "int32",
                "?",
                "@large(20KB)",
                "x",
                ",",
                "y",
                "ratio",
                "10:1"
            ]
        );
        assert_eq!(
            split("A.b: one <-> B.a: many(5)"),
            ["A.b", ":", "one", "<->", "B.a", ":", "many(5", ")"]
        );
    }

    /// Every string literal comes out of `split` whole, whatever it holds (spaces, the
    /// punctuation `split` cuts at, an escaped quote), and nothing is lost between the tokens.
    #[test]
    fn split_keeps_string_literals_whole() {
        let literals = [
            "\"on hold\"",
            "\"à la carte\"",
            "\"\"",
            "\"a, b: c) d] e> f? g;\"",
            "\"say \\\"hi\\\" twice\"",
            "\"9 lives\"",
        ];
        for (i, lit) in literals.iter().enumerate() {
            let other = literals[(i + 1) % literals.len()];
            let text = format!("state: one_of({lit}, {other})?");
            let tokens = split(&text);
            for l in [lit, &other] {
                assert!(
                    tokens.iter().any(|t| t.contains(l)),
                    "{l} split apart: {tokens:?}"
                );
            }
            let joined: String = tokens.concat();
            assert_eq!(
                joined,
                text.replace(' ', "")
                    .replace(&lit.replace(' ', ""), lit)
                    .replace(&other.replace(' ', ""), other),
                "{tokens:?}"
            );
        }
    }
}
