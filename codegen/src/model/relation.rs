//! Relationships, their cardinalities and access facts.

use serde::Serialize;
use squillion_grammar::Span;

use super::field::Field;
use super::settings::Settings;

/// How many of the other side one document has.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CardinalityClass {
    /// Exactly one.
    One,
    /// Up to a couple of hundred.
    Few,
    /// Up to a few thousand.
    Many,
    /// Unbounded, or beyond a few thousand.
    Squillions,
}

impl CardinalityClass {
    /// The class as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CardinalityClass::One => "one",
            CardinalityClass::Few => "few",
            CardinalityClass::Many => "many",
            CardinalityClass::Squillions => "squillions",
        }
    }
}

/// A cardinality: its class, and the numbers that refine it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cardinality {
    /// The class.
    pub class: CardinalityClass,
    /// Declared maximum (beats the class's default bound).
    pub bound: Option<u64>,
    /// Declared typical count (outlier pattern when much smaller than the maximum).
    pub typical: Option<u64>,
    /// `one?`: at most one, possibly none.
    pub optional: bool,
    /// Declared outlier threshold (`embed 100`): how many stay in the parent before the rest
    /// overflow; `embed_array_max` when not given.
    pub embed: Option<u64>,
    /// Where it was written.
    pub span: Span,
}

impl Cardinality {
    /// The maximum count in force: the declared bound, else the class's default; `None` when
    /// unbounded.
    pub fn max(&self, settings: &Settings) -> Option<u64> {
        self.bound.or(match self.class {
            CardinalityClass::One => Some(1),
            CardinalityClass::Few => Some(settings.embed_array_max),
            CardinalityClass::Many => Some(settings.id_array_max),
            CardinalityClass::Squillions => None,
        })
    }

    /// The count to expect in a usual document: the typical count, else the maximum, else
    /// `unbounded_estimate`.
    pub fn usual(&self, settings: &Settings, unbounded_estimate: u64) -> u64 {
        self.typical
            .or_else(|| self.max(settings))
            .unwrap_or(unbounded_estimate)
    }

    /// The cardinality as written (`many(1000)`, `many(20000, typical 50, embed 100)`).
    pub fn describe(&self) -> String {
        let mut args = Vec::new();
        if let Some(b) = self.bound {
            args.push(b.to_string());
        }
        if let Some(t) = self.typical {
            args.push(format!("typical {t}"));
        }
        if let Some(e) = self.embed {
            args.push(format!("embed {e}"));
        }
        let class = if self.optional {
            format!("{}?", self.class.as_str())
        } else {
            self.class.as_str().to_owned()
        };
        if args.is_empty() {
            class
        } else {
            format!("{class}({})", args.join(", "))
        }
    }

    /// How many children stay embedded in the parent before the rest overflow (outlier pattern).
    pub fn outlier_cap(&self, settings: &Settings) -> u64 {
        self.embed.unwrap_or(settings.embed_array_max)
    }
}

/// One end of a relationship: `Entity.field: cardinality`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationEnd {
    /// The entity at this end.
    pub entity: String,
    /// The name through which it reaches the other side.
    pub field: String,
    /// How many of the other side one of these has.
    pub cardinality: Cardinality,
    /// Where the end was written.
    pub span: Span,
}

/// Which end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The end written first.
    Left,
    /// The end written second.
    Right,
}

/// The shape of a relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    /// Both ends `one`.
    OneToOne,
    /// Exactly one end `one`.
    OneToMany,
    /// No end `one`.
    ManyToMany,
}

impl RelationKind {
    /// The kind in words: `one-to-many`.
    pub fn describe(self) -> &'static str {
        match self {
            RelationKind::OneToOne => "one-to-one",
            RelationKind::OneToMany => "one-to-many",
            RelationKind::ManyToMany => "many-to-many",
        }
    }
}

/// The layouts of a relationship (DOMAIN.md vocabulary), as forced by `force` and chosen by the
/// engine.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// The related thing lives inside the owner document.
    Embed,
    /// The owner holds an array of the related documents' ids.
    ParentRefs,
    /// Each related document holds the owner's id.
    ChildRef,
    /// Both directions hold references.
    TwoWay,
    /// Many-to-many with an id array on one side only.
    OneWay,
    /// Children grouped into bounded bucket documents.
    Bucket,
    /// One document per pair in a collection of its own.
    LinkCollection,
}

impl Layout {
    /// Every layout.
    pub const ALL: [Layout; 7] = [
        Layout::Embed,
        Layout::ParentRefs,
        Layout::ChildRef,
        Layout::TwoWay,
        Layout::OneWay,
        Layout::Bucket,
        Layout::LinkCollection,
    ];

    /// The layout's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Embed => "embed",
            Layout::ParentRefs => "parent_refs",
            Layout::ChildRef => "child_ref",
            Layout::TwoWay => "two_way",
            Layout::OneWay => "one_way",
            Layout::Bucket => "bucket",
            Layout::LinkCollection => "link_collection",
        }
    }

    /// The layout named `name`.
    pub fn from_name(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// `force layout(size)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Forced {
    /// The forced layout.
    pub layout: Layout,
    /// Its size argument (bucket size).
    pub size: Option<u64>,
    /// Where it was written.
    pub span: Span,
}

/// `show A.f on B ratio r`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Show {
    /// The entity whose fields are shown.
    pub from: String,
    /// Those fields.
    pub fields: Vec<String>,
    /// The entity they are shown with.
    pub on: String,
    /// Reads per update of those fields.
    pub ratio: Option<f64>,
    /// Where it was written.
    pub span: Span,
}

/// Which directions the application navigates.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "from", content = "entity", rename_all = "snake_case")]
pub enum Navigate {
    /// Not stated: from the parent (the owner).
    #[default]
    Parent,
    /// Both directions are read often.
    Both,
    /// Only from this entity.
    Entity(String),
}

/// An order: a field and a direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderBy {
    /// The field of the child.
    pub field: String,
    /// Descending (newest first).
    pub descending: bool,
}

/// `page N by f`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page {
    /// Children per page.
    pub size: u64,
    /// Their order.
    pub by: Option<OrderBy>,
    /// Where it was written.
    pub span: Span,
}

/// `latest N by f keep ...` or `top N by f keep ...`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subset {
    /// How many.
    pub n: u64,
    /// The order that ranks them.
    pub by: OrderBy,
    /// Fields of the child kept in the copy (empty: all).
    pub keep: Vec<String>,
    /// Where it was written.
    pub span: Span,
}

/// A summary function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SummaryFn {
    /// Number of children.
    Count,
    /// Sum of a field.
    Total,
    /// Largest value of a field.
    Max,
    /// Smallest value of a field.
    Min,
    /// Mean of a field: kept as its total and the count, divided on read.
    Avg,
}

impl SummaryFn {
    /// The function's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SummaryFn::Count => "count",
            SummaryFn::Total => "total",
            SummaryFn::Max => "max",
            SummaryFn::Min => "min",
            SummaryFn::Avg => "avg",
        }
    }
}

/// `total(value)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The function.
    pub function: SummaryFn,
    /// Its field (none for `count`).
    pub field: Option<String>,
}

/// Access facts of a relationship.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RelationFacts {
    /// Entities read on their own (`standalone`).
    pub standalone: Vec<String>,
    /// Fields shown with the other side.
    pub shows: Vec<Show>,
    /// Directions navigated.
    pub navigate: Navigate,
    /// Children are added often.
    pub append_heavy: bool,
    /// Children are added without limit.
    pub unbounded: bool,
    /// `growth static`: the children are loaded with the parent once and never added or removed.
    pub fixed: bool,
    /// Children added per second across the application (`growth rate 200/s`), when declared.
    pub add_rate_per_second: Option<f64>,
    /// A child must move between parents atomically.
    pub atomic_move: bool,
    /// Paged reads of the children.
    pub page: Option<Page>,
    /// The parent shows the latest N.
    pub latest: Option<Subset>,
    /// The parent keeps the top N.
    pub top: Option<Subset>,
    /// Summaries of the children.
    pub summary: Vec<Summary>,
    /// `summary ... per bucket`: each bucket of the children keeps the summaries of its own
    /// children (seed 002's hourly sums), and the parent keeps none.
    pub summary_per_bucket: Option<Span>,
    /// Children are queried by time range on this field.
    pub time_range: Option<String>,
    /// Children one time-range read covers (`time_range by ts window 3600`), when declared.
    pub time_range_window: Option<u64>,
    /// A forced layout.
    pub force: Option<Forced>,
}

/// A relationship between two entities (or an entity and itself).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relation {
    /// `Entity.field` of the left end: the relationship's id.
    pub id: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The left end.
    pub left: RelationEnd,
    /// The right end.
    pub right: RelationEnd,
    /// Its shape.
    pub kind: RelationKind,
    /// Access facts.
    pub facts: RelationFacts,
    /// Fields the relationship carries.
    pub fields: Vec<Field>,
    /// The declaration.
    pub span: Span,
}

impl Relation {
    /// The end on `side`.
    pub fn end(&self, side: Side) -> &RelationEnd {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// The parent side: the owner of a one-to-one (left), the non-`one` end of a one-to-many,
    /// the left end of a many-to-many.
    pub fn parent_side(&self) -> Side {
        match self.kind {
            RelationKind::OneToMany if self.left.cardinality.class == CardinalityClass::One => {
                Side::Right
            }
            _ => Side::Left,
        }
    }

    /// The parent end.
    pub fn parent(&self) -> &RelationEnd {
        self.end(self.parent_side())
    }

    /// The child end.
    pub fn child(&self) -> &RelationEnd {
        match self.parent_side() {
            Side::Left => &self.right,
            Side::Right => &self.left,
        }
    }

    /// Whether `entity` is declared `standalone`.
    pub fn is_standalone(&self, entity: &str) -> bool {
        self.facts.standalone.iter().any(|e| e == entity)
    }
}
