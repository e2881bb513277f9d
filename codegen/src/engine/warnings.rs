//! Anti-pattern warnings (seed 002, DOMAIN.md) and forced-layout warnings, each with a code, the
//! rule it comes from, the numbers, and the place in the `.sqn` file.

use squillion_grammar::Span;

use crate::model::Relation;
use crate::plan::{
    citation, Collection, CollectionRole, Decision, FieldKind, PlanField, RuleId, Severity, Warning,
};

use super::collections::SpanIndex;
use super::context::{count, Ctx, Warnings};
use super::relation::broken_rules;
use crate::prose::bytes as bytes_words;

/// Stable codes of plan warnings.
pub mod codes {
    /// An embedded array can exceed `embed_array_max`, or has no bound.
    pub const LARGE_EMBEDDED_ARRAY: &str = "W101";
    /// An array of ids can exceed `id_array_max`.
    pub const LARGE_ID_ARRAY: &str = "W102";
    /// A document's worst case exceeds `doc_warn_size`.
    pub const LARGE_DOCUMENT: &str = "W103";
    /// A document's worst case exceeds `doc_max_size` (16 MB).
    pub const DOCUMENT_TOO_LARGE: &str = "W104";
    /// More indexes than `max_indexes` on a collection.
    pub const TOO_MANY_INDEXES: &str = "W105";
    /// More top-level fields than `max_top_level_fields`.
    pub const FLAT_DOCUMENT: &str = "W106";
    /// A case-insensitive query: the Plan adds a collation index.
    pub const CASE_INSENSITIVE_QUERY: &str = "W107";
    /// An index on an array that can be large.
    pub const INDEX_ON_LARGE_ARRAY: &str = "W108";
    /// Large, seldom-read data in a document read often.
    pub const LARGE_SELDOM_READ: &str = "W109";
    /// A forced layout breaks a rule.
    pub const FORCED_LAYOUT: &str = "W110";
    /// Flat counters restructured as nested arrays.
    pub const FLAT_COUNTERS: &str = "W112";
    /// A long field name repeated in every document.
    pub const LONG_FIELD_NAME: &str = "W113";
    /// More collections than `max_collections`.
    pub const TOO_MANY_COLLECTIONS: &str = "W114";
    /// A query filters on another entity's field without a copy: it joins in the application.
    pub const QUERY_NEEDS_JOIN: &str = "W115";
    /// A shown field is not copied (ratio missing or too low).
    pub const COPY_DECLINED: &str = "W116";
    /// An entity is embedded and also stored in a collection of its own.
    pub const EMBEDDED_AND_STORED: &str = "W117";
    /// Entities embedded inside each other deeper than MongoDB's nesting limit allows.
    pub const EMBEDDING_TOO_DEEP: &str = "W118";
    /// A query on a path the chosen layout does not store in the query's collection.
    pub const QUERY_NOT_STORED: &str = "W119";
    /// An entity whose documents expire (`@expires`) is forced inside other documents.
    pub const EXPIRING_EMBEDDED: &str = "W120";
    /// Forced embeddings form a cycle: no entity of it would have a collection.
    pub const FORCED_EMBEDDING_CYCLE: &str = "W121";
    /// A field updated often in a large document read often.
    pub const HOT_FIELD: &str = "W122";
    /// A query returns a field the chosen layout does not store in the query's collection.
    pub const RETURNS_NOT_STORED: &str = "W123";
    /// A query on a parent's children returns some fields, but the layout keeps the children in
    /// an array, whose elements the query returns whole.
    pub const RETURNS_ARRAY_CHILDREN: &str = "W124";

    /// Every plan warning code with a one-line summary.
    pub const ALL: &[(&str, &str)] = &[
        (
            LARGE_EMBEDDED_ARRAY,
            "embedded array can exceed its threshold or has no bound",
        ),
        (LARGE_ID_ARRAY, "array of ids can exceed its threshold"),
        (
            LARGE_DOCUMENT,
            "worst-case document size over the warning size (2 MB)",
        ),
        (
            DOCUMENT_TOO_LARGE,
            "worst-case document size over MongoDB's 16 MB limit",
        ),
        (TOO_MANY_INDEXES, "too many indexes on a collection"),
        (FLAT_DOCUMENT, "too many top-level fields"),
        (
            CASE_INSENSITIVE_QUERY,
            "case-insensitive query: collation index added",
        ),
        (INDEX_ON_LARGE_ARRAY, "index on a large array"),
        (LARGE_SELDOM_READ, "large, seldom-read data beside hot data"),
        (FORCED_LAYOUT, "forced layout breaks a rule"),
        (FLAT_COUNTERS, "flat counters stored as nested arrays"),
        (
            LONG_FIELD_NAME,
            "long field name repeated in every document",
        ),
        (TOO_MANY_COLLECTIONS, "too many collections"),
        (
            QUERY_NEEDS_JOIN,
            "query on another entity's field joins in the application",
        ),
        (COPY_DECLINED, "shown field not copied"),
        (EMBEDDED_AND_STORED, "entity embedded and stored on its own"),
        (
            EMBEDDING_TOO_DEEP,
            "embedding chain deeper than MongoDB's nesting limit",
        ),
        (
            QUERY_NOT_STORED,
            "query on a path the layout does not store: no method",
        ),
        (
            EXPIRING_EMBEDDED,
            "an entity whose documents expire is forced inside other documents",
        ),
        (
            FORCED_EMBEDDING_CYCLE,
            "forced embeddings form a cycle: its entities have no collection",
        ),
        (
            HOT_FIELD,
            "field updated often in a large document read often",
        ),
        (
            RETURNS_NOT_STORED,
            "query returns a field its collection does not store",
        ),
        (
            RETURNS_ARRAY_CHILDREN,
            "`returns` on children the layout keeps in an array",
        ),
    ];
}

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

/// Warnings about collection shapes, sizes and indexes.
pub(crate) fn collections(
    e: &mut Emit<'_, '_>,
    collections: &[Collection],
    decisions: &[Decision],
    spans: &SpanIndex,
    cut: &[(String, String, Span)],
) {
    let s = e.ctx.settings;
    let forced_collections: std::collections::BTreeSet<&str> = decisions
        .iter()
        .filter(|d| d.forced)
        .flat_map(|d| d.placement.iter().map(|p| p.collection.as_str()))
        .collect();
    let mut embedded_by: std::collections::BTreeMap<&str, &Decision> =
        std::collections::BTreeMap::new();
    for d in decisions {
        // A tree of its own kind nests inside its root documents: no copy to keep in step.
        if matches!(
            d.strategy,
            crate::model::Layout::Embed | crate::model::Layout::Bucket
        ) && d.parent != d.child
        {
            embedded_by.entry(d.child.as_str()).or_insert(d);
        }
    }
    for c in collections {
        let span_of = |path: &str| {
            spans
                .get(&(c.name.clone(), path.to_owned()))
                .copied()
                .unwrap_or_default()
        };
        let entity_span = e.ctx.entity(&c.entity).map(|x| x.span).unwrap_or_default();
        walk(e, c, &c.fields, spans);
        match c.size.worst {
            Some(w) if w > s.doc_max_size => {
                let severity = if forced_collections.contains(c.name.as_str()) { Severity::Warning } else { Severity::Error };
                e.warn(
                    codes::DOCUMENT_TOO_LARGE,
                    severity,
                    RuleId::DocumentSize,
                    entity_span,
                    format!("a `{}` document can reach {} in the worst case, over MongoDB's {} limit", c.name, bytes_words(w), bytes_words(s.doc_max_size)),
                    Some("bound the largest arrays or move them out of the document".to_owned()),
                    Some(&c.name),
                    None,
                );
            }
            Some(w) if w > s.doc_warn_size => e.warn(
                codes::LARGE_DOCUMENT,
                Severity::Warning,
                RuleId::DocumentSize,
                entity_span,
                format!(
                    "a `{}` document can reach {} in the worst case (warning from {})",
                    c.name,
                    bytes_words(w),
                    bytes_words(s.doc_warn_size)
                ),
                Some("large documents are slow to read and update: consider bounding arrays or splitting".to_owned()),
                Some(&c.name),
                None,
            ),
            // A chain cut at the depth limit has no worst case either, and its error
            // (`too_deep`) already says why: no second, vaguer warning.
            None if cut.iter().any(|(collection, _, _)| *collection == c.name) => {}
            None => e.warn(
                codes::LARGE_DOCUMENT,
                Severity::Warning,
                RuleId::DocumentSize,
                entity_span,
                format!(
                    "a `{}` document has no worst-case size (about {} on average): {}",
                    c.name,
                    bytes_words(c.size.average),
                    unbounded_reason(&c.fields).unwrap_or_else(|| "something in it grows without bound".to_owned())
                ),
                Some("bound every array (`[T; N]`, `few(N)`) or move what grows into its own collection".to_owned()),
                Some(&c.name),
                None,
            ),
            Some(_) if c.size.average > s.doc_warn_size => e.warn(
                codes::LARGE_DOCUMENT,
                Severity::Warning,
                RuleId::DocumentSize,
                entity_span,
                format!(
                    "a `{}` document is about {} on average, over the warning size of {}",
                    c.name,
                    bytes_words(c.size.average),
                    bytes_words(s.doc_warn_size)
                ),
                None,
                Some(&c.name),
                None,
            ),
            _ => {}
        }
        if c.indexes.len() as u64 > s.max_indexes {
            e.warn(
                codes::TOO_MANY_INDEXES,
                Severity::Warning,
                RuleId::Indexing,
                entity_span,
                format!(
                    "`{}` has {} indexes, more than {}: every insert updates them all",
                    c.name,
                    c.indexes.len(),
                    s.max_indexes
                ),
                Some(
                    "fold indexes whose keys are prefixes of others, or drop ones no query needs"
                        .to_owned(),
                ),
                Some(&c.name),
                None,
            );
        }
        if c.fields.len() as u64 > s.max_top_level_fields {
            e.warn(
                codes::FLAT_DOCUMENT,
                Severity::Warning,
                RuleId::DocumentShape,
                entity_span,
                format!("`{}` documents have {} top-level fields, more than {}", c.name, c.fields.len(), s.max_top_level_fields),
                Some("group related fields into `value` types (subdocuments): lookups skip whole subdocuments".to_owned()),
                Some(&c.name),
                None,
            );
        }
        for i in &c.indexes {
            if let Some(f) = i
                .keys
                .iter()
                .find_map(|k| large_array_on(&c.fields, &k.path, s.embed_array_max))
            {
                // A bounded array indexed for a layout's own lookups (one_way's reverse direction,
                // seed 002's indexed `follows`) is a known cost: a note, not a warning.
                let severity = if f.max_items.is_some() {
                    Severity::Info
                } else {
                    Severity::Warning
                };
                e.warn(
                    codes::INDEX_ON_LARGE_ARRAY,
                    severity,
                    RuleId::Indexing,
                    span_of(&f.path),
                    format!(
                        "index `{}` on `{}` indexes `{}`, {}: one index entry per element",
                        i.name,
                        c.name,
                        f.path,
                        f.max_items
                            .map(|m| format!("an array of up to {} elements", count(m)))
                            .unwrap_or_else(|| "an array with no bound".to_owned())
                    ),
                    Some(
                        "index arrays only when a query needs it, and keep them bounded".to_owned(),
                    ),
                    Some(&c.name),
                    None,
                );
            }
        }
        if c.role == CollectionRole::Entity {
            let embedded_elsewhere = embedded_by.get(c.entity.as_str()).copied();
            if let Some(d) = embedded_elsewhere {
                e.warn(
                    codes::EMBEDDED_AND_STORED,
                    Severity::Warning,
                    RuleId::Rule2,
                    entity_span,
                    format!("{} is embedded in {} ({}) but also has its own collection `{}`: the embedded copies must be kept in step", c.entity, d.parent, d.id, c.name),
                    Some(format!("if {} is read on its own, reference it instead of embedding", c.entity)),
                    Some(&c.name),
                    Some(&d.id),
                );
            }
        }
    }
    let entity_collections = collections.len() as u64;
    if entity_collections > s.max_collections {
        e.warn(
            codes::TOO_MANY_COLLECTIONS,
            Severity::Warning,
            RuleId::DocumentShape,
            Span::default(),
            format!(
                "the schema has {entity_collections} collections, more than {}",
                s.max_collections
            ),
            None,
            None,
            None,
        );
    }
}

/// Why a document has no worst case: the first unbounded array or recursive field.
fn unbounded_reason(fields: &[PlanField]) -> Option<String> {
    for f in fields {
        if f.recursive {
            return Some(format!(
                "`{}` nests documents of its own kind without limit",
                f.path
            ));
        }
        if (f.array_depth > 0 || f.map) && f.max_items.is_none() && f.kind != FieldKind::Pattern {
            return Some(format!("`{}` is an array with no bound", f.path));
        }
        if let Some(r) = unbounded_reason(&f.children) {
            return Some(r);
        }
    }
    None
}

fn large_array_on<'f>(fields: &'f [PlanField], path: &str, max: u64) -> Option<&'f PlanField> {
    let mut fields = fields;
    for segment in path.split('.') {
        let f = fields.iter().find(|f| f.name == segment)?;
        if f.array_depth > 0 && f.kind != FieldKind::Pattern && f.max_items.is_none_or(|m| m > max)
        {
            return Some(f);
        }
        fields = &f.children;
    }
    None
}

fn walk(e: &mut Emit<'_, '_>, c: &Collection, fields: &[PlanField], spans: &SpanIndex) {
    let s = e.ctx.settings;
    for f in fields {
        let span = spans
            .get(&(c.name.clone(), f.path.clone()))
            .copied()
            .unwrap_or_default();
        if f.array_depth > 0 {
            match f.kind {
                FieldKind::RefArray => {
                    if f.max_items.is_none_or(|m| m > s.id_array_max) {
                        e.warn(
                            codes::LARGE_ID_ARRAY,
                            Severity::Warning,
                            RuleId::Rule3,
                            span,
                            format!(
                                "`{}.{}` is an array of ids that can hold {}, more than {} (rule 3)",
                                c.name,
                                f.path,
                                f.max_items.map(count).unwrap_or_else(|| "any number".to_owned()),
                                count(s.id_array_max)
                            ),
                            Some("reference the parent from each child instead (child_ref)".to_owned()),
                            Some(&c.name),
                            f.relation.as_deref(),
                        );
                    }
                }
                FieldKind::Pattern => {}
                _ => {
                    if f.max_items.is_none_or(|m| m > s.embed_array_max) && f.inner_dims.is_empty()
                    {
                        let message = match f.max_items {
                            Some(m) => format!("`{}.{}` is an embedded array that can hold {} elements, more than {} (rule 3)", c.name, f.path, count(m), count(s.embed_array_max)),
                            None => format!("`{}.{}` is an array with no bound: arrays should not grow without bound (rule 3)", c.name, f.path),
                        };
                        // A subset keeps exactly the N the schema asked for (seed 004 keeps 1,000):
                        // a note, not a warning.
                        // So is a bounded array of static children: it never grows.
                        let fixed = f
                            .relation
                            .as_deref()
                            .and_then(|r| e.ctx.relation(r))
                            .is_some_and(|r| e.ctx.is_static(r));
                        let chosen =
                            (f.kind == FieldKind::Denormalized || fixed) && f.max_items.is_some();
                        e.warn(
                            codes::LARGE_EMBEDDED_ARRAY,
                            if chosen { Severity::Info } else { Severity::Warning },
                            RuleId::Rule3,
                            span,
                            message,
                            Some(if f.max_items.is_none() {
                                "declare a bound, e.g. `[string; 20]`".to_owned()
                            } else {
                                "keep arrays under about 200 elements: bucket or reference the elements".to_owned()
                            }),
                            Some(&c.name),
                            f.relation.as_deref(),
                        );
                    }
                }
            }
        }
        if f.kind == FieldKind::Pattern && f.bson_type == "long" && f.array_depth > 1 {
            let flat: u64 = f.max_items.unwrap_or(1) * f.inner_dims.iter().product::<u64>();
            let declared_flat = e
                .ctx
                .entity(&c.entity)
                .and_then(|x| x.fields.iter().find(|m| m.bson_name == f.name))
                .is_some_and(|m| matches!(&m.ty, crate::model::FieldType::Counters { dims } if dims.len() == 1));
            if declared_flat {
                e.warn(
                    codes::FLAT_COUNTERS,
                    Severity::Info,
                    RuleId::Histogram,
                    span,
                    format!(
                        "`{}.{}`: {} counters are stored as {} x {} nested arrays, not one flat array (updates reach an element in about {} steps instead of {})",
                        c.name,
                        f.path,
                        count(flat),
                        f.max_items.unwrap_or(0),
                        f.inner_dims.first().copied().unwrap_or(0),
                        f.max_items.unwrap_or(0) / 2 + f.inner_dims.first().copied().unwrap_or(0) / 2,
                        flat / 2
                    ),
                    None,
                    Some(&c.name),
                    None,
                );
            }
        }
        if f.flags.seldom_read
            && f.size
                .worst
                .or(Some(f.size.average))
                .is_some_and(|w| w >= 4096)
            && c.role == CollectionRole::Entity
        {
            e.warn(
                codes::LARGE_SELDOM_READ,
                Severity::Warning,
                RuleId::DocumentShape,
                span,
                format!(
                    "`{}.{}` holds up to {} of seldom-read data beside the fields read often: every read of a `{}` document loads it",
                    c.name,
                    f.path,
                    bytes_words(f.size.worst.unwrap_or(f.size.average)),
                    c.name
                ),
                Some("move it to a one-to-one entity of its own (the engine keeps large seldom-read sides out of the hot document)".to_owned()),
                Some(&c.name),
                None,
            );
        }
        if f.name.len() > 24 {
            e.warn(
                codes::LONG_FIELD_NAME,
                Severity::Info,
                RuleId::DocumentShape,
                span,
                format!(
                    "`{}.{}`: a {}-character field name is stored in every document",
                    c.name,
                    f.path,
                    f.name.len()
                ),
                Some("store a compact name with `@stored(\"...\")`".to_owned()),
                Some(&c.name),
                None,
            );
        }
        walk(e, c, &f.children, spans);
    }
}

/// A query some of whose conditions or sort keys the chosen layout does not store in its
/// collection: it gets no method, since without them it would return the wrong documents.
pub(crate) fn unstored(e: &mut Emit<'_, '_>, queries: &[crate::plan::QueryPlan]) {
    for qp in queries.iter().filter(|q| !q.unstored.is_empty()) {
        let Some(q) = e.ctx.query(&qp.name) else {
            continue;
        };
        let paths: Vec<String> = qp.unstored.iter().map(|p| format!("`{p}`")).collect();
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
            Some("query the collection that holds it (the owner of an embedded entity), or remove the `force` that moved it".to_owned()),
            Some(&qp.collection),
            None,
        );
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
