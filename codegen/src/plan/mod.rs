//! The Plan: every layout decision, collection shape, index and warning, each with its reasons.
//!
//! Data only. The decision engine ([`crate::engine`]) writes it; every emitter (Rust code, review
//! documents, JSON, index and validator scripts) reads it and recomputes nothing. Its JSON form is
//! versioned ([`Plan::FORMAT_VERSION`]) and described by `docs/plan.schema.json`.

mod children;
mod lookup;
pub use lookup::{CollectionsByName, DecisionsById};
mod collections;
mod patterns;
mod queries;
mod rules;

use serde::Serialize;

pub use crate::model::{BsonType, CardinalityClass, Layout, RelationKind, Settings, SummaryFn};
pub use collections::{
    Collection, CollectionRole, Container, ContainerKind, FieldFlags, FieldKind, IdPlan, Index,
    IndexCollation, IndexKey, IndexUse, PatternUse, PlanField, RelationshipUse, SizeEstimate,
    Variants, GEO_POINT,
};
pub use patterns::{
    BucketPlan, BucketPurpose, Computed, ComputedFn, Denormalized, FanOut, OutlierPlan,
    SubsetChildren, SubsetPlan, TimeRangePaths,
};
pub use queries::{ChildrenPlan, QueryCondition, QueryOp, QueryPlan};
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
    /// An array of extended references: the id beside copied fields, the relationship's own
    /// fields (an order line's quantity), or both.
    ArrayOfExtendedRefs,
    /// One extended reference: the id beside copied fields.
    ExtendedRef,
}

impl Shape {
    /// Whether a field of this shape refers to its target by `_id` (alone or with copied
    /// fields), rather than holding it embedded.
    pub fn refers_by_id(self) -> bool {
        matches!(
            self,
            Shape::Id | Shape::ArrayOfIds | Shape::ExtendedRef | Shape::ArrayOfExtendedRefs
        )
    }

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
    /// Every alternative costed; the engine's choice is the one marked `chosen`.
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
    /// Whether a query rate declared in the schema set the reads (otherwise the defaults did;
    /// without this or `appends_declared` the rules decide alone).
    pub declared: bool,
    /// Whether `growth ... rate` set the children added (otherwise one of the defaults did).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub appends_declared: bool,
    /// Children one time-range read covers, as declared (`time_range by ts window 3600`);
    /// absent for other reads and for a time range without a window (1,000 assumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_window: Option<u64>,
    /// Parent documents read per unit by the parent's own declared queries, each carrying what
    /// the layout keeps of the children in it; absent when none declares a rate.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub parent_reads: f64,
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
    /// The chosen layout without the copies rule 5 made (each read that shows a copied field
    /// reads its source instead); only where the plan copies fields.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nothing_copied: bool,
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
    /// Transactions committed (a two-way link updates both sides in one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transactions: f64,
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

/// Whether a figure is zero (left out of the JSON).
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
