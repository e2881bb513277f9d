//! How a relation's children are read: `page`, `latest`, `top`, `summary` and `time_range`, whose
//! fields are fields of the child entity (see [`crate::model::Relation::child`]).

use std::collections::BTreeMap;

use squillion_grammar::ast::{Direction, Fact, Ident, Quantity, SortSpec, SummaryItem};
use squillion_grammar::{Diagnostic, Span};

use super::facts::{field_list, Facts};
use super::fields::ID;
use super::names::{article, closest};
use super::words::unknown_word;
use super::{units, Resolver};
use crate::codes;
use crate::model::{BsonType, Field, Identity, OrderBy, RelationKind, Subset, Summary, SummaryFn};

pub(super) const SUMMARY_FNS: [SummaryFn; 5] = [
    SummaryFn::Count,
    SummaryFn::Total,
    SummaryFn::Max,
    SummaryFn::Min,
    SummaryFn::Avg,
];

impl Facts<'_> {
    /// Reports `fact` on a one-to-one relation; `true` when the relation has a side with many.
    pub(super) fn needs_many(&self, r: &mut Resolver<'_>, fact: &Fact, name: &str) -> bool {
        if self.rel.kind != RelationKind::OneToOne {
            return true;
        }
        r.report(
            Diagnostic::error(
                codes::NEEDS_MANY_SIDE,
                fact.span,
                format!(
                    "`{name}` in one-to-one relation `{}`: there is only ever one child",
                    self.rel.id
                ),
            )
            .with_label("nothing to choose among")
            .with_help(format!(
                "`{name}` is about many children of one parent; remove it, or give one end a \
                 cardinality like `few` or `many`"
            )),
        );
        false
    }

    /// The child's field named `name`, or `None` after reporting it.
    fn child_field(
        &self,
        r: &mut Resolver<'_>,
        name: &Ident,
        fact: &str,
    ) -> Option<ChildField<'_>> {
        let child = self.child?;
        if name.name == ID {
            let bson = match &child.identity {
                Identity::Natural { bson_type, .. } => *bson_type,
                Identity::ObjectId => BsonType::ObjectId,
            };
            return Some(ChildField::Id(bson));
        }
        let all: Vec<&Field> = child.all_fields().collect();
        if let Some(f) = all.iter().find(|f| f.name == name.name) {
            return Some(ChildField::Field(f));
        }
        let close = closest(&name.name, all.iter().map(|f| f.name.as_str()));
        let help = close
            .map(|c| format!("did you mean `{c}`?"))
            .unwrap_or_else(|| format!("the fields of `{}` are {}", child.name, field_list(&all)));
        r.report(
            Diagnostic::error(
                codes::UNKNOWN_FACT_FIELD,
                name.span,
                format!(
                    "`{fact}` names `{}`, which is not a field of `{}`, the child of relation `{}`",
                    name.name, child.name, self.rel.id
                ),
            )
            .with_label(format!("no such field in `{}`", child.name))
            .with_help(help)
            .with_fix_from(close.map(|c| (name.span, c))),
        );
        None
    }

    /// `by field [asc|desc]`, or `None` after reporting why the field cannot order the children.
    pub(super) fn order_by(
        &self,
        r: &mut Resolver<'_>,
        sort: &SortSpec,
        fact: &str,
    ) -> Option<OrderBy> {
        let field = self.child_field(r, &sort.field, fact)?;
        if let Some(ty) = field.bson(r) {
            if !ty.is_ordered() {
                r.report(self.type_mismatch(
                    &sort.field,
                    &field,
                    &format!(
                        "`{fact} ... by` orders the children, but `{}` values have no useful order",
                        ty.sqn_name()
                    ),
                    "order by a date, a number or a string",
                ));
                return None;
            }
        } else if field.untyped_or_unordered(r) {
            r.report(self.type_mismatch(
                &sort.field,
                &field,
                &format!("`{fact} ... by` orders the children by a single value"),
                "order by a date, a number or a string",
            ));
            return None;
        }
        Some(OrderBy {
            field: sort.field.name.clone(),
            descending: sort.direction == Some(Direction::Desc),
        })
    }

    pub(super) fn subset(
        &self,
        r: &mut Resolver<'_>,
        fact: &Fact,
        n: &Quantity,
        by: &SortSpec,
        keep: &[Ident],
        name: &str,
    ) -> Option<Subset> {
        let n = units::count(r, n, &format!("the count of `{name}`"));
        let by = self.order_by(r, by, name);
        let mut kept = Vec::new();
        let mut ok = true;
        for k in keep {
            // The child's id, or a relation end through which the child holds one other entity
            // (`keep user`: the reference is copied with the rest).
            let single_end = self.child.is_some_and(|c| {
                r.single_ends
                    .get(&c.name)
                    .is_some_and(|ends| ends.iter().any(|(end, _)| *end == k.name))
            });
            if k.name == "id" || single_end {
                kept.push(if k.name == "id" {
                    ID.to_owned()
                } else {
                    k.name.clone()
                });
            } else if self
                .child_field(r, k, &format!("{name} ... keep"))
                .is_some()
            {
                kept.push(k.name.clone());
            } else {
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        Some(Subset {
            n: n?,
            by: by?,
            keep: kept,
            span: fact.span,
        })
    }

    pub(super) fn summary(&self, r: &mut Resolver<'_>, items: &[SummaryItem]) -> Vec<Summary> {
        let mut out: Vec<Summary> = Vec::new();
        let mut seen: BTreeMap<String, Span> = BTreeMap::new();
        for item in items {
            let name = item.function.name.as_str();
            let Some(function) = SUMMARY_FNS.iter().copied().find(|f| f.as_str() == name) else {
                r.report(unknown_word(
                    codes::INVALID_SUMMARY,
                    &item.function,
                    &format!("unknown summary function `{name}`"),
                    "the summaries",
                    &[
                        "count",
                        "total(field)",
                        "max(field)",
                        "min(field)",
                        "avg(field)",
                    ],
                    super::words::SUMMARY_SYNONYMS,
                ));
                continue;
            };
            let key = match &item.field {
                Some(f) => format!("{name}({})", f.name),
                None => name.to_owned(),
            };
            if let Some(first) = seen.get(&key) {
                r.report(
                    Diagnostic::error(
                        codes::INVALID_SUMMARY,
                        item.span,
                        format!("`{key}` is listed twice in `summary`"),
                    )
                    .with_label("listed again")
                    .with_related(*first, "first listed here")
                    .with_help(format!("list `{key}` once")),
                );
                continue;
            }
            seen.insert(key, item.span);
            match (function, &item.field) {
                (SummaryFn::Count, None) => out.push(Summary {
                    function,
                    field: None,
                }),
                (SummaryFn::Count, Some(field)) => r.report(
                    Diagnostic::error(
                        codes::INVALID_SUMMARY,
                        item.span,
                        format!(
                            "`count` counts the children and takes no field, but `{}` is given",
                            field.name
                        ),
                    )
                    .with_label("no field here")
                    .with_help("write `count`"),
                ),
                (_, None) => r.report(
                    Diagnostic::error(
                        codes::INVALID_SUMMARY,
                        item.span,
                        format!("`{name}` needs a field of the children"),
                    )
                    .with_label("which field?")
                    .with_help(format!("write `{name}(field)`, like `{name}(value)`")),
                ),
                (_, Some(field)) => {
                    if self.summary_field(r, function, field) {
                        out.push(Summary {
                            function,
                            field: Some(field.name.clone()),
                        });
                    }
                }
            }
        }
        out
    }

    fn summary_field(&self, r: &mut Resolver<'_>, function: SummaryFn, name: &Ident) -> bool {
        let fact = format!("summary {}", function.as_str());
        let Some(field) = self.child_field(r, name, &fact) else {
            return false;
        };
        let Some(ty) = field.bson(r) else {
            if !field.untyped_or_unordered(r) {
                return true;
            }
            r.report(self.type_mismatch(
                name,
                &field,
                &format!("`{}` needs single values", function.as_str()),
                "summarise a numeric field",
            ));
            return false;
        };
        let fits = match function {
            SummaryFn::Total | SummaryFn::Count => ty.is_numeric(),
            // The mean is read as a float: total / count.
            SummaryFn::Avg => matches!(ty, BsonType::Int32 | BsonType::Int64 | BsonType::Double),
            SummaryFn::Max | SummaryFn::Min => {
                ty.is_numeric() || matches!(ty, BsonType::Date | BsonType::Timestamp)
            }
        };
        if !fits {
            let (what, help) = if function == SummaryFn::Total {
                (
                    "adds numbers",
                    "total a numeric field: int32, int64, double or decimal128",
                )
            } else if function == SummaryFn::Avg {
                (
                    "averages int32, int64 or double values",
                    "average an int32, int64 or double field; for decimal128, keep `total` and `count` and divide in decimal",
                )
            } else {
                ("compares numbers or dates", "use a numeric or date field")
            };
            r.report(self.type_mismatch(
                name,
                &field,
                &format!(
                    "`{}` {what}, but `{}` is {} `{}`",
                    function.as_str(),
                    name.name,
                    article(ty.sqn_name()),
                    ty.sqn_name()
                ),
                help,
            ));
            return false;
        }
        true
    }

    pub(super) fn time_range(&self, r: &mut Resolver<'_>, name: &Ident) -> Option<String> {
        let field = self.child_field(r, name, "time_range")?;
        let ty = match field.bson(r) {
            Some(ty) => ty,
            None if !field.untyped_or_unordered(r) => return Some(name.name.clone()),
            None => BsonType::Null,
        };
        if ty.is_numeric() || matches!(ty, BsonType::Date | BsonType::Timestamp) {
            return Some(name.name.clone());
        }
        r.report(self.type_mismatch(
            name,
            &field,
            "`time_range` reads children by a range of a date or number",
            "use a `date`, `timestamp` or numeric field",
        ));
        None
    }

    fn type_mismatch(
        &self,
        name: &Ident,
        field: &ChildField<'_>,
        message: &str,
        help: &str,
    ) -> Diagnostic {
        let mut d = Diagnostic::error(codes::FACT_FIELD_TYPE, name.span, message.to_owned())
            .with_label(format!(
                "`{}` is {} `{}`",
                name.name,
                article(&field.sqn()),
                field.sqn()
            ))
            .with_help(help.to_owned());
        if let ChildField::Field(f) = field {
            d = d.with_related(f.span, "declared here");
        }
        d
    }
}

/// A field of the child named by a fact: a declared field, or `_id`.
enum ChildField<'f> {
    Field(&'f Field),
    Id(BsonType),
}

impl ChildField<'_> {
    /// The scalar type, if it is one and known.
    fn bson(&self, r: &Resolver<'_>) -> Option<BsonType> {
        match self {
            ChildField::Id(t) => Some(*t),
            ChildField::Field(f) if r.typed(f) => f.ty.scalar(),
            ChildField::Field(_) => None,
        }
    }

    /// Whether the field is typed and not a scalar (so a type error is due).
    fn untyped_or_unordered(&self, r: &Resolver<'_>) -> bool {
        match self {
            ChildField::Id(_) => false,
            ChildField::Field(f) => r.typed(f) && f.ty.scalar().is_none(),
        }
    }

    fn sqn(&self) -> String {
        match self {
            ChildField::Id(t) => t.sqn_name().to_owned(),
            ChildField::Field(f) => f.ty.sqn(),
        }
    }
}
