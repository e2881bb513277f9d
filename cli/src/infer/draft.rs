//! The draft as data: the declarations `infer` found, each with the comments that say what was
//! measured. [`super::write`] turns it into `.sqn` text; nothing else writes the language.

/// A `.sqn` draft.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    /// Comment lines at the top of the file.
    pub header: Vec<String>,
    /// Value types.
    pub values: Vec<ValueDecl>,
    /// Entities, collections first in the order listed, embedded ones after their holders.
    pub entities: Vec<EntityDecl>,
    /// Relations.
    pub relations: Vec<RelationDecl>,
    /// Queries (from the indexes in place).
    pub queries: Vec<QueryDecl>,
}

/// `value Name { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueDecl {
    /// Its name.
    pub name: String,
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// Its fields.
    pub fields: Vec<FieldDecl>,
}

/// `entity Name @attrs { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityDecl {
    /// Its name.
    pub name: String,
    /// Where its documents are, for people and tests: `books` or `book_notes.notes[]`.
    pub place: String,
    /// The collection, for entities stored in one of their own.
    pub collection: Option<String>,
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// `@tree`.
    pub tree: bool,
    /// `@versioned(future)`.
    pub versioned_future: bool,
    /// `@polymorphic(discriminator: "...")`.
    pub discriminator: Option<String>,
    /// `@schema_version(n)`.
    pub schema_version: Option<u32>,
    /// Its fields.
    pub fields: Vec<FieldDecl>,
    /// Its variants.
    pub variants: Vec<VariantDecl>,
}

/// `variant name { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantDecl {
    /// The discriminator's value.
    pub name: String,
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// Fields only its documents have.
    pub fields: Vec<FieldDecl>,
}

/// `name: type? @attrs`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDecl {
    /// The field's name in the language.
    pub name: String,
    /// Its type.
    pub ty: TypeExpr,
    /// May be absent.
    pub optional: bool,
    /// Its attributes.
    pub attrs: Vec<Attr>,
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// The comment at the end of its line.
    pub trailing: Option<String>,
}

/// A type expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeExpr {
    /// A BSON type or a value type.
    Named(String),
    /// `[T]`, `[T?]`, `[T; N]`.
    Array {
        /// The element type.
        element: Box<TypeExpr>,
        /// Elements may be null.
        nullable: bool,
        /// At most this many.
        max: Option<u64>,
    },
    /// `map<T>`.
    Map(Box<TypeExpr>),
}

/// A field attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    /// `@key`.
    Key,
    /// `@unique`.
    Unique,
    /// `@ignore_case`.
    IgnoreCase,
    /// `@stored("name")`.
    Stored(String),
    /// `@expires(Ns)`, in seconds.
    Expires(u64),
    /// `@attributes`.
    Attributes,
}

/// A cardinality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Card {
    /// `one`.
    One,
    /// `few(max, typical t)`.
    Few {
        /// The bound.
        max: Option<u64>,
        /// The usual count.
        typical: Option<u64>,
    },
    /// `many(max, typical t)`.
    Many {
        /// The bound.
        max: Option<u64>,
        /// The usual count.
        typical: Option<u64>,
    },
    /// `squillions` (`squillions(typical t)` is not written: the class has no bound).
    Squillions,
}

impl Card {
    /// The class's name.
    pub fn class(self) -> &'static str {
        match self {
            Card::One => "one",
            Card::Few { .. } => "few",
            Card::Many { .. } => "many",
            Card::Squillions => "squillions",
        }
    }
}

/// `Entity.field: cardinality`.
#[derive(Debug, Clone, PartialEq)]
pub struct End {
    /// The entity.
    pub entity: String,
    /// The name of the end.
    pub field: String,
    /// How many of the other entity one of this has.
    pub card: Card,
}

/// `relation A.x: ... <-> B.y: ... { facts }`.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationDecl {
    /// Comment lines above it: the measurements.
    pub comments: Vec<String>,
    /// The left end.
    pub left: End,
    /// The right end.
    pub right: End,
    /// Its facts.
    pub facts: Vec<Fact>,
}

/// A summary function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Summary {
    /// `count`.
    Count,
    /// `total(f)`.
    Total(String),
    /// `max(f)`.
    Max(String),
    /// `min(f)`.
    Min(String),
}

/// A relation fact, with the comment lines above it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// What it says.
    pub kind: FactKind,
}

/// What a relation fact says.
#[derive(Debug, Clone, PartialEq)]
pub enum FactKind {
    /// `standalone E`.
    Standalone(String),
    /// `show E.a, E.b on F [ratio r:w]`.
    Show {
        /// `Entity.field` paths shown.
        fields: Vec<String>,
        /// The entity they are shown on.
        on: String,
        /// Reads per update, when observed.
        ratio: Option<(u64, u64)>,
    },
    /// `navigate both`.
    NavigateBoth,
    /// `page N [by f asc|desc]`.
    Page {
        /// Children per page.
        size: u64,
        /// Their order.
        by: Option<(String, bool)>,
    },
    /// `latest N by f asc|desc [keep ...]`.
    Latest {
        /// How many.
        n: u64,
        /// The field ordering them, descending when true.
        by: (String, bool),
        /// Fields kept.
        keep: Vec<String>,
    },
    /// `top N by f asc|desc [keep ...]`.
    Top {
        /// How many.
        n: u64,
        /// The field ranking them, descending when true.
        by: (String, bool),
        /// Fields kept.
        keep: Vec<String>,
    },
    /// `summary ...`, with `per bucket` when each bucket keeps them.
    Summary {
        /// The summaries.
        items: Vec<Summary>,
        /// Kept in each bucket (`per bucket`), not on the parent.
        per_bucket: bool,
    },
    /// `time_range by f`.
    TimeRange(String),
    /// `fields { ... }`: fields of the relation itself (a link document's, besides the pair).
    Fields(Vec<FieldDecl>),
}

/// `query name on Entity { where ... rate R }`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryDecl {
    /// Its name.
    pub name: String,
    /// The entity queried.
    pub on: String,
    /// Comment lines above it.
    pub comments: Vec<String>,
    /// Equality conditions: path, compared ignoring case.
    pub conditions: Vec<(String, bool)>,
    /// Sort keys: path, descending.
    pub sort: Vec<(String, bool)>,
    /// At most this many documents (a list read whole, not in pages).
    pub limit: Option<u64>,
    /// Runs per second, when observed.
    pub rate_per_second: Option<f64>,
}
