//! Warnings about collection shapes: document sizes, large arrays, indexes and validators.

use squillion_grammar::Span;

use crate::plan::{
    Collection, CollectionRole, Decision, FieldKind, IndexUse, PlanField, RuleId, Severity,
};

use crate::engine::collections::SpanIndex;
use crate::engine::context::count;
use crate::prose::bytes as bytes_words;

use super::{codes, Emit};

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
                let cause = crate::engine::fit::cause(c, decisions, w - s.doc_max_size);
                let (why, help) = crate::prose::rejections::oversize_cause(&cause);
                let severity = if forced_collections.contains(c.name.as_str()) { Severity::Warning } else { Severity::Error };
                e.warn(
                    codes::DOCUMENT_TOO_LARGE,
                    severity,
                    RuleId::DocumentSize,
                    entity_span,
                    format!("{} document can reach {} in the worst case, over MongoDB's {} limit: {why}", crate::prose::a(&format!("`{}`", c.name)), bytes_words(w), bytes_words(s.doc_max_size)),
                    Some(help),
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
                    "{} document can reach {} in the worst case (warning from {})",
                    crate::prose::a(&format!("`{}`", c.name)),
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
                    "{} document has no worst-case size (about {} on average): {}",
                    crate::prose::a(&format!("`{}`", c.name)),
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
                    "{} document is about {} on average, over the warning size of {}",
                    crate::prose::a(&format!("`{}`", c.name)),
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
                    Some(if f.max_items.is_some() && layout_made(i) {
                        "the layout reads or updates through this index; each element costs an \
                         index entry, so keep the array's bound as low as the data allows"
                            .to_owned()
                    } else {
                        "index arrays only when a query needs it, and keep them bounded".to_owned()
                    }),
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
            Some(
                "embed the entities that are always read with their parent, merge entities of one \
                 shape into one collection (@polymorphic), or raise `max_collections` in `settings`"
                    .to_owned(),
            ),
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
                        // A subset or a top-N list keeps exactly the N the schema asked for (seed
                        // 004 keeps 1,000): a note, not a warning.
                        // So is a bounded array of static children: it never grows.
                        let fixed = f
                            .relation
                            .as_deref()
                            .and_then(|r| e.ctx.relation(r))
                            .is_some_and(|r| e.ctx.is_static(r));
                        // A `latest` list is copies, a `top` list computed: both hold exactly N.
                        let kept = matches!(f.kind, FieldKind::Denormalized | FieldKind::Computed);
                        let chosen = (kept || fixed) && f.max_items.is_some();
                        e.warn(
                            codes::LARGE_EMBEDDED_ARRAY,
                            if chosen { Severity::Info } else { Severity::Warning },
                            RuleId::Rule3,
                            span,
                            message,
                            Some(if f.max_items.is_none() && f.relation.is_some() {
                                "bound the relationship's end (`few(20)`, `many(500)`), or let the children be referenced instead of embedded (no `force embed`)".to_owned()
                            } else if f.max_items.is_none() {
                                "declare a bound, e.g. `[string; 20]`".to_owned()
                            } else if kept {
                                "the parent keeps exactly the number of copies `latest` or `top` asks for: lower it if fewer are shown".to_owned()
                            } else if fixed {
                                "the elements never change once loaded (static), so the array does not grow; every read of the document loads them all: declare them `standalone` if they are read apart".to_owned()
                            } else {
                                format!("keep arrays under about {} elements: bucket or reference the elements", count(s.embed_array_max))
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
            && read_often_beside(c)
        {
            e.warn(
                codes::LARGE_SELDOM_READ,
                Severity::Warning,
                RuleId::DocumentShape,
                span,
                format!(
                    "`{}.{}` holds up to {} of seldom-read data beside the fields read often: every read of {} document loads it",
                    c.name,
                    f.path,
                    bytes_words(f.size.worst.unwrap_or(f.size.average)),
                    crate::prose::a(&format!("`{}`", c.name))
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

/// Whether a document of `c` holds data read often (its own fields or copies, not marked
/// `@seldom_read`) beside its seldom-read ones: W109's concern. A collection holding only the
/// seldom-read side and its references (the one-to-one entity W109's help asks for, which the
/// engine keeps out of the hot document) loads nothing it does not need.
fn read_often_beside(c: &Collection) -> bool {
    c.fields.iter().any(|g| {
        g.name != "_id"
            && !g.flags.seldom_read
            && matches!(
                g.kind,
                FieldKind::Scalar | FieldKind::Embedded | FieldKind::Denormalized
            )
    })
}

/// Whether the engine made `i` for a layout's own reads or writes (another direction, a fan-out),
/// not for a declared field fact or a query.
fn layout_made(i: &crate::plan::Index) -> bool {
    i.serves
        .iter()
        .all(|u| matches!(u, IndexUse::Relationship { .. } | IndexUse::Pattern))
}
