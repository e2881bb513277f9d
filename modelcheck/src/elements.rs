//! Numbers in one element of an array (`inc_<array>_<n>`, the guarded `dec_<array>_<n>`,
//! docs/derive.md's `element(...)`): a bounded array of documents whose elements have a key (the
//! referenced id of an order line, the first required `@unique` scalar of an embedded child) gives
//! its parent's repository an atomic increment of each required number of one element, and a
//! guarded decrement of each counter that never goes below its floor (0, or the `@range`
//! minimum). The harness draws them on the keys the parent holds, sometimes on a key it does
//! not hold (`NoSuchElement`) or on a parent that does not exist (`NotFound`), decrements
//! sometimes past the floor (`None`, nothing written); the reference predicts the value returned
//! and the whole document after, summaries and kept lists of the array included (as a
//! removal's resync sets them, [`crate::checks::recompute_summaries`]).

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, FieldKind, PlanField};

use crate::model::Reference;
use crate::ops::{Expect, Kind, Op, Schema};
use crate::values::{self, Rng};

/// A keyed array of a collection: the array, the element field that identifies an element, and
/// the numbers the repository changes one element at a time.
#[derive(Debug, Clone)]
pub struct Keyed<'a> {
    /// The top-level array.
    pub array: &'a PlanField,
    /// The element field an element is found by.
    pub key: &'a PlanField,
    /// The element's required numbers (`int32`, `int64`, `double`), the key aside.
    pub numbers: Vec<&'a PlanField>,
}

/// The key of `array`'s elements: the reference of an array of references with fields, else
/// the first required, unique, top-level scalar of the elements.
fn key_of(array: &PlanField) -> Option<&PlanField> {
    array.children.iter().find(|c| {
        c.array_depth == 0
            && if array.kind == FieldKind::RefArray {
                c.kind == FieldKind::Ref
            } else {
                c.flags.unique
                    && !c.optional
                    && !c.map
                    && c.bson_type != "object"
                    && c.kind == FieldKind::Scalar
            }
    })
}

/// Whether element field `n` is a number the repository changes in one element (keyed by
/// `key`).
fn is_number(n: &PlanField, key: &PlanField) -> bool {
    n.name != key.name
        && n.kind == FieldKind::Scalar
        && n.array_depth == 0
        && !n.optional
        && !n.map
        && matches!(n.bson_type.as_str(), "int" | "long" | "double")
}

/// The keyed arrays of `c` with at least one number, each with the numbers of its elements
/// (as codegen/src/rust/elements.rs finds them; a method the layout does not give is not drawn).
pub fn keyed(c: &Collection) -> Vec<Keyed<'_>> {
    c.fields
        .iter()
        .filter(|f| f.array_depth == 1 && f.bson_type == "object" && f.max_items.is_some())
        // Embedded children or references with fields, not the lists kept of them (a top-N
        // list's copies hold the key too).
        .filter(|f| matches!(f.kind, FieldKind::Embedded | FieldKind::RefArray) && !f.recursive)
        .filter_map(|f| {
            let key = key_of(f)?;
            let numbers: Vec<&PlanField> =
                f.children.iter().filter(|n| is_number(n, key)).collect();
            (!numbers.is_empty()).then_some(Keyed {
                array: f,
                key,
                numbers,
            })
        })
        .collect()
}

/// The methods of number `n` of array `array`: `inc_<array>_<n>` and `dec_<array>_<n>`.
pub fn method_names(array: &PlanField, n: &PlanField) -> (String, String) {
    let name = |f: &PlanField| f.code_name.trim_start_matches("r#").to_owned();
    let suffix = format!("{}_{}", name(array), name(n));
    (format!("inc_{suffix}"), format!("dec_{suffix}"))
}

/// The floor of a counter's guarded decrement: its range's minimum, else 0.
fn floor(n: &PlanField) -> f64 {
    n.range.as_ref().map_or(0.0, |r| r.as_f64().0)
}

fn as_f64(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

/// `v + by` in `v`'s own type (`by` has the number's type), as `$inc` adds.
fn add(v: &Bson, by: &Bson) -> Option<Bson> {
    match (v, by) {
        (Bson::Int32(a), Bson::Int32(b)) => a.checked_add(*b).map(Bson::Int32),
        (Bson::Int64(a), Bson::Int64(b)) => a.checked_add(*b).map(Bson::Int64),
        (Bson::Double(a), Bson::Double(b)) => Some(Bson::Double(a + b)),
        _ => None,
    }
}

/// `by` of number `n`'s type from a whole amount.
fn amount(n: &PlanField, whole: i64) -> Bson {
    match n.bson_type.as_str() {
        "long" => Bson::Int64(whole),
        "double" => Bson::Double(whole as f64 / 2.0),
        _ => Bson::Int32(i32::try_from(whole).unwrap_or(1)),
    }
}

/// A key no element of `held` has, of the key's type (`None` when the key's values are all held,
/// an enumeration's).
fn missing_key(s: &Schema<'_>, k: &Keyed<'_>, held: &[Bson], rng: &mut Rng) -> Option<Bson> {
    for _ in 0..8 {
        let v = if k.array.kind == FieldKind::RefArray {
            // An id of the referenced collection's type that is not in the array.
            let target = k.array.source.as_deref().and_then(|e| s.home(e))?;
            values::id(target, rng)
        } else if !k.key.enum_values.is_empty() {
            Bson::String(rng.pick(&k.key.enum_values)?.clone())
        } else {
            values::scalar(&k.key.bson_type, rng)
        };
        if !held.contains(&v) {
            return Some(v);
        }
    }
    None
}

/// `inc_<array>_<n>` or `dec_<array>_<n>` on an element of `doc` (document `id` of `c`), if `c`
/// has a keyed array: mostly on a key the array holds, sometimes on a key it does not hold or
/// on a parent that does not exist; a decrement sometimes past the floor.
pub fn draw(
    s: &Schema<'_>,
    r: &Reference,
    c: &Collection,
    doc: &Document,
    id: &Bson,
    rng: &mut Rng,
) -> Option<Op> {
    let arrays = keyed(c);
    let k = rng.pick(&arrays)?;
    let n = *rng.pick(&k.numbers)?;
    let (inc, dec) = method_names(k.array, n);
    let decrement = n.flags.counter && s.has(&c.name, &dec) && rng.chance(50);
    let method = if decrement { dec } else { inc };
    if !s.has(&c.name, &method) {
        return None;
    }
    let elements: Vec<&Document> = doc
        .get_array(&k.array.name)
        .map(|a| a.iter().filter_map(Bson::as_document).collect())
        .unwrap_or_default();
    let held: Vec<Bson> = elements
        .iter()
        .filter_map(|e| e.get(&k.key.name).cloned())
        .collect();
    let element = if rng.below(10) == 0 {
        None
    } else {
        rng.pick(&elements).copied()
    };
    let key = match element.and_then(|e| e.get(&k.key.name)) {
        Some(key) => key.clone(),
        None => missing_key(s, k, &held, rng)?,
    };
    let parent = if rng.below(12) == 0 {
        let other = values::id(c, rng);
        if r.get(&c.name, &other).is_some() {
            return None;
        }
        other
    } else {
        id.clone()
    };
    let small = i64::try_from(1 + rng.below(4)).unwrap_or(1);
    let by = match element.and_then(|e| e.get(&n.name)).and_then(as_f64) {
        // Now and then a decrement of one more than the floor leaves: refused.
        Some(v) if decrement && rng.chance(30) => {
            let past = (v - floor(n)).max(0.0) as i64 + 1;
            if n.bson_type == "double" {
                Bson::Double(v - floor(n) + 0.5)
            } else {
                amount(n, past)
            }
        }
        _ => amount(n, small),
    };
    Some(Op::new(
        &c.name,
        method,
        vec![parent, key, by],
        Kind::Element {
            path: k.array.name.clone(),
            key: k.key.name.clone(),
            field: n.name.clone(),
            decrement,
        },
    ))
}

/// What `op` (a [`Kind::Element`]) must answer, applied to the reference: the element's new
/// value (a refused decrement: null, nothing written), `NotFound`, `NoSuchElement`, or a
/// validation failure when the result leaves the number's `@range`.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op) -> Option<Expect> {
    let Kind::Element {
        path,
        key,
        field,
        decrement,
    } = &op.kind
    else {
        return None;
    };
    let args = op.bson_args();
    let (id, wanted, by) = (args.first()?, args.get(1)?, args.get(2)?);
    let c = s.plan.collection(&op.collection)?;
    let n = c.field(path)?.children.iter().find(|x| &x.name == field)?;
    let Some(doc) = r.get_mut(&c.name, id) else {
        return Some(Expect::NotFound);
    };
    let mut items = doc.get_array(path).ok()?.clone();
    let Some(at) = items
        .iter()
        .position(|e| e.as_document().and_then(|d| d.get(key)) == Some(wanted))
    else {
        return Some(Expect::NoSuchElement);
    };
    let element = items.get_mut(at)?.as_document_mut()?;
    let old = element.get(field)?.clone();
    let new = if *decrement {
        // The server's guard: the element's value at least the floor plus the amount.
        if as_f64(&old)? < floor(n) + as_f64(by)? {
            return Some(Expect::Value(Bson::Null));
        }
        let minus = match by {
            Bson::Int32(b) => Bson::Int32(b.checked_neg()?),
            Bson::Int64(b) => Bson::Int64(b.checked_neg()?),
            Bson::Double(b) => Bson::Double(-b),
            _ => return None,
        };
        add(&old, &minus)?
    } else {
        add(&old, by)?
    };
    if let Some(range) = &n.range {
        let (lo, hi) = range.as_f64();
        let v = as_f64(&new)?;
        if v < lo || v > hi {
            return Some(Expect::Invalid);
        }
    } else if n.flags.counter && as_f64(&new)? < 0.0 {
        return Some(Expect::Invalid);
    }
    element.insert(field.clone(), new.clone());
    doc.insert(path.clone(), items);
    crate::checks::recompute_summaries(s.plan, c, doc);
    Some(Expect::Value(new))
}
