//! Type expressions: BSON types, value types, arrays, maps and counters; value types that contain
//! themselves.

use squillion_grammar::ast::{CountersShape, Ident, TypeExpr, TypeExprKind};
use squillion_grammar::Diagnostic;

use super::names::{closest, did_you_mean, one_of, DeclKind};
use super::{units, Resolver};
use crate::codes;
use crate::model::{BsonType, FieldType, ValueType};

/// The named periods of `counters(...)` and their dimensions.
pub(super) const COUNTER_PERIODS: [(&str, &[u32]); 4] = [
    ("minute_of_day", &[24, 60]),
    ("hour_of_day", &[24]),
    ("hour_of_week", &[7, 24]),
    ("day_of_year", &[366]),
];

/// Names people write for BSON types, and the type they mean.
const TYPE_ALIASES: [(&str, &str); 14] = [
    ("int", "int32"),
    ("integer", "int32"),
    ("i32", "int32"),
    ("long", "int64"),
    ("i64", "int64"),
    ("float", "double"),
    ("f64", "double"),
    ("number", "double"),
    ("boolean", "bool"),
    ("datetime", "date"),
    ("str", "string"),
    ("text", "string"),
    ("decimal", "decimal128"),
    ("bytes", "binary"),
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
        TypeExprKind::Map { value, .. } => Some(FieldType::Map {
            value: Box::new(field_type(r, value)?),
        }),
        TypeExprKind::Counters(shape) => counters(r, shape),
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
                .map(|(_, ty)| format!("did you mean `{ty}`?"));
            let names: Vec<&str> = BsonType::ALL
                .iter()
                .map(|t| t.sqn_name())
                .chain(r.scope.names(DeclKind::Value))
                .collect();
            let help = alias
                .or_else(|| did_you_mean(&name.name, names.iter().copied()))
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
                .with_help(help),
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
            if let Some(close) = closest(&period.name, names) {
                help = format!("did you mean `{close}`? {help}");
            }
            r.report(
                Diagnostic::error(
                    codes::INVALID_COUNTERS,
                    period.span,
                    format!("unknown counters period `{}`", period.name),
                )
                .with_label("not a known period")
                .with_help(help),
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
            Some(FieldType::Counters { dims: out })
        }
    }
}

/// The value types a type mentions (through arrays and maps).
pub(super) fn value_names(ty: &FieldType) -> Vec<&str> {
    match ty {
        FieldType::Value { name } => vec![name.as_str()],
        FieldType::Array { elem, .. } => value_names(elem),
        FieldType::Map { value } => value_names(value),
        FieldType::Scalar { .. } | FieldType::Counters { .. } => Vec::new(),
    }
}

/// Reports value types that contain themselves, directly or through other value types. Each
/// cycle is reported once, at its first-declared value type.
pub(super) fn check_cycles(r: &mut Resolver<'_>, values: &[ValueType]) {
    for (start, value) in values.iter().enumerate() {
        let Some(path) = cycle_from(values, start) else {
            continue;
        };
        // Reported at the earliest member of the cycle.
        if path.iter().any(|&(v, _)| v < start) {
            continue;
        }
        let names: Vec<&str> = path
            .iter()
            .map(|&(v, f)| values[v].fields[f].name.as_str())
            .collect();
        let route: Vec<String> = path
            .iter()
            .map(|&(v, f)| format!("{}.{}", values[v].name, values[v].fields[f].name))
            .collect();
        let (v0, f0) = path[0];
        let first = &values[v0].fields[f0];
        let mut d = Diagnostic::error(
            codes::VALUE_TYPE_CYCLE,
            first.span,
            format!(
                "value type `{}` contains itself: {} -> {}",
                value.name,
                route.join(" -> "),
                value.name
            ),
        )
        .with_label(format!(
            "`{}` holds {}",
            names[0],
            describe_next(values, &path, 0)
        ))
        .with_help(
            "a value has a finite shape; to nest things without end (replies to replies), \
             declare an entity and relate it to itself",
        );
        for (i, &(v, f)) in path.iter().enumerate().skip(1) {
            d = d.with_related(
                values[v].fields[f].span,
                format!("which holds {}", describe_next(values, &path, i)),
            );
        }
        r.report(d);
    }
}

fn describe_next(values: &[ValueType], path: &[(usize, usize)], i: usize) -> String {
    let next = path.get(i + 1).map(|&(v, _)| v).unwrap_or(path[0].0);
    format!("`{}`", values[next].name)
}

/// A path of (value, field) steps from `start` back to `start`, if there is one.
fn cycle_from(values: &[ValueType], start: usize) -> Option<Vec<(usize, usize)>> {
    let index = |name: &str| values.iter().position(|v| v.name == name);
    let mut visited = vec![false; values.len()];
    let mut path = Vec::new();
    fn walk(
        values: &[ValueType],
        index: &dyn Fn(&str) -> Option<usize>,
        at: usize,
        start: usize,
        visited: &mut [bool],
        path: &mut Vec<(usize, usize)>,
    ) -> bool {
        for (f, field) in values[at].fields.iter().enumerate() {
            for name in value_names(&field.ty) {
                let Some(next) = index(name) else { continue };
                path.push((at, f));
                if next == start {
                    return true;
                }
                if !visited[next] {
                    visited[next] = true;
                    if walk(values, index, next, start, visited, path) {
                        return true;
                    }
                }
                path.pop();
            }
        }
        false
    }
    walk(values, &index, start, start, &mut visited, &mut path).then_some(path)
}
