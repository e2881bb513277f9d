//! Text -> [`Schema`]: runs the pest grammar and builds the spanned syntax tree.
//!
//! Syntax errors become [`Diagnostic`]s that speak the user's language (pest's rule names never reach
//! the user). After an error the parser resynchronises at the next top-level declaration so that one
//! run reports every broken declaration, not only the first.

use pest::iterators::{Pair, Pairs};
use pest::Parser as _;

use crate::ast::*;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// The deepest bracket nesting accepted (`[[[...]]]`, `map<map<...>>`).
pub const MAX_NESTING: usize = 64;
/// The largest source accepted, in bytes.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024 * 1024;
/// A word quoted in a syntax error is cut after this many characters.
const MAX_FOUND_CHARS: usize = 40;
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
    // Fast path: most files are valid, and pest's error detail costs time on every token.
    pest::set_error_detail(false);
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

/// Rejects bracket nesting deeper than [`MAX_NESTING`] before the recursive parser sees it.
fn check_nesting(source: &str) -> Option<Diagnostic> {
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
fn resync_point(source: &str, at: usize) -> Option<usize> {
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

fn syntax_diagnostic(source: &str, offset: usize, error: &pest::error::Error<Rule>) -> Diagnostic {
    let mut local = match error.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    if let Some(attempts) = error.parse_attempts() {
        local = local.max(attempts.max_position);
    }
    let at = (offset + local).min(source.len());
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
    let mut diagnostic =
        Diagnostic::error(codes::SYNTAX, span, message).with_label(if expected.is_empty() {
            "not expected here".to_owned()
        } else {
            format!("expected {} here", join_or(&expected))
        });
    if let Some(help) = syntax_help(rest, &expected) {
        diagnostic = diagnostic.with_help(help);
    }
    diagnostic
}

/// The doc comment a syntax error at `at` is really about: the error falls inside a `///` line,
/// or a `}` or the end of the file follows a `///` line.
fn stray_doc_comment(source: &str, at: usize) -> Option<Span> {
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
fn open_string_before(source: &str, at: usize) -> Option<usize> {
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

fn closes_on_line(rest: &str) -> bool {
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

fn found_len(rest: &str) -> usize {
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

fn describe_found(rest: &str) -> String {
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
fn expected_descriptions(error: &pest::error::Error<Rule>) -> Vec<String> {
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
    out.sort();
    out.dedup();
    out
}

fn describe_token(token: &str) -> Option<String> {
    // Keywords are reported by their rules; `x` in `counters(24 x 60)` and digits are noise here.
    match token {
        "\u{FEFF}" | " " | "\t" | "\r" | "\n" | "//" | "////" | "///" | "_" | "" => None,
        t if t.contains("..") || t.chars().all(|c| c.is_ascii_alphabetic()) => None,
        t => Some(format!("`{t}`")),
    }
}

/// Words for the rules a user may meet in an error; `None` for rules that are never worth naming.
fn describe_rule(rule: Rule) -> Option<&'static str> {
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
        Rule::map_type => "`map<type>`",
        Rule::counters_type => "`counters(...)`",
        Rule::counters_shape => "a counter shape like `24 x 60`",
        Rule::counter_dim => "a number",
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
        Rule::kw_and => "`and`",
        Rule::sort_clause | Rule::kw_sort => "`sort`",
        Rule::sort_key => "a sort key like `created desc`",
        Rule::limit_clause | Rule::kw_limit => "`limit`",
        Rule::rate_clause | Rule::kw_rate => "`rate`",
        Rule::returns_clause | Rule::kw_returns => "`returns`",
        _ => return None,
    })
}

fn syntax_help(rest: &str, expected: &[String]) -> Option<String> {
    let has = |s: &str| expected.iter().any(|e| e == s);
    if has("`<->`") {
        return Some(
            "a relation joins two ends: `relation Author.books: many <-> Book.author: one`".into(),
        );
    }
    if has("`:`") && rest.starts_with(|c: char| c.is_alphabetic()) {
        return Some("a field is written `name: type`, for example `title: string`".into());
    }
    if has("`entity`") && has("`relation`") {
        return Some(
            "a file holds `settings`, `value`, `entity`, `relation` and `query` declarations"
                .into(),
        );
    }
    if rest.starts_with(';') {
        return Some(
            "no `;` is needed: declarations, fields and facts are separated by whitespace".into(),
        );
    }
    None
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

// ---------------------------------------------------------------------------------------------
// Building the syntax tree. The grammar guarantees the shape of the pairs; a shape it does not
// guarantee becomes an internal-error diagnostic rather than a panic.

type Build<T> = Result<T, Box<Diagnostic>>;

fn internal(span: Span, what: &str) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(
            codes::SYNTAX,
            span,
            format!("internal parser error: {what}"),
        )
        .with_help("this is a bug in squillion; please report it with the file that caused it"),
    )
}

/// A cursor over the children of one pair.
struct Children<'i> {
    inner: std::iter::Peekable<Pairs<'i, Rule>>,
    span: Span,
}

impl<'i> Children<'i> {
    fn of(pair: Pair<'i, Rule>) -> Self {
        let span = pair.as_span().into();
        Children {
            inner: pair.into_inner().peekable(),
            span,
        }
    }

    fn next(&mut self, rule: Rule) -> Build<Pair<'i, Rule>> {
        match self.inner.next() {
            Some(p) if p.as_rule() == rule => Ok(p),
            Some(p) => Err(internal(
                p.as_span().into(),
                &format!("expected {rule:?}, found {:?}", p.as_rule()),
            )),
            None => Err(internal(self.span, &format!("missing {rule:?}"))),
        }
    }

    fn take(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        if self.peek_rule() == Some(rule) {
            self.inner.next()
        } else {
            None
        }
    }

    fn peek_rule(&mut self) -> Option<Rule> {
        self.inner.peek().map(Pair::as_rule)
    }

    /// Skips keyword tokens (the `kw_*` rules).
    fn skip_keywords(&mut self) {
        while self.peek_rule().is_some_and(is_keyword) {
            self.inner.next();
        }
    }

    fn rest(self) -> impl Iterator<Item = Pair<'i, Rule>> {
        self.inner.filter(|p| !is_keyword(p.as_rule()))
    }
}

fn is_keyword(rule: Rule) -> bool {
    format!("{rule:?}").starts_with("kw_")
}

fn build_schema(mut pairs: Pairs<'_, Rule>, len: usize) -> Build<Schema> {
    let schema = pairs
        .next()
        .ok_or_else(|| internal(Span::new(0, 0), "empty parse"))?;
    let mut items = Vec::new();
    for pair in schema.into_inner() {
        match pair.as_rule() {
            Rule::settings_decl => items.push(Item::Settings(settings_decl(pair)?)),
            Rule::value_decl => items.push(Item::Value(type_decl(pair)?)),
            Rule::entity_decl => items.push(Item::Entity(type_decl(pair)?)),
            Rule::relation_decl => items.push(Item::Relation(relation_decl(pair)?)),
            Rule::query_decl => items.push(Item::Query(query_decl(pair)?)),
            Rule::EOI => {}
            other => {
                return Err(internal(
                    pair.as_span().into(),
                    &format!("unexpected {other:?}"),
                ))
            }
        }
    }
    Ok(Schema {
        items,
        span: Span::new(0, len),
    })
}

fn docs(pair: Pair<'_, Rule>) -> Docs {
    let lines = pair
        .into_inner()
        .map(|line| {
            let text = line.as_str().trim_end_matches('\r');
            let text = text.strip_prefix("///").unwrap_or(text);
            text.strip_prefix(' ').unwrap_or(text).to_owned()
        })
        .collect();
    Docs { lines }
}

fn ident(pair: Pair<'_, Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_owned(),
        span: pair.as_span().into(),
    }
}

fn path(pair: Pair<'_, Rule>) -> Path {
    let span = pair.as_span().into();
    Path {
        segments: pair.into_inner().map(ident).collect(),
        span,
    }
}

fn quantity(pair: Pair<'_, Rule>) -> Build<Quantity> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let number = c.next(Rule::number)?.as_str().replace('_', "");
    let unit = c.take(Rule::unit).map(ident);
    Ok(Quantity { number, unit, span })
}

fn ratio(pair: Pair<'_, Rule>) -> Build<Ratio> {
    let span: Span = pair.as_span().into();
    let mut c = Children::of(pair);
    let reads = c.next(Rule::number)?;
    let updates = c.next(Rule::number)?;
    let number = |p: Pair<'_, Rule>| Quantity {
        number: p.as_str().replace('_', ""),
        unit: None,
        span: p.as_span().into(),
    };
    Ok(Ratio {
        reads: number(reads),
        updates: number(updates),
        span,
    })
}

fn string_text(raw: &str) -> String {
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(raw);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('0') => out.push('\0'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn value(pair: Pair<'_, Rule>) -> Build<Value> {
    Ok(match pair.as_rule() {
        Rule::quantity => Value::Quantity(quantity(pair)?),
        Rule::ratio => Value::Ratio(ratio(pair)?),
        Rule::string => Value::String {
            text: string_text(pair.as_str()),
            span: pair.as_span().into(),
        },
        Rule::path => Value::Path(path(pair)),
        other => {
            return Err(internal(
                pair.as_span().into(),
                &format!("unexpected value {other:?}"),
            ))
        }
    })
}

fn attr(pair: Pair<'_, Rule>) -> Build<Attr> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let name = ident(c.next(Rule::ident)?);
    let mut args = Vec::new();
    if let Some(list) = c.take(Rule::attr_args) {
        for arg in list.into_inner() {
            let span = arg.as_span().into();
            let mut a = Children::of(arg);
            let name = a.take(Rule::ident).map(ident);
            let v = a
                .rest()
                .next()
                .ok_or_else(|| internal(span, "attribute argument without value"))?;
            args.push(AttrArg {
                name,
                value: value(v)?,
                span,
            });
        }
    }
    Ok(Attr { name, args, span })
}

fn attrs<'i>(c: &mut Children<'i>) -> Build<Vec<Attr>> {
    let mut out = Vec::new();
    while let Some(p) = c.take(Rule::attr) {
        out.push(attr(p)?);
    }
    Ok(out)
}

fn settings_decl(pair: Pair<'_, Rule>) -> Build<SettingsDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let mut settings = Vec::new();
    for s in c.rest() {
        let span = s.as_span().into();
        let mut sc = Children::of(s);
        let docs = self::docs(sc.next(Rule::docs)?);
        let name = ident(sc.next(Rule::ident)?);
        let v = sc
            .rest()
            .next()
            .ok_or_else(|| internal(span, "setting without value"))?;
        settings.push(Setting {
            docs,
            name,
            value: value(v)?,
            span,
        });
    }
    Ok(SettingsDecl {
        docs,
        settings,
        span,
    })
}

fn type_decl(pair: Pair<'_, Rule>) -> Build<TypeDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let name = ident(c.next(Rule::ident)?);
    let attrs = attrs(&mut c)?;
    let mut fields = Vec::new();
    let mut variants = Vec::new();
    for member in c.rest() {
        match member.as_rule() {
            Rule::field => fields.push(field(member)?),
            Rule::variant_decl => variants.push(variant_decl(member)?),
            other => {
                return Err(internal(
                    member.as_span().into(),
                    &format!("unexpected member {other:?}"),
                ))
            }
        }
    }
    Ok(TypeDecl {
        docs,
        name,
        attrs,
        fields,
        variants,
        span,
    })
}

fn variant_decl(pair: Pair<'_, Rule>) -> Build<VariantDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let name = ident(c.next(Rule::ident)?);
    let attrs = attrs(&mut c)?;
    let fields = c.rest().map(field).collect::<Build<_>>()?;
    Ok(VariantDecl {
        docs,
        name,
        attrs,
        fields,
        span,
    })
}

fn field(pair: Pair<'_, Rule>) -> Build<FieldDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    let name = ident(c.next(Rule::ident)?);
    let ty_pair = c
        .inner
        .next()
        .ok_or_else(|| internal(span, "field without type"))?;
    let ty = type_expr(ty_pair)?;
    let optional = c.take(Rule::optional).is_some();
    let attrs = attrs(&mut c)?;
    Ok(FieldDecl {
        docs,
        name,
        ty,
        optional,
        attrs,
        span,
    })
}

fn type_expr(pair: Pair<'_, Rule>) -> Build<TypeExpr> {
    let span = pair.as_span().into();
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    let kind = match rule {
        Rule::named_type => TypeExprKind::Named(ident(c.next(Rule::ident)?)),
        Rule::array_type => {
            let elem = c
                .inner
                .next()
                .ok_or_else(|| internal(span, "array without element type"))?;
            let elem = Box::new(type_expr(elem)?);
            let elem_optional = c.take(Rule::optional).is_some();
            let bound = c.take(Rule::quantity).map(quantity).transpose()?;
            TypeExprKind::Array {
                elem,
                elem_optional,
                bound,
            }
        }
        Rule::map_type => {
            c.skip_keywords();
            let v = c
                .inner
                .next()
                .ok_or_else(|| internal(span, "map without value type"))?;
            let value = Box::new(type_expr(v)?);
            let value_optional = c.take(Rule::optional).is_some();
            TypeExprKind::Map {
                value,
                value_optional,
            }
        }
        Rule::counters_type => {
            c.skip_keywords();
            let shape = c.next(Rule::counters_shape)?;
            let mut s = Children::of(shape);
            if let Some(name) = s.take(Rule::ident) {
                TypeExprKind::Counters(CountersShape::Named(ident(name)))
            } else {
                let dims = s
                    .rest()
                    .map(|d| Quantity {
                        number: d.as_str().to_owned(),
                        unit: None,
                        span: d.as_span().into(),
                    })
                    .collect();
                TypeExprKind::Counters(CountersShape::Dims(dims))
            }
        }
        other => return Err(internal(span, &format!("unexpected type {other:?}"))),
    };
    Ok(TypeExpr { kind, span })
}

fn relation_decl(pair: Pair<'_, Rule>) -> Build<RelationDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let left = relation_end(c.next(Rule::relation_end)?)?;
    let right = relation_end(c.next(Rule::relation_end)?)?;
    let mut facts = Vec::new();
    if let Some(body) = c.take(Rule::relation_body) {
        for f in body.into_inner() {
            facts.push(fact(f)?);
        }
    }
    Ok(RelationDecl {
        docs,
        left,
        right,
        facts,
        span,
    })
}

fn relation_end(pair: Pair<'_, Rule>) -> Build<RelationEnd> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let entity = ident(c.next(Rule::ident)?);
    let field = ident(c.next(Rule::ident)?);
    let card = c.next(Rule::cardinality)?;
    let card_span = card.as_span().into();
    let mut cc = Children::of(card);
    let class = ident(cc.next(Rule::ident)?);
    let optional = cc.take(Rule::optional).is_some();
    let mut args = Vec::new();
    if let Some(list) = cc.take(Rule::card_args) {
        for arg in list.into_inner() {
            let span = arg.as_span().into();
            let mut a = Children::of(arg);
            let name = a.take(Rule::ident).map(ident);
            let value = quantity(a.next(Rule::quantity)?)?;
            args.push(CardinalityArg { name, value, span });
        }
    }
    Ok(RelationEnd {
        entity,
        field,
        cardinality: CardinalityExpr {
            class,
            optional,
            args,
            span: card_span,
        },
        span,
    })
}

fn sort_spec(pair: Pair<'_, Rule>) -> Build<SortSpec> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    c.skip_keywords();
    let field = ident(c.next(Rule::ident)?);
    let direction = c.take(Rule::direction).map(direction);
    Ok(SortSpec {
        field,
        direction,
        span,
    })
}

fn direction(pair: Pair<'_, Rule>) -> Direction {
    if pair.as_str().starts_with("desc") {
        Direction::Desc
    } else {
        Direction::Asc
    }
}

fn keep_list(c: &mut Children<'_>) -> Vec<Ident> {
    c.take(Rule::keep_list)
        .map(|k| {
            k.into_inner()
                .filter(|p| p.as_rule() == Rule::ident)
                .map(ident)
                .collect()
        })
        .unwrap_or_default()
}

fn fact(pair: Pair<'_, Rule>) -> Build<Fact> {
    let span = pair.as_span().into();
    let rule = pair.as_rule();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let kind = match rule {
        Rule::standalone_fact => FactKind::Standalone(ident(c.next(Rule::ident)?)),
        Rule::show_fact => {
            let mut fields = Vec::new();
            while let Some(p) = c.take(Rule::path) {
                fields.push(path(p));
            }
            c.skip_keywords();
            let on = ident(c.next(Rule::ident)?);
            c.skip_keywords();
            let ratio_expr = match c.inner.next() {
                Some(p) if p.as_rule() == Rule::ratio => Some(RatioExpr::Ratio(ratio(p)?)),
                Some(p) if p.as_rule() == Rule::quantity => Some(RatioExpr::Plain(quantity(p)?)),
                Some(p) => return Err(internal(p.as_span().into(), "unexpected ratio")),
                None => None,
            };
            FactKind::Show {
                fields,
                on,
                ratio: ratio_expr,
            }
        }
        Rule::navigate_fact => FactKind::Navigate(ident(c.next(Rule::ident)?)),
        Rule::growth_fact => FactKind::Growth(c.rest().map(ident).collect()),
        Rule::atomic_move_fact => FactKind::AtomicMove,
        Rule::page_fact => {
            let size = quantity(c.next(Rule::quantity)?)?;
            let by = c.take(Rule::sort_spec).map(sort_spec).transpose()?;
            FactKind::Page { size, by }
        }
        Rule::latest_fact | Rule::top_fact => {
            let n = quantity(c.next(Rule::quantity)?)?;
            let by = sort_spec(c.next(Rule::sort_spec)?)?;
            let keep = keep_list(&mut c);
            if rule == Rule::latest_fact {
                FactKind::Latest { n, by, keep }
            } else {
                FactKind::Top { n, by, keep }
            }
        }
        Rule::summary_fact => {
            let mut items = Vec::new();
            for item in c.rest() {
                let span = item.as_span().into();
                let mut ic = Children::of(item);
                let function = ident(ic.next(Rule::ident)?);
                let field = ic.take(Rule::ident).map(ident);
                items.push(SummaryItem {
                    function,
                    field,
                    span,
                });
            }
            FactKind::Summary(items)
        }
        Rule::time_range_fact => FactKind::TimeRange(ident(c.next(Rule::ident)?)),
        Rule::force_fact => {
            let layout = ident(c.next(Rule::ident)?);
            let arg = c.take(Rule::quantity).map(quantity).transpose()?;
            FactKind::Force { layout, arg }
        }
        Rule::fields_fact => FactKind::Fields(c.rest().map(field).collect::<Build<_>>()?),
        other => return Err(internal(span, &format!("unexpected fact {other:?}"))),
    };
    Ok(Fact { docs, kind, span })
}

fn query_decl(pair: Pair<'_, Rule>) -> Build<QueryDecl> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let docs = docs(c.next(Rule::docs)?);
    c.skip_keywords();
    let name = ident(c.next(Rule::ident)?);
    c.skip_keywords();
    let entity = ident(c.next(Rule::ident)?);
    let children = c.take(Rule::ident).map(ident);
    let mut query = QueryDecl {
        docs,
        name,
        entity,
        children,
        conditions: Vec::new(),
        sort: Vec::new(),
        limit: None,
        rate: None,
        returns: Vec::new(),
        repeated_clauses: Vec::new(),
        span,
    };
    let (mut seen_where, mut seen_sort, mut seen_returns) = (false, false, false);
    for clause in c.rest() {
        let clause_span: Span = clause.as_span().into();
        match clause.as_rule() {
            Rule::where_clause => {
                if std::mem::replace(&mut seen_where, true) {
                    query.repeated_clauses.push(clause_span);
                }
                for cond in clause
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::condition)
                {
                    query.conditions.push(condition(cond)?);
                }
            }
            Rule::sort_clause => {
                if std::mem::replace(&mut seen_sort, true) {
                    query.repeated_clauses.push(clause_span);
                }
                for key in clause
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::sort_key)
                {
                    let span = key.as_span().into();
                    let mut k = Children::of(key);
                    let p = path(k.next(Rule::path)?);
                    let direction = k
                        .take(Rule::direction)
                        .map(direction)
                        .unwrap_or(Direction::Asc);
                    query.sort.push(SortKey {
                        path: p,
                        direction,
                        span,
                    });
                }
            }
            Rule::returns_clause => {
                if std::mem::replace(&mut seen_returns, true) {
                    query.repeated_clauses.push(clause_span);
                }
                query.returns.extend(
                    clause
                        .into_inner()
                        .filter(|p| p.as_rule() == Rule::ident)
                        .map(ident),
                );
            }
            Rule::limit_clause | Rule::rate_clause => {
                let is_limit = clause.as_rule() == Rule::limit_clause;
                let q = clause
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::quantity)
                    .ok_or_else(|| internal(clause_span, "clause without number"))?;
                let slot = if is_limit {
                    &mut query.limit
                } else {
                    &mut query.rate
                };
                if slot.is_some() {
                    query.repeated_clauses.push(clause_span);
                }
                *slot = Some(quantity(q)?);
            }
            other => {
                return Err(internal(
                    clause_span,
                    &format!("unexpected clause {other:?}"),
                ))
            }
        }
    }
    Ok(query)
}

fn condition(pair: Pair<'_, Rule>) -> Build<Condition> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let p = path(c.next(Rule::path)?);
    let op_pair = c.next(Rule::operator)?;
    let op = match op_pair.as_str().trim() {
        "==" => Operator::Eq,
        "!=" => Operator::Ne,
        "<" => Operator::Lt,
        "<=" => Operator::Le,
        ">" => Operator::Gt,
        ">=" => Operator::Ge,
        "starts_with" => Operator::StartsWith,
        "between" => Operator::Between,
        "in" => Operator::In,
        "near" => Operator::Near,
        "within" => Operator::Within,
        other => {
            return Err(internal(
                op_pair.as_span().into(),
                &format!("operator {other}"),
            ))
        }
    };
    let ignore_case = c.take(Rule::ignore_case).is_some();
    Ok(Condition {
        path: p,
        op,
        ignore_case,
        span,
    })
}

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
