//! The syntax tree of `relation` declarations and their facts.

use pest::iterators::Pair;

use super::Rule;
use crate::ast::*;

use super::tree::*;
use super::types::field;

pub(super) fn relation_decl(pair: Pair<'_, Rule>) -> Build<RelationDecl> {
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

pub(super) fn relation_end(pair: Pair<'_, Rule>) -> Build<RelationEnd> {
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

pub(super) fn sort_spec(pair: Pair<'_, Rule>) -> Build<SortSpec> {
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

pub(super) fn direction(pair: Pair<'_, Rule>) -> Direction {
    if pair.as_str().starts_with("desc") {
        Direction::Desc
    } else {
        Direction::Asc
    }
}

pub(super) fn keep_list(c: &mut Children<'_>) -> Vec<Ident> {
    c.take(Rule::keep_list)
        .map(|k| {
            k.into_inner()
                .filter(|p| p.as_rule() == Rule::ident)
                .map(ident)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn fact(pair: Pair<'_, Rule>) -> Build<Fact> {
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
        Rule::growth_fact => {
            let mut kinds = Vec::new();
            let mut rate = None;
            for p in c.rest() {
                match p.as_rule() {
                    Rule::ident => kinds.push(ident(p)),
                    Rule::growth_rate => {
                        let q = p.into_inner().find(|q| q.as_rule() == Rule::quantity);
                        rate = q.map(quantity).transpose()?;
                    }
                    _ => {}
                }
            }
            FactKind::Growth { kinds, rate }
        }
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
            let mut per_bucket = None;
            for item in c.rest() {
                let span = item.as_span().into();
                if item.as_rule() == Rule::per_bucket {
                    per_bucket = Some(span);
                    continue;
                }
                let mut ic = Children::of(item);
                let function = ident(ic.next(Rule::ident)?);
                let field = ic.take(Rule::ident).map(ident);
                items.push(SummaryItem {
                    function,
                    field,
                    span,
                });
            }
            FactKind::Summary { items, per_bucket }
        }
        Rule::time_range_fact => {
            let field = ident(c.next(Rule::ident)?);
            c.skip_keywords();
            let window = c.take(Rule::quantity).map(quantity).transpose()?;
            FactKind::TimeRange { field, window }
        }
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
