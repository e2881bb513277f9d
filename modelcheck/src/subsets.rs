//! Subsets (`latest N`) and top-N lists refilled from their children (issue 11, defect 6): the
//! operations that write a child through its parent (`push_<f>`, `replace_<f>`, `remove_<f>`),
//! what they leave behind in the reference (every list and summary of the parent recomputed from
//! its children), and the invariant the stored documents must satisfy.

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, ComputedFn, Decision, Plan, SummaryFn};

use crate::checks::{aggregate, compare, summary_agrees};
use crate::model::{show, Reference};
use crate::ops::{Expect, Kind, Op, Schema};
use crate::values::Rng;

/// One array of copies a parent keeps.
#[derive(Debug, Clone)]
pub struct List {
    /// The array.
    pub path: String,
    /// How many copies.
    pub n: usize,
    /// The child field ordering them.
    pub sort_by: String,
    /// Largest first.
    pub descending: bool,
    /// `latest N` rather than `top N`.
    pub latest: bool,
    /// The copy's field holding the child's `_id`.
    pub child_id: String,
    /// The child fields each copy holds besides its id.
    pub keep: Vec<String>,
}

/// The lists of one relationship refilled from its children and the summaries of all of them (or
/// those summaries alone, with no list), and where the children live.
#[derive(Debug, Clone)]
pub struct Refilled<'a> {
    /// The relationship.
    pub d: &'a Decision,
    /// The parent's collection.
    pub parent: &'a Collection,
    /// Its lists.
    pub lists: Vec<List>,
    /// The children's collection.
    pub children: String,
    /// Path, in each child, of its parent's id.
    pub key: String,
    /// The code name of the first list's field (`push_<it>`, `replace_<it>`, `remove_<it>`);
    /// empty without lists.
    pub method: String,
}

/// Every relationship whose subset or top-N list the Plan says is refilled from the children.
pub fn all(plan: &Plan) -> Vec<Refilled<'_>> {
    let mut out = Vec::new();
    let by_name = squillion_codegen::plan::CollectionsByName::new(&plan.collections);
    for d in &plan.relationships {
        let mut lists = Vec::new();
        let mut source = None;
        let mut collection = None;
        if let Some(s) = &d.subset {
            if let Some(ch) = &s.children {
                source = Some(ch.clone());
                collection = Some(s.collection.as_str());
                lists.push(List {
                    path: s.path.clone(),
                    n: usize::try_from(s.n).unwrap_or(usize::MAX),
                    sort_by: s.sort_by.clone(),
                    descending: s.descending,
                    latest: true,
                    child_id: s.child_id.clone(),
                    keep: s.keep.clone(),
                });
            }
        }
        for x in &d.computed {
            if let ComputedFn::TopN {
                n,
                sort_by,
                descending,
                child_id,
                keep,
                children: Some(ch),
            } = &x.function
            {
                source = Some(ch.clone());
                collection = Some(x.collection.as_str());
                lists.push(List {
                    path: x.path.clone(),
                    n: usize::try_from(*n).unwrap_or(usize::MAX),
                    sort_by: sort_by.clone(),
                    descending: *descending,
                    latest: false,
                    child_id: child_id.clone(),
                    keep: keep.clone(),
                });
            }
        }
        if lists.is_empty() {
            // Summaries of all the children with no array beside them: the children's own
            // repository keeps them.
            let kept = d.computed.iter().find(|x| {
                matches!(x.function, ComputedFn::Summary { .. })
                    && !x.path.contains('.')
                    && plan
                        .collection(&x.collection)
                        .is_some_and(|c| crate::checks::summarised_array(plan, c, &d.id).is_none())
            });
            if let (Some(x), Some(ch)) = (kept, d.children_in(&by_name)) {
                source = Some(ch);
                collection = Some(x.collection.as_str());
            }
        }
        let (Some(source), Some(collection)) = (source, collection) else {
            continue;
        };
        let Some(parent) = plan.collection(collection) else {
            continue;
        };
        let method = match lists.first() {
            Some(l) => match parent.field(&l.path) {
                Some(first) => first.code_name.clone(),
                None => continue,
            },
            None => String::new(),
        };
        out.push(Refilled {
            d,
            parent,
            method,
            lists,
            children: source.collection,
            key: source.parent_key,
        });
    }
    out
}

/// Whether `c` holds the children of a refilled list: they are written through their parent.
pub fn is_children(plan: &Plan, c: &Collection) -> bool {
    all(plan)
        .iter()
        .any(|x| x.children == c.name && !x.lists.is_empty())
}

fn lookup<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut cur = d.get(parts.next()?)?;
    for p in parts {
        cur = cur.as_document()?.get(p)?;
    }
    Some(cur)
}

/// The children of parent `id` in `docs`.
fn children_of<'a>(x: &Refilled<'_>, docs: &'a [Document], id: &Bson) -> Vec<&'a Document> {
    docs.iter()
        .filter(|c| lookup(c, &x.key) == Some(id))
        .collect()
}

/// The copies list `l` holds of `children`: the first N in its order (ties by `_id`).
pub fn expected_list(l: &List, children: &[&Document]) -> Vec<Bson> {
    let mut kids: Vec<&Document> = children.to_vec();
    let largest_first = l.latest || l.descending;
    kids.sort_by(|a, b| {
        let key = |d: &Document, f: &str| d.get(f).cloned().unwrap_or(Bson::Null);
        let o = compare(&key(a, &l.sort_by), &key(b, &l.sort_by))
            .then_with(|| compare(&key(a, "_id"), &key(b, "_id")));
        if largest_first {
            o.reverse()
        } else {
            o
        }
    });
    kids.truncate(l.n);
    if l.latest && !l.descending {
        kids.reverse();
    }
    kids.into_iter()
        .map(|c| {
            let mut copy = Document::new();
            if let Some(id) = c.get("_id") {
                copy.insert(l.child_id.clone(), id.clone());
            }
            for k in &l.keep {
                if let Some(v) = c.get(k) {
                    copy.insert(k.clone(), v.clone());
                }
            }
            Bson::Document(copy)
        })
        .collect()
}

/// Sorts copies by `field`, ties by `_id`, as the push's `$sort` does.
pub fn sort_copies(items: &mut [Bson], field: &str, desc: bool) {
    items.sort_by(|a, b| {
        let key = |v: &Bson, f: &str| {
            v.as_document()
                .and_then(|d| d.get(f))
                .cloned()
                .unwrap_or(Bson::Null)
        };
        let o = compare(&key(a, field), &key(b, field))
            .then_with(|| compare(&key(a, "_id"), &key(b, "_id")));
        if desc {
            o.reverse()
        } else {
            o
        }
    });
}

/// Adds `item` to the summaries kept beside the subset `path` of `collection` in `doc`, as the
/// push of a subset that is not refilled does.
pub fn add_to_summaries(
    plan: &Plan,
    collection: &str,
    path: &str,
    doc: &mut Document,
    item: &Document,
) {
    let Some(d) = plan.relationships.iter().find(|d| {
        d.subset
            .as_ref()
            .is_some_and(|s| s.collection == collection && s.path == path)
    }) else {
        return;
    };
    add_child(
        d.computed.iter().filter(|x| x.collection == collection),
        doc,
        item,
    );
}

/// `doc`'s summaries among `computed` after one more child `item`: `$inc` of the count and the
/// totals, `$max`, `$min`, as the runtime's writes do.
pub fn add_child<'a>(
    computed: impl Iterator<Item = &'a squillion_codegen::plan::Computed>,
    doc: &mut Document,
    item: &Document,
) {
    for x in computed {
        let ComputedFn::Summary { summary } = &x.function else {
            continue;
        };
        let value = x
            .field
            .as_deref()
            .and_then(|f| item.get(f))
            .filter(|v| !matches!(v, Bson::Null));
        let have = doc.get(&x.path).cloned();
        let next = match (summary, value, have) {
            (SummaryFn::Count, _, Some(Bson::Int64(c))) => Some(Bson::Int64(c + 1)),
            (SummaryFn::Count, _, Some(Bson::Int32(c))) => Some(Bson::Int32(c + 1)),
            (SummaryFn::Count, _, _) => Some(Bson::Int32(1)),
            // `$inc` by the value widened to a long (an integer's): the wider of the two types.
            (SummaryFn::Total, Some(v), have) => Some(match (have.unwrap_or(Bson::Int32(0)), v) {
                (Bson::Int32(a), Bson::Int32(b)) => Bson::Int64(i64::from(a) + i64::from(*b)),
                (Bson::Int32(a), Bson::Int64(b)) => Bson::Int64(i64::from(a) + b),
                (Bson::Int64(a), Bson::Int32(b)) => Bson::Int64(a + i64::from(*b)),
                (Bson::Int64(a), Bson::Int64(b)) => Bson::Int64(a + b),
                (a, b) => Bson::Double(as_f64(&a) + as_f64(b)),
            }),
            (SummaryFn::Max, Some(v), Some(h)) if compare(v, &h).is_le() => Some(h),
            (SummaryFn::Min, Some(v), Some(h)) if compare(v, &h).is_ge() => Some(h),
            (SummaryFn::Max | SummaryFn::Min, Some(v), _) => Some(v.clone()),
            (_, _, have) => have,
        };
        if let Some(v) = next {
            doc.insert(x.path.clone(), v);
        }
    }
}

fn as_f64(v: &Bson) -> f64 {
    match v {
        Bson::Int32(x) => f64::from(*x),
        Bson::Int64(x) => *x as f64,
        Bson::Double(x) => *x,
        _ => 0.0,
    }
}

/// `(path, function, field)` of the summaries of all the children `x` keeps in the parent.
fn summaries<'a>(x: &Refilled<'a>) -> Vec<(&'a str, SummaryFn, Option<&'a str>)> {
    x.d.computed
        .iter()
        .filter(|c| c.collection == x.parent.name && !c.path.contains('.'))
        .filter_map(|c| match &c.function {
            ComputedFn::Summary { summary } => {
                Some((c.path.as_str(), *summary, c.field.as_deref()))
            }
            _ => None,
        })
        .collect()
}

/// Sets every list and summary of parent `id` in the reference to what its children give.
pub fn refill(x: &Refilled<'_>, r: &mut Reference, id: &Bson) {
    let docs = r.docs(&x.children).to_vec();
    let kids = children_of(x, &docs, id);
    let lists: Vec<(String, Vec<Bson>)> = x
        .lists
        .iter()
        .map(|l| (l.path.clone(), expected_list(l, &kids)))
        .collect();
    let all: Vec<Bson> = kids.iter().map(|k| Bson::Document((*k).clone())).collect();
    let sums = summaries(x);
    let Some(parent) = r.get_mut(&x.parent.name, id) else {
        return;
    };
    for (path, items) in lists {
        parent.insert(path, items);
    }
    for (path, f, field) in sums {
        let like = parent.get(path).cloned().unwrap_or(Bson::Int32(0));
        match aggregate(f, field, &all, &like) {
            Some(v) => {
                parent.insert(path, v);
            }
            None => {
                parent.remove(path);
            }
        }
    }
}

/// Every list and summary every parent keeps of children in their own collection, recomputed
/// from the children: after every write that succeeded, as the Plan promises, whoever wrote: the children's own repository, a parent's `push_`/`replace_`/`remove_` (every other
/// parent of the child too), a two-way `link_`/`unlink_` (the parent linked and the one the
/// child leaves), the parent's own `insert`/`replace` (the caller's values of them are not kept),
/// a fan-out setter (parents reading the field).
pub fn refill_all(plan: &Plan, r: &mut Reference) {
    for x in all(plan) {
        let ids: Vec<Bson> = r
            .docs(&x.parent.name)
            .iter()
            .filter_map(|d| d.get("_id").cloned())
            .collect();
        for id in ids {
            refill(&x, r, &id);
        }
    }
}

/// The reference to parent `parent` a child stores at the top of `key` (the id, or an extended
/// reference with the parent's copies).
fn key_value(s: &Schema<'_>, x: &Refilled<'_>, r: &Reference, parent: &Bson) -> Option<Bson> {
    let top = x.key.split('.').next()?;
    let child = s.plan.collection(&x.children)?;
    let f = child.field(top)?;
    if f.bson_type != "object" {
        return Some(parent.clone());
    }
    let pdoc = r.get(&x.parent.name, parent)?;
    let mut ext = Document::new();
    ext.insert("id", parent.clone());
    for c in &f.children {
        if c.name != "id" {
            if let Some(v) = crate::documents::copy_source(c, x.parent, pdoc) {
                ext.insert(c.name.clone(), v);
            }
        }
    }
    Some(Bson::Document(ext))
}

/// A write of a child of `c` through its parent: a new child, a changed one (sometimes moved to
/// another parent), or a removed one.
pub fn draw(s: &Schema<'_>, r: &Reference, c: &Collection, rng: &mut Rng) -> Option<Op> {
    let mine: Vec<Refilled<'_>> = all(s.plan)
        .into_iter()
        .filter(|x| x.children == c.name)
        .collect();
    let x = rng.pick(&mine)?.clone();
    let top = x.key.split('.').next()?.to_owned();
    let parents = r.docs(&x.parent.name);
    match rng.below(10) {
        0..=4 => {
            let parent = rng.pick(parents)?.get("_id")?.clone();
            let mut doc = crate::documents::new_document(c, s, r, rng)?;
            doc.insert(top, key_value(s, &x, r, &parent)?);
            let mut op = Op::new(
                &x.parent.name,
                format!("push_{}", x.method),
                vec![parent, Bson::Document(doc.clone())],
                Kind::SubsetPush {
                    relation: x.d.id.clone(),
                },
            );
            op.then = crate::draw::links_of_new_child(s, r, c, &doc, false)?;
            Some(op)
        }
        5..=7 => {
            let old = rng.pick(r.docs(&c.name))?.clone();
            let fresh = crate::values::document_of(
                &c.fields,
                rng,
                &crate::values::Context {
                    collection: Some(c),
                },
            );
            let mut doc = old.clone();
            let fixed = crate::draw::kept_fields(s.plan, c);
            let candidates: Vec<&String> = fresh
                .keys()
                .filter(|k| !fixed.contains(k) && **k != top)
                .filter(|k| {
                    c.field(k).is_some_and(|f| f.variant.is_none())
                        && c.variants.as_ref().is_none_or(|v| &v.discriminator != *k)
                })
                .collect();
            if let Some(k) = rng.pick(&candidates) {
                let k = (*k).clone();
                doc.insert(k.clone(), fresh.get(&k)?.clone());
            }
            // Sometimes the child moves to another parent (not through a two-way link, whose
            // other side the replace does not write).
            if rng.below(4) == 0 && x.d.strategy != squillion_codegen::plan::Layout::TwoWay {
                let parent = rng.pick(parents)?.get("_id")?.clone();
                doc.insert(top, key_value(s, &x, r, &parent)?);
            }
            Some(Op::new(
                &x.parent.name,
                format!("replace_{}", x.method),
                vec![Bson::Document(doc)],
                Kind::SubsetReplace {
                    relation: x.d.id.clone(),
                },
            ))
        }
        _ => {
            let id = rng.pick(r.docs(&c.name))?.get("_id")?.clone();
            // Only a child nothing but the lists' copies refers to.
            let mut without = r.clone();
            for y in all(s.plan) {
                for p in without.docs_mut(&y.parent.name) {
                    for l in &y.lists {
                        p.insert(l.path.clone(), Bson::Array(vec![]));
                    }
                }
            }
            if without.mentions(&id) {
                return None;
            }
            Some(Op::new(
                &x.parent.name,
                format!("remove_{}", x.method),
                vec![id],
                Kind::SubsetRemove {
                    relation: x.d.id.clone(),
                },
            ))
        }
    }
}

/// Applies a write of a child through its parent to the reference.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op, relation: &str) -> Option<Expect> {
    let x = all(s.plan).into_iter().find(|x| x.d.id == relation)?;
    let cc = s.plan.collection(&x.children)?;
    let args = op.bson_args();
    match &op.kind {
        Kind::SubsetPush { .. } => {
            let (id, item) = (args.first()?, args.get(1)?.as_document()?.clone());
            r.get(&x.parent.name, id)?;
            let item = crate::apply::stamped(cc, item);
            if lookup(&item, &x.key) != Some(id) {
                return None;
            }
            if crate::checks::dangles(s.plan, r, &cc.name, "", &Bson::Document(item.clone())) {
                return Some(Expect::MissingReference);
            }
            if r.get(&cc.name, item.get("_id")?).is_some()
                || crate::unique::collides(cc, r.docs(&cc.name), &item)
            {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(&cc.name).push(item);
            refill(&x, r, id);
            Some(Expect::Ok)
        }
        Kind::SubsetReplace { .. } => {
            let item = crate::apply::stamped(cc, args.first()?.as_document()?.clone());
            let child = item.get("_id")?.clone();
            if crate::checks::dangles(s.plan, r, &cc.name, "", &Bson::Document(item.clone())) {
                return Some(Expect::MissingReference);
            }
            let Some(old) = r.get(&cc.name, &child).cloned() else {
                return Some(Expect::Ok);
            };
            let new_parent = lookup(&item, &x.key)?.clone();
            r.get(&x.parent.name, &new_parent)?;
            let others: Vec<Document> = r
                .docs(&cc.name)
                .iter()
                .filter(|d| d.get("_id") != Some(&child))
                .cloned()
                .collect();
            if crate::unique::collides(cc, &others, &item) {
                return Some(Expect::Duplicate);
            }
            *r.get_mut(&cc.name, &child)? = item;
            if let Some(p) = lookup(&old, &x.key).cloned() {
                refill(&x, r, &p);
            }
            refill(&x, r, &new_parent);
            Some(Expect::Ok)
        }
        Kind::SubsetRemove { .. } => {
            let child = args.first()?;
            let Some(old) = r.get(&cc.name, child).cloned() else {
                return Some(Expect::Ok);
            };
            r.remove(&cc.name, child);
            if let Some(p) = lookup(&old, &x.key).cloned() {
                refill(&x, r, &p);
            }
            Some(Expect::Ok)
        }
        _ => None,
    }
}

/// The stored lists and summaries of every refilled relationship, recomputed from the stored
/// children: the first N in order, each copy the child's id and current kept fields.
pub fn invariants(plan: &Plan, stored: &Reference, found: &mut Vec<String>) {
    for x in all(plan) {
        let docs = stored.docs(&x.children);
        for parent in stored.docs(&x.parent.name) {
            let Some(id) = parent.get("_id") else {
                continue;
            };
            let kids = children_of(&x, docs, id);
            for l in &x.lists {
                let want = expected_list(l, &kids);
                let have = parent.get_array(&l.path).cloned().unwrap_or_default();
                let norm =
                    |v: &[Bson]| -> Vec<Bson> { v.iter().map(crate::model::normalized).collect() };
                if norm(&want) != norm(&have) {
                    found.push(format!(
                        "{} `{}.{}` of {} holds {}, its children give {}",
                        if l.latest { "subset" } else { "top-N list" },
                        x.parent.name,
                        l.path,
                        show(id),
                        show(&Bson::Array(have)),
                        show(&Bson::Array(want))
                    ));
                }
            }
            let all: Vec<Bson> = kids.iter().map(|k| Bson::Document((*k).clone())).collect();
            for (path, f, field) in summaries(&x) {
                let have = parent.get(path);
                let like = have.cloned().unwrap_or(Bson::Int32(0));
                let want = aggregate(f, field, &all, &like);
                if !summary_agrees(want.as_ref(), have) {
                    found.push(format!(
                        "summary `{}.{path}` ({f:?}) of {} is {}, its {} children give {}",
                        x.parent.name,
                        show(id),
                        have.map_or("nothing".into(), show),
                        all.len(),
                        want.as_ref().map_or("nothing".into(), show)
                    ));
                }
            }
        }
    }
}
