//! Declared queries: each generated query method is called with arguments drawn from the stored
//! documents (so its answer is rarely empty), and its answer is checked against the reference:
//! exactly the documents the conditions select (through arrays, as MongoDB compares, and
//! case-insensitively where the query says so), in the declared order, at most the limit.

use std::cmp::Ordering;

use bson::{Bson, Document};
use squillion_codegen::plan::{QueryOp, QueryPlan};

use crate::checks::compare;
use crate::model::Reference;
use crate::ops::{Expect, Kind, Op, Schema};
use crate::unique::values_at;
use crate::values::Rng;

/// The query `name` of the Plan.
fn query<'a>(s: &'a Schema<'_>, name: &str) -> Option<&'a QueryPlan> {
    s.plan.queries.iter().find(|q| q.name == name)
}

/// A call of a declared query with arguments taken from the stored documents, or `None` when
/// the schema has no query method or its collection holds nothing to take them from.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    let callable: Vec<&QueryPlan> = s
        .plan
        .queries
        .iter()
        .filter(|q| s.has(&q.collection, &q.name))
        // The reference has no model of the sphere: geospatial queries are tested against one
        // in squillion-correctness (tests/geo.rs), not driven here.
        .filter(|q| {
            !q.conditions
                .iter()
                .any(|c| matches!(c.op, QueryOp::Near | QueryOp::Within))
        })
        .collect();
    let q = *rng.pick(&callable)?;
    let docs = r.docs(&q.collection);
    let mut args = Vec::new();
    for c in &q.conditions {
        // An enumeration's argument is also any of its values, stored or not (the method takes
        // the generated enum: every value must reach the server as its exact text).
        let listed: Vec<String> = s
            .plan
            .collection(&q.collection)
            .and_then(|col| col.field_at(&c.path))
            .map(|f| f.enum_values.clone())
            .unwrap_or_default();
        let n = rng.below(4);
        let mut pick = || {
            if !listed.is_empty() && rng.chance(40) {
                return rng.pick(&listed).cloned().map(Bson::String);
            }
            let d = Bson::Document(rng.pick(docs)?.clone());
            let values = values_at(&d, &c.path);
            rng.pick(&values).cloned()
        };
        match c.op {
            QueryOp::StartsWith => {
                let v = pick()?;
                let text = v.as_str()?;
                args.push(Bson::String(text.chars().take(1).collect()));
            }
            QueryOp::Between => {
                let (a, b) = (pick()?, pick()?);
                let (from, to) = if compare(&a, &b) == Ordering::Greater {
                    (b, a)
                } else {
                    (a, b)
                };
                args.push(from);
                args.push(to);
            }
            // An enumeration's `in`: none to three of its values (none selects nothing).
            QueryOp::In if !listed.is_empty() => {
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(pick()?);
                }
                args.push(Bson::Array(items));
            }
            QueryOp::In => args.push(Bson::Array(vec![pick()?])),
            _ => args.push(pick()?),
        }
    }
    Some(Op::query(&q.collection, &q.name, args))
}

fn holds(op: QueryOp, value: &Bson, args: &[Bson], ignore_case: bool) -> bool {
    let fold = |v: &Bson| match v {
        Bson::String(s) if ignore_case => Bson::String(s.to_lowercase()),
        other => other.clone(),
    };
    let (v, a) = (fold(value), args.iter().map(fold).collect::<Vec<_>>());
    let first = a.first();
    let number = |v: &Bson| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_));
    // Equality: numbers by value, everything else exactly; order within one type class.
    let cmp = |x: &Bson| {
        if number(&v) && number(x) {
            Some(compare(&v, x))
        } else if v == *x {
            Some(Ordering::Equal)
        } else if same_type(&v, x) {
            Some(match compare(&v, x) {
                // Values `compare` does not order (binary, decimal): unequal, unordered.
                Ordering::Equal => return None,
                o => o,
            })
        } else {
            None
        }
    };
    match op {
        QueryOp::Eq => first.is_some_and(|x| cmp(x) == Some(Ordering::Equal)),
        QueryOp::Ne => first.is_some_and(|x| cmp(x) != Some(Ordering::Equal)),
        QueryOp::Lt => first.is_some_and(|x| cmp(x) == Some(Ordering::Less)),
        QueryOp::Le => {
            first.is_some_and(|x| matches!(cmp(x), Some(Ordering::Less | Ordering::Equal)))
        }
        QueryOp::Gt => first.is_some_and(|x| cmp(x) == Some(Ordering::Greater)),
        QueryOp::Ge => {
            first.is_some_and(|x| matches!(cmp(x), Some(Ordering::Greater | Ordering::Equal)))
        }
        QueryOp::StartsWith => match (&v, first) {
            (Bson::String(s), Some(Bson::String(p))) => s.starts_with(p.as_str()),
            _ => false,
        },
        QueryOp::Between => match (a.first(), a.get(1)) {
            (Some(from), Some(to)) => {
                matches!(cmp(from), Some(Ordering::Greater | Ordering::Equal))
                    && matches!(cmp(to), Some(Ordering::Less | Ordering::Equal))
            }
            _ => false,
        },
        QueryOp::In => match first {
            Some(Bson::Array(items)) => items.iter().any(|x| cmp(x) == Some(Ordering::Equal)),
            _ => false,
        },
        // Never picked (see `pick`): the reference does not model the sphere.
        QueryOp::Near | QueryOp::Within => false,
    }
}

/// MongoDB compares values of one type class: numbers with numbers, strings with strings.
fn same_type(a: &Bson, b: &Bson) -> bool {
    let number = |v: &Bson| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_));
    (number(a) && number(b)) || std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// What the query must answer: the documents of the reference it selects.
pub fn expect(s: &Schema<'_>, r: &Reference, op: &Op) -> Option<Expect> {
    let Kind::Query { name } = &op.kind else {
        return None;
    };
    let q = query(s, name)?;
    let args = op.bson_args();
    let mut at = 0;
    let mut conditions = Vec::new();
    for c in &q.conditions {
        let n = if c.op == QueryOp::Between { 2 } else { 1 };
        conditions.push((c, args.get(at..at + n)?.to_vec()));
        at += n;
    }
    let selected: Vec<Document> = r
        .docs(&q.collection)
        .iter()
        .filter(|d| {
            let d = Bson::Document((*d).clone());
            conditions.iter().all(|(c, a)| {
                let values = values_at(&d, &c.path);
                if c.op == QueryOp::Ne {
                    // `$ne` is `$eq` negated: no value at the path equals the argument (an
                    // array holding it is left out; a missing field is selected).
                    !values
                        .iter()
                        .any(|v| holds(QueryOp::Eq, v, a, c.ignore_case))
                } else {
                    values.iter().any(|v| holds(c.op, v, a, c.ignore_case))
                }
            })
        })
        .cloned()
        .collect();
    Some(Expect::Query {
        selected,
        sort: q
            .sort
            .iter()
            .map(|k| (k.path.clone(), k.direction < 0))
            .collect(),
        limit: q.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
    })
}

fn sort_key(d: &Document, sort: &[(String, bool)]) -> Vec<Bson> {
    let b = Bson::Document(d.clone());
    sort.iter()
        .map(|(p, _)| values_at(&b, p).into_iter().next().unwrap_or(Bson::Null))
        .collect()
}

fn order(a: &[Bson], b: &[Bson], sort: &[(String, bool)]) -> Ordering {
    for ((x, y), (_, desc)) in a.iter().zip(b).zip(sort) {
        let o = compare(x, y);
        let o = if *desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Whether `got` is a right answer: only selected documents, every one of them without a limit,
/// in the declared order, and with a limit the first ones of that order (ties in any order).
pub fn answered(
    selected: &[Document],
    sort: &[(String, bool)],
    limit: Option<usize>,
    got: &Bson,
) -> Result<(), String> {
    let Bson::Array(items) = got else {
        return Err("the query answered no list".to_owned());
    };
    let ids: Vec<Bson> = items
        .iter()
        .filter_map(|d| d.as_document()?.get("_id").cloned())
        .collect();
    let by_id = |id: &Bson| selected.iter().find(|d| d.get("_id") == Some(id));
    if ids.len() != items.len() {
        return Err("an answered document has no _id".to_owned());
    }
    let mut got_docs = Vec::new();
    for id in &ids {
        match by_id(id) {
            Some(d) => got_docs.push(d.clone()),
            None => {
                return Err(format!(
                    "the query answered {}, which its conditions do not select",
                    crate::model::show(id)
                ))
            }
        }
    }
    let want = limit.map_or(selected.len(), |l| l.min(selected.len()));
    if got_docs.len() != want {
        return Err(format!(
            "the query answered {} documents, {want} expected (of {} selected)",
            got_docs.len(),
            selected.len()
        ));
    }
    let keys: Vec<Vec<Bson>> = got_docs.iter().map(|d| sort_key(d, sort)).collect();
    if keys
        .windows(2)
        .any(|w| order(&w[0], &w[1], sort) == Ordering::Greater)
    {
        return Err("the query's answer is not in the declared order".to_owned());
    }
    let mut all: Vec<Vec<Bson>> = selected.iter().map(|d| sort_key(d, sort)).collect();
    all.sort_by(|a, b| order(a, b, sort));
    if let (Some(last), Some(next)) = (keys.last(), all.get(want)) {
        // With a limit, nothing left out comes before what was answered.
        if order(next, last, sort) == Ordering::Less {
            return Err("the query left out a document that comes before its answer".to_owned());
        }
    }
    Ok(())
}
