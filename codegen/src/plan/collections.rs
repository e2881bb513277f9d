//! The shape of every collection: its role, fields, `_id`, variants, indexes and size estimate.

use serde::{Deserialize, Serialize};

use super::{BsonType, RuleCitation};

/// Why a collection exists.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CollectionRole {
    /// The documents of an entity.
    Entity,
    /// Buckets of a relationship's children.
    Bucket {
        /// The relationship.
        relation: String,
    },
    /// One document per pair of a many-to-many relationship.
    Link {
        /// The relationship.
        relation: String,
    },
    /// Overflow documents of an outlier relationship.
    Overflow {
        /// The relationship.
        relation: String,
    },
    /// Past versions of a versioned entity.
    History,
}

/// A collection and the shape of its documents.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Collection {
    /// Its name.
    pub name: String,
    /// The entity whose documents it holds (for buckets, links and overflow: the child entity or
    /// the relationship's left entity).
    pub entity: String,
    /// Why it exists.
    pub role: CollectionRole,
    /// Doc comment lines of the entity.
    pub docs: Vec<String>,
    /// How documents are identified.
    pub id: IdPlan,
    /// The document's fields, `_id` first, in a stable order.
    pub fields: Vec<PlanField>,
    /// Secondary indexes (`_id` is implicit).
    pub indexes: Vec<Index>,
    /// Estimated sizes of one document.
    pub size: SizeEstimate,
    /// Entity-level patterns applied.
    pub patterns: Vec<PatternUse>,
    /// Polymorphic variants stored here, with their discriminator.
    pub variants: Option<Variants>,
    /// The schema version written on every document (schema versioning), if any.
    pub schema_version: Option<u32>,
}

impl Collection {
    /// The top-level field named `name` (BSON name).
    pub fn field(&self, name: &str) -> Option<&PlanField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The field at a dotted BSON path.
    pub fn field_at(&self, path: &str) -> Option<&PlanField> {
        let mut fields = &self.fields;
        let mut found = None;
        for segment in path.split('.') {
            let f = fields.iter().find(|f| f.name == segment)?;
            fields = &f.children;
            found = Some(f);
        }
        found
    }
}

/// How `_id` is made.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct IdPlan {
    /// Its BSON type.
    pub bson_type: BsonType,
    /// The natural key it holds, if any (seed 000: username).
    pub natural_key: Option<String>,
}

/// Polymorphic variants sharing a collection.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct Variants {
    /// BSON name of the discriminator field.
    pub discriminator: String,
    /// The variants' names (discriminator values), in declaration order.
    pub names: Vec<String>,
}

/// The kind of a planned field.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A declared scalar (or array/map of scalars).
    Scalar,
    /// An embedded document or array of them (value type or embedded entity).
    Embedded,
    /// An id of another document.
    Ref,
    /// An array of ids or extended references.
    RefArray,
    /// A copy of another entity's field.
    Denormalized,
    /// A value maintained on write (summary, top-N, count, flag).
    Computed,
    /// A field added by a pattern (discriminator, ancestors, schema version...).
    Pattern,
}

impl FieldKind {
    /// The kind as the Plan's JSON writes it: `ref_array`.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::Scalar => "scalar",
            FieldKind::Embedded => "embedded",
            FieldKind::Ref => "ref",
            FieldKind::RefArray => "ref_array",
            FieldKind::Denormalized => "denormalized",
            FieldKind::Computed => "computed",
            FieldKind::Pattern => "pattern",
        }
    }
}

/// A field of a planned document. Embedded documents and arrays of them carry `children`.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct PlanField {
    /// Its BSON name at this level.
    pub name: String,
    /// Dotted path from the document root (array levels are not written, as in MongoDB queries).
    pub path: String,
    /// The name used in code.
    pub code_name: String,
    /// What it is.
    pub kind: FieldKind,
    /// The BSON type of the value (`object` for documents; for arrays, the element's type).
    pub bson_type: String,
    /// The arrays and maps around the value, outermost first: `map<[T?]; 5>` is a map of at most
    /// 5 entries whose values are arrays whose elements may be null. Every emitter reads the
    /// field's shape from here (the Rust type, the validator, the size model, samples); the
    /// fields below (`array_depth`, `max_items`, `inner_dims`, `map`, `max_entries`) summarise it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<Container>,
    /// Arrays: nesting depth (1 for `[T]`, 2 for `[[T]]`), the number of array levels among the
    /// containers.
    pub array_depth: u8,
    /// Arrays: largest number of elements of the outermost array level.
    pub max_items: Option<u64>,
    /// Arrays: the usual number of elements, where the schema declares it (`typical`), or the
    /// usual entries of a bounded `@attributes` map (as for any bounded map, the smaller of its
    /// bound and 10). Average sizes use it; worst cases use `max_items`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typical_items: Option<u64>,
    /// Inner dimensions of nested arrays (counters 24 x 60: `[60]`): the bounds of the array
    /// levels inside the outermost one that declare one.
    pub inner_dims: Vec<u64>,
    /// A map whose keys are data, at some container level.
    pub map: bool,
    /// Maps: largest number of entries of the outermost map level (`map<T; N>`), the validator's `maxProperties` and the
    /// bound the repository's entry setter keeps. An `@attributes` map is an array: its bound is
    /// `max_items`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<u64>,
    /// May be absent.
    pub optional: bool,
    /// Name of the embedded type (value type, embedded entity, or generated reference type).
    pub type_name: Option<String>,
    /// An enumeration (`one_of(...)`, a string): the values it takes, in the order declared. The
    /// generated Rust type is an enum of them and the validator lists them (`enum`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enum_values: Vec<String>,
    /// A number's `@range(min, max)` (of each element, for arrays and maps): the validator's
    /// `minimum` and `maximum`, and the floor of a counter's guarded decrement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<crate::model::NumberRange>,
    /// Fields of the embedded document (or of each element / map value).
    pub children: Vec<PlanField>,
    /// The embedded document repeats an enclosing type (trees of replies).
    pub recursive: bool,
    /// For refs and copies: `Entity` referenced, or `Entity.field` copied.
    pub source: Option<String>,
    /// The relationship that placed it.
    pub relation: Option<String>,
    /// Only in documents of this variant.
    pub variant: Option<String>,
    /// Facts that matter downstream.
    pub flags: FieldFlags,
    /// Doc comment lines (the declaration's, or the decision's for relationship fields).
    pub docs: Vec<String>,
    /// Estimated size in a document, average and worst case.
    pub size: SizeEstimate,
}

/// The `type_name` of a geospatial point: a declared scalar stored as the GeoJSON document
/// `{type: "Point", coordinates: [longitude, latitude]}` (`squillion::GeoPoint` in Rust).
pub const GEO_POINT: &str = "GeoPoint";

/// One container level around a field's value: an array or a map whose keys are data.
#[derive(Debug, Clone, Copy, schemars::JsonSchema, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// An array, or a map (a document whose keys are data).
    pub kind: ContainerKind,
    /// Largest number of elements (entries); `None`: unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<u64>,
    /// Its elements (values) may be null: `[T?]`, `map<T?>`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
    /// Always holds exactly `bound` elements, written when the document is created (counters).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preallocated: bool,
}

/// What a [`Container`] level is.
#[derive(Debug, Clone, Copy, schemars::JsonSchema, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContainerKind {
    /// A BSON array.
    Array,
    /// A BSON document whose keys are data.
    Map,
}

impl Container {
    /// An array level of at most `bound` elements, never null.
    pub fn array(bound: Option<u64>) -> Container {
        Container {
            kind: ContainerKind::Array,
            bound,
            nullable: false,
            preallocated: false,
        }
    }

    /// A map level of at most `bound` entries, never null.
    pub fn map(bound: Option<u64>) -> Container {
        Container {
            kind: ContainerKind::Map,
            ..Container::array(bound)
        }
    }
}

impl PlanField {
    /// Makes this field a single array of at most `bound` elements (the engine's own arrays:
    /// references, embedded children, bucket items).
    pub fn set_array(&mut self, bound: Option<u64>) {
        self.containers = vec![Container::array(bound)];
        self.summarise_containers();
    }

    /// Sets the bound of the outermost container level, an array (the bound a pattern or a
    /// subset keeps).
    pub fn set_outer_bound(&mut self, bound: Option<u64>) {
        if let Some(level) = self.containers.first_mut() {
            level.bound = bound;
        }
        self.summarise_containers();
    }

    /// The outermost container level, if any.
    pub fn outer(&self) -> Option<&Container> {
        self.containers.first()
    }

    /// Whether the field itself is a map (its outermost level): the field the repository's entry
    /// methods update by key.
    pub fn is_map(&self) -> bool {
        self.outer().is_some_and(|c| c.kind == ContainerKind::Map)
    }

    /// Whether the field itself is an array (its outermost level).
    pub fn is_array(&self) -> bool {
        self.outer().is_some_and(|c| c.kind == ContainerKind::Array)
    }

    /// Fills the summary fields (`array_depth`, `max_items`, `inner_dims`, `map`,
    /// `max_entries`) from `containers`.
    pub fn summarise_containers(&mut self) {
        let arrays: Vec<&Container> = self
            .containers
            .iter()
            .filter(|c| c.kind == ContainerKind::Array)
            .collect();
        self.array_depth = u8::try_from(arrays.len()).unwrap_or(u8::MAX);
        self.max_items = arrays.first().and_then(|c| c.bound);
        self.inner_dims = arrays.iter().skip(1).filter_map(|c| c.bound).collect();
        let maps: Vec<&Container> = self
            .containers
            .iter()
            .filter(|c| c.kind == ContainerKind::Map)
            .collect();
        self.map = !maps.is_empty();
        self.max_entries = maps.first().and_then(|c| c.bound);
    }

    /// Whether this field is an `@attributes` map (the attribute pattern): an array of `{k, v}`
    /// documents the repository writes one entry at a time; `v` is the value.
    pub fn attributes_value(&self) -> Option<&PlanField> {
        let entries = self.kind == FieldKind::Pattern
            && self.bson_type == "object"
            && self.array_depth == 1
            && self.children.len() == 2
            && self.children[0].name == "k";
        entries.then(|| &self.children[1]).filter(|v| v.name == "v")
    }

    /// Whether this field is preallocated counters (`counters(24 x 60)`, the histogram pattern):
    /// every container level preallocated, each slot incremented in place.
    pub fn is_counters(&self) -> bool {
        self.kind == FieldKind::Pattern
            && !self.containers.is_empty()
            && self.containers.iter().all(|c| c.preallocated)
    }

    /// Whether this field holds geospatial points (GeoJSON), the values a `2dsphere` key indexes.
    pub fn is_geo_point(&self) -> bool {
        self.kind != FieldKind::Embedded
            && self.bson_type == "object"
            && self.type_name.as_deref() == Some(GEO_POINT)
    }
}

/// Field facts emitters need.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Default, Serialize)]
pub struct FieldFlags {
    /// Never shown in samples.
    pub sensitive: bool,
    /// Stored, never queried.
    pub payload: bool,
    /// Never changes.
    pub immutable: bool,
    /// Large value.
    pub large: bool,
    /// Seldom read.
    pub seldom_read: bool,
    /// Declared unique.
    pub unique: bool,
    /// Declared indexed.
    pub indexed: bool,
    /// Looked up case-insensitively.
    pub ignore_case: bool,
    /// TTL in seconds (a date field whose documents expire).
    pub expire_after_seconds: Option<u64>,
    /// A counter (`@counter`): the repository adds to it and takes from it without going below 0.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counter: bool,
}

/// A secondary index.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Index {
    /// Stable name (MongoDB's default form: `field_1_other_-1`).
    pub name: String,
    /// Keys in order, with direction (1 or -1).
    pub keys: Vec<IndexKey>,
    /// Unique.
    pub unique: bool,
    /// Sparse (skips documents without the field).
    pub sparse: bool,
    /// Partial filter expression, as JSON.
    pub partial_filter: Option<serde_json::Value>,
    /// Collation (case-insensitive lookups use strength 2).
    pub collation: Option<IndexCollation>,
    /// TTL in seconds.
    pub expire_after_seconds: Option<u64>,
    /// Indexes an array (multikey).
    pub multikey: bool,
    /// Why it exists: the queries and rules it serves, in words.
    pub reasons: Vec<String>,
    /// What it serves, as data (one entry per reason): what code reads to find the index of a
    /// query or of a relationship's reads, never the sentences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub serves: Vec<IndexUse>,
}

/// One use of an index.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexUse {
    /// A field's declared fact (`@unique`, `@index`, `@expires`) at `path`.
    Declared {
        /// The field's stored path.
        path: String,
    },
    /// A declared query.
    Query {
        /// The query's name.
        name: String,
    },
    /// An entity pattern's reads (a tree's, a queue's claim, versions, the attribute pattern).
    Pattern,
    /// A relationship's own reads or writes.
    Relationship {
        /// The relationship's id (`Author.books`).
        id: String,
        /// Which.
        role: RelationshipUse,
    },
}

/// What a relationship's index is for.
#[derive(Debug, Clone, Copy, schemars::JsonSchema, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationshipUse {
    /// The holders of an id found through their array of references (`one_way`, `parent_refs`
    /// read from the child): the repository's `find_by_<array>`.
    Holders,
    /// A parent's children found through their reference (`child_ref`), in the relationship's
    /// order: the repository's `find_by_<reference>`.
    Children,
    /// The copies of a source found when it changes (the fan-out).
    FanOut,
    /// A bucket's append upsert, or its pages or time ranges.
    Bucket,
    /// A link collection's pairs, from either side.
    Link,
    /// An outlier's overflow documents.
    Overflow,
}

impl Index {
    /// Whether the index serves `role` of relationship `id`.
    pub fn serves_relationship(&self, id: &str, role: RelationshipUse) -> bool {
        self.serves.iter().any(
            |u| matches!(u, IndexUse::Relationship { id: i, role: r } if i == id && *r == role),
        )
    }

    /// Whether the index serves the declared query `name`.
    pub fn serves_query(&self, name: &str) -> bool {
        self.serves
            .iter()
            .any(|u| matches!(u, IndexUse::Query { name: n } if n == name))
    }
}

/// One index key.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct IndexKey {
    /// Dotted path.
    pub path: String,
    /// 1 or -1 (1 for a `2dsphere` key).
    pub direction: i32,
    /// A geospatial `2dsphere` key (GeoJSON points) instead of an ordered one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sphere: bool,
}

impl IndexKey {
    /// An ordered key.
    pub fn ordered(path: impl Into<String>, direction: i32) -> IndexKey {
        IndexKey {
            path: path.into(),
            direction,
            sphere: false,
        }
    }

    /// The key's value in MongoDB's index specification: `1`, `-1` or `"2dsphere"`.
    pub fn spec(&self) -> serde_json::Value {
        if self.sphere {
            serde_json::Value::String("2dsphere".to_owned())
        } else {
            serde_json::Value::from(self.direction)
        }
    }

    /// The key's value as MongoDB writes it in index names: `1`, `-1` or `2dsphere`.
    pub fn written(&self) -> String {
        if self.sphere {
            "2dsphere".to_owned()
        } else {
            self.direction.to_string()
        }
    }
}

/// An index collation.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct IndexCollation {
    /// Locale, e.g. `en`.
    pub locale: String,
    /// Strength (2: case-insensitive).
    pub strength: u8,
}

/// Estimated BSON sizes, bytes.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SizeEstimate {
    /// Average.
    pub average: u64,
    /// Worst case (`None`: unbounded).
    pub worst: Option<u64>,
}

/// An entity-level pattern applied to a collection.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct PatternUse {
    /// tree, queue, polymorphic, attributes, document_versioning, schema_versioning, histogram,
    /// payload.
    pub name: String,
    /// What it adds, as a sentence.
    pub detail: String,
    /// Rule or seed citation.
    pub rule: RuleCitation,
}
