//! Patterns in the sampled layout: bucket collections (a reference to the owner, a count and a
//! bounded array), outlier overflow, trees (`parent` plus `ancestors`), polymorphic collections
//! (a discriminator field whose values decide the other fields), subsets and top-N lists (an
//! array in the parent mirroring its children), schema versions.

use super::evidence::Agg;
use super::names::is_ident;
use super::path::Loc;
use super::references::{Form, Reference};
use super::sample::Sampled;
use super::shape::{FieldShape, Kind, Shape};

/// A share of the sample that counts as "always": 95%.
fn always(n: u64, of: u64) -> bool {
    of > 0 && n * 100 >= of * 95
}

/// A collection of buckets: each document groups up to `size` children of one owner.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    /// The bucket collection.
    pub coll: usize,
    /// The reference to the owner (a root field, index into the references).
    pub owner: usize,
    /// The field counting the children.
    pub count: String,
    /// The array of children.
    pub items: String,
    /// The largest number of children seen in one bucket.
    pub size: u64,
    /// The children's order inside a bucket: element field, descending.
    pub order: Option<(String, bool)>,
    /// Fields holding the smallest and largest value of an element field: (start, end, field).
    pub time_range: Option<(String, String, String)>,
    /// Other fields computed from the children: (field, how, element field).
    pub summaries: Vec<(String, Agg, String)>,
}

/// A parent array whose overflow goes to a bucket collection (the outlier pattern).
#[derive(Debug, Clone, PartialEq)]
pub struct Outlier {
    /// The overflow buckets (index into the buckets).
    pub bucket: usize,
    /// The array in the parent.
    pub array: String,
    /// The parent's flag saying it overflowed.
    pub flag: Option<String>,
}

/// `parent` and `ancestors` referencing the same collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// The collection.
    pub coll: usize,
    /// The parent reference field.
    pub parent: String,
    /// The ancestors array field.
    pub ancestors: String,
    /// Documents whose last ancestor is their parent.
    pub agreeing: u64,
    /// Documents with a parent.
    pub with_parent: u64,
}

/// A discriminator and the variants it selects.
#[derive(Debug, Clone, PartialEq)]
pub struct Variants {
    /// The collection.
    pub coll: usize,
    /// The discriminator field.
    pub field: String,
    /// Per value: documents, and the keys only documents with that value have.
    pub variants: Vec<(String, u64, Vec<String>)>,
}

/// An array in a parent that keeps copies of some of its children (subset or top-N).
#[derive(Debug, Clone, PartialEq)]
pub struct Subset {
    /// The parent collection.
    pub parent: usize,
    /// The array field.
    pub field: String,
    /// The children's reference to the parent (index into the references).
    pub child_ref: usize,
    /// The largest number of elements seen.
    pub n: u64,
    /// The element field ordering them, and whether descending.
    pub by: (String, bool),
    /// The child fields each element keeps.
    pub keep: Vec<String>,
    /// By a date: the latest children; by anything else: the top ones.
    pub latest: bool,
    /// The elements carry the children's ids (an array of extended references): a subset only
    /// if some parent has more children than elements, else both sides hold the whole link.
    pub holds_ids: bool,
}

fn main(f: &FieldShape) -> Option<Kind> {
    f.main_kind().map(|(k, _)| k)
}

/// The root references of collection `coll`, by field.
fn root_refs(refs: &[Reference], coll: usize) -> impl Iterator<Item = (usize, &Reference)> {
    refs.iter()
        .enumerate()
        .filter(move |(_, r)| r.holder == coll && r.place.is_root())
}

/// Bucket collections.
pub fn buckets(samples: &[Sampled], refs: &[Reference]) -> Vec<Bucket> {
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let e = &s.evidence;
        let owners: Vec<(usize, &Reference)> = root_refs(refs, i)
            .filter(|(_, r)| r.form == Form::Scalar && r.target != i)
            .collect();
        let [(owner, owner_ref)] = owners.as_slice() else {
            continue;
        };
        for (items, f) in &s.shape.fields {
            let Some(el) = f.array.as_ref().filter(|_| main(f) == Some(Kind::Array)) else {
                continue;
            };
            if el.main_kind().map(|(k, _)| k) != Some(Kind::Document) {
                continue;
            }
            let Some((count, _)) = e
                .counts
                .iter()
                .filter(|((_, a), n)| a == items && always(**n, e.examined))
                .map(|((c, _), n)| (c.clone(), *n))
                .max_by_key(|(_, n)| *n)
            else {
                continue;
            };
            // Every other field is computed from the children.
            let mut summaries = Vec::new();
            let mut ok = true;
            for key in s.shape.fields.keys() {
                if [
                    owner_ref.field.as_str(),
                    "_id",
                    items.as_str(),
                    count.as_str(),
                ]
                .contains(&key.as_str())
                {
                    continue;
                }
                let best = e
                    .summaries
                    .iter()
                    .filter(|((k, a, _, _), n)| k == key && a == items && always(**n, e.examined))
                    .max_by_key(|(_, n)| **n);
                match best {
                    Some(((_, _, field, how), _)) => {
                        summaries.push((key.clone(), *how, field.clone()))
                    }
                    None => ok = false,
                }
            }
            if !ok {
                continue;
            }
            let time_range = summaries
                .iter()
                .find(|(_, how, _)| *how == Agg::Min)
                .and_then(|(start, _, field)| {
                    summaries
                        .iter()
                        .find(|(_, how, f)| *how == Agg::Max && f == field)
                        .map(|(end, _, _)| (start.clone(), end.clone(), field.clone()))
                });
            if let Some((start, end, _)) = &time_range {
                summaries.retain(|(k, _, _)| k != start && k != end);
            }
            let order = el
                .order
                .iter()
                .filter(|(_, o)| o.checked > 0)
                .filter_map(|(f, o)| {
                    if always(o.ascending, o.checked) && o.ascending >= o.descending {
                        Some((f.clone(), false))
                    } else if always(o.descending, o.checked) {
                        Some((f.clone(), true))
                    } else {
                        None
                    }
                })
                .min_by_key(|(f, _)| {
                    let kind = el.doc.as_ref().and_then(|d| d.fields.get(f)).and_then(main);
                    (kind != Some(Kind::Date), f.clone())
                });
            out.push(Bucket {
                coll: i,
                owner: *owner,
                count,
                items: items.clone(),
                size: el.lengths.max().unwrap_or(0),
                order,
                time_range,
                summaries,
            });
            break;
        }
    }
    out
}

fn key_set(shape: &Shape) -> Vec<&String> {
    let mut keys: Vec<&String> = shape.fields.keys().collect();
    keys.sort();
    keys
}

/// Buckets that hold the overflow of an array in their owner.
pub fn outliers(samples: &[Sampled], refs: &[Reference], buckets: &[Bucket]) -> Vec<Outlier> {
    let mut out = Vec::new();
    for (b, bucket) in buckets.iter().enumerate() {
        let owner = &refs[bucket.owner];
        let parent = &samples[owner.target];
        let Some(items) = Loc::root()
            .child(&bucket.items, true)
            .shape(&samples[bucket.coll].shape)
        else {
            continue;
        };
        let keys = key_set(items);
        let array = parent.shape.fields.iter().find(|(_, f)| {
            f.array
                .as_ref()
                .and_then(|a| a.doc.as_deref())
                .is_some_and(|d| key_set(d) == keys)
        });
        let Some((array, _)) = array else { continue };
        let flag = parent
            .shape
            .fields
            .iter()
            .find(|(k, f)| main(f) == Some(Kind::Bool) && k.starts_with(array.as_str()))
            .map(|(k, _)| k.clone());
        out.push(Outlier {
            bucket: b,
            array: array.clone(),
            flag,
        });
    }
    out
}

/// Trees: a reference to the same collection and an array of them whose last element is it.
pub fn trees(samples: &[Sampled], refs: &[Reference]) -> Vec<Tree> {
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let own: Vec<&Reference> = root_refs(refs, i)
            .map(|(_, r)| r)
            .filter(|r| r.target == i)
            .collect();
        for p in own.iter().filter(|r| r.form == Form::Scalar) {
            for a in own.iter().filter(|r| r.form == Form::Array) {
                let agreeing = s
                    .evidence
                    .last
                    .get(&(p.field.clone(), a.field.clone()))
                    .copied()
                    .unwrap_or(0);
                let with_parent = s.shape.fields.get(&p.field).map_or(0, FieldShape::non_null);
                if with_parent > 0 && agreeing * 10 >= with_parent * 9 {
                    out.push(Tree {
                        coll: i,
                        parent: p.field.clone(),
                        ancestors: a.field.clone(),
                        agreeing,
                        with_parent,
                    });
                }
            }
        }
    }
    out
}

/// Polymorphic collections: a string field in (almost) every document, with 2 to 16 values that
/// are identifiers, and keys that only documents with one value have.
pub fn variants(samples: &[Sampled]) -> Vec<Variants> {
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let mut best: Option<Variants> = None;
        for (field, d) in &s.evidence.discriminators {
            let present = s.shape.fields.get(field).map_or(0, |f| f.present);
            if d.overflowed
                || d.values.len() < 2
                || !always(present, s.sampled)
                || !d.values.keys().all(|v| is_ident(v))
            {
                continue;
            }
            let mut variants = Vec::new();
            let mut specific = 0;
            for (value, (n, keys)) in &d.values {
                let own: Vec<String> = keys
                    .iter()
                    .filter(|(k, _)| *k != field)
                    .filter(|(k, c)| {
                        let total = s.shape.fields.get(*k).map_or(0, |f| f.present);
                        **c == total && total < s.sampled
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                specific += own.len();
                variants.push((value.clone(), *n, own));
            }
            if specific == 0 {
                continue;
            }
            if best
                .as_ref()
                .is_none_or(|b| b.variants.iter().map(|v| v.2.len()).sum::<usize>() < specific)
            {
                best = Some(Variants {
                    coll: i,
                    field: field.clone(),
                    variants,
                });
            }
        }
        out.extend(best);
    }
    out
}

/// Arrays of documents in a parent whose elements have a subset of the fields of the parent's
/// children, sorted by one of them.
pub fn subsets(samples: &[Sampled], refs: &[Reference], taken: &[(usize, String)]) -> Vec<Subset> {
    let mut out = Vec::new();
    for (p, s) in samples.iter().enumerate() {
        for (field, f) in &s.shape.fields {
            if taken.iter().any(|(c, t)| *c == p && t == field) {
                continue;
            }
            let Some(a) = f.array.as_deref() else {
                continue;
            };
            let Some(el) = a.doc.as_deref() else { continue };
            let own_ref = refs
                .iter()
                .find(|r| r.holder == p && r.place.is_root() && r.field == *field);
            if own_ref.is_some_and(|r| !matches!(r.form, Form::ExtendedArray { .. })) {
                continue;
            }
            let keys: Vec<&String> = el
                .fields
                .keys()
                .filter(|k| *k != "_id" && *k != "id")
                .collect();
            if keys.is_empty() {
                continue;
            }
            let children = refs.iter().enumerate().filter(|(_, r)| {
                r.target == p
                    && r.holder != p
                    && r.place.is_root()
                    && matches!(r.form, Form::Scalar | Form::Extended { .. })
            });
            let fitting = children
                .filter(|(_, r)| {
                    let child = &samples[r.holder].shape;
                    own_ref.is_none_or(|o| o.target == r.holder)
                        && keys.iter().all(|k| {
                            child.fields.contains_key(*k)
                                || Some(k.as_str()) == own_ref.and_then(|o| o.form.id_key())
                        })
                })
                .map(|(i, _)| i)
                .next();
            let Some(child_ref) = fitting else { continue };
            let by = a
                .order
                .iter()
                .filter(|(k, o)| {
                    keys.contains(k)
                        && o.checked > 0
                        && (always(o.ascending, o.checked) || always(o.descending, o.checked))
                })
                .map(|(k, o)| (k.clone(), o.descending > o.ascending))
                .min_by_key(|(k, _)| {
                    let kind = el.fields.get(k).and_then(main);
                    (kind != Some(Kind::Date), k.clone())
                });
            let Some(by) = by else { continue };
            let latest = el.fields.get(&by.0).and_then(main) == Some(Kind::Date);
            out.push(Subset {
                parent: p,
                field: field.clone(),
                child_ref,
                n: a.lengths.max().unwrap_or(0),
                by,
                keep: keys.into_iter().cloned().collect(),
                latest,
                holds_ids: own_ref.is_some(),
            });
        }
    }
    out
}

/// The schema version field: `schema_version` with integer values in (almost) every document;
/// the largest value seen.
pub fn schema_version(s: &Sampled) -> Option<(u32, u64)> {
    let f = s.shape.fields.get("schema_version")?;
    if !always(f.present, s.sampled) || !matches!(main(f), Some(Kind::Int32 | Kind::Int64)) {
        return None;
    }
    let max = f
        .values
        .distinct
        .iter()
        .filter_map(super::shape::number)
        .fold(0.0f64, f64::max);
    (max >= 1.0 && max <= f64::from(u32::MAX)).then_some((max as u32, f.present))
}

/// The fields of document versioning with validity (`@versioned(future)`, seed 002): the id all
/// versions share, the version number, and the dates the version starts and stops applying.
pub const VERSION_FIELDS: [&str; 4] = ["document_id", "version", "valid_from", "valid_to"];

/// Whether `s` holds versions of documents (`@versioned(future)`): the pattern's four fields in
/// (almost) every document, of the pattern's kinds; the fewest documents any of them is in.
pub fn versioned_future(s: &Sampled) -> Option<u64> {
    let mut present = s.sampled;
    for name in VERSION_FIELDS {
        let f = s.shape.fields.get(name)?;
        let kind_fits = match name {
            "version" => matches!(main(f), Some(Kind::Int32 | Kind::Int64)),
            "valid_from" | "valid_to" => matches!(main(f), Some(Kind::Date)),
            _ => true,
        };
        if !always(f.present, s.sampled) || !kind_fits {
            return None;
        }
        present = present.min(f.present);
    }
    Some(present)
}

/// Parents whose subset mirrors their children: for up to 20 sampled parents with elements, the
/// array's values of the ordering field equal those of their first children in that order.
/// Returns (checked, mirrored, truncated): truncated parents have more children than elements.
pub async fn mirrors(
    db: &mongodb::Database,
    samples: &[Sampled],
    refs: &[Reference],
    s: &Subset,
) -> mongodb::error::Result<(u64, u64, u64)> {
    use futures::TryStreamExt;
    use mongodb::bson::{doc, Bson, Document};

    let parent = &samples[s.parent];
    let child_ref = &refs[s.child_ref];
    let ids: Vec<Bson> = parent
        .shape
        .records
        .iter()
        .filter_map(|r| r.get("_id").cloned())
        .take(20)
        .collect();
    let (mut checked, mut mirrored, mut truncated) = (0, 0, 0);
    let dir = if s.by.1 { -1 } else { 1 };
    for id in ids {
        let Some(p) = db
            .collection::<Document>(&parent.name)
            .find_one(doc! { "_id": id.clone() })
            .projection(doc! { s.field.as_str(): 1 })
            .await?
        else {
            continue;
        };
        let Ok(items) = p.get_array(&s.field) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        let kept: Vec<String> = items
            .iter()
            .filter_map(|i| match i {
                Bson::Document(d) => d.get(&s.by.0).map(super::shape::value_key),
                _ => None,
            })
            .collect();
        let children_coll = db.collection::<Document>(&samples[child_ref.holder].name);
        if children_coll
            .count_documents(doc! { child_ref.id_path(): id.clone() })
            .await?
            > items.len() as u64
        {
            truncated += 1;
        }
        let children: Vec<Document> = children_coll
            .find(doc! { child_ref.id_path(): id })
            .sort(doc! { s.by.0.as_str(): dir })
            .limit(items.len() as i64)
            .projection(doc! { s.by.0.as_str(): 1 })
            .await?
            .try_collect()
            .await?;
        let newest: Vec<String> = children
            .iter()
            .filter_map(|d| d.get(&s.by.0).map(super::shape::value_key))
            .collect();
        checked += 1;
        if newest == kept {
            mirrored += 1;
        }
    }
    Ok((checked, mirrored, truncated))
}
