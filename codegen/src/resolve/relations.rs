//! Relations: ends resolved to entities, cardinalities checked against their class and the
//! settings, kinds, and names that clash. The facts of a relation's body are in [`super::facts`].

use std::collections::BTreeMap;

use squillion_grammar::ast::{CardinalityExpr, RelationDecl, RelationEnd as EndDecl};
use squillion_grammar::{Diagnostic, Span};

use super::entities::pattern_fields;
use super::fields::ID;
use super::names::{closest, not_an_entity, one_of};
use super::{facts, units, Resolver};
use crate::codes;
use crate::model::{
    Cardinality, CardinalityClass, Entity, Model, Relation, RelationEnd, RelationFacts,
    RelationKind, Settings,
};

pub(super) const CLASSES: [CardinalityClass; 4] = [
    CardinalityClass::One,
    CardinalityClass::Few,
    CardinalityClass::Many,
    CardinalityClass::Squillions,
];

/// `many(N)` with `N` at most this is a `few`.
const SMALL_MANY: u64 = 10;

/// Resolves every relation, in order.
pub(super) fn resolve_all<'d>(
    r: &mut Resolver<'_>,
    model: &Model,
    decls: impl Iterator<Item = &'d RelationDecl>,
) -> Vec<Relation> {
    // Relation ends already taken: (entity, end field) -> where.
    let mut ends: BTreeMap<(String, String), Span> = BTreeMap::new();
    // Pairs of ends already declared, in a canonical order -> the declaration.
    let mut pairs: BTreeMap<[(String, String); 2], Span> = BTreeMap::new();
    let decls: Vec<&RelationDecl> = decls.collect();
    // Every relation as written (`Author.books`, its two entities): where a fact names an entity
    // of another relation, the help points there.
    let all: Vec<facts::Declared> = decls
        .iter()
        .map(|d| facts::Declared {
            id: format!("{}.{}", d.left.entity.name, d.left.field.name),
            entities: [d.left.entity.name.clone(), d.right.entity.name.clone()],
        })
        .collect();
    let mut out = Vec::new();
    for decl in decls {
        out.push(relation(r, model, decl, &all, &mut ends, &mut pairs));
    }
    out
}

fn relation(
    r: &mut Resolver<'_>,
    model: &Model,
    decl: &RelationDecl,
    all: &[facts::Declared],
    ends: &mut BTreeMap<(String, String), Span>,
    pairs: &mut BTreeMap<[(String, String); 2], Span>,
) -> Relation {
    let left_entity = end_entity(r, model, &decl.left);
    let right_entity = end_entity(r, model, &decl.right);
    let left = RelationEnd {
        entity: decl.left.entity.name.clone(),
        field: decl.left.field.name.clone(),
        cardinality: cardinality(r, &decl.left.cardinality, &model.settings),
        span: decl.left.span,
    };
    let right = RelationEnd {
        entity: decl.right.entity.name.clone(),
        field: decl.right.field.name.clone(),
        cardinality: cardinality(r, &decl.right.cardinality, &model.settings),
        span: decl.right.span,
    };
    let ones = [&left, &right]
        .iter()
        .filter(|e| e.cardinality.class == CardinalityClass::One)
        .count();
    let kind = match ones {
        2 => RelationKind::OneToOne,
        1 => RelationKind::OneToMany,
        _ => RelationKind::ManyToMany,
    };
    let id = format!("{}.{}", left.entity, left.field);
    if kind == RelationKind::OneToMany {
        swapped_ends(r, &left, &right);
    }

    let mut pair = [
        (left.entity.clone(), left.field.clone()),
        (right.entity.clone(), right.field.clone()),
    ];
    pair.sort();
    if let Some(first) = pairs.get(&pair) {
        r.report(
            Diagnostic::error(
                codes::DUPLICATE_RELATION,
                decl.left.span.to(decl.right.span),
                format!(
                    "relationship declared twice: `{}.{}` <-> `{}.{}`",
                    left.entity, left.field, right.entity, right.field
                ),
            )
            .with_label("declared again here")
            .with_related(*first, "first declared here")
            .with_help("state all of its facts in one declaration"),
        );
    } else {
        pairs.insert(pair, decl.left.span.to(decl.right.span));
        if left.entity == right.entity && left.field == right.field {
            r.report(
                Diagnostic::error(
                    codes::RELATION_END_CLASH,
                    decl.right.field.span,
                    format!("both ends of relation `{id}` are named `{}`", right.field),
                )
                .with_label("the same name as the other end")
                .with_related(decl.left.field.span, "the other end")
                .with_help(
                    "a relation of an entity with itself needs a name for each direction, like \
                     `Comment.replies: few <-> Comment.reply_to: one`",
                ),
            );
        } else {
            for (end, entity) in [(&decl.left, left_entity), (&decl.right, right_entity)] {
                check_end_name(r, end, entity, ends);
            }
        }
    }

    let mut relation = Relation {
        id,
        docs: decl.docs.lines.clone(),
        left,
        right,
        kind,
        facts: RelationFacts::default(),
        fields: Vec::new(),
        span: decl.span,
    };
    let (facts, fields) =
        facts::resolve(r, model, decl, all, &relation, [left_entity, right_entity]);
    relation.facts = facts;
    relation.fields = fields;
    relation
}

/// A one-to-many relation whose ends read backwards: `Ticket.comments: one <-> Comment.ticket:
/// squillions` says each Ticket has one Comment and each Comment squillions of Tickets, while the
/// ends' own names (a plural of the other entity's name on the `one` end, the singular on the
/// other) say many comments per ticket. Each end counts the entity across, as seen from its own:
/// a newcomer who reads the cardinality as that of the end's own entity writes them swapped, and
/// the engine would faithfully embed tickets in comments. Only that exact naming is reported: any
/// other name may mean what it says.
fn swapped_ends(r: &mut Resolver<'_>, left: &RelationEnd, right: &RelationEnd) {
    let (one, many) = if left.cardinality.class == CardinalityClass::One {
        (left, right)
    } else {
        (right, left)
    };
    if one.entity == many.entity
        || one.field != super::names::collection_name(&many.entity)
        || many.field != super::names::snake_case(&one.entity)
    {
        return;
    }
    let (one_written, many_written) = (one.cardinality.describe(), many.cardinality.describe());
    r.report(
        Diagnostic::warning(
            codes::SWAPPED_CARDINALITIES,
            one.cardinality.span,
            format!(
                "`{}.{}: {one_written}` says each {} has one {}, and `{}.{}: {many_written}` that \
                 each {} has `{many_written}` {}: the cardinalities look swapped",
                one.entity,
                one.field,
                one.entity,
                many.entity,
                many.entity,
                many.field,
                many.entity,
                crate::prose::plural(&one.entity),
            ),
        )
        .with_label(format!("one {} per {}", many.entity, one.entity))
        .with_related(
            many.cardinality.span,
            format!(
                "`{many_written}` {} per {}",
                crate::prose::plural(&one.entity),
                many.entity
            ),
        )
        .with_help(format!(
            "each end counts the entity across, as seen from its own entity: for many {} per {} \
             write `{}.{}: {many_written} <-> {}.{}: {one_written}`",
            crate::prose::plural(&many.entity),
            one.entity,
            one.entity,
            one.field,
            many.entity,
            many.field,
        )),
    );
}

/// The entity at `end`, or `None` after reporting that there is none.
fn end_entity<'m>(r: &mut Resolver<'_>, model: &'m Model, end: &EndDecl) -> Option<&'m Entity> {
    let name = &end.entity.name;
    let entity = model.entity(name);
    if entity.is_none() {
        let d = not_an_entity(r, name, end.entity.span, "a relation end");
        r.report(d);
    }
    entity
}

/// Reports an end name that is a field of its entity, an `_id`, a pattern's field, or another
/// relation end of the same entity; registers it otherwise.
fn check_end_name(
    r: &mut Resolver<'_>,
    end: &EndDecl,
    entity: Option<&Entity>,
    ends: &mut BTreeMap<(String, String), Span>,
) {
    let name = end.field.name.as_str();
    let key = (end.entity.name.clone(), name.to_owned());
    if let Some(first) = ends.get(&key) {
        r.report(
            Diagnostic::error(
                codes::RELATION_END_CLASH,
                end.field.span,
                format!(
                    "`{}.{name}` is already the end of another relation",
                    end.entity.name
                ),
            )
            .with_label("name already used by a relation end")
            .with_related(*first, "first used here")
            .with_help(format!(
                "give each relation of `{}` its own end name",
                end.entity.name
            )),
        );
        return;
    }
    ends.insert(key, end.field.span);
    let Some(entity) = entity else {
        return;
    };
    let field = entity
        .all_fields()
        .find(|f| f.name == name || f.bson_name == name);
    let clash = match field {
        Some(f) => Some((
            format!("entity `{}` already has a field `{}`", entity.name, f.name),
            Some(f.span),
        )),
        None if name == ID => Some(("`_id` is the identity of every document".to_owned(), None)),
        None => pattern_fields(&entity.patterns)
            .into_iter()
            .find(|(f, _)| f == name)
            .map(|(_, pattern)| (format!("{pattern} adds a field `{name}`"), None)),
    };
    if let Some((why, at)) = clash {
        let mut d = Diagnostic::error(
            codes::RELATION_END_CLASH,
            end.field.span,
            format!("relation end `{}.{name}` clashes: {why}", entity.name),
        )
        .with_label("name already in use")
        .with_help(format!(
            "the end's name is the field through which `{}` reaches the other side: choose \
             another one",
            entity.name
        ));
        if let Some(at) = at {
            d = d.with_related(at, "the field");
        }
        r.report(d);
    }
}

/// `many(5,000)`: digits grouped with a comma, which the grammar reads as a bound followed by
/// more arguments (`000`, a count of 0). The run, an unnamed first argument followed by unnamed
/// groups of three digits each written right after its comma, is reported once (E0404, with the
/// number it spells as the fix) and stands for the bound: `(bound, its span, arguments used)`.
fn comma_grouped(
    r: &mut Resolver<'_>,
    args: &[squillion_grammar::ast::CardinalityArg],
    class_name: &str,
) -> Option<(u64, Span, usize)> {
    let digits_only = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let first = args.first()?;
    if first.name.is_some() || first.value.unit.is_some() || !digits_only(&first.value.number) {
        return None;
    }
    let (mut digits, mut written) = (first.value.number.clone(), first.value.number.clone());
    let (mut end, mut used) = (first.span.end, 1);
    for arg in &args[1..] {
        let v = &arg.value;
        let group = arg.name.is_none()
            && v.unit.is_none()
            && v.number.len() == 3
            && digits_only(&v.number)
            && arg.span.start == end + 1;
        if !group {
            break;
        }
        digits.push_str(&v.number);
        written.push(',');
        written.push_str(&v.number);
        end = arg.span.end;
        used += 1;
    }
    if used < 2 {
        return None;
    }
    let value: u64 = digits.parse().ok()?;
    let span = Span::new(first.span.start, end);
    let underscored = written.replace(',', "_");
    r.report(
        Diagnostic::error(
            codes::INVALID_CARDINALITY,
            span,
            format!(
                "`{class_name}({written})` reads as {used} arguments: a comma separates arguments, not thousands"
            ),
        )
        .with_label("one number?")
        .with_help(format!("write `{digits}` or `{underscored}`"))
        .with_fix(span, &underscored),
    );
    Some((value, span, used))
}

/// Resolves a cardinality and checks its numbers against its class and the settings.
fn cardinality(r: &mut Resolver<'_>, expr: &CardinalityExpr, settings: &Settings) -> Cardinality {
    let class_name = expr.class.name.as_str();
    let class = match CLASSES.iter().find(|c| c.as_str() == class_name) {
        Some(c) => *c,
        None => {
            let names = CLASSES.iter().map(|c| c.as_str());
            let close = closest(class_name, names.clone());
            let help = match close {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("a cardinality is {}", one_of(names)),
            };
            r.report(
                Diagnostic::error(
                    codes::UNKNOWN_CARDINALITY,
                    expr.class.span,
                    format!("unknown cardinality `{class_name}`"),
                )
                .with_label("not a cardinality class")
                .with_help(help)
                .with_fix_from(close.map(|c| (expr.class.span, c))),
            );
            CardinalityClass::Many
        }
    };
    let mut bound: Option<(u64, Span)> = None;
    let mut typical: Option<(u64, Span)> = None;
    let mut embed: Option<(u64, Span)> = None;
    let grouped = comma_grouped(r, &expr.args, class_name);
    if let Some((n, span, _)) = grouped {
        bound = Some((n, span));
    }
    let skip = grouped.map(|(_, _, args)| args).unwrap_or(0);
    for arg in expr.args.iter().skip(skip) {
        let slot = match arg.name.as_ref().map(|n| n.name.as_str()) {
            None | Some("max") => &mut bound,
            Some("typical") => &mut typical,
            Some("embed") => &mut embed,
            Some(other) => {
                let close = closest(other, ["max", "typical", "embed"]);
                let help = match close {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => "write a bound like `1000` or `max 1000`, and a usual count like \
                             `typical 50`"
                        .to_owned(),
                };
                r.report(
                    Diagnostic::error(
                        codes::INVALID_CARDINALITY,
                        arg.name.as_ref().map(|n| n.span).unwrap_or(arg.span),
                        format!("`{class_name}` has no argument `{other}`"),
                    )
                    .with_label("expected `max`, `typical` or `embed`")
                    .with_help(help)
                    .with_fix_from(close.zip(arg.name.as_ref()).map(|(c, n)| (n.span, c))),
                );
                continue;
            }
        };
        let what = format!("a count of `{class_name}`");
        let Some(n) = units::count(r, &arg.value, &what) else {
            continue;
        };
        if let Some((_, first)) = slot {
            let which = match arg.name.as_ref().map(|n| n.name.as_str()) {
                Some("typical") => "typical count",
                Some("embed") => "threshold",
                _ => "bound",
            };
            r.report(
                Diagnostic::error(
                    codes::INVALID_CARDINALITY,
                    arg.span,
                    format!("`{class_name}` is given a {which} twice"),
                )
                .with_label("given again")
                .with_related(*first, "first given here")
                .with_help(format!("keep one {which}")),
            );
            continue;
        }
        *slot = Some((n, arg.span));
    }

    if class == CardinalityClass::One {
        for (n, span) in [bound, typical].into_iter().flatten() {
            if n != 1 {
                r.report(
                    Diagnostic::error(
                        codes::INVALID_CARDINALITY,
                        span,
                        format!("`one` means exactly one, not {n}"),
                    )
                    .with_label("not 1")
                    .with_help(if n <= settings.embed_array_max {
                        format!("write `few({n})`")
                    } else {
                        format!("write `many({n})`")
                    }),
                );
            }
        }
    }
    if let (Some((b, _)), Some((t, t_span))) = (bound, typical) {
        if t > b {
            r.report(
                Diagnostic::error(
                    codes::INVALID_CARDINALITY,
                    t_span,
                    format!("the typical count {t} is larger than the bound {b}"),
                )
                .with_label("more than the bound")
                .with_help("the typical count is the usual number, at most the bound"),
            );
        }
    }
    if let Some((e, span)) = embed {
        outlier_threshold(r, class_name, e, span, bound, typical, settings);
    }
    class_bounds(r, expr, class, bound, typical, settings);
    Cardinality {
        class,
        bound: bound.map(|(b, _)| b),
        typical: typical.map(|(t, _)| t),
        embed: embed.map(|(e, _)| e),
        optional: optional_end(r, expr, class),
        span: expr.span,
    }
}

/// `one?` is an end that may have none; other classes already include none (`few`, `many` and
/// `squillions` count from zero), so their `?` is an error.
fn optional_end(r: &mut Resolver<'_>, expr: &CardinalityExpr, class: CardinalityClass) -> bool {
    if !expr.optional {
        return false;
    }
    if class == CardinalityClass::One {
        return true;
    }
    r.report(
        Diagnostic::error(
            codes::INVALID_CARDINALITY,
            expr.span,
            format!(
                "`{}?`: only `one` can be optional; `{}` already counts from none",
                expr.class.name, expr.class.name
            ),
        )
        .with_label("not `one`")
        .with_help(format!("write `{}` without `?`", expr.class.name)),
    );
    false
}

/// Checks an outlier threshold (`embed N`): it belongs to the outlier pattern, so it needs a
/// typical count no larger than itself, and a bound (or none) larger than itself.
fn outlier_threshold(
    r: &mut Resolver<'_>,
    class_name: &str,
    embed: u64,
    span: Span,
    bound: Option<(u64, Span)>,
    typical: Option<(u64, Span)>,
    settings: &Settings,
) {
    let problem = match (typical, bound) {
        (None, _) => Some((
            "`embed` is the outlier pattern's threshold, but no typical count is given".to_owned(),
            format!("give the usual count too: `{class_name}(..., typical N, embed {embed})`"),
        )),
        (Some((t, _)), _) if t > embed => Some((
            format!("the threshold {embed} is below the typical count {t}: the usual parent would overflow"),
            format!("embed at least the typical count: `embed {t}` or more"),
        )),
        (_, Some((b, _))) if b <= embed => Some((
            format!("the threshold {embed} is not below the bound {b}: no parent ever overflows"),
            "drop `embed` (the children are simply embedded), or raise the bound".to_owned(),
        )),
        _ if embed > settings.id_array_max => Some((
            format!(
                "the threshold {embed} embeds more than `id_array_max` ({}) children",
                settings.id_array_max
            ),
            "keep the embedded part to a few hundred (rule 3)".to_owned(),
        )),
        _ => None,
    };
    if let Some((message, help)) = problem {
        r.report(
            Diagnostic::error(codes::INVALID_CARDINALITY, span, message)
                .with_label("outlier threshold")
                .with_help(help),
        );
    }
}

/// Reports numbers that contradict their class (`few(100000)`, `squillions(50)`) and warns about
/// a `many` small enough to be `few`.
fn class_bounds(
    r: &mut Resolver<'_>,
    expr: &CardinalityExpr,
    class: CardinalityClass,
    bound: Option<(u64, Span)>,
    typical: Option<(u64, Span)>,
    settings: &Settings,
) {
    match (class, bound) {
        (CardinalityClass::Few, Some((b, span))) if b > settings.id_array_max => r.report(
            Diagnostic::error(
                codes::BOUND_CONTRADICTS_CLASS,
                span,
                format!(
                    "`few({b})`: {b} is more than `few` can mean (at most `id_array_max`, {})",
                    settings.id_array_max
                ),
            )
            .with_label("too many for `few`")
            .with_help(format!(
                "`few` means at most a couple of hundred; write `many({b})` or `squillions`"
            )),
        ),
        (CardinalityClass::Squillions, Some((b, span))) if b <= settings.embed_array_max => r
            .report(
                Diagnostic::error(
                    codes::BOUND_CONTRADICTS_CLASS,
                    span,
                    format!(
                        "`squillions({b})`: {b} is too few for `squillions` (more than \
                         `embed_array_max`, {})",
                        settings.embed_array_max
                    ),
                )
                .with_label("too few for `squillions`")
                .with_help(format!(
                    "`squillions` means unbounded or more than a few thousand; write `few({b})`"
                )),
            ),
        (CardinalityClass::Many, Some((b, span))) if b <= SMALL_MANY => r.report(
            Diagnostic::warning(
                codes::MANY_WITH_SMALL_BOUND,
                span,
                format!("`many({b})` is a small bound: at most {b} is `few`"),
            )
            .with_label("a few")
            .with_help(format!("write `few({b})`")),
        ),
        _ => {}
    }
    // Without a bound, the typical count must fit the class's default bound (`one` has its own
    // error).
    if class == CardinalityClass::One {
        return;
    }
    if let (None, Some((t, span))) = (bound, typical) {
        let cap = Cardinality {
            embed: None,
            optional: false,
            class,
            bound: None,
            typical: None,
            span: expr.span,
        }
        .max(settings);
        if let Some(cap) = cap.filter(|cap| t > *cap) {
            r.report(
                Diagnostic::error(
                    codes::BOUND_CONTRADICTS_CLASS,
                    span,
                    format!(
                        "the typical count {t} is more than `{}` allows ({cap})",
                        class.as_str()
                    ),
                )
                .with_label("more than the class's bound")
                .with_help(format!(
                    "give a bound at least as large, like `{}({t}, typical {t})`, or choose a \
                     larger class",
                    class.as_str()
                )),
            );
        }
    }
}
