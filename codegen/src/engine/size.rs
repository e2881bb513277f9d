//! Estimated BSON sizes of planned documents, average and worst case.
//!
//! Each element costs its type byte, its name and a NUL, plus its value; a document costs 5 bytes
//! of framing; an array is a document whose keys are "0", "1", ... Strings and binaries without a
//! declared size use the defaults below; unbounded arrays have no worst case.

use crate::plan::{Collection, Container, ContainerKind, FieldKind, PlanField, SizeEstimate};

/// Average string length when none is declared.
const STRING_AVERAGE: u64 = 24;
/// Worst-case string length when none is declared.
const STRING_WORST: u64 = 1024;
/// Average binary length when none is declared.
const BINARY_AVERAGE: u64 = 1024;
/// Worst-case binary length when none is declared.
const BINARY_WORST: u64 = 64 * 1024;
/// Entries of an unbounded map on average, and at worst. A bounded map (`map<T; N>`) has N at
/// worst and the smaller of N and `MAP_AVERAGE` on average (the language has no typical count
/// for a field's entries).
const MAP_AVERAGE: u64 = 10;
const MAP_WORST: u64 = 200;

/// The entries of a map on average and at worst: its bound's, or the defaults above.
pub(crate) fn map_entries(bound: Option<u64>) -> (u64, u64) {
    match bound {
        Some(n) => (n.min(MAP_AVERAGE), n),
        None => (MAP_AVERAGE, MAP_WORST),
    }
}
/// Elements of an unbounded array on average.
const UNBOUNDED_AVERAGE: u64 = 10;

/// Fills the size of every field and collection.
/// A field's `size` holds, before estimation, its declared hint: `average` from `@size` (or
/// `@large`), `worst` from `@large`; zero/none when nothing was declared. On an array or a map
/// the hint is each element's (each value's) size.
pub(crate) fn estimate(collections: &mut [Collection]) {
    for c in collections {
        let mut avg: u64 = 5;
        let mut worst = Some(5u64);
        for f in &mut c.fields {
            let s = field(f);
            avg = avg.saturating_add(s.average);
            worst = add(worst, s.worst);
        }
        c.size = SizeEstimate {
            average: avg,
            worst,
        };
    }
}

/// One value's size where the schema declares it (`average` from `@size` or `@large`, `worst`
/// from `@large`), else the estimate from its parts.
fn declared_value(hint: SizeEstimate, avg: u64, worst: Option<u64>) -> (u64, Option<u64>) {
    if hint.average == 0 && hint.worst.is_none() {
        return (avg, worst);
    }
    let a = if hint.average > 0 { hint.average } else { avg };
    (a, hint.worst.or(worst).map(|w| w.max(a)))
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a.zip(b).map(|(a, b)| a.saturating_add(b))
}

fn mul(a: Option<u64>, n: Option<u64>) -> Option<u64> {
    a.zip(n).map(|(a, n)| a.saturating_mul(n))
}

/// Size of one element (name + value), and sets `f.size`.
fn field(f: &mut PlanField) -> SizeEstimate {
    let name_cost = 2 + f.name.len() as u64;
    // The value of one element (for arrays: of one innermost element).
    let scalar = |bson: &str, avg: Option<u64>, worst: Option<u64>| -> (u64, Option<u64>) {
        match bson {
            "double" | "date" | "long" | "timestamp" => (8, Some(8)),
            "objectId" => (12, Some(12)),
            "bool" => (1, Some(1)),
            "null" => (0, Some(0)),
            "int" => (4, Some(4)),
            "decimal" => (16, Some(16)),
            "binData" => {
                let a = avg.unwrap_or(BINARY_AVERAGE);
                (5 + a, Some(5 + worst.unwrap_or(BINARY_WORST.max(a))))
            }
            "regex" => (34, Some(258)),
            _ => {
                let a = avg.unwrap_or(STRING_AVERAGE);
                (5 + a, Some(5 + worst.unwrap_or(STRING_WORST.max(a))))
            }
        }
    };
    let (value_avg, value_worst) = if f.bson_type == "object" {
        let hint = f.size;
        let mut a: u64 = 5;
        let mut w = Some(5u64);
        if f.recursive {
            // A recursive tree: unbounded by nature.
            a += 64;
            w = None;
        }
        for c in &mut f.children {
            let s = field(c);
            a = a.saturating_add(s.average);
            w = add(w, s.worst);
        }
        // A declared size (`@large`, `@size`) on a value type, or on an array of them, is each
        // value's, as for a string or a binary: it replaces the estimate from the value's fields.
        declared_value(hint, a, w)
    } else {
        let hint = f.size;
        scalar(
            &f.bson_type,
            (hint.average > 0).then_some(hint.average),
            hint.worst,
        )
    };
    // Container levels, innermost first; the outermost array level uses the schema's usual
    // count (`typical`) on average.
    let mut avg = value_avg;
    let mut worst = value_worst;
    let outer_array = f
        .containers
        .iter()
        .position(|c| c.kind == ContainerKind::Array);
    for (i, level) in f.containers.iter().enumerate().rev() {
        (avg, worst) = match level.kind {
            ContainerKind::Array => {
                let typical = if outer_array == Some(i) {
                    f.typical_items
                } else {
                    None
                };
                array_size(level, typical, f.kind == FieldKind::Pattern, avg, worst)
            }
            ContainerKind::Map => {
                let key = 1 + 8;
                let (n_avg, n_worst) = map_entries(level.bound);
                (
                    n_avg
                        .saturating_mul(avg.saturating_add(key))
                        .saturating_add(5),
                    worst.map(|w| {
                        n_worst
                            .saturating_mul(w.saturating_add(key + 16))
                            .saturating_add(5)
                    }),
                )
            }
        };
    }
    let size = SizeEstimate {
        average: if f.optional {
            (avg / 2).saturating_add(name_cost)
        } else {
            avg.saturating_add(name_cost)
        },
        worst: worst.map(|w| w.saturating_add(name_cost)),
    };
    f.size = size;
    size
}

/// One array level of elements of `elem_avg` (`elem_worst`) bytes: the usual count on average
/// (`typical` where the schema declares it, every element of a preallocated level, else half the
/// bound), the bound at worst. Pattern arrays (attributes, ancestors) without a bound are
/// estimated at `MAP_WORST` elements at worst, like maps.
fn array_size(
    level: &Container,
    typical: Option<u64>,
    pattern: bool,
    elem_avg: u64,
    elem_worst: Option<u64>,
) -> (u64, Option<u64>) {
    let n_avg = match (typical, level.bound) {
        (_, Some(m)) if level.preallocated => m,
        (Some(t), Some(m)) => t.min(m),
        (Some(t), None) => t,
        (None, Some(m)) => (m / 2).max(1),
        (None, None) => UNBOUNDED_AVERAGE,
    };
    let avg = n_avg
        .saturating_mul(elem_avg.saturating_add(1))
        .saturating_add(5 + keys_cost(n_avg));
    let worst = level.bound.or(pattern.then_some(MAP_WORST)).and_then(|m| {
        mul(elem_worst.map(|w| w.saturating_add(1)), Some(m))
            .map(|x| x.saturating_add(5 + keys_cost(m)))
    });
    (avg, worst)
}

/// Bytes of the keys "0".."n-1" with their type bytes and NULs.
fn keys_cost(n: u64) -> u64 {
    let mut total = 0;
    let mut digits = 1;
    let mut start = 0;
    let mut end = 10;
    while start < n {
        let count = end.min(n) - start;
        total += count * (digits + 1);
        digits += 1;
        start = end;
        end *= 10;
    }
    total
}

/// Average BSON size of one document of `entity` on its own (its declared fields, no relations),
/// with the same defaults as the collections' estimate; the cost model's document sizes.
pub(crate) fn entity_average(ctx: &super::context::Ctx<'_>, entity: &str) -> u64 {
    let Some(e) = ctx.entity(entity) else {
        return 5;
    };
    // The document's fields and framing, and its `_id`.
    average_fields(ctx.model, &e.fields, 0).saturating_add(17)
}

/// Average BSON size of one declared field (name and value), as `entity_average` counts it.
pub(crate) fn field_average(model: &crate::model::Model, f: &crate::model::Field) -> u64 {
    let declared = f.facts.size_bytes.or(f.facts.large_bytes);
    (2 + f.bson_name.len() as u64).saturating_add(average_value(model, &f.ty, declared, 0))
}

/// A document's fields, with its framing.
fn average_fields(model: &crate::model::Model, fs: &[crate::model::Field], depth: usize) -> u64 {
    fs.iter()
        .map(|f| {
            let declared = f.facts.size_bytes.or(f.facts.large_bytes);
            (2 + f.bson_name.len() as u64)
                .saturating_add(average_value(model, &f.ty, declared, depth))
        })
        .fold(5u64, u64::saturating_add)
}

fn average_value(
    model: &crate::model::Model,
    ty: &crate::model::FieldType,
    declared: Option<u64>,
    depth: usize,
) -> u64 {
    use crate::model::{BsonType, FieldType};
    match ty {
        FieldType::Scalar { bson } => match bson {
            BsonType::Regex => 34,
            BsonType::Binary => 5 + declared.unwrap_or(BINARY_AVERAGE),
            BsonType::String => 5 + declared.unwrap_or(STRING_AVERAGE),
            fixed => fixed.fixed_size().unwrap_or(0),
        },
        // A declared size is the value's; otherwise its fields' (value types nest without
        // cycles; the depth only guards against a malformed model).
        FieldType::Value { name } => declared.unwrap_or_else(|| match model.value(name) {
            Some(v) if depth < 32 => average_fields(model, &v.fields, depth + 1),
            _ => 5 + 3 * (STRING_AVERAGE + 8),
        }),
        // A declared size (`@large`, `@size`) is each element's, as in `field` above: an
        // array of N large values is N times the size.
        FieldType::Array { elem, bound, .. } => {
            let n = bound.map(|b| (b / 2).max(1)).unwrap_or(UNBOUNDED_AVERAGE);
            5 + n.saturating_mul(average_value(model, elem, declared, depth) + 3)
        }
        FieldType::Map {
            value: v, bound, ..
        } => {
            5 + map_entries(*bound)
                .0
                .saturating_mul(average_value(model, v, declared, depth) + 10)
        }
        FieldType::Counters { dims } => {
            5 + dims
                .iter()
                .map(|&d| u64::from(d))
                .product::<u64>()
                .saturating_mul(12)
        }
    }
}

/// Worst-case BSON size of one declared field (name and value), by the same rules as the
/// collections' estimate above: a declared `@large` is each value's worst, `@size` its average (a
/// string or binary can then still reach the default worst), arrays and maps count their bound
/// (an unbounded one, like a recursive value, has no worst case: `None`). Plan warnings measure
/// a planned field this way (W109's "holds up to 47.2 KB of seldom-read data"), so decisions
/// that weigh a field's size before the plan exists measure it the same.
pub(crate) fn field_worst(model: &crate::model::Model, f: &crate::model::Field) -> Option<u64> {
    use crate::model::{BsonType, Field, FieldType, Model};
    fn value(model: &Model, ty: &FieldType, f: &Field, depth: usize) -> Option<u64> {
        let (size, large) = (f.facts.size_bytes, f.facts.large_bytes);
        let declared = |default: u64| large.unwrap_or(default.max(size.unwrap_or(0)));
        match ty {
            FieldType::Scalar { bson } => Some(match bson {
                BsonType::Regex => 258,
                BsonType::Binary => 5 + declared(BINARY_WORST),
                BsonType::String => 5 + declared(STRING_WORST),
                fixed => fixed.fixed_size().unwrap_or(0),
            }),
            FieldType::Value { name } => match (large, model.value(name)) {
                (Some(l), _) => Some(l),
                (None, Some(v)) if depth < 32 => v
                    .fields
                    .iter()
                    .map(|g| field_bytes(model, g, depth + 1))
                    .try_fold(5u64, |acc, b| b.map(|b| acc.saturating_add(b))),
                _ => None,
            },
            FieldType::Array { elem, bound, .. } => {
                let n = (*bound)?;
                let each = value(model, elem, f, depth)?;
                Some(
                    n.saturating_mul(each.saturating_add(1))
                        .saturating_add(5 + keys_cost(n)),
                )
            }
            FieldType::Map {
                value: v, bound, ..
            } => {
                let n = map_entries(*bound).1;
                let each = value(model, v, f, depth)?;
                Some(n.saturating_mul(each.saturating_add(25)).saturating_add(5))
            }
            FieldType::Counters { dims } => Some(
                5 + dims
                    .iter()
                    .map(|&d| u64::from(d))
                    .product::<u64>()
                    .saturating_mul(12),
            ),
        }
    }
    fn field_bytes(model: &Model, f: &Field, depth: usize) -> Option<u64> {
        value(model, &f.ty, f, depth).map(|v| v.saturating_add(2 + f.bson_name.len() as u64))
    }
    field_bytes(model, f, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_arrays() {
        assert_eq!(keys_cost(0), 0);
        assert_eq!(keys_cost(3), 6);
        assert_eq!(keys_cost(12), 10 * 2 + 2 * 3);
    }
}
