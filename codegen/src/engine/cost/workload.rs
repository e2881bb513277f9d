//! The workload of one relationship, per unit of time, from its facts and the queries that read
//! through it: the declared rates where the schema states them, the defaults of
//! docs/language.md otherwise.

use crate::model::{CardinalityClass, Layout, Navigate, Operator, Relation, RelationKind};

use super::super::context::Ctx;
use super::super::size;

// The workload where the schema states none, documented in docs/language.md.

/// Reads of a relationship per unit of workload when no query rate is declared.
pub(crate) const DEFAULT_READS: f64 = 1.0;
/// Children added per read when they are `append_heavy` (sensors report constantly).
pub(crate) const APPEND_HEAVY_WRITES_PER_READ: f64 = 10.0;
/// Children added per read otherwise (the rules of thumb assume read-mostly data).
pub(crate) const WRITES_PER_READ: f64 = 0.1;
/// Children one `time_range` read covers when its `window` is not declared: a thousand readings
/// (about 17 minutes of one reading a second).
pub(crate) const RANGE_CHILDREN: f64 = 1000.0;
/// Children per parent on average for an unbounded relationship without `typical`.
pub(crate) const UNBOUNDED_CHILDREN: f64 = 1000.0;

/// The workload of one relationship, per unit of time, derived from its facts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Workload {
    /// Reads of a parent's children together (the parent listing them, a page, a time range).
    pub list_reads: f64,
    /// Children one such read returns.
    pub children_per_list: f64,
    /// Reads of one child on its own.
    pub alone_reads: f64,
    /// Children added.
    pub appends: f64,
    /// Children per parent on average.
    pub children: f64,
    /// Average size of a child, and of the parent without its children, in bytes.
    pub child_bytes: f64,
    pub parent_bytes: f64,
    /// Whether a read's children are a page of consecutive children (one bucket when the bucket
    /// holds a page) rather than a time range that rarely aligns with a bucket.
    pub aligned: bool,
    /// Whether a list read reads the parent too (not for a page, a time range or a declared
    /// query: those find the children by the parent's id).
    pub with_parent: bool,
    /// Whether any rate came from the schema (a query `rate` or a `ratio`).
    pub declared: bool,
    /// Whether `growth ... rate` set the children added (otherwise the defaults did).
    pub appends_declared: bool,
    /// Children one time-range read covers, as declared.
    pub range_window: Option<u64>,
    /// Whether an append links two documents that exist already (a many-to-many relation)
    /// rather than adding a new child.
    pub links: bool,
    /// Ids of the parent's side each child holds when both sides hold references (`two_way`):
    /// the child's own partners in a many-to-many, its parent otherwise.
    pub partners: f64,
    /// What the parent keeps of its children on every write of one (`summary` on the parent,
    /// `latest`/`top` subsets), which a layout keeping the children apart pays as a second write.
    pub kept: Kept,
    /// Parent documents listed by the parent's own declared queries (with a `limit` above one;
    /// not reading through this relationship; returning the whole document or the relationship's
    /// end): each carries the children's ids where the layout keeps them in the parent. Zero
    /// where no such query declares a rate.
    pub parent_reads: f64,
}

/// What a parent keeps of its children (the computed and subset patterns), in bytes of the
/// parent's document.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Kept {
    /// Summaries kept on the parent (`count`, `total`, ...); under a bucket, unless each bucket
    /// keeps its own (`per_bucket`, written by the append itself).
    pub summaries: f64,
    /// `summary ... per bucket`: under a bucket the summaries are in each bucket, not the parent.
    pub per_bucket: bool,
    /// The `latest N` copies: on the parent, unless it embeds every child already.
    pub latest: f64,
    /// The `top N` copies: always on the parent.
    pub top: f64,
}

impl Kept {
    /// Bytes of the parent rewritten to keep them under `layout`; zero when the layout keeps
    /// nothing on the parent.
    pub(crate) fn on_parent(&self, layout: Layout) -> f64 {
        match layout {
            Layout::Bucket if self.per_bucket => self.latest + self.top,
            Layout::Embed => self.summaries + self.top,
            _ => self.summaries + self.latest + self.top,
        }
    }
}

/// Bytes a summary takes in the parent (its name and a number).
const SUMMARY_BYTES: f64 = 24.0;

/// The workload of `rel` from its facts and the queries that read through it.
pub(crate) fn workload(ctx: &Ctx<'_>, rel: &Relation) -> Workload {
    let s = ctx.settings;
    let parent = rel.parent();
    let child = rel.child();
    let f = &rel.facts;
    let max = parent.cardinality.max(s).map(|n| n as f64);
    let children = match (parent.cardinality.typical, max) {
        (Some(t), _) => t as f64,
        (None, Some(m)) if rel.kind == RelationKind::OneToOne => m.min(1.0),
        (None, Some(m)) => (m / 2.0).max(1.0),
        (None, None) => UNBOUNDED_CHILDREN,
    };
    // Ids of the other side each child holds under `two_way`: its partners in a many-to-many
    // (as many on average as its end declares), its one parent otherwise.
    let partners = match (
        rel.kind,
        child.cardinality.typical,
        child.cardinality.max(s),
    ) {
        (RelationKind::ManyToMany, Some(t), _) => t as f64,
        (RelationKind::ManyToMany, None, Some(m)) => (m as f64 / 2.0).max(1.0),
        (RelationKind::ManyToMany, None, None) => UNBOUNDED_CHILDREN,
        _ => 1.0,
    };
    let through = ctx.queries_through(&rel.id);
    // A query that names another of the child's parents as well (`where post == ? and user ==
    // ?`: did this user like this post) finds the child the two share, not a parent's list.
    let others = other_ends(ctx, rel);
    let pairs = |q: &crate::model::Query| {
        q.conditions.iter().any(|c| {
            c.op == Operator::Eq
                && c.path.through.is_none()
                && c.path.segments.len() == 1
                && others.contains(&c.path.segments[0].as_str())
        })
    };
    // The children are listed by their parent through a query that filters through the relation
    // (`where author == ?`) or a query on the parent's children (`on Author.books`).
    let lists: Vec<&crate::model::Query> = through
        .iter()
        .chain(ctx.children_queries(&rel.id))
        .copied()
        .filter(|q| !pairs(q))
        .collect();
    let by_parent: f64 = lists.iter().filter_map(|q| q.rate_per_second).sum();
    let alone: f64 = ctx
        .queries_on(&child.entity)
        .iter()
        .filter(|q| pairs(q) || !through.iter().any(|t| t.name == q.name))
        .filter_map(|q| q.rate_per_second)
        .sum();
    let declared = by_parent > 0.0 || alone > 0.0;
    // Parents listed by their own queries: a query with a `limit` above one returns that many
    // parents, each with the parent's end unless projected away, and lists no one's children.
    // A query that finds one parent (an equality, `limit 1`) opens it, and its children may
    // then be listed by its array (seed 004: `findOne`, then `$in`): not counted.
    let parent_reads: f64 = ctx
        .queries_on(&parent.entity)
        .iter()
        .filter(|q| !through.iter().any(|t| t.name == q.name))
        .filter(|q| q.returns.is_empty() || q.returns.iter().any(|r| r.name == parent.field))
        .filter_map(|q| {
            let limit = q.limit.filter(|&l| l > 1)?;
            Some(q.rate_per_second? * limit as f64)
        })
        .sum();
    let mut list_reads = if by_parent > 0.0 {
        by_parent
    } else {
        DEFAULT_READS
    };
    if f.navigate == Navigate::Entity(child.entity.clone()) && by_parent == 0.0 {
        // Read from the child to its parent only: no list.
        list_reads = 0.0;
    }
    let alone_reads = if alone > 0.0 {
        alone
    } else if ctx.is_standalone(&child.entity) {
        DEFAULT_READS
    } else {
        0.0
    };
    let listed = match (&f.page, &f.time_range) {
        (Some(p), _) => (p.size as f64).min(children.max(1.0)),
        (None, Some(_)) => f
            .time_range_window
            .map_or(RANGE_CHILDREN, |w| w as f64)
            .min(max.unwrap_or(f64::MAX)),
        (None, None) => children,
    };
    // A query's `limit` bounds what one list read returns: the rate-weighted mean over the
    // queries that list the children (all of them alike when none declares a rate).
    let weight = |q: &crate::model::Query| q.rate_per_second.unwrap_or(0.0);
    let total: f64 = lists.iter().map(|q| weight(q)).sum();
    let children_per_list = if lists.is_empty() {
        listed
    } else {
        let bounded = |q: &crate::model::Query| q.limit.map_or(listed, |l| listed.min(l as f64));
        if total > 0.0 {
            lists.iter().map(|q| weight(q) * bounded(q)).sum::<f64>() / total
        } else {
            lists.iter().map(|q| bounded(q)).sum::<f64>() / lists.len() as f64
        }
    };
    let reads = list_reads + alone_reads;
    let appends = if ctx.is_static(rel) {
        0.0
    } else if let Some(rate) = declared_adds(ctx, rel) {
        rate
    } else if f.append_heavy {
        reads.max(DEFAULT_READS) * APPEND_HEAVY_WRITES_PER_READ
    } else {
        reads.max(DEFAULT_READS) * WRITES_PER_READ
    };
    Workload {
        list_reads,
        children_per_list,
        alone_reads,
        appends,
        children,
        child_bytes: size::entity_average(ctx, &child.entity) as f64,
        parent_bytes: size::entity_average(ctx, &parent.entity) as f64,
        aligned: f.page.is_some(),
        // A declared query finds the children by their parent's id, which its caller holds;
        // only the undeclared default (the parent shown with its children) reads the parent.
        with_parent: by_parent == 0.0 && f.page.is_none() && f.time_range.is_none(),
        declared,
        appends_declared: declared_adds(ctx, rel).is_some(),
        range_window: f.time_range_window.filter(|_| f.page.is_none()),
        links: rel.kind == RelationKind::ManyToMany,
        partners,
        kept: kept(ctx, rel),
        parent_reads,
    }
}

/// What `rel`'s parent keeps of its children.
fn kept(ctx: &Ctx<'_>, rel: &Relation) -> Kept {
    let f = &rel.facts;
    let child = size::entity_average(ctx, &rel.child().entity) as f64;
    let subset = |s: &Option<crate::model::Subset>| s.as_ref().map_or(0.0, |s| s.n as f64 * child);
    Kept {
        summaries: f.summary.len() as f64 * SUMMARY_BYTES,
        per_bucket: f.summary_per_bucket.is_some(),
        latest: subset(&f.latest),
        top: subset(&f.top),
    }
}

/// The fields through which `rel`'s child reaches its other relations' far sides (its other
/// parents, or partners): `user` on a `Like` that is also a child of `User.likes`.
fn other_ends<'m>(ctx: &Ctx<'m>, rel: &Relation) -> Vec<&'m str> {
    let child = &rel.child().entity;
    ctx.relations_at(child)
        .iter()
        .filter(|r| r.id != rel.id)
        .flat_map(|r| [&r.left, &r.right])
        .filter(|end| end.entity == *child)
        .map(|end| end.field.as_str())
        .collect()
}

/// The children added per second as the schema declares them: `rel`'s own `growth ... rate`,
/// else, for a one-to-many whose every child has exactly one parent here (`one`, not `one?`),
/// the rate declared on another one-to-many of the same child: each child added there is
/// added here too (a comment added to a post is a comment of its author).
fn declared_adds(ctx: &Ctx<'_>, rel: &Relation) -> Option<f64> {
    if let Some(rate) = rel.facts.add_rate_per_second {
        return Some(rate);
    }
    let child = rel.child();
    let one_parent = rel.kind == RelationKind::OneToMany
        && child.cardinality.class == CardinalityClass::One
        && !child.cardinality.optional;
    if !one_parent {
        return None;
    }
    ctx.relations_at(&child.entity)
        .iter()
        .filter(|r| r.id != rel.id && r.kind == RelationKind::OneToMany)
        .filter(|r| r.child().entity == child.entity && r.parent().entity != child.entity)
        .filter_map(|r| r.facts.add_rate_per_second)
        .reduce(f64::max)
}
