//! The spanned syntax tree of a `.sqn` file: what was written, before any name is resolved.
//!
//! Every node keeps the [`Span`] of its text so that later passes can point at it.

use serde::Serialize;

use crate::span::Span;

/// A whole `.sqn` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schema {
    /// The declarations, in source order.
    pub items: Vec<Item>,
    /// The whole file.
    pub span: Span,
}

/// One top-level declaration.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Item {
    /// `settings { ... }`
    Settings(SettingsDecl),
    /// `value Name { ... }`
    Value(TypeDecl),
    /// `entity Name { ... }`
    Entity(TypeDecl),
    /// `relation A.x: c <-> B.y: c { ... }`
    Relation(RelationDecl),
    /// `query name on Entity { ... }`
    Query(QueryDecl),
}

/// A name as written, with its span.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Ident {
    /// The text of the name.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A dotted path, `Author.name` or `author.first_name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Path {
    /// The segments.
    pub segments: Vec<Ident>,
    /// The whole path.
    pub span: Span,
}

impl Path {
    /// The path as written, segments joined by dots.
    pub fn dotted(&self) -> String {
        let names: Vec<&str> = self.segments.iter().map(|s| s.name.as_str()).collect();
        names.join(".")
    }
}

/// Doc comments (`///`) attached to the node that follows them, one string per line.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Docs {
    /// The lines, without the `///` marker and with one leading space removed.
    pub lines: Vec<String>,
}

impl Docs {
    /// Whether there is no doc comment.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// A number with an optional unit: `200`, `20KB`, `100/s`, `30d`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quantity {
    /// The number as written, without `_` separators.
    pub number: String,
    /// The unit as written (`KB`, `/s`, `d`), if any.
    pub unit: Option<Ident>,
    /// The whole quantity.
    pub span: Span,
}

impl Quantity {
    /// The numeric value, or `None` if it does not fit an `f64`.
    pub fn value(&self) -> Option<f64> {
        self.number.parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// The value as a whole number, if it is one (no fraction, fits `u64`).
    pub fn whole(&self) -> Option<u64> {
        if self.number.contains('.') {
            return None;
        }
        self.number.parse::<u64>().ok()
    }
}

/// Reads per update, `1000:1`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratio {
    /// Left-hand number (reads).
    pub reads: Quantity,
    /// Right-hand number (updates).
    pub updates: Quantity,
    /// The whole ratio.
    pub span: Span,
}

/// A value in settings and attribute arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Value {
    /// `200`, `2MB`, `100/s`
    Quantity(Quantity),
    /// `1000:1`
    Ratio(Ratio),
    /// `"books"`, unescaped
    String {
        /// The text between the quotes, escapes resolved.
        text: String,
        /// The literal with its quotes.
        span: Span,
    },
    /// `priority`, `Author.name`
    Path(Path),
}

impl Value {
    /// Where the value was written.
    pub fn span(&self) -> Span {
        match self {
            Value::Quantity(q) => q.span,
            Value::Ratio(r) => r.span,
            Value::String { span, .. } => *span,
            Value::Path(p) => p.span,
        }
    }
}

/// `@name` or `@name(args)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attr {
    /// The attribute's name, without `@`.
    pub name: Ident,
    /// Its arguments, in order.
    pub args: Vec<AttrArg>,
    /// The whole attribute.
    pub span: Span,
}

/// One argument of an attribute, `value` or `name: value`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttrArg {
    /// The argument's name, if given.
    pub name: Option<Ident>,
    /// Its value.
    pub value: Value,
    /// The whole argument.
    pub span: Span,
}

/// `settings { name = value ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The settings, in order.
    pub settings: Vec<Setting>,
    /// The whole block.
    pub span: Span,
}

/// `name = value`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// Doc comments.
    pub docs: Docs,
    /// The setting's name.
    pub name: Ident,
    /// Its value.
    pub value: Value,
    /// The whole setting.
    pub span: Span,
}

/// An `entity` or `value` declaration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The declared name.
    pub name: Ident,
    /// Attributes on the declaration (`@tree`, `@collection("x")`).
    pub attrs: Vec<Attr>,
    /// Fields, in order.
    pub fields: Vec<FieldDecl>,
    /// Variants (`variant circle { ... }`), entities only.
    pub variants: Vec<VariantDecl>,
    /// The whole declaration.
    pub span: Span,
}

/// `variant name { fields }` inside a polymorphic entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The variant's name.
    pub name: Ident,
    /// Attributes.
    pub attrs: Vec<Attr>,
    /// The variant's own fields.
    pub fields: Vec<FieldDecl>,
    /// The whole variant.
    pub span: Span,
}

/// `name: type? @attr ...`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The field's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// Written with `?`: may be absent.
    pub optional: bool,
    /// Field facts.
    pub attrs: Vec<Attr>,
    /// The whole field.
    pub span: Span,
}

/// A type as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeExpr {
    /// What kind of type.
    pub kind: TypeExprKind,
    /// The whole type.
    pub span: Span,
}

/// The kinds of type expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypeExprKind {
    /// A BSON type name or a value type's name.
    Named(Ident),
    /// `[elem]` or `[elem; bound]`.
    Array {
        /// Element type.
        elem: Box<TypeExpr>,
        /// Elements may be absent (`[int32?]`).
        elem_optional: bool,
        /// Upper bound on the number of elements.
        bound: Option<Quantity>,
    },
    /// `map<T>` or `map<T; bound>`: keys are data (strings), values are `T`.
    Map {
        /// Value type.
        value: Box<TypeExpr>,
        /// Values may be null.
        value_optional: bool,
        /// Upper bound on the number of entries.
        bound: Option<Quantity>,
    },
    /// `counters(24 x 60)` or `counters(minute_of_day)`: preallocated counters.
    Counters(CountersShape),
    /// `one_of("new", "paid")`: a string that takes one of the listed values (an enumeration).
    /// The values are kept as written (strings or not) so that resolution can point at a bad one.
    OneOf {
        /// The values, in the order written.
        values: Vec<Value>,
    },
}

/// The shape of preallocated counters.
#[derive(Debug, Clone, PartialEq, Serialize)]
// Adjacently tagged: an internally tagged variant cannot hold a list (`Dims`).
#[serde(tag = "shape", content = "of", rename_all = "snake_case")]
pub enum CountersShape {
    /// Dimensions given by number: `1440` or `24 x 60`.
    Dims(Vec<Quantity>),
    /// A named period: `minute_of_day`, `hour_of_week`.
    Named(Ident),
}

/// `relation A.x: card <-> B.y: card { facts }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The left end (the owner in one-to-one).
    pub left: RelationEnd,
    /// The right end.
    pub right: RelationEnd,
    /// Facts in the body.
    pub facts: Vec<Fact>,
    /// The whole declaration.
    pub span: Span,
}

/// `Entity.field: cardinality`: the entity, the name it uses for the other side, and how many of the
/// other side it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationEnd {
    /// The entity at this end.
    pub entity: Ident,
    /// The field through which this entity reaches the other side.
    pub field: Ident,
    /// How many of the other side one of these has.
    pub cardinality: CardinalityExpr,
    /// The whole end.
    pub span: Span,
}

/// `many(1000)`, `few`, `many(20000, typical 50)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardinalityExpr {
    /// `one`, `few`, `many` or `squillions`, as written.
    pub class: Ident,
    /// Written with `?` (`one?`: at most one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// Arguments: a bound, `typical N`, `max N`.
    pub args: Vec<CardinalityArg>,
    /// The whole cardinality.
    pub span: Span,
}

/// `1000` or `typical 50` or `max: 20000`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardinalityArg {
    /// `typical`, `max`, or none (a bound).
    pub name: Option<Ident>,
    /// The number.
    pub value: Quantity,
    /// The whole argument.
    pub span: Span,
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

/// `by field [asc|desc]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortSpec {
    /// The field.
    pub field: Ident,
    /// The direction, if written.
    pub direction: Option<Direction>,
    /// The whole clause.
    pub span: Span,
}

/// `count` or `total(value)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryItem {
    /// The function: count, total, max, min.
    pub function: Ident,
    /// Its field.
    pub field: Option<Ident>,
    /// The whole item.
    pub span: Span,
}

/// A fact in a relation's body, with its doc comments and span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fact {
    /// Doc comments.
    pub docs: Docs,
    /// The fact.
    pub kind: FactKind,
    /// The whole fact.
    pub span: Span,
}

/// The facts a relation can state.
#[derive(Debug, Clone, PartialEq, Serialize)]
// Adjacently tagged: an internally tagged variant cannot hold a list (`Growth`, `Fields`).
#[serde(tag = "fact", content = "of", rename_all = "snake_case")]
pub enum FactKind {
    /// `standalone Entity`: the entity is read on its own.
    Standalone(Ident),
    /// `show A.f, A.g on B ratio 1000:1`.
    Show {
        /// The fields shown, `Entity.field`.
        fields: Vec<Path>,
        /// The entity they are shown with.
        on: Ident,
        /// Reads per update of those fields.
        ratio: Option<RatioExpr>,
    },
    /// `navigate both` or `navigate Entity`.
    Navigate(Ident),
    /// `growth append_heavy, unbounded rate 200/s`.
    Growth {
        /// The kinds (`append_heavy`, `unbounded`, `static`).
        kinds: Vec<Ident>,
        /// Children added per unit of time (`rate 200/s`).
        rate: Option<Quantity>,
    },
    /// `atomic_move`.
    AtomicMove,
    /// `page 50 by created_on desc`.
    Page {
        /// Page size.
        size: Quantity,
        /// Order.
        by: Option<SortSpec>,
    },
    /// `latest 1000 by time keep time, message`.
    Latest {
        /// How many.
        n: Quantity,
        /// Order.
        by: SortSpec,
        /// Fields kept in the parent's copy.
        keep: Vec<Ident>,
    },
    /// `top 20 by time asc keep athlete, time`.
    Top {
        /// How many.
        n: Quantity,
        /// Order.
        by: SortSpec,
        /// Fields kept.
        keep: Vec<Ident>,
    },
    /// `summary count, total(value), max(value)`, or `... per bucket`.
    Summary {
        /// The summaries.
        items: Vec<SummaryItem>,
        /// `per bucket`, where written: kept in each bucket of the children, not on the parent.
        per_bucket: Option<Span>,
    },
    /// `time_range by ts` or `time_range by ts window 3600`.
    TimeRange {
        /// The field the range is of.
        field: Ident,
        /// Children one range read covers, when declared.
        window: Option<Quantity>,
    },
    /// `force embed` or `force bucket(50)`.
    Force {
        /// The layout's name.
        layout: Ident,
        /// Its size argument.
        arg: Option<Quantity>,
    },
    /// `fields { role: string }`.
    Fields(Vec<FieldDecl>),
}

/// A read/write ratio as written: `1000:1` or a plain `1000` (reads per update).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RatioExpr {
    /// `reads:updates`
    Ratio(Ratio),
    /// A single number: reads per update.
    Plain(Quantity),
}

impl RatioExpr {
    /// The span of the ratio.
    pub fn span(&self) -> Span {
        match self {
            RatioExpr::Ratio(r) => r.span,
            RatioExpr::Plain(q) => q.span,
        }
    }
}

/// `query name on Entity { where ... sort ... limit ... rate ... returns ... }`, or
/// `query name on Parent.children { ... }` for one parent's children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryDecl {
    /// Doc comments.
    pub docs: Docs,
    /// The query's name.
    pub name: Ident,
    /// The entity it reads (the parent, when `children` is set).
    pub entity: Ident,
    /// `on Post.comments`: the parent's relation end whose children the query reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Ident>,
    /// Conditions (all must hold).
    pub conditions: Vec<Condition>,
    /// Sort keys.
    pub sort: Vec<SortKey>,
    /// `limit N`.
    pub limit: Option<Quantity>,
    /// `rate 100/s`.
    pub rate: Option<Quantity>,
    /// `returns title, price`: the fields the query returns (a projection); empty when the
    /// query returns whole documents.
    pub returns: Vec<Ident>,
    /// Clauses written more than once (reported by validation).
    pub repeated_clauses: Vec<Span>,
    /// The whole declaration.
    pub span: Span,
}

/// A comparison in a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
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
    /// `between`
    Between,
    /// `in`
    In,
    /// `near`: points nearest first, up to a distance (geospatial).
    Near,
    /// `within`: points inside a shape (geospatial).
    Within,
}

impl Operator {
    /// The operator as written in a `.sqn` file.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "==",
            Operator::Ne => "!=",
            Operator::Lt => "<",
            Operator::Le => "<=",
            Operator::Gt => ">",
            Operator::Ge => ">=",
            Operator::StartsWith => "starts_with",
            Operator::Between => "between",
            Operator::In => "in",
            Operator::Near => "near",
            Operator::Within => "within",
        }
    }
}

/// `path op ? [ignore_case]` or `path has (k == ?, v op ?)`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// The field path.
    pub path: Path,
    /// The comparison.
    pub op: Operator,
    /// Compared case-insensitively.
    pub ignore_case: bool,
    /// The whole condition.
    pub span: Span,
    /// Set for `path has (k == ?, v <op> ?)`: the condition is on one attribute of an
    /// `@attributes` map (an element `{k, v}` of its stored array), `op` compares the value `v`,
    /// and this is how the key `k` is compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<AttributeKey>,
}

/// The key half of `has (k == ?, v <op> ?)`: the comparison written for `k` (resolution accepts
/// only `==`: an attribute is named by its key).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AttributeKey {
    /// The comparison as written.
    pub op: Operator,
    /// `k == ?`.
    pub span: Span,
}

/// `path [asc|desc]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortKey {
    /// The field path.
    pub path: Path,
    /// The direction (ascending when not written).
    pub direction: Direction,
    /// The whole key.
    pub span: Span,
}
