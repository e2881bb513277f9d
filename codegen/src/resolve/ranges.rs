//! `@range(min, max)`: the smallest and largest value of a number field, both included.
//!
//! The bounds are plain numbers (a sign allowed, no unit), whole for integer types and within the
//! values the type holds, the smallest first; a `@counter` never goes below 0, so its range starts
//! at 0 or more. The field (or each element of an array or map) must be a number.

use squillion_grammar::ast::{Attr, FieldDecl, Quantity, Value};
use squillion_grammar::Diagnostic;

use super::names::article;
use super::{attrs, units, Resolver};
use crate::codes;
use crate::model::{BsonType, FieldType, NumberRange};

/// The form of the attribute, for messages.
const FORM: &str = "@range(1, 5)";

/// One bound as the resolver reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    Whole(i64),
    Real(f64),
}

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            Bound::Whole(n) => n as f64,
            Bound::Real(v) => v,
        }
    }

    fn number(self) -> Option<serde_json::Number> {
        match self {
            Bound::Whole(n) => Some(serde_json::Number::from(n)),
            Bound::Real(v) => serde_json::Number::from_f64(v),
        }
    }

    /// `a > b`, exact for two whole numbers.
    fn above(self, other: Bound) -> bool {
        match (self, other) {
            (Bound::Whole(a), Bound::Whole(b)) => a > b,
            (a, b) => a.as_f64() > b.as_f64(),
        }
    }
}

/// The number type a range applies to: the field's, or its elements' (arrays, maps).
pub(super) fn numeric_element(ty: &FieldType) -> Option<BsonType> {
    match ty {
        FieldType::Scalar { bson } if bson.is_numeric() => Some(*bson),
        FieldType::Array { elem, .. } => numeric_element(elem),
        FieldType::Map { value, .. } => numeric_element(value),
        _ => None,
    }
}

/// The values of an integer type, `None` for the others.
fn integer_limits(bson: BsonType) -> Option<(i64, i64)> {
    match bson {
        BsonType::Int32 => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
        BsonType::Int64 => Some((i64::MIN, i64::MAX)),
        _ => None,
    }
}

/// Resolves `@range` on `field` of type `ty` (`None` when unknown); `counter` is its `@counter`,
/// if any. Reports every problem and returns `None` unless the range is usable.
pub(super) fn range(
    r: &mut Resolver<'_>,
    attr: &Attr,
    field: &FieldDecl,
    ty: Option<&FieldType>,
    counter: Option<&Attr>,
) -> Option<NumberRange> {
    let (min_q, max_q) = arguments(r, attr)?;
    let elem = match ty {
        Some(ty) => match numeric_element(ty) {
            Some(bson) => Some(bson),
            None => {
                r.report(not_a_number(attr, field, ty));
                return None;
            }
        },
        None => None,
    };
    let min = bound(r, min_q, elem, "smallest");
    let max = bound(r, max_q, elem, "largest");
    let (min, max) = (min?, max?);
    if min.above(max) {
        r.report(
            Diagnostic::error(
                codes::INVALID_RANGE,
                attr.span,
                format!(
                    "`@range({}, {})` of field `{}` starts above its end: the smallest value comes first",
                    min_q.number, max_q.number, field.name.name
                ),
            )
            .with_label("the smallest value is larger than the largest")
            .with_help(format!(
                "write `@range({}, {})`",
                max_q.number, min_q.number
            )),
        );
        return None;
    }
    if let Some(counter) = counter {
        if Bound::Whole(0).above(min) {
            r.report(
                Diagnostic::error(
                    codes::INVALID_RANGE,
                    min_q.span,
                    format!(
                        "`@range` lets counter `{}` go down to {}, below 0, the floor of `@counter`",
                        field.name.name, min_q.number
                    ),
                )
                .with_label("below 0")
                .with_related(counter.span, "a counter's guarded `dec_` never goes below 0")
                .with_help(format!(
                    "start the range at 0 or more (`@range(0, {})`), or remove `@counter`",
                    max_q.number
                )),
            );
            return None;
        }
    }
    Some(NumberRange {
        min: min.number()?,
        max: max.number()?,
    })
}

/// The two bounds, unnamed or named `min:` and `max:`, without units.
fn arguments<'a>(r: &mut Resolver<'_>, attr: &'a Attr) -> Option<(&'a Quantity, &'a Quantity)> {
    let [first, second] = attr.args.as_slice() else {
        r.report(attrs::arguments(
            attr,
            "takes two numbers, the smallest and the largest value",
        ));
        return None;
    };
    let mut out = Vec::new();
    for (arg, expected) in [(first, "min"), (second, "max")] {
        if let Some(given) = &arg.name {
            if given.name != expected {
                let mut d = attrs::arguments(
                    attr,
                    &format!(
                        "has no argument `{}` here: its arguments are `min` and `max`, in that order",
                        given.name
                    ),
                );
                d.span = given.span;
                r.report(d);
                return None;
            }
        }
        match &arg.value {
            Value::Quantity(q) => out.push(q),
            other => {
                let mut d = attrs::arguments(attr, "takes two numbers");
                d.span = other.span();
                r.report(d.with_label("not a number"));
                return None;
            }
        }
    }
    let (min, max) = (out[0], out[1]);
    let units_ok = units::no_unit(r, min, "a bound of `@range`", "a number")
        & units::no_unit(r, max, "a bound of `@range`", "a number");
    units_ok.then_some((min, max))
}

/// One bound, checked against the type `elem` holds (when known).
fn bound(r: &mut Resolver<'_>, q: &Quantity, elem: Option<BsonType>, which: &str) -> Option<Bound> {
    let whole = !q.number.contains('.');
    let limits = elem.and_then(integer_limits);
    if let (Some(_), false, Some(bson)) = (limits, whole, elem) {
        r.report(
            Diagnostic::error(
                codes::INVALID_RANGE,
                q.span,
                format!(
                    "the {which} value of `@range` on {} `{}` must be a whole number, not `{}`",
                    article(bson.sqn_name()),
                    bson.sqn_name(),
                    q.number
                ),
            )
            .with_label("a fraction")
            .with_help(format!(
                "write a whole number, or make the field a `double` or `decimal128`; `{FORM}` is a range of whole numbers"
            )),
        );
        return None;
    }
    let read = if whole {
        q.number.parse::<i64>().ok().map(Bound::Whole)
    } else {
        None
    };
    let read = read.or_else(|| {
        // Beyond an int64 (or a fraction): a real number, exact enough for doubles.
        let v = q.number.parse::<f64>().ok().filter(|v| v.is_finite())?;
        (limits.is_none()).then_some(Bound::Real(v))
    });
    let in_type = match (read, limits) {
        (Some(Bound::Whole(n)), Some((lo, hi))) => (lo..=hi).contains(&n),
        (Some(_), _) => true,
        (None, _) => false,
    };
    if in_type {
        return read;
    }
    let (what, help) = match (elem, limits) {
        (Some(bson), Some((lo, hi))) => (
            format!("{} `{}`", article(bson.sqn_name()), bson.sqn_name()),
            format!(
                "an `{}` holds {lo} to {hi}: write a bound within it{}",
                bson.sqn_name(),
                if bson == BsonType::Int32 {
                    ", or make the field an `int64`"
                } else {
                    ", or make the field a `double` or `decimal128`"
                }
            ),
        ),
        _ => (
            "a number".to_owned(),
            "write a bound a `double` can hold".to_owned(),
        ),
    };
    r.report(
        Diagnostic::error(
            codes::INVALID_RANGE,
            q.span,
            format!(
                "the {which} value of `@range`, `{}`, does not fit {what}",
                q.number
            ),
        )
        .with_label("out of the type's range")
        .with_help(help),
    );
    None
}

fn not_a_number(attr: &Attr, field: &FieldDecl, ty: &FieldType) -> Diagnostic {
    Diagnostic::error(
        codes::ATTRIBUTE_TYPE_MISMATCH,
        attr.span,
        format!(
            "`@range` does not fit field `{}` of type `{}`: only numbers have a range",
            field.name.name,
            ty.sqn()
        ),
    )
    .with_label(format!("on {} `{}`", article(&ty.sqn()), ty.sqn()))
    .with_related(field.ty.span, "the field's type")
    .with_help(
        "remove `@range`, or make the field a number (`int32`, `int64`, `double` or `decimal128`)",
    )
}
