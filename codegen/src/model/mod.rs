//! The Model: a `.sqn` file with every name resolved and every fact checked.
//!
//! The decision engine reads only this. Spans are kept so that its warnings can point into the file.

mod field;
mod relation;
mod settings;

use serde::Serialize;
use squillion_grammar::Span;

pub use field::{BsonType, Field, FieldFacts, FieldType, NumberRange};
pub use relation::{
    Cardinality, CardinalityClass, Forced, Layout, Navigate, OrderBy, Page, Relation, RelationEnd,
    RelationFacts, RelationKind, Show, Side, Subset, Summary, SummaryFn,
};
pub use settings::{SettingKind, Settings};

/// A validated schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    /// Thresholds in force (defaults overridden by the file's `settings`).
    pub settings: Settings,
    /// Entities, in declaration order.
    pub entities: Vec<Entity>,
    /// Value types, in declaration order.
    pub values: Vec<ValueType>,
    /// Relationships, in declaration order.
    pub relations: Vec<Relation>,
    /// Declared queries, in declaration order.
    pub queries: Vec<Query>,
    /// Positions of entities and value types by name, for lookups in large schemas.
    #[serde(skip)]
    pub index: ModelIndex,
}

/// Where each entity and value type sits in a [`Model`], by name (see [`Model::reindex`]).
#[derive(Debug, Clone, Default)]
pub struct ModelIndex {
    entities: std::collections::HashMap<String, usize>,
    values: std::collections::HashMap<String, usize>,
}

impl PartialEq for ModelIndex {
    /// An index is derived data: two models are equal whatever their indexes hold.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Model {
    /// Rebuilds the name index after entities or value types were added. Lookups stay correct
    /// without it (they fall back to a scan), only slower.
    pub fn reindex(&mut self) {
        self.index.entities = self
            .entities
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.clone(), i))
            .collect();
        self.index.values = self
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), i))
            .collect();
    }

    /// The entity named `name`.
    pub fn entity(&self, name: &str) -> Option<&Entity> {
        if let Some(e) = self
            .index
            .entities
            .get(name)
            .and_then(|&i| self.entities.get(i))
        {
            if e.name == name {
                return Some(e);
            }
        }
        self.entities.iter().find(|e| e.name == name)
    }

    /// The value type named `name`.
    pub fn value(&self, name: &str) -> Option<&ValueType> {
        if let Some(v) = self
            .index
            .values
            .get(name)
            .and_then(|&i| self.values.get(i))
        {
            if v.name == name {
                return Some(v);
            }
        }
        self.values.iter().find(|v| v.name == name)
    }

    /// The relationships that have `entity` at one of their ends.
    pub fn relations_of<'a>(&'a self, entity: &'a str) -> impl Iterator<Item = &'a Relation> + 'a {
        self.relations
            .iter()
            .filter(move |r| r.left.entity == entity || r.right.entity == entity)
    }
}

/// How documents of an entity are identified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Identity {
    /// A generated ObjectId in `_id`.
    ObjectId,
    /// An immutable natural key stored as `_id` (seed 000: username).
    Natural {
        /// The field that holds the key.
        field: String,
        /// Its BSON type.
        bson_type: BsonType,
    },
}

/// Entity-level patterns declared with attributes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EntityPatterns {
    /// `@tree`: a hierarchy of documents of this entity.
    pub tree: bool,
    /// `@queue(priority: f)`: the field that orders jobs.
    pub queue: Option<String>,
    /// `@polymorphic(discriminator: "type")`: the discriminator's BSON name.
    pub polymorphic: Option<String>,
    /// `@versioned`: document versioning.
    pub versioned: Option<Versioning>,
    /// `@schema_version(n)`: the current schema version.
    pub schema_version: Option<u32>,
    /// `@static`: reference data, loaded once and never written afterwards (every field is
    /// immutable).
    pub read_only: bool,
}

/// The document-versioning variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Versioning {
    /// One current document plus a history collection.
    CurrentAndHistory,
    /// Every version in one collection with `valid_from`/`valid_to` (supports future versions).
    ValidRange,
}

/// The deepest nesting of value types in a document: levels of subdocuments the engine expands
/// (each value type is one; `@attributes` adds one). Deeper nesting is an error (E0320).
pub const MAX_VALUE_NESTING: usize = 32;

/// The most fields a document's shape may have once its value types are expanded (each use of a
/// value type copies its fields). More is an error (E0321).
pub const MAX_DOCUMENT_FIELDS: u64 = 10_000;

/// A declared entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// Its name.
    pub name: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The collection it lives in when it has one.
    pub collection: String,
    /// Whether the collection name was given with `@collection`.
    pub collection_declared: bool,
    /// How documents are identified.
    pub identity: Identity,
    /// Fields common to every document.
    pub fields: Vec<Field>,
    /// Variants of a polymorphic entity.
    pub variants: Vec<Variant>,
    /// Entity-level patterns.
    pub patterns: EntityPatterns,
    /// The declaration's name.
    pub span: Span,
}

impl Entity {
    /// The common field named `name`, or a field of a variant.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.all_fields().find(|f| f.name == name)
    }

    /// Every field: the common ones, then each variant's, in declaration order.
    pub fn all_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields
            .iter()
            .chain(self.variants.iter().flat_map(|v| v.fields.iter()))
    }

    /// Whether `field` is the natural key (`@key`): the value stored as `_id`, which every
    /// reference to the entity holds.
    pub fn is_key(&self, field: &str) -> bool {
        matches!(&self.identity, Identity::Natural { field: key, .. } if key == field)
    }
}

/// One variant of a polymorphic entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// Its name, also the discriminator's value.
    pub name: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// Its own fields.
    pub fields: Vec<Field>,
    /// The declaration's name.
    pub span: Span,
}

/// A declared value type (no identity, always embedded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueType {
    /// Its name.
    pub name: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// Its fields.
    pub fields: Vec<Field>,
    /// The declaration's name.
    pub span: Span,
}

/// A query the application runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Query {
    /// Its name.
    pub name: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The entity it reads (the children's entity, for a query on a parent's children).
    pub entity: String,
    /// Set for `query q on Post.comments`: the query reads one parent's children, through the
    /// relationship, and does not make the children standalone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<ChildrenOf>,
    /// Conditions, all of which must hold.
    pub conditions: Vec<Condition>,
    /// Sort keys.
    pub sort: Vec<SortKey>,
    /// `limit N`.
    pub limit: Option<u64>,
    /// Executions per second, if given.
    pub rate_per_second: Option<f64>,
    /// `returns a, b`: the fields the query returns (a projection, `_id` always with them), in
    /// the order written; empty when it returns whole documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<Returned>,
    /// The declaration's name.
    pub span: Span,
}

/// The relationship a query on a parent's children reads through (`on Post.comments`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChildrenOf {
    /// The relation's id.
    pub relation: String,
    /// The parent entity.
    pub parent: String,
    /// The parent's end (`comments`).
    pub parent_end: String,
    /// The children's end (`post`): the name of the parent's parameter.
    pub child_end: String,
}

/// A field a query returns (`returns title`): a field or relation end of the queried entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Returned {
    /// The name as written.
    pub name: String,
    /// The name in the file.
    pub span: Span,
}

/// A comparison.
pub use squillion_grammar::ast::Operator;

/// One condition of a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// The field path as written (`author.name`), resolved.
    pub path: FieldPath,
    /// The comparison.
    pub op: Operator,
    /// Compared case-insensitively.
    pub ignore_case: bool,
    /// The condition in the file.
    pub span: Span,
    /// `path has (k == ?, v <op> ?)`: `path` is an `@attributes` map, the condition holds when
    /// one of its attributes has the given key and a value that compares so (`op`); `bson_type`
    /// is then the type of the map's values.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub attribute: bool,
}

/// One sort key of a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortKey {
    /// The field path, resolved.
    pub path: FieldPath,
    /// Descending.
    pub descending: bool,
    /// The key in the file.
    pub span: Span,
}

/// A field path in a query, resolved against the entity and its relations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldPath {
    /// The segments as written (`["author", "name"]`).
    pub segments: Vec<String>,
    /// If the path goes through a relation end of the queried entity, its relation's id and the
    /// field of the other entity it reaches (`author.name` -> relation `Author.books`, `name`).
    pub through: Option<Through>,
    /// The BSON type of the last segment.
    pub bson_type: Option<BsonType>,
}

impl FieldPath {
    /// The path as written, joined by dots.
    pub fn dotted(&self) -> String {
        self.segments.join(".")
    }
}

/// A query path that crosses a relationship.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Through {
    /// The relation's id.
    pub relation: String,
    /// The entity on the other side.
    pub entity: String,
    /// The field of that entity (dotted, for nested value fields).
    pub field: String,
}
