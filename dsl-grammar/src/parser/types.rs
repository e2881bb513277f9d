//! The syntax tree of the file, settings, `entity`/`value` declarations, fields and types.

use pest::iterators::{Pair, Pairs};

use super::Rule;
use crate::ast::*;
use crate::span::Span;

use super::queries::query_decl;
use super::relations::relation_decl;
use super::tree::*;

pub(super) fn build_schema(mut pairs: Pairs<'_, Rule>, len: usize) -> Build<Schema> {
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

pub(super) fn settings_decl(pair: Pair<'_, Rule>) -> Build<SettingsDecl> {
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

pub(super) fn type_decl(pair: Pair<'_, Rule>) -> Build<TypeDecl> {
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

pub(super) fn variant_decl(pair: Pair<'_, Rule>) -> Build<VariantDecl> {
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

pub(super) fn field(pair: Pair<'_, Rule>) -> Build<FieldDecl> {
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

pub(super) fn type_expr(pair: Pair<'_, Rule>) -> Build<TypeExpr> {
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
            let bound = c.take(Rule::quantity).map(quantity).transpose()?;
            TypeExprKind::Map {
                value,
                value_optional,
                bound,
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
        Rule::one_of_type => {
            c.skip_keywords();
            TypeExprKind::OneOf {
                values: c.rest().map(value).collect::<Build<Vec<Value>>>()?,
            }
        }
        other => return Err(internal(span, &format!("unexpected type {other:?}"))),
    };
    Ok(TypeExpr { kind, span })
}
