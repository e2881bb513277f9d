//! Declared queries resolved against the collections: the stored path of every condition and
//! sort key, and the index that serves the query. Emitters read it to write query methods.

use crate::model::Operator;
use crate::plan::{Collection, Decision, IndexKey, QueryCondition, QueryOp, QueryPlan};

use super::context::Ctx;
use super::indexes::resolve_path;

pub(crate) fn plan(
    ctx: &Ctx<'_>,
    collections: &[Collection],
    decisions: &[Decision],
) -> Vec<QueryPlan> {
    let mut out = Vec::new();
    for q in &ctx.model.queries {
        let Some(entity) = ctx.entity(&q.entity) else {
            continue;
        };
        let Some(c) = collections.iter().find(|c| c.name == entity.collection) else {
            continue;
        };
        let mut conditions = Vec::new();
        let mut join = None;
        let mut unstored = Vec::new();
        for cond in &q.conditions {
            match resolve_path(c, &cond.path, decisions) {
                Some((path, field)) => conditions.push(QueryCondition {
                    path,
                    written: cond.path.segments.join("."),
                    bson_type: field.bson_type.clone(),
                    op: op(cond.op),
                    ignore_case: cond.ignore_case,
                }),
                None => match &cond.path.through {
                    Some(t) => join = Some(format!("{}.{}", t.entity, t.field)),
                    None => unstored.push(cond.path.segments.join(".")),
                },
            }
        }
        let mut sort = Vec::new();
        for k in &q.sort {
            match resolve_path(c, &k.path, decisions) {
                Some((path, _)) => {
                    sort.push(IndexKey::ordered(path, if k.descending { -1 } else { 1 }))
                }
                None => unstored.push(k.path.segments.join(".")),
            }
        }
        let marker = format!("query `{}`", q.name);
        let index = c
            .indexes
            .iter()
            .find(|i| i.reasons.iter().any(|r| r.starts_with(&marker)))
            .map(|i| i.name.clone());
        out.push(QueryPlan {
            name: q.name.clone(),
            docs: q.docs.clone(),
            entity: q.entity.clone(),
            collection: c.name.clone(),
            conditions,
            sort,
            limit: q.limit,
            rate_per_second: q.rate_per_second,
            index,
            join,
            unstored,
        });
    }
    out
}

fn op(o: Operator) -> QueryOp {
    match o {
        Operator::Eq => QueryOp::Eq,
        Operator::Ne => QueryOp::Ne,
        Operator::Lt => QueryOp::Lt,
        Operator::Le => QueryOp::Le,
        Operator::Gt => QueryOp::Gt,
        Operator::Ge => QueryOp::Ge,
        Operator::StartsWith => QueryOp::StartsWith,
        Operator::Between => QueryOp::Between,
        Operator::In => QueryOp::In,
        Operator::Near => QueryOp::Near,
        Operator::Within => QueryOp::Within,
    }
}
