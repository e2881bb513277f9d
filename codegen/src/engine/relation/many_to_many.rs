//! Many-to-many: two_way, one_way (with the outlier modifier) or a link collection, and the
//! relationship's own fields.

use crate::model::{FieldType, Layout, Navigate, Relation, RelationEnd, Side};
use crate::plan::RuleId;

use super::super::basis::{Against, Fact, LinkWhy, Reason};
use super::super::context::Ctx;
use super::{base_facts, choice, rejected, view, Choice};

pub(super) fn decide(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let s = ctx.settings;
    let v = view(ctx, rel);
    let facts = base_facts(ctx, &v);
    let (l, r) = (&rel.left, &rel.right);
    let l_max = l.cardinality.max(s);
    let r_max = r.cardinality.max(s);
    let fits = |m: Option<u64>| m.is_some_and(|n| n <= s.id_array_max);

    if !rel.fields.is_empty() {
        return with_fields(ctx, rel, facts);
    }

    // Outlier on one end: usually few, rarely very many.
    for (end, side) in [(l, Side::Left), (r, Side::Right)] {
        let max = end.cardinality.max(s);
        let Some(typical) = end.cardinality.typical else {
            continue;
        };
        let navigated = match &rel.facts.navigate {
            Navigate::Entity(e) => *e == end.entity,
            _ => true,
        };
        let cap = end.cardinality.outlier_cap(s);
        if typical <= cap && max.is_none_or(|m| m > cap) && navigated {
            let other = if side == Side::Left { r } else { l };
            let reason = Reason::OutlierIds {
                holder: end.entity.clone(),
                other: other.entity.clone(),
                typical,
                max,
                cap,
            };
            let rej = vec![
                rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule3],
                    Against::RareEndTooMany {
                        end: end.entity.clone(),
                        max,
                    },
                ),
                rejected(
                    Layout::LinkCollection,
                    &[RuleId::Rule1],
                    Against::LinkForUsual {
                        end: end.entity.clone(),
                        other: other.entity.clone(),
                        typical,
                    },
                ),
            ];
            let mut ch = choice(
                Layout::OneWay,
                side,
                vec![RuleId::OneWayEmbedding, RuleId::Outlier, RuleId::Rule3],
                reason,
                facts,
                rej,
            );
            ch.outlier_cap = Some(cap);
            return ch;
        }
    }

    match (fits(l_max), fits(r_max)) {
        (true, true) => {
            // `navigate` names the side that holds the ids when the sides are alike; unbalanced,
            // the small side holds them whichever is read: seed 003 reads a category's books
            // through the books' own array (`find({categories: id})`), never an array of them
            // in the category.
            let navigated = match &rel.facts.navigate {
                Navigate::Entity(e) => Some(if *e == l.entity {
                    Side::Left
                } else {
                    Side::Right
                }),
                _ => None,
            }
            .filter(|side| navigate_holds(ctx, rel, *side));
            if let (Some(side), Navigate::Entity(e)) = (navigated, &rel.facts.navigate) {
                let reason = Reason::ReadFromOneSide {
                    entity: e.clone(),
                    max: rel.end(side).cardinality.max(s),
                };
                let rej = vec![rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule6],
                    Against::OtherDirectionUnread,
                )];
                return choice(
                    Layout::OneWay,
                    side,
                    vec![RuleId::OneWayEmbedding, RuleId::Rule6],
                    reason,
                    facts,
                    rej,
                );
            }
            if let Some((side, query)) = other_way_by_query(ctx, rel) {
                let holder = rel.end(side);
                let other = if side == Side::Left { r } else { l };
                let reason = Reason::OtherWayByQuery {
                    holder: holder.entity.clone(),
                    holder_max: holder.cardinality.max(s),
                    other: other.entity.clone(),
                    query: query.clone(),
                };
                let rej = vec![rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule6],
                    Against::OtherWayQueried {
                        holder: holder.entity.clone(),
                        other: other.entity.clone(),
                        query,
                    },
                )];
                return choice(
                    Layout::OneWay,
                    side,
                    vec![RuleId::OneWayEmbedding, RuleId::Rule6],
                    reason,
                    facts,
                    rej,
                );
            }
            if let Some(side) = unbalanced(ctx, rel) {
                return small_side(ctx, rel, side, facts, true);
            }
            let reason = Reason::BothSmall {
                left: l.entity.clone(),
                left_max: l_max,
                right: r.entity.clone(),
                right_max: r_max,
            };
            let rej = vec![
                rejected(Layout::OneWay, &[RuleId::Rule6], Against::NeedsMultikey),
                rejected(
                    Layout::LinkCollection,
                    &[RuleId::Rule1],
                    Against::JoinTableForSmall,
                ),
            ];
            choice(
                Layout::TwoWay,
                Side::Left,
                vec![RuleId::TwoWayReferencing, RuleId::Rule4],
                reason,
                facts,
                rej,
            )
        }
        (true, false) | (false, true) => {
            let side = if fits(l_max) { Side::Left } else { Side::Right };
            small_side(ctx, rel, side, facts, false)
        }
        (false, false) => {
            let reason = Reason::NeitherSide {
                left: l.entity.clone(),
                left_max: l_max,
                right: r.entity.clone(),
                right_max: r_max,
            };
            let rej = vec![
                rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule3],
                    Against::BothArraysTooLarge,
                ),
                rejected(
                    Layout::OneWay,
                    &[RuleId::Rule3],
                    Against::EitherArrayTooLarge,
                ),
            ];
            choice(
                Layout::LinkCollection,
                Side::Left,
                vec![RuleId::Rule3, RuleId::LinkCollection],
                reason,
                facts,
                rej,
            )
        }
    }
}

/// One-way embedding on `side`, the small one: the other side's array would be past rule 3's
/// bound for ids, or, with `unbalanced`, within it but far larger than this side's (seed 003's
/// relationship balance).
fn small_side(
    ctx: &Ctx<'_>,
    rel: &Relation,
    side: Side,
    facts: Vec<Fact>,
    unbalanced: bool,
) -> Choice {
    let s = ctx.settings;
    let holder = rel.end(side);
    let other = if side == Side::Left {
        &rel.right
    } else {
        &rel.left
    };
    let (holder_max, other_max) = (holder.cardinality.max(s), other.cardinality.max(s));
    let (h, f, o, of) = (
        holder.entity.clone(),
        holder.field.clone(),
        other.entity.clone(),
        other.field.clone(),
    );
    let (reason, two_way) = if unbalanced {
        (
            Reason::Unbalanced {
                holder: h.clone(),
                holder_field: f,
                holder_max,
                other: o.clone(),
                other_field: of,
                other_max,
            },
            rejected(
                Layout::TwoWay,
                &[RuleId::Rule3, RuleId::Rule6],
                Against::UnbalancedSecondArray {
                    entity: o,
                    max: other_max,
                    holder: h.clone(),
                },
            ),
        )
    } else {
        (
            Reason::SmallSide {
                holder: h.clone(),
                holder_field: f,
                holder_max,
                other: o.clone(),
                other_field: of,
                other_max,
            },
            rejected(
                Layout::TwoWay,
                &[RuleId::Rule3],
                Against::LargeSideTooMany {
                    entity: o,
                    max: other_max,
                    limit: s.id_array_max,
                },
            ),
        )
    };
    let rej = vec![
        two_way,
        rejected(
            Layout::LinkCollection,
            &[RuleId::Rule1],
            Against::SmallSideServesBoth { holder: h },
        ),
    ];
    choice(
        Layout::OneWay,
        side,
        vec![RuleId::OneWayEmbedding, RuleId::Rule3, RuleId::Rule4],
        reason,
        facts,
        rej,
    )
}

/// The small side of a relationship whose sides are unbalanced (seed 003, "establish relationship
/// balance": a book's 3 categories against a category's 500,000 books is one-way embedding, 3
/// against 5 two-way): one side holds more ids than rule 3 lets a document embed (`few`'s bound,
/// a couple of hundred) and at least [`UNBALANCED`] times as many as the other. Only the small
/// side then holds ids; the other direction is a query on its array's multikey index. A
/// relationship of an entity with itself has one collection, so it has no small side; a large
/// side whose own array a declared query filters on keeps it.
fn unbalanced(ctx: &Ctx<'_>, rel: &Relation) -> Option<Side> {
    let s = ctx.settings;
    if rel.left.entity == rel.right.entity {
        return None;
    }
    let (l, r) = (rel.left.cardinality.max(s)?, rel.right.cardinality.max(s)?);
    let (small, large, side, large_end) = if l <= r {
        (l, r, Side::Left, &rel.right)
    } else {
        (r, l, Side::Right, &rel.left)
    };
    // A declared query filtering the large side on its own array needs that array.
    let balanced = large <= s.embed_array_max || large < small.max(1).saturating_mul(UNBALANCED);
    (!balanced && queried(ctx, rel, large_end).is_none()).then_some(side)
}

/// Whether the side `navigate` names holds the list: always when the sides are alike; when they
/// are unbalanced, only where the large side has a reason of its own to hold it (the small
/// side holds it otherwise, the named side's reads being one query on its multikey index, seed
/// 003): it shows fields of the other side (its array carries their copies: a company's people
/// with their names), or it usually holds few (`typical`, the outlier pattern's usual case).
///
/// Under `force` (`navigate Course` with `force one_way`) the named side holds it, as written:
/// the user has taken the decision.
fn navigate_holds(ctx: &Ctx<'_>, rel: &Relation, side: Side) -> bool {
    let Some(small) = unbalanced(ctx, rel).filter(|_| rel.facts.force.is_none()) else {
        return true;
    };
    if small == side {
        return false;
    }
    let (named, other) = if side == Side::Left {
        (&rel.left, &rel.right)
    } else {
        (&rel.right, &rel.left)
    };
    let shows = rel
        .facts
        .shows
        .iter()
        .any(|sh| sh.on == named.entity && sh.from == other.entity);
    let usually_few = match (
        named.cardinality.typical,
        other.cardinality.max(ctx.settings),
    ) {
        (Some(t), Some(o)) => {
            t <= ctx.settings.embed_array_max && t < o.max(1).saturating_mul(UNBALANCED)
        }
        _ => false,
    };
    shows || usually_few
}

/// How many times the small side's bound the large side's must be for the sides to count as
/// unbalanced (an order of magnitude).
const UNBALANCED: u64 = 10;

/// The side whose own array a declared query filters on (`query books_of_author on Book {
/// where authors == ? }`), when exactly one side's is: that query, with the array's multikey
/// index, reads the other direction, so only that side needs to hold ids.
fn other_way_by_query(ctx: &Ctx<'_>, rel: &Relation) -> Option<(Side, String)> {
    if rel.left.entity == rel.right.entity {
        return None;
    }
    match (queried(ctx, rel, &rel.left), queried(ctx, rel, &rel.right)) {
        (Some(q), None) => Some((Side::Left, q)),
        (None, Some(q)) => Some((Side::Right, q)),
        _ => None,
    }
}

/// The declared query that filters `end`'s entity on its own array of this relationship.
fn queried(ctx: &Ctx<'_>, rel: &Relation, end: &RelationEnd) -> Option<String> {
    ctx.queries_on(&end.entity)
        .iter()
        .find(|q| {
            q.conditions.iter().any(|c| {
                c.path.segments == [end.field.clone()]
                    && c.path.through.as_ref().is_none_or(|t| t.relation == rel.id)
            })
        })
        .map(|q| q.name.clone())
}

/// A many-to-many relationship with fields whose sides are both bounded but unbalanced (a
/// student's 30 courses against a course's 2,000 students), read from both sides or from neither
/// named: as without fields, only the small side holds the list (`{reference, fields}`), and the
/// other direction is a query on its multikey index, rather than a collection of pairs joined on
/// every read. Not when a field is an array or a map, which would nest in the holder's array
/// (seed 002's grades: one document per student and class, with its scores).
fn lines_on_small_side(
    ctx: &Ctx<'_>,
    rel: &Relation,
    side: Side,
    names: Vec<String>,
    facts: Vec<Fact>,
) -> Choice {
    let s = ctx.settings;
    let holder = rel.end(side);
    let other = if side == Side::Left {
        &rel.right
    } else {
        &rel.left
    };
    let reason = Reason::LinesOnSmallSide {
        holder: holder.entity.clone(),
        field: holder.field.clone(),
        holder_max: holder.cardinality.max(s),
        other: other.entity.clone(),
        other_field: other.field.clone(),
        other_max: other.cardinality.max(s),
        fields: names.clone(),
    };
    let rej = vec![
        rejected(
            Layout::LinkCollection,
            &[RuleId::Rule1],
            Against::LinkForBoundedList {
                holder: holder.entity.clone(),
                other: other.entity.clone(),
            },
        ),
        rejected(
            Layout::TwoWay,
            &[RuleId::Rule3, RuleId::Rule6],
            Against::UnbalancedSecondArray {
                entity: other.entity.clone(),
                max: other.cardinality.max(s),
                holder: holder.entity.clone(),
            },
        ),
    ];
    choice(
        Layout::OneWay,
        side,
        vec![RuleId::OneWayEmbedding, RuleId::Rule3, RuleId::Rule6],
        reason,
        facts,
        rej,
    )
}

/// A many-to-many relationship that carries fields of its own (an order's lines: quantity,
/// price). When exactly one side is bounded enough to hold a list, that side keeps an array of
/// `{reference, fields}` whichever side is read: the other direction is one query on the
/// array's multikey index, as it is without fields (seed 003 one-way embedding: a match's ten
/// participants with their scores, found from a player through `participants.id`). When both
/// sides could hold it, the side `navigate` names does; otherwise one document per pair in a
/// collection of its own.
fn with_fields(ctx: &Ctx<'_>, rel: &Relation, facts: Vec<Fact>) -> Choice {
    let s = ctx.settings;
    let (l, r) = (&rel.left, &rel.right);
    let fits = |end: &RelationEnd| end.cardinality.max(s).is_some_and(|n| n <= s.id_array_max);
    let names: Vec<String> = rel.fields.iter().map(|f| f.name.clone()).collect();
    // Fields that are arrays or maps would nest them in the holder's array (a student's 200
    // classes, each with its scores): the pairs then stay documents of their own.
    let nested = rel.fields.iter().any(|f| {
        matches!(
            f.ty,
            FieldType::Array { .. } | FieldType::Map { .. } | FieldType::Counters { .. }
        )
    });
    let holder = match (fits(l), fits(r)) {
        (true, false) => Some((l, Side::Left)),
        (false, true) => Some((r, Side::Right)),
        (false, false) => None,
        // The side `navigate` names, unless the sides are unbalanced and the small side can hold
        // the pairs (seed 003: the other direction is a query on its array).
        (true, true) => match &rel.facts.navigate {
            Navigate::Entity(e) => {
                [(l, Side::Left), (r, Side::Right)]
                    .into_iter()
                    .find(|(end, side)| {
                        end.entity == *e && (nested || navigate_holds(ctx, rel, *side))
                    })
            }
            Navigate::Both | Navigate::Parent => None,
        },
    };
    if holder.is_none() && fits(l) && fits(r) && !nested {
        if let Some(side) = unbalanced(ctx, rel) {
            return lines_on_small_side(ctx, rel, side, names, facts);
        }
    }
    if let Some((end, side)) = holder {
        let other = if side == Side::Left { r } else { l };
        let reason = Reason::LinesOnOneSide {
            holder: end.entity.clone(),
            field: end.field.clone(),
            other: other.entity.clone(),
            max: end.cardinality.max(s),
            fields: names.clone(),
            other_max: (!fits(other)).then(|| other.cardinality.max(s)),
        };
        let rej = vec![
            rejected(
                Layout::LinkCollection,
                &[RuleId::Rule1],
                Against::LinkForBoundedList {
                    holder: end.entity.clone(),
                    other: other.entity.clone(),
                },
            ),
            rejected(
                Layout::TwoWay,
                &[RuleId::Rule6],
                Against::FieldsTwice { fields: names },
            ),
        ];
        return choice(
            Layout::OneWay,
            side,
            vec![RuleId::OneWayEmbedding, RuleId::Rule6],
            reason,
            facts,
            rej,
        );
    }
    let why = match (&rel.facts.navigate, fits(l), fits(r)) {
        (Navigate::Both, _, _) => LinkWhy::BothRead,
        (_, false, false) => LinkWhy::NeitherBounded,
        _ => LinkWhy::NoSideNamed,
    };
    let reason = Reason::LinkForFields {
        left: l.entity.clone(),
        right: r.entity.clone(),
        fields: names,
        why,
    };
    let rej = vec![
        rejected(Layout::TwoWay, &[RuleId::Rule6], Against::IdsHoldNoFields),
        rejected(Layout::OneWay, &[RuleId::Rule6], Against::OneSideOnly),
    ];
    choice(
        Layout::LinkCollection,
        Side::Left,
        vec![RuleId::LinkCollection, RuleId::Rule6],
        reason,
        facts,
        rej,
    )
}
