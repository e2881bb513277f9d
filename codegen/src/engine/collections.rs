//! Collection shapes: each entity's document (declared fields, pattern fields, and the fields the
//! relationships placed in it, embedded entities expanded), plus the collections relationships and
//! patterns add.

use std::collections::{BTreeMap, BTreeSet};

use squillion_grammar::Span;

use crate::model::{Entity, Identity, Versioning};
use crate::plan::{
    citation, Collection, CollectionRole, FieldKind, IdPlan, PatternUse, PlanField, RuleId,
    SizeEstimate, Variants,
};

use super::context::Ctx;
use super::fields::{declared, id_type, join, new_field, reroot};
use super::placement::{ExtraCollection, Holder, Placed};

/// Where each planned field came from, for warnings: `(collection, path) -> span`.
pub(crate) type SpanIndex = BTreeMap<(String, String), Span>;

/// How many entities may be embedded one inside the other before the chain is cut.
pub(crate) const MAX_EMBEDDING_DEPTH: usize = 40;

/// What the relationships decided, as the collection builder needs it.
pub(crate) struct Placements<'a> {
    /// Placed fields by holder, in relationship order.
    pub placed: std::collections::HashMap<Holder, Vec<(&'a Placed, Span)>>,
    pub extra: Vec<(&'a ExtraCollection, Span)>,
    /// Entities embedded (or bucketed) by some relationship.
    pub embedded: BTreeSet<String>,
    /// Entities referenced by id from some document.
    pub referenced: BTreeSet<String>,
    /// Entities that keep a collection although something embeds them (cycle roots).
    pub roots: BTreeSet<String>,
    /// Where embedding chains were cut at [`MAX_EMBEDDING_DEPTH`]: (collection, path, span).
    pub too_deep: std::cell::RefCell<Vec<(String, String, Span)>>,
}

pub(crate) fn has_collection(ctx: &Ctx<'_>, p: &Placements<'_>, entity: &str) -> bool {
    !p.embedded.contains(entity)
        || ctx.is_standalone(entity)
        || p.referenced.contains(entity)
        || p.roots.contains(entity)
}

pub(crate) fn build(ctx: &Ctx<'_>, p: &Placements<'_>, spans: &mut SpanIndex) -> Vec<Collection> {
    let mut out = Vec::new();
    for entity in &ctx.model.entities {
        if !has_collection(ctx, p, &entity.name) {
            continue;
        }
        let mut stack = vec![entity.name.clone()];
        let mut fields = Vec::new();
        fields.push(id_field(ctx, entity));
        fields.extend(pattern_fields(ctx, entity));
        fields.extend(document(
            ctx,
            p,
            entity,
            "",
            &mut stack,
            spans,
            &entity.collection,
        ));
        record_spans(spans, &entity.collection, &fields, entity.span);
        out.push(Collection {
            name: entity.collection.clone(),
            entity: entity.name.clone(),
            role: CollectionRole::Entity,
            docs: entity.docs.clone(),
            id: id_plan(entity),
            fields,
            indexes: Vec::new(),
            size: SizeEstimate::default(),
            patterns: patterns(ctx, entity),
            variants: entity.patterns.polymorphic.as_ref().map(|d| Variants {
                discriminator: d.clone(),
                names: entity.variants.iter().map(|v| v.name.clone()).collect(),
            }),
            schema_version: entity.patterns.schema_version,
        });
        if entity.patterns.versioned == Some(Versioning::CurrentAndHistory) {
            out.push(history(ctx, p, entity, spans));
        }
    }
    for (extra, span) in &p.extra {
        let mut fields = vec![object_id_field()];
        for f in &extra.fields {
            let mut f = f.clone();
            if let Some((items, entity_name)) = &extra.embed_items {
                if &f.name == items {
                    if let Some(entity) = ctx.entity(entity_name) {
                        let mut stack = vec![entity_name.clone()];
                        let mut children =
                            document(ctx, p, entity, items, &mut stack, spans, &extra.name);
                        // The relationship's own fields, beside each item's document.
                        children.append(&mut f.children);
                        f.children = children;
                    }
                }
            }
            fields.push(f);
        }
        record_spans(spans, &extra.name, &fields, *span);
        out.push(Collection {
            name: extra.name.clone(),
            entity: extra.entity.clone(),
            role: extra.role.clone(),
            docs: extra.docs.clone(),
            id: IdPlan {
                bson_type: crate::model::BsonType::ObjectId,
                natural_key: None,
            },
            fields,
            indexes: Vec::new(),
            size: SizeEstimate::default(),
            patterns: Vec::new(),
            variants: None,
            schema_version: None,
        });
        let _ = &extra.parent;
    }
    out
}

fn record_spans(spans: &mut SpanIndex, collection: &str, fields: &[PlanField], default: Span) {
    for f in fields {
        spans
            .entry((collection.to_owned(), f.path.clone()))
            .or_insert(default);
        record_spans(spans, collection, &f.children, default);
    }
}

fn object_id_field() -> PlanField {
    let mut id = new_field("", "_id", FieldKind::Scalar, "objectId");
    id.code_name = "id".to_owned();
    id.flags.immutable = true;
    id
}

fn id_plan(entity: &Entity) -> IdPlan {
    match &entity.identity {
        Identity::ObjectId => IdPlan {
            bson_type: crate::model::BsonType::ObjectId,
            natural_key: None,
        },
        Identity::Natural { field, bson_type } => IdPlan {
            bson_type: *bson_type,
            natural_key: Some(field.clone()),
        },
    }
}

fn id_field(ctx: &Ctx<'_>, entity: &Entity) -> PlanField {
    match &entity.identity {
        Identity::ObjectId => object_id_field(),
        Identity::Natural { field, .. } => {
            let mut id = match entity.fields.iter().find(|f| &f.name == field) {
                Some(f) => declared(ctx.model, f, "", 0),
                None => object_id_field(),
            };
            id.name = "_id".to_owned();
            id.path = "_id".to_owned();
            id.kind = FieldKind::Scalar;
            id.flags.immutable = true;
            id.docs.push(format!(
                "natural key: `{field}` is immutable, so it is the `_id` and references store it directly (seed 000: username)"
            ));
            id
        }
    }
}

/// The fields of one entity's document under `prefix` (no `_id`): declared, variant and placed.
fn document(
    ctx: &Ctx<'_>,
    p: &Placements<'_>,
    entity: &Entity,
    prefix: &str,
    stack: &mut Vec<String>,
    spans: &mut SpanIndex,
    collection: &str,
) -> Vec<PlanField> {
    let top = prefix.is_empty();
    let mut fields = Vec::new();
    for f in &entity.fields {
        if top && f.facts.key {
            continue;
        }
        let mut pf = declared(ctx.model, f, prefix, 0);
        if f.facts.key {
            // An embedded copy keeps its natural key under the field's own name.
            pf.name = f.name.clone();
            reroot(&mut pf, prefix);
        }
        spans.insert((collection.to_owned(), pf.path.clone()), f.span);
        fields.push(pf);
    }
    for v in &entity.variants {
        for f in &v.fields {
            let mut pf = declared(ctx.model, f, prefix, 0);
            pf.variant = Some(v.name.clone());
            pf.optional = true;
            spans.insert((collection.to_owned(), pf.path.clone()), f.span);
            fields.push(pf);
        }
    }
    let holder = Holder::Entity(entity.name.clone());
    for (placed, span) in p.placed.get(&holder).map(Vec::as_slice).unwrap_or(&[]) {
        let mut f = placed.field.clone();
        reroot(&mut f, prefix);
        if let Some(embedded) = &placed.embed_entity {
            if stack.contains(embedded) {
                f.recursive = true;
                f.children.clear();
            } else if stack.len() >= MAX_EMBEDDING_DEPTH {
                // MongoDB refuses documents nested more than 100 levels deep (an embedded array
                // costs two): the chain is cut here and reported.
                f.recursive = true;
                f.children.clear();
                p.too_deep
                    .borrow_mut()
                    .push((collection.to_owned(), f.path.clone(), *span));
            } else if let Some(e) = ctx.entity(embedded) {
                stack.push(embedded.clone());
                let path = f.path.clone();
                let mut children = document(ctx, p, e, &path, stack, spans, collection);
                // Fields placed beside the embedded document (the relationship's own fields)
                // follow it.
                children.append(&mut f.children);
                f.children = children;
                stack.pop();
            }
        }
        spans.insert((collection.to_owned(), f.path.clone()), *span);
        fields.push(f);
    }
    fields
}

fn pattern_field(name: &str, bson: &str, doc: &str) -> PlanField {
    let mut f = new_field("", name, FieldKind::Pattern, bson);
    f.docs = vec![doc.to_owned()];
    f
}

fn pattern_fields(ctx: &Ctx<'_>, entity: &Entity) -> Vec<PlanField> {
    let p = &entity.patterns;
    let mut out = Vec::new();
    if let Some(d) = &p.polymorphic {
        let names: Vec<&str> = entity.variants.iter().map(|v| v.name.as_str()).collect();
        let mut f = pattern_field(
            d,
            "string",
            &format!(
                "discriminator (single-collection inheritance, seed 001): one of {}",
                names.join(", ")
            ),
        );
        f.code_name = "variant".to_owned();
        out.push(f);
    }
    if p.schema_version.is_some() {
        out.push(pattern_field(
            "schema_version",
            "int",
            "schema version written on every insert; readers accept older versions (seed 002 schema versioning)",
        ));
    }
    if p.tree {
        let id = id_type(ctx, &entity.name).json_schema_name();
        let mut parent = pattern_field(
            "parent",
            id,
            "the parent node's id; absent on roots (seed 001 trees)",
        );
        parent.optional = true;
        parent.source = Some(entity.name.clone());
        let mut ancestors = pattern_field("ancestors", id, "ids of every ancestor, root first: descendants are one indexed query (seed 000, seed 001)");
        ancestors.set_array(None);
        ancestors.source = Some(entity.name.clone());
        out.push(parent);
        out.push(ancestors);
    }
    if p.queue.is_some() {
        out.push(pattern_field(
            "in_progress",
            "bool",
            "set when a worker claims the job with find-and-modify (seed 001 queue)",
        ));
        let mut started = pattern_field("started", "date", "when the job was claimed");
        started.optional = true;
        out.push(started);
    }
    match p.versioned {
        Some(Versioning::ValidRange) => {
            let id = id_type(ctx, &entity.name).json_schema_name();
            out.push(pattern_field(
                "document_id",
                id,
                "the document all versions belong to (seed 002 versioning pattern 1)",
            ));
            out.push(pattern_field("version", "int", "version number"));
            out.push(pattern_field(
                "valid_from",
                "date",
                "first instant this version is current (may be in the future)",
            ));
            out.push(pattern_field(
                "valid_to",
                "date",
                "first instant this version is no longer current",
            ));
        }
        Some(Versioning::CurrentAndHistory) => {
            out.push(pattern_field("version", "int", "version number; earlier versions are in the history collection (seed 002 versioning pattern 2)"));
        }
        None => {}
    }
    out
}

fn history(
    ctx: &Ctx<'_>,
    p: &Placements<'_>,
    entity: &Entity,
    spans: &mut SpanIndex,
) -> Collection {
    let name = format!("{}_history", entity.collection);
    let mut fields = vec![object_id_field()];
    let id = id_type(ctx, &entity.name).json_schema_name();
    fields.push(pattern_field(
        "document_id",
        id,
        "the current document's `_id`",
    ));
    fields.push(pattern_field("version", "int", "version number"));
    fields.push(pattern_field(
        "archived_at",
        "date",
        "when this version was replaced",
    ));
    let mut stack = vec![entity.name.clone()];
    fields.extend(document(ctx, p, entity, "", &mut stack, spans, &name));
    record_spans(spans, &name, &fields, entity.span);
    Collection {
        name,
        entity: entity.name.clone(),
        role: CollectionRole::History,
        docs: vec![format!(
            "Every past version of {} (seed 002 document versioning).",
            entity.name
        )],
        id: IdPlan {
            bson_type: crate::model::BsonType::ObjectId,
            natural_key: None,
        },
        fields,
        indexes: Vec::new(),
        size: SizeEstimate::default(),
        patterns: Vec::new(),
        variants: None,
        schema_version: entity.patterns.schema_version,
    }
}

fn patterns(ctx: &Ctx<'_>, entity: &Entity) -> Vec<PatternUse> {
    let p = &entity.patterns;
    let mut out = Vec::new();
    let mut add = |name: &str, detail: String, rule: RuleId| {
        out.push(PatternUse {
            name: name.to_owned(),
            detail,
            rule: citation(rule),
        })
    };
    if p.tree {
        add("tree", "parent + ancestors array, both indexed: children, descendants and ancestors are single queries".into(), RuleId::Tree);
    }
    if let Some(priority) = &p.queue {
        add("queue", format!("claim with find-and-modify on in_progress, sorted by {priority} descending, indexed: each job is handed out once"), RuleId::Queue);
    }
    if let Some(d) = &p.polymorphic {
        add("polymorphic", format!("variants share the collection, told apart by `{d}`; fields of one variant get sparse indexes"), RuleId::Polymorphic);
    }
    if entity.fields.iter().any(|f| f.facts.attributes) {
        add(
            "attributes",
            "open-ended attributes stored as [{k, v}] with one index on k and v".into(),
            RuleId::Attribute,
        );
    }
    match p.versioned {
        Some(Versioning::ValidRange) => add("document_versioning", "every version in this collection with valid_from/valid_to; the current one is the latest valid_from before now".into(), RuleId::DocumentVersioning),
        Some(Versioning::CurrentAndHistory) => add("document_versioning", format!("the current version here, every earlier version in `{}_history`", entity.collection), RuleId::DocumentVersioning),
        None => {}
    }
    if let Some(v) = p.schema_version {
        add(
            "schema_versioning",
            format!("`schema_version` = {v} on every document; readers accept older versions"),
            RuleId::SchemaVersioning,
        );
    }
    if entity
        .fields
        .iter()
        .any(|f| matches!(f.ty, crate::model::FieldType::Counters { .. }))
    {
        add(
            "histogram",
            "preallocated counters as nested arrays (24 x 60, not 1,440)".into(),
            RuleId::Histogram,
        );
    }
    if entity.fields.iter().any(|f| f.facts.payload) {
        add(
            "payload",
            "payload fields are stored and returned, never indexed".into(),
            RuleId::Payload,
        );
    }
    let _ = (ctx, join);
    out
}
