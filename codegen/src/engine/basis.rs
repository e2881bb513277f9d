//! What the engine's decisions rest on, as data: the facts it used, the reason for each choice,
//! why each alternative lost, the rules a forced layout breaks, why a copy was declined and the
//! writes a layout obliges. The engine fills these; `crate::prose::decision` turns them into the
//! sentences of the Plan, in one place, after every name (collections, paths) is final.

use crate::model::Layout;

/// How a count of children is bounded: `Some(n)` up to `n`, `None` without bound.
pub(crate) type Max = Option<u64>;

/// Why an entity is read on its own.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Alone {
    /// `standalone E`.
    Declared,
    /// A query reads it directly.
    Query(String),
    /// Its pattern (tree, queue, versioning) needs a collection.
    Pattern,
    /// Its documents expire on their own (`@expires` on `field`, after `ttl` seconds).
    Expires { field: String, ttl: u64 },
    /// It may have no `parent` (`end` is `one?`): a child without one has nowhere else to be.
    /// `homed`: it always has a parent through another relation, which may hold it; only this
    /// relation keeps it out.
    NoParent {
        end: String,
        parent: String,
        homed: bool,
    },
    /// Another relationship's layout refers to it by `_id` (`relation`, decided `layout`).
    Referenced { relation: String, layout: Layout },
    /// It belongs to parents of two kinds (or through two relationships), each of which would
    /// embed it: embedded in both it would be stored twice, as two documents nothing keeps
    /// alike. Each parent is `(relationship, parent entity)`, in the model's order.
    Shared { parents: Vec<(String, String)> },
}

/// How a child is reached when it is not read on its own.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Through {
    /// Through its one parent.
    Parent,
    /// A self-relation: through the node it hangs from (`Comment.replies`).
    Node { end: String },
    /// Many-to-many: through the documents that list it.
    Partners,
    /// Many-to-many that `navigate` also reads from this side (`navigate both`, or `navigate`
    /// naming it): not read on its own, but not only through the documents that list it either.
    PartnersNavigated,
    /// It belongs to other parents too: it is not read on its own, but not only through this one.
    NotAlone,
}

/// The read/write ratio of a shown field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Ratio {
    /// `@immutable`: never updated.
    Immutable,
    /// Reads per update.
    Reads(f64),
    /// No ratio given.
    Unknown,
}

/// A fact the decision used.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fact {
    /// `P.f: card`: each parent has up to `max` children.
    Bound {
        parent: String,
        child: String,
        end: String,
        written: String,
        max: Max,
    },
    /// A parent usually has `n` children.
    Typical {
        parent: String,
        child: String,
        n: u64,
    },
    /// One of each, both ways (one-to-one); `optional`: the owner may have none (`one?`).
    OneEach {
        owner: String,
        other: String,
        optional: bool,
    },
    /// The entity is read on its own.
    ReadAlone { entity: String, why: Alone },
    /// The child is only read through its parent (or node, or partners).
    ReadThrough {
        child: String,
        parent: String,
        through: Through,
    },
    /// One-to-one: the other side is read with the owner.
    ReadTogether { owner: String, other: String },
    /// Large, seldom-read data.
    LargeSeldom { entity: String, bytes: u64 },
    /// `growth static`: the children are fixed once loaded.
    Fixed { child: String },
    /// `growth`.
    Growth {
        child: String,
        append_heavy: bool,
        unbounded: bool,
    },
    /// `atomic_move`.
    AtomicMove { child: String, parent: String },
    /// `navigate both`.
    NavigateBoth,
    /// `navigate E`.
    NavigateFrom { entity: String },
    /// `page N by f`.
    Page {
        child: String,
        size: u64,
        by: Option<PageOrder>,
    },
    /// `time_range by f`.
    TimeRange {
        child: String,
        field: String,
        /// Children one read covers, when declared.
        window: Option<u64>,
    },
    /// `summary ...`, as written.
    Summaries { names: Vec<String> },
    /// `latest N by f`.
    Latest {
        parent: String,
        child: String,
        n: u64,
        by: String,
    },
    /// `top N by f`.
    Top {
        parent: String,
        child: String,
        n: u64,
        by: String,
    },
    /// `fields { ... }`.
    RelationFields { names: Vec<String> },
    /// `force layout`.
    Forced { layout: Layout, agrees: bool },
    /// Each of `names` would embed the next (and the last the first): none would be stored in a
    /// collection. One name: an entity embedding itself.
    EmbedCycle { names: Vec<String> },
    /// Rule 5: the fields are read with `on` and share its document.
    SharedDocument { sources: Vec<String>, on: String },
    /// Rule 5: the fields are their entity's natural key, which `on`'s reference holds already.
    KeyInReference { sources: Vec<String>, on: String },
    /// Rule 5: the fields are shown with `on` (or a query filters or sorts on them).
    Shown {
        sources: Vec<String>,
        on: String,
        ratio: Ratio,
        query: Option<QueryUse>,
    },
}

/// A query that reads a field through a relationship, and how: in its conditions, its sort
/// or both (what makes the engine copy the field, rules 5 and 6).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryUse {
    pub name: String,
    pub filters: bool,
    pub sorts: bool,
}

/// How children arrive (`growth`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Growth {
    pub append_heavy: bool,
    pub unbounded: bool,
}

/// Why the layout was chosen: the decision's headline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reason {
    /// One-to-one, the other side large and seldom read.
    LargeSide {
        owner: String,
        other: String,
        bytes: u64,
    },
    /// One-to-one, read alone and both ways.
    OneToOneBothWays { other: String, why: Alone },
    /// One-to-one, read alone.
    OneToOneAlone {
        owner: String,
        other: String,
        why: Alone,
    },
    /// One-to-one, read together.
    OneToOneEmbed { owner: String, other: String },
    /// Bucket: pages.
    Pages {
        parent: String,
        child: String,
        size: u64,
    },
    /// Bucket: a time series.
    Series {
        parent: String,
        child: String,
        max: Max,
        size: u64,
        summaries: bool,
    },
    /// Outlier, one-to-many.
    Outlier {
        parent: String,
        child: String,
        typical: u64,
        max: Max,
        cap: u64,
    },
    /// Static children (loaded once, never added), embedded beyond the growth threshold.
    EmbedStatic {
        parent: String,
        child: String,
        max: Max,
        limit: u64,
    },
    /// A few children, embedded; `appended`: added often (`append_heavy`), which the bound
    /// caps.
    EmbedFew {
        parent: String,
        child: String,
        max: Max,
        appended: bool,
    },
    /// Too many even for an id array.
    TooManyForIds {
        parent: String,
        child: String,
        max: Max,
    },
    /// The child moves atomically.
    AtomicMove { parent: String, child: String },
    /// Children that expire on their own schedule (`@expires`).
    Expiring {
        parent: String,
        child: String,
        field: String,
    },
    /// Children keep arriving.
    Growing {
        parent: String,
        child: String,
        growth: Growth,
    },
    /// A query finds children by their parent.
    FoundByQuery {
        parent: String,
        child: String,
        query: String,
    },
    /// Read from the child to its parent only.
    ReadFromChild { parent: String, child: String },
    /// The children carry copies of their parent's mutable fields: the fan-out finds them by
    /// their parent's id, indexed, and that index lists them too.
    CarriesParentCopies {
        parent: String,
        child: String,
        sources: Vec<String>,
    },
    /// The parent keeps `kept` of its children (summaries, subsets, top-N lists), which the
    /// children's writes keep in step through their reference to it.
    KeepsOfChildren {
        parent: String,
        child: String,
        kept: Vec<String>,
    },
    /// Two-way references, read both ways.
    BothWays {
        parent: String,
        child: String,
        max: Max,
    },
    /// The parent lists its children by an id array.
    ParentList {
        parent: String,
        child: String,
        max: Max,
        /// Why the children are documents of their own, if they must be.
        alone: Option<Alone>,
    },
    /// Many-to-many with fields, one bounded side reads: `{reference, fields}` there.
    LinesOnOneSide {
        holder: String,
        field: String,
        other: String,
        max: Max,
        fields: Vec<String>,
        /// The other side's bound when it is too large to hold a list (so only the holder can),
        /// `None` when `navigate` chose between two sides that both could.
        other_max: Option<Max>,
    },
    /// Many-to-many with fields, both sides bounded but unbalanced (seed 003 relationship
    /// balance): the small side keeps `{reference, fields}`, the other direction is a query on its
    /// multikey index.
    LinesOnSmallSide {
        holder: String,
        field: String,
        holder_max: Max,
        other: String,
        other_field: String,
        other_max: Max,
        fields: Vec<String>,
    },
    /// Many-to-many with fields in a link collection.
    LinkForFields {
        left: String,
        right: String,
        fields: Vec<String>,
        why: LinkWhy,
    },
    /// Many-to-many outlier on one end.
    OutlierIds {
        holder: String,
        other: String,
        typical: u64,
        max: Max,
        cap: u64,
    },
    /// Many-to-many read from one side only.
    ReadFromOneSide { entity: String, max: Max },
    /// Many-to-many whose other direction is a query on the holder's array (`where tags == ?`).
    OtherWayByQuery {
        holder: String,
        holder_max: Max,
        other: String,
        query: String,
    },
    /// Many-to-many, both sides small.
    BothSmall {
        left: String,
        left_max: Max,
        right: String,
        right_max: Max,
    },
    /// Many-to-many, only one side small.
    SmallSide {
        holder: String,
        holder_field: String,
        holder_max: Max,
        other: String,
        other_field: String,
        other_max: Max,
    },
    /// Many-to-many whose sides are unbalanced: both could hold ids, the small side does.
    Unbalanced {
        holder: String,
        holder_field: String,
        holder_max: Max,
        other: String,
        other_field: String,
        other_max: Max,
    },
    /// Many-to-many, neither side can hold ids.
    NeitherSide {
        left: String,
        left_max: Max,
        right: String,
        right_max: Max,
    },
    /// `force`.
    Forced { layout: Layout, engine: Layout },
    /// The rules accept `layout` and the engine's `engine` (chosen for `base`); under the declared
    /// workload `layout` is estimated at `percent` % of the engine's cost (cost model).
    Cheaper {
        layout: Layout,
        engine: Layout,
        percent: u64,
        base: Box<Reason>,
    },
    /// The engine's layout (chosen for `base`) would let a document grow past MongoDB's limit
    /// (`doc_max_size`) at worst; `layout` is the best that fits.
    TooLarge {
        layout: Layout,
        engine: Layout,
        document: Oversized,
        base: Box<Reason>,
    },
    /// A tree of its own kind: the base reason, and the roots keep a collection.
    TreeRoots { base: Box<Reason>, child: String },
    /// An entity related to itself one-to-one references its partner.
    SelfOneToOne { child: String },
    /// An embedding cycle broken with a reference here.
    CycleBroken {
        names: Vec<String>,
        parent: String,
        child: String,
    },
}

/// Why relationship fields need a link collection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum LinkWhy {
    BothRead,
    NeitherBounded,
    NoSideNamed,
}

/// Why an alternative lost.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Against {
    /// The engine's own choice, overridden by `force`.
    Overridden { forced: Layout, reason: Box<Reason> },
    /// Accepted by the rules, but estimated at `percent` % of the chosen layout's cost under the
    /// declared workload (cost model).
    Costlier { chosen: Layout, percent: u64 },
    /// A seldom-read large side would load with every read.
    LoadsLargeSide {
        owner: String,
        other: String,
        bytes: u64,
    },
    /// The other side is read on its own, or must be a document of its own (`why`).
    ReadAlone { entity: String, why: Alone },
    /// A separate collection for a one-to-one costs a read.
    SecondRead { owner: String, other: String },
    /// Embedding more children than an embedded array should hold.
    TooManyToEmbed {
        parent: String,
        child: String,
        max: Max,
        limit: u64,
    },
    /// An embedded array cannot be paged.
    CannotPage { child: String },
    /// One document per child costs a read per child; a bucket returns many.
    DocumentPerChild { child: String, size: u64 },
    /// Children not read alone need no documents to reference.
    NoDocumentsToReference { child: String },
    /// Embedding every child lets the rare parent hold many.
    RareParentHolds {
        parent: String,
        child: String,
        max: Max,
    },
    /// A separate read for the usual few buys nothing.
    UsualFewInline {
        parent: String,
        child: String,
        typical: u64,
    },
    /// References would cost a second query.
    ReferencesBuyNothing { child: String },
    /// A child collection would need an index and a second read.
    ChildCollection { parent: String, child: String },
    /// Children keep arriving: the parent document would grow.
    ParentGrows {
        parent: String,
        child: String,
        growth: Growth,
    },
    /// An id array would grow with every new child.
    IdArrayGrows { parent: String, child: String },
    /// An id array would keep the ids of expired children.
    KeepsExpiredIds { parent: String, child: String },
    /// More ids than an id array should hold.
    TooManyIds { max: Max, limit: u64 },
    /// The parent side would need an id array beyond the limit.
    ParentSideTooMany {
        parent: String,
        max: Max,
        limit: u64,
    },
    /// Two-way references cannot move a child atomically.
    NoAtomicMoveTwoWay { parent: String, child: String },
    /// An id array in the parent cannot move a child atomically.
    NoAtomicMoveArray { parent: String, child: String },
    /// A query reads children through the relationship.
    QueryThroughArray {
        parent: String,
        child: String,
        query: String,
    },
    /// The parent side is not navigated.
    ParentNotRead { parent: String, child: String },
    /// Finding a child's parent would need a multikey index.
    ParentNeedsMultikey { parent: String, child: String },
    /// The children store their parent's id for their copies' fan-out, indexed: an id array
    /// in the parent would be kept beside that index.
    ArrayBesideFanOut { parent: String, child: String },
    /// An id array in the parent cannot keep what the parent keeps of its children.
    ArrayCannotKeep {
        parent: String,
        child: String,
        kept: Vec<String>,
    },
    /// Listing a parent's children would need an index query.
    ListNeedsIndex { parent: String, child: String },
    /// An id array serves the parent's reads without an index.
    ArrayServesParent {
        parent: String,
        child: String,
        max: Max,
    },
    /// A document per pair for what one bounded array serves.
    LinkForBoundedList { holder: String, other: String },
    /// Arrays on both sides would copy the fields twice.
    FieldsTwice { fields: Vec<String> },
    /// Id arrays cannot hold the relationship's own fields.
    IdsHoldNoFields,
    /// An array on one side serves only that side.
    OneSideOnly,
    /// The rare end would hold too many ids.
    RareEndTooMany { end: String, max: Max },
    /// A link document per pair for the usual few.
    LinkForUsual {
        end: String,
        other: String,
        typical: u64,
    },
    /// The other direction is not read.
    OtherDirectionUnread,
    /// The other direction is answered by a query on the holder's array.
    OtherWayQueried {
        holder: String,
        other: String,
        query: String,
    },
    /// A one-way array needs a multikey index to read back.
    NeedsMultikey,
    /// A join table for small lists.
    JoinTableForSmall,
    /// The large side would hold too many ids.
    LargeSideTooMany {
        entity: String,
        max: Max,
        limit: u64,
    },
    /// The small side's array serves both directions.
    SmallSideServesBoth { holder: String },
    /// Two-way on unbalanced sides: the large side's second array (`entity` would hold up to
    /// `max` ids of `holder`).
    UnbalancedSecondArray {
        entity: String,
        max: Max,
        holder: String,
    },
    /// Both id arrays would be unbounded or too large.
    BothArraysTooLarge,
    /// Either side's id array would be too large.
    EitherArrayTooLarge,
    /// Embedding here would close an embedding cycle.
    EmbedCycle {
        names: Vec<String>,
        reason: Box<Reason>,
    },
    /// A copy was declined (rule 5).
    Copy { sources: String, why: Declined },
    /// Its worst-case document would exceed MongoDB's limit (`doc_max_size`): never eligible.
    TooLarge { document: Oversized },
}

/// A document that would exceed MongoDB's size limit at worst, by the size model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Oversized {
    /// The entity whose documents (or, for a bucket, whose children's buckets) would be too large.
    pub entity: String,
    /// The documents are buckets of `entity`.
    pub bucket: bool,
    /// Worst-case size, in bytes.
    pub worst: u64,
    /// The limit (`doc_max_size`).
    pub limit: u64,
}

/// Why a copy was not made.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Declined {
    /// Updated at least as often as read.
    UpdatedOften { ratio: f64 },
    /// Read too few times per update.
    BelowThreshold { ratio: f64, threshold: f64 },
    /// No ratio, no query.
    NoRatio,
    /// No reference in the layout can carry it.
    NoReference {
        on: String,
        from: String,
        layout: Layout,
        /// How many references the holder would need (an id array of this bound).
        needed: Max,
    },
    /// The entity or field is unknown (cannot happen on a valid model).
    Unknown { what: String },
}

/// A rule a forced layout breaks, and how.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Broken {
    EmbedsReadAlone {
        child: String,
    },
    EmbedsTooMany {
        parent: String,
        child: String,
        max: Max,
        limit: u64,
    },
    CopiesIntoEvery {
        parent: String,
        child: String,
    },
    TooManyIds {
        holder: String,
        max: Max,
        limit: u64,
    },
    NoAtomicMove {
        child: String,
    },
    BothTooLarge,
    BucketsReadAlone {
        child: String,
    },
    NoSingleParent,
    FewNotEmbedded {
        child: String,
    },
    NoPages,
}

/// A write (or read) the layout obliges the application to, rendered with the final placement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Obligation {
    /// Listing a parent's children queries the children's reference, wherever it is stored
    /// (`field`: the parent's end, which names the children of a relation of an entity with
    /// itself).
    ListByIndex {
        parent: String,
        child: String,
        field: String,
    },
    /// Adding a child to the parent's id array.
    AddToArray {
        parent: String,
        child: String,
        cap: Max,
    },
    /// Two-way: both documents change together.
    LinkBoth { parent: String, child: String },
    /// Outlier overflow.
    Overflow {
        parent: String,
        child: String,
        cap: u64,
        overflow: String,
    },
    /// Appending to a bucket.
    BucketAppend {
        child: String,
        collection: String,
        key: String,
        size: u64,
    },
    /// Linking in a link collection.
    LinkInsert { collection: String },
    /// `latest` on embedded children: nothing to copy. Under the outlier pattern (`cap`), only
    /// the first `cap` are embedded: the newest of a parent beyond it are in the overflow.
    LatestEmbedded {
        n: u64,
        child: String,
        cap: Option<u64>,
    },
    /// `latest`: push a copy with `$slice`.
    SubsetPush {
        child: String,
        path: String,
        by: String,
        n: u64,
    },
    /// `top`: push with `$sort` and `$slice`, in the write that adds the child when that write
    /// rewrites the parent, else in a second write of the same transaction; never an upsert of
    /// the parent (a parent that is not stored keeps nothing).
    TopPush {
        child: String,
        path: String,
        by: String,
        n: u64,
        same_write: bool,
    },
    /// A summary kept on the parent: in the write that adds the child when that write rewrites
    /// the parent (embedded children, an array of ids), else in a second write of the same
    /// transaction (the child in a collection of its own).
    SummaryUpdate {
        child: String,
        path: String,
        same_write: bool,
    },
    /// A copy fans out (index into the decision's `denormalized`).
    FanOut(usize),
}

/// The order a `page N by f [desc]` reads in: the field, its direction, and what kind of value it
/// holds (the words for "first" differ: newest, highest, last in order).
#[derive(Debug, Clone, PartialEq)]
pub struct PageOrder {
    /// The child's field.
    pub field: String,
    /// `desc`.
    pub descending: bool,
    /// What the field holds.
    pub kind: OrderKind,
}

/// What a field ordering pages holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderKind {
    /// A date or timestamp (or an ObjectId, made from the clock).
    Time,
    /// A number.
    Number,
    /// Anything else (strings: alphabetical order).
    Other,
}
