//! The Plan's invariants, checked on the documents the server holds: copies equal their source,
//! summaries equal the aggregates they summarise, arrays within their bounds, unique values
//! unique, subsets the right N in the right order, both sides of two-way links agreeing, indexes
//! exactly the Plan's, TTL only where documents should expire.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use bson::{Bson, Document};
use squillion_codegen::plan::{
    Collection, CollectionRole, ComputedFn, Layout, Plan, PlanField, Shape, SummaryFn,
};

use crate::documents::copy_source;
use crate::model::{show, Reference};
use crate::unique::values_at;

/// Orders two BSON values as MongoDB sorts values of one type.
pub fn compare(a: &Bson, b: &Bson) -> Ordering {
    let num = |v: &Bson| match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    };
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.cmp(y),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => Ordering::Equal,
        },
    }
}

/// Sorts array elements by one of their fields (stable, as `$sort` keeps ties in order).
pub fn sort_by_field(items: &mut [Bson], field: &str, desc: bool) {
    items.sort_by(|a, b| {
        let key = |v: &Bson| v.as_document().and_then(|d| d.get(field)).cloned();
        let o = match (key(a), key(b)) {
            (Some(x), Some(y)) => compare(&x, &y),
            _ => Ordering::Equal,
        };
        if desc {
            o.reverse()
        } else {
            o
        }
    });
}

/// The array a summary of `c` summarises, by relationship: the relationship's array in `c`.
pub(crate) fn summarised_array<'a>(
    plan: &'a Plan,
    c: &Collection,
    relation: &str,
) -> Option<&'a str> {
    let d = plan.relationship(relation)?;
    if let Some(b) = d.bucket.as_ref().filter(|b| b.collection == c.name) {
        return Some(b.items_path.as_str());
    }
    d.placement
        .iter()
        .find(|p| {
            p.collection == c.name && p.shape == Shape::ArrayOfSubdocuments && !p.path.contains('.')
        })
        .map(|p| p.path.as_str())
}

/// `(path, function, element field, array)` of every summary stored at the top level of `c`.
fn summaries<'a>(
    plan: &'a Plan,
    c: &Collection,
) -> Vec<(&'a str, SummaryFn, Option<&'a str>, &'a str)> {
    let mut out = Vec::new();
    for d in &plan.relationships {
        for x in d.computed.iter().filter(|x| x.collection == c.name) {
            let ComputedFn::Summary { summary } = &x.function else {
                continue;
            };
            if x.path.contains('.') {
                continue;
            }
            if let Some(array) = summarised_array(plan, c, &d.id) {
                out.push((x.path.as_str(), *summary, x.field.as_deref(), array));
            }
        }
    }
    out
}

/// The aggregate of `items` a summary holds (`None`: nothing to take a max or min of).
pub(crate) fn aggregate(
    f: SummaryFn,
    field: Option<&str>,
    items: &[Bson],
    like: &Bson,
) -> Option<Bson> {
    let values: Vec<Bson> = items
        .iter()
        .filter_map(|i| i.as_document()?.get(field?).cloned())
        .filter(|v| !matches!(v, Bson::Null))
        .collect();
    match f {
        SummaryFn::Count => Some(match like {
            Bson::Int64(_) => Bson::Int64(i64::try_from(items.len()).unwrap_or(0)),
            _ => Bson::Int32(i32::try_from(items.len()).unwrap_or(0)),
        }),
        SummaryFn::Total => {
            let total: f64 = values
                .iter()
                .filter_map(|v| match v {
                    Bson::Int32(x) => Some(f64::from(*x)),
                    Bson::Int64(x) => Some(*x as f64),
                    Bson::Double(x) => Some(*x),
                    _ => None,
                })
                .sum();
            // Totals of integers are written as longs, whatever was stored before.
            Some(match like {
                Bson::Double(_) => Bson::Double(total),
                _ => Bson::Int64(total as i64),
            })
        }
        SummaryFn::Max => values.into_iter().max_by(compare),
        SummaryFn::Min => values.into_iter().min_by(compare),
        // Never stored: an average is read as the stored total over the stored count.
        SummaryFn::Avg => None,
    }
}

/// Whether a stored summary `have` is the aggregate `want` (no aggregate: absent or null).
pub(crate) fn summary_agrees(want: Option<&Bson>, have: Option<&Bson>) -> bool {
    match (want, have) {
        (Some(w), Some(h)) => same(w, h),
        (None, None | Some(Bson::Null)) => true,
        _ => false,
    }
}

/// Numbers compare by value whatever their width; everything else exactly.
pub(crate) fn same(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Ordering::Equal && std::mem::discriminant(a) == std::mem::discriminant(b)
        || a == b
        || matches!((a, b), (Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_), Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)) if compare(a, b) == Ordering::Equal)
}

/// Sets every list a document of `c` keeps of its plainly embedded array (`top N`) to the first
/// N of the array in the list's order, ties in the array's order: what the pushes build one
/// copy at a time, and the removals' resync rebuilds (an outlier's lists hold overflowing
/// children too and are not rebuilt from the array).
fn recompute_embedded_lists(plan: &Plan, c: &Collection, doc: &mut Document) {
    for d in plan
        .relationships
        .iter()
        .filter(|d| d.strategy == squillion_codegen::model::Layout::Embed && d.outlier.is_none())
    {
        let Some(array) = d
            .placement
            .iter()
            .find(|p| p.collection == c.name && !p.path.contains('.'))
            .map(|p| p.path.clone())
        else {
            continue;
        };
        let items = doc.get_array(&array).cloned().unwrap_or_default();
        for l in crate::buckets::kept_lists(d) {
            let kept_here = d
                .computed
                .iter()
                .any(|x| x.collection == c.name && x.path == l.path);
            if !kept_here {
                continue;
            }
            doc.insert(l.path, Bson::Array(Vec::new()));
            for item in items.iter().filter_map(Bson::as_document) {
                crate::buckets::keep(doc, &l, item);
            }
        }
    }
}

/// Sets every summary of `doc` (a document of `c`) to the aggregate of its array, and every list
/// it keeps of a plainly embedded array to the array's first N.
pub fn recompute_summaries(plan: &Plan, c: &Collection, doc: &mut Document) {
    recompute_embedded_lists(plan, c, doc);
    for (path, f, field, array) in summaries(plan, c) {
        let items = doc.get_array(array).cloned().unwrap_or_default();
        let like = doc.get(path).cloned().unwrap_or(Bson::Int32(0));
        match aggregate(f, field, &items, &like) {
            Some(v) => {
                doc.insert(path, v);
            }
            None => {
                doc.remove(path);
            }
        }
    }
}

/// Every copy location in `doc`: the document holding `id` and the copied field, for a copy at
/// dotted `path` (array levels implicit). Calls `f(holder)` on each.
fn each_holder(value: &mut Bson, segments: &[&str], f: &mut dyn FnMut(&mut Document)) {
    match value {
        Bson::Array(a) => a.iter_mut().for_each(|v| each_holder(v, segments, f)),
        Bson::Document(d) => match segments {
            [_last] => f(d),
            [first, rest @ ..] => {
                if let Some(v) = d.get_mut(*first) {
                    each_holder(v, rest, f);
                }
            }
            [] => {}
        },
        _ => {}
    }
}

/// `(copy collection, copy path, source collection, source field name)` of every copy.
fn copies(plan: &Plan) -> Vec<(String, String, String, squillion_codegen::plan::PlanField)> {
    let mut out = Vec::new();
    for d in &plan.relationships {
        for x in &d.denormalized {
            let Some((entity, _)) = x.source.split_once('.') else {
                continue;
            };
            let Some(source) = plan
                .collections
                .iter()
                .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
            else {
                continue;
            };
            let Some(c) = plan.collection(&x.collection) else {
                continue;
            };
            let Some(copy) = c.field_at(&x.copy_path) else {
                continue;
            };
            out.push((
                x.collection.clone(),
                x.copy_path.clone(),
                source.name.clone(),
                copy.clone(),
            ));
        }
    }
    out
}

/// Sets every copy in the reference to its source's current value.
pub fn refresh_copies(plan: &Plan, r: &mut Reference) {
    for (coll, path, source, field) in copies(plan) {
        let Some(src) = plan.collection(&source) else {
            continue;
        };
        let sources = r.docs(&source).to_vec();
        let segments: Vec<&str> = path.split('.').collect();
        for doc in r.docs_mut(&coll) {
            let mut v = Bson::Document(doc.clone());
            each_holder(&mut v, &segments, &mut |holder| {
                let Some(id) = holder.get("id").cloned() else {
                    return;
                };
                let Some(s) = sources.iter().find(|s| s.get("_id") == Some(&id)) else {
                    return;
                };
                let name = segments.last().copied().unwrap_or_default();
                match copy_source(&field, src, s) {
                    Some(value) => {
                        holder.insert(name, value);
                    }
                    None => {
                        holder.remove(name);
                    }
                }
            });
            if let Bson::Document(d) = v {
                *doc = d;
            }
        }
    }
}

/// The copies of `collection` a value written at dotted path `at` (`""`: a whole document)
/// holds: `(path below the value, source collection, copied field)`.
fn copies_below(plan: &Plan, collection: &str, at: &str) -> Vec<(Vec<String>, String, PlanField)> {
    copies(plan)
        .into_iter()
        .filter(|(coll, ..)| coll == collection)
        .filter_map(|(_, path, source, field)| {
            let rest = if at.is_empty() {
                path.as_str()
            } else {
                path.strip_prefix(at)?.strip_prefix('.')?
            };
            Some((rest.split('.').map(str::to_owned).collect(), source, field))
        })
        .collect()
}

/// Whether `value`, written at `at` of a document of `collection`, holds a reference with copies
/// naming no document of the reference: the repository refuses the write
/// (`Error::MissingReference`).
pub fn dangles(plan: &Plan, r: &Reference, collection: &str, at: &str, value: &Bson) -> bool {
    let mut found = false;
    for (segments, source, _) in copies_below(plan, collection, at) {
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let mut v = value.clone();
        each_holder(&mut v, &segments, &mut |holder| {
            if let Some(id) = holder.get("id").filter(|id| **id != Bson::Null) {
                found |= r.get(&source, id).is_none();
            }
        });
    }
    found
}

/// `doc` (a document of `collection`) with every copy it holds forged: a value of the same type
/// that its source does not hold. The repository must store the source's values instead.
pub fn forge_copies(plan: &Plan, collection: &str, doc: &mut Document) {
    for (segments, _, _) in copies_below(plan, collection, "") {
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let name = segments.last().copied().unwrap_or_default();
        let mut v = Bson::Document(doc.clone());
        each_holder(&mut v, &segments, &mut |holder| {
            let forged = match holder.get(name) {
                Some(Bson::String(s)) => Bson::String(format!("{s} (forged)")),
                Some(Bson::Int32(n)) => Bson::Int32(n.wrapping_add(1)),
                Some(Bson::Int64(n)) => Bson::Int64(n.wrapping_add(1)),
                Some(Bson::Double(n)) => Bson::Double(n + 0.5),
                Some(Bson::Boolean(b)) => Bson::Boolean(!b),
                Some(Bson::DateTime(t)) => {
                    Bson::DateTime(bson::DateTime::from_millis(t.timestamp_millis() + 1))
                }
                _ => return,
            };
            holder.insert(name, forged);
        });
        if let Bson::Document(d) = v {
            *doc = d;
        }
    }
}

/// Every invariant the Plan states that `stored` breaks, as sentences.
pub fn invariants(plan: &Plan, stored: &Reference) -> Vec<String> {
    let mut found = Vec::new();
    // Copies equal their source.
    for (coll, path, source, field) in copies(plan) {
        let Some(src) = plan.collection(&source) else {
            continue;
        };
        let segments: Vec<&str> = path.split('.').collect();
        for doc in stored.docs(&coll) {
            let mut v = Bson::Document(doc.clone());
            each_holder(&mut v, &segments, &mut |holder| {
                let Some(id) = holder.get("id") else { return };
                let Some(s) = stored.get(&source, id) else {
                    return;
                };
                let name = segments.last().copied().unwrap_or_default();
                let want = copy_source(&field, src, s);
                if holder.get(name) != want.as_ref() {
                    found.push(format!(
                        "copy `{coll}.{path}` of {} in {} is {}, its source holds {}",
                        field.source.as_deref().unwrap_or("?"),
                        show(doc.get("_id").unwrap_or(&Bson::Null)),
                        holder.get(name).map_or("nothing".into(), show),
                        want.as_ref().map_or("nothing".into(), show),
                    ));
                }
            });
        }
    }
    for c in &plan.collections {
        let docs = stored.docs(&c.name);
        // Summaries equal the aggregate of what they summarise.
        for (path, f, field, array) in summaries(plan, c) {
            for doc in docs {
                let items = doc.get_array(array).cloned().unwrap_or_default();
                let have = doc.get(path);
                let like = have.cloned().unwrap_or(Bson::Int32(0));
                let want = aggregate(f, field, &items, &like);
                if !summary_agrees(want.as_ref(), have) {
                    found.push(format!(
                        "summary `{}.{path}` ({f:?} of `{array}`) of {} is {}, the array gives {}",
                        c.name,
                        show(doc.get("_id").unwrap_or(&Bson::Null)),
                        have.map_or("nothing".into(), show),
                        want.as_ref().map_or("nothing".into(), show)
                    ));
                }
            }
        }
        // Bounds hold.
        for f in c.fields.iter().filter(|f| f.array_depth > 0) {
            let Some(max) = f.max_items else { continue };
            for doc in docs {
                if let Ok(a) = doc.get_array(&f.name) {
                    if a.len() as u64 > max && !is_outlier(plan, c, &f.name) {
                        found.push(format!(
                            "`{}.{}` of {} holds {} elements, over its bound {max}",
                            c.name,
                            f.name,
                            show(doc.get("_id").unwrap_or(&Bson::Null)),
                            a.len()
                        ));
                    }
                }
            }
        }
        // Unique values are unique.
        for i in c.indexes.iter().filter(|i| i.unique && i.keys.len() == 1) {
            let mut seen: BTreeMap<String, Bson> = BTreeMap::new();
            for doc in docs {
                let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
                let mut mine: Vec<String> =
                    values_at(&Bson::Document(doc.clone()), &i.keys[0].path)
                        .iter()
                        .map(|v| v.clone().into_relaxed_extjson().to_string())
                        .collect();
                mine.sort();
                mine.dedup();
                for v in mine {
                    if let Some(other) = seen.insert(v.clone(), id.clone()) {
                        found.push(format!(
                            "unique index `{}` of `{}`: {} and {} share {v}",
                            i.name,
                            c.name,
                            show(&other),
                            show(&id)
                        ));
                    }
                }
            }
        }
    }
    crate::subsets::invariants(plan, stored, &mut found);
    crate::buckets::invariants(plan, stored, &mut found);
    crate::links::invariants(plan, stored, &mut found);
    for d in &plan.relationships {
        // Subsets are the right N children, in the right order.
        // (Those refilled from their children: [`crate::subsets::invariants`].)
        if let Some(sub) = d.subset.as_ref().filter(|sub| sub.children.is_none()) {
            subset(plan, stored, d, sub, &mut found);
        }
        if d.strategy == Layout::TwoWay {
            two_way(stored, d, &mut found);
        }
    }
    found
}

fn is_outlier(plan: &Plan, c: &Collection, path: &str) -> bool {
    plan.relationships
        .iter()
        .filter_map(|d| d.outlier.as_ref())
        .any(|o| o.collection == c.name && o.path == path)
}

fn subset(
    plan: &Plan,
    stored: &Reference,
    d: &squillion_codegen::plan::Decision,
    sub: &squillion_codegen::plan::SubsetPlan,
    found: &mut Vec<String>,
) {
    let Some(child) = plan
        .collections
        .iter()
        .find(|c| c.role == CollectionRole::Entity && c.entity == d.child)
    else {
        return;
    };
    // The children's reference to their parent (not the parent's own array of ids, which a
    // relation of an entity to itself also places in the children's collection).
    let Some(back) = d.placement.iter().find(|p| {
        p.collection == child.name
            && !p.path.contains('.')
            && matches!(p.shape, Shape::Id | Shape::ExtendedRef)
    }) else {
        return;
    };
    let Some(parent) = plan.collection(&sub.collection) else {
        return;
    };
    let keep: Vec<String> = parent
        .field(&sub.path)
        .map(|f| f.children.iter().map(|x| x.name.clone()).collect())
        .unwrap_or_default();
    for doc in stored.docs(&parent.name) {
        let Some(id) = doc.get("_id") else { continue };
        let mut children: Vec<Bson> = stored
            .docs(&child.name)
            .iter()
            .filter(|c| {
                let r = c.get(&back.path);
                r == Some(id) || r.and_then(Bson::as_document).and_then(|e| e.get("id")) == Some(id)
            })
            .map(|c| {
                Bson::Document(
                    c.iter()
                        .filter(|(k, _)| keep.contains(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            })
            .collect();
        sort_by_field(&mut children, &sub.sort_by, sub.descending);
        children.truncate(usize::try_from(sub.n).unwrap_or(usize::MAX));
        let have = doc.get_array(&sub.path).cloned().unwrap_or_default();
        let key = |v: &Bson| v.as_document().and_then(|d| d.get(&sub.sort_by)).cloned();
        let want_keys: Vec<_> = children.iter().map(key).collect();
        let have_keys: Vec<_> = have.iter().map(key).collect();
        if want_keys != have_keys || have.len() != children.len() {
            found.push(format!(
                "subset `{}.{}` of {} holds {}, its latest {} children are {}",
                parent.name,
                sub.path,
                show(id),
                show(&Bson::Array(have)),
                sub.n,
                show(&Bson::Array(children))
            ));
        }
    }
}

/// The id a reference holds: the value itself, or the `id` of an extended reference.
pub(crate) fn ref_id(v: &Bson) -> Bson {
    match v {
        Bson::Document(d) => d.get("id").cloned().unwrap_or(Bson::Null),
        other => other.clone(),
    }
}

fn two_way(stored: &Reference, d: &squillion_codegen::plan::Decision, found: &mut Vec<String>) {
    let [a, b] = match d.placement.as_slice() {
        [a, b] => [a, b],
        _ => return,
    };
    for (this, other) in [(a, b), (b, a)] {
        for doc in stored.docs(&this.collection) {
            let Some(id) = doc.get("_id") else { continue };
            let refs: Vec<Bson> = match doc.get(&this.path) {
                Some(Bson::Array(x)) => x.iter().map(ref_id).collect(),
                Some(Bson::Null) | None => vec![],
                Some(v) => vec![ref_id(v)],
            };
            for r in refs {
                let Some(o) = stored.get(&other.collection, &r) else {
                    continue;
                };
                let back = match o.get(&other.path) {
                    Some(Bson::Array(x)) => x.iter().map(ref_id).any(|x| x == *id),
                    Some(v) => ref_id(v) == *id,
                    None => false,
                };
                if !back {
                    found.push(format!(
                        "two-way `{}`: {}.{} of {} names {}, whose `{}` does not name it back",
                        d.id,
                        this.collection,
                        this.path,
                        show(id),
                        show(&r),
                        other.path
                    ));
                }
            }
        }
    }
}

/// What the server's indexes break: a collection's indexes are exactly the Plan's (by name and
/// keys), and a TTL index only on a top-level date of an entity that declares `@expires`.
pub fn indexes(plan: &Plan, listed: &BTreeMap<String, Vec<Document>>) -> Vec<String> {
    let mut found = Vec::new();
    for c in &plan.collections {
        let mut have: Vec<String> = listed
            .get(&c.name)
            .map(|l| {
                l.iter()
                    .filter_map(|i| i.get_str("name").ok().map(str::to_owned))
                    .filter(|n| n != "_id_")
                    .collect()
            })
            .unwrap_or_default();
        have.sort();
        let mut want: Vec<String> = c.indexes.iter().map(|i| i.name.clone()).collect();
        want.sort();
        if have != want {
            found.push(format!(
                "collection `{}` has the indexes {have:?} after ensure_indexes, the Plan declares {want:?}",
                c.name
            ));
        }
        for i in listed.get(&c.name).into_iter().flatten() {
            if !i.contains_key("expireAfterSeconds") {
                continue;
            }
            let keys = i
                .get_document("key")
                .map(|k| k.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default();
            let ok = c.role == CollectionRole::Entity
                && keys.len() == 1
                && c.field(&keys[0]).is_some_and(|f| {
                    f.flags.expire_after_seconds.is_some() && f.bson_type == "date"
                });
            if !ok {
                found.push(format!(
                    "TTL index {keys:?} on `{}`: documents of this collection would expire, but only the entity whose own top-level date is `@expires` should",
                    c.name
                ));
            }
        }
    }
    found
}
