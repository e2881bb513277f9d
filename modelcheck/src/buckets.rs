//! Buckets (`layout bucket`): children appended to their owner's bucket with room
//! (`append_<f>`), read back one bucket at a time (`<f>_bucket`) and a page of buckets at a time
//! (`<f>_buckets`). The reference predicts which bucket each child lands in (the owner's bucket
//! with fewer than `size` children that holds none of the child's unique values, else a new
//! one), and the checks hold every bucket's count, bound, time range and summaries to what its
//! children give.

use std::cmp::Ordering;

use bson::{Bson, Document};
use squillion_codegen::plan::{
    BucketPlan, Collection, CollectionRole, ComputedFn, Decision, FieldKind, Plan, PlanField,
    SummaryFn,
};

use crate::checks::compare;
use crate::documents::{fill, reference_to, zero};
use crate::model::{show, Reference};
use crate::ops::{Expect, Kind, Op, Schema};
use crate::unique::collides;
use crate::values::{self, Context, Rng};

/// The `_id` the reference gives a bucket an append creates, until the call answers with the
/// one the server chose.
pub const NEW_BUCKET: &str = "(the new bucket)";

/// One bucket relationship, as the harness drives it.
pub struct Bucketed<'a> {
    /// The relationship.
    pub d: &'a Decision,
    /// Its buckets.
    pub b: &'a BucketPlan,
    /// The bucket collection.
    pub c: &'a Collection,
    /// The array of children in each bucket.
    pub items: &'a PlanField,
    /// The owner's collection.
    pub owner: &'a Collection,
}

/// Every bucket relationship of `plan` whose collections it has.
pub fn all(plan: &Plan) -> Vec<Bucketed<'_>> {
    plan.relationships
        .iter()
        .filter_map(|d| {
            let b = d.bucket.as_ref()?;
            let c = plan.collection(&b.collection)?;
            let items = c.field(&b.items_path)?;
            let owner = plan
                .collections
                .iter()
                .find(|o| o.role == CollectionRole::Entity && o.entity == d.parent)?;
            Some(Bucketed {
                d,
                b,
                c,
                items,
                owner,
            })
        })
        .collect()
}

fn find<'a>(plan: &'a Plan, relation: &str) -> Option<Bucketed<'a>> {
    all(plan).into_iter().find(|x| x.d.id == relation)
}

impl Bucketed<'_> {
    /// The repository method `<prefix>_<f>`, or `<f>_<suffix>` when `prefix` is empty.
    fn method(&self, prefix: &str, suffix: &str) -> String {
        let code = &self.items.code_name;
        if prefix.is_empty() {
            format!("{code}_{suffix}")
        } else {
            format!("{prefix}_{code}")
        }
    }

    /// The owner's buckets in the reference, in bucket order (by start time when there is one,
    /// then by `_id`; newest first when the Plan says so).
    fn ordered<'r>(&self, r: &'r Reference, key: &Bson) -> Vec<&'r Document> {
        let mut docs: Vec<&Document> = r
            .docs(&self.c.name)
            .iter()
            .filter(|d| d.get(&self.b.parent_path) == Some(key))
            .collect();
        let start = self.b.time_range.as_ref().map(|t| t.start_path.as_str());
        docs.sort_by(|a, b| {
            let by_start = match start {
                Some(s) => match (a.get(s), b.get(s)) {
                    (Some(x), Some(y)) => compare(x, y),
                    _ => Ordering::Equal,
                },
                None => Ordering::Equal,
            };
            let o = by_start.then_with(|| match (a.get("_id"), b.get("_id")) {
                (Some(x), Some(y)) => compare(x, y),
                _ => Ordering::Equal,
            });
            if self.b.newest_first {
                o.reverse()
            } else {
                o
            }
        });
        docs
    }

    /// A bucket as a page: newest-first pages hold their children newest first.
    fn as_page(&self, d: &Document) -> Bson {
        let mut d = d.clone();
        if self.b.newest_first {
            if let Ok(items) = d.get_array_mut(&self.b.items_path) {
                items.reverse();
            }
        }
        Bson::Document(d)
    }
}

/// A bucket's children as every append leaves them: sorted by the key the pages are ordered by,
/// then by `_id` (a missing or null value first), ascending; ties keep their arrival order.
fn sort_items(b: &BucketPlan, items: &mut [Bson]) {
    let Some(key) = &b.order_by else {
        return;
    };
    let by = |a: &Bson, c: &Bson, path: &str| {
        let value = |item: &Bson| {
            item.as_document()
                .and_then(|d| d.get(path))
                .filter(|v| !matches!(v, Bson::Null))
                .cloned()
        };
        match (value(a), value(c)) {
            (Some(x), Some(y)) => compare(&x, &y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        }
    };
    items.sort_by(|a, c| by(a, c, key).then_with(|| by(a, c, "_id")));
}

/// A bucket's count, time range and summaries recomputed from its children.
fn recompute(plan: &Plan, x: &Bucketed<'_>, doc: &mut Document) {
    let n = doc.get_array(&x.b.items_path).map_or(0, Vec::len);
    doc.insert(
        x.b.count_path.clone(),
        Bson::Int32(i32::try_from(n).unwrap_or(i32::MAX)),
    );
    if let Some(t) = &x.b.time_range {
        let items = doc.get_array(&x.b.items_path).cloned().unwrap_or_default();
        let like = Bson::Int32(0);
        for (path, f) in [
            (&t.start_path, SummaryFn::Min),
            (&t.end_path, SummaryFn::Max),
        ] {
            match crate::checks::aggregate(f, Some(&t.field), &items, &like) {
                Some(v) => {
                    doc.insert(path.clone(), v);
                }
                None => {
                    doc.remove(path);
                }
            }
        }
    }
    crate::checks::recompute_summaries(plan, x.c, doc);
}

/// Draws an append to a bucket or a read of buckets, when the schema has buckets.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    let all: Vec<Bucketed<'_>> = all(s.plan)
        .into_iter()
        .filter(|x| s.has(&x.c.name, &x.method("append", "")))
        .collect();
    let x = rng.pick(&all)?;
    // The owner as the bucket's key holds it: its id, or an extended reference with copies.
    let key = reference_to(x.c.field(&x.b.parent_path)?, s, r, rng)?;
    let relation = x.d.id.clone();
    if rng.below(4) == 0 {
        let buckets = x.ordered(r, &key).len();
        let page = x.method("", "bucket");
        let pages = x.method("", "buckets");
        if rng.below(2) == 0 && s.has(&x.c.name, &page) {
            // One past the last bucket reads nothing.
            let k = rng.below(buckets + 1);
            return Some(Op::new(
                &x.c.name,
                page,
                vec![key, Bson::Int64(i64::try_from(k).unwrap_or(0))],
                Kind::BucketRead { relation },
            ));
        }
        if s.has(&x.c.name, &pages) {
            let per_page = 1 + rng.below(3);
            let page = rng.below(buckets / per_page + 1);
            let request = bson::doc! {
                "page": i64::try_from(page).unwrap_or(0),
                "per_page": i64::try_from(per_page).unwrap_or(1),
            };
            return Some(Op::new(
                &x.c.name,
                pages,
                vec![key, Bson::Document(request)],
                Kind::BucketRead { relation },
            ));
        }
        return None;
    }
    let mut item = values::document_of(&x.items.children, rng, &Context::default());
    fill(&x.items.children, &mut item, s, r, rng)?;
    // Now and then a child with the unique values of a child already in the owner's buckets:
    // refused, by the append's guard or by the unique index.
    let unique = crate::unique::paths_in(x.c, &x.b.items_path);
    if !unique.is_empty() && rng.below(3) == 0 {
        let held: Vec<&Bson> = x
            .ordered(r, &key)
            .into_iter()
            .filter_map(|d| d.get_array(&x.b.items_path).ok())
            .flatten()
            .collect();
        if let Some(other) = rng.pick(&held).copied() {
            crate::unique::with_values_of(&mut item, other, &unique);
        }
    }
    Some(Op::new(
        &x.c.name,
        x.method("append", ""),
        vec![key, Bson::Document(item)],
        Kind::Append { relation },
    ))
}

/// Applies an append or a read of buckets to the reference.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op, relation: &str) -> Option<Expect> {
    let x = find(s.plan, relation)?;
    let args = op.bson_args();
    let key = args.first()?.clone();
    if op.method == x.method("", "bucket") {
        let k = usize::try_from(args.get(1)?.as_i64()?).ok()?;
        let page = x.ordered(r, &key).get(k).map(|d| x.as_page(d));
        return Some(Expect::Value(page.unwrap_or(Bson::Null)));
    }
    if op.method == x.method("", "buckets") {
        let request = args.get(1)?.as_document()?;
        let page = usize::try_from(request.get_i64("page").ok()?).ok()?;
        let per_page = usize::try_from(request.get_i64("per_page").ok()?).ok()?;
        let items: Vec<Bson> = x
            .ordered(r, &key)
            .into_iter()
            .skip(page * per_page)
            .take(per_page)
            .map(|d| x.as_page(d))
            .collect();
        return Some(Expect::Value(Bson::Array(items)));
    }
    let item = args.get(1)?.clone();
    // The owner exists (a replay after shrinking may have dropped its insert).
    let owner = match &key {
        Bson::Document(ext) => ext.get("id")?.clone(),
        id => id.clone(),
    };
    r.get(&x.owner.name, &owner)?;
    if crate::checks::dangles(s.plan, r, &x.c.name, &x.b.items_path, &item)
        || crate::checks::dangles(s.plan, r, &x.c.name, &x.b.parent_path, &key)
    {
        return Some(Expect::MissingReference);
    }
    let unique = crate::unique::paths_in(x.c, &x.b.items_path);
    let size = usize::try_from(x.b.size).unwrap_or(usize::MAX);
    let open = r.docs(&x.c.name).iter().position(|d| {
        d.get(&x.b.parent_path) == Some(&key)
            && d.get_array(&x.b.items_path).map_or(0, Vec::len) < size
            && !crate::unique::held(d, &x.b.items_path, &unique, &item)
    });
    let bucket = match open {
        Some(i) => {
            let mut d = r.docs(&x.c.name).get(i)?.clone();
            let mut items = d.get_array(&x.b.items_path).ok()?.clone();
            items.push(item.clone());
            sort_items(x.b, &mut items);
            d.insert(x.b.items_path.clone(), items);
            d
        }
        None => {
            let mut d = Document::new();
            d.insert("_id", NEW_BUCKET);
            d.insert(x.b.parent_path.clone(), key);
            d.insert(x.b.items_path.clone(), vec![item.clone()]);
            // Totals start from the zero of their type; the largest and smallest of nothing
            // are absent.
            for f in x.c.fields.iter().filter(|f| is_total(s.plan, x.c, f)) {
                d.insert(f.name.clone(), zero(&f.bson_type));
            }
            d
        }
    };
    let mut bucket = bucket;
    recompute(s.plan, &x, &mut bucket);
    if collides(x.c, r.docs(&x.c.name), &bucket) {
        return Some(Expect::Duplicate);
    }
    let id = bucket.get("_id")?.clone();
    match r.get_mut(&x.c.name, &id) {
        Some(d) => *d = bucket,
        None => r.docs_mut(&x.c.name).push(bucket),
    }
    if let (Some(owner), Bson::Document(child)) = (r.get_mut(&x.owner.name, &owner), &item) {
        for l in kept_lists(x.d) {
            keep(owner, &l, child);
        }
        // The owner's summaries of all its children (not `per bucket`), raised by the append.
        let on_owner = x.d.computed.iter().filter(|c| c.collection == x.owner.name);
        crate::subsets::add_child(on_owner, owner, child);
    }
    Some(Expect::Ok)
}

/// One list of copies the owner keeps of its bucketed children (`latest N`, `top N`).
pub(crate) struct KeptList<'d> {
    pub(crate) path: &'d str,
    n: usize,
    sort_by: &'d str,
    descending: bool,
    latest: bool,
    keep: &'d [String],
}

pub(crate) fn kept_lists(d: &Decision) -> Vec<KeptList<'_>> {
    let subset = d.subset.iter().map(|s| KeptList {
        path: &s.path,
        n: usize::try_from(s.n).unwrap_or(usize::MAX),
        sort_by: &s.sort_by,
        descending: s.descending,
        latest: true,
        keep: &s.keep,
    });
    let top = d.computed.iter().filter_map(|c| match &c.function {
        ComputedFn::TopN {
            n,
            sort_by,
            descending,
            keep,
            ..
        } => Some(KeptList {
            path: &c.path,
            n: usize::try_from(*n).unwrap_or(usize::MAX),
            sort_by,
            descending: *descending,
            latest: false,
            keep,
        }),
        _ => None,
    });
    subset.chain(top).collect()
}

/// The owner's list after an append pushed `child`'s copy (its kept fields; bucket elements have
/// no `_id`) with `$sort` and `$slice`, as `bucket::append_kept` does: descending keeps the first
/// N largest first; `latest` ascending the N largest, stored ascending; `top` ascending the N
/// smallest. Ties keep their order.
pub(crate) fn keep(owner: &mut Document, l: &KeptList<'_>, child: &Document) {
    let copy: Document = child
        .iter()
        .filter(|(k, _)| *k == "_id" || l.keep.is_empty() || l.keep.iter().any(|f| f == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut list = owner.get_array(l.path).cloned().unwrap_or_default();
    list.push(Bson::Document(copy));
    let value = |b: &Bson| b.as_document().and_then(|d| d.get(l.sort_by)).cloned();
    let id = |b: &Bson| b.as_document().and_then(|d| d.get_object_id("_id").ok());
    // Ties by `_id` where the copies have one (an entity embedded in itself), as the push's
    // `$sort` breaks them; bucket elements have none and keep their order.
    let order = |a: &Bson, b: &Bson| {
        match (value(a), value(b)) {
            (Some(x), Some(y)) => compare(&x, &y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        }
        .then_with(|| id(a).cmp(&id(b)))
    };
    if l.descending {
        list.sort_by(|a, b| order(b, a));
        list.truncate(l.n);
    } else {
        list.sort_by(order);
        if l.latest {
            let from = list.len().saturating_sub(l.n);
            list.drain(..from);
        } else {
            list.truncate(l.n);
        }
    }
    owner.insert(l.path, list);
}

/// Whether `f` is a total (or count) of `c`'s children, which starts at zero.
fn is_total(plan: &Plan, c: &Collection, f: &PlanField) -> bool {
    f.kind == FieldKind::Computed
        && plan
            .relationships
            .iter()
            .flat_map(|d| &d.computed)
            .any(|x| {
                x.collection == c.name
                    && x.path == f.name
                    && matches!(
                        x.function,
                        ComputedFn::Summary {
                            summary: SummaryFn::Total | SummaryFn::Count
                        }
                    )
            })
}

/// Gives the bucket an append created the `_id` the server chose (`got`, the call's answer).
pub fn adopt(r: &mut Reference, op: &Op, got: &Bson) {
    if !matches!(op.kind, Kind::Append { .. }) || *got == Bson::Null {
        return;
    }
    if let Some(d) = r.get_mut(&op.collection, &Bson::String(NEW_BUCKET.to_owned())) {
        d.insert("_id", got.clone());
    }
}

/// The buckets' invariants on the stored documents: each bucket's count is the number of its
/// children and within the size, its start and end are the smallest and largest time of its
/// children, and its owner exists (or was deleted by an operation that leaves what names it:
/// [`Reference::deleted`]).
pub fn invariants(plan: &Plan, stored: &Reference, found: &mut Vec<String>) {
    for x in all(plan) {
        for d in stored.docs(&x.c.name) {
            let id = show(d.get("_id").unwrap_or(&Bson::Null));
            let mut want = d.clone();
            recompute(plan, &x, &mut want);
            let n = d.get_array(&x.b.items_path).map_or(0, Vec::len);
            if n as u64 > x.b.size {
                found.push(format!(
                    "bucket {id} of `{}` holds {n} children, over its size {}",
                    x.c.name, x.b.size
                ));
            }
            let mut paths = vec![x.b.count_path.clone()];
            if let Some(t) = &x.b.time_range {
                paths.extend([t.start_path.clone(), t.end_path.clone()]);
            }
            for p in paths {
                if !crate::checks::summary_agrees(want.get(&p), d.get(&p)) {
                    found.push(format!(
                        "bucket {id} of `{}`: `{p}` is {}, its children give {}",
                        x.c.name,
                        d.get(&p).map_or("nothing".into(), show),
                        want.get(&p).map_or("nothing".into(), show)
                    ));
                }
            }
            let owner = d.get(&x.b.parent_path);
            let owner_id = owner.map(|o| match o {
                Bson::Document(ext) => ext.get("id").cloned().unwrap_or(Bson::Null),
                id => id.clone(),
            });
            if owner_id.is_none_or(|o| {
                stored.get(&x.owner.name, &o).is_none() && !stored.was_deleted(&x.owner.name, &o)
            }) {
                found.push(format!(
                    "bucket {id} of `{}` names owner {}, which `{}` does not hold",
                    x.c.name,
                    owner.map_or("nothing".into(), show),
                    x.owner.name
                ));
            }
        }
    }
}
