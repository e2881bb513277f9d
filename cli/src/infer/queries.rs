//! Queries from observed access: each index in place (a query, or `@unique`/`@expires` on its
//! field) with its rate from `$indexStats`, and each filter the profiler recorded with its rate.

use std::collections::BTreeMap;

use mongodb::bson::{DateTime, Document};
use mongodb::options::IndexOptions;

use super::draft::{Attr, QueryDecl, TypeExpr};
use super::layout::Layout;
use super::names::{field_name, snake, Namer};
use super::path::Loc;
use super::sample::Sampled;
use super::stats::Access;
use super::words;

/// What the indexes and the profiler say.
#[derive(Debug, Default)]
pub struct Queries {
    /// The queries.
    pub decls: Vec<QueryDecl>,
    /// Attributes for fields: entity, field, attributes, why.
    pub attrs: Vec<(usize, String, Vec<Attr>, String)>,
    /// Comments for entities: indexes the draft does not state.
    pub notes: Vec<(usize, String)>,
}

/// The queries of every collection's entity.
pub fn queries(layout: &Layout, samples: &[Sampled], access: &[Access], now: DateTime) -> Queries {
    let mut out = Queries::default();
    type Key = (usize, Vec<(String, bool)>, Vec<(String, bool)>);
    let mut by_conditions: BTreeMap<Key, QueryDecl> = BTreeMap::new();
    let mut names = Namer::default();
    for (e, ent) in layout.entities.iter().enumerate() {
        if !ent.place.is_root() {
            continue;
        }
        let entity = &ent.decl.name;
        let a = &access[ent.coll];
        for (keys, options) in &samples[ent.coll].indexes {
            let uses = a.indexes.as_ref().map(|u| {
                u.iter()
                    .find(|u| Some(&u.name) == options.name.as_ref())
                    .cloned()
            });
            let read = match index(layout, e, keys, options) {
                Indexed::Attr(field, attrs, why) => {
                    out.attrs.push((e, field, attrs, why));
                    continue;
                }
                Indexed::Skip(why) => {
                    out.notes.extend(why.map(|w| (e, w)));
                    continue;
                }
                Indexed::Query(q) => q,
            };
            let Read {
                conditions,
                sort,
                limit,
                why,
            } = read;
            let mut comments = vec![why];
            let rate = match uses {
                None => {
                    comments
                        .push("state its rate: the server keeps no index statistics".to_owned());
                    None
                }
                Some(None) => None,
                Some(Some(u)) if u.ops == 0 => {
                    comments
                        .push("measured: not used since the server started counting".to_owned());
                    None
                }
                Some(Some(u)) => {
                    let secs = u.since.map_or(0.0, |since| {
                        (now.timestamp_millis() - since.timestamp_millis()) as f64 / 1000.0
                    });
                    comments.push(format!(
                        "measured: used {} times in {} ($indexStats)",
                        words::n(u.ops),
                        words::duration(secs)
                    ));
                    Some(u.ops as f64 / secs.max(1.0))
                }
            };
            if limit.is_some() {
                comments.push(format!(
                    "the index holds no `_id` after its sort keys: the query reads one list of at most `limit` documents, not pages; state its limit ({LIMIT} is a placeholder). squillion breaks a sorted query's ties by `_id`, so the Plan's index ends with it (`squillion indexes` shows the change)"
                ));
            }
            let name = names.unique(&query_name(entity, &conditions, &sort));
            by_conditions.insert(
                (e, conditions.clone(), sort.clone()),
                QueryDecl {
                    name,
                    on: entity.clone(),
                    comments,
                    conditions,
                    sort,
                    limit,
                    rate_per_second: rate,
                },
            );
        }
        // What the profiler saw the application ask.
        let Some(p) = &a.profiled else { continue };
        for (keys, n) in &p.filters {
            let paths: Option<Vec<String>> = keys.iter().map(|k| path(layout, e, k)).collect();
            let Some(paths) = paths.filter(|p| !p.is_empty()) else {
                continue;
            };
            let conditions: Vec<(String, bool)> = paths.into_iter().map(|p| (p, false)).collect();
            let rate = *n as f64 / p.seconds.max(1.0);
            let seen = format!(
                "measured by the profiler: {} queries on {} in {}",
                words::n(*n),
                keys.join(", "),
                words::duration(p.seconds)
            );
            let q = by_conditions
                .entry((e, conditions.clone(), Vec::new()))
                .or_insert_with(|| QueryDecl {
                    name: names.unique(&query_name(entity, &conditions, &[])),
                    on: entity.clone(),
                    comments: Vec::new(),
                    conditions,
                    sort: Vec::new(),
                    limit: None,
                    rate_per_second: None,
                });
            q.comments.retain(|c| !c.starts_with("state its rate"));
            q.comments.push(seen);
            q.rate_per_second = Some(rate);
        }
    }
    out.decls.extend(by_conditions.into_values());
    out.decls.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn query_name(entity: &str, conditions: &[(String, bool)], sort: &[(String, bool)]) -> String {
    let join = |keys: &[(String, bool)]| {
        keys.iter()
            .map(|(p, _)| snake(p))
            .collect::<Vec<_>>()
            .join("_and_")
    };
    let mut name = snake(entity);
    if !conditions.is_empty() {
        name = format!("{name}_by_{}", join(conditions));
    }
    if !sort.is_empty() {
        name = format!("{name}_sorted_by_{}", join(sort));
    }
    name
}

/// The `limit` stated for a query whose index ends in sort keys without `_id`: the language
/// needs a number, the index does not say it.
const LIMIT: u64 = 100;

/// A query read from an index: the equality keys before its first descending key, the sort
/// keys from there on, and a limit when the index holds no `_id` after its sort keys (a paged
/// query's index does: keyset pages are ordered by the sort keys, then `_id`).
struct Read {
    conditions: Vec<(String, bool)>,
    sort: Vec<(String, bool)>,
    limit: Option<u64>,
    why: String,
}

/// What an index in place becomes.
enum Indexed {
    /// Attributes on a field (name, attributes, why).
    Attr(String, Vec<Attr>, String),
    /// A query.
    Query(Read),
    /// Nothing (the reason, when it is worth a comment).
    Skip(Option<String>),
}

fn index(layout: &Layout, e: usize, keys: &Document, options: &IndexOptions) -> Indexed {
    let name = options.name.clone().unwrap_or_default();
    let spec = keys.to_string();
    let ignore_case = options
        .collation
        .as_ref()
        .and_then(|c| c.strength)
        .is_some_and(|s| {
            matches!(
                s,
                mongodb::options::CollationStrength::Primary
                    | mongodb::options::CollationStrength::Secondary
            )
        });
    let plain = keys.values().all(|v| super::shape::number(v).is_some());
    if !plain {
        return Indexed::Skip(Some(format!(
            "measured: index {name} {spec} is not a plain index; the language does not state it"
        )));
    }
    // A trailing `_id` orders a paged query's keyset pages: not a condition.
    let mut keyed: Vec<(&String, bool)> = keys
        .iter()
        .map(|(k, v)| (k, super::shape::number(v).is_some_and(|d| d < 0.0)))
        .collect();
    let paged = keyed.len() > 1 && keyed.last().is_some_and(|(k, _)| k.as_str() == "_id");
    if paged {
        keyed.pop();
    }
    let paths: Vec<Option<String>> = keyed.iter().map(|(k, _)| path(layout, e, k)).collect();
    if paths.iter().any(Option::is_none) {
        return Indexed::Skip(Some(format!(
            "measured: index {name} {spec} is on fields the draft does not declare here (patterns or references)"
        )));
    }
    let paths: Vec<String> = paths.into_iter().flatten().collect();
    let ent = &layout.entities[e];
    let is_field = |p: &str| ent.decl.fields.iter().any(|f| f.name == p);
    if paths.len() == 1 && is_field(&paths[0]) && !paged {
        let mut attrs = Vec::new();
        if options.unique == Some(true) {
            attrs.push(Attr::Unique);
        }
        if let Some(ttl) = options.expire_after {
            attrs.push(Attr::Expires(ttl.as_secs()));
        }
        if !attrs.is_empty() {
            if ignore_case {
                attrs.push(Attr::IgnoreCase);
            }
            return Indexed::Attr(
                paths[0].clone(),
                attrs,
                format!("measured: index {name} {spec}"),
            );
        }
    }
    // An index on a reference alone is the relation's, which the plan makes; one ending in
    // `_id` serves a query read in pages through the reference, which the draft states.
    if paths.len() == 1
        && !paged
        && ent
            .names
            .get(keyed.first().map_or("", |(k, _)| k.as_str()))
            .is_some_and(|n| !is_field(n))
    {
        return Indexed::Skip(None);
    }
    let mut why = format!("measured: index {name} {spec}");
    if options.unique == Some(true) {
        why.push_str(" is unique; the language states uniqueness of one field only");
    }
    let first_sort = keyed
        .iter()
        .position(|(_, desc)| *desc)
        .unwrap_or(keyed.len());
    let conditions = paths[..first_sort]
        .iter()
        .map(|p| (p.clone(), ignore_case))
        .collect();
    let sort: Vec<(String, bool)> = paths[first_sort..]
        .iter()
        .zip(&keyed[first_sort..])
        .map(|(p, (_, desc))| (p.clone(), *desc))
        .collect();
    let limit = (!sort.is_empty() && !paged).then_some(LIMIT);
    Indexed::Query(Read {
        conditions,
        sort,
        limit,
        why,
    })
}

/// The draft's path for an indexed BSON path at entity `e`'s documents, if the draft declares
/// it: field names for keys, relation ends for references (an extended reference's `id` is the
/// end itself), fields of embedded entities and value types below.
fn path(layout: &Layout, e: usize, key: &str) -> Option<String> {
    let ent = &layout.entities[e];
    let mut out: Vec<String> = Vec::new();
    let mut place: Option<Loc> = Some(ent.place.clone());
    let segments: Vec<&str> = key.split('.').collect();
    for (n, seg) in segments.iter().enumerate() {
        let here = place.as_ref().and_then(|p| {
            layout
                .entities
                .iter()
                .find(|x| x.coll == ent.coll && x.place == *p)
        });
        match here {
            Some(x) => {
                let name = x.names.get(*seg)?;
                // Keys inside a map are data: its index is the attribute pattern's.
                let is_map = x
                    .decl
                    .fields
                    .iter()
                    .any(|f| f.name == *name && matches!(f.ty, TypeExpr::Map(_)));
                if is_map {
                    return None;
                }
                out.push(name.clone());
                let p = place.take()?;
                place = [true, false]
                    .into_iter()
                    .map(|each| p.child(seg, each))
                    .find(|c| {
                        layout
                            .entities
                            .iter()
                            .any(|x| x.coll == ent.coll && x.place == *c)
                    });
                if place.is_none()
                    && n + 2 == segments.len()
                    && matches!(segments[n + 1], "id" | "_id")
                {
                    return Some(out.join("."));
                }
            }
            None => out.push(field_name(seg)),
        }
    }
    Some(out.join("."))
}
