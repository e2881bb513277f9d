//! Reading `#[squillion(...)]` (and the `#[serde(...)]` renames that decide BSON names) into plain
//! declarations. Unknown keys and malformed values are recorded in the [`Ctxt`](crate::ctxt::Ctxt) and reading goes
//! on, so one compile shows every mistake of the item.

use proc_macro2::Span;
use syn::{Ident, LitStr};

mod container;
mod field;
mod upgrade;
mod values;

pub use container::container;
pub use field::field;

/// Key kinds of an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Asc,
    Desc,
    Text,
    Hashed,
    Sphere2d,
}

/// `index(...)`, on the container or a field.
#[derive(Clone, Debug, Default)]
pub struct IndexDecl {
    pub name: Option<String>,
    pub keys: Vec<(String, KeyKind)>,
    pub unique: bool,
    pub sparse: bool,
    pub ttl: Option<u64>,
    pub partial: Option<String>,
    pub collation: Option<(String, i32)>,
    /// Field-level: descending.
    pub desc: bool,
}

/// `queue(...)`.
pub struct QueueDecl {
    pub priority: Ident,
    pub in_progress: Ident,
    pub started: Ident,
    pub done: Option<Ident>,
}

/// `tree(...)`.
pub struct TreeDecl {
    pub parent: Ident,
    pub ancestors: Ident,
}

/// `versioned(...)`.
pub struct VersionedDecl {
    pub key: Ident,
    pub version: Ident,
    pub valid_from: Ident,
    pub valid_to: Ident,
}

/// `history(to = Type, version = f, key = "document_id", archived_at = "archived_at")`: the
/// current version of each document here, every earlier one in `Type`'s collection (seed 002,
/// pattern 2).
pub struct HistoryDecl {
    /// The history documents' type.
    pub to: syn::Path,
    /// This struct's version number field.
    pub version: Ident,
    /// The history documents' field holding the current document's `_id`.
    pub key: String,
    /// The history documents' field holding when the version was superseded.
    pub archived_at: String,
}

/// `link(left = Type, right = Type)`.
pub struct LinkDecl {
    pub ends: Vec<(Ident, syn::Path)>,
}

/// `kept_by(to = Type, key = "path")`: documents of `Type` keep lists or summaries of these
/// documents, which name their parent at `key`; every write of the repository keeps them in step.
pub struct KeptByDecl {
    pub to: syn::Path,
    pub key: String,
}

/// `copy_of(from = Type, source = "field", by = "path", copy = "path")`: the documents hold, at
/// `copy`, a copy of `Type`'s `source` field, beside its id at `by` (`[]` marking arrays); every
/// write of the reference takes the copy from the source.
pub struct CopyOfDecl {
    pub from: syn::Path,
    pub source: String,
    pub by: String,
    pub copy: String,
}

/// `upgrade(from = N, rename(...), wrap(...))`: how documents stored at version `from` are read
/// (renames and wraps applied in memory, copies filled from their sources).
pub struct UpgradeDecl {
    pub from: Option<(i64, Span)>,
    /// `(old path, new path)`, outermost first.
    pub renames: Vec<(String, String)>,
    /// `(reference path, id name)`.
    pub wraps: Vec<(String, String)>,
    pub span: Span,
}

/// How the collection's validator is made.
pub enum ValidatorDecl {
    /// `$jsonSchema` derived from the fields (the default).
    Derived,
    /// `validator = path::to::fn` returning the validator document.
    Custom(syn::Path),
    /// `validator = false`.
    Off,
}

/// Container attributes.
pub struct ContainerAttrs {
    pub collection: Option<LitStr>,
    pub schema_version: Option<(i64, Span)>,
    pub min_schema_version: Option<(i64, Span)>,
    pub indexes: Vec<(IndexDecl, Span)>,
    pub validator: ValidatorDecl,
    pub queue: Option<QueueDecl>,
    pub tree: Option<TreeDecl>,
    pub versioned: Option<VersionedDecl>,
    pub history: Option<HistoryDecl>,
    /// `archive`: the documents are records of the past (the earlier versions a `history(...)`
    /// keeps); the repository writes whole documents only.
    pub archive: Option<Span>,
    pub link: Option<LinkDecl>,
    pub kept_by: Vec<KeptByDecl>,
    pub copy_of: Vec<CopyOfDecl>,
    /// `upgrade(...)`, one per older version read.
    pub upgrades: Vec<UpgradeDecl>,
    /// `implied_indexes = false`: the declared `index(...)` list is the whole list; the layouts
    /// add none (generated code: the Plan's list is the one source of truth).
    pub implied_indexes: bool,
    pub serde_rename_all: Option<String>,
}

/// A relationship layout of a field.
pub enum Layout {
    Embed {
        max: Option<(u64, Span)>,
        /// Paths, in each element, of values no two elements may share (`unique("code")`).
        unique: Vec<String>,
        unique_span: Option<Span>,
        /// The owner's lists of copies of the elements (`top N`), kept by every write of the
        /// array: pushed with the element, recomputed from the array after a removal.
        lists: Vec<KeptList>,
        /// `find_by(to = T, id = "id")`: the elements reference a `T` through their field `id`
        /// (a one-way many-to-many with fields: `[{id, since}]`), and the documents whose array
        /// references one are listed by the array's index (`find_by_<f>`, `count_by_<f>`).
        find_by: Option<(syn::Path, String)>,
    },
    ParentRefs {
        to: syn::Path,
        max: Option<(u64, Span)>,
        fields: Vec<String>,
        /// `find_by`: the documents whose array holds an id are listed by the array's index
        /// (`find_by_<f>`, `count_by_<f>`): the other direction of a one-way many-to-many.
        find_by: bool,
    },
    ChildRef {
        to: syn::Path,
        /// The order `find_by_<f>` pages in (`order(placed_at = -1)`), before `_id`.
        order: Vec<(String, KeyKind)>,
        /// For an extended reference (a struct holding the id and copies): the id's field in it
        /// (`id = "id"`); `find_by_<f>` then takes the parent's id.
        id: Option<String>,
    },
    TwoWay {
        to: syn::Path,
        max: Option<(u64, Span)>,
        inverse: String,
        inverse_max: Option<u64>,
        /// The other side's single reference is required (not an `Option`): a child leaves its
        /// parent only for another (`link_<f>` there) or by being deleted, so no `unlink_<f>`.
        inverse_required: bool,
        /// The elements are extended references (structs holding the other's id and copies of
        /// its fields, `copy_of`): the id's field in each (`id = "id"`).
        id: Option<String>,
        /// The other side's reference (or each element of its array) is an extended reference:
        /// the id's field in it (`inverse_id = "id"`).
        inverse_id: Option<String>,
    },
    Subset {
        to: syn::Path,
        n: u64,
        sort: String,
        desc: bool,
        keep: Vec<String>,
        /// Path, in each child, of its parent's id: the subset is refilled from the children.
        key: Option<String>,
    },
    Top {
        n: u64,
        sort: String,
        desc: bool,
        /// The children's type, whose collection the list is refilled from (with `key`).
        to: Option<syn::Path>,
        keep: Vec<String>,
        /// Path, in each child, of its parent's id.
        key: Option<String>,
    },
    Bucket {
        size: u64,
        keys: Vec<Ident>,
        count: Option<Ident>,
        start: Option<Ident>,
        end: Option<Ident>,
        /// Path, in each child, of the key each bucket keeps its children sorted by.
        sort: Option<String>,
        /// Pages newest first.
        desc: bool,
        /// Paths, in each child, of values no two children of one bucket may share.
        unique: Vec<String>,
        /// The owner's lists of copies every append keeps (`owner = T, latest(..), top(..)`).
        kept: Option<BucketKept>,
    },
    Outlier {
        max: u64,
        flag: Ident,
        overflow: String,
        chunk: u64,
        /// The owner's lists of copies (`latest`, `top`) every push keeps, embedded or
        /// overflowing: the newest of a large owner are in the overflow.
        lists: Vec<KeptList>,
    },
}

impl Layout {
    /// The attribute's name.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Embed { .. } => "embed",
            Layout::ParentRefs { .. } => "parent_refs",
            Layout::ChildRef { .. } => "child_ref",
            Layout::TwoWay { .. } => "two_way",
            Layout::Subset { .. } => "subset",
            Layout::Top { .. } => "top",
            Layout::Bucket { .. } => "bucket",
            Layout::Outlier { .. } => "outlier",
        }
    }
}

/// What the owner of bucketed children keeps of them: its type, its lists of copies and its
/// summaries of all its children.
#[derive(Clone, Debug)]
pub struct BucketKept {
    pub owner: syn::Path,
    /// Where the bucket's key holds the owner's `_id` when it is an extended reference.
    pub owner_id: Option<String>,
    pub lists: Vec<KeptList>,
    /// `summary(path = "comments_count", count)`: the owner's field and what it summarises.
    pub summaries: Vec<(String, SummaryDecl)>,
}

/// One list of copies an owner keeps (`latest(path = "events", n = 5, sort = "at", desc,
/// keep("at"))`, or `top(...)`).
#[derive(Clone, Debug)]
pub struct KeptList {
    pub path: String,
    pub n: u64,
    pub sort: String,
    pub desc: bool,
    /// `latest` rather than `top`.
    pub latest: bool,
    pub keep: Vec<String>,
}

/// A summary a field keeps.
#[derive(Clone, Debug)]
pub enum SummaryDecl {
    Count,
    Sum(String),
    Max(String),
    Min(String),
}

/// `computed(...)`.
pub struct ComputedDecl {
    pub span: Span,
    pub summary: SummaryDecl,
    pub of: Option<Ident>,
    /// `to = Type, key = "path"`: a summary of all the children of type `Type` (in their own
    /// collection) naming this document at `key`, rather than of an array of this document.
    pub children: Option<(syn::Path, String)>,
}

/// `fan_out(to = Type, by = "path", copy = "path", array = "path")`.
pub struct FanOutDecl {
    pub span: Span,
    pub to: syn::Path,
    pub by: String,
    pub copy: String,
    pub array: Option<String>,
}

/// `inner(path = "a.b", name = a_b, ty = Type, counter)`: a field inside an embedded subdocument,
/// set (and, for numbers, incremented) in place.
pub struct InnerDecl {
    /// Its path below the field.
    pub path: String,
    /// The method suffix after the field's name (`set_<field>_<name>`).
    pub name: String,
    pub ty: syn::Type,
    pub counter: bool,
    /// `minimum = n`: a counter's floor (0 when absent), kept by its guarded `dec_`.
    pub minimum: Option<f64>,
}

/// `inner_array(path = "items", name = items, elem = Type, max = N, key = "sku", key_ty = Type)`:
/// a bounded array inside an embedded subdocument, its elements pushed (bound checked), replaced
/// and removed by their key.
pub struct InnerArrayDecl {
    pub path: String,
    pub name: String,
    pub elem: syn::Type,
    pub max: u64,
    /// The element's key (its path in the element) and the key's type.
    pub key: Option<(String, syn::Type)>,
}

/// `element(path = "qty", name = qty, ty = i32, key = "id", key_ty = Type, counter, minimum = 0)`:
/// a number in each element of a bounded array whose elements are identified by `key` (an order
/// line's `id`, a `@unique` field of an embedded child), added to (and, for a counter, taken
/// from under a guard) in one element at a time.
pub struct ElementDecl {
    /// Its path in the element.
    pub path: String,
    /// The method suffix after the array's name (`inc_<array>_<name>`).
    pub name: String,
    pub ty: syn::Type,
    /// The element field that identifies an element, and its type.
    pub key: String,
    pub key_ty: syn::Type,
    pub counter: bool,
    /// `minimum = n`: a counter's floor (0 when absent), kept by its guarded `dec_`.
    pub minimum: Option<f64>,
    pub span: Span,
}

/// Validation facts of a field.
#[derive(Default)]
pub struct Facts {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub one_of: Vec<String>,
}

/// Field attributes.
#[derive(Default)]
pub struct FieldAttrs {
    pub id: Option<Span>,
    pub layout: Option<(Layout, Span)>,
    pub computed: Option<ComputedDecl>,
    pub index: Option<(IndexDecl, Span)>,
    pub facts: Facts,
    pub fan_out: Vec<FanOutDecl>,
    /// `counter`: a number changed by increments and guarded decrements (`dec_<f>`).
    pub counter: Option<Span>,
    /// `counters`: preallocated counters (`BoundedVec<BoundedVec<i64, 60>, 24>`), each slot
    /// incremented with `$inc` by `inc_<f>` (seed 002's histogram).
    pub counters: Option<Span>,
    /// `map(max = N)`: a map holding at most N entries (the span of `map`, and N).
    pub map: Option<(Span, Option<u64>)>,
    /// `attributes(value = V)`: an `@attributes` map stored as an array of `{k, v}` (the attribute
    /// pattern), `v` of type `V`: it gets `set_<f>_entry` and `remove_<f>_entry` (the span of
    /// `attributes`, and `V`).
    pub attributes: Option<(Span, syn::Type)>,
    /// `maintained`: the repository's other operations write this field (a summary, a copy, a
    /// pattern's field): no setter.
    pub maintained: Option<Span>,
    /// `immutable`: the value never changes after insert (`@immutable`): no setter, no `inc_`.
    pub immutable: Option<Span>,
    /// `inner(...)`: fields inside an embedded subdocument.
    pub inner: Vec<InnerDecl>,
    /// `inner_array(...)`: bounded arrays inside an embedded subdocument.
    pub inner_arrays: Vec<InnerArrayDecl>,
    /// `element(...)`: numbers in the elements of a bounded array, changed one element at a time.
    pub elements: Vec<ElementDecl>,
    pub denormalized_from: Option<String>,
    pub serde_rename: Option<String>,
    pub serde_default: bool,
    pub serde_skip: bool,
    pub serde_flatten: bool,
    pub serde_skip_if: bool,
}
