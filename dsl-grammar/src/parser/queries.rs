//! The syntax tree of `query` declarations.

use pest::iterators::Pair;

use super::Rule;
use crate::ast::*;
use crate::span::Span;

use super::relations::direction;
use super::tree::*;

pub(super) fn query_decl(pair: Pair<'_, Rule>) -> Build<QueryDecl> {
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

pub(super) fn condition(pair: Pair<'_, Rule>) -> Build<Condition> {
    let span = pair.as_span().into();
    let mut c = Children::of(pair);
    let p = path(c.next(Rule::path)?);
    if let Some(m) = c.take(Rule::attribute_match) {
        // `path has (k == ?, v <op> ?)`.
        let mut m = Children::of(m);
        m.skip_keywords();
        let key = m.next(Rule::attribute_key)?;
        let key_span = key.as_span().into();
        let mut key = Children::of(key);
        key.next(Rule::attribute_k)?;
        let key_op = operator(key.next(Rule::operator)?)?;
        let mut value = Children::of(m.next(Rule::attribute_value)?);
        value.next(Rule::attribute_v)?;
        let op = operator(value.next(Rule::operator)?)?;
        return Ok(Condition {
            path: p,
            op,
            ignore_case: false,
            span,
            attribute: Some(AttributeKey {
                op: key_op,
                span: key_span,
            }),
        });
    }
    let op = operator(c.next(Rule::operator)?)?;
    let ignore_case = c.take(Rule::ignore_case).is_some();
    Ok(Condition {
        path: p,
        op,
        ignore_case,
        span,
        attribute: None,
    })
}

fn operator(op_pair: Pair<'_, Rule>) -> Build<Operator> {
    Ok(match op_pair.as_str().trim() {
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
    })
}
