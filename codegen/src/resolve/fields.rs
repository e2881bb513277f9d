//! Fields: types and attributes together, BSON names, duplicates, and natural keys.

use std::collections::BTreeMap;

use squillion_grammar::ast::FieldDecl;
use squillion_grammar::{Diagnostic, Span};

use super::{attrs, types, Resolver};
use crate::codes;
use crate::model::{BsonType, Field, FieldType, Identity};

/// The BSON name of every document's identity.
pub(super) const ID: &str = "_id";

/// What holds a list of fields: where a field is decides what it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner<'a> {
    /// The common fields of an entity.
    Entity(&'a str),
    /// The fields of one variant of an entity.
    Variant(&'a str),
    /// The fields of a value type.
    Value(&'a str),
    /// The fields a relation carries (`fields { ... }`).
    Relation(&'a str),
}

impl Owner<'_> {
    fn describe(self) -> String {
        match self {
            Owner::Entity(name) => format!("entity `{name}`"),
            Owner::Variant(name) => format!("variant `{name}`"),
            Owner::Value(name) => format!("value type `{name}`"),
            Owner::Relation(id) => format!("relation `{id}`"),
        }
    }
}

/// Resolves the fields of `owner`, reporting names and BSON names used twice.
pub(super) fn fields(r: &mut Resolver<'_>, decls: &[FieldDecl], owner: Owner<'_>) -> Vec<Field> {
    let out: Vec<Field> = decls.iter().map(|d| field(r, d, owner)).collect();
    check_duplicates(r, &[], &out, owner);
    out
}

/// Reports fields of `fields` whose name or BSON name is already used in `outer` (the common
/// fields, for a variant) or earlier in `fields`.
pub(super) fn check_duplicates(
    r: &mut Resolver<'_>,
    outer: &[Field],
    fields: &[Field],
    owner: Owner<'_>,
) {
    let mut names: BTreeMap<&str, (&Field, bool)> = BTreeMap::new();
    let mut stored: BTreeMap<&str, (&Field, bool)> = BTreeMap::new();
    for f in outer {
        names.entry(&f.name).or_insert((f, true));
        stored.entry(&f.bson_name).or_insert((f, true));
    }
    let common = |is_outer: bool| {
        if is_outer {
            " (a common field of the entity)"
        } else {
            ""
        }
    };
    for f in fields {
        if let Some((first, is_outer)) = names.get(f.name.as_str()) {
            r.report(
                Diagnostic::error(
                    codes::DUPLICATE_FIELD,
                    f.span,
                    format!(
                        "field `{}` is declared twice in {}",
                        f.name,
                        owner.describe()
                    ),
                )
                .with_label("declared again here")
                .with_related(
                    first.span,
                    format!("first declared here{}", common(*is_outer)),
                )
                .with_help("rename or remove one of them"),
            );
            continue;
        }
        names.insert(&f.name, (f, false));
        // `_id` is the identity's business (see `identity`).
        if f.bson_name == ID {
            continue;
        }
        if let Some((first, is_outer)) = stored.get(f.bson_name.as_str()) {
            r.report(
                Diagnostic::error(
                    codes::DUPLICATE_BSON_NAME,
                    f.span,
                    format!(
                        "fields `{}` and `{}` of {} are both stored as `{}`",
                        first.name,
                        f.name,
                        owner.describe(),
                        f.bson_name
                    ),
                )
                .with_label(format!("stored as `{}`", f.bson_name))
                .with_related(
                    first.span,
                    format!(
                        "`{}` is stored there first{}",
                        first.name,
                        common(*is_outer)
                    ),
                )
                .with_help("give one of them another name with `@stored(\"name\")`"),
            );
            continue;
        }
        stored.insert(&f.bson_name, (f, false));
    }
}

/// Resolves one field of `owner`.
pub(super) fn field(r: &mut Resolver<'_>, decl: &FieldDecl, owner: Owner<'_>) -> Field {
    let ty = types::field_type(r, &decl.ty);
    if ty.is_none() {
        r.untyped.insert(decl.span);
    }
    let attrs = attrs::field_attrs(r, decl, ty.as_ref());
    let mut facts = attrs.facts.clone();
    if ty.is_some() {
        facts.one_of = super::enums::values(&decl.ty);
    }
    let mut bson_name = decl.name.name.clone();
    if let Some((stored, span)) = &attrs.stored {
        if let Some(problem) = forbidden_field_name(stored) {
            r.report(
                Diagnostic::error(
                    codes::FORBIDDEN_FIELD_NAME,
                    *span,
                    format!(
                        "field `{}` cannot be stored as {stored:?}: {problem}",
                        decl.name.name
                    ),
                )
                .with_label("not a valid BSON field name")
                .with_help(
                    "store it under a name without `$` first, `.` or NUL, or remove `@stored`",
                ),
            );
        } else {
            bson_name = stored.clone();
        }
    }
    if facts.key {
        let key_span = attrs.get("key").map(|a| a.span).unwrap_or(decl.span);
        if key_problems(r, decl, ty.as_ref(), &attrs, owner, key_span) {
            facts.key = false;
        } else {
            facts.unique = true;
            facts.immutable = true;
            bson_name = ID.to_owned();
        }
    }
    if bson_name == ID && matches!(owner, Owner::Relation(_)) {
        r.report(
            Diagnostic::error(
                codes::DUPLICATE_ID,
                decl.name.span,
                format!(
                    "`_id` declared twice: field `{}` of {} is stored as `_id`",
                    decl.name.name,
                    owner.describe()
                ),
            )
            .with_label("`_id` is taken")
            .with_help(
                "`_id` identifies the documents a relationship is stored in: choose another name",
            ),
        );
    }
    Field {
        name: decl.name.name.clone(),
        bson_name,
        docs: decl.docs.lines.clone(),
        ty: ty.unwrap_or(FieldType::Scalar {
            bson: BsonType::Null,
        }),
        optional: decl.optional,
        facts,
        span: decl.span,
    }
}

/// Why MongoDB rejects `name` as a field name, if it does.
pub fn forbidden_field_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a field name cannot be empty")
    } else if name.starts_with('$') {
        Some("a field name cannot start with `$` (operators do)")
    } else if name.contains('.') {
        Some("a field name cannot contain `.` (it separates path segments)")
    } else if name.contains('\0') {
        Some("a field name cannot contain the NUL character")
    } else {
        None
    }
}

/// Reports why `decl` cannot be a natural key; `true` if it cannot.
fn key_problems(
    r: &mut Resolver<'_>,
    decl: &FieldDecl,
    ty: Option<&FieldType>,
    attrs: &attrs::FieldAttrs<'_>,
    owner: Owner<'_>,
    key_span: Span,
) -> bool {
    let name = decl.name.name.as_str();
    let mut problems: Vec<(Span, String, String)> = Vec::new();
    match owner {
        Owner::Entity(_) => {}
        Owner::Value(v) => problems.push((
            key_span,
            format!("value type `{v}` has no identity, so field `{name}` cannot be its key"),
            "values are embedded in their owner's document; put `@key` on an entity's field"
                .to_owned(),
        )),
        Owner::Relation(id) => problems.push((
            key_span,
            format!("field `{name}` of relation `{id}` cannot be a key"),
            "a relationship is identified by its two ends; remove `@key`".to_owned(),
        )),
        Owner::Variant(v) => problems.push((
            key_span,
            format!("field `{name}` of variant `{v}` cannot be the key"),
            "every document needs the key: declare it among the common fields, before the \
             variants"
                .to_owned(),
        )),
    }
    if decl.optional {
        problems.push((
            key_span,
            format!("key `{name}` is optional, but every document needs its key"),
            format!("remove the `?` after `{name}`'s type"),
        ));
    }
    if let Some(updates) = attrs.get("updates") {
        problems.push((
            updates.span,
            format!("key `{name}` is updated, but a key is immutable"),
            "MongoDB cannot change a document's `_id`: remove `@updates`, or remove `@key` and \
             keep the generated ObjectId"
                .to_owned(),
        ));
    }
    let unusable = match ty {
        Some(FieldType::Array { .. }) | Some(FieldType::Counters { .. }) => Some("an array"),
        Some(FieldType::Map { .. }) => Some("a map"),
        Some(FieldType::Value { .. }) => Some("a value type"),
        Some(FieldType::Scalar { bson }) if !bson.can_be_key() => Some(match bson {
            BsonType::Regex => "a regular expression",
            _ => "null",
        }),
        _ => None,
    };
    if let Some(what) = unusable {
        problems.push((
            decl.ty.span,
            format!("key `{name}` is {what}, which cannot be an `_id`"),
            "a key is a single value, like a `string` or an `int64`".to_owned(),
        ));
    }
    if let Some((stored, span)) = &attrs.stored {
        if stored != ID {
            problems.push((
                *span,
                format!("key `{name}` is stored as `_id`, not as {stored:?}"),
                "remove `@stored`: a key's values are kept under `_id`".to_owned(),
            ));
        }
    }
    let failed = !problems.is_empty();
    for (span, message, help) in problems {
        r.report(
            Diagnostic::error(codes::INVALID_KEY, span, message)
                .with_label("cannot be a key")
                .with_related(key_span, "marked `@key` here")
                .with_help(help),
        );
    }
    failed
}

/// The identity of an entity with common fields `fields` and variant fields `variant_fields`:
/// its `@key`, or a generated ObjectId. Reports `_id` declared twice.
pub(super) fn identity(
    r: &mut Resolver<'_>,
    entity: &str,
    fields: &[Field],
    variant_fields: &[&Field],
) -> Identity {
    let keys: Vec<&Field> = fields.iter().filter(|f| f.facts.key).collect();
    for extra in keys.iter().skip(1) {
        r.report(
            Diagnostic::error(
                codes::DUPLICATE_ID,
                extra.span,
                format!("`_id` declared twice: entity `{entity}` has two `@key` fields"),
            )
            .with_label(format!("`{}` is a second key", extra.name))
            .with_related(keys[0].span, format!("`{}` is the key", keys[0].name))
            .with_help(
                "an entity has one natural key; to keep another field unique, mark it `@unique`",
            ),
        );
    }
    let others = fields
        .iter()
        .chain(variant_fields.iter().copied())
        .filter(|f| !f.facts.key && f.bson_name == ID);
    for f in others {
        let d = Diagnostic::error(
            codes::DUPLICATE_ID,
            f.span,
            format!(
                "`_id` declared twice: field `{}` of entity `{entity}` is stored as `_id`",
                f.name
            ),
        );
        let d = match keys.first() {
            Some(key) => d
                .with_label("stored as `_id`")
                .with_related(
                    key.span,
                    format!("the key `{}` is already stored as `_id`", key.name),
                )
                .with_help("store the field under another name"),
            None => d
                .with_label("stored as `_id`, where every document keeps its generated ObjectId")
                .with_help(format!(
                    "to make `{}` the natural key, mark it `@key`; otherwise choose another name",
                    f.name
                )),
        };
        r.report(d);
    }
    match keys.first() {
        Some(key) => Identity::Natural {
            field: key.name.clone(),
            bson_type: key.ty.scalar().unwrap_or(BsonType::ObjectId),
        },
        None => Identity::ObjectId,
    }
}
