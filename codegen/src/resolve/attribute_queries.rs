//! `where attrs has (k == ?, v <op> ?)`: a condition on one attribute of an `@attributes` map,
//! checked against the map (it must be one of the queried entity's own `map<T> @attributes`
//! fields) and the map's value type `T` (the comparison must fit it).

use squillion_grammar::ast::{self, AttributeKey, Operator};
use squillion_grammar::Diagnostic;

use super::names::article;
use super::query_paths::{End, Paths};
use super::Resolver;
use crate::codes;
use crate::model::{BsonType, Condition, FieldPath, FieldType};

impl Paths<'_> {
    /// The condition `cond` (`path has (k <key> ?, v <op> ?)`), or `None` after reporting what is
    /// wrong with it (E0512, E0513, E0502).
    pub(super) fn attribute_condition(
        &self,
        r: &mut Resolver<'_>,
        cond: &ast::Condition,
        key: &AttributeKey,
    ) -> Option<Condition> {
        let key_ok = key.op == Operator::Eq;
        if !key_ok {
            r.report(
                Diagnostic::error(
                    codes::ATTRIBUTE_KEY_COMPARISON,
                    key.span,
                    format!(
                        "`has` names one attribute by its key, but the key is compared with `{}`",
                        key.op.as_str()
                    ),
                )
                .with_label("the key is compared with `==`")
                .with_help(
                    "write `k == ?` and compare the attribute's value with `v`: \
                     `has (k == ?, v != ?)`",
                ),
            );
        }
        let (path, end) = self.resolve(r, &cond.path)?;
        let dotted = path.dotted();
        let field = match end {
            End::Field(f) if path.through.is_none() && path.segments.len() == 1 => Some(f),
            _ => None,
        };
        let value = match field.map(|f| (f, &f.ty)) {
            Some((f, FieldType::Map { value, .. })) if f.facts.attributes => value,
            Some((f, _)) if !r.typed(f) => return None,
            other => {
                let help = match other {
                    Some((f, FieldType::Map { .. })) => format!(
                        "mark it `{}: {} @attributes`: the map is then stored as `[{{k, v}}]` \
                         with one index on `k` and `v`, which serves `has`",
                        f.name,
                        f.ty.sqn()
                    ),
                    Some((f, ty)) => format!(
                        "`{}` is {} `{}`: compare it with `==`, `<` or `in`, without `has`",
                        f.name,
                        article(&ty.sqn()),
                        ty.sqn()
                    ),
                    None if path.through.is_some() => format!(
                        "`has` reads an `@attributes` map of the queried entity `{}` itself: \
                         query the other entity for its attributes",
                        self.entity.name
                    ),
                    None => format!(
                        "`has` reads a `map<T> @attributes` field of the queried entity `{}` \
                         itself, not one inside a value type",
                        self.entity.name
                    ),
                };
                r.report(
                    Diagnostic::error(
                        codes::NOT_AN_ATTRIBUTES_MAP,
                        cond.path.span,
                        format!(
                            "`has` finds an attribute of an `@attributes` map, but `{dotted}` is not one"
                        ),
                    )
                    .with_label("not a `map<T> @attributes` field of the queried entity")
                    .with_help(help),
                );
                return None;
            }
        };
        let Some(bson) = value.scalar() else {
            r.report(
                Diagnostic::error(
                    codes::OPERATOR_TYPE_MISMATCH,
                    cond.span,
                    format!(
                        "`has` compares an attribute's value, but the values of `{dotted}` are `{}`, \
                         which is not a scalar",
                        value.sqn()
                    ),
                )
                .with_label(format!("the values of `{dotted}` are `{}`", value.sqn()))
                .with_help("query attributes whose values are strings, numbers, dates or bools"),
            );
            return None;
        };
        if let Some((message, help)) = value_mismatch(cond.op, bson, &dotted) {
            r.report(
                Diagnostic::error(codes::OPERATOR_TYPE_MISMATCH, cond.span, message)
                    .with_label(format!(
                        "the values of `{dotted}` are {} `{}`",
                        article(bson.sqn_name()),
                        bson.sqn_name()
                    ))
                    .with_help(help),
            );
            return None;
        }
        if !key_ok {
            return None;
        }
        Some(Condition {
            path: FieldPath {
                bson_type: Some(bson),
                ..path
            },
            op: cond.op,
            ignore_case: false,
            span: cond.span,
            attribute: true,
        })
    }
}

/// Why `v <op> ?` does not fit values of type `bson` (message, help), if it does not.
fn value_mismatch(op: Operator, bson: BsonType, dotted: &str) -> Option<(String, &'static str)> {
    let described = format!("{} `{}`", article(bson.sqn_name()), bson.sqn_name());
    match op {
        Operator::Near | Operator::Within => Some((
            format!(
                "`{}` finds geospatial points, which an attribute's value cannot be searched for \
                 (`$elemMatch` takes no `$near`)",
                op.as_str()
            ),
            "compare the value with `==`, `<` or `between`, or declare a `point` field on the \
             entity for the place",
        )),
        Operator::StartsWith if bson != BsonType::String => Some((
            format!("`starts_with` matches strings, but the values of `{dotted}` are {described}"),
            "compare the value with `==`, or declare the map `map<string> @attributes`",
        )),
        Operator::Lt | Operator::Le | Operator::Gt | Operator::Ge | Operator::Between
            if !bson.is_ordered() =>
        {
            Some((
                format!(
                    "`{}` compares ordered values, but the values of `{dotted}` are {described}, \
                     which has no useful order",
                    op.as_str()
                ),
                "compare the value with `==`, `!=` or `in`",
            ))
        }
        _ => None,
    }
}
