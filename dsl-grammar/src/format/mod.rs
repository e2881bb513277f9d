//! The canonical layout of a `.sqn` file, as `squillion fmt` writes it.
//!
//! - one declaration, field, fact or clause per line, two spaces per block level;
//! - one empty line between top-level declarations, at most one elsewhere (where the file had one);
//! - the types of consecutive fields of a block line up;
//! - tokens spaced one way (`name: type?`, `@attr(arg, key: value)`, `many(300)`, `a.b`, `x == ?`);
//! - trailing commas dropped;
//! - every `//` comment and `///` doc comment kept, in order, on its own line or trailing the line
//!   it trailed.
//!
//! Only valid files are formatted; formatting never changes what the file means (the syntax tree
//! is the same, spans aside), and formatting a formatted file changes nothing.

mod lex;
mod writer;

use pest::iterators::Pair;
use pest::Parser as _;

use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::parser::{Rule, SqnParser};
use crate::span::Span;
use writer::Writer;

/// Formats a `.sqn` source, or returns its syntax errors (the same as [`crate::parse`]'s).
///
/// ```
/// let formatted = squillion_grammar::format("entity Book{title:string @index,pages : int32?}").unwrap();
/// assert_eq!(formatted, "entity Book {\n  title: string @index\n  pages: int32?\n}\n");
/// ```
pub fn format(source: &str) -> Result<String, Vec<Diagnostic>> {
    crate::parse(source)?;
    let mut pairs = SqnParser::parse(Rule::schema, source).map_err(|_| vec![internal()])?;
    let schema = pairs.next().ok_or_else(|| vec![internal()])?;
    let mut w = Writer::new(source);
    for item in schema.into_inner() {
        if item.as_rule() != Rule::EOI {
            statement(&mut w, item);
        }
    }
    Ok(w.finish())
}

fn internal() -> Diagnostic {
    Diagnostic::error(
        codes::SYNTAX,
        Span::new(0, 0),
        "the formatter could not read a file the parser accepted",
    )
    .with_help("please report this with the file")
}

/// One declaration, field, fact or clause, on its own line(s).
fn statement(w: &mut Writer<'_>, pair: Pair<'_, Rule>) {
    let span = pair.as_span();
    let rule = pair.as_rule();
    w.begin_statement(span.start());
    let mut header = Vec::new();
    let mut body = Vec::new();
    let mut block: Option<(usize, usize)> = is_block(rule).then(|| (span.start(), span.end()));
    for child in pair.into_inner() {
        match child.as_rule() {
            Rule::docs => {
                for line in child.into_inner() {
                    w.doc_line(line.as_str(), line.as_span().start());
                }
            }
            Rule::relation_body => {
                let inner = child.as_span();
                block = Some((inner.start(), inner.end()));
                body.extend(child.into_inner());
            }
            r if is_body_item(r) => body.push(child),
            _ => header.push(child),
        }
    }
    let header_end = match (&block, body.first()) {
        (Some(_), _) => brace_after(w, &header, span.start()),
        (None, _) => span.end(),
    };
    inline(w, rule, &header, header_end);
    if let Some((_, end)) = block {
        let close = end.saturating_sub(1);
        if body.is_empty() && !w.has_comment_before(close) {
            w.token("{", header_end, true);
            w.token("}", close, false);
        } else {
            w.open_block(header_end);
            for child in body {
                statement(w, child);
            }
            w.close_block(close);
        }
    }
    w.end_statement();
}

/// Where the `{` after a block's header is.
fn brace_after(w: &Writer<'_>, header: &[Pair<'_, Rule>], from: usize) -> usize {
    let start = header.last().map_or(from, |p| p.as_span().end());
    lex::punctuation(w.source(), start, w.source().len())
        .find(|(_, t)| *t == "{")
        .map_or(start, |(at, _)| at)
}

fn is_block(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::settings_decl
            | Rule::value_decl
            | Rule::entity_decl
            | Rule::variant_decl
            | Rule::query_decl
            | Rule::fields_fact
    )
}

fn is_body_item(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::field
            | Rule::setting
            | Rule::variant_decl
            | Rule::standalone_fact
            | Rule::show_fact
            | Rule::navigate_fact
            | Rule::growth_fact
            | Rule::atomic_move_fact
            | Rule::page_fact
            | Rule::latest_fact
            | Rule::top_fact
            | Rule::summary_fact
            | Rule::time_range_fact
            | Rule::force_fact
            | Rule::fields_fact
            | Rule::where_clause
            | Rule::sort_clause
            | Rule::limit_clause
            | Rule::rate_clause
            | Rule::returns_clause
    )
}

/// A token of one line: a leaf of the tree or punctuation between leaves.
struct Token<'s> {
    text: &'s str,
    at: usize,
    /// The leaf's rule; `None` for punctuation.
    rule: Option<Rule>,
}

/// Writes `pairs` (and the punctuation between and after them, up to `end`) on one line.
fn inline(w: &mut Writer<'_>, rule: Rule, pairs: &[Pair<'_, Rule>], end: usize) {
    let Some(first) = pairs.first() else {
        return;
    };
    let source = w.source();
    let mut tokens = Vec::new();
    let mut cursor = first.as_span().start();
    for pair in pairs {
        leaves(pair.clone(), &mut |leaf| {
            let span = leaf.as_span();
            for (at, text) in lex::punctuation(source, cursor, span.start()) {
                tokens.push(Token {
                    text,
                    at,
                    rule: None,
                });
            }
            tokens.push(Token {
                text: span.as_str(),
                at: span.start(),
                rule: Some(leaf.as_rule()),
            });
            cursor = span.end();
        });
    }
    for (at, text) in lex::punctuation(source, cursor, end) {
        tokens.push(Token {
            text,
            at,
            rule: None,
        });
    }
    let count = tokens.len();
    for (index, token) in tokens.iter().enumerate() {
        let next = tokens.get(index + 1);
        let dangling = token.rule.is_none()
            && token.text == ","
            && next.is_none_or(|n| n.rule.is_none() && n.text == ")");
        if dangling {
            continue;
        }
        if index == 0 && rule == Rule::field {
            w.field_name(token.text, token.at);
            continue;
        }
        let space = index > 0 && index < count && spaced(&tokens[index - 1], token);
        w.token(token.text, token.at, space);
    }
}

/// The leaves of a pair, in order: pairs without inner pairs, and the atomic tokens whose text
/// is written as it stands.
fn leaves<'s>(pair: Pair<'s, Rule>, visit: &mut impl FnMut(Pair<'s, Rule>)) {
    let atomic = matches!(
        pair.as_rule(),
        Rule::quantity | Rule::ratio | Rule::string | Rule::operator | Rule::counter_dim
    );
    let mut inner = pair.clone().into_inner().peekable();
    if atomic || inner.peek().is_none() {
        visit(pair);
        return;
    }
    for child in inner {
        leaves(child, visit);
    }
}

/// Whether one space separates two tokens of a line.
fn spaced(prev: &Token<'_>, next: &Token<'_>) -> bool {
    // `attrs has (k == ?, v == ?)`: `has` is a word, not a call.
    if prev.rule == Some(Rule::kw_has) {
        return true;
    }
    if next.rule == Some(Rule::optional) {
        return false;
    }
    if next.rule.is_none()
        && matches!(
            next.text,
            "," | ")" | "]" | ">" | ";" | "." | ":" | "(" | "<"
        )
    {
        return false;
    }
    !(prev.rule.is_none() && matches!(prev.text, "(" | "[" | "<" | "@" | "."))
}

#[cfg(test)]
mod tests;
