//! Enumerations, `one_of("new", "paid", "shipped")`: a string field that takes one of the listed
//! values. The values must be strings, listed once each, and name distinct Rust enum variants
//! (the generated enum names each value in PascalCase, see [`crate::rust::names::enum_variant`]).

use std::collections::BTreeMap;

use squillion_grammar::ast::{TypeExpr, TypeExprKind, Value};
use squillion_grammar::{Diagnostic, Span};

use super::Resolver;
use crate::codes;
use crate::rust::names::enum_variant;

/// Reports what is wrong with the values of `one_of(...)` written at `span`; `None` if anything is.
pub(super) fn check(r: &mut Resolver<'_>, span: Span, values: &[Value]) -> Option<()> {
    if values.is_empty() {
        r.report(
            Diagnostic::error(codes::INVALID_ENUM, span, "`one_of()` lists no values")
                .with_label("an enumeration needs at least one value")
                .with_help("list the strings the field takes: `one_of(\"new\", \"paid\")`"),
        );
        return None;
    }
    let mut ok = true;
    // Each value and each Rust variant, with where it was first written.
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    let mut variants: BTreeMap<String, (&str, Span)> = BTreeMap::new();
    for v in values {
        let Value::String { text, span } = v else {
            let written = v.span();
            let (what, text) = match v {
                Value::Quantity(q) => (
                    "a number",
                    format!(
                        "{}{}",
                        q.number,
                        q.unit.as_ref().map(|u| u.name.as_str()).unwrap_or("")
                    ),
                ),
                Value::Ratio(ratio) => (
                    "a ratio",
                    format!("{}:{}", ratio.reads.number, ratio.updates.number),
                ),
                Value::Path(p) => ("a name", p.dotted()),
                Value::String { text, .. } => ("a string", text.clone()),
            };
            r.report(
                Diagnostic::error(
                    codes::INVALID_ENUM,
                    written,
                    format!("the values of `one_of` are strings: `{text}` is {what}"),
                )
                .with_label("not a string")
                .with_help(format!(
                    "write it in double quotes, `\"{text}\"`: the field stores the text"
                ))
                .with_fix(written, format!("\"{text}\"")),
            );
            ok = false;
            continue;
        };
        if let Some(first) = seen.get(text.as_str()) {
            r.report(
                Diagnostic::error(
                    codes::INVALID_ENUM,
                    *span,
                    format!("`one_of` lists {text:?} twice"),
                )
                .with_label("listed again")
                .with_related(*first, "first listed here")
                .with_help("remove the second one")
                .with_fix(removal(values, v), ""),
            );
            ok = false;
            continue;
        }
        seen.insert(text, *span);
        let variant = enum_variant(text);
        if let Some((other, first)) = variants.get(&variant) {
            r.report(
                Diagnostic::error(
                    codes::INVALID_ENUM,
                    *span,
                    format!(
                        "{other:?} and {text:?} would both be the variant `{variant}` of the \
                         generated Rust enum"
                    ),
                )
                .with_label("same Rust name as an earlier value")
                .with_related(*first, "this value")
                .with_help(
                    "the Rust enum names each value in PascalCase, keeping ASCII letters and \
                     digits: values that differ only by case or punctuation clash; store one of \
                     them under another text",
                ),
            );
            ok = false;
            continue;
        }
        variants.insert(variant, (text, *span));
    }
    ok.then_some(())
}

/// The span removing `value` from the list removes: the value and the comma before it.
fn removal(values: &[Value], value: &Value) -> Span {
    let at = values.iter().position(|v| std::ptr::eq(v, value));
    match at
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| values.get(i))
    {
        Some(before) => Span::new(before.span().end, value.span().end),
        None => value.span(),
    }
}

/// The strings of the enumeration a type ends in (`one_of(...)`, `[one_of(...)]`,
/// `map<one_of(...)>`); empty when it ends in something else.
pub(super) fn values(ty: &TypeExpr) -> Vec<String> {
    match &ty.kind {
        TypeExprKind::OneOf { values } => values
            .iter()
            .filter_map(|v| match v {
                Value::String { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect(),
        TypeExprKind::Array { elem, .. } => values(elem),
        TypeExprKind::Map { value, .. } => values(value),
        TypeExprKind::Named(_) | TypeExprKind::Counters(_) => Vec::new(),
    }
}
