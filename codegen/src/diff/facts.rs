//! The facts and decisions of two Plans, compared relationship by relationship and query by
//! query.

use std::collections::BTreeSet;

use crate::plan::{Decision, Plan, QueryOp, QueryPlan};

use super::{Cardinality, DecisionChange, DecisionState, End, FactChange, Moved, QueryFacts};

/// Facts stated differently in `old` and `new` (unsorted: [`super::diff`] sorts them).
pub(super) fn facts(old: &Plan, new: &Plan) -> Vec<FactChange> {
    let mut out = Vec::new();
    for id in ids(
        old.relationships.iter().map(|d| d.id.as_str()),
        new.relationships.iter().map(|d| d.id.as_str()),
    ) {
        let (o, n) = (old.relationship(&id), new.relationship(&id));
        for end in [End::From, End::To] {
            let (oc, nc) = (
                o.map(|d| cardinality(d, end)),
                n.map(|d| cardinality(d, end)),
            );
            if oc != nc {
                let named = n.or(o);
                let (from, to) = named
                    .map(|d| (d.from.clone(), d.to.clone()))
                    .unwrap_or_default();
                let (counted, per) = match end {
                    End::From => (to, from),
                    End::To => (from, to),
                };
                out.push(FactChange::Cardinality {
                    relation: id.clone(),
                    end,
                    counted,
                    per,
                    old: oc,
                    new: nc,
                });
            }
        }
        let stated = |d: Option<&Decision>| -> BTreeSet<String> {
            d.map(|d| d.facts.iter().cloned().collect())
                .unwrap_or_default()
        };
        let (os, ns) = (stated(o), stated(n));
        for gone in os.difference(&ns) {
            out.push(FactChange::Stated {
                relation: id.clone(),
                old: Some(gone.clone()),
                new: None,
            });
        }
        for added in ns.difference(&os) {
            out.push(FactChange::Stated {
                relation: id.clone(),
                old: None,
                new: Some(added.clone()),
            });
        }
    }
    let query = |p: &Plan, name: &str| p.queries.iter().find(|q| q.name == name).map(query_facts);
    for name in ids(
        old.queries.iter().map(|q| q.name.as_str()),
        new.queries.iter().map(|q| q.name.as_str()),
    ) {
        let (o, n) = (query(old, &name), query(new, &name));
        if o != n {
            out.push(FactChange::Query {
                name,
                old: o,
                new: n,
            });
        }
    }
    let settings = |p: &Plan| match serde_json::to_value(&p.settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (os, ns) = (settings(old), settings(new));
    for name in ids(os.keys().map(String::as_str), ns.keys().map(String::as_str)) {
        let (o, n) = (os.get(&name).cloned(), ns.get(&name).cloned());
        if o != n {
            out.push(FactChange::Setting {
                name,
                old: o,
                new: n,
            });
        }
    }
    out
}

/// Relationships whose decision differs, in the order of their ids.
pub(super) fn decisions(old: &Plan, new: &Plan) -> Vec<DecisionChange> {
    let mut out = Vec::new();
    for id in ids(
        old.relationships.iter().map(|d| d.id.as_str()),
        new.relationships.iter().map(|d| d.id.as_str()),
    ) {
        let (o, n) = (old.relationship(&id), new.relationship(&id));
        let (os, ns) = (o.map(state), n.map(state));
        let same = match (&os, &ns) {
            (Some(a), Some(b)) => same_decision(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            continue;
        }
        let moved = Moved::of_decision(os.as_ref(), ns.as_ref());
        out.push(DecisionChange {
            relation: id,
            old: os,
            new: ns,
            moved,
        });
    }
    out
}

/// The union of two lists of names, sorted, each once.
fn ids<'a>(
    old: impl Iterator<Item = &'a str>,
    new: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    old.chain(new).map(str::to_owned).collect()
}

fn cardinality(d: &Decision, end: End) -> Cardinality {
    let c = &d.cardinality;
    match end {
        End::From => Cardinality {
            written: c.from.clone(),
            max: c.from_max,
        },
        End::To => Cardinality {
            written: c.to.clone(),
            max: c.to_max,
        },
    }
}

fn query_facts(q: &QueryPlan) -> QueryFacts {
    QueryFacts {
        collection: q.collection.clone(),
        conditions: q
            .conditions
            .iter()
            .map(|c| match c.attribute {
                true => format!("{} has (k ==, v {})", c.path, op(c.op)),
                false => format!("{} {}", c.path, op(c.op)),
            })
            .collect(),
        sort: q
            .sort
            .iter()
            .map(|k| format!("{} {}", k.path, k.written()))
            .collect(),
        limit: q.limit,
        rate_per_second: q.rate_per_second,
        index: q.index.clone(),
    }
}

fn op(op: QueryOp) -> &'static str {
    match op {
        QueryOp::Eq => "==",
        QueryOp::Ne => "!=",
        QueryOp::Lt => "<",
        QueryOp::Le => "<=",
        QueryOp::Gt => ">",
        QueryOp::Ge => ">=",
        QueryOp::StartsWith => "starts_with",
        QueryOp::Between => "between",
        QueryOp::In => "in",
        QueryOp::Near => "near",
        QueryOp::Within => "within",
    }
}

fn state(d: &Decision) -> DecisionState {
    let (children, child_bytes) = match &d.cost {
        Some(cost) if cost.workload.children.is_finite() && cost.workload.children > 0.0 => (
            cost.workload.children.ceil() as u64,
            cost.workload.child_bytes,
        ),
        _ => (0, 0),
    };
    DecisionState {
        parent: d.parent.clone(),
        child: d.child.clone(),
        layout: d.strategy.as_str().to_owned(),
        forced: d.forced,
        copies: d.denormalized.iter().map(|c| c.source.clone()).collect(),
        subset: d.subset.as_ref().map(|s| s.n),
        bucket: d.bucket.as_ref().map(|b| b.size),
        computed: d.computed.iter().map(|c| c.path.clone()).collect(),
        outlier: d.outlier.as_ref().map(|o| o.embedded_max),
        placement: d
            .placement
            .iter()
            .map(|p| format!("{}.{}", p.collection, p.path))
            .collect(),
        because: d.because.clone(),
        rules: d.rules.iter().map(|r| r.title.to_owned()).collect(),
        children,
        child_bytes,
    }
}

/// Whether two decisions store the relationship the same way (the words may differ).
fn same_decision(a: &DecisionState, b: &DecisionState) -> bool {
    a.layout == b.layout
        && a.forced == b.forced
        && a.copies == b.copies
        && a.subset == b.subset
        && a.bucket == b.bucket
        && a.computed == b.computed
        && a.outlier == b.outlier
        && a.placement == b.placement
}
