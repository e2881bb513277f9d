//! Building the syntax tree: the cursor over pest's pairs and the lexical pieces (names, paths,
//! quantities, strings, values, attributes).

use pest::iterators::{Pair, Pairs};

use super::Rule;
use crate::ast::*;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

// ---------------------------------------------------------------------------------------------
// Building the syntax tree. The grammar guarantees the shape of the pairs; a shape it does not
// guarantee becomes an internal-error diagnostic rather than a panic.

pub(super) type Build<T> = Result<T, Box<Diagnostic>>;

pub(super) fn internal(span: Span, what: &str) -> Box<Diagnostic> {
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
pub(super) struct Children<'i> {
    pub(super) inner: std::iter::Peekable<Pairs<'i, Rule>>,
    span: Span,
}

impl<'i> Children<'i> {
    pub(super) fn of(pair: Pair<'i, Rule>) -> Self {
        let span = pair.as_span().into();
        Children {
            inner: pair.into_inner().peekable(),
            span,
        }
    }

    pub(super) fn next(&mut self, rule: Rule) -> Build<Pair<'i, Rule>> {
        match self.inner.next() {
            Some(p) if p.as_rule() == rule => Ok(p),
            Some(p) => Err(internal(
                p.as_span().into(),
                &format!("expected {rule:?}, found {:?}", p.as_rule()),
            )),
            None => Err(internal(self.span, &format!("missing {rule:?}"))),
        }
    }

    pub(super) fn take(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        if self.peek_rule() == Some(rule) {
            self.inner.next()
        } else {
            None
        }
    }

    pub(super) fn peek_rule(&mut self) -> Option<Rule> {
        self.inner.peek().map(Pair::as_rule)
    }

    /// Skips keyword tokens (the `kw_*` rules).
    pub(super) fn skip_keywords(&mut self) {
        while self.peek_rule().is_some_and(is_keyword) {
            self.inner.next();
        }
    }

    pub(super) fn rest(self) -> impl Iterator<Item = Pair<'i, Rule>> {
        self.inner.filter(|p| !is_keyword(p.as_rule()))
    }
}

pub(super) fn is_keyword(rule: Rule) -> bool {
    format!("{rule:?}").starts_with("kw_")
}

pub(super) fn docs(pair: Pair<'_, Rule>) -> Docs {
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

pub(super) fn ident(pair: Pair<'_, Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_owned(),
        span: pair.as_span().into(),
    }
}

pub(super) fn path(pair: Pair<'_, Rule>) -> Path {
    let span = pair.as_span().into();
    Path {
        segments: pair.into_inner().map(ident).collect(),
        span,
    }
}

pub(super) fn quantity(pair: Pair<'_, Rule>) -> Build<Quantity> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let number = c.next(Rule::number)?.as_str().replace('_', "");
    let unit = c.take(Rule::unit).map(ident);
    Ok(Quantity { number, unit, span })
}

pub(super) fn ratio(pair: Pair<'_, Rule>) -> Build<Ratio> {
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

pub(super) fn string_text(raw: &str) -> String {
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

pub(super) fn value(pair: Pair<'_, Rule>) -> Build<Value> {
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

pub(super) fn attr(pair: Pair<'_, Rule>) -> Build<Attr> {
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

pub(super) fn attrs<'i>(c: &mut Children<'i>) -> Build<Vec<Attr>> {
    let mut out = Vec::new();
    while let Some(p) = c.take(Rule::attr) {
        out.push(attr(p)?);
    }
    Ok(out)
}
