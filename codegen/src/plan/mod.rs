//! The Plan: every layout decision, collection shape, index and warning, each with its reasons.
//!
//! Data only. The decision engine ([`crate::engine`]) writes it; every emitter (Rust code, review
//! documents, JSON, index and validator scripts) reads it and recomputes nothing. Its JSON form is
//! versioned ([`Plan::FORMAT_VERSION`]) and described by `docs/plan.schema.json`.

mod children;
mod rules;

use serde::Serialize;

pub use crate::model::{BsonType, CardinalityClass, Layout, RelationKind, Settings, SummaryFn};
pub use rules::{citation, RuleCitation, RuleId};

/// The whole design of one schema.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Plan {
    /// Version of this format.
    pub format_version: u32,
    /// The source file's name.
    pub source: String,
    /// Thresholds in force.
    pub settings: Settings,
    /// Every collection, in a stable order (entities in declaration order, then the collections
    /// that relationships and patterns add).
    pub collections: Vec<Collection>,
    /// One decision per declared relationship, in declaration order.
    pub relationships: Vec<Decision>,
    /// The queries the application runs, resolved against their collections.
    pub queries: Vec<QueryPlan>,
    /// Anti-pattern warnings and forced-layout warnings, in source order.
    pub warnings: Vec<Warning>,
}

impl Plan {
    /// The version of the JSON format written by this build.
    pub const FORMAT_VERSION: u32 = 1;

    /// The collection named `name`.
    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.name == name)
    }

    /// The decision about relationship `id` (`Entity.field` of its left end).
    pub fn relationship(&self, id: &str) -> Option<&Decision> {
        self.relationships.iter().find(|d| d.id == id)
    }

    /// The JSON Schema of the Plan's JSON form (`docs/plan.schema.json` is this, kept in sync by a
    /// test).
    pub fn json_schema() -> serde_json::Value {
        let mut schema = serde_json::to_value(schemars::schema_for!(Plan)).unwrap_or_default();
        if let Some(obj) = schema.as_object_mut() {
            obj.insert(
                "$id".to_owned(),
                serde_json::Value::String(format!(
                    "https://squillion.dev/schema/plan/v{}.json",
                    Plan::FORMAT_VERSION
                )),
            );
        }
        schema
    }

    /// The Plan as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Whether any warning is an error (a layout that cannot work, e.g. over 16 MB).
    pub fn has_errors(&self) -> bool {
        self.warnings.iter().any(|w| w.severity == Severity::Error)
    }
}

/// The decision about one relationship.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Decision {
    /// `Entity.field` of the left end.
    pub id: String,
    /// The left end's entity.
    pub from: String,
    /// The right end's entity.
    pub to: String,
    /// One-to-one, one-to-many or many-to-many.
    pub kind: RelationKind,
    /// How many `to` one `from` has, and the reverse, as written (`many(1000)`).
    pub cardinality: EndCardinalities,
    /// The entity that owns the relationship (the "one" side of one-to-many).
    pub parent: String,
    /// The other entity.
    pub child: String,
    /// The chosen layout.
    pub strategy: Layout,
    /// The layout was forced with `force`.
    pub forced: bool,
    /// Where each side of the relationship is stored.
    pub placement: Vec<Placement>,
    /// The rules of thumb and patterns that chose the layout.
    pub rules: Vec<RuleCitation>,
    /// One sentence built from the facts.
    pub because: String,
    /// The facts the decision used, as sentences.
    pub facts: Vec<String>,
    /// Alternatives considered and why each lost.
    pub rejected: Vec<Rejected>,
    /// Fields of one side copied into the other (rule 5), each with its fan-out obligation.
    pub denormalized: Vec<Denormalized>,
    /// `latest N` children kept in the parent.
    pub subset: Option<SubsetPlan>,
    /// Children grouped in bounded bucket documents.
    pub bucket: Option<BucketPlan>,
    /// Summaries and top-N lists maintained on write.
    pub computed: Vec<Computed>,
    /// Usual children embedded, rare overflow in extra documents.
    pub outlier: Option<OutlierPlan>,
    /// Every alternative layout's estimated cost under the declared workload (cost model), the
    /// chosen one marked.
    pub cost: Option<CostPlan>,
    /// Obligations the layout creates for writers, as sentences ("updating Author.name ...").
    pub obligations: Vec<String>,
    /// Codes of the plan warnings about this relationship.
    pub warnings: Vec<String>,
}

/// The cardinalities of both ends, as written.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct EndCardinalities {
    /// How many of `to` one `from` has (`many(1000)`).
    pub from: String,
    /// How many of `from` one `to` has (`one`).
    pub to: String,
    /// Maximum count on the `from` end in force (`None`: unbounded).
    pub from_max: Option<u64>,
    /// Maximum count on the `to` end in force.
    pub to_max: Option<u64>,
}

/// How a relationship side is stored in a document.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// One embedded document.
    Subdocument,
    /// An array of embedded documents.
    ArrayOfSubdocuments,
    /// One id.
    Id,
    /// An array of ids.
    ArrayOfIds,
    /// An array of extended references (id plus copied fields).
    ArrayOfExtendedRefs,
    /// One extended reference (id plus copied fields).
    ExtendedRef,
}

impl Shape {
    /// What a field of this shape holds, in words: `an array of embedded Address`.
    pub fn describe(self, target: &str) -> String {
        match self {
            Shape::Subdocument => format!("one embedded {target}"),
            Shape::ArrayOfSubdocuments => format!("an array of embedded {target}"),
            Shape::Id => format!("the id of {}", crate::prose::a(target)),
            Shape::ArrayOfIds => format!("an array of {target} ids"),
            Shape::ArrayOfExtendedRefs => {
                format!("an array of {target} extended references (id + copied fields)")
            }
            Shape::ExtendedRef => format!(
                "an extended reference to {} (id + copied fields)",
                crate::prose::a(target)
            ),
        }
    }
}

/// Where one side of a relationship lives.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Placement {
    /// The entity (or bucket/link document) that holds the field.
    pub holder: String,
    /// The collection of the holding document.
    pub collection: String,
    /// The field's path in that document.
    pub path: String,
    /// What it holds.
    pub shape: Shape,
    /// The entity it refers to or embeds.
    pub target: String,
    /// Largest number of elements, for arrays.
    pub max_items: Option<u64>,
}

/// The cost model's view of one relationship: the workload it assumed and every alternative's
/// estimated cost per unit of that workload.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct CostPlan {
    /// The workload, from the declared rates and facts (defaults where none are declared).
    pub workload: WorkloadPlan,
    /// Every alternative costed, the engine's choice first.
    pub alternatives: Vec<AlternativeCost>,
}

impl CostPlan {
    /// The chosen alternative.
    pub fn chosen(&self) -> Option<&AlternativeCost> {
        self.alternatives.iter().find(|a| a.chosen)
    }
}

/// The workload of one relationship, per unit of time.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct WorkloadPlan {
    /// Reads of a parent's children together (a list, a page, a time range).
    pub list_reads: f64,
    /// Children each such read returns.
    pub children_per_list: f64,
    /// Reads of one child on its own.
    pub alone_reads: f64,
    /// Children added.
    pub appends: f64,
    /// Children per parent on average.
    pub children: f64,
    /// Average size of a child, in bytes.
    pub child_bytes: u64,
    /// Average size of the parent without its children, in bytes.
    pub parent_bytes: u64,
    /// Whether a query rate declared in the schema set the reads (otherwise the defaults did).
    pub declared: bool,
}

/// One alternative layout and its estimated cost per unit of the workload.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct AlternativeCost {
    /// The layout.
    pub layout: Layout,
    /// Children per bucket, for `bucket`.
    pub bucket_size: Option<u64>,
    /// The plan's layout.
    pub chosen: bool,
    /// The rules leave it open (only these compete on cost).
    pub acceptable: bool,
    /// Commands sent to the server.
    pub round_trips: f64,
    /// Documents the server returns.
    pub documents_read: f64,
    /// Bytes the server returns.
    pub bytes_read: f64,
    /// Index entries written.
    pub index_entries_written: f64,
    /// Documents written, inserted or rewritten.
    pub documents_written: f64,
    /// Existing documents rewritten by the writes.
    pub documents_rewritten: f64,
    /// Bytes of existing documents rewritten.
    pub bytes_rewritten: f64,
    /// Estimated server time, in microseconds, with the calibrated constants.
    pub micros: f64,
    /// `micros` relative to the chosen alternative's.
    pub relative: f64,
}

/// An alternative and why it lost.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Rejected {
    /// The alternative: a layout's name (`embed`, `two_way`...) or a modifier (`denormalized`).
    pub strategy: String,
    /// Why it lost.
    pub why: String,
    /// The rules that ruled it out.
    pub rules: Vec<RuleId>,
}

/// A copied field and what keeping it correct costs.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Denormalized {
    /// `Entity.field` of the source.
    pub source: String,
    /// Collection holding the copies.
    pub collection: String,
    /// Path of the copy in that collection's documents.
    pub copy_path: String,
    /// Reads per update of the source (rule 5), when known.
    pub reads_per_update: Option<f64>,
    /// The source is `@immutable`: its copies never need updating.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub immutable: bool,
    /// The update that keeps copies in step when the source changes.
    pub fan_out: FanOut,
}

/// The write that propagates a change of a copied field.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct FanOut {
    /// Collection to update.
    pub collection: String,
    /// Path compared with the source document's id.
    pub match_path: String,
    /// Path set to the new value, with one filtered positional operator per array on the way
    /// (`lines.$[elem].product.name`; `lines.$[elem].parts.$[elem1].product.name` in an array of
    /// an array).
    pub set_path: String,
    /// The `arrayFilters` conditions, one per array on the way, in order: the path, inside the
    /// element, compared with the source document's id (`elem.product.id`). Empty when no array
    /// holds the copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub array_filters: Vec<String>,
}

impl FanOut {
    /// The identifier of the filtered positional operator of array `level` (0: outermost).
    pub fn identifier(level: usize) -> String {
        if level == 0 {
            "elem".to_owned()
        } else {
            format!("elem{level}")
        }
    }

    /// `(by, copy)`: the paths of the source's id and of the copy, with `[]` after each array
    /// (`lines[].product.id`, `lines[].product.name`): the form of the derive's
    /// `fan_out(by = .., copy = ..)`.
    pub fn marked_paths(&self) -> (String, String) {
        let mut copy = self.set_path.clone();
        for level in 0..self.array_filters.len() {
            copy = copy.replacen(&format!(".$[{}]", Self::identifier(level)), "[]", 1);
        }
        // `by` crosses the same arrays: it shares every segment of `copy` but the last.
        let arrays: Vec<usize> = copy.split('.').map(|s| s.matches("[]").count()).collect();
        let by = self
            .match_path
            .split('.')
            .enumerate()
            .map(|(i, s)| format!("{s}{}", "[]".repeat(arrays.get(i).copied().unwrap_or(0))))
            .collect::<Vec<_>>()
            .join(".");
        (by, copy)
    }
}

/// `latest N` children kept in the parent document: copies of the N children with the largest
/// `sort_by`, stored in the declared order (largest first when `descending`).
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct SubsetPlan {
    /// Collection of the parent.
    pub collection: String,
    /// Path of the array in the parent.
    pub path: String,
    /// How many are kept.
    pub n: u64,
    /// BSON name of the child field that orders them (held by every copy).
    pub sort_by: String,
    /// Stored newest (largest) first.
    pub descending: bool,
    /// The field of each copy holding the child's `_id` (`_id`): a changed child's copy is found
    /// by it, a removed child's copy leaves by it.
    pub child_id: String,
    /// BSON names of the child's fields each copy holds besides [`SubsetPlan::child_id`]; never
    /// the child's reference back to this parent.
    pub keep: Vec<String>,
    /// Where the children are read from to refill the subset when one changes or goes; `None`:
    /// the layout keeps no reference to the parent in a child collection, so the subset is kept
    /// only by adding children.
    pub children: Option<SubsetChildren>,
}

/// Where the children of a subset or top-N list live, each naming its parent.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct SubsetChildren {
    /// The children's collection.
    pub collection: String,
    /// Path, in each child, of its parent's `_id` (`post`, `post.id` for an extended reference).
    pub parent_key: String,
}

/// Children in bounded bucket documents.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct BucketPlan {
    /// The bucket collection.
    pub collection: String,
    /// Children per bucket.
    pub size: u64,
    /// Path of the field referencing the parent.
    pub parent_path: String,
    /// Path of the array of children.
    pub items_path: String,
    /// Path of the count of children (`count < size` guards the append).
    pub count_path: String,
    /// Paths of the first/last values of the time field, for time-range reads.
    pub time_range: Option<TimeRangePaths>,
    /// Field that orders the children, for paged reads.
    pub order_by: Option<String>,
    /// Pages are read newest first (`page N by f desc`): page 1 is the newest bucket, its children
    /// newest first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newest_first: bool,
    /// Why buckets: paged reads, time series, or both.
    pub purpose: BucketPurpose,
}

/// What buckets serve.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BucketPurpose {
    /// Reading children a page at a time.
    Pages,
    /// A time series read by ranges, with summaries.
    TimeSeries,
}

/// Bucket fields holding the smallest and largest time of their children.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct TimeRangePaths {
    /// The child's time field, by its stored (BSON) name.
    pub field: String,
    /// Smallest value in the bucket.
    pub start_path: String,
    /// Largest value in the bucket.
    pub end_path: String,
}

/// A value maintained on write.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Computed {
    /// Collection of the document holding it.
    pub collection: String,
    /// Its path.
    pub path: String,
    /// What it computes.
    pub function: ComputedFn,
    /// The child's field it reads, by its stored (BSON) name, as the element holds it (none for
    /// count). For an average and a top-N list, the field as declared.
    pub field: Option<String>,
}

/// A computed value's function.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
#[serde(tag = "fn", rename_all = "snake_case")]
pub enum ComputedFn {
    /// A summary (`$inc` / `$max` / `$min`).
    Summary {
        /// count, total, max, min.
        summary: SummaryFn,
    },
    /// The mean of a field (`avg`): not stored, read as the total divided by the count, both
    /// maintained on write.
    Average {
        /// Path of the total it divides.
        total_path: String,
        /// Path of the count it divides by.
        count_path: String,
    },
    /// The best N children (`$push` `$each` `$sort` `$slice N`).
    TopN {
        /// How many.
        n: u64,
        /// BSON name of the child field ranking them (held by every copy).
        sort_by: String,
        /// Largest first (else smallest first).
        descending: bool,
        /// The field of each copy holding the child's `_id` (`_id`).
        child_id: String,
        /// BSON names of the child's fields each copy holds besides `child_id`; never the
        /// child's reference back to this parent.
        keep: Vec<String>,
        /// Where the children are read from to refill the list when one changes or goes
        /// (`None`: kept only by adding children).
        children: Option<SubsetChildren>,
    },
}

/// Usual children embedded, the rare overflow in extra documents.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct OutlierPlan {
    /// Collection of the parent.
    pub collection: String,
    /// Path of the array in the parent.
    pub path: String,
    /// Elements kept in the parent before overflowing.
    pub embedded_max: u64,
    /// Path of the flag set on parents that overflowed.
    pub flag_path: String,
    /// The collection holding overflow documents.
    pub overflow_collection: String,
    /// Typical count declared.
    pub typical: u64,
    /// Maximum count in force (`None`: unbounded).
    pub max: Option<u64>,
}

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
    /// Arrays: nesting depth (1 for `[T]`, 2 for `[[T]]`).
    pub array_depth: u8,
    /// Arrays: largest number of elements (outermost level).
    pub max_items: Option<u64>,
    /// Arrays: the usual number of elements, where the schema declares it (`typical`). Average
    /// sizes use it; worst cases use `max_items`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typical_items: Option<u64>,
    /// Inner dimensions of nested arrays (counters 24 x 60: `[60]`).
    pub inner_dims: Vec<u64>,
    /// A map whose keys are data.
    pub map: bool,
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

impl PlanField {
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
    /// Why it exists: the queries and rules it serves.
    pub reasons: Vec<String>,
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

/// How serious a plan warning is.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The layout cannot work as planned (unless forced).
    Error,
    /// Deserves attention.
    Warning,
    /// A change the engine made that the reader should know (a collation index added).
    Info,
}

/// An anti-pattern or rule warning.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Warning {
    /// Stable code (`W1xx`).
    pub code: String,
    /// Seriousness.
    pub severity: Severity,
    /// The rule of thumb or source it comes from.
    pub rule: RuleCitation,
    /// What is wrong, with the numbers.
    pub message: String,
    /// How to fix it, where known.
    pub help: Option<String>,
    /// Where in the `.sqn` file.
    pub position: SourcePosition,
    /// The collection concerned, if any.
    pub collection: Option<String>,
    /// The relationship concerned, if any.
    pub relation: Option<String>,
}

/// A place in the source file.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct SourcePosition {
    /// The file's name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Byte offsets.
    pub start: usize,
    /// End byte offset.
    pub end: usize,
}

/// A declared query, resolved: the stored paths it filters and sorts on, and the index that
/// serves it. The Rust emitter writes one repository method per query from it.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct QueryPlan {
    /// The query's name.
    pub name: String,
    /// Its doc comment.
    pub docs: Vec<String>,
    /// The entity it returns.
    pub entity: String,
    /// The collection it runs on.
    pub collection: String,
    /// Its conditions, all of which must hold.
    pub conditions: Vec<QueryCondition>,
    /// Sort keys, in order.
    pub sort: Vec<IndexKey>,
    /// At most this many documents.
    pub limit: Option<u64>,
    /// Declared rate, per second.
    pub rate_per_second: Option<f64>,
    /// The index that serves it (its name), if one does.
    pub index: Option<String>,
    /// Set when a condition is on another entity's field that is not copied here: the
    /// application must query that entity first (rule 4); `Entity.field`.
    pub join: Option<String>,
    /// Conditions and sort keys (as written) on paths the chosen layout does not store in this
    /// collection, e.g. a reference a forced `embed` removed. Such a query has no method: run
    /// without them it would return the wrong documents (warning W119).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unstored: Vec<String>,
    /// The stored (BSON) names of the top-level fields the query returns (`returns`), in the
    /// order written; `_id` is always returned besides them. Empty: whole documents. The method
    /// returns a projection struct of these fields and sends the projection to the server.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<String>,
    /// Set for a query on a parent's children (`query q on Post.comments`): how one parent's
    /// children are found in `collection`. Its conditions' and sort keys' paths are then
    /// relative to each child when the children are elements of an array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<ChildrenPlan>,
}

/// How a query on a parent's children finds them.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct ChildrenPlan {
    /// The relationship's id.
    pub relation: String,
    /// The parent entity.
    pub parent: String,
    /// The name of the method's parent parameter: the children's relation end (`post`).
    pub parent_param: String,
    /// The BSON type of the parent's id.
    pub parent_id_type: String,
    /// The stored path, in the documents of the query's collection, of the parent's id: `_id`
    /// when the children are embedded in the parent, the children's reference (`post`), or the
    /// bucket's reference to its parent.
    pub parent_path: String,
    /// The stored path of the array that holds the children in each document (embedded in the
    /// parent, or in buckets); `None` when each child is a document of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
}

/// One condition of a query.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct QueryCondition {
    /// The stored (dotted) path it compares.
    pub path: String,
    /// The path as written in the schema (dotted field names), for parameter names.
    pub written: String,
    /// BSON type of the compared field.
    pub bson_type: String,
    /// The comparison.
    pub op: QueryOp,
    /// Compared case-insensitively (collation strength 2).
    pub ignore_case: bool,
}

/// A query comparison.
#[derive(Debug, Clone, Copy, schemars::JsonSchema, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `starts_with`
    StartsWith,
    /// `between` (inclusive)
    Between,
    /// `in`
    In,
    /// `near`: points nearest first, within a distance (`$near`, served by a `2dsphere` key).
    Near,
    /// `within`: points inside a shape (`$geoWithin`, served by a `2dsphere` key).
    Within,
}
