//! Names the generated module would define twice, found on the Plan before any code is written:
//! two fields of one struct with one Rust name (`id` beside the `id` that holds `_id`, `userName`
//! beside `user_name`), and a method of a repository named twice (a query named like a method the
//! derive writes: `find`, `insert`, `new`, `collection`, or `push_pages` beside a layout of
//! `pages`). `squillion check` reports them (`pipeline::check`), so `generate` never writes code
//! that does not compile.
//!
//! The names are the emitter's own ([`field_ident`], [`TypeNames`]) and the derive's
//! ([`squillion_derive_impl::names`], checked there against what it writes).

use std::collections::BTreeMap;

use squillion_derive_impl::names as derived;
use squillion_grammar::{Diagnostic, Span};

use super::layout::{self, attr_name, PlanIndex};
use super::names::{field_ident, TypeNames};
use crate::codes;
use crate::model::Model;
use crate::plan::{Collection, FieldKind, Plan, PlanField};

/// A name defined twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clash {
    /// Two fields of one struct (or of one variant) have one Rust name.
    Fields {
        /// The entity whose document holds the struct.
        entity: String,
        /// The Rust type of the struct.
        owner: String,
        /// The Rust field name.
        rust: String,
        /// The field declared or made first.
        first: FieldOrigin,
        /// The other one.
        second: FieldOrigin,
    },
    /// A repository would have two methods of one name.
    Methods {
        /// The entity whose collection the repository serves.
        entity: String,
        /// The repository's Rust type.
        repository: String,
        /// The method's name.
        rust: String,
        /// What wrote the method first.
        first: MethodOrigin,
        /// What wrote it again.
        second: MethodOrigin,
    },
}

/// A field as the Plan has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldOrigin {
    /// Its name in code (the declared name, for declared fields).
    pub code_name: String,
    /// Its BSON name.
    pub bson: String,
    /// What kind of field it is.
    pub kind: FieldKind,
}

/// What writes a repository method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MethodOrigin {
    /// Every repository has it.
    Repository,
    /// A document pattern (`queue`, `tree`, `versioned`, `link`).
    Pattern(String),
    /// The layout `layout` of field `field`.
    Layout {
        /// The field (its code name).
        field: String,
        /// The layout (`embed`, `parent_refs`, ..., `fan_out`).
        layout: String,
    },
    /// The update methods of a field (`set_<f>`, `inc_<f>`, `dec_<f>`).
    Field(String),
    /// A declared query.
    Query(String),
}

/// Every clash of the module generated from `plan` (with the derive).
pub fn clashes(plan: &Plan) -> Vec<Clash> {
    let types = TypeNames::new(plan);
    let index = PlanIndex::new(plan, &types);
    let mut out = Vec::new();
    for c in &plan.collections {
        let owner = types
            .collection(&c.name)
            .map(|i| i.to_string())
            .unwrap_or_default();
        let attrs = layout::collection_attrs(&index, c);
        struct_fields(c, &owner, &mut out);
        repository_methods(plan, c, &owner, &attrs, &mut out);
    }
    out
}

/// The fields of the collection struct, of its variants and of every embedded struct.
fn struct_fields(c: &Collection, owner: &str, out: &mut Vec<Clash>) {
    let discriminator = c.variants.as_ref().map(|v| v.discriminator.as_str());
    let common: Vec<&PlanField> = c
        .fields
        .iter()
        .filter(|f| Some(f.name.as_str()) != discriminator && f.variant.is_none())
        .collect();
    let mut scope = FieldScope::new(&c.entity, owner);
    for f in &common {
        scope.add(f, out);
    }
    if c.variants.is_some() {
        // The flattened enum of the variants' own fields.
        let variant = FieldOrigin {
            code_name: "variant".to_owned(),
            bson: String::new(),
            kind: FieldKind::Pattern,
        };
        scope.add_origin("variant".to_owned(), variant, out);
    }
    if let Some(v) = &c.variants {
        for name in &v.names {
            let mut scope = FieldScope::new(&c.entity, &format!("{owner}::{name}"));
            for f in c
                .fields
                .iter()
                .filter(|f| f.variant.as_deref() == Some(name))
            {
                scope.add(f, out);
            }
        }
    }
    for f in &c.fields {
        embedded_fields(&c.entity, f, out);
    }
}

fn embedded_fields(entity: &str, f: &PlanField, out: &mut Vec<Clash>) {
    if f.bson_type != "object" || f.children.is_empty() || f.recursive {
        return;
    }
    let owner = f.type_name.clone().unwrap_or_else(|| f.path.clone());
    let mut scope = FieldScope::new(entity, &owner);
    for child in &f.children {
        scope.add(child, out);
    }
    for child in &f.children {
        embedded_fields(entity, child, out);
    }
}

/// The Rust field names of one struct so far.
struct FieldScope<'a> {
    entity: &'a str,
    owner: String,
    seen: BTreeMap<String, FieldOrigin>,
}

impl<'a> FieldScope<'a> {
    fn new(entity: &'a str, owner: &str) -> Self {
        FieldScope {
            entity,
            owner: owner.to_owned(),
            seen: BTreeMap::new(),
        }
    }

    fn add(&mut self, f: &PlanField, out: &mut Vec<Clash>) {
        let origin = FieldOrigin {
            code_name: f.code_name.clone(),
            bson: f.name.clone(),
            kind: f.kind,
        };
        let rust = field_ident(&f.code_name).to_string();
        self.add_origin(rust, origin, out);
    }

    fn add_origin(&mut self, rust: String, origin: FieldOrigin, out: &mut Vec<Clash>) {
        match self.seen.get(&rust) {
            Some(first) => out.push(Clash::Fields {
                entity: self.entity.to_owned(),
                owner: self.owner.clone(),
                rust: rust.trim_start_matches("r#").to_owned(),
                first: first.clone(),
                second: origin,
            }),
            None => {
                self.seen.insert(rust, origin);
            }
        }
    }
}

/// Whether the derive sees `f` as a number `inc_<f>` adds to: a required int32, int64 or double
/// (the emitter writes `i32`, `i64`, `f64`).
fn numeric(f: &PlanField) -> bool {
    f.array_depth == 0 && !f.optional && matches!(f.bson_type.as_str(), "int" | "long" | "double")
}

/// The methods of the collection's repository: the derive's, then the queries'.
fn repository_methods(
    plan: &Plan,
    c: &Collection,
    owner: &str,
    attrs: &layout::CollectionAttrs,
    out: &mut Vec<Clash>,
) {
    let repository = derived::repository(owner);
    let mut seen: BTreeMap<String, MethodOrigin> = BTreeMap::new();
    let mut add = |rust: String, origin: MethodOrigin, out: &mut Vec<Clash>| match seen.get(&rust) {
        Some(first) => out.push(Clash::Methods {
            entity: c.entity.clone(),
            repository: repository.clone(),
            rust,
            first: first.clone(),
            second: origin,
        }),
        None => {
            seen.insert(rust, origin);
        }
    };
    for m in derived::REPOSITORY_METHODS {
        add((*m).to_owned(), MethodOrigin::Repository, out);
    }
    let mut history = false;
    for pattern in attrs.container.iter().filter_map(attr_name) {
        history |= pattern == "history";
        for m in derived::pattern_methods(&pattern) {
            add((*m).to_owned(), MethodOrigin::Pattern(pattern.clone()), out);
        }
    }
    for f in c.fields.iter().filter(|f| f.variant.is_none()) {
        let rust = field_ident(&f.code_name).to_string();
        let mut layouts: Vec<String> = attrs
            .fields
            .get(&f.name)
            .into_iter()
            .flatten()
            .filter_map(attr_name)
            .filter(|l| !derived::layout_methods(l).is_empty())
            .collect();
        // `parent_refs(.., find_by)` lists the holders of an id too, and so does
        // `embed(.., find_by(to = T, id = "id"))` the holders of an element referencing one.
        let lists_holders = attrs.fields.get(&f.name).into_iter().flatten().any(|a| {
            matches!(attr_name(a).as_deref(), Some("parent_refs" | "embed"))
                && layout::has_flag(a, "find_by")
        });
        if lists_holders {
            layouts.push("find_by".to_owned());
        }
        // A field copied to several places has one `fan_out` attribute per copy, one `set_`.
        layouts.sort();
        layouts.dedup();
        let names: Vec<String> = attrs
            .fields
            .get(&f.name)
            .into_iter()
            .flatten()
            .filter_map(attr_name)
            .collect();
        // A bounded array the derive sees without a layout is embedded, unless maintained or an
        // `@attributes` map (which has its entry methods instead).
        let bounded = f.array_depth > 0 && f.max_items.is_some();
        let maintained = names.iter().any(|n| n == "maintained");
        let attributes = f.attributes_value().is_some();
        if layouts.is_empty()
            && bounded
            && !maintained
            && !attributes
            && !attrs.unbounded.contains(&f.name)
        {
            layouts.push("embed".to_owned());
        }
        let shape = derived::FieldShape {
            maintained: f.name == "_id"
                || f.kind == FieldKind::Pattern
                || names.iter().any(|n| n == "immutable"),
            bounded: bounded && !attrs.unbounded.contains(&f.name),
            plain: names
                .iter()
                .all(|n| derived::PLAIN_FIELD_ATTRS.contains(&n.as_str()))
                && !matches!(f.kind, FieldKind::Computed | FieldKind::Denormalized),
            numeric: numeric(f),
            counter: names.iter().any(|n| n == "counter"),
            map: f.map,
            attributes,
        };
        // A document versioned with a history has no update methods of its own fields (the
        // derive's `history::unversioned_writes`; its layouts' writes are still listed here).
        if !history {
            for (prefix, suffix) in derived::field_methods(shape) {
                let origin = MethodOrigin::Field(f.code_name.clone());
                add(derived::field_method(prefix, &rust, suffix), origin, out);
            }
            for name in super::inner::method_names(f) {
                add(name, MethodOrigin::Field(f.code_name.clone()), out);
            }
            for name in super::elements::method_names(f, attrs.keyed.get(&f.name)) {
                add(name, MethodOrigin::Field(f.code_name.clone()), out);
            }
        }
        for layout in layouts {
            for (prefix, suffix) in derived::layout_methods(&layout) {
                let origin = MethodOrigin::Layout {
                    field: f.code_name.clone(),
                    layout: layout.clone(),
                };
                add(derived::field_method(prefix, &rust, suffix), origin, out);
            }
        }
    }
    let queries = plan
        .queries
        .iter()
        .filter(|q| q.collection == c.name && q.join.is_none() && q.unstored.is_empty());
    for q in queries {
        // The query's own method, then its `_page`, `_stream` and `count_` methods.
        for rust in super::queries::method_names(q) {
            add(rust, MethodOrigin::Query(q.name.clone()), out);
        }
    }
}

/// The clashes of the module generated from `plan`, as diagnostics at the declarations behind
/// them (`model` holds their places): E0322 for fields, E0506 for a query, E0323 for two layouts'
/// methods.
pub fn diagnostics(plan: &Plan, model: &Model) -> Vec<Diagnostic> {
    let mut found = clashes(plan);
    found.dedup();
    let mut out: Vec<Diagnostic> = Vec::new();
    for clash in &found {
        let d = match clash {
            Clash::Fields {
                entity,
                owner,
                rust,
                first,
                second,
            } => {
                let at = field_span(model, entity, owner, second)
                    .or_else(|| field_span(model, entity, owner, first))
                    .unwrap_or_else(|| entity_span(model, entity));
                let help = if [first, second].iter().any(|o| o.bson == "_id") {
                    format!(
                        "`{rust}` is the Rust name of the document's `_id`: rename the field, and \
                         keep the name the data has with `@stored(\"{}\")`",
                        second.bson
                    )
                } else {
                    "rename one of them; `@stored(\"name\")` keeps the name the data has".to_owned()
                };
                Diagnostic::error(
                    codes::RUST_FIELD_CLASH,
                    at,
                    format!(
                        "{} and {} would both be the Rust field `{rust}` of `{owner}`",
                        describe_field(first),
                        describe_field(second)
                    ),
                )
                .with_label(format!("`{rust}` in Rust"))
                .with_help(help)
            }
            Clash::Methods {
                entity,
                repository,
                rust,
                first,
                second,
            } => {
                let query = [second, first].into_iter().find_map(|o| match o {
                    MethodOrigin::Query(q) => Some(q.as_str()),
                    _ => None,
                });
                match query {
                    Some(q) => {
                        let other = if matches!(second, MethodOrigin::Query(x) if x == q) {
                            first
                        } else {
                            second
                        };
                        let at = model
                            .queries
                            .iter()
                            .rev()
                            .find(|x| x.name == q)
                            .map(|x| x.span)
                            .unwrap_or_else(|| entity_span(model, entity));
                        Diagnostic::error(
                            codes::QUERY_METHOD_CLASH,
                            at,
                            format!(
                                "query `{q}` would be the method `{rust}` of `{repository}`, \
                                 which is already {}",
                                describe_method(other)
                            ),
                        )
                        .with_label(format!("`{repository}::{rust}`"))
                        .with_help(
                            "a query becomes a method of the repository of its collection: give \
                             it a name of its own (`{rust}_by_...`)"
                                .replace("{rust}", rust),
                        )
                    }
                    None => Diagnostic::error(
                        codes::RUST_METHOD_CLASH,
                        layout_span(model, entity, second)
                            .or_else(|| layout_span(model, entity, first))
                            .unwrap_or_else(|| entity_span(model, entity)),
                        format!(
                            "`{repository}` would have two methods `{rust}`: {} and {}",
                            describe_method(first),
                            describe_method(second)
                        ),
                    )
                    .with_label(format!("two `{repository}::{rust}`"))
                    .with_help("rename one of the fields whose layouts write it"),
                }
            }
        };
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

fn describe_field(o: &FieldOrigin) -> String {
    let name = &o.code_name;
    match o.kind {
        _ if o.bson == "_id" => "the field that holds the document's `_id`".to_owned(),
        FieldKind::Computed => format!("the computed field `{name}`"),
        FieldKind::Pattern if name == "variant" && o.bson.is_empty() => {
            "the field that holds the variant's own fields".to_owned()
        }
        FieldKind::Pattern => format!("the field `{name}` the repository maintains"),
        FieldKind::Ref | FieldKind::RefArray => format!("the reference `{name}`"),
        FieldKind::Denormalized => format!("the copy `{name}`"),
        FieldKind::Scalar | FieldKind::Embedded => format!("field `{name}`"),
    }
}

fn describe_method(o: &MethodOrigin) -> String {
    match o {
        MethodOrigin::Repository => "a method every repository has".to_owned(),
        MethodOrigin::Pattern(p) => format!("a method of the `{p}` pattern"),
        MethodOrigin::Layout { field, layout } => {
            format!("a method of the `{layout}` layout of `{field}`")
        }
        MethodOrigin::Field(field) => format!("an update method of field `{field}`"),
        MethodOrigin::Query(q) => format!("query `{q}`"),
    }
}

/// Where the field whose layout writes a method is declared (a field or a relation end).
fn layout_span(model: &Model, entity: &str, o: &MethodOrigin) -> Option<Span> {
    let field = match o {
        MethodOrigin::Layout { field, .. } | MethodOrigin::Field(field) => field,
        _ => return None,
    };
    model
        .entity(entity)
        .and_then(|e| e.field(field))
        .map(|f| f.span)
        .or_else(|| {
            model
                .relations
                .iter()
                .flat_map(|r| [&r.left, &r.right])
                .find(|end| end.entity == entity && end.field == *field)
                .map(|end| end.span)
        })
}

fn entity_span(model: &Model, entity: &str) -> Span {
    model.entity(entity).map(|e| e.span).unwrap_or_default()
}

/// Where a field behind a clash is declared: in the entity, a value type named like the struct,
/// or as a relation end of the entity.
fn field_span(model: &Model, entity: &str, owner: &str, o: &FieldOrigin) -> Option<Span> {
    if !matches!(
        o.kind,
        FieldKind::Scalar | FieldKind::Embedded | FieldKind::Ref | FieldKind::RefArray
    ) {
        return None;
    }
    let name = o.code_name.as_str();
    let declared = model
        .entity(entity)
        .filter(|e| {
            super::names::type_ident(&e.name) == owner
                || owner.starts_with(&format!("{}::", super::names::type_ident(&e.name)))
        })
        .and_then(|e| e.field(name))
        .or_else(|| {
            model
                .value(owner)
                .and_then(|v| v.fields.iter().find(|f| f.name == name))
        });
    if let Some(f) = declared {
        return Some(f.span);
    }
    model
        .relations
        .iter()
        .flat_map(|r| [&r.left, &r.right])
        .find(|end| end.entity == entity && end.field == name)
        .map(|end| end.span)
}
