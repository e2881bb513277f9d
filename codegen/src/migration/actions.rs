//! What each step of a migration does: data, applied by the CLI with the driver and written by
//! [`super::mongosh`] as a script.

use serde::Serialize;
use serde_json::Value;

use crate::plan::{FanOut, Index};

use super::kept::{Children, KeptList, KeptSummary};
use super::BucketLayout;

/// What one step does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// A collection the new Plan adds, created with its validator.
    CreateCollection {
        /// The collection.
        collection: String,
        /// Its validator (`{$jsonSchema: ...}`).
        validator: Value,
    },
    /// An index the new Plan adds.
    CreateIndex {
        /// The collection.
        collection: String,
        /// The index, as the new Plan declares it.
        index: Index,
    },
    /// `collMod` with `{$or: [OLD, NEW]}` and `validationLevel: "moderate"`.
    RelaxValidator {
        /// The collection.
        collection: String,
        /// The relaxed validator.
        validator: Value,
    },
    /// `updateMany({from: {$exists: true}}, {$rename: {from: to}})`.
    Rename {
        /// The collection.
        collection: String,
        /// The stored path before.
        from: String,
        /// The stored path after.
        to: String,
    },
    /// A plain reference turned into an extended reference (a copy was added beside it):
    /// `updateMany({path: {$type: OLD}}, [{$set: {path: {id: "$path"}}}])`.
    WrapReference {
        /// The collection.
        collection: String,
        /// The reference's stored path.
        path: String,
        /// The stored name of the id inside the new object.
        id_name: String,
        /// The BSON type of the plain reference (the guard: documents not yet wrapped).
        old_type: String,
    },
    /// A copy filled from its source: the source collection walked in `_id` order, batches of
    /// [`BATCH`], each source document's value written by the Plan's fan-out.
    Backfill {
        /// The source's collection.
        source_collection: String,
        /// The source field's stored path.
        source_path: String,
        /// The write the new code makes when the source changes.
        fan_out: FanOut,
    },
    /// `updateMany` raising `schema_version` where it is lower or absent.
    SetVersion {
        /// The collection.
        collection: String,
        /// The new version.
        version: u32,
    },
    /// `updateMany({path: {$exists: true}}, {$unset: {path: ""}})`.
    Unset {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// `dropIndex` by name.
    DropIndex {
        /// The collection.
        collection: String,
        /// The index.
        name: String,
    },
    /// `collMod` with the new validator and `validationLevel: "strict"`.
    TightenValidator {
        /// The collection.
        collection: String,
        /// The new validator.
        validator: Value,
    },
    /// Reads only: stops the migration, before anything is written, when the stored data does
    /// not fit the new layout ([`Check`]).
    Check {
        /// What is checked.
        check: Check,
    },
    /// Embedded children copied out into their own collection (`embed` -> `child_ref`,
    /// `parent_refs`, `two_way`): per batch of parents, the elements lacking `_id` first given
    /// one made by the client (the server has no ObjectId generator; each parent written only
    /// if its array is still the one read), so that every run splits out the same children;
    /// then `$unwind`, `$replaceWith` the element (with the reference to its parent, and
    /// `schema_version`), `$merge` on `_id` keeping existing documents.
    SplitOut {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The array of embedded children.
        array: String,
        /// The children's collection.
        child_collection: String,
        /// The reference each child gets to its parent (`None`: the new layout keeps ids in the
        /// parent only).
        reference: Option<ParentRef>,
        /// The children's `schema_version`, if their collection is versioned.
        version: Option<u32>,
    },
    /// An array of embedded children replaced by their ids: a pipeline update with `$map`.
    KeepIds {
        /// The parent's collection.
        collection: String,
        /// The array of embedded children.
        from: String,
        /// The array of ids (the same path, or a new one).
        to: String,
    },
    /// The parent's array filled from the children's collection (`child_ref` -> `embed`,
    /// `parent_refs`, `two_way`; `parent_refs` -> `embed`): per batch of parents, `$lookup` the
    /// children, keep parents within the bound, `$merge` the array into the parent.
    Gather {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The children's collection.
        child_collection: String,
        /// How the old layout finds a parent's children.
        source: Source,
        /// The new array's stored path.
        array: String,
        /// What the new array holds.
        keep: Keep,
        /// The new array's bound.
        bound: Option<u64>,
        /// The BSON type of the children's `_id` (the guard of a gather from ids in place).
        id_type: String,
    },
    /// Each child given the reference to the parent whose array holds its id (`parent_refs`
    /// -> `child_ref`, `two_way`): per batch of parents, `$unwind` the ids, `$merge` the
    /// reference into the children.
    ReferToParent {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The parent's array of ids.
        array: String,
        /// The children's collection.
        child_collection: String,
        /// The reference each child gets.
        reference: ParentRef,
    },
    /// What a parent keeps of its children (summaries, subsets, top-N lists) computed from them,
    /// as the new code keeps it on write: per batch of parents, the children read where they
    /// live (`$lookup`, or the embedded array), the values `$project`ed, `$merge`d into the
    /// parent.
    Summarise {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// Where the children live.
        children: Children,
        /// The summaries to compute.
        summaries: Vec<KeptSummary>,
        /// The lists of copies to compute.
        lists: Vec<KeptList>,
        /// Some value is recomputed in place (the old Plan stored that path too): every parent
        /// is walked, not only those lacking the new fields.
        recomputed: bool,
    },
    /// A relationship's children put into bucket documents (`child_ref`, `embed` -> `bucket`):
    /// per batch of parents, the children read where the old layout keeps them, sorted in the
    /// buckets' order, cut into buckets of [`BucketLayout::size`], each bucket written whole by
    /// `$merge` (`keepExisting`) under a fixed `_id` (the k-th smallest of its parent's
    /// children's ids), so a replay writes nothing twice.
    FillBuckets {
        /// The relationship.
        relation: String,
        /// The parent's collection (walked in `_id` order).
        parent_collection: String,
        /// Where the old layout keeps the children (embedded with ids given, or by reference).
        children: Children,
        /// The new buckets.
        buckets: BucketLayout,
    },
    /// The children of bucket documents moved out into their own collection (`bucket` ->
    /// `child_ref`): per batch of buckets, `$unwind` the items (given ids first), `$replaceWith`
    /// each with the reference to the bucket's parent, `$merge` on `_id` keeping existing.
    SplitBuckets {
        /// The relationship.
        relation: String,
        /// The old buckets.
        buckets: BucketLayout,
        /// The children's collection.
        child_collection: String,
        /// The reference each child gets to its parent.
        reference: ParentRef,
        /// The children's `schema_version`, if their collection is versioned.
        version: Option<u32>,
    },
    /// The children of bucket documents gathered into the parent's array (`bucket` -> `embed`):
    /// per batch of parents, one `$lookup` of their buckets, the items concatenated in bucket
    /// order, parents within the bound `$merge`d.
    GatherBuckets {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The old buckets.
        buckets: BucketLayout,
        /// The new array's stored path.
        array: String,
        /// The new element's stored fields.
        fields: Vec<String>,
        /// The new array's bound.
        bound: Option<u64>,
    },
    /// A many-to-many relationship's link collection filled from one side's arrays of ids
    /// (`one_way`, `two_way` -> `link_collection`): per batch of holders, `$unwind` the array,
    /// one link `{holder_key, other_key}` per pair, `$merge` on the pair (its unique index)
    /// keeping existing links; the server gives each new link its `_id`.
    LinkPairs {
        /// The relationship.
        relation: String,
        /// The collection holding the arrays.
        holder_collection: String,
        /// The array of the other side's ids.
        array: String,
        /// The link collection.
        link_collection: String,
        /// The link's key naming the holder.
        holder_key: String,
        /// The link's key naming the other side.
        other_key: String,
        /// The links' `schema_version`, if their collection is versioned.
        version: Option<u32>,
    },
    /// A collection the new Plan no longer has (its children moved into their parents).
    DropCollection {
        /// The collection.
        collection: String,
    },
}

/// The reference a child holds to its parent (`child_ref`, `two_way`), as the new Plan stores
/// it: the parent's id, or an extended reference with copies of the parent's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParentRef {
    /// The reference's stored path in the child.
    pub path: String,
    /// An extended reference: the stored name of the id inside it.
    pub id_name: Option<String>,
    /// An extended reference's copies: (stored name inside the reference, the parent's stored
    /// path of the source).
    pub copies: Vec<(String, String)>,
}

impl ParentRef {
    /// The path in the child that holds the parent's id: `author`, or `author.id`.
    pub fn key(&self) -> String {
        match &self.id_name {
            Some(id) => format!("{}.{id}", self.path),
            None => self.path.clone(),
        }
    }
}

/// How the old layout finds a parent's children.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// Each child refers to its parent at `key` (`child_ref`).
    ChildRef {
        /// The path in the child holding the parent's id.
        key: String,
    },
    /// The parent holds its children's ids in `array` (`parent_refs`, `two_way`), in order.
    ParentIds {
        /// The parent's array of ids.
        array: String,
    },
    /// Many-to-many: each document of the other side lists this one's id in `array`.
    Partners {
        /// The other side's array of ids.
        array: String,
    },
    /// Many-to-many: one link document per pair names this side at `key`, the other at `other`.
    Links {
        /// The link's key naming this side.
        key: String,
        /// The link's key naming the other side.
        other: String,
    },
}

/// What the parent's new array holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Keep {
    /// The children themselves, with these stored fields (the new element's), without `_id`.
    Embedded {
        /// The element's stored field names.
        fields: Vec<String>,
    },
    /// The children's ids.
    Ids,
}

/// A check of the stored data against the new layout: its pipeline finds the first offender
/// (`{_id, n}`), and the migration stops before writing when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// No parent has more children than the new array holds.
    Bound {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The children's collection.
        child_collection: String,
        /// How the old layout finds a parent's children.
        source: Source,
        /// The new bound.
        bound: u64,
    },
    /// Every id in a parent's array names a child (they are about to be embedded).
    Dangling {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The parent's array of ids.
        array: String,
        /// The children's collection.
        child_collection: String,
    },
    /// No child is in the arrays of two parents (it is about to refer to one).
    Shared {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The parent's array of ids.
        array: String,
        /// The children's collection.
        child_collection: String,
    },
    /// Every child (or bucket) refers to a parent that exists: the new layout keeps children
    /// under their parent (buckets walked from the parent, or gathered into it).
    Unparented {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The collection holding the references (the children's, or the buckets').
        collection: String,
        /// The path of the parent's id in its documents.
        key: String,
    },
    /// No parent has more children in its buckets than the new array holds.
    BucketBound {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The old buckets.
        buckets: BucketLayout,
        /// The new bound.
        bound: u64,
    },
    /// Many-to-many, both sides holding arrays: every id in `collection.array` names a
    /// document whose `other_array` lists it back.
    OneSided {
        /// The relationship.
        relation: String,
        /// The side read.
        collection: String,
        /// Its array of the other side's ids.
        array: String,
        /// The other side.
        other_collection: String,
        /// Its array of this side's ids.
        other_array: String,
    },
    /// Every child is in some parent's array (the new reference is required).
    Orphan {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        parent_collection: String,
        /// The parent's array of ids.
        array: String,
        /// The children's collection.
        child_collection: String,
    },
}
