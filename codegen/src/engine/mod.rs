//! The decision engine: Model -> Plan.
//!
//! One module per rule family: [`relation`] chooses each relationship's layout with the six rules
//! of thumb, `placement` decides where each side is stored, `denormalize` applies rule 5,
//! `cycles` keeps every entity reachable from a collection, `collections` shapes every document, `indexes` derives indexes from facts and queries, `size`
//! estimates document sizes and `warnings` reports anti-patterns (and value types no field uses,
//! found by `unused`). Every decision records the rules it applied, the facts it used and the
//! alternatives it rejected.

pub(crate) mod basis;
mod collections;
mod context;
mod copy_sites;
mod cost;
mod cycles;
mod denormalize;
mod fields;
pub(crate) mod fit;
mod hot;
mod indexes;
mod placement;
mod queries;
mod referenced;
mod relation;
mod size;
mod unused;
mod warnings;

use std::collections::BTreeSet;

use squillion_grammar::SourceFile;

use crate::model::{Layout, Model};
use crate::plan::{Decision, EndCardinalities, Plan, RuleId};

pub(crate) use context::duration_words;
pub use warnings::codes;

/// Decides the layout of every relationship and the shape of every collection.
///
/// Total on any valid [`Model`]: it never panics, and the same model gives the same plan.
///
/// No unforced layout makes a document exceed `doc_max_size` in the worst case: a plan where one
/// does is decided again with that alternative ruled out (`fit`), until every document fits or
/// only forced layouts or the entities' own fields keep one over the limit (warning W104).
pub fn plan(model: &Model, source: &SourceFile) -> Plan {
    plan_with_effort(model, source).0
}

/// What deciding a schema took, in units that do not depend on the machine: a large schema must
/// not need more rounds than a small one of the same shape (the engine's time is then linear in
/// the schema's size; `tests/effort.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effort {
    /// Whole plans built: one per round of [`plan`]'s fitting, and one per alternative sized in
    /// a plan of its own.
    pub plans: usize,
    /// Relationships decided, over all plans (a relationship is decided again when an entity
    /// it embeds turns out to be referenced).
    pub decisions: usize,
    /// Steps taken breaking embedding cycles, over all plans: entities reached from the
    /// collections and entities walked back through to find a cycle.
    pub walked: usize,
}

/// [`plan`], and what it took.
pub fn plan_with_effort(model: &Model, source: &SourceFile) -> (Plan, Effort) {
    plan_in(context::Ctx::new(model, source))
}

/// [`plan`] decided the plain way: every relationship decided again in every round of the
/// referenced-entity fixpoint, and reachability recomputed for every embedding cycle. Slow on
/// large schemas; the reference that tests hold the fast way to (the same Plan on any schema).
#[doc(hidden)]
pub fn plan_exhaustively(model: &Model, source: &SourceFile) -> Plan {
    let mut ctx = context::Ctx::new(model, source);
    ctx.exhaustive = true;
    plan_in(ctx).0
}

fn plan_in(ctx: context::Ctx<'_>) -> (Plan, Effort) {
    let model = ctx.model;
    let plans = std::cell::Cell::new(0usize);
    let attempt = |ineligible: &[Vec<relation::Ineligible>], pin, refit| {
        plans.set(plans.get() + 1);
        attempt(&ctx, ineligible, pin, refit)
    };
    let effort = |plan: Plan| {
        let effort = Effort {
            plans: plans.get(),
            decisions: ctx.decided.get(),
            walked: ctx.walked.get(),
        };
        (plan, effort)
    };
    let mut ineligible: Vec<Vec<relation::Ineligible>> = vec![Vec::new(); model.relations.len()];
    // Each round rules out one more (relationship, alternative) pair, of a handful per
    // relationship: the bound is never reached, it only guards the loop (a round that may not
    // rule anything out returns its plan).
    let rounds = model.relations.len().saturating_mul(8);
    loop {
        let refit = ineligible.iter().map(Vec::len).sum::<usize>() < rounds;
        match attempt(&ineligible, None, refit) {
            Err(out) => rule_out(&mut ineligible, out),
            Ok(plan) if !refit => return effort(plan),
            Ok(plan) => {
                // The alternatives that competed and lost are ruled out too when they would not
                // fit, so that the Plan never shows one as open: each is tried in a plan of its
                // own where it is not plainly small enough.
                let limit = plan.settings.doc_max_size;
                let over: Vec<String> = plan
                    .collections
                    .iter()
                    .filter(|c| c.size.worst.is_some_and(|w| w > limit))
                    .map(|c| c.name.clone())
                    .collect();
                let trial = |i: usize, alt: cost::Alternative| {
                    let p = attempt(&ineligible, Some((i, alt)), false).ok()?;
                    let rel = &p.relationships.get(i)?.id;
                    fit::outgrown(&p.collections, rel, limit, &over)
                };
                let out = fit::unchosen(&ctx, &plan, &ineligible, trial);
                if out.is_empty() {
                    return effort(plan);
                }
                rule_out(&mut ineligible, out);
            }
        }
    }
}

fn rule_out(ineligible: &mut [Vec<relation::Ineligible>], out: Vec<(usize, relation::Ineligible)>) {
    for (i, x) in out {
        if let Some(v) = ineligible.get_mut(i) {
            v.push(x);
        }
    }
}

/// One plan with the `ineligible` alternatives ruled out; with `refit`, the next alternative to
/// rule out instead when a document does not fit and an unforced layout could change that.
/// `pin` sets one relationship's layout, to size an alternative that lost.
fn attempt(
    ctx: &context::Ctx<'_>,
    ineligible: &[Vec<relation::Ineligible>],
    pin: Option<(usize, cost::Alternative)>,
    refit: bool,
) -> Result<Plan, Vec<(usize, relation::Ineligible)>> {
    let model = ctx.model;
    let source = ctx.source;
    let mut decisions = Vec::new();
    let mut bases: Vec<Basis> = Vec::new();
    let mut layouts = Vec::new();
    let mut declined = Vec::new();
    // Breaking an embedding cycle turns an embedding into a reference by `_id`, which may name
    // an entity another layout embeds: it is then standalone too, and everything is decided
    // again. Each round adds an entity to the referenced set, so this ends.
    ctx.referenced.borrow_mut().clear();
    ctx.shared.borrow_mut().clear();
    let (choices, broken) = loop {
        let mut choices = referenced::decide_all(ctx, ineligible);
        if let Some((i, alt)) = pin {
            if let (Some(choice), Some(rel)) = (choices.get_mut(i), model.relations.get(i)) {
                relation::pin(ctx, rel, choice, alt);
            }
        }
        let before: Vec<Layout> = choices.iter().map(|c| c.strategy).collect();
        let broken = cycles::break_cycles(ctx, &mut choices);
        let changed: Vec<usize> = (0..choices.len())
            .filter(|&i| before.get(i) != choices.get(i).map(|c| &c.strategy))
            .collect();
        let found = referenced::embedded_but_named(ctx, &choices, &changed);
        if found.is_empty() {
            break (choices, broken);
        }
        ctx.referenced.borrow_mut().extend(found);
    };
    let current: Vec<fit::Current> = choices
        .iter()
        .map(|c| fit::Current {
            alt: cost::Alternative {
                layout: c.strategy,
                bucket_size: c.bucket_size,
            },
            forced: c.forced,
        })
        .collect();
    for (rel, choice) in model.relations.iter().zip(&choices) {
        let mut lay = placement::place(ctx, rel, choice);
        let copies = denormalize::copies(ctx, rel, choice, &mut lay);
        let parent = rel.end(choice.parent).entity.clone();
        let child = match choice.parent {
            crate::model::Side::Left => rel.right.entity.clone(),
            crate::model::Side::Right => rel.left.entity.clone(),
        };
        let mut rules: Vec<RuleId> = Vec::new();
        let mut add_rule = |r: RuleId| {
            if !rules.contains(&r) {
                rules.push(r);
            }
        };
        choice.rules.iter().copied().for_each(&mut add_rule);
        copies.rules.iter().copied().for_each(&mut add_rule);
        if lay.subset.is_some() {
            add_rule(RuleId::Subset);
        }
        if !lay.computed.is_empty() {
            add_rule(RuleId::Computed);
        }
        let mut facts = choice.facts.clone();
        facts.extend(copies.facts.iter().cloned());
        let mut rejected = choice.rejected.clone();
        rejected.extend(denormalize::rejected(&copies.declined));
        let copied: BTreeSet<String> = copies
            .denormalized
            .iter()
            .map(|d| d.source.clone())
            .collect();
        let basis = Basis {
            reason: choice.reason.clone(),
            copied: copied.into_iter().collect(),
            subset: lay.subset.as_ref().map(|s| s.n),
            top: rel.facts.top.as_ref().map(|t| (t.n, t.by.field.clone())),
            // Summaries kept per bucket live in each bucket, which the reason says.
            summaries: if choice.strategy == crate::model::Layout::Bucket
                && rel.facts.summary_per_bucket.is_some()
            {
                Vec::new()
            } else {
                rel.facts
                    .summary
                    .iter()
                    .map(|s| match &s.field {
                        Some(f) => format!("{}({f})", s.function.as_str()),
                        None => s.function.as_str().to_owned(),
                    })
                    .collect()
            },
            facts,
            rejected,
            obligations: lay.obligations.clone(),
        };
        let mut cost = choice.cost.clone();
        if let Some(c) = cost.as_mut() {
            cost::with_copies(ctx, rel, c, &parent, &copies.denormalized);
        }
        let s = &model.settings;
        decisions.push(Decision {
            id: rel.id.clone(),
            from: rel.left.entity.clone(),
            to: rel.right.entity.clone(),
            kind: rel.kind,
            cardinality: EndCardinalities {
                from: rel.left.cardinality.describe(),
                to: rel.right.cardinality.describe(),
                from_max: rel.left.cardinality.max(s),
                to_max: rel.right.cardinality.max(s),
            },
            parent,
            child,
            strategy: choice.strategy,
            forced: choice.forced,
            placement: lay.placement.clone(),
            rules: rules.into_iter().map(crate::plan::citation).collect(),
            because: String::new(),
            facts: Vec::new(),
            rejected: Vec::new(),
            denormalized: copies.denormalized,
            subset: lay.subset.clone(),
            bucket: lay.bucket.clone(),
            computed: lay.computed.clone(),
            outlier: lay.outlier.clone(),
            cost,
            obligations: Vec::new(),
            warnings: Vec::new(),
        });
        bases.push(basis);
        declined.extend(
            copies
                .declined
                .into_iter()
                .map(|d| (rel.id.clone(), rel.span, d)),
        );
        layouts.push((rel, lay));
    }

    {
        let mut lays: Vec<placement::Layouted> = layouts.drain(..).map(|(_, lay)| lay).collect();
        placement::mirror_kept_references(&mut lays);
        layouts = model.relations.iter().zip(lays).collect();
    }
    let mut embedded = BTreeSet::new();
    let mut referenced = BTreeSet::new();
    for d in &decisions {
        if matches!(d.strategy, Layout::Embed | Layout::Bucket) {
            embedded.insert(d.child.clone());
        }
        for p in &d.placement {
            if p.shape.refers_by_id() {
                referenced.insert(p.target.clone());
            }
        }
    }
    let placements = collections::Placements {
        placed: {
            let mut by_holder: std::collections::HashMap<_, Vec<_>> =
                std::collections::HashMap::new();
            for (rel, lay) in &layouts {
                for p in &lay.placed {
                    by_holder
                        .entry(p.holder.clone())
                        .or_default()
                        .push((p, rel.span));
                }
            }
            by_holder
        },
        extra: layouts
            .iter()
            .flat_map(|(rel, lay)| lay.extra.iter().map(move |x| (x, rel.span)))
            .collect(),
        embedded,
        referenced,
        roots: broken.roots.clone(),
        too_deep: Default::default(),
    };
    let mut spans = collections::SpanIndex::new();
    let mut collections = collections::build(ctx, &placements, &mut spans);
    relocate(&mut decisions, &collections);
    copy_sites::place(&mut decisions, &mut bases, &collections);
    placement::subset_children(&mut decisions, &collections);
    for (d, basis) in decisions.iter_mut().zip(&bases) {
        crate::prose::decision::render(d, basis);
    }
    let joins = indexes::plan(ctx, &mut collections, &decisions);
    size::estimate(&mut collections);
    if refit {
        let limit = model.settings.doc_max_size;
        let next = fit::next(&collections, &decisions, &current, ineligible, limit);
        if !next.is_empty() {
            return Err(next);
        }
    }

    let queries = queries::plan(ctx, &collections, &decisions);
    let mut emit = warnings::Emit {
        ctx,
        out: context::Warnings::default(),
    };
    for ((rel, _), d) in layouts.iter().zip(&decisions) {
        warnings::forced(&mut emit, rel, d);
        warnings::expiring_kept(&mut emit, rel, d);
        warnings::summary_not_bucketed(&mut emit, rel, d);
        warnings::whole_page(&mut emit, rel, d);
        warnings::kept_id_dropped(&mut emit, rel, d);
        warnings::summary_not_kept(&mut emit, rel, d);
        warnings::kept_elsewhere(&mut emit, rel, d, &decisions, &collections);
        warnings::counters_in_arrays(&mut emit, rel, d);
    }
    warnings::forced_cycles(&mut emit, &broken.forced, &model.relations);
    warnings::collections(
        &mut emit,
        &collections,
        &decisions,
        &spans,
        &placements.too_deep.borrow(),
    );
    hot::warn(&mut emit, &collections, &spans);
    warnings::queries(&mut emit, &joins, &declined);
    warnings::unstored(&mut emit, &queries, &decisions);
    queries::returns_not_stored(&mut emit, &collections);
    queries::returns_array_children(&mut emit, &queries);
    warnings::too_deep(&mut emit, &placements.too_deep.borrow());
    warnings::unused_values(&mut emit, &unused::find(model));
    let mut list = emit.out.list;
    list.sort_by(|a, b| {
        (a.0.start, &a.1.code, &a.1.message).cmp(&(b.0.start, &b.1.code, &b.1.message))
    });
    list.dedup_by(|a, b| a.1 == b.1);
    let warnings: Vec<_> = list.into_iter().map(|(_, w)| w).collect();
    let mut by_relation: std::collections::BTreeMap<&str, Vec<String>> =
        std::collections::BTreeMap::new();
    for w in &warnings {
        if let Some(r) = &w.relation {
            let codes = by_relation.entry(r.as_str()).or_default();
            if codes.last() != Some(&w.code) {
                codes.push(w.code.clone());
            }
        }
    }
    for d in &mut decisions {
        d.warnings = by_relation.remove(d.id.as_str()).unwrap_or_default();
    }

    Ok(Plan {
        format_version: Plan::FORMAT_VERSION,
        source: source.name().to_owned(),
        settings: model.settings.clone(),
        collections,
        queries,
        relationships: decisions,
        warnings,
    })
}

/// What one decision rests on, as data, kept until every name is final and then worded by
/// `crate::prose::decision::render`.
pub(crate) struct Basis {
    pub reason: basis::Reason,
    /// `Entity.field` of every copy made (rule 5).
    pub copied: Vec<String>,
    /// `latest N` kept in the parent (subset pattern).
    pub subset: Option<u64>,
    /// `top N by field` kept in the parent (computed pattern).
    pub top: Option<(u64, String)>,
    /// The summaries kept in the parent (`count`, `avg(stars)`; computed pattern).
    pub summaries: Vec<String>,
    pub facts: Vec<basis::Fact>,
    pub rejected: Vec<relation::Rejection>,
    pub obligations: Vec<basis::Obligation>,
}

/// Placements and copies name their holder entity's collection; when that entity is itself
/// embedded (in a parent or in buckets), the field lives inside those documents instead: point at
/// the collection and full path where it really is.
fn relocate(decisions: &mut [Decision], collections: &[crate::plan::Collection]) {
    use std::collections::BTreeMap;
    fn walk<'c>(
        c: &'c str,
        fields: &[crate::plan::PlanField],
        out: &mut BTreeMap<(String, String), Vec<(&'c str, String)>>,
    ) {
        for f in fields {
            if let Some(rel) = &f.relation {
                out.entry((rel.clone(), f.name.clone()))
                    .or_default()
                    .push((c, f.path.clone()));
            }
            walk(c, &f.children, out);
        }
    }
    let mut sites = BTreeMap::new();
    for c in collections {
        walk(&c.name, &c.fields, &mut sites);
    }
    let exists: BTreeSet<&str> = collections.iter().map(|c| c.name.as_str()).collect();
    for d in decisions {
        for p in &mut d.placement {
            if exists.contains(p.collection.as_str()) {
                continue;
            }
            let last = p.path.rsplit('.').next().unwrap_or(&p.path).to_owned();
            if let Some((c, path)) = sites.get(&(d.id.clone(), last)).and_then(|v| v.first()) {
                p.collection = (*c).to_owned();
                p.path = path.clone();
            }
        }
        for x in &mut d.denormalized {
            if exists.contains(x.collection.as_str()) {
                continue;
            }
            let head = x
                .copy_path
                .split('.')
                .next()
                .unwrap_or(&x.copy_path)
                .to_owned();
            if let Some((c, path)) = sites
                .get(&(d.id.clone(), head.clone()))
                .and_then(|v| v.first())
            {
                let tail = &x.copy_path[head.len()..];
                x.collection = (*c).to_owned();
                x.copy_path = format!("{path}{tail}");
                x.fan_out.collection = (*c).to_owned();
                x.fan_out.match_path = format!(
                    "{path}{}",
                    &x.fan_out.match_path[head.len().min(x.fan_out.match_path.len())..]
                );
                x.fan_out.set_path = format!(
                    "{path}{}",
                    &x.fan_out.set_path[head.len().min(x.fan_out.set_path.len())..]
                );
            }
        }
    }
}
