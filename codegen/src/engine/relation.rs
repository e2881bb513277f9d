//! Choosing a relationship's layout with the six rules of thumb and the seeds' patterns.
//!
//! Input: one relation and the derived facts in [`Ctx`]. Output: a [`Choice`]: the strategy, the
//! rules that chose it, the sentence that explains it, the facts used, and every rejected
//! alternative with its reason. Where each side is stored is decided later (`placement`).

use crate::model::{Layout, Navigate, Relation, RelationEnd, RelationKind, Side};
use crate::plan::{Rejected, RuleId};

use super::context::{count, max_words, plural, Ctx};

/// The outcome of the decision, before placement.
pub(crate) struct Choice {
    pub strategy: Layout,
    pub forced: bool,
    pub rules: Vec<RuleId>,
    pub because: String,
    pub facts: Vec<String>,
    pub rejected: Vec<Rejected>,
    /// The parent (owner) side; for `one_way`, the side holding the id array.
    pub parent: Side,
    /// Bucket size, for `bucket`.
    pub bucket_size: Option<u64>,
    /// Embedded elements kept in the parent before overflowing, for the outlier modifier.
    pub outlier_cap: Option<u64>,
}

/// The facts of one relation, seen from its parent.
struct View<'a> {
    rel: &'a Relation,
    parent: &'a RelationEnd,
    child: &'a RelationEnd,
    /// Children per parent, maximum in force (`None`: unbounded).
    n_max: Option<u64>,
    n_typical: Option<u64>,
    child_alone: bool,
}

pub(crate) fn decide(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let mut choice = match rel.kind {
        RelationKind::OneToOne => one_to_one(ctx, rel),
        RelationKind::OneToMany => one_to_many(ctx, rel),
        RelationKind::ManyToMany => many_to_many(ctx, rel),
    };
    if let Some(forced) = rel.facts.force {
        honour_force(&mut choice, forced.layout, forced.size, ctx, rel);
    }
    choice
}

fn view<'a>(ctx: &Ctx<'_>, rel: &'a Relation) -> View<'a> {
    let parent = rel.parent();
    let child = rel.child();
    View {
        rel,
        parent,
        child,
        n_max: parent.cardinality.max(ctx.settings),
        n_typical: parent.cardinality.typical,
        child_alone: ctx.is_standalone(&child.entity),
    }
}

fn rejected(strategy: Layout, rules: &[RuleId], why: impl Into<String>) -> Rejected {
    Rejected {
        strategy: strategy.as_str().to_owned(),
        why: why.into(),
        rules: rules.to_vec(),
    }
}

fn base_facts(ctx: &Ctx<'_>, v: &View<'_>) -> Vec<String> {
    let mut facts = vec![format!(
        "each {} has {} {} ({}.{}: {})",
        v.parent.entity,
        max_words(v.n_max),
        plural(&v.child.entity),
        v.parent.entity,
        v.parent.field,
        v.parent.cardinality.describe()
    )];
    if v.rel.kind == RelationKind::ManyToMany {
        facts.push(format!(
            "each {} has {} {} ({}.{}: {})",
            v.child.entity,
            max_words(v.child.cardinality.max(ctx.settings)),
            plural(&v.parent.entity),
            v.child.entity,
            v.child.field,
            v.child.cardinality.describe()
        ));
    }
    if let Some(t) = v.n_typical {
        facts.push(format!(
            "a {} usually has {} {}",
            v.parent.entity,
            count(t),
            v.child.entity
        ));
    }
    match ctx.standalone_reason(&v.child.entity) {
        Some(reason) => facts.push(reason),
        None => facts.push(format!(
            "{} is only read through its {}",
            v.child.entity, v.parent.entity
        )),
    }
    let f = &v.rel.facts;
    if f.append_heavy {
        facts.push(format!(
            "{} are added often (append-heavy)",
            plural(&v.child.entity)
        ));
    }
    if f.unbounded {
        facts.push(format!("{} grow without bound", plural(&v.child.entity)));
    }
    if f.atomic_move {
        facts.push(format!(
            "a {} must move between {} atomically",
            v.child.entity,
            plural(&v.parent.entity)
        ));
    }
    match &f.navigate {
        Navigate::Both => facts.push("both directions are read often".to_owned()),
        Navigate::Entity(e) => facts.push(format!("the relationship is read from {e}")),
        Navigate::Parent => {}
    }
    if let Some(p) = &f.page {
        facts.push(match &p.by {
            Some(by) => format!(
                "{} are read {} per page, by {}{}",
                plural(&v.child.entity),
                count(p.size),
                by.field,
                if by.descending { ", newest first" } else { "" }
            ),
            None => format!(
                "{} are read {} per page",
                plural(&v.child.entity),
                count(p.size)
            ),
        });
    }
    if let Some(field) = &f.time_range {
        facts.push(format!(
            "{} are queried by time range on {field}",
            v.child.entity
        ));
    }
    if !f.summary.is_empty() {
        let names: Vec<String> = f
            .summary
            .iter()
            .map(|s| match &s.field {
                Some(field) => format!("{}({field})", s.function.as_str()),
                None => s.function.as_str().to_owned(),
            })
            .collect();
        facts.push(format!("summaries wanted: {}", names.join(", ")));
    }
    if let Some(l) = &f.latest {
        facts.push(format!(
            "a {} shows its latest {} {} by {}",
            v.parent.entity,
            count(l.n),
            plural(&v.child.entity),
            l.by.field
        ));
    }
    if let Some(t) = &f.top {
        facts.push(format!(
            "a {} keeps its top {} {} by {}",
            v.parent.entity,
            count(t.n),
            plural(&v.child.entity),
            t.by.field
        ));
    }
    if !v.rel.fields.is_empty() {
        let names: Vec<&str> = v.rel.fields.iter().map(|f| f.name.as_str()).collect();
        facts.push(format!(
            "the relationship carries fields of its own: {}",
            names.join(", ")
        ));
    }
    facts
}

fn choice(
    strategy: Layout,
    parent: Side,
    rules: Vec<RuleId>,
    because: String,
    facts: Vec<String>,
    rejected: Vec<Rejected>,
) -> Choice {
    Choice {
        strategy,
        forced: false,
        rules,
        because,
        facts,
        rejected,
        parent,
        bucket_size: None,
        outlier_cap: None,
    }
}

// ---------------------------------------------------------------------------------------------

fn one_to_one(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let v = view(ctx, rel);
    let (owner, other) = (&rel.left, &rel.right);
    let mut facts = vec![format!(
        "each {} has one {} and each {} one {}",
        owner.entity, other.entity, other.entity, owner.entity
    )];
    let heavy = large_seldom_read_bytes(ctx, &other.entity);
    if let Some(r) = ctx.standalone_reason(&other.entity) {
        facts.push(r);
    }
    let embed_rules = [RuleId::Rule1];
    if let Some(bytes) = heavy {
        facts.push(format!(
            "{} holds about {} of seldom-read data",
            other.entity,
            bytes_words(bytes)
        ));
        let because = format!(
            "{} is large ({}) and seldom read, so it stays out of the hot {} document: it lives in its own collection and holds its {}'s id (seed 002: embedding is less efficient even for one-to-one when the other side is large and seldom used)",
            other.entity,
            bytes_words(bytes),
            owner.entity,
            owner.entity
        );
        let rejected = vec![rejected(
            Layout::Embed,
            &[RuleId::DocumentShape],
            format!(
                "embedding would load {} of seldom-read {} data into every read of {}",
                bytes_words(bytes),
                other.entity,
                owner.entity
            ),
        )];
        return choice(
            Layout::ChildRef,
            Side::Left,
            vec![RuleId::DocumentShape, RuleId::Rule4, RuleId::Rule6],
            because,
            facts,
            rejected,
        );
    }
    if v.child_alone {
        // An expiring child is referenced from itself only: an id in the owner would outlive it.
        if rel.facts.navigate == Navigate::Both && ctx.expiring(&other.entity).is_none() {
            let because = format!(
                "{} is read on its own and both directions are read often, so each side stores the other's id",
                other.entity
            );
            return choice(
                Layout::TwoWay,
                Side::Left,
                vec![RuleId::Rule2, RuleId::TwoWayReferencing],
                because,
                facts,
                vec![rejected(
                    Layout::Embed,
                    &[RuleId::Rule2],
                    format!("{} is read on its own", other.entity),
                )],
            );
        }
        let because = format!(
            "{} is read on its own, so it keeps its own collection and stores its {}'s id (rule 2)",
            other.entity, owner.entity
        );
        return choice(
            Layout::ChildRef,
            Side::Left,
            vec![RuleId::Rule2, RuleId::Rule4],
            because,
            facts,
            vec![rejected(
                Layout::Embed,
                &[RuleId::Rule2],
                format!("{} is read on its own (rule 2)", other.entity),
            )],
        );
    }
    facts.push(format!(
        "{} is read together with its {}",
        other.entity, owner.entity
    ));
    let because = format!(
        "one {} per {}, read together with it, so it is embedded as a subdocument: one read returns both (rule 1; seed 003: embedding is preferred for one-to-one)",
        other.entity, owner.entity
    );
    choice(
        Layout::Embed,
        Side::Left,
        embed_rules.to_vec(),
        because,
        facts,
        vec![rejected(
            Layout::ChildRef,
            &[RuleId::Rule1],
            format!(
                "a separate {} collection costs a second read for every {} and buys nothing: {} is never read on its own",
                other.entity, owner.entity, other.entity
            ),
        )],
    )
}

/// Bytes of seldom-read large data an entity carries, if it is worth keeping out of a hot
/// document (at least 4 KB, or any `@large` field also `@seldom_read`).
fn large_seldom_read_bytes(ctx: &Ctx<'_>, entity: &str) -> Option<u64> {
    let e = ctx.entity(entity)?;
    let mut total = 0;
    let mut any_large = false;
    for f in &e.fields {
        if f.facts.seldom_read {
            let bytes = f.facts.large_bytes.or(f.facts.size_bytes).unwrap_or(0);
            any_large |= f.facts.large_bytes.is_some();
            total += bytes;
        }
    }
    (any_large || total >= 4096).then_some(total)
}

pub(crate) fn bytes_words(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{} KB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

// ---------------------------------------------------------------------------------------------

fn one_to_many(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let v = view(ctx, rel);
    let s = ctx.settings;
    let facts = base_facts(ctx, &v);
    let parent_side = rel.parent_side();
    let f = &rel.facts;
    let (p, c) = (&v.parent.entity, &v.child.entity);
    let (cs, ps) = (plural(c), plural(p));
    let n_words = max_words(v.n_max);
    let over_embed = v.n_max.is_none_or(|n| n > s.embed_array_max);
    let over_ids = v.n_max.is_none_or(|n| n > s.id_array_max);
    // Children that keep arriving never live in an array of the parent, as documents or as ids
    // (rule 3; seed 000: "Continually Growing Documents").
    let growing = f.append_heavy || f.unbounded;

    // Bucket: children read a page at a time, or a time series read by time range. Summaries
    // alone are computed on the parent, not a reason to bucket.
    let time_series = f.time_range.is_some();
    if !v.child_alone && (f.page.is_some() || (time_series && (over_embed || growing))) {
        let size = f.page.as_ref().map(|p| p.size).unwrap_or(s.bucket_size);
        let mut rules = vec![RuleId::Bucket];
        if over_embed {
            rules.push(RuleId::Rule3);
        }
        if !f.summary.is_empty() {
            rules.push(RuleId::Computed);
        }
        rules.push(RuleId::Rule6);
        let because = if f.page.is_some() {
            format!(
                "{cs} are only read through their {p}, {} at a time, so they are grouped in buckets of {}: one read returns a page (seed 003 comment pages; seed 000 bookNotes)",
                count(size),
                count(size)
            )
        } else if f.summary.is_empty() {
            format!(
                "{cs} arrive as a series ({n_words} {cs} per {p}) and are read by time range, so they are grouped in buckets of {}, each holding the first and last time it covers (seed 002 IoT readings: bucket)",
                count(size)
            )
        } else {
            format!(
                "{cs} arrive as a series ({n_words} {cs} per {p}) and are read by time range with summaries, so they are grouped in buckets of {} with the summaries computed on write (seed 002 IoT readings: bucket + computed)",
                count(size)
            )
        };
        let mut rej = vec![
            rejected(
                Layout::ChildRef,
                &[RuleId::Bucket],
                format!(
                    "one document per {c} costs an index entry and a read per {c}; a bucket returns {} in one read",
                    count(size)
                ),
            ),
        ];
        if over_embed {
            rej.insert(
                0,
                rejected(
                    Layout::Embed,
                    &[RuleId::Rule3],
                    format!("{n_words} {cs} per {p} would make an unbounded array (rule 3)"),
                ),
            );
        } else {
            rej.insert(
                0,
                rejected(Layout::Embed, &[RuleId::Rule6], format!("an embedded array cannot be read a page at a time without reading every {c}")),
            );
        }
        if !over_ids {
            rej.push(rejected(
                Layout::ParentRefs,
                &[RuleId::Rule2],
                format!("{cs} are never read on their own, so they need no documents of their own to reference"),
            ));
        }
        let mut ch = choice(Layout::Bucket, parent_side, rules, because, facts, rej);
        ch.bucket_size = Some(size);
        return ch;
    }

    // Outlier: the usual parent has few children, rare ones have many.
    if let Some(typical) = v.n_typical {
        if !v.child_alone && typical <= s.embed_array_max && over_embed && !growing {
            let cap = s.embed_array_max;
            let because = format!(
                "a {p} usually has {} {cs} but rare ones have {n_words}: the usual case is embedded (up to {}) and the rare overflow goes to extra documents flagged in the {p} (seed 002 outlier pattern)",
                count(typical),
                count(cap)
            );
            let mut ch = choice(
                Layout::Embed,
                parent_side,
                vec![RuleId::Rule1, RuleId::Outlier, RuleId::Rule3],
                because,
                facts,
                vec![
                    rejected(
                        Layout::Embed,
                        &[RuleId::Rule3],
                        format!("embedding every {c} lets the rare {p} hold {n_words} (rule 3)"),
                    ),
                    rejected(
                        Layout::ChildRef,
                        &[RuleId::Rule1],
                        format!(
                            "a separate read for the {} {cs} of the usual {p} buys nothing",
                            count(typical)
                        ),
                    ),
                ],
            );
            ch.outlier_cap = Some(cap);
            return ch;
        }
    }

    // Embed: few children, never read on their own.
    if !v.child_alone && !over_embed && !growing {
        let because = format!(
            "{n_words} {cs} per {p}, only read through their {p}, so they are embedded as an array: one read returns the {p} with its {cs} (rule 1; seed 004 one-to-few)"
        );
        let mut rej = vec![rejected(
            Layout::ParentRefs,
            &[RuleId::Rule1],
            format!("{cs} are never read on their own: references would cost a second query and buy nothing"),
        )];
        rej.push(rejected(
            Layout::ChildRef,
            &[RuleId::Rule1],
            format!("a {c} collection would need an index on the {p} id and a second read"),
        ));
        return choice(
            Layout::Embed,
            parent_side,
            vec![RuleId::Rule1],
            because,
            facts,
            rej,
        );
    }

    let mut rej = Vec::new();
    let embed_reason = if v.child_alone {
        (
            RuleId::Rule2,
            format!("{cs} are read on their own (rule 2)"),
        )
    } else if growing {
        (
            RuleId::Rule3,
            format!(
                "{cs} {}: the {p} document would grow with every new {c} (rule 3; seed 000: continually growing documents)",
                growth_words(f)
            ),
        )
    } else {
        (
            RuleId::Rule3,
            format!(
                "{n_words} {cs} per {p} is more than the {} an embedded array should hold (rule 3)",
                count(s.embed_array_max)
            ),
        )
    };
    rej.push(rejected(
        Layout::Embed,
        &[embed_reason.0],
        embed_reason.1.clone(),
    ));

    // Too many for an id array: each child references its parent.
    if over_ids {
        let because = format!(
            "a {p} has {n_words} {cs}, too many even for an array of ids (rule 3), so each {c} stores its {p}'s id, indexed (seed 004 one-to-squillions)"
        );
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule3],
            format!(
                "an array of {n_words} ids exceeds the {} an id array should hold (rule 3)",
                count(s.id_array_max)
            ),
        ));
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::Rule3],
            format!("the {p} side would need an unbounded id array (rule 3)"),
        ));
        return choice(
            Layout::ChildRef,
            parent_side,
            vec![RuleId::Rule3, RuleId::Rule4],
            because,
            facts,
            rej,
        );
    }

    if f.atomic_move {
        let because = format!(
            "a {c} must move between {ps} atomically, which only one field in the {c} allows: each {c} stores its {p}'s id, and moving it is one update"
        );
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::TwoWayReferencing],
            format!("with references on both sides, moving a {c} to another {p} updates three documents: no single atomic update can do it (seed 004)"),
        ));
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::TwoWayReferencing],
            format!("moving a {c} would update two {p} arrays: not one atomic update"),
        ));
        return choice(
            Layout::ChildRef,
            parent_side,
            vec![RuleId::Rule2, RuleId::Rule6],
            because,
            facts,
            rej,
        );
    }

    // Children that keep arriving: no id array in the parent either.
    if growing {
        let because = format!(
            "{cs} {}, so no array in the {p} holds them: each {c} stores its {p}'s id, indexed, and a {p}'s {cs} are one indexed query (rule 3; seed 000: continually growing documents)",
            growth_words(f)
        );
        let why = format!(
            "an id array in the {p} would grow with every new {c} (rule 3; seed 000: continually growing documents)"
        );
        rej.push(rejected(Layout::ParentRefs, &[RuleId::Rule3], why.clone()));
        rej.push(rejected(Layout::TwoWay, &[RuleId::Rule3], why));
        return choice(
            Layout::ChildRef,
            parent_side,
            vec![RuleId::Rule3, RuleId::Rule4],
            because,
            facts,
            rej,
        );
    }

    // Children that expire on their own: an id array would keep the ids of expired ones.
    if let Some((field, _)) = ctx.expiring(c) {
        let because = format!(
            "{cs} expire on their own schedule (@expires on `{field}`), so no array in the {p} lists them: each {c} stores its {p}'s id, indexed, and an expired {c} leaves no reference behind (rule 2; rule 4)"
        );
        let why = format!(
            "an id array in the {p} would keep the ids of expired {cs}: references to nothing that fill its bound"
        );
        rej.push(rejected(Layout::ParentRefs, &[RuleId::Rule2], why.clone()));
        rej.push(rejected(Layout::TwoWay, &[RuleId::Rule2], why));
        return choice(
            Layout::ChildRef,
            parent_side,
            vec![RuleId::Rule2, RuleId::Rule4],
            because,
            facts,
            rej,
        );
    }

    if let Some(query) = child_found_through(ctx, rel) {
        let because = format!(
            "the application finds {cs} by their {p} (query `{query}`), so each {c} stores its {p}'s id, indexed: one query answers it (rule 6; seed 000 books by author)"
        );
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            format!("query `{query}` reads {cs} through the relationship: an id array in the {p} cannot answer it without first reading the {p}"),
        ));
        if f.navigate != Navigate::Both {
            return choice(
                Layout::ChildRef,
                parent_side,
                vec![RuleId::Rule6, RuleId::Rule4],
                because,
                facts,
                rej,
            );
        }
    }

    // Read from the child to its parent only: the child's own reference answers it.
    if p != c && f.navigate == Navigate::Entity(c.clone()) {
        let because = format!(
            "the application reads from a {c} to its {p} (navigate {c}), not from a {p} through an array: each {c} stores its {p}'s id (rule 6; rule 4)"
        );
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            format!("an id array in the {p} is read from the {p}; finding a {c}'s {p} through it needs a multikey index on the array, where the {c}'s own reference is one read"),
        ));
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::Rule6],
            format!("the {p} side is not navigated: its id array would only cost writes"),
        ));
        return choice(
            Layout::ChildRef,
            parent_side,
            vec![RuleId::Rule6, RuleId::Rule4],
            because,
            facts,
            rej,
        );
    }

    if f.navigate == Navigate::Both {
        let because = format!(
            "both directions are read often and {n_words} {cs} per {p} fit an id array: the {p} holds its {c} ids and each {c} holds its {p}'s id (seed 004 two-way referencing)"
        );
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            format!("finding a {c}'s {p} would need a multikey index on the {p}'s array"),
        ));
        rej.push(rejected(
            Layout::ChildRef,
            &[RuleId::Rule6],
            format!(
                "listing a {p}'s {cs} would need a query on an index instead of reading its array"
            ),
        ));
        return choice(
            Layout::TwoWay,
            parent_side,
            vec![RuleId::Rule2, RuleId::TwoWayReferencing, RuleId::Rule6],
            because,
            facts,
            rej,
        );
    }

    let because = format!(
        "{} and a {p} has {n_words} {cs}: the {p} holds an array of their ids and loads them in one `$in` query (rule 4; seed 004 one-to-many)",
        if v.child_alone { format!("{cs} are read on their own") } else { format!("{cs} are too many to embed") }
    );
    rej.push(rejected(
        Layout::ChildRef,
        &[RuleId::Rule4],
        format!("with {n_words} {cs} per {p}, an id array in the {p} serves its reads without an index on {c}"),
    ));
    let mut rules = vec![];
    rules.push(if v.child_alone {
        RuleId::Rule2
    } else {
        RuleId::Rule3
    });
    rules.push(RuleId::Rule4);
    choice(Layout::ParentRefs, parent_side, rules, because, facts, rej)
}

/// How the children arrive, for prose: "are added often and without bound".
fn growth_words(f: &crate::model::RelationFacts) -> &'static str {
    match (f.append_heavy, f.unbounded) {
        (true, true) => "are added often and without bound",
        (true, false) => "are added often (append-heavy)",
        _ => "grow without bound",
    }
}

/// A query on the child that filters through this relationship (`where author == ?` or
/// `author.name starts_with ?` on Book): the child is found by its parent.
fn child_found_through(ctx: &Ctx<'_>, rel: &Relation) -> Option<String> {
    let child = rel.child();
    ctx.queries_on(&child.entity)
        .iter()
        .find(|q| {
            q.conditions.iter().any(|c| {
                c.path
                    .through
                    .as_ref()
                    .is_some_and(|t| t.relation == rel.id)
                    || c.path.segments.first() == Some(&child.field)
            })
        })
        .map(|q| q.name.clone())
}

// ---------------------------------------------------------------------------------------------

fn many_to_many(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
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
        if let Some(typical) = end.cardinality.typical {
            let navigated = match &rel.facts.navigate {
                Navigate::Entity(e) => *e == end.entity,
                _ => true,
            };
            if typical <= s.embed_array_max
                && max.is_none_or(|m| m > s.embed_array_max)
                && navigated
            {
                let other = if side == Side::Left { r } else { l };
                let because = format!(
                    "a {} usually has {} {} but rare ones have {}: the usual ids are kept in the {} (up to {}), the rest overflow into extra documents flagged in the {} (seed 002 outlier pattern)",
                    end.entity,
                    count(typical),
                    plural(&other.entity),
                    max_words(max),
                    end.entity,
                    count(s.embed_array_max),
                    end.entity
                );
                let rej = vec![
                    rejected(
                        Layout::TwoWay,
                        &[RuleId::Rule3],
                        format!(
                            "the rare {} would hold {} ids (rule 3)",
                            end.entity,
                            max_words(max)
                        ),
                    ),
                    rejected(
                        Layout::LinkCollection,
                        &[RuleId::Rule1],
                        format!(
                            "a link document per pair costs a join for the usual {} of {} {}",
                            end.entity,
                            count(typical),
                            other.entity
                        ),
                    ),
                ];
                let mut ch = choice(
                    Layout::OneWay,
                    side,
                    vec![RuleId::OneWayEmbedding, RuleId::Outlier, RuleId::Rule3],
                    because,
                    facts,
                    rej,
                );
                ch.outlier_cap = Some(s.embed_array_max);
                return ch;
            }
        }
    }

    match (fits(l_max), fits(r_max)) {
        (true, true) => {
            if let Navigate::Entity(e) = &rel.facts.navigate {
                let side = if *e == l.entity {
                    Side::Left
                } else {
                    Side::Right
                };
                let holder = rel.end(side);
                let because = format!(
                    "the relationship is only read from {e}, so only {e} holds the ids ({} per {e})",
                    max_words(holder.cardinality.max(s))
                );
                let rej = vec![rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule6],
                    "the other direction is not read: a second id array would only cost writes",
                )];
                return choice(
                    Layout::OneWay,
                    side,
                    vec![RuleId::OneWayEmbedding, RuleId::Rule6],
                    because,
                    facts,
                    rej,
                );
            }
            let because = format!(
                "both sides are small ({} {} per {}, {} {} per {}), so each holds the other's ids: either direction is one `$in` query (seed 003 two-way embedding)",
                max_words(l_max),
                plural(&r.entity),
                l.entity,
                max_words(r_max),
                plural(&l.entity),
                r.entity
            );
            let rej = vec![
                rejected(Layout::OneWay, &[RuleId::Rule6], "reading the other direction would need a multikey index on the id array"),
                rejected(Layout::LinkCollection, &[RuleId::Rule1], "a link document per pair is the relational join table: a third collection and a join for bounded, small lists"),
            ];
            choice(
                Layout::TwoWay,
                Side::Left,
                vec![RuleId::TwoWayReferencing, RuleId::Rule4],
                because,
                facts,
                rej,
            )
        }
        (true, false) | (false, true) => {
            let side = if fits(l_max) { Side::Left } else { Side::Right };
            let holder = rel.end(side);
            let other = if side == Side::Left { r } else { l };
            let because = format!(
                "{}.{} holds {} {} but {}.{} would hold {} {}: only the small side, {}.{}, holds the ids, with a multikey index to read the other direction (seed 003 one-way embedding)",
                holder.entity,
                holder.field,
                max_words(holder.cardinality.max(s)),
                plural(&other.entity),
                other.entity,
                other.field,
                max_words(other.cardinality.max(s)),
                plural(&holder.entity),
                holder.entity,
                holder.field
            );
            let rej = vec![
                rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule3],
                    format!(
                        "a {} would hold {} ids, beyond the {} an id array should hold (rule 3)",
                        other.entity,
                        max_words(other.cardinality.max(s)),
                        count(s.id_array_max)
                    ),
                ),
                rejected(
                    Layout::LinkCollection,
                    &[RuleId::Rule1],
                    format!(
                        "the {} side's bounded array serves both directions without a join table",
                        holder.entity
                    ),
                ),
            ];
            choice(
                Layout::OneWay,
                side,
                vec![RuleId::OneWayEmbedding, RuleId::Rule3, RuleId::Rule4],
                because,
                facts,
                rej,
            )
        }
        (false, false) => {
            let because = format!(
                "neither side can hold an id array ({} {} per {}, {} {} per {}: rule 3), so each pair is a document in a collection of its own, indexed from both ends",
                max_words(l_max),
                plural(&r.entity),
                l.entity,
                max_words(r_max),
                plural(&l.entity),
                r.entity
            );
            let rej = vec![
                rejected(
                    Layout::TwoWay,
                    &[RuleId::Rule3],
                    "both id arrays would be unbounded (rule 3)",
                ),
                rejected(
                    Layout::OneWay,
                    &[RuleId::Rule3],
                    "either side's id array would be unbounded (rule 3)",
                ),
            ];
            choice(
                Layout::LinkCollection,
                Side::Left,
                vec![RuleId::Rule3, RuleId::LinkCollection],
                because,
                facts,
                rej,
            )
        }
    }
}

/// A many-to-many relationship that carries fields of its own (an order's lines: quantity,
/// price). When one side is bounded and the relationship is read from that side (it is the only
/// side that can hold a list, or `navigate` names it), that side keeps an array of
/// `{reference, fields}`: the order lines of every published design. Otherwise one document per
/// pair in a collection of its own.
fn with_fields(ctx: &Ctx<'_>, rel: &Relation, facts: Vec<String>) -> Choice {
    let s = ctx.settings;
    let (l, r) = (&rel.left, &rel.right);
    let fits = |end: &RelationEnd| end.cardinality.max(s).is_some_and(|n| n <= s.id_array_max);
    let names: Vec<&str> = rel.fields.iter().map(|f| f.name.as_str()).collect();
    let names = names.join(", ");
    let holder = match &rel.facts.navigate {
        Navigate::Both => None,
        Navigate::Entity(e) => [(l, Side::Left), (r, Side::Right)]
            .into_iter()
            .find(|(end, _)| end.entity == *e && fits(end)),
        Navigate::Parent => match (fits(l), fits(r)) {
            (true, false) => Some((l, Side::Left)),
            (false, true) => Some((r, Side::Right)),
            _ => None,
        },
    };
    if let Some((end, side)) = holder {
        let other = if side == Side::Left { r } else { l };
        let because = format!(
            "the relationship carries fields of its own ({names}) and is read from {}, which holds {} {}: each {} keeps an array of {{{} id, {names}}} in {}.{}, and the other direction is one query on its multikey index (order lines; seed 003 one-way embedding)",
            end.entity,
            max_words(end.cardinality.max(s)),
            plural(&other.entity),
            end.entity,
            other.entity,
            end.entity,
            end.field
        );
        let rej = vec![
            rejected(
                Layout::LinkCollection,
                &[RuleId::Rule1],
                format!(
                    "a document per pair costs a second collection and a join for every read of {}'s {}, which one bounded array serves",
                    crate::prose::a(&end.entity),
                    plural(&other.entity)
                ),
            ),
            rejected(
                Layout::TwoWay,
                &[RuleId::Rule6],
                format!(
                    "arrays on both sides would copy {names} twice and keep them in step on every change"
                ),
            ),
        ];
        return choice(
            Layout::OneWay,
            side,
            vec![RuleId::OneWayEmbedding, RuleId::Rule6],
            because,
            facts,
            rej,
        );
    }
    let because = format!(
        "the relationship carries fields of its own ({names}), which belong to neither {} nor {}, and {}: one document per pair in a collection of its own, indexed from both ends",
        l.entity,
        r.entity,
        match (&rel.facts.navigate, fits(l), fits(r)) {
            (Navigate::Both, _, _) => "both directions are read".to_owned(),
            (_, false, false) => "neither side can hold a list of them (rule 3)".to_owned(),
            _ => "both sides are read (no `navigate` names one)".to_owned(),
        }
    );
    let rej = vec![
        rejected(Layout::TwoWay, &[RuleId::Rule6], "id arrays cannot hold the relationship's own fields without copying them on both sides"),
        rejected(Layout::OneWay, &[RuleId::Rule6], "an array on one side serves only that side's reads; the other side would need a multikey index for every read"),
    ];
    choice(
        Layout::LinkCollection,
        Side::Left,
        vec![RuleId::LinkCollection, RuleId::Rule6],
        because,
        facts,
        rej,
    )
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
        choice.facts.push(format!(
            "the layout is forced to {} (the engine agrees)",
            layout.as_str()
        ));
        if layout == Layout::Bucket {
            choice.bucket_size = size.or(choice.bucket_size);
        }
        return;
    }
    let engine = choice.strategy;
    choice.rejected.retain(|r| r.strategy != layout.as_str());
    choice.rejected.insert(
        0,
        Rejected {
            strategy: engine.as_str().to_owned(),
            why: format!(
                "the engine's choice, overridden by `force {}`: {}",
                layout.as_str(),
                choice.because
            ),
            rules: choice.rules.clone(),
        },
    );
    choice.because = format!(
        "forced to {} by the schema (the engine would choose {})",
        layout.as_str(),
        engine.as_str()
    );
    choice
        .facts
        .push(format!("the layout is forced to {}", layout.as_str()));
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
pub(crate) fn broken_rules(ctx: &Ctx<'_>, rel: &Relation, layout: Layout) -> Vec<(RuleId, String)> {
    let s = ctx.settings;
    let parent = rel.parent();
    let child = rel.child();
    let n_max = parent.cardinality.max(s);
    let mut out = Vec::new();
    let child_alone = ctx.is_standalone(&child.entity);
    match layout {
        Layout::Embed => {
            if child_alone {
                out.push((
                    RuleId::Rule2,
                    format!("{} is read on its own but is embedded", child.entity),
                ));
            }
            if rel.kind != RelationKind::OneToOne && n_max.is_none_or(|n| n > s.embed_array_max) {
                out.push((
                    RuleId::Rule3,
                    format!(
                        "{} {} per {} would be embedded (more than {})",
                        max_words(n_max),
                        child.entity,
                        parent.entity,
                        count(s.embed_array_max)
                    ),
                ));
            }
            if rel.kind == RelationKind::ManyToMany {
                out.push((
                    RuleId::Rule5,
                    format!(
                        "each {} would be copied into every {} that has it",
                        child.entity, parent.entity
                    ),
                ));
            }
        }
        Layout::ParentRefs | Layout::TwoWay => {
            if n_max.is_none_or(|n| n > s.id_array_max) {
                out.push((
                    RuleId::Rule3,
                    format!(
                        "a {} would hold {} ids (more than {})",
                        parent.entity,
                        max_words(n_max),
                        count(s.id_array_max)
                    ),
                ));
            }
            if layout == Layout::TwoWay && rel.facts.atomic_move {
                out.push((RuleId::TwoWayReferencing, format!("a {} must move atomically, which two-way references cannot do in one update", child.entity)));
            }
            if layout == Layout::TwoWay && rel.kind == RelationKind::ManyToMany {
                let m = child.cardinality.max(s);
                if m.is_none_or(|n| n > s.id_array_max) {
                    out.push((
                        RuleId::Rule3,
                        format!("a {} would hold {} ids", child.entity, max_words(m)),
                    ));
                }
            }
        }
        Layout::OneWay => {
            let (a, b) = (rel.left.cardinality.max(s), rel.right.cardinality.max(s));
            if a.is_none_or(|n| n > s.id_array_max) && b.is_none_or(|n| n > s.id_array_max) {
                out.push((
                    RuleId::Rule3,
                    "both sides are too large for an id array".to_owned(),
                ));
            }
        }
        Layout::Bucket => {
            if child_alone {
                out.push((
                    RuleId::Rule2,
                    format!(
                        "{} is read on its own but is stored inside buckets",
                        child.entity
                    ),
                ));
            }
        }
        Layout::ChildRef | Layout::LinkCollection => {
            if rel.kind == RelationKind::ManyToMany && layout == Layout::ChildRef {
                out.push((
                    RuleId::Rule6,
                    "a many-to-many child has no single parent to reference".to_owned(),
                ));
            }
            if !child_alone
                && n_max.is_some_and(|n| n <= s.embed_array_max)
                && rel.fields.is_empty()
                && rel.kind != RelationKind::ManyToMany
            {
                out.push((
                    RuleId::Rule1,
                    format!(
                        "{} are few and never read on their own: embedding them is favoured",
                        child.entity
                    ),
                ));
            }
        }
    }
    if layout != Layout::Bucket
        && rel.facts.page.is_some()
        && !child_alone
        && !matches!(layout, Layout::ChildRef)
    {
        out.push((
            RuleId::Rule6,
            "children are read a page at a time; this layout cannot return one page per read"
                .to_owned(),
        ));
    }
    out
}
