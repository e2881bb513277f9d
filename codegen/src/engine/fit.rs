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
            inner.saturating_mul(times(f))
        })
        .fold(0, u64::saturating_add)
}

/// How many of its children's documents one value of `f` holds at most: its bound (and inner
/// dimensions) for an array, an assumed count for a map or an unbounded pattern array, else 1.
fn times(f: &PlanField) -> u64 {
    if f.array_depth > 0 {
        f.max_items
            .unwrap_or(PATTERN_WORST)
            .saturating_mul(f.inner_dims.iter().product::<u64>().max(1))
    } else if f.map {
        PATTERN_WORST
    } else {
        1
    }
}

/// One relationship's current layout, and whether the schema forces it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Current {
    pub alt: Alternative,
    pub forced: bool,
}

/// The alternatives to rule out before deciding again, if a document of `collections` exceeds the
/// limit and an unforced layout could change that: in each such document, the ones that placed
/// the most of it (ties: the first relationship); and every unforced layout whose field alone
/// exceeds the limit, wherever it is (no other decision can make it fit, so deciding again
/// without it now spares one round per level of a deep document). Empty when every document
/// fits or no unforced change could make one fit.
pub(crate) fn next(
    collections: &[Collection],
    decisions: &[Decision],
    current: &[Current],
    ineligible: &[Vec<Ineligible>],
    limit: u64,
) -> Vec<(usize, Ineligible)> {
    let mut out: Vec<(usize, Ineligible)> = Vec::new();
    let index: std::collections::HashMap<&str, usize> = decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let mut taken = vec![false; decisions.len()];
    let open = |i: usize| {
        current
            .get(i)
            .filter(|x| !x.forced)
            .filter(|x| {
                !ineligible
                    .get(i)
                    .is_some_and(|v| v.iter().any(|y| y.alt == x.alt))
            })
            .map(|x| x.alt)
    };
    let mut rule_out =
        |out: &mut Vec<(usize, Ineligible)>, i: usize, c: &Collection, worst: u64| {
            let Some(alt) = open(i) else {
                return;
            };
            if let Some(t @ false) = taken.get_mut(i) {
                *t = true;
                let document = Oversized {
                    entity: c.entity.clone(),
                    bucket: matches!(c.role, CollectionRole::Bucket { .. }),
                    worst,
                    limit,
                };
                out.push((i, Ineligible { alt, document }));
            }
        };
    for c in collections {
        let Some(worst) = c.size.worst.filter(|w| *w > limit) else {
            continue;
        };
        let mut shares: Vec<(u64, usize)> = decisions
            .iter()
            .enumerate()
            .filter(|(i, _)| current.get(*i).is_some_and(|x| !x.forced))
            .map(|(i, d)| (share(c, &d.id), i))
            .filter(|(s, _)| *s > 0)
            .collect();
        // Only a document the unforced layouts could bring under the limit is worth a change.
        let movable = shares.iter().map(|(s, _)| *s).fold(0, u64::saturating_add);
        if movable < worst - limit {
            continue;
        }
        shares.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // The largest shares, as many as it takes to bring the document under the limit were
        // their relationships to place nothing in it (a reference on the child does not): one
        // at a time, a hub with a hundred kinds of large children would take a hundred rounds.
        let mut left = worst;
        for (share, i) in shares {
            if left <= limit {
                break;
            }
            if open(i).is_some() {
                rule_out(&mut out, i, c, worst);
                left = left.saturating_sub(share);
            }
        }
        let mut hopeless = Vec::new();
        over_alone(&c.fields, limit, &mut hopeless);
        for rel in hopeless {
            if let Some(&i) = index.get(rel) {
                rule_out(&mut out, i, c, worst);
            }
        }
    }
    out
}

/// The relationships that placed a field of `fields` (at any depth) whose own worst case exceeds
/// `limit`.
fn over_alone<'f>(fields: &'f [PlanField], limit: u64, out: &mut Vec<&'f str>) {
    for f in fields {
        if let Some(rel) = f
            .relation
            .as_deref()
            .filter(|_| f.size.worst.is_none_or(|w| w > limit))
        {
            out.push(rel);
        }
        over_alone(&f.children, limit, out);
    }
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

/// How far an estimate from the plan's own documents may be from the size of a plan of its own
/// before it decides without one: an alternative whose estimate is below `limit / MARGIN` fits,
/// one whose estimate is above `limit * MARGIN` does not; in between, it is tried.
const MARGIN: u64 = 4;

/// The alternatives that competed in `plan` and lost (the rules accept them, the cost model
/// compared them) but would make a document outgrow the limit, all at once: ruling out a loser
/// changes no choice. Each is sized from the documents `plan` already has ([`Sites`]): the
/// document that would hold the parent's new array or the children's bucket, with the children's
/// documents as they are. Only an estimate too close to the limit to decide, or a document the
/// plan does not locate, is tried in a plan of its own (`trial`), so that a large schema is not
/// decided once per alternative. Alternatives plainly small enough are not tried either: a
/// reference on each child or a link collection adds an id to a document that already fits; an
/// id array, an embedded array or a bucket whose bound times the largest document of the plan
/// fits.
pub(crate) fn unchosen(
    ctx: &super::context::Ctx<'_>,
    plan: &crate::plan::Plan,
    ineligible: &[Vec<Ineligible>],
    mut trial: impl FnMut(usize, Alternative) -> Option<Oversized>,
) -> Vec<(usize, Ineligible)> {
    use crate::model::Layout;
    let limit = plan.settings.doc_max_size;
    let largest = plan
        .collections
        .iter()
        .map(|c| c.size.worst.unwrap_or(u64::MAX))
        .max()
        .unwrap_or(0);
    let sites = Sites::of(plan);
    let mut out = Vec::new();
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
            let estimate = sites.estimate(&rel.parent().entity, &rel.child().entity, alt, n, limit);
            let document = match estimate {
                Estimate::Worst(e) if e.worst <= limit / MARGIN => continue,
                Estimate::Worst(e) if e.worst / MARGIN > limit => Some(e),
                // A document without a worst case is never over the limit, and a parent that is
                // in no document (past a chain cut at the depth limit) is in none over it (as a
                // trial finds).
                Estimate::NoWorstCase | Estimate::Unplaced => continue,
                Estimate::Worst(_) | Estimate::Unlocated => trial(i, alt),
            };
            if let Some(document) = document {
                out.push((i, Ineligible { alt, document }));
            }
        }
    }
    out
}

/// Where each entity's documents are in a plan: the collection whose documents hold them and
/// how many one of those holds at most (1 for the entity's own collection; inside embedded
/// arrays, the product of their bounds).
struct Sites<'p> {
    at: std::collections::HashMap<&'p str, (&'p Collection, u64)>,
}

impl<'p> Sites<'p> {
    fn of(plan: &'p crate::plan::Plan) -> Self {
        let child: std::collections::HashMap<&str, &str> = plan
            .relationships
            .iter()
            .map(|d| (d.id.as_str(), d.child.as_str()))
            .collect();
        let mut at = std::collections::HashMap::new();
        for c in &plan.collections {
            if matches!(c.role, CollectionRole::Entity) {
                at.insert(c.entity.as_str(), (c, 1));
            }
        }
        for c in &plan.collections {
            walk(&c.fields, c, 1, &child, &mut at);
        }
        Sites { at }
    }

    /// The document `alt` would make largest, sized from the plan's documents: the one that
    /// holds `parent`, grown by `n` children (or their ids) for each parent it holds; for a
    /// bucket, `bucket_size` of `child`'s documents.
    fn estimate(
        &self,
        parent: &str,
        child: &str,
        alt: Alternative,
        n: u64,
        limit: u64,
    ) -> Estimate {
        use crate::model::Layout;
        // The worst case of an entity's own documents: `Some(None)` when they have none.
        let own = |entity: &str| {
            self.at
                .get(entity)
                .filter(|(c, times)| *times == 1 && c.entity == entity)
                .map(|(c, _)| c.size.worst)
        };
        let sized = |worst: Option<u64>, entity: &str, bucket: bool| match worst {
            Some(worst) => Estimate::Worst(Oversized {
                entity: entity.to_owned(),
                bucket,
                worst,
                limit,
            }),
            None => Estimate::NoWorstCase,
        };
        let each = match alt.layout {
            Layout::ChildRef | Layout::LinkCollection => return Estimate::Unlocated,
            Layout::Bucket => {
                return match own(child) {
                    Some(worst) => sized(
                        worst.map(|w| w.saturating_mul(alt.bucket_size.unwrap_or(n))),
                        child,
                        true,
                    ),
                    None => Estimate::Unlocated,
                };
            }
            Layout::Embed => own(child),
            Layout::ParentRefs | Layout::TwoWay | Layout::OneWay => Some(Some(ID_ENTRY_BOUND)),
        };
        let Some(&(holder, times)) = self.at.get(parent) else {
            return Estimate::Unplaced;
        };
        let Some(each) = each else {
            return Estimate::Unlocated;
        };
        let grown = holder.size.worst.zip(each).map(|(worst, each)| {
            worst.saturating_add(times.saturating_mul(n).saturating_mul(each))
        });
        let bucket = matches!(holder.role, CollectionRole::Bucket { .. });
        sized(grown, &holder.entity, bucket)
    }
}

/// An alternative's largest document, estimated from a plan's documents.
enum Estimate {
    Worst(Oversized),
    /// The document would have no worst case (it has none already, or the children have none).
    NoWorstCase,
    /// The plan places the parent in no document.
    Unplaced,
    /// The plan does not hold the children's documents where they can be sized.
    Unlocated,
}

/// Records where the entities embedded in `fields` (of a document of `c`, `times` of them per
/// document) are.
fn walk<'p>(
    fields: &'p [PlanField],
    c: &'p Collection,
    times: u64,
    child: &std::collections::HashMap<&str, &'p str>,
    at: &mut std::collections::HashMap<&'p str, (&'p Collection, u64)>,
) {
    for f in fields {
        let inner = times.saturating_mul(self::times(f));
        if matches!(f.kind, crate::plan::FieldKind::Embedded) {
            if let Some(entity) = f.relation.as_deref().and_then(|r| child.get(r)) {
                at.entry(entity).or_insert((c, inner));
            }
        }
        walk(&f.children, c, inner, child, at);
    }
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
