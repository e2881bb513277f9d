//! Entities and value types: fields, variants, identity, and the entity attributes that name a
//! collection or declare a pattern.

use std::collections::BTreeMap;

use squillion_grammar::ast::{Attr, TypeDecl, Value, VariantDecl};
use squillion_grammar::{Diagnostic, Span};

use super::attrs::{self, Target};
use super::fields::{self, Owner};
use super::names::{article, closest, collection_name, collection_name_problem, suggest};
use super::{units, Resolver};
use crate::codes;
use crate::model::{Entity, EntityPatterns, Field, ValueType, Variant, Versioning};

/// The discriminator of `@polymorphic` when none is named.
const DEFAULT_DISCRIMINATOR: &str = "type";

/// Resolves a value type.
pub(super) fn value_type(r: &mut Resolver<'_>, decl: &TypeDecl) -> ValueType {
    let name = decl.name.name.as_str();
    attrs::known(r, &decl.attrs, Target::ValueType);
    ValueType {
        name: name.to_owned(),
        docs: decl.docs.lines.clone(),
        fields: fields::fields(r, &decl.fields, Owner::Value(name)),
        span: decl.name.span,
    }
}

/// Resolves an entity.
pub(super) fn entity(r: &mut Resolver<'_>, decl: &TypeDecl) -> Entity {
    let name = decl.name.name.as_str();
    let common = fields::fields(r, &decl.fields, Owner::Entity(name));
    let variants = variants(r, &decl.variants, &common);
    let variant_fields: Vec<&Field> = variants.iter().flat_map(|v| v.fields.iter()).collect();
    let identity = fields::identity(r, name, &common, &variant_fields);

    let mut entity = Entity {
        name: name.to_owned(),
        docs: decl.docs.lines.clone(),
        collection: collection_name(name),
        collection_declared: false,
        identity,
        fields: common,
        variants,
        patterns: EntityPatterns::default(),
        span: decl.name.span,
    };
    let mut polymorphic_attr = None;
    for attr in attrs::known(r, &decl.attrs, Target::Entity) {
        match attr.name.name.as_str() {
            "collection" => {
                if let Some((text, span)) = attrs::string(r, attr, None) {
                    match collection_name_problem(text) {
                        Some(problem) => r.report(
                            Diagnostic::error(
                                codes::INVALID_COLLECTION_NAME,
                                span,
                                format!("entity `{name}` cannot be stored in collection {text:?}: {problem}"),
                            )
                            .with_label("not a valid collection name")
                            .with_help(format!(
                                "choose another name, or remove `@collection` to use `{}`",
                                entity.collection
                            )),
                        ),
                        None => {
                            entity.collection = text.to_owned();
                            entity.collection_declared = true;
                        }
                    }
                }
            }
            "tree" => entity.patterns.tree = attrs::no_args(r, attr),
            "queue" => entity.patterns.queue = queue(r, &entity, attr),
            "polymorphic" => {
                polymorphic_attr = Some(attr.span);
                entity.patterns.polymorphic = discriminator(r, attr);
            }
            "versioned" => entity.patterns.versioned = versioning(r, attr),
            "schema_version" => {
                entity.patterns.schema_version = schema_version(r, attr);
            }
            "static" => entity.patterns.read_only = attrs::no_args(r, attr),
            _ => {}
        }
    }
    if entity.patterns.read_only {
        read_only(r, decl, &mut entity);
    }
    check_variants(r, decl, &entity, polymorphic_attr);
    check_pattern_fields(r, &entity);
    entity
}

/// `@static`: documents loaded once and never written. Every field is immutable (copies need no
/// ratio and never fan out); patterns that write documents after insert contradict it.
fn read_only(r: &mut Resolver<'_>, decl: &TypeDecl, entity: &mut Entity) {
    let written = [
        ("queue", "a queue marks each job when it is claimed"),
        (
            "versioned",
            "a versioned document is rewritten with every version",
        ),
    ];
    let static_attr = decl.attrs.iter().find(|a| a.name.name == "static");
    for (name, why) in written {
        let Some(attr) = decl.attrs.iter().find(|a| a.name.name == name) else {
            continue;
        };
        let mut d = Diagnostic::error(
            codes::CONTRADICTORY_ATTRIBUTES,
            attr.span,
            format!(
                "entity `{}` cannot be both `@static` and `@{name}`",
                entity.name
            ),
        )
        .with_label("writes documents after insert")
        .with_help(format!(
            "`@static` data is never written after it is loaded, but {why}: remove one of the two"
        ));
        if let Some(s) = static_attr {
            d = d.with_related(s.span, "declared static here");
        }
        r.report(d);
    }
    for f in entity
        .fields
        .iter_mut()
        .chain(entity.variants.iter_mut().flat_map(|v| v.fields.iter_mut()))
    {
        f.facts.immutable = true;
    }
}

fn variants(r: &mut Resolver<'_>, decls: &[VariantDecl], common: &[Field]) -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for decl in decls {
        let name = decl.name.name.as_str();
        attrs::known(r, &decl.attrs, Target::Variant);
        let fields: Vec<Field> = decl
            .fields
            .iter()
            .map(|f| fields::field(r, f, Owner::Variant(name)))
            .collect();
        fields::check_duplicates(r, common, &fields, Owner::Variant(name));
        if let Some(first) = seen.get(name) {
            r.report(
                Diagnostic::error(
                    codes::INVALID_VARIANTS,
                    decl.name.span,
                    format!("variant `{name}` is declared twice"),
                )
                .with_label("declared again here")
                .with_related(*first, "first declared here")
                .with_help("the variant's name is the discriminator's value: rename one of them"),
            );
        } else {
            seen.insert(name, decl.name.span);
        }
        out.push(Variant {
            name: name.to_owned(),
            docs: decl.docs.lines.clone(),
            fields,
            span: decl.name.span,
        });
    }
    out
}

fn check_variants(
    r: &mut Resolver<'_>,
    decl: &TypeDecl,
    entity: &Entity,
    polymorphic_attr: Option<Span>,
) {
    match (decl.variants.first(), polymorphic_attr) {
        (Some(first), None) => r.report(
            Diagnostic::error(
                codes::INVALID_VARIANTS,
                first.name.span,
                format!(
                    "entity `{}` has variants but is not `@polymorphic`",
                    entity.name
                ),
            )
            .with_label("a variant")
            .with_related(decl.name.span, "the entity")
            .with_help(format!(
                "write `entity {} @polymorphic(discriminator: \"type\") {{ ... }}`: the \
                 discriminator field tells the variants apart",
                entity.name
            )),
        ),
        (None, Some(span)) => r.report(
            Diagnostic::error(
                codes::INVALID_VARIANTS,
                span,
                format!("entity `{}` is `@polymorphic` but has no variants", entity.name),
            )
            .with_label("no `variant` follows")
            .with_help(
                "declare its variants after the common fields: `variant circle { radius: double }`, \
                 or remove `@polymorphic`",
            ),
        ),
        _ => {}
    }
}

fn queue(r: &mut Resolver<'_>, entity: &Entity, attr: &Attr) -> Option<String> {
    let path = match attrs::single_arg(r, attr, Some("priority"))? {
        Value::Path(path) if path.segments.len() == 1 => &path.segments[0],
        other => {
            let mut d = attrs::arguments(attr, "takes the name of a numeric field");
            d.span = other.span();
            r.report(d.with_label("not a field name"));
            return None;
        }
    };
    let Some(field) = entity.fields.iter().find(|f| f.name == path.name) else {
        let mut d = Diagnostic::error(
            codes::INVALID_QUEUE_PRIORITY,
            path.span,
            format!(
                "entity `{}` has no field `{}` to order its queue by",
                entity.name, path.name
            ),
        )
        .with_label("no such field");
        let names = entity.fields.iter().map(|f| f.name.as_str());
        d = match closest(&path.name, names) {
            Some(close) => suggest(d, path.span, close),
            None => d.with_help(format!(
                "declare it among the common fields: `{}: int32`",
                path.name
            )),
        };
        r.report(d);
        return None;
    };
    let numeric = field.ty.scalar().is_some_and(|t| t.is_numeric());
    if !numeric && r.typed(field) {
        r.report(
            Diagnostic::error(
                codes::INVALID_QUEUE_PRIORITY,
                path.span,
                format!(
                    "queue priority `{}` is {} `{}`, not a number",
                    field.name,
                    article(&field.ty.sqn()),
                    field.ty.sqn()
                ),
            )
            .with_label("not numeric")
            .with_related(field.span, "declared here")
            .with_help("jobs are claimed highest priority first: use an `int32`, `int64` or `double` field"),
        );
        return None;
    }
    Some(field.name.clone())
}

fn discriminator(r: &mut Resolver<'_>, attr: &Attr) -> Option<String> {
    if attr.args.is_empty() {
        return Some(DEFAULT_DISCRIMINATOR.to_owned());
    }
    let (text, span) = attrs::string(r, attr, Some("discriminator"))?;
    if let Some(problem) = fields::forbidden_field_name(text) {
        r.report(
            Diagnostic::error(
                codes::FORBIDDEN_FIELD_NAME,
                span,
                format!("the discriminator cannot be stored as {text:?}: {problem}"),
            )
            .with_label("not a valid BSON field name")
            .with_help(format!(
                "write `@polymorphic(discriminator: \"{DEFAULT_DISCRIMINATOR}\")`"
            )),
        );
        return None;
    }
    Some(text.to_owned())
}

fn versioning(r: &mut Resolver<'_>, attr: &Attr) -> Option<Versioning> {
    if attr.args.is_empty() {
        return Some(Versioning::CurrentAndHistory);
    }
    match attrs::single_arg(r, attr, None)? {
        Value::Path(p) if p.dotted() == "future" => Some(Versioning::ValidRange),
        other => {
            let mut d = attrs::arguments(attr, "takes no argument, or `future`");
            d.span = other.span();
            r.report(d.with_help(
                "write `@versioned` (current document plus history) or `@versioned(future)` \
                 (every version with valid_from and valid_to)",
            ));
            None
        }
    }
}

fn schema_version(r: &mut Resolver<'_>, attr: &Attr) -> Option<u32> {
    let q = match attrs::single_arg(r, attr, None)? {
        Value::Quantity(q) => q,
        other => {
            let mut d = attrs::arguments(attr, "takes a version number");
            d.span = other.span();
            r.report(d);
            return None;
        }
    };
    let n = units::count(r, q, "a schema version")?;
    match u32::try_from(n) {
        Ok(n) => Some(n),
        Err(_) => {
            r.report(
                Diagnostic::error(
                    codes::INVALID_NUMBER,
                    q.span,
                    format!("a schema version is too large: {n}"),
                )
                .with_label("more than 4,294,967,295")
                .with_help("number schema versions from 1 up"),
            );
            None
        }
    }
}

/// The fields an entity's patterns add to its documents, each with the pattern that adds it.
pub(super) fn pattern_fields(patterns: &EntityPatterns) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    if let Some(d) = &patterns.polymorphic {
        out.push((d.clone(), "@polymorphic (the discriminator)"));
    }
    if patterns.tree {
        out.push(("parent".to_owned(), "@tree"));
        out.push(("ancestors".to_owned(), "@tree"));
    }
    if patterns.queue.is_some() {
        out.push(("in_progress".to_owned(), "@queue"));
        out.push(("started".to_owned(), "@queue"));
    }
    match patterns.versioned {
        Some(Versioning::ValidRange) => {
            for f in ["document_id", "version", "valid_from", "valid_to"] {
                out.push((f.to_owned(), "@versioned(future)"));
            }
        }
        Some(Versioning::CurrentAndHistory) => out.push(("version".to_owned(), "@versioned")),
        None => {}
    }
    if patterns.schema_version.is_some() {
        out.push(("schema_version".to_owned(), "@schema_version"));
    }
    out
}

fn check_pattern_fields(r: &mut Resolver<'_>, entity: &Entity) {
    let added = pattern_fields(&entity.patterns);
    let all = entity.all_fields();
    for field in all {
        let clash = added
            .iter()
            .find(|(name, _)| *name == field.bson_name || *name == field.name);
        if let Some((name, pattern)) = clash {
            r.report(
                Diagnostic::error(
                    codes::PATTERN_FIELD_CLASH,
                    field.span,
                    format!(
                        "field `{}` of entity `{}` clashes with `{name}`, which {pattern} adds",
                        field.name, entity.name
                    ),
                )
                .with_label(format!("`{name}` is taken by {pattern}"))
                .with_help(
                    "the pattern adds and maintains that field itself: rename this one, or store \
                     it under another name with `@stored(\"name\")`",
                ),
            );
        }
    }
}
