//! A schema as structured data: what the strategies generate and [`crate::render`] writes as
//! `.sqn` text. Every name is already valid; the strategies keep the facts consistent.

/// A whole `.sqn` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schema {
    /// `settings { name = value }`, in order.
    pub settings: Vec<(String, String)>,
    /// Value types, declared before the entities that use them.
    pub values: Vec<ValueType>,
    /// Entities.
    pub entities: Vec<Entity>,
    /// Relations between entities.
    pub relations: Vec<Relation>,
    /// Declared queries.
    pub queries: Vec<Query>,
}

/// `value Name { fields }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueType {
    /// Its name.
    pub name: String,
    /// Its fields.
    pub fields: Vec<Field>,
}

/// `entity Name @attrs { fields variants }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    /// Its name.
    pub name: String,
    /// `@collection("...")`, when named explicitly.
    pub collection: Option<String>,
    /// An entity-level pattern.
    pub pattern: Pattern,
    /// Common fields.
    pub fields: Vec<Field>,
    /// Polymorphic variants (only with [`Pattern::Polymorphic`]).
    pub variants: Vec<Variant>,
}

/// Entity-level patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// None.
    Plain,
    /// `@tree`.
    Tree,
    /// `@queue(priority: n)` (the entity has an `int32` field `n`).
    Queue,
    /// `@versioned(future)`.
    VersionedFuture,
    /// `@schema_version(N)`.
    SchemaVersion(u32),
    /// `@polymorphic(discriminator: "kind")` with variants.
    Polymorphic,
}

/// `variant name { fields }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The variant's name (the discriminator's value).
    pub name: String,
    /// Its own fields.
    pub fields: Vec<Field>,
}

/// `name: type? @attrs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// `?`.
    pub optional: bool,
    /// Attributes, in order.
    pub attrs: Vec<FieldAttr>,
}

/// The BSON scalar types of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `string`
    String,
    /// `int32`
    Int32,
    /// `int64`
    Int64,
    /// `double`
    Double,
    /// `bool`
    Bool,
    /// `date`
    Date,
    /// `objectId`
    ObjectId,
    /// `decimal128`
    Decimal128,
    /// `binary`
    Binary,
    /// `point` (a geospatial point, stored as GeoJSON)
    Point,
}

impl Scalar {
    /// The type as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Scalar::String => "string",
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::Double => "double",
            Scalar::Bool => "bool",
            Scalar::Date => "date",
            Scalar::ObjectId => "objectId",
            Scalar::Decimal128 => "decimal128",
            Scalar::Binary => "binary",
            Scalar::Point => "point",
        }
    }
}

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// A BSON scalar.
    Scalar(Scalar),
    /// A value type, by name.
    Value(String),
    /// `[T; N]` (`N` optional).
    Array(Box<Ty>, Option<u32>),
    /// `map<T>` or `map<T; N>`.
    Map(Box<Ty>, Option<u32>),
    /// `T?` as the element of an array or the value of a map: it may be null.
    Nullable(Box<Ty>),
    /// `counters(a x b)`.
    Counters(u32, u32),
    /// `one_of("a", "b")`: an enumeration of strings.
    OneOf(Vec<String>),
}

/// Field attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldAttr {
    /// `@key`
    Key,
    /// `@unique`
    Unique,
    /// `@index`
    Index,
    /// `@expires(30d)`
    Expires,
    /// `@stored("name")`
    Stored(String),
    /// `@immutable`
    Immutable,
    /// `@sensitive`
    Sensitive,
    /// `@ignore_case`
    IgnoreCase,
    /// `@attributes` (on a map)
    Attributes,
    /// `@counter` (on a required number: `inc_<f>` and a guarded `dec_<f>`; in the keyed
    /// elements of an array, `inc_<array>_<f>` and `dec_<array>_<f>`)
    Counter,
    /// `@range(min, max)`, the bounds as written (`2`, `-50.5`)
    Range(String, String),
}

/// `relation A.x: card <-> B.y: card { facts }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// The left end.
    pub left: End,
    /// The right end.
    pub right: End,
    /// The body's facts.
    pub facts: Vec<Fact>,
}

/// `Entity.field: cardinality`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    /// The entity.
    pub entity: String,
    /// The end's field name.
    pub field: String,
    /// Its cardinality.
    pub card: Card,
}

/// Cardinalities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Card {
    /// `one`
    One,
    /// `one?`: at most one, possibly none (on a child's end: it may have no parent).
    OptionalOne,
    /// `few` or `few(N)`
    Few(Option<u32>),
    /// `many`, `many(N)` or `many(N, typical T)`
    Many(Option<u32>, Option<u32>),
    /// `squillions`
    Squillions,
}

/// The layouts `force` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `embed`
    Embed,
    /// `parent_refs`
    ParentRefs,
    /// `child_ref`
    ChildRef,
    /// `two_way`
    TwoWay,
    /// `one_way`
    OneWay,
    /// `bucket(N)`
    Bucket,
    /// `link_collection`
    LinkCollection,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 7] = [
        Family::Embed,
        Family::ParentRefs,
        Family::ChildRef,
        Family::TwoWay,
        Family::OneWay,
        Family::Bucket,
        Family::LinkCollection,
    ];

    /// The layout's name in `force` and in the Plan.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Embed => "embed",
            Family::ParentRefs => "parent_refs",
            Family::ChildRef => "child_ref",
            Family::TwoWay => "two_way",
            Family::OneWay => "one_way",
            Family::Bucket => "bucket",
            Family::LinkCollection => "link_collection",
        }
    }
}

/// Relation facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// `standalone E`
    Standalone(String),
    /// `show E.f, E.g on O ratio R:1`
    Show {
        /// The entity whose fields are shown.
        from: String,
        /// Its fields.
        fields: Vec<String>,
        /// Where they are shown.
        on: String,
        /// Reads per update (`None`: no ratio, for immutable fields).
        ratio: Option<u32>,
    },
    /// `navigate both`
    NavigateBoth,
    /// `growth append_heavy, unbounded`
    Growth,
    /// `atomic_move`
    AtomicMove,
    /// `page N by f [desc]`
    Page(u32, String, bool),
    /// `latest N by f [desc] keep ...`
    Latest(u32, String, bool, Vec<String>),
    /// `top N by f [desc] keep ...`
    Top(u32, String, bool, Vec<String>),
    /// `summary count, total(f), ...`: `(function, field)`.
    Summary(Vec<(String, Option<String>)>),
    /// `time_range by f`
    TimeRange(String),
    /// `force layout[(N)]`
    Force(Family, Option<u32>),
    /// `fields { ... }`
    Fields(Vec<Field>),
}

/// `query name on Entity { where ... sort ... limit N returns ... }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Its name.
    pub name: String,
    /// The entity it returns.
    pub on: String,
    /// `path op ?` conditions.
    pub conditions: Vec<(String, String)>,
    /// Sort keys, `(path, descending)`.
    pub sort: Vec<(String, bool)>,
    /// `limit N`.
    pub limit: Option<u32>,
    /// `returns a, b`: the fields returned (a projection); empty: whole documents.
    pub returns: Vec<String>,
}
