//! Ast -> Model: name resolution and semantic validation.
//!
//! Every error of the pass is collected (like serde's `Ctxt`) and reported together, sorted by
//! position. The work is split by what is being resolved:
//!
//! - `names`: the namespace of entities and value types, collections, "did you mean";
//! - `units`: numbers, sizes, rates, durations and ratios;
//! - `types`: type expressions and counters shapes;
//! - `shapes`: value types that contain themselves, nest too deep or expand too wide;
//! - `attrs`: field attributes and the facts they state;
//! - `fields`: field lists, BSON names and natural keys;
//! - `entities`: entities, value types, variants and entity attributes (patterns);
//! - `relations`: relation ends and cardinalities; `facts`: what a relation's body states;
//!   `children`: the facts about how its children are read;
//! - `queries`: queries and their field paths; `attribute_queries`: `has` on an `@attributes` map;
//! - `rust_names`: declarations that would be one type in the generated Rust;
//! - `settings`: the `settings` block;
//! - `vocabulary`: the words all of these know, for tools that offer them.

mod attr_habits;
mod attribute_queries;
mod attrs;
mod children;
mod entities;
mod enums;
mod facts;
mod fields;
mod names;
mod queries;
mod query_paths;
mod ranges;
mod relations;
mod rust_names;
mod settings;
mod shapes;
mod types;
mod units;
pub mod vocabulary;
mod words;

pub use crate::prose::{plural, IRREGULAR as IRREGULAR_PLURALS};
pub use fields::forbidden_field_name;

use std::collections::BTreeSet;

use squillion_grammar::ast::{Item, Schema};
use squillion_grammar::{Diagnostic, SourceFile, Span};

use crate::model::{Field, Model, Settings};

use self::names::Scope;

/// A validated model and the warnings found while validating it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The model.
    pub model: Model,
    /// Warnings (never errors).
    pub warnings: Vec<Diagnostic>,
}

/// Resolves names and validates a parsed schema. On failure, returns every diagnostic found
/// (errors and warnings), errors first in source order.
pub fn resolve(schema: &Schema) -> Result<Checked, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    let scope = Scope::collect(&mut diagnostics, schema);
    let mut r = Resolver {
        scope,
        diagnostics,
        untyped: BTreeSet::new(),
        doc_max_size: Settings::default().doc_max_size,
        single_ends: single_ends(schema),
    };

    let settings = settings::resolve(&mut r, schema);
    r.doc_max_size = settings.doc_max_size;
    let mut model = Model {
        settings,
        entities: Vec::new(),
        values: Vec::new(),
        relations: Vec::new(),
        queries: Vec::new(),
        index: Default::default(),
    };
    for item in &schema.items {
        if let Item::Value(decl) = item {
            let value = entities::value_type(&mut r, decl);
            model.values.push(value);
        }
    }
    for item in &schema.items {
        if let Item::Entity(decl) = item {
            let entity = entities::entity(&mut r, decl);
            model.entities.push(entity);
        }
    }
    model.reindex();
    names::check_collections(&mut r, &model.entities);

    let relation_decls = schema.items.iter().filter_map(|item| match item {
        Item::Relation(decl) => Some(decl),
        _ => None,
    });
    model.relations = relations::resolve_all(&mut r, &model, relation_decls);
    let query_decls = schema.items.iter().filter_map(|item| match item {
        Item::Query(decl) => Some(decl),
        _ => None,
    });
    model.queries = queries::resolve_all(&mut r, &model, query_decls);
    shapes::check(&mut r, &model);
    rust_names::check(&mut r, &model);

    let mut diagnostics = r.diagnostics;
    diagnostics.sort_by_key(|d| (!d.is_error(), d.span.start, d.span.end));
    if diagnostics.iter().any(Diagnostic::is_error) {
        Err(diagnostics)
    } else {
        Ok(Checked {
            model,
            warnings: diagnostics,
        })
    }
}

/// Parses and resolves a source file.
pub fn load(source: &SourceFile) -> Result<Checked, Vec<Diagnostic>> {
    let schema = squillion_grammar::parse(source.text())?;
    resolve(&schema)
}

/// The state of one resolution pass.
struct Resolver<'a> {
    /// Entities and value types by name.
    scope: Scope<'a>,
    /// Everything found so far, in no particular order.
    diagnostics: Vec<Diagnostic>,
    /// Declarations of fields whose type could not be resolved: checks that depend on the type
    /// skip them, so one unknown type is one error, not a cascade.
    untyped: BTreeSet<Span>,
    /// The largest document (`doc_max_size`): a value or counters larger than this can never be
    /// stored.
    doc_max_size: u64,
    /// Relation ends through which an entity holds exactly one other (`LogMessage.user: one`),
    /// by entity: what `keep` may name besides fields.
    single_ends: std::collections::BTreeMap<String, Vec<(String, String)>>,
}

/// Every relation end written `one`, by entity: `(end name, the other entity)`.
fn single_ends(schema: &Schema) -> std::collections::BTreeMap<String, Vec<(String, String)>> {
    let mut out: std::collections::BTreeMap<String, Vec<(String, String)>> = Default::default();
    for item in &schema.items {
        let Item::Relation(decl) = item else {
            continue;
        };
        for (end, other) in [(&decl.left, &decl.right), (&decl.right, &decl.left)] {
            if end.cardinality.class.name == "one" {
                out.entry(end.entity.name.clone())
                    .or_default()
                    .push((end.field.name.clone(), other.entity.name.clone()));
            }
        }
    }
    out
}

impl Resolver<'_> {
    /// Records a diagnostic.
    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Whether `field`'s type is known (its declaration resolved).
    fn typed(&self, field: &Field) -> bool {
        !self.untyped.contains(&field.span)
    }
}
