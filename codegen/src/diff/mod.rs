//! What changed between two Plans of one schema (issue 15, schema evolution): the facts, the
//! decisions with the Plan's reasons on both sides, the collections, the stored fields, the
//! indexes and the validators, with the data each change moves (from the size model) and the
//! collections whose `schema_version` must be bumped because their stored shape changed.
//!
//! Data only: [`diff`] compares two [`Plan`]s and decides nothing anew; the sentences are made
//! from this data in one place ([`crate::prose::diff`]) and laid out as text or Markdown by
//! [`render`]. The JSON form ([`PlanDiff::to_json`]) is for tools and reads back with serde.
//!
//! Every change holds the `old` and the `new` state (`None` where the thing is absent on that
//! side), keyed by what identifies it on both sides: a relationship by its id, a collection by its
//! entity and role (so `@collection("...")` renames it rather than dropping one and creating
//! another), a field by its path of code names (so `@stored("...")` renames the stored field), an
//! index by its name. So the diff of `b` against `a` is the diff of `a` against `b` with `old` and
//! `new` swapped ([`PlanDiff::mirror`]).

mod compare;
mod facts;
pub mod render;

use serde::{Deserialize, Serialize};

use crate::plan::{Collection, CollectionRole, Container, ContainerKind, Plan};

/// Everything that differs between two Plans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanDiff {
    /// Version of this format.
    pub format_version: u32,
    /// The old Plan's source name.
    pub old_source: String,
    /// The new Plan's source name.
    pub new_source: String,
    /// Facts stated differently: cardinalities, bounds, the decisions' facts (read alone, shown,
    /// ratios...), queries and their rates, thresholds.
    pub facts: Vec<FactChange>,
    /// Relationships whose layout, modifiers or placement changed (or that appeared or went).
    pub decisions: Vec<DecisionChange>,
    /// Collections added, removed or renamed.
    pub collections: Vec<CollectionChange>,
    /// Stored fields added, removed, renamed or changed, in collections present on both sides.
    pub fields: Vec<FieldChange>,
    /// Indexes created, dropped or redefined, in collections present on both sides.
    pub indexes: Vec<IndexChange>,
    /// Validator rules changed, in collections present on both sides.
    pub validators: Vec<ValidatorChange>,
    /// Collections whose stored shape changed or whose `schema_version` changed.
    pub versions: Vec<VersionChange>,
}

impl PlanDiff {
    /// The version of the JSON format written by this build.
    pub const FORMAT_VERSION: u32 = 1;

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
            && self.decisions.is_empty()
            && self.collections.is_empty()
            && self.fields.is_empty()
            && self.indexes.is_empty()
            && self.validators.is_empty()
            && self.versions.is_empty()
    }

    /// The same diff read the other way: `diff(new, old)` (every `old` and `new` swapped, and
    /// what derives from them, the data moved and the version bumps, derived again).
    pub fn mirror(&self) -> PlanDiff {
        fn swap<T: Clone>(old: &Option<T>, new: &Option<T>) -> (Option<T>, Option<T>) {
            (new.clone(), old.clone())
        }
        let mut m = self.clone();
        std::mem::swap(&mut m.old_source, &mut m.new_source);
        for f in &mut m.facts {
            f.swap();
        }
        for d in &mut m.decisions {
            (d.old, d.new) = swap(&d.old, &d.new);
            d.moved = Moved::of_decision(d.old.as_ref(), d.new.as_ref());
        }
        for c in &mut m.collections {
            (c.old, c.new) = swap(&c.old, &c.new);
        }
        for f in &mut m.fields {
            (f.old, f.new) = swap(&f.old, &f.new);
            f.moved = Moved::of_field(f.old.as_ref(), f.new.as_ref());
        }
        for i in &mut m.indexes {
            (i.old, i.new) = swap(&i.old, &i.new);
            i.moved = Moved::of_index(i.old.as_ref(), i.new.as_ref());
        }
        for v in &mut m.validators {
            std::mem::swap(&mut v.old_collection, &mut v.new_collection);
            for p in &mut v.properties {
                (p.old, p.new) = swap(&p.old, &p.new);
            }
        }
        for v in &mut m.versions {
            std::mem::swap(&mut v.old_collection, &mut v.new_collection);
            std::mem::swap(&mut v.old, &mut v.new);
            v.must_bump = VersionChange::needs_bump(v.shape_changed, v.old, v.new);
        }
        m
    }

    /// The diff as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The JSON Schema of the JSON form (`docs/diff.schema.json` is this, kept in sync by a
    /// test).
    pub fn json_schema() -> serde_json::Value {
        let mut schema = serde_json::to_value(schemars::schema_for!(PlanDiff)).unwrap_or_default();
        if let Some(obj) = schema.as_object_mut() {
            obj.insert(
                "$id".to_owned(),
                serde_json::Value::String(format!(
                    "https://squillion.dev/schema/diff/v{}.json",
                    PlanDiff::FORMAT_VERSION
                )),
            );
        }
        schema
    }

    /// Reads the JSON form back.
    pub fn from_json(text: &str) -> Result<PlanDiff, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// What the Plans say about one subject, old and new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum FactChange {
    /// How many of the other end one end has (`many(300)` -> `few`), and the bound in force.
    Cardinality {
        /// The relationship (`Author.books`).
        relation: String,
        /// The end counted: `from` counts the right entity per left one, `to` the reverse.
        end: End,
        /// The entity counted.
        counted: String,
        /// The entity that has them.
        per: String,
        /// Before.
        old: Option<Cardinality>,
        /// After.
        new: Option<Cardinality>,
    },
    /// A fact of a decision as the Plan states it (read alone, shown with a ratio, latest N...)
    /// that one side states and the other does not.
    Stated {
        /// The relationship.
        relation: String,
        /// The Plan's sentence, on the side that states it.
        old: Option<String>,
        /// The Plan's sentence, on the side that states it.
        new: Option<String>,
    },
    /// A declared query: what it filters, sorts and returns, its rate and the index serving it.
    Query {
        /// The query's name.
        name: String,
        /// Before.
        old: Option<QueryFacts>,
        /// After.
        new: Option<QueryFacts>,
    },
    /// A threshold (`settings`).
    Setting {
        /// The setting's name.
        name: String,
        /// Before.
        old: Option<serde_json::Value>,
        /// After.
        new: Option<serde_json::Value>,
    },
}

impl FactChange {
    fn swap(&mut self) {
        fn s<T>(a: &mut Option<T>, b: &mut Option<T>) {
            std::mem::swap(a, b);
        }
        match self {
            FactChange::Cardinality { old, new, .. } => s(old, new),
            FactChange::Stated { old, new, .. } => s(old, new),
            FactChange::Query { old, new, .. } => s(old, new),
            FactChange::Setting { old, new, .. } => s(old, new),
        }
    }

    /// What it is about, the same on both sides: the order of [`PlanDiff::facts`].
    pub fn key(&self) -> (u8, String, String) {
        match self {
            FactChange::Cardinality { relation, end, .. } => {
                (0, relation.clone(), format!("{end:?}"))
            }
            FactChange::Stated { relation, old, new } => (
                1,
                relation.clone(),
                old.clone().or_else(|| new.clone()).unwrap_or_default(),
            ),
            FactChange::Query { name, .. } => (2, name.clone(), String::new()),
            FactChange::Setting { name, .. } => (3, name.clone(), String::new()),
        }
    }
}

/// A relationship's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// The left end (`Author.books` in `relation Author.books: many <-> Book.author: one`).
    From,
    /// The right end.
    To,
}

/// A cardinality as written, with its bound in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cardinality {
    /// As written: `many(300)`.
    pub written: String,
    /// The bound in force (`None`: unbounded).
    pub max: Option<u64>,
}

/// A query's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryFacts {
    /// The collection it runs on.
    pub collection: String,
    /// Its conditions: `path op`, stored paths (`attrs has (k ==, v <)` on an attribute map).
    pub conditions: Vec<String>,
    /// Its sort keys: `path 1|-1`.
    pub sort: Vec<String>,
    /// Its limit.
    pub limit: Option<u64>,
    /// Its declared rate per second.
    pub rate_per_second: Option<f64>,
    /// The index serving it.
    pub index: Option<String>,
}

/// A relationship's decision, old and new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DecisionChange {
    /// The relationship's id (`Entity.field` of its left end).
    pub relation: String,
    /// Before.
    pub old: Option<DecisionState>,
    /// After.
    pub new: Option<DecisionState>,
    /// The data the change of layout moves ([`Moved::of_decision`]).
    pub moved: Moved,
}

/// One side's decision about a relationship.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DecisionState {
    /// The entity owning the relationship.
    pub parent: String,
    /// The other entity.
    pub child: String,
    /// The layout (`embed`, `child_ref`, ...).
    pub layout: String,
    /// Forced with `force`.
    pub forced: bool,
    /// Fields copied (`Entity.field` of each source).
    pub copies: Vec<String>,
    /// `latest N` kept in the parent.
    pub subset: Option<u64>,
    /// Children per bucket.
    pub bucket: Option<u64>,
    /// Paths of the values maintained on write.
    pub computed: Vec<String>,
    /// Children kept in the parent before overflowing (outlier pattern).
    pub outlier: Option<u64>,
    /// Where each side is stored: `collection.path`.
    pub placement: Vec<String>,
    /// The Plan's reason for the layout.
    pub because: String,
    /// The titles of the rules the Plan cites.
    pub rules: Vec<String>,
    /// Children per parent on average, from the cost model's workload (0 when not costed).
    pub children: u64,
    /// Average size of one child, bytes.
    pub child_bytes: u64,
}

/// The data a change moves, per document of the collection concerned (for a relationship: per
/// parent document), from the size model's averages.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Moved {
    /// Documents (or elements) written or moved per such document.
    pub documents: u64,
    /// Bytes written, moved or freed per such document.
    pub bytes: u64,
}

/// Whether going from `old` to `new` moves the children themselves (into or out of other
/// documents: `embed`, `bucket`, or the relationship dropped), not only references to them.
pub fn relocates_children(old: &DecisionState, new: Option<&DecisionState>) -> bool {
    let inside = |s: &DecisionState| matches!(s.layout.as_str(), "embed" | "bucket");
    inside(old) || new.is_none_or(inside)
}

/// One reference to a document: an ObjectId element under a short name (type byte, name, NUL,
/// 12 bytes).
pub const REFERENCE_BYTES: u64 = 19;

impl Moved {
    /// A relationship's: the children stored under the old layout follow the new one. When
    /// either layout keeps them inside other documents (`embed`, `bucket`) the children
    /// themselves move; between layouts that keep each child in a document of its own only the
    /// references do (an id per child). Nothing moves when the layout stays (the field changes
    /// then say what is rewritten) or when the relationship is new (nothing is stored yet).
    pub fn of_decision(old: Option<&DecisionState>, new: Option<&DecisionState>) -> Moved {
        match (old, new) {
            (Some(o), Some(n)) if o.layout == n.layout => Moved::default(),
            (Some(o), n) => {
                let each = if relocates_children(o, n) {
                    o.child_bytes
                } else {
                    REFERENCE_BYTES
                };
                Moved {
                    documents: o.children,
                    bytes: o.children.saturating_mul(each),
                }
            }
            (None, _) => Moved::default(),
        }
    }

    /// A field's: every document rewritten with the new value (or without the old one).
    pub fn of_field(old: Option<&FieldState>, new: Option<&FieldState>) -> Moved {
        Moved {
            documents: 1,
            bytes: new.or(old).map_or(0, |f| f.average_bytes),
        }
    }

    /// An index's: one entry per document, built (or freed).
    pub fn of_index(old: Option<&IndexState>, new: Option<&IndexState>) -> Moved {
        Moved {
            documents: 1,
            bytes: new.or(old).map_or(0, |i| i.entry_bytes),
        }
    }
}

/// How a collection is identified on both sides: the entity it holds and why it exists.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct CollectionKey {
    /// The entity.
    pub entity: String,
    /// `entity`, `bucket`, `link`, `overflow` or `history`.
    pub role: String,
    /// The relationship, for buckets, links and overflow.
    pub relation: Option<String>,
}

impl CollectionKey {
    /// The key of a planned collection.
    pub fn of(c: &Collection) -> CollectionKey {
        let (role, relation) = match &c.role {
            CollectionRole::Entity => ("entity", None),
            CollectionRole::Bucket { relation } => ("bucket", Some(relation.clone())),
            CollectionRole::Link { relation } => ("link", Some(relation.clone())),
            CollectionRole::Overflow { relation } => ("overflow", Some(relation.clone())),
            CollectionRole::History => ("history", None),
        };
        CollectionKey {
            entity: c.entity.clone(),
            role: role.to_owned(),
            relation,
        }
    }
}

/// A collection added, removed or renamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CollectionChange {
    /// What identifies it on both sides.
    pub key: CollectionKey,
    /// Before.
    pub old: Option<CollectionState>,
    /// After.
    pub new: Option<CollectionState>,
}

/// One side's collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CollectionState {
    /// Its name.
    pub name: String,
    /// Top-level fields.
    pub fields: usize,
    /// Secondary indexes.
    pub indexes: usize,
    /// Average document size, bytes.
    pub average_bytes: u64,
}

/// A stored field added, removed or changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldChange {
    /// Its collection.
    pub collection: CollectionKey,
    /// Its path of code names (the same on both sides when only the stored name changed).
    pub code_path: String,
    /// Before.
    pub old: Option<FieldState>,
    /// After.
    pub new: Option<FieldState>,
    /// The data it moves ([`Moved::of_field`]).
    pub moved: Moved,
}

impl FieldChange {
    /// Whether documents already stored no longer have the new shape: the field appeared, went,
    /// was renamed, or changed its type, kind, nesting or optionality.
    pub fn changes_stored_shape(&self) -> bool {
        match (&self.old, &self.new) {
            (Some(o), Some(n)) => {
                o.path != n.path
                    || o.kind != n.kind
                    || o.bson_type != n.bson_type
                    || o.array_depth != n.array_depth
                    || o.map != n.map
                    || o.optional != n.optional
                    || kinds(o) != kinds(n)
            }
            _ => true,
        }
    }
}

/// The kinds of a field's container levels, outermost first (`map<[T]>` is not `[map<T>]`).
fn kinds(f: &FieldState) -> Vec<ContainerKind> {
    f.containers.iter().map(|c| c.kind).collect()
}

/// One side's stored field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldState {
    /// The collection's name on this side.
    pub collection: String,
    /// The stored (BSON) path.
    pub path: String,
    /// `scalar`, `embedded`, `ref`, `ref_array`, `denormalized`, `computed`, `pattern`.
    pub kind: String,
    /// The BSON type (of the elements, for arrays).
    pub bson_type: String,
    /// The arrays and maps around the value, outermost first, with their bounds and whether
    /// their elements may be null.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<Container>,
    /// Array nesting depth.
    pub array_depth: u8,
    /// A map whose keys are data.
    pub map: bool,
    /// May be absent.
    pub optional: bool,
    /// Largest number of elements, for arrays.
    pub max_items: Option<u64>,
    /// Largest number of entries, for bounded maps (`map<T; N>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<u64>,
    /// The values of an enumeration.
    pub enum_values: Vec<String>,
    /// `Entity` referenced or `Entity.field` copied.
    pub source: Option<String>,
    /// Its average size in a document, bytes (size model).
    pub average_bytes: u64,
}

/// An index created, dropped or redefined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexChange {
    /// Its collection.
    pub collection: CollectionKey,
    /// Its name.
    pub name: String,
    /// Before.
    pub old: Option<IndexState>,
    /// After.
    pub new: Option<IndexState>,
    /// Building (or dropping) it ([`Moved::of_index`]).
    pub moved: Moved,
}

/// One side's index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexState {
    /// The collection's name on this side.
    pub collection: String,
    /// Keys: `path 1`, `path -1`, `path 2dsphere`.
    pub keys: Vec<String>,
    /// Unique.
    pub unique: bool,
    /// Sparse.
    pub sparse: bool,
    /// Partial filter expression.
    pub partial_filter: Option<serde_json::Value>,
    /// Collation strength (2: case-insensitive).
    pub collation_strength: Option<u8>,
    /// TTL in seconds.
    pub expire_after_seconds: Option<u64>,
    /// Why the Plan keeps it (the queries and rules it serves).
    pub reasons: Vec<String>,
    /// Average size of one entry's keys, bytes (size model).
    pub entry_bytes: u64,
}

impl IndexState {
    /// Whether two indexes are the same on the server (reasons aside).
    pub fn same_definition(&self, other: &IndexState) -> bool {
        self.keys == other.keys
            && self.unique == other.unique
            && self.sparse == other.sparse
            && self.partial_filter == other.partial_filter
            && self.collation_strength == other.collation_strength
            && self.expire_after_seconds == other.expire_after_seconds
    }
}

/// A collection's validator rules that changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidatorChange {
    /// The collection.
    pub collection: CollectionKey,
    /// Its name before.
    pub old_collection: String,
    /// Its name after.
    pub new_collection: String,
    /// The properties whose rules changed, by stored path.
    pub properties: Vec<PropertyChange>,
}

/// One property's `$jsonSchema` rule (without its nested properties), with `required`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PropertyChange {
    /// Stored path.
    pub path: String,
    /// Before (`None`: no rule).
    pub old: Option<serde_json::Value>,
    /// After.
    pub new: Option<serde_json::Value>,
}

/// A collection whose stored shape or `schema_version` changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VersionChange {
    /// The collection.
    pub collection: CollectionKey,
    /// Its name before.
    pub old_collection: String,
    /// Its name after.
    pub new_collection: String,
    /// `schema_version` before (`None`: not versioned).
    pub old: Option<u32>,
    /// `schema_version` after.
    pub new: Option<u32>,
    /// Some stored field appeared, went, was renamed or changed type, kind or optionality.
    pub shape_changed: bool,
    /// The stored shape changed and the version was not raised: documents already stored cannot
    /// be told from new ones.
    pub must_bump: bool,
}

impl VersionChange {
    /// Whether a shape change needs a higher version than the old one.
    pub fn needs_bump(shape_changed: bool, old: Option<u32>, new: Option<u32>) -> bool {
        shape_changed && new.unwrap_or(0) <= old.unwrap_or(0)
    }
}

/// What changed from `old` to `new`.
pub fn diff(old: &Plan, new: &Plan) -> PlanDiff {
    let mut d = PlanDiff {
        format_version: PlanDiff::FORMAT_VERSION,
        old_source: old.source.clone(),
        new_source: new.source.clone(),
        facts: facts::facts(old, new),
        decisions: facts::decisions(old, new),
        collections: Vec::new(),
        fields: Vec::new(),
        indexes: Vec::new(),
        validators: Vec::new(),
        versions: Vec::new(),
    };
    compare::collections(old, new, &mut d);
    d.facts.sort_by_key(FactChange::key);
    d
}
