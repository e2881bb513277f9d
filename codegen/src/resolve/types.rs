//! Type expressions: BSON types, value types, arrays, maps and counters; value types that contain
//! themselves.

use squillion_grammar::ast::{CountersShape, Ident, TypeExpr, TypeExprKind};
use squillion_grammar::Diagnostic;

use super::names::{closest, one_of, DeclKind};
use super::{units, Resolver};
use crate::codes;
use crate::model::{BsonType, FieldType};

/// The named periods of `counters(...)` and their dimensions.
pub(super) const COUNTER_PERIODS: [(&str, &[u32]); 4] = [
    ("minute_of_day", &[24, 60]),
    ("hour_of_day", &[24]),
    ("hour_of_week", &[7, 24]),
    ("day_of_year", &[366]),
];

/// Names people write for BSON types, and the type they mean.
const TYPE_ALIASES: [(&str, &str); 32] = [
    ("int", "int32"),
    ("integer", "int32"),
    ("i32", "int32"),
    ("i8", "int32"),
    ("i16", "int32"),
    ("u8", "int32"),
    ("u16", "int32"),
    ("short", "int32"),
    ("long", "int64"),
    ("i64", "int64"),
    ("u32", "int64"),
    ("u64", "int64"),
    ("usize", "int64"),
    ("isize", "int64"),
    ("bigint", "int64"),
    ("float", "double"),
    ("f32", "double"),
    ("f64", "double"),
    ("real", "double"),
    ("number", "double"),
    ("boolean", "bool"),
    ("datetime", "date"),
    ("time", "date"),
    ("str", "string"),
    ("text", "string"),
    ("char", "string"),
    ("varchar", "string"),
    ("decimal", "decimal128"),
    ("money", "decimal128"),
    ("currency", "decimal128"),
    ("bytes", "binary"),
    ("oid", "objectId"),
];

/// Names people write for a type that has no single equivalent, and what to write instead.
const TYPE_HELP: [(&[&str], &str); 5] = [
    (
        &["uuid", "guid"],
        "there is no UUID type: store it as a `string` (its text) or as `binary` (its 16 bytes)",
    ),
    (
        &[
            "json", "object", "dict", "document", "struct", "record", "any", "hash",
        ],
        "a field with known fields inside is a `value` type declared in the file (`value Address \
         { city: string }`, then `address: Address`); open-ended keys are a `map<type>`",
    ),
    (
        &["enum", "enumeration"],
        "an enumeration is a string that takes one of listed values: `status: one_of(\"open\", \
         \"closed\")`",
    ),
    (
        &["list", "array", "vec", "set", "seq"],
        "an array is written `[type]`, or `[type; N]` with at most N elements: `tags: [string]`",
    ),
    (
        &["map", "hashmap", "btreemap", "dictionary"],
        "a map is written `map<type>` (the keys are always strings): `scores: map<int32>`",
    ),
];
/// Resolves a type as written. `None` after reporting why it cannot be resolved.
pub(super) fn field_type(r: &mut Resolver<'_>, ty: &TypeExpr) -> Option<FieldType> {
    match &ty.kind {
        TypeExprKind::Named(name) => named(r, name),
        TypeExprKind::Array {
            elem,
            elem_optional,
            bound,
        } => {
            let elem = field_type(r, elem);
            let bound = match bound {
                Some(q) => Some(units::count(r, q, "the array bound")?),
                None => None,
            };
            Some(FieldType::Array {
                elem: Box::new(elem?),
                elem_optional: *elem_optional,
                bound,
            })
        }
        TypeExprKind::Map {
            value,
            value_optional,
            bound,
        } => {
            let value = field_type(r, value);
            let bound = match bound {
                Some(q) => Some(units::count(r, q, "the map bound")?),
                None => None,
            };
            Some(FieldType::Map {
                value: Box::new(value?),
                value_optional: *value_optional,
                bound,
            })
        }
        TypeExprKind::Counters(shape) => counters(r, shape),
        TypeExprKind::OneOf { values } => {
            super::enums::check(r, ty.span, values)?;
            Some(FieldType::Scalar {
                bson: BsonType::String,
            })
        }
    }
}

fn named(r: &mut Resolver<'_>, name: &Ident) -> Option<FieldType> {
    if let Some(bson) = BsonType::from_sqn(&name.name) {
        return Some(FieldType::Scalar { bson });
    }
    match r.scope.kind(&name.name) {
        Some(DeclKind::Value) => Some(FieldType::Value {
            name: name.name.clone(),
        }),
        Some(DeclKind::Entity) => {
            let mut d = Diagnostic::error(
                codes::ENTITY_AS_FIELD_TYPE,
                name.span,
                format!("`{}` is an entity and cannot be a field's type", name.name),
            )
            .with_label("an entity")
            .with_help(
                "declare a `relation` between the two entities; the engine then decides whether \
                 to embed it or to reference it",
            );
            if let Some(decl) = r.scope.decl(&name.name) {
                d = d.with_related(decl.name.span, "declared as an entity here");
            }
            r.report(d);
            None
        }
        None => {
            let alias = TYPE_ALIASES
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(&name.name))
                .map(|(_, ty)| *ty);
            let names: Vec<&str> = BsonType::ALL
                .iter()
                .map(|t| t.sqn_name())
                .chain(r.scope.names(DeclKind::Value))
                .collect();
            let special = super::words::meaning(&TYPE_HELP, &name.name);
            let close = alias.or_else(|| {
                special
                    .is_none()
                    .then(|| closest(&name.name, names.iter().copied()))
                    .flatten()
            });
            let help = close
                .map(|c| format!("did you mean `{c}`?"))
                .or_else(|| special.map(str::to_owned))
                .unwrap_or_else(|| {
                    format!(
                        "a field's type is a BSON type ({}) or a declared `value` type",
                        one_of(BsonType::ALL.iter().map(|t| t.sqn_name()))
                    )
                });
            r.report(
                Diagnostic::error(
                    codes::UNKNOWN_TYPE,
                    name.span,
                    format!("unknown type `{}`", name.name),
                )
                .with_label("neither a BSON type nor a declared value type")
                .with_help(help)
                .with_fix_from(close.map(|c| (name.span, c))),
            );
            None
        }
    }
}

fn counters(r: &mut Resolver<'_>, shape: &CountersShape) -> Option<FieldType> {
    match shape {
        CountersShape::Named(period) => {
            if let Some((_, dims)) = COUNTER_PERIODS.iter().find(|(p, _)| *p == period.name) {
                return Some(FieldType::Counters {
                    dims: dims.to_vec(),
                });
            }
            let names = COUNTER_PERIODS.iter().map(|(p, _)| *p);
            let mut help = format!(
                "the known periods are {}; or give the dimensions, like `counters(24 x 60)`",
                one_of(names.clone())
            );
            let close = closest(&period.name, names);
            if let Some(close) = close {
                help = format!("did you mean `{close}`? {help}");
            }
            r.report(
                Diagnostic::error(
                    codes::INVALID_COUNTERS,
                    period.span,
                    format!("unknown counters period `{}`", period.name),
                )
                .with_label("not a known period")
                .with_help(help)
                .with_fix_from(close.map(|c| (period.span, c))),
            );
            None
        }
        CountersShape::Dims(dims) => {
            let mut out = Vec::with_capacity(dims.len());
            for dim in dims {
                let n = units::count(r, dim, "a counters dimension")?;
                match u32::try_from(n) {
                    Ok(n) => out.push(n),
                    Err(_) => {
                        r.report(
                            Diagnostic::error(
                                codes::INVALID_COUNTERS,
                                dim.span,
                                format!("a counters dimension of {n} is too large"),
                            )
                            .with_label("more counters than a document can hold")
                            .with_help("split the counters over several documents"),
                        );
                        return None;
                    }
                }
            }
            let count = out
                .iter()
                .fold(1u64, |n, d| n.saturating_mul(u64::from(*d)));
            // Every counter is an 8-byte integer, before any name or framing.
            let bytes = count.saturating_mul(8);
            if bytes > r.doc_max_size {
                let span = match (dims.first(), dims.last()) {
                    (Some(a), Some(b)) => a.span.to(b.span),
                    _ => return None,
                };
                r.report(
                    Diagnostic::error(
                        codes::INVALID_COUNTERS,
                        span,
                        format!(
                            "these counters are {} 8-byte numbers, at least {}: more than a \
                             document can hold ({}, `doc_max_size`)",
                            crate::prose::thousands(count),
                            crate::prose::bytes(bytes),
                            crate::prose::bytes(r.doc_max_size)
                        ),
                    )
                    .with_label("more counters than a document can hold")
                    .with_help(
                        "split the counters over several documents: a bucket per period, or \
                         counters of a coarser grain",
                    ),
                );
                return None;
            }
            Some(FieldType::Counters { dims: out })
        }
    }
}
