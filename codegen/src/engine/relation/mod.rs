//! Choosing a relationship's layout with the six rules of thumb and the seeds' patterns.
//!
//! Input: one relation and the derived facts in [`Ctx`]. Output: a [`Choice`]: the strategy, the
//! rules that chose it, the reason, the facts used, and every rejected alternative with its
//! reason, all as data (`super::basis`); `crate::prose::decision` words them. Where each side is
//! stored is decided later (`placement`). One module per relation kind.

mod by_cost;
mod many_to_many;
mod one_to_many;

use crate::model::{BsonType, Layout, Navigate, Relation, RelationEnd, RelationKind, Side};
use crate::plan::RuleId;

use super::basis::{
    Against, Alone, Broken, Fact, OrderKind, Oversized, PageOrder, Reason, Through,
};
use super::context::Ctx;
use super::cost;
use by_cost::{accepted_by_rules, choose_by_cost, holds_ids, refit};

/// An alternative the engine considered and why it lost.
#[derive(Debug, Clone)]
pub(crate) struct Rejection {
    /// The layout, or `None` for a copy (the `denormalized` modifier).
    pub strategy: Option<Layout>,
    pub rules: Vec<RuleId>,
    pub against: Against,
}

/// The outcome of the decision, before placement.
pub(crate) struct Choice {
    pub strategy: Layout,
    pub forced: bool,
    pub rules: Vec<RuleId>,
    pub reason: Reason,
    pub facts: Vec<Fact>,
    pub rejected: Vec<Rejection>,
    /// The parent (owner) side; for `one_way`, the side holding the id array.
    pub parent: Side,
    /// Bucket size, for `bucket`.
    pub bucket_size: Option<u64>,
    /// Embedded elements kept in the parent before overflowing, for the outlier modifier.
    pub outlier_cap: Option<u64>,
    /// Every alternative's estimated cost under the declared workload.
    pub cost: Option<crate::plan::CostPlan>,
}

/// The facts of one relation, seen from its parent.
pub(super) struct View<'a> {
    pub rel: &'a Relation,
    pub parent: &'a RelationEnd,
    pub child: &'a RelationEnd,
    /// Children per parent, maximum in force (`None`: unbounded).
    pub n_max: Option<u64>,
    pub n_typical: Option<u64>,
    pub child_alone: bool,
    /// Why the child is a document of its own, when it must be.
    pub alone_why: Option<super::basis::Alone>,
}

/// An alternative ruled out before any comparison: by the size model, a document it makes
/// would exceed MongoDB's limit (`doc_max_size`) in the worst case (`super::fit`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ineligible {
    pub alt: cost::Alternative,
    pub document: Oversized,
}

/// Decides `rel`'s layout; the `ineligible` alternatives are never chosen unless forced.
pub(crate) fn decide(ctx: &Ctx<'_>, rel: &Relation, ineligible: &[Ineligible]) -> Choice {
    let mut choice = match rel.kind {
        RelationKind::OneToOne => one_to_one(ctx, rel),
        RelationKind::OneToMany => one_to_many::decide(ctx, rel),
        RelationKind::ManyToMany => many_to_many::decide(ctx, rel),
    };
    let w = cost::workload(ctx, rel);
    let engine = cost::Alternative {
        layout: choice.strategy,
        bucket_size: choice.bucket_size,
    };
    let too_large = |a: cost::Alternative| ineligible.iter().find(|x| x.alt == a);
    let mut costed: Vec<_> = cost::alternatives(rel, engine, ctx.settings.bucket_size)
        .into_iter()
        .map(|a| {
            let ok =
                too_large(a).is_none() && (a == engine || accepted_by_rules(&choice, a.layout, &w));
            (a, ok, cost::estimate(&w, a))
        })
        .collect();
    if rel.facts.force.is_none() {
        if let Some(x) = too_large(engine) {
            // The rules' own choice does not fit: the cheapest the rules accept that fits, else
            // the relation's own collection of references, else the cheapest that fits.
            refit(&mut choice, rel, &costed, ineligible, x);
        } else if w.declared || w.appends_declared || w.parent_reads > 0.0 && holds_ids(engine) {
            // The workload decides only where the schema declares one (a query's rate or the
            // growth's, or, for an id array in the parent, the rate of the parent's listings
            // that carry it): without rates the rules' own order stands, and the costs under
            // the default workload are shown beside it.
            choose_by_cost(&mut choice, &costed);
        }
        for x in ineligible {
            if x.alt.layout != choice.strategy {
                choice.rejected.retain(|r| r.strategy != Some(x.alt.layout));
                choice.rejected.push(Rejection {
                    strategy: Some(x.alt.layout),
                    rules: vec![RuleId::DocumentSize],
                    against: Against::TooLarge {
                        document: x.document.clone(),
                    },
                });
            }
        }
    }
    if let Some(forced) = rel.facts.force {
        honour_force(&mut choice, forced.layout, forced.size, ctx, rel);
    }
    let chosen = cost::Alternative {
        layout: choice.strategy,
        bucket_size: choice.bucket_size,
    };
    if !costed.iter().any(|(a, _, _)| *a == chosen) {
        costed.insert(0, (chosen, false, cost::estimate(&w, chosen)));
    }
    choice.cost = Some(cost::record(&w, &costed, chosen));
    choice
}

/// Sets `choice` to `alt`, as `force` would place it, to size an alternative that lost.
pub(crate) fn pin(ctx: &Ctx<'_>, rel: &Relation, choice: &mut Choice, alt: cost::Alternative) {
    choice.strategy = alt.layout;
    choice.bucket_size = alt.bucket_size;
    choice.outlier_cap = None;
    if alt.layout == Layout::OneWay && rel.kind == RelationKind::ManyToMany {
        let l = rel.left.cardinality.max(ctx.settings).unwrap_or(u64::MAX);
        let r = rel.right.cardinality.max(ctx.settings).unwrap_or(u64::MAX);
        choice.parent = if l <= r { Side::Left } else { Side::Right };
    }
}

pub(super) fn view<'a>(ctx: &Ctx<'_>, rel: &'a Relation) -> View<'a> {
    let parent = rel.parent();
    let child = rel.child();
    View {
        rel,
        parent,
        child,
        n_max: parent.cardinality.max(ctx.settings),
        n_typical: parent.cardinality.typical,
        child_alone: ctx.is_standalone_beside(&child.entity, &rel.id),
        alone_why: ctx.read_alone(&child.entity, &rel.id),
    }
}

/// The page `rel`'s children are read by, unless one page holds every child a parent can have
/// (`page 10` of at most 5): the whole list is then the page, and pages are no reason to bucket
/// the children or to keep them out of an array (warning W135 says so).
pub(crate) fn pages<'a>(ctx: &Ctx<'_>, rel: &'a Relation) -> Option<&'a crate::model::Page> {
    let max = rel.parent().cardinality.max(ctx.settings);
    rel.facts
        .page
        .as_ref()
        .filter(|p| max.is_none_or(|n| p.size < n))
}

/// Why `entity` must be a document of its own, as relationship `rel` sees it; asked where the
/// engine already knows it must be (a child read alone), so the fallback never shows.
fn why_alone(ctx: &Ctx<'_>, entity: &str, rel: &str) -> Alone {
    ctx.read_alone(entity, rel).unwrap_or(Alone::Declared)
}

/// Why `entity` is kept out of `rel`'s parent: it is read on its own, or must be a document of
/// its own.
pub(super) fn kept_out(ctx: &Ctx<'_>, entity: &str, rel: &str) -> Against {
    Against::ReadAlone {
        entity: entity.to_owned(),
        why: why_alone(ctx, entity, rel),
    }
}

pub(super) fn rejected(strategy: Layout, rules: &[RuleId], against: Against) -> Rejection {
    Rejection {
        strategy: Some(strategy),
        rules: rules.to_vec(),
        against,
    }
}

fn bound(end: &RelationEnd, other: &RelationEnd, ctx: &Ctx<'_>) -> Fact {
    Fact::Bound {
        parent: end.entity.clone(),
        child: other.entity.clone(),
        end: format!("{}.{}", end.entity, end.field),
        written: end.cardinality.describe(),
        max: end.cardinality.max(ctx.settings),
    }
}

/// The facts every decision about a one-to-many or many-to-many relation states.
pub(super) fn base_facts(ctx: &Ctx<'_>, v: &View<'_>) -> Vec<Fact> {
    let (p, c) = (&v.parent.entity, &v.child.entity);
    let mut facts = vec![bound(v.parent, v.child, ctx)];
    let many_to_many = v.rel.kind == RelationKind::ManyToMany;
    if many_to_many {
        facts.push(bound(v.child, v.parent, ctx));
    }
    if let Some(n) = v.n_typical {
        facts.push(Fact::Typical {
            parent: p.clone(),
            child: c.clone(),
            n,
        });
    }
    facts.push(match ctx.read_alone(c, &v.rel.id) {
        Some(why) => Fact::ReadAlone {
            entity: c.clone(),
            why,
        },
        None => Fact::ReadThrough {
            child: c.clone(),
            parent: p.clone(),
            through: if many_to_many {
                let from_child = match &v.rel.facts.navigate {
                    Navigate::Both => true,
                    Navigate::Entity(e) => e == c,
                    Navigate::Parent => false,
                };
                if from_child {
                    Through::PartnersNavigated
                } else {
                    Through::Partners
                }
            } else if ctx.relations_of(c) > 1 {
                // Reached through another relationship too.
                Through::NotAlone
            } else if p == c {
                Through::Node {
                    end: v.rel.id.clone(),
                }
            } else {
                Through::Parent
            },
        },
    });
    let f = &v.rel.facts;
    if f.fixed {
        facts.push(Fact::Fixed { child: c.clone() });
    }
    if f.append_heavy || f.unbounded {
        facts.push(Fact::Growth {
            child: c.clone(),
            append_heavy: f.append_heavy,
            unbounded: f.unbounded,
        });
    }
    if f.atomic_move {
        facts.push(Fact::AtomicMove {
            child: c.clone(),
            parent: p.clone(),
        });
    }
    match &f.navigate {
        Navigate::Both => facts.push(Fact::NavigateBoth),
        Navigate::Entity(e) => facts.push(Fact::NavigateFrom { entity: e.clone() }),
        Navigate::Parent => {}
    }
    if let Some(page) = &f.page {
        facts.push(Fact::Page {
            child: c.clone(),
            size: page.size,
            by: page.by.as_ref().map(|b| PageOrder {
                field: b.field.clone(),
                descending: b.descending,
                kind: order_kind(ctx, c, &b.field),
            }),
        });
    }
    if let Some(field) = &f.time_range {
        facts.push(Fact::TimeRange {
            child: c.clone(),
            field: field.clone(),
            window: f.time_range_window,
        });
    }
    if !f.summary.is_empty() {
        facts.push(Fact::Summaries {
            names: f
                .summary
                .iter()
                .map(|s| match &s.field {
                    Some(field) => format!("{}({field})", s.function.as_str()),
                    None => s.function.as_str().to_owned(),
                })
                .collect(),
        });
    }
    if let Some(l) = &f.latest {
        facts.push(Fact::Latest {
            parent: p.clone(),
            child: c.clone(),
            n: l.n,
            by: l.by.field.clone(),
        });
    }
    if let Some(t) = &f.top {
        facts.push(Fact::Top {
            parent: p.clone(),
            child: c.clone(),
            n: t.n,
            by: t.by.field.clone(),
        });
    }
    if !v.rel.fields.is_empty() {
        facts.push(Fact::RelationFields {
            names: v.rel.fields.iter().map(|f| f.name.clone()).collect(),
        });
    }
    facts
}

pub(super) fn choice(
    strategy: Layout,
    parent: Side,
    rules: Vec<RuleId>,
    reason: Reason,
    facts: Vec<Fact>,
    rejected: Vec<Rejection>,
) -> Choice {
    Choice {
        strategy,
        forced: false,
        rules,
        reason,
        facts,
        rejected,
        parent,
        bucket_size: None,
        outlier_cap: None,
        cost: None,
    }
}

// ---------------------------------------------------------------------------------------------

fn one_to_one(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let v = view(ctx, rel);
    let (owner, other) = (&rel.left.entity, &rel.right.entity);
    let mut facts = vec![Fact::OneEach {
        owner: owner.clone(),
        other: other.clone(),
        optional: rel.left.cardinality.optional,
    }];
    if let Some(why) = ctx.read_alone(other, &rel.id) {
        facts.push(Fact::ReadAlone {
            entity: other.clone(),
            why,
        });
    }
    // An entity related one-to-one to its own kind is no lighter on either side: the cycle
    // rule keeps each in its own document (`SelfOneToOne`), whatever its size.
    let large = large_seldom_read_bytes(ctx, other).filter(|_| owner != other);
    if let Some(bytes) = large {
        facts.push(Fact::LargeSeldom {
            entity: other.clone(),
            bytes,
        });
        let reason = Reason::LargeSide {
            owner: owner.clone(),
            other: other.clone(),
            bytes,
        };
        let rej = vec![rejected(
            Layout::Embed,
            &[RuleId::DocumentShape],
            Against::LoadsLargeSide {
                owner: owner.clone(),
                other: other.clone(),
                bytes,
            },
        )];
        return choice(
            Layout::ChildRef,
            Side::Left,
            vec![RuleId::DocumentShape, RuleId::Rule4, RuleId::Rule6],
            reason,
            facts,
            rej,
        );
    }
    if v.child_alone {
        let rej = vec![rejected(
            Layout::Embed,
            &[RuleId::Rule2],
            kept_out(ctx, other, &rel.id),
        )];
        // An expiring child is referenced from itself only: an id in the owner would outlive it.
        if rel.facts.navigate == Navigate::Both && ctx.expiring(other).is_none() {
            return choice(
                Layout::TwoWay,
                Side::Left,
                vec![RuleId::Rule2, RuleId::TwoWayReferencing],
                Reason::OneToOneBothWays {
                    other: other.clone(),
                    why: why_alone(ctx, other, &rel.id),
                },
                facts,
                rej,
            );
        }
        return choice(
            Layout::ChildRef,
            Side::Left,
            vec![RuleId::Rule2, RuleId::Rule4],
            Reason::OneToOneAlone {
                owner: owner.clone(),
                other: other.clone(),
                why: why_alone(ctx, other, &rel.id),
            },
            facts,
            rej,
        );
    }
    facts.push(Fact::ReadTogether {
        owner: owner.clone(),
        other: other.clone(),
    });
    choice(
        Layout::Embed,
        Side::Left,
        vec![RuleId::Rule1],
        Reason::OneToOneEmbed {
            owner: owner.clone(),
            other: other.clone(),
        },
        facts,
        vec![rejected(
            Layout::ChildRef,
            &[RuleId::Rule1],
            Against::SecondRead {
                owner: owner.clone(),
                other: other.clone(),
            },
        )],
    )
}

/// Bytes of seldom-read large data an entity carries, if it is worth keeping out of a hot
/// document (at least 4 KB, or any `@large` field also `@seldom_read`).
fn large_seldom_read_bytes(ctx: &Ctx<'_>, entity: &str) -> Option<u64> {
    let e = ctx.entity(entity)?;
    let mut total: u64 = 0;
    let mut any_large = false;
    // Measured as W109 measures a planned field (its worst case, arrays and maps at their
    // bound): a side that warning would call large where it is embedded is large here, so
    // following its help (a one-to-one entity of its own) does keep it out.
    let mut worst: Option<u64> = Some(0);
    for f in e.fields.iter().filter(|f| f.facts.seldom_read) {
        let declared = f.facts.large_bytes.or(f.facts.size_bytes).unwrap_or(0);
        any_large |= f.facts.large_bytes.is_some();
        // What the decision says the side holds: an array of declared sizes holds its usual
        // number of them (`[string; 40] @size(300B)`: about 20 of 300 B, not 300 B).
        // (A scalar without a declared size holds the size model's default.)
        let bytes = match f.ty {
            crate::model::FieldType::Scalar { .. } | crate::model::FieldType::Value { .. }
                if declared > 0 =>
            {
                declared
            }
            _ => super::size::field_average(ctx.model, f).max(declared),
        };
        total = total.saturating_add(bytes);
        worst = worst
            .zip(super::size::field_worst(ctx.model, f))
            .map(|(a, b)| a.saturating_add(b));
    }
    let large = any_large || total >= 4096 || worst.is_none_or(|w| w >= 4096);
    large.then_some(total)
}

// ---------------------------------------------------------------------------------------------

/// Applies `force`: the forced layout wins; the engine's own choice becomes a rejected alternative
/// and the rules the forced layout breaks are returned as warnings by `warnings::forced`.
fn honour_force(
    choice: &mut Choice,
    layout: Layout,
    size: Option<u64>,
    ctx: &Ctx<'_>,
    rel: &Relation,
) {
    if layout == choice.strategy {
        choice.forced = true;
        choice.facts.push(Fact::Forced {
            layout,
            agrees: true,
        });
        if layout == Layout::Bucket {
            choice.bucket_size = size.or(choice.bucket_size);
        }
        return;
    }
    let engine = choice.strategy;
    choice.rejected.retain(|r| r.strategy != Some(layout));
    choice.rejected.insert(
        0,
        Rejection {
            strategy: Some(engine),
            rules: choice.rules.clone(),
            against: Against::Overridden {
                forced: layout,
                reason: Box::new(choice.reason.clone()),
            },
        },
    );
    choice.reason = Reason::Forced { layout, engine };
    choice.facts.push(Fact::Forced {
        layout,
        agrees: false,
    });
    choice.strategy = layout;
    choice.forced = true;
    choice.outlier_cap = None;
    choice.bucket_size =
        (layout == Layout::Bucket).then(|| size.unwrap_or(ctx.settings.bucket_size));
    if layout == Layout::OneWay && rel.kind == RelationKind::ManyToMany {
        // Hold the ids on the side with the smaller maximum.
        let l = rel.left.cardinality.max(ctx.settings).unwrap_or(u64::MAX);
        let r = rel.right.cardinality.max(ctx.settings).unwrap_or(u64::MAX);
        choice.parent = if l <= r { Side::Left } else { Side::Right };
    }
    choice.rules = forced_rules(layout);
}

fn forced_rules(layout: Layout) -> Vec<RuleId> {
    match layout {
        Layout::Embed => vec![RuleId::Rule1],
        Layout::ParentRefs | Layout::ChildRef => vec![RuleId::Rule4],
        Layout::TwoWay => vec![RuleId::TwoWayReferencing],
        Layout::OneWay => vec![RuleId::OneWayEmbedding],
        Layout::Bucket => vec![RuleId::Bucket],
        Layout::LinkCollection => vec![RuleId::LinkCollection],
    }
}

/// The rules a forced layout breaks, with the reason, for warnings.
pub(crate) fn broken_rules(ctx: &Ctx<'_>, rel: &Relation, layout: Layout) -> Vec<(RuleId, Broken)> {
    let s = ctx.settings;
    let parent = rel.parent();
    let child = rel.child();
    let (p, c) = (&parent.entity, &child.entity);
    let n_max = parent.cardinality.max(s);
    let mut out = Vec::new();
    let child_alone = ctx.is_standalone(c);
    match layout {
        Layout::Embed => {
            if child_alone {
                out.push((RuleId::Rule2, Broken::EmbedsReadAlone { child: c.clone() }));
            }
            if rel.kind != RelationKind::OneToOne && n_max.is_none_or(|n| n > s.embed_array_max) {
                out.push((
                    RuleId::Rule3,
                    Broken::EmbedsTooMany {
                        parent: p.clone(),
                        child: c.clone(),
                        max: n_max,
                        limit: s.embed_array_max,
                    },
                ));
            }
        }
        Layout::ParentRefs | Layout::TwoWay => {
            if n_max.is_none_or(|n| n > s.id_array_max) {
                out.push((
                    RuleId::Rule3,
                    Broken::TooManyIds {
                        holder: p.clone(),
                        max: n_max,
                        limit: s.id_array_max,
                    },
                ));
            }
            if layout == Layout::TwoWay && rel.facts.atomic_move {
                out.push((
                    RuleId::TwoWayReferencing,
                    Broken::NoAtomicMove { child: c.clone() },
                ));
            }
            if layout == Layout::TwoWay && rel.kind == RelationKind::ManyToMany {
                let m = child.cardinality.max(s);
                if m.is_none_or(|n| n > s.id_array_max) {
                    out.push((
                        RuleId::Rule3,
                        Broken::TooManyIds {
                            holder: c.clone(),
                            max: m,
                            limit: s.id_array_max,
                        },
                    ));
                }
            }
        }
        Layout::OneWay => {
            let (a, b) = (rel.left.cardinality.max(s), rel.right.cardinality.max(s));
            if a.is_none_or(|n| n > s.id_array_max) && b.is_none_or(|n| n > s.id_array_max) {
                out.push((RuleId::Rule3, Broken::BothTooLarge));
            }
        }
        Layout::Bucket => {
            if child_alone {
                out.push((RuleId::Rule2, Broken::BucketsReadAlone { child: c.clone() }));
            }
        }
        Layout::ChildRef | Layout::LinkCollection => {
            if rel.kind == RelationKind::ManyToMany && layout == Layout::ChildRef {
                out.push((RuleId::Rule6, Broken::NoSingleParent));
            }
            if !child_alone
                && n_max.is_some_and(|n| n <= s.embed_array_max)
                && rel.fields.is_empty()
                && rel.kind != RelationKind::ManyToMany
            {
                out.push((RuleId::Rule1, Broken::FewNotEmbedded { child: c.clone() }));
            }
        }
    }
    // Embedded or bucketed, a child is held whole: one with several parents is copied into a
    // document of each.
    if matches!(layout, Layout::Embed | Layout::Bucket) && rel.kind == RelationKind::ManyToMany {
        out.push((
            RuleId::Rule5,
            Broken::CopiesIntoEvery {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
    }
    if layout != Layout::Bucket
        && pages(ctx, rel).is_some()
        && !child_alone
        && !matches!(layout, Layout::ChildRef)
    {
        out.push((RuleId::Rule6, Broken::NoPages));
    }
    out
}

/// What `child`'s field `field` holds, for the words of its page order.
fn order_kind(ctx: &Ctx<'_>, child: &str, field: &str) -> OrderKind {
    let bson = ctx
        .entity(child)
        .and_then(|e| e.field(field))
        .and_then(|f| f.ty.scalar());
    match bson {
        Some(BsonType::Date | BsonType::Timestamp | BsonType::ObjectId) => OrderKind::Time,
        Some(b) if b.is_numeric() => OrderKind::Number,
        _ => OrderKind::Other,
    }
}
