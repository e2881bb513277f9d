//! The facts of a relation's body: who is read on its own, what is shown where, how it grows, how
//! the children are read, and what is forced.

use std::collections::BTreeMap;

use squillion_grammar::ast::{Fact, FactKind, Ident, Path, Quantity, RelationDecl};
use squillion_grammar::{Diagnostic, Span};

use super::fields::{self, Owner};
use super::names::{all_of, article, closest, one_of};
use super::words::{self, unknown_word};
use super::{units, Resolver};
use crate::codes;
use crate::model::{
    Entity, Field, FieldType, Forced, Layout, Model, Navigate, Page, Relation, RelationFacts,
    RelationKind, Show, Side,
};

/// The kinds of `growth`.
pub(super) const GROWTH: [&str; 3] = ["append_heavy", "unbounded", "static"];

/// What a relation's body states, and the fields it carries.
pub(super) fn resolve(
    r: &mut Resolver<'_>,
    model: &Model,
    decl: &RelationDecl,
    all: &[Declared],
    rel: &Relation,
    entities: [Option<&Entity>; 2],
) -> (RelationFacts, Vec<Field>) {
    let child = match rel.parent_side() {
        Side::Left => entities[1],
        Side::Right => entities[0],
    };
    let cx = Facts {
        model,
        all,
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
        FactKind::Growth { .. } => "growth",
        FactKind::AtomicMove => "atomic_move",
        FactKind::Page { .. } => "page",
        FactKind::Latest { .. } => "latest",
        FactKind::Top { .. } => "top",
        FactKind::Summary { .. } => "summary",
        FactKind::TimeRange { .. } => "time_range",
        FactKind::Force { .. } => "force",
        FactKind::Fields(_) => "fields",
    }
}

/// The relation being resolved, and its entities where they exist.
/// A relation as declared: its id and its two entities (left, right).
pub(super) struct Declared {
    pub(super) id: String,
    pub(super) entities: [String; 2],
}

pub(super) struct Facts<'m> {
    pub(super) model: &'m Model,
    /// Every relation of the file, as declared.
    pub(super) all: &'m [Declared],
    pub(super) rel: &'m Relation,
    /// Left and right entities.
    pub(super) entities: [Option<&'m Entity>; 2],
    /// The child's entity (see [`Relation::child`]).
    pub(super) child: Option<&'m Entity>,
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
            FactKind::Growth { kinds, rate } => {
                if let Some(q) = rate {
                    facts.add_rate_per_second =
                        units::rate_per_second(r, q, "the `rate` of `growth`");
                }
                for kind in kinds {
                    match kind.name.as_str() {
                        "append_heavy" => facts.append_heavy = true,
                        "unbounded" => {
                            if self.unbounded_contradicts_bound(r, kind) {
                                facts.unbounded = true;
                            }
                        }
                        "static" => facts.fixed = true,
                        other => r.report(unknown_word(
                            codes::UNKNOWN_GROWTH,
                            kind,
                            &format!("unknown growth kind `{other}`"),
                            "the growth kinds",
                            &GROWTH,
                            words::GROWTH_SYNONYMS,
                        )),
                    }
                }
                let fixed = kinds.iter().find(|k| k.name == "static");
                let growing = kinds
                    .iter()
                    .find(|k| k.name == "append_heavy" || k.name == "unbounded");
                if let (Some(fixed), Some(growing)) = (fixed, growing) {
                    r.report(
                        Diagnostic::error(
                            codes::GROWTH_CONTRADICTS_STATIC,
                            fixed.span,
                            format!(
                                "`growth static` contradicts `{}` in relation `{}`",
                                growing.name, self.rel.id
                            ),
                        )
                        .with_label("says no child is ever added")
                        .with_related(growing.span, "says children keep arriving")
                        .with_help(
                            "`static` children are loaded once with their parent; remove it, or \
                             remove the kinds that say children are added",
                        ),
                    );
                    facts.fixed = false;
                }
                if let (Some(fixed), Some(q)) = (fixed, rate) {
                    r.report(
                        Diagnostic::error(
                            codes::GROWTH_CONTRADICTS_STATIC,
                            fixed.span,
                            format!(
                                "`growth static` contradicts its `rate` in relation `{}`",
                                self.rel.id
                            ),
                        )
                        .with_label("says no child is ever added")
                        .with_related(q.span, "says how many children are added")
                        .with_help(
                            "`static` children are loaded once with their parent; remove it, or \
                             remove the `rate`",
                        ),
                    );
                    facts.fixed = false;
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
            FactKind::Summary { items, per_bucket } => {
                if self.needs_many(r, fact, "summary") {
                    facts.summary = self.summary(r, items);
                    facts.summary_per_bucket = *per_bucket;
                }
            }
            FactKind::TimeRange { field, window } => {
                facts.time_range = self.time_range(r, field);
                if let Some(w) = window {
                    facts.time_range_window = units::count(r, w, "the time range's window")
                        .filter(|&n| self.window_fits(r, w, n));
                }
            }
            FactKind::Force { layout, arg } => {
                facts.force = force(r, layout, arg.as_ref(), fact.span);
                if let Some(f) = &facts.force {
                    if !self.holds_orphans(r, f.layout, layout.span) {
                        facts.force = None;
                    }
                }
            }
            FactKind::Fields(decls) => {
                *fields = fields::fields(r, decls, Owner::Relation(&self.rel.id));
            }
        }
    }

    /// Whether a time range's window of `n` children fits the children a parent can have (its
    /// declared bound). Reports it otherwise.
    fn window_fits(&self, r: &mut Resolver<'_>, q: &Quantity, n: u64) -> bool {
        let end = self.rel.parent();
        let Some(bound) = end.cardinality.bound else {
            return true;
        };
        if n <= bound {
            return true;
        }
        r.report(
            Diagnostic::error(
                codes::WINDOW_EXCEEDS_BOUND,
                q.span,
                format!(
                    "the time range's window of {n} children is more than `{}.{}: {}` allows",
                    end.entity,
                    end.field,
                    end.cardinality.describe()
                ),
            )
            .with_label(format!("a parent has at most {bound} children"))
            .with_help(format!(
                "write a window of at most {bound} (the children one range read returns), or raise the bound"
            )),
        );
        false
    }

    /// Whether `growth unbounded` fits the relation's cardinalities: the end that holds the
    /// children (both ends of a many-to-many) must not be bounded. Reports it otherwise.
    fn unbounded_contradicts_bound(&self, r: &mut Resolver<'_>, word: &Ident) -> bool {
        let bounded = |end: &crate::model::RelationEnd| {
            end.cardinality.class != crate::model::CardinalityClass::Squillions
                || end.cardinality.bound.is_some()
        };
        let rel = self.rel;
        let ends: Vec<&crate::model::RelationEnd> = match rel.kind {
            RelationKind::ManyToMany => vec![&rel.left, &rel.right],
            _ => vec![rel.parent()],
        };
        if !ends.iter().all(|e| bounded(e)) {
            return true;
        }
        let end = ends[0];
        let written = format!(
            "{}.{}: {}",
            end.entity,
            end.field,
            end.cardinality.describe()
        );
        r.report(
            Diagnostic::error(
                codes::GROWTH_CONTRADICTS_BOUND,
                word.span,
                format!(
                    "`growth unbounded` contradicts the bound of `{written}` in relation `{}`",
                    rel.id
                ),
            )
            .with_label("says the children grow without limit")
            .with_related(end.cardinality.span, "but this end is bounded")
            .with_help(if rel.kind == RelationKind::OneToOne {
                "a one-to-one relation has exactly one of each: remove `unbounded`".to_owned()
            } else {
                format!(
                    "if the children really grow without limit, write `{}.{}: squillions`; if they stop at a bound, remove `unbounded`",
                    end.entity, end.field
                )
            }),
        );
        false
    }

    /// Whether a forced `layout` can hold every child: `embed` and `bucket` keep each child
    /// inside a document of its parent, so a child whose end is `one?` (it may have no parent)
    /// would have nowhere to be. Reports it otherwise.
    fn holds_orphans(&self, r: &mut Resolver<'_>, layout: Layout, span: Span) -> bool {
        let rel = self.rel;
        let (parent, child) = (rel.parent(), rel.child());
        if rel.kind == RelationKind::ManyToMany
            || !child.cardinality.optional
            || !matches!(layout, Layout::Embed | Layout::Bucket)
        {
            return true;
        }
        let end = format!("{}.{}", child.entity, child.field);
        r.report(
            Diagnostic::error(
                codes::FORCED_EMBED_OF_OPTIONAL_END,
                span,
                format!(
                    "`force {}` keeps each {} inside its {}, but `{end}: one?` says a {} may have none",
                    layout.as_str(),
                    child.entity,
                    parent.entity,
                    child.entity
                ),
            )
            .with_label(format!("{} without a {} would have nowhere to be", child.entity, parent.entity))
            .with_related(child.cardinality.span, "the optional end")
            .with_help(format!(
                "remove `force {}` (the engine keeps {} in a collection of their own), or write `{end}: one` if every {} has a {}",
                layout.as_str(),
                child.entity,
                child.entity,
                parent.entity
            )),
        );
        false
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
        // `navigate bidirectional`: the word for both directions is `both`.
        let both = fact.starts_with("`navigate`")
            && words::BOTH.contains(&entity.name.to_ascii_lowercase().as_str());
        let close = if both {
            Some("both")
        } else {
            closest(&entity.name, ends)
        };
        let help = match close {
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
            .with_help(help)
            .with_fix_from(close.map(|c| (entity.span, c))),
        );
        false
    }

    /// Another relation between `a` and `b`, as declared (its id).
    fn relation_between(&self, a: &str, b: &str) -> Option<&str> {
        self.all
            .iter()
            .find(|d| {
                d.id != self.rel.id
                    && ((d.entities[0] == a && d.entities[1] == b)
                        || (d.entities[0] == b && d.entities[1] == a))
            })
            .map(|d| d.id.as_str())
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
                if !self.ends().contains(&entity.name.as_str()) {
                    if let Some(other) = self.relation_between(&entity.name, &on.name) {
                        r.report(
                            Diagnostic::error(
                                codes::NOT_A_RELATION_ENTITY,
                                entity.span,
                                format!(
                                    "`show` names `{}`, which is not an end of relation `{}`",
                                    entity.name, self.rel.id
                                ),
                            )
                            .with_label(format!("`{}` is an end of `{other}`", entity.name))
                            .with_help(format!(
                                "{}'s fields reach {} through relation `{other}`: state this \
                                 `show` in that relation's body",
                                entity.name, on.name
                            )),
                        );
                        ok = false;
                        from = Some(entity);
                        continue;
                    }
                }
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
        let mut fields: Vec<&Field> = entity.all_fields().collect();
        let mut owner = format!("entity `{}`", entity.name);
        for (i, seg) in segments.iter().enumerate() {
            let Some(field) = fields.iter().copied().find(|f| f.name == seg.name) else {
                let close = closest(&seg.name, fields.iter().map(|f| f.name.as_str()));
                let help = close
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
                    .with_help(help)
                    .with_fix_from(close.map(|c| (seg.span, c))),
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
            words::LAYOUT_SYNONYMS,
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

pub(super) fn field_list(fields: &[&Field]) -> String {
    if fields.is_empty() {
        return "none".to_owned();
    }
    all_of(fields.iter().map(|f| f.name.as_str()))
}
