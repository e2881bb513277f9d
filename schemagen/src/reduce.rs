//! Schema-level shrinking: the one-step reductions of a [`Schema`] (drop an entity with what
//! names it, a relation, a relation's fact, an entity's field beyond the base fields, a query, an
//! entity's pattern), each named by a short string, and applying a list of them. A reduced schema
//! may be invalid (a query named a dropped field): the caller checks it and skips it.

use crate::spec::{Fact, Pattern, Schema, Ty};

/// The base fields every generated entity has; facts and queries name them, so they stay.
const BASE: [&str; 3] = ["at", "n", "s"];

/// The reductions of `schema`, largest first: entities, relations, patterns, facts, fields,
/// queries.
pub fn reductions(schema: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    if schema.entities.len() > 1 {
        out.extend(schema.entities.iter().map(|e| format!("entity {}", e.name)));
    }
    out.extend(
        schema
            .relations
            .iter()
            .map(|r| format!("relation {}", r.left.field)),
    );
    out.extend(
        schema
            .entities
            .iter()
            .filter(|e| e.pattern != Pattern::Plain)
            .map(|e| format!("pattern {}", e.name)),
    );
    for r in &schema.relations {
        for i in 0..r.facts.len() {
            out.push(format!("fact {} {i}", r.left.field));
        }
    }
    for e in &schema.entities {
        for f in e.fields.iter().filter(|f| !BASE.contains(&f.name.as_str())) {
            out.push(format!("field {} {}", e.name, f.name));
        }
    }
    out.extend(schema.queries.iter().map(|q| format!("query {}", q.name)));
    out
}

/// `schema` with `reduction` applied (`None`: it names nothing in this schema).
pub fn reduce(schema: &Schema, reduction: &str) -> Option<Schema> {
    let mut s = schema.clone();
    let words: Vec<&str> = reduction.split_whitespace().collect();
    match words.as_slice() {
        ["entity", name] => {
            let before = s.entities.len();
            s.entities.retain(|e| e.name != *name);
            if s.entities.len() == before {
                return None;
            }
            s.relations
                .retain(|r| r.left.entity != *name && r.right.entity != *name);
            for r in &mut s.relations {
                r.facts.retain(|f| !names(f, name));
            }
            s.queries.retain(|q| q.on != *name);
        }
        ["relation", field] => {
            let r = s.relations.iter().find(|r| r.left.field == *field)?;
            let ends = [r.left.field.clone(), r.right.field.clone()];
            s.relations.retain(|r| r.left.field != *field);
            s.queries
                .retain(|q| !q.conditions.iter().any(|(p, _)| ends.contains(p)));
        }
        ["pattern", name] => {
            let e = s.entities.iter_mut().find(|e| e.name == *name)?;
            e.pattern = Pattern::Plain;
            e.variants.clear();
        }
        ["fact", field, i] => {
            let r = s.relations.iter_mut().find(|r| r.left.field == *field)?;
            let i: usize = i.parse().ok()?;
            if i >= r.facts.len() {
                return None;
            }
            r.facts.remove(i);
        }
        ["field", entity, field] => {
            let e = s.entities.iter_mut().find(|e| e.name == *entity)?;
            let before = e.fields.len();
            e.fields.retain(|f| f.name != *field);
            if e.fields.len() == before {
                return None;
            }
        }
        ["query", name] => {
            let before = s.queries.len();
            s.queries.retain(|q| q.name != *name);
            if s.queries.len() == before {
                return None;
            }
        }
        _ => return None,
    }
    drop_unused_values(&mut s);
    Some(s)
}

/// `schema` with every reduction of `list` applied in order (`None`: one named nothing).
pub fn reduce_all(schema: &Schema, list: &[String]) -> Option<Schema> {
    list.iter().try_fold(schema.clone(), |s, r| reduce(&s, r))
}

fn names(f: &Fact, entity: &str) -> bool {
    match f {
        Fact::Standalone(e) => e == entity,
        Fact::Show { from, on, .. } => from == entity || on == entity,
        _ => false,
    }
}

fn uses(ty: &Ty, value: &str) -> bool {
    match ty {
        Ty::Value(v) => v == value,
        Ty::Array(t, _) | Ty::Map(t, _) | Ty::Nullable(t) => uses(t, value),
        Ty::Scalar(_) | Ty::Counters(..) | Ty::OneOf(_) => false,
    }
}

/// Value types no field names any more are dropped (repeatedly: V1 holds a V0).
fn drop_unused_values(s: &mut Schema) {
    loop {
        let used = |name: &str| {
            s.entities
                .iter()
                .flat_map(|e| {
                    e.fields
                        .iter()
                        .chain(e.variants.iter().flat_map(|v| &v.fields))
                })
                .chain(
                    s.values
                        .iter()
                        .filter(|v| v.name != name)
                        .flat_map(|v| &v.fields),
                )
                .chain(s.relations.iter().flat_map(|r| {
                    r.facts.iter().flat_map(|f| match f {
                        Fact::Fields(fs) => fs.as_slice(),
                        _ => &[],
                    })
                }))
                .any(|f| uses(&f.ty, name))
        };
        let before = s.values.len();
        let keep: Vec<bool> = s.values.iter().map(|v| used(&v.name)).collect();
        let mut k = keep.iter();
        s.values.retain(|_| *k.next().unwrap_or(&true));
        if s.values.len() == before {
            return;
        }
    }
}
