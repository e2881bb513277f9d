//! Documents that must fit: no layout is chosen whose worst-case document exceeds MongoDB's limit.
//!
//! A layout's document size depends on every other decision (a bucket of children that each embed
//! a thousand others), so the size model judges whole plans: after a plan is built and its sizes
//! estimated (`super::size`: bounds for the worst case, typical counts for averages), every
//! collection whose worst case exceeds `doc_max_size` names the relationships that placed what
//! it holds, with the bytes each placed ([`share`]). The largest share not forced becomes
//! ineligible for its relationship ([`Ineligible`]), and the engine decides again with that
//! alternative ruled out before the rules' and the cost model's comparison. Each round rules out
//! one more alternative, so the rounds end; a document no unforced layout can bring under the
//! limit (forced layouts, its own fields) is left as it is, for warning W104 to explain
//! ([`Cause`]).

use crate::plan::{Collection, CollectionRole, Decision, PlanField};

use super::basis::Oversized;
use super::cost::Alternative;
use super::relation::Ineligible;

/// Entries assumed in a pattern array without a bound (as `super::size` does).
const PATTERN_WORST: u64 = 200;

/// Bytes of `c`'s worst-case document that relationship `rel` placed in it: all of a bucket or
/// overflow document of its own, else the fields it placed (inside arrays: times their bound).
pub(crate) fn share(c: &Collection, rel: &str) -> u64 {
    match &c.role {
        CollectionRole::Bucket { relation } | CollectionRole::Overflow { relation }
            if relation == rel =>
        {
            c.size.worst.unwrap_or(u64::MAX)
        }
        _ => fields_share(&c.fields, rel),
    }
}

fn fields_share(fields: &[PlanField], rel: &str) -> u64 {
    fields
        .iter()
        .map(|f| {
            if f.relation.as_deref() == Some(rel) {
                return f.size.worst.unwrap_or(u64::MAX);
            }
            let inner = fields_share(&f.children, rel);
            if inner == 0 {
                return 0;
            }
            let times = if f.array_depth > 0 {
                f.max_items
                    .unwrap_or(PATTERN_WORST)
                    .saturating_mul(f.inner_dims.iter().product::<u64>().max(1))
            } else if f.map {
                PATTERN_WORST
            } else {
                1
            };
            inner.saturating_mul(times)
        })
        .fold(0, u64::saturating_add)
}

/// One relationship's current layout, and whether the schema forces it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Current {
    pub alt: Alternative,
    pub forced: bool,
}

/// The next alternative to rule out, if a document of `collections` exceeds the limit and an
/// unforced relationship can bring it under: the one that placed the most of it (ties: the first
/// relationship). `None` when every document fits or no unforced change could make one fit.
pub(crate) fn next(
    collections: &[Collection],
    decisions: &[Decision],
    current: &[Current],
    ineligible: &[Vec<Ineligible>],
    limit: u64,
) -> Option<(usize, Ineligible)> {
    for c in collections {
        let Some(worst) = c.size.worst.filter(|w| *w > limit) else {
            continue;
        };
        let mut open: Vec<(u64, usize)> = decisions
            .iter()
            .enumerate()
            .filter(|(i, _)| current.get(*i).is_some_and(|x| !x.forced))
            .map(|(i, d)| (share(c, &d.id), i))
            .filter(|(s, _)| *s > 0)
            .collect();
        // Only a document the unforced layouts could bring under the limit is worth a change.
        let movable = open.iter().map(|(s, _)| *s).fold(0, u64::saturating_add);
        if movable < worst - limit {
            continue;
        }
        open.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, i) in open {
            let alt = current[i].alt;
            if ineligible[i].iter().any(|x| x.alt == alt) {
                continue;
            }
            let document = Oversized {
                entity: c.entity.clone(),
                bucket: matches!(c.role, CollectionRole::Bucket { .. }),
                worst,
                limit,
            };
            return Some((i, Ineligible { alt, document }));
        }
    }
    None
}

/// The largest document of `collections` over `limit` that relationship `rel` put there: one it
/// fills that was not over the limit before (`before`: the collections over it without this
/// layout), or that would fit without what it placed.
pub(crate) fn outgrown(
    collections: &[Collection],
    rel: &str,
    limit: u64,
    before: &[String],
) -> Option<Oversized> {
    collections
        .iter()
        .filter_map(|c| Some((c, c.size.worst.filter(|w| *w > limit)?)))
        .filter(|(c, w)| {
            let s = share(c, rel);
            s > 0 && (!before.contains(&c.name) || w.saturating_sub(s) <= limit)
        })
        .max_by_key(|(_, w)| *w)
        .map(|(c, worst)| Oversized {
            entity: c.entity.clone(),
            bucket: matches!(c.role, CollectionRole::Bucket { .. }),
            worst,
            limit,
        })
}

/// Bytes an id takes in an array of ids, with its key and the copies beside it at most (a bound,
/// not an estimate: only to skip trials that cannot fail).
const ID_ENTRY_BOUND: u64 = 64;

/// The next alternative that competed in `plan` and lost (the rules accept it, the cost model
/// compared it) but would make a document outgrow the limit: `trial` sizes it in a plan of its
/// own. Alternatives plainly small enough are not tried: a reference on each child or a link
/// collection adds an id to a document that already fits; an id array, an embedded array or a
/// bucket whose bound times the largest document of the plan fits.
pub(crate) fn unchosen(
    ctx: &super::context::Ctx<'_>,
    plan: &crate::plan::Plan,
    ineligible: &[Vec<Ineligible>],
    mut trial: impl FnMut(usize, Alternative) -> Option<Oversized>,
) -> Option<(usize, Ineligible)> {
    use crate::model::Layout;
    let limit = plan.settings.doc_max_size;
    let largest = plan
        .collections
        .iter()
        .map(|c| c.size.worst.unwrap_or(u64::MAX))
        .max()
        .unwrap_or(0);
    for (i, d) in plan.relationships.iter().enumerate() {
        let (Some(cost), Some(rel)) = (&d.cost, ctx.model.relations.get(i)) else {
            continue;
        };
        let Some(n) = rel.parent().cardinality.max(ctx.settings) else {
            // Without a bound nothing has a worst case (rule 3 keeps unbounded arrays out).
            continue;
        };
        for a in &cost.alternatives {
            if a.chosen || a.nothing_copied || !a.acceptable {
                continue;
            }
            let alt = Alternative {
                layout: a.layout,
                bucket_size: a.bucket_size,
            };
            if ineligible
                .get(i)
                .is_some_and(|x| x.iter().any(|x| x.alt == alt))
            {
                continue;
            }
            let bound = match a.layout {
                Layout::ChildRef | Layout::LinkCollection => continue,
                Layout::ParentRefs | Layout::TwoWay | Layout::OneWay => {
                    largest.saturating_add(n.saturating_mul(ID_ENTRY_BOUND))
                }
                Layout::Embed => largest.saturating_mul(n.saturating_add(1)),
                Layout::Bucket => {
                    largest.saturating_mul(a.bucket_size.unwrap_or(n).saturating_add(1))
                }
            };
            if bound <= limit {
                continue;
            }
            if let Some(document) = trial(i, alt) {
                return Some((i, Ineligible { alt, document }));
            }
        }
    }
    None
}

/// Why a document still exceeds the limit once the engine has decided (warning W104).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cause {
    /// Forced layouts placed most of it: `(relationship, layout)`, largest share first.
    Forced(Vec<(String, crate::model::Layout)>),
    /// Relationships whose every layout was tried (each ruled out in turn, or no other fits).
    NoLayoutFits(Vec<String>),
    /// Its own fields, whatever the relationships' layouts.
    OwnFields,
}

/// Why `c` (over the limit by `excess` bytes) is still too large.
pub(crate) fn cause(c: &Collection, decisions: &[Decision], excess: u64) -> Cause {
    let mut shares: Vec<(u64, &Decision)> = decisions
        .iter()
        .map(|d| (share(c, &d.id), d))
        .filter(|(s, _)| *s > 0)
        .collect();
    shares.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
    let forced: Vec<(String, crate::model::Layout)> = shares
        .iter()
        .filter(|(_, d)| d.forced)
        .map(|(_, d)| (d.id.clone(), d.strategy))
        .collect();
    let movable = shares
        .iter()
        .filter(|(_, d)| !d.forced)
        .map(|(s, _)| *s)
        .fold(0, u64::saturating_add);
    if !forced.is_empty() && movable < excess {
        Cause::Forced(forced)
    } else if movable >= excess {
        Cause::NoLayoutFits(
            shares
                .iter()
                .filter(|(_, d)| !d.forced)
                .map(|(_, d)| d.id.clone())
                .collect(),
        )
    } else {
        Cause::OwnFields
    }
}
