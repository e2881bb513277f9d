//! The facts of a relation's body: who is read on its own, what is shown where, how it grows, how
//! the children are read, and what is forced.

use std::collections::BTreeMap;

use squillion_grammar::ast::{
    Direction, Fact, FactKind, Ident, Path, Quantity, RelationDecl, SortSpec, SummaryItem,
};
use squillion_grammar::{Diagnostic, Span};

use super::fields::{self, Owner, ID};
use super::names::{all_of, article, closest, one_of};
use super::{units, Resolver};
use crate::codes;
use crate::model::{
    BsonType, Entity, Field, FieldType, Forced, Layout, Model, Navigate, OrderBy, Page, Relation,
    RelationFacts, RelationKind, Show, Side, Subset, Summary, SummaryFn,
};

/// The kinds of `growth`.
const GROWTH: [&str; 2] = ["append_heavy", "unbounded"];

const SUMMARY_FNS: [SummaryFn; 4] = [
    SummaryFn::Count,
    SummaryFn::Total,
    SummaryFn::Max,
    SummaryFn::Min,
];

/// What a relation's body states, and the fields it carries.
pub(super) fn resolve(
    r: &mut Resolver<'_>,
    model: &Model,
    decl: &RelationDecl,
    rel: &Relation,
    entities: [Option<&Entity>; 2],
) -> (RelationFacts, Vec<Field>) {
    let child = match rel.parent_side() {
        Side::Left => entities[1],
        Side::Right => entities[0],
    };
    let cx = Facts {
        model,
        rel,
        entities,
        child,
    };
    let mut facts = RelationFacts::default();
    let mut fields = Vec::new();
    let mut first_of: BTreeMap<&'static str, Span> = BTreeMap::new();
    for fact in &decl.facts {
        let kind = fact_name(&fact.kind);
        let repeatable = matches!(fact.kind, FactKind::Standalone(_) | FactKind::Show { .. });
        if !repeatable {
            if let Some(first) = first_of.get(kind) {
                r.report(
                    Diagnostic::error(
                        codes::REPEATED_FACT,
                        fact.span,
                        format!("`{kind}` is stated twice in relation `{}`", rel.id),
                    )
                    .with_label("stated again")
                    .with_related(*first, "first stated here")
                    .with_help(format!("state `{kind}` once, with everything it says")),
                );
                continue;
            }
            first_of.insert(kind, fact.span);
        }
        cx.fact(r, fact, &mut facts, &mut fields);
    }
    (facts, fields)
}

fn fact_name(kind: &FactKind) -> &'static str {
    match kind {
        FactKind::Standalone(_) => "standalone",
        FactKind::Show { .. } => "show",
        FactKind::Navigate(_) => "navigate",
        FactKind::Growth(_) => "growth",
        FactKind::AtomicMove => "atomic_move",
        FactKind::Page { .. } => "page",
        FactKind::Latest { .. } => "latest",
        FactKind::Top { .. } => "top",
        FactKind::Summary(_) => "summary",
        FactKind::TimeRange(_) => "time_range",
        FactKind::Force { .. } => "force",
        FactKind::Fields(_) => "fields",
    }
}

/// The relation being resolved, and its entities where they exist.
struct Facts<'m> {
    model: &'m Model,
    rel: &'m Relation,
    /// Left and right entities.
    entities: [Option<&'m Entity>; 2],
    /// The child's entity (see [`Relation::child`]).
    child: Option<&'m Entity>,
}

impl Facts<'_> {
    fn fact(
        &self,
        r: &mut Resolver<'_>,
        fact: &Fact,
        facts: &mut RelationFacts,
        fields: &mut Vec<Field>,
    ) {
        match &fact.kind {
            FactKind::Standalone(entity) => {
                if self.is_end(r, entity, "`standalone`")
                    && !facts.standalone.contains(&entity.name)
                {
                    facts.standalone.push(entity.name.clone());
                }
            }
            FactKind::Show { fields, on, ratio } => {
                let ratio = ratio
                    .as_ref()
                    .and_then(|q| units::ratio(r, q, "the ratio of `show`"));
                if let Some(show) = self.show(r, fields, on, fact.span) {
                    facts.shows.push(Show { ratio, ..show });
                }
            }
            FactKind::Navigate(target) => {
                if target.name == "both" {
                    facts.navigate = Navigate::Both;
                } else if self.is_end(r, target, "`navigate` (or `both`)") {
                    facts.navigate = Navigate::Entity(target.name.clone());
                }
            }
            FactKind::Growth(kinds) => {
                for kind in kinds {
                    match kind.name.as_str() {
                        "append_heavy" => facts.append_heavy = true,
                        "unbounded" => facts.unbounded = true,
                        other => r.report(unknown_word(
                            codes::UNKNOWN_GROWTH,
                            kind,
                            &format!("unknown growth kind `{other}`"),
                            "the growth kinds",
                            &GROWTH,
                        )),
                    }
                }
            }
            FactKind::AtomicMove => {
                if self.rel.kind == RelationKind::ManyToMany {
                    r.report(
                        Diagnostic::error(
                            codes::ATOMIC_MOVE_MANY_TO_MANY,
                            fact.span,
                            format!(
                                "`atomic_move` in many-to-many relation `{}`: a child has no \
                                 single parent to move from",
                                self.rel.id
                            ),
                        )
                        .with_label("no single parent")
                        .with_help(
                            "`atomic_move` says a child moves from one parent to another; in a \
                             many-to-many relation, links are added and removed instead: remove it",
                        ),
                    );
                } else {
                    facts.atomic_move = true;
                }
            }
            FactKind::Page { size, by } => {
                if self.needs_many(r, fact, "page") {
                    let size = units::count(r, size, "the page size");
                    // `None`: no order written; `Some(None)`: an order that does not resolve.
                    let by = by.as_ref().map(|s| self.order_by(r, s, "page"));
                    if let (Some(size), false) = (size, matches!(by, Some(None))) {
                        facts.page = Some(Page {
                            size,
                            by: by.flatten(),
                            span: fact.span,
                        });
                    }
                }
            }
            FactKind::Latest { n, by, keep } => {
                if self.needs_many(r, fact, "latest") {
                    facts.latest = self.subset(r, fact, n, by, keep, "latest");
                }
            }
            FactKind::Top { n, by, keep } => {
                if self.needs_many(r, fact, "top") {
                    facts.top = self.subset(r, fact, n, by, keep, "top");
                }
            }
            FactKind::Summary(items) => {
                if self.needs_many(r, fact, "summary") {
                    facts.summary = self.summary(r, items);
                }
            }
            FactKind::TimeRange(field) => {
                facts.time_range = self.time_range(r, field);
            }
            FactKind::Force { layout, arg } => {
                facts.force = force(r, layout, arg.as_ref(), fact.span);
            }
            FactKind::Fields(decls) => {
                *fields = fields::fields(r, decls, Owner::Relation(&self.rel.id));
            }
        }
    }

    fn ends(&self) -> [&str; 2] {
        [&self.rel.left.entity, &self.rel.right.entity]
    }

    fn self_relation(&self) -> bool {
        self.rel.left.entity == self.rel.right.entity
    }

    /// Whether `entity` is at one of the ends; reports it otherwise.
    fn is_end(&self, r: &mut Resolver<'_>, entity: &Ident, fact: &str) -> bool {
        let ends = self.ends();
        if ends.contains(&entity.name.as_str()) {
            return true;
        }
        let help = match closest(&entity.name, ends) {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!("write {}", one_of(ends)),
        };
        r.report(
            Diagnostic::error(
                codes::NOT_A_RELATION_ENTITY,
                entity.span,
                format!(
                    "{fact} names `{}`, which is not an end of relation `{}`",
                    entity.name, self.rel.id
                ),
            )
            .with_label(format!("expected {}", one_of(ends)))
            .with_help(help),
        );
        false
    }

    fn entity(&self, name: &str) -> Option<&Entity> {
        self.entities
            .iter()
            .flatten()
            .copied()
            .find(|e| e.name == name)
    }

    fn show(&self, r: &mut Resolver<'_>, paths: &[Path], on: &Ident, span: Span) -> Option<Show> {
        let on_ok = self.is_end(r, on, "`show ... on`");
        let mut from: Option<&Ident> = None;
        let mut fields = Vec::new();
        let mut ok = on_ok;
        for path in paths {
            let [entity, rest @ ..] = path.segments.as_slice() else {
                continue;
            };
            if rest.is_empty() {
                let other = self
                    .ends()
                    .into_iter()
                    .find(|e| *e != on.name)
                    .unwrap_or(self.rel.left.entity.as_str());
                r.report(
                    Diagnostic::error(
                        codes::UNKNOWN_FACT_FIELD,
                        path.span,
                        format!("`show` names `{}` without its entity", entity.name),
                    )
                    .with_label("expected `Entity.field`")
                    .with_help(format!("write `{other}.{}`", entity.name)),
                );
                ok = false;
                continue;
            }
            if let Some(first) = from {
                if first.name != entity.name {
                    r.report(
                        Diagnostic::error(
                            codes::NOT_A_RELATION_ENTITY,
                            entity.span,
                            format!(
                                "one `show` fact shows fields of one entity, but names `{}` and `{}`",
                                first.name, entity.name
                            ),
                        )
                        .with_label("another entity")
                        .with_related(first.span, "the first")
                        .with_help("write one `show` fact per entity"),
                    );
                    ok = false;
                    continue;
                }
            } else {
                if !self.is_end(r, entity, "`show`") {
                    ok = false;
                    from = Some(entity);
                    continue;
                }
                if on_ok && entity.name == on.name && !self.self_relation() {
                    r.report(
                        Diagnostic::error(
                            codes::NOT_A_RELATION_ENTITY,
                            on.span,
                            format!(
                                "`show` shows fields of `{}` on `{}` itself",
                                entity.name, on.name
                            ),
                        )
                        .with_label("the same entity")
                        .with_related(entity.span, "the fields' entity")
                        .with_help(
                            "`show A.f on B` says the fields of one side are shown with the \
                             other side: name the other entity after `on`",
                        ),
                    );
                    ok = false;
                }
                from = Some(entity);
            }
            if let Some(e) = self.entity(&entity.name) {
                if !self.model_path(r, e, rest) {
                    ok = false;
                }
            }
            let names: Vec<&str> = rest.iter().map(|s| s.name.as_str()).collect();
            fields.push(names.join("."));
        }
        let from = from?;
        ok.then(|| Show {
            from: from.name.clone(),
            fields,
            on: on.name.clone(),
            ratio: None,
            span,
        })
    }

    /// Whether `segments` name a field of `entity` (through value types); reports it otherwise.
    fn model_path(&self, r: &mut Resolver<'_>, entity: &Entity, segments: &[Ident]) -> bool {
        let mut fields: Vec<&Field> = entity
            .fields
            .iter()
            .chain(entity.variants.iter().flat_map(|v| v.fields.iter()))
            .collect();
        let mut owner = format!("entity `{}`", entity.name);
        for (i, seg) in segments.iter().enumerate() {
            let Some(field) = fields.iter().copied().find(|f| f.name == seg.name) else {
                let help = closest(&seg.name, fields.iter().map(|f| f.name.as_str()))
                    .map(|c| format!("did you mean `{c}`?"))
                    .unwrap_or_else(|| {
                        format!("the fields of {owner} are {}", field_list(&fields))
                    });
                r.report(
                    Diagnostic::error(
                        codes::UNKNOWN_FACT_FIELD,
                        seg.span,
                        format!("{owner} has no field `{}`", seg.name),
                    )
                    .with_label("no such field")
                    .with_help(help),
                );
                return false;
            };
            if i + 1 == segments.len() {
                return true;
            }
            let mut ty = &field.ty;
            while let FieldType::Array { elem, .. } = ty {
                ty = elem;
            }
            let FieldType::Value { name } = ty else {
                r.report(
                    Diagnostic::error(
                        codes::UNKNOWN_FACT_FIELD,
                        segments[i + 1].span,
                        format!(
                            "field `{}` is {} `{}`, which has no field `{}`",
                            field.name,
                            article(&field.ty.sqn()),
                            field.ty.sqn(),
                            segments[i + 1].name
                        ),
                    )
                    .with_label("nothing to look into")
                    .with_help(format!("write the path up to `{}`", field.name)),
                );
                return false;
            };
            let Some(value) = self.model.value(name) else {
                return true;
            };
            owner = format!("value type `{}`", value.name);
            fields = value.fields.iter().collect();
        }
        true
    }

    /// Reports `fact` on a one-to-one relation; `true` when the relation has a side with many.
    fn needs_many(&self, r: &mut Resolver<'_>, fact: &Fact, name: &str) -> bool {
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
                crate::model::Identity::Natural { bson_type, .. } => *bson_type,
                crate::model::Identity::ObjectId => BsonType::ObjectId,
            };
            return Some(ChildField::Id(bson));
        }
        let all: Vec<&Field> = child
            .fields
            .iter()
            .chain(child.variants.iter().flat_map(|v| v.fields.iter()))
            .collect();
        if let Some(f) = all.iter().find(|f| f.name == name.name) {
            return Some(ChildField::Field(f));
        }
        let help = closest(&name.name, all.iter().map(|f| f.name.as_str()))
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
            .with_help(help),
        );
        None
    }

    /// `by field [asc|desc]`, or `None` after reporting why the field cannot order the children.
    fn order_by(&self, r: &mut Resolver<'_>, sort: &SortSpec, fact: &str) -> Option<OrderBy> {
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

    fn subset(
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
            if self
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

    fn summary(&self, r: &mut Resolver<'_>, items: &[SummaryItem]) -> Vec<Summary> {
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
                    &["count", "total(field)", "max(field)", "min(field)"],
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

    fn time_range(&self, r: &mut Resolver<'_>, name: &Ident) -> Option<String> {
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

fn force(
    r: &mut Resolver<'_>,
    layout: &Ident,
    arg: Option<&Quantity>,
    span: Span,
) -> Option<Forced> {
    let Some(found) = Layout::from_name(&layout.name) else {
        let names: Vec<&str> = Layout::ALL.iter().map(|l| l.as_str()).collect();
        r.report(unknown_word(
            codes::UNKNOWN_LAYOUT,
            layout,
            &format!("unknown layout `{}`", layout.name),
            "the layouts",
            &names,
        ));
        return None;
    };
    let size = match (found, arg) {
        (Layout::Bucket, Some(q)) => Some(units::count(r, q, "the bucket size")?),
        (_, None) => None,
        (other, Some(q)) => {
            r.report(
                Diagnostic::error(
                    codes::FORCE_ARGUMENT,
                    q.span,
                    format!("layout `{}` takes no size", other.as_str()),
                )
                .with_label("only `bucket` takes a size")
                .with_help(format!(
                    "write `force {}`, or `force bucket({})`",
                    other.as_str(),
                    q.number
                )),
            );
            return None;
        }
    };
    Some(Forced {
        layout: found,
        size,
        span,
    })
}

fn unknown_word(
    code: &'static str,
    word: &Ident,
    message: &str,
    which: &str,
    known: &[&str],
) -> Diagnostic {
    let bare = known.iter().map(|k| k.split('(').next().unwrap_or(k));
    let help = match closest(&word.name, bare) {
        Some(close) => format!(
            "did you mean `{close}`? {which} are {}",
            one_of(known.iter().copied())
        ),
        None => format!("{which} are {}", one_of(known.iter().copied())),
    };
    Diagnostic::error(code, word.span, message.to_owned())
        .with_label("not known")
        .with_help(help)
}

fn field_list(fields: &[&Field]) -> String {
    if fields.is_empty() {
        return "none".to_owned();
    }
    all_of(fields.iter().map(|f| f.name.as_str()))
}
