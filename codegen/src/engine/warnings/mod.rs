//! Anti-pattern warnings (seed 002, DOMAIN.md) and forced-layout warnings, each with a code, the
//! rule it comes from, the numbers, and the place in the `.sqn` file.

use squillion_grammar::Span;

use crate::model::{Layout, Relation, RelationKind, SummaryFn};
use crate::plan::{citation, Decision, RuleId, Severity, Shape, Warning};
use crate::prose::plural;

use super::context::{Ctx, Warnings};
use super::relation::broken_rules;

/// Stable codes of plan warnings.
pub mod codes;
mod collections;
mod kept_elsewhere;
mod pages;

pub(crate) use collections::collections;
pub(crate) use kept_elsewhere::kept_elsewhere;
pub(crate) use pages::whole_page;

pub(crate) struct Emit<'a, 'c> {
    pub ctx: &'a Ctx<'c>,
    pub out: Warnings,
}

impl Emit<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub fn warn(
        &mut self,
        code: &str,
        severity: Severity,
        rule: RuleId,
        span: Span,
        message: String,
        help: Option<String>,
        collection: Option<&str>,
        relation: Option<&str>,
    ) {
        self.out.push(
            span,
            Warning {
                code: code.to_owned(),
                severity,
                rule: citation(rule),
                message,
                help,
                position: self.ctx.position(span),
                collection: collection.map(str::to_owned),
                relation: relation.map(str::to_owned),
            },
        );
    }
}

/// A parent that keeps copies (`latest`, `top`) or summaries of children whose documents expire:
/// the TTL index deletes children behind the repositories' back, so nothing refills the parent.
pub(crate) fn expiring_kept(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    let Some((field, ttl)) = e.ctx.expiring(&d.child) else {
        return;
    };
    let lists: Vec<&str> = d
        .subset
        .iter()
        .map(|s| s.path.as_str())
        .chain(d.computed.iter().map(|c| c.path.as_str()))
        .collect();
    if lists.is_empty() {
        return;
    }
    let named: Vec<String> = lists.iter().map(|p| format!("`{p}`")).collect();
    // The lists' refills recompute the summaries too; summaries alone have none.
    let top = d.computed.iter().filter_map(|c| match c.function {
        crate::plan::ComputedFn::TopN { .. } => Some(c.path.as_str()),
        _ => None,
    });
    let refills: Vec<String> = d
        .subset
        .iter()
        .map(|s| s.path.as_str())
        .chain(top)
        .map(|p| format!("`refill_{p}`"))
        .collect();
    let refill = if refills.is_empty() {
        "recompute them after expiry from a scheduled job".to_owned()
    } else {
        format!(
            "refill them after expiry from a scheduled job ({})",
            refills.join(", ")
        )
    };
    let span = rel
        .facts
        .latest
        .as_ref()
        .map(|l| l.span)
        .or(rel.facts.top.as_ref().map(|t| t.span))
        .unwrap_or(rel.span);
    let rule = if d.subset.is_some() {
        RuleId::Subset
    } else {
        RuleId::Computed
    };
    e.warn(
        codes::EXPIRING_KEPT,
        Severity::Warning,
        rule,
        span,
        format!(
            "each {} keeps copies or summaries of its {} ({}), but {} documents expire {} after `{field}` (@expires): the TTL index deletes them without refilling the {}, so it goes on showing or counting expired {}",
            d.parent,
            crate::prose::plural(&d.child),
            named.join(", "),
            d.child,
            super::context::duration_words(ttl),
            d.parent,
            crate::prose::plural(&d.child)
        ),
        Some(format!(
            "{refill}, or delete expired {} through the repository, whose `delete` refills; or drop `@expires` from {}.{field}",
            crate::prose::plural(&d.child),
            d.child
        )),
        None,
        Some(&d.id),
    );
}

/// `summary ... per bucket` on children the layout does not put in buckets: the parent keeps the
/// summaries, as it would without `per bucket`.
pub(crate) fn summary_not_bucketed(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    let Some(span) = rel.facts.summary_per_bucket else {
        return;
    };
    if d.strategy == Layout::Bucket {
        return;
    }
    e.warn(
        codes::SUMMARY_NOT_BUCKETED,
        Severity::Warning,
        RuleId::Computed,
        span,
        format!(
            "the summaries are kept `per bucket`, but {} are not bucketed ({}): each {} keeps them",
            plural(&d.child),
            d.strategy.as_str(),
            d.parent
        ),
        Some(not_bucketed_help(rel, d)),
        None,
        Some(&d.id),
    );
}

/// W127's help: the facts that bucket children when none is written; when one is (`page`,
/// `time_range`), why the decision did not bucket them all the same (its rejected `bucket`).
fn not_bucketed_help(rel: &Relation, d: &Decision) -> String {
    let children = plural(&d.child);
    if d.forced {
        return format!(
            "`force {}` keeps the {children} out of buckets: remove `per bucket`, or `force bucket(N)` instead",
            d.strategy.as_str()
        );
    }
    let read = match (&rel.facts.page, &rel.facts.time_range) {
        (Some(_), _) => "a page at a time",
        (None, Some(_)) => "by a time range",
        (None, None) => {
            return format!(
                "remove `per bucket`, or bucket the {children} (`page N`, `time_range by f`, or `force bucket(N)`)"
            )
        }
    };
    let why = match d
        .rejected
        .iter()
        .find(|r| r.strategy == Layout::Bucket.as_str())
    {
        Some(r) => format!("bucket was rejected: {}", r.why),
        None => format!(
            "the decision keeps them as {} (its reasons say why)",
            d.strategy.as_str()
        ),
    };
    format!(
        "the {children} are read {read}, but not bucketed: {why}; remove `per bucket`, or `force bucket(N)` to keep the summaries in buckets"
    )
}

/// Summaries of a many-to-many relationship that no generated write keeps: the repository
/// recomputes only the `count` of an array of ids (`one_way`, `parent_refs`: a user's
/// `following_count`); a `two_way` link, a link collection, an array of references with fields,
/// and totals, largest or smallest values of the other side's fields, are not kept.
pub(crate) fn summary_not_kept(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    if rel.kind != RelationKind::ManyToMany || rel.facts.summary.is_empty() {
        return;
    }
    let ids = matches!(d.strategy, Layout::OneWay | Layout::ParentRefs)
        && d.placement.iter().any(|p| p.shape == Shape::ArrayOfIds);
    let unkept: Vec<String> = rel
        .facts
        .summary
        .iter()
        .filter(|s| !(ids && s.function == SummaryFn::Count))
        .map(|s| match &s.field {
            Some(f) => format!("{}({f})", s.function.as_str()),
            None => s.function.as_str().to_owned(),
        })
        .collect();
    if unkept.is_empty() {
        return;
    }
    e.warn(
        codes::SUMMARY_NOT_KEPT,
        Severity::Warning,
        RuleId::Computed,
        rel.span,
        format!(
            "the summaries {} of many-to-many {} ({}) are not kept by any generated write: they would stay at their initial value",
            unkept.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(", "),
            d.id,
            d.strategy.as_str()
        ),
        Some(
            "read the count from the array the document holds, or count with a declared query's `count_<q>`, or keep the value in the application; only `summary count` of an array of ids (`one_way`, `parent_refs`) is kept on write"
                .to_owned(),
        ),
        None,
        Some(&d.id),
    );
}

/// W130 at a `latest`/`top` fact that keeps `id` of children the layout stores as elements
/// without one (bucket elements; children embedded in another entity): the Plan's copies hold the
/// other fields only, so the list cannot lead to a child on its own.
pub(crate) fn kept_id_dropped(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    use crate::plan::ComputedFn;
    // The lists of copies the Plan makes, and whether their copies hold the child's `_id`
    // (embedded children without outlier are the latest N themselves: no list, nothing dropped).
    let top = d.computed.iter().find_map(|c| match &c.function {
        ComputedFn::TopN { child_id, .. } => Some(!child_id.is_empty()),
        _ => None,
    });
    let lists = [
        (
            "latest",
            rel.facts.latest.as_ref(),
            d.subset.as_ref().map(|s| !s.child_id.is_empty()),
        ),
        ("top", rel.facts.top.as_ref(), top),
    ];
    for (fact, list, has_id) in lists {
        let (Some(list), Some(false)) = (list, has_id) else {
            continue;
        };
        if !list.keep.iter().any(|k| k == "_id") {
            continue;
        }
        let place = if d.bucket.is_some() {
            "bucket elements"
        } else {
            "embedded elements"
        };
        e.warn(
            codes::KEPT_ID_DROPPED,
            Severity::Warning,
            RuleId::Subset,
            list.span,
            format!(
                "`{fact} ... keep id`: {} are {place} ({}), which have no `_id`: the copies in each {} hold the other kept fields only",
                plural(&d.child),
                d.strategy.as_str(),
                d.parent
            ),
            Some(format!(
                "remove `id` from `keep`; to reach a {} on its own, make it `standalone {}` (a document of its own, whose copies keep its `_id`)",
                d.child, d.child
            )),
            None,
            Some(&d.id),
        );
    }
}

/// W128 at each value type that no stored field uses, directly or through other value types
/// (`super::unused`): nothing the database holds has its shape.
pub(crate) fn unused_values(e: &mut Emit<'_, '_>, unused: &[super::unused::UnusedValue<'_>]) {
    for u in unused {
        let name = &u.value.name;
        let users: Vec<String> = u.used_by.iter().map(|v| format!("`{v}`")).collect();
        let message = match users.as_slice() {
            [] => format!(
                "value type `{name}` is declared, but no field uses it: no document stores it and no Rust type is generated for it"
            ),
            [one] => format!(
                "value type `{name}` is used only by {one}, which no field uses either: no document stores it and no Rust type is generated for it"
            ),
            [init @ .., last] => format!(
                "value type `{name}` is used only by {} and {last}, which no field uses either: no document stores it and no Rust type is generated for it",
                init.join(", ")
            ),
        };
        let example = format!("`{}: {name}`", super::context::snake(name));
        let help = if users.is_empty() {
            format!("use it in a field of an entity or relationship, e.g. {example}, or remove it")
        } else {
            format!(
                "use it in a field of an entity or relationship, e.g. {example} (a field of type {} uses it too), or remove it together with {}",
                users.join(" or "),
                users.join(" and ")
            )
        };
        e.warn(
            codes::UNUSED_VALUE,
            Severity::Warning,
            RuleId::DocumentShape,
            u.value.span,
            message,
            Some(help),
            None,
            None,
        );
    }
}

/// A `@counter` field whose values the layout keeps in the elements of an array, where the
/// repository has no `inc_<array>_<f>` or guarded `dec_<array>_<f>` for one element (issue 13):
/// the derive writes them for a required number of the elements of an embedded bounded array
/// in the holder's document, identified by the referenced `id` (references with the
/// relationship's fields) or a required `@unique` field (embedded children); not for children
/// that overflow (outliers) or sit in buckets, nor for fields kept on both sides (`two_way`).
pub(crate) fn counters_in_arrays(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    use crate::model::FieldType;
    use crate::plan::Shape;
    use crate::prose::counters::{help, message, CounterInArray, Unkept};
    let child_fields = e
        .ctx
        .entity(&d.child)
        .map(|c| c.fields.as_slice())
        .unwrap_or_default();
    // A required, unique scalar of the child: what finds one embedded child in its array.
    let key = child_fields
        .iter()
        .find(|f| f.facts.unique && !f.optional && matches!(f.ty, FieldType::Scalar { .. }));
    for p in &d.placement {
        let (fields, of_child) = match p.shape {
            Shape::ArrayOfSubdocuments if p.target == d.child => (child_fields, true),
            Shape::ArrayOfSubdocuments | Shape::ArrayOfExtendedRefs => {
                (rel.fields.as_slice(), false)
            }
            _ => continue,
        };
        let overflows = d
            .outlier
            .as_ref()
            .is_some_and(|o| o.collection == p.collection && o.path == p.path);
        let held = p.max_items.is_some() && !p.path.contains('.');
        for f in fields.iter().filter(|f| f.facts.counter) {
            let why = match (of_child, d.strategy) {
                _ if f.optional => Some(Unkept::Optional),
                (true, Layout::Bucket) => Some(Unkept::Buckets),
                (true, _) if overflows => Some(Unkept::Overflow),
                (true, Layout::Embed) if held && key.is_some_and(|k| !std::ptr::eq(k, f)) => None,
                (true, _) => Some(Unkept::NoIdentity),
                (false, Layout::ParentRefs | Layout::OneWay)
                    if held && p.shape == Shape::ArrayOfExtendedRefs =>
                {
                    None
                }
                (false, _) => Some(Unkept::BothSides),
            };
            let Some(why) = why else {
                continue;
            };
            let owner = if of_child {
                d.child.clone()
            } else {
                format!("the relationship {}", d.id)
            };
            let c = CounterInArray {
                field: &f.name,
                owner: &owner,
                child: of_child.then_some(d.child.as_str()),
                collection: &p.collection,
                path: &p.path,
                why,
            };
            e.warn(
                codes::COUNTER_IN_ARRAY,
                Severity::Warning,
                RuleId::Rule2,
                f.span,
                message(&c),
                Some(help(&c)),
                Some(&p.collection),
                Some(&d.id),
            );
        }
    }
}

/// Warnings about one relationship: a forced layout's broken rules.
pub(crate) fn forced(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    if !d.forced {
        return;
    }
    let span = rel.facts.force.map(|f| f.span).unwrap_or(rel.span);
    let embeds = matches!(
        d.strategy,
        crate::model::Layout::Embed | crate::model::Layout::Bucket
    );
    let expiring = e.ctx.expiring(&d.child).filter(|_| embeds);
    if let Some((field, ttl)) = expiring {
        let holder = if d.strategy == crate::model::Layout::Bucket {
            "bucket document"
        } else {
            d.parent.as_str()
        };
        e.warn(
            codes::EXPIRING_EMBEDDED,
            Severity::Error,
            RuleId::Rule2,
            span,
            format!(
                "forced layout {} for {} puts {} inside each {holder}, but {} documents expire {} after `{field}` (@expires): MongoDB's TTL index would delete the whole {holder} with every {} it holds",
                d.strategy.as_str(),
                d.id,
                crate::prose::plural(&d.child),
                d.child,
                super::context::duration_words(ttl),
                d.child
            ),
            Some(format!(
                "remove `force {}`: an entity with a lifecycle of its own keeps its own collection (rule 2); or drop `@expires` from {}.{field} if it should live as long as its {}",
                d.strategy.as_str(),
                d.child,
                d.parent
            )),
            None,
            Some(&d.id),
        );
    }
    for (rule, broken) in broken_rules(e.ctx, rel, d.strategy) {
        let why = crate::prose::decision::broken(&broken);
        if expiring.is_some() && rule == RuleId::Rule2 {
            // Said by the error above.
            continue;
        }
        e.warn(
            codes::FORCED_LAYOUT,
            Severity::Warning,
            rule,
            span,
            format!(
                "forced layout {} for {} breaks {}: {why}",
                d.strategy.as_str(),
                d.id,
                rule_name(rule)
            ),
            Some(
                "remove `force` to let the engine choose, or keep it if you accept the cost"
                    .to_owned(),
            ),
            None,
            Some(&d.id),
        );
    }
}

/// Error W121 for each cycle of forced embeddings, at the first one's `force`.
pub(crate) fn forced_cycles(
    e: &mut Emit<'_, '_>,
    cycles: &[super::cycles::ForcedCycle],
    relations: &[Relation],
) {
    for cycle in cycles {
        let mut rels: Vec<&Relation> = cycle
            .relations
            .iter()
            .filter_map(|i| relations.get(*i))
            .collect();
        rels.sort_by_key(|r| r.span.start);
        let Some(first) = rels.first() else {
            continue;
        };
        let span = first.facts.force.map(|f| f.span).unwrap_or(first.span);
        let ids: Vec<&str> = rels.iter().map(|r| r.id.as_str()).collect();
        let message = if rels.len() == 1 {
            format!(
                "forced layout embed for {} embeds {} inside itself one-to-one: each would hold its partner, which holds it in turn, and no {} would be stored in a collection",
                first.id, first.left.entity, first.left.entity
            )
        } else {
            format!(
                "forced layouts embed {} inside each other in a cycle ({}): each would live inside another and none would be stored in a collection",
                {
                    let mut names: Vec<&str> = rels.iter().map(|r| r.left.entity.as_str()).collect();
                    names.sort_unstable();
                    names.dedup();
                    names.join(", ")
                },
                ids.join(", ")
            )
        };
        e.warn(
            codes::FORCED_EMBEDDING_CYCLE,
            Severity::Error,
            RuleId::Rule1,
            span,
            message,
            Some(format!(
                "remove `force embed` from one of {}: the engine then breaks the cycle with a reference and keeps a collection for its root",
                ids.join(", ")
            )),
            None,
            Some(&first.id),
        );
    }
}

fn rule_name(rule: RuleId) -> String {
    let c = citation(rule);
    match c.number {
        Some(n) => format!("rule {n} ({})", c.title.to_lowercase()),
        None => c.title.to_lowercase(),
    }
}

/// A query some of whose conditions or sort keys the chosen layout does not store in its
/// collection: it gets no method, since without them it would return the wrong documents.
pub(crate) fn unstored(
    e: &mut Emit<'_, '_>,
    queries: &[crate::plan::QueryPlan],
    decisions: &[crate::plan::Decision],
) {
    for qp in queries.iter().filter(|q| !q.unstored.is_empty()) {
        let Some(q) = e.ctx.query(&qp.name) else {
            continue;
        };
        let paths: Vec<String> = qp.unstored.iter().map(|p| format!("`{p}`")).collect();
        let help = unstored_help(e.ctx, qp, decisions);
        e.warn(
            codes::QUERY_NOT_STORED,
            Severity::Warning,
            RuleId::Rule6,
            q.span,
            format!(
                "query `{}` uses {} of {}, which the chosen layout does not store in `{}`: no repository method is generated for it",
                qp.name,
                paths.join(", "),
                qp.entity,
                qp.collection
            ),
            Some(help),
            Some(&qp.collection),
            None,
        );
    }
}

/// What to do about a query's unstored path, from the layout of the relationship it goes
/// through (its first segment, a relation end of the queried entity).
fn unstored_help(
    ctx: &Ctx<'_>,
    qp: &crate::plan::QueryPlan,
    decisions: &[crate::plan::Decision],
) -> String {
    let generic = "query the collection that holds it (the owner of an embedded entity)";
    let through = qp.unstored.iter().find_map(|path| {
        let first = path.split('.').next()?;
        let rel = ctx.relations_at(&qp.entity).iter().find(|r| {
            [&r.left, &r.right]
                .iter()
                .any(|end| end.entity == qp.entity && end.field == first)
        })?;
        let other = if rel.left.entity == qp.entity && rel.left.field == first {
            &rel.right
        } else {
            &rel.left
        };
        let d = decisions.iter().find(|d| d.id == rel.id)?;
        Some((d, other))
    });
    let Some((d, other)) = through else {
        return generic.to_owned();
    };
    if d.forced {
        return format!("{generic}, or remove the `force` on {} that moved it", d.id);
    }
    let held = d
        .placement
        .iter()
        .find(|p| p.collection != qp.collection)
        .map(|p| format!("`{}.{}`", p.collection, p.path));
    match (d.strategy, held) {
        (Layout::LinkCollection, Some(at)) => format!(
            "{} keeps one document per pair in its own collection ({at}): find the {} there \
             first (one indexed query), then query {} by their ids with the other conditions",
            d.id,
            plural(&qp.entity),
            qp.entity
        ),
        (_, Some(at)) => format!(
            "{} stores the link on the other side ({at}): query {} through its `{}` instead",
            d.id, other.entity, other.field
        ),
        (_, None) => generic.to_owned(),
    }
}

/// Warnings about queries and declined copies.
pub(crate) fn queries(
    e: &mut Emit<'_, '_>,
    joins: &[(String, String)],
    declined: &[(String, Span, super::denormalize::Declined)],
) {
    for (query, field) in joins {
        let Some(q) = e.ctx.query(query) else {
            continue;
        };
        e.warn(
            codes::QUERY_NEEDS_JOIN,
            Severity::Warning,
            RuleId::Rule4,
            q.span,
            format!("query `{query}` filters on {field}, which is not copied into `{}`: it needs an application-level join (two queries)", q.entity),
            Some(format!("state `show {field} on {} ratio R:1` with a ratio of at least {} to copy it", q.entity, e.ctx.settings.denormalize_min_ratio)),
            None,
            None,
        );
    }
    for (relation, span, d) in declined {
        if d.for_query.is_some() {
            continue;
        }
        e.warn(
            codes::COPY_DECLINED,
            Severity::Info,
            RuleId::Rule5,
            *span,
            format!(
                "{} is not copied ({relation}): {}",
                d.source,
                crate::prose::decision::declined(&d.source, &d.reason)
            ),
            None,
            None,
            Some(relation),
        );
    }
    for q in &e.ctx.model.queries {
        if let Some(c) = q.conditions.iter().find(|c| c.ignore_case) {
            let span = c.span;
            let name = q.name.clone();
            let path = c.path.dotted();
            e.warn(
                codes::CASE_INSENSITIVE_QUERY,
                Severity::Info,
                RuleId::Indexing,
                span,
                format!("query `{name}` compares `{path}` case-insensitively: the Plan adds an index with collation strength 2, and the query must use the same collation"),
                None,
                None,
                None,
            );
        }
    }
}

/// Embedding chains cut at the engine's depth limit.
pub(crate) fn too_deep(e: &mut Emit<'_, '_>, cut: &[(String, String, Span)]) {
    for (collection, path, span) in cut.iter().take(20) {
        e.warn(
            codes::EMBEDDING_TOO_DEEP,
            Severity::Error,
            RuleId::DocumentSize,
            *span,
            format!(
                "`{collection}.{path}`: entities embedded inside each other more than {} levels deep; MongoDB refuses documents nested deeper than 100 levels",
                super::collections::MAX_EMBEDDING_DEPTH
            ),
            Some("declare one of the children `standalone` (or `force child_ref`) to break the chain".to_owned()),
            Some(collection),
            None,
        );
    }
}
