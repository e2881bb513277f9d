//! The changes of a diff `migrate` cannot make, by what they are about.

use serde::Serialize;

use super::buckets::BucketLimit;
use super::links::LinkLimit;

/// A change of the diff this slice of `migrate` cannot make, by what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unsupported {
    /// A relationship's layout, subset, buckets, summaries or outlier changed, or the
    /// relationship was added or removed.
    Decision {
        /// The relationship.
        relation: String,
        /// The old layout (`None`: the relationship is new).
        old: Option<String>,
        /// The new layout (`None`: the relationship was removed).
        new: Option<String>,
        /// Only its patterns changed (subset, buckets, summaries, outlier), not its layout.
        patterns: bool,
    },
    /// A relationship moved to or from buckets in a way this version cannot make correctly.
    Buckets {
        /// The relationship.
        relation: String,
        /// The old layout.
        old: String,
        /// The new layout.
        new: String,
        /// What stops it.
        why: BucketLimit,
    },
    /// A many-to-many relationship moved among `one_way`, `two_way` and `link_collection` in a
    /// way this version cannot make correctly.
    Links {
        /// The relationship.
        relation: String,
        /// The old layout.
        old: String,
        /// The new layout.
        new: String,
        /// What stops it.
        why: LinkLimit,
    },
    /// A collection removed or renamed (or added for something other than an entity).
    Collection {
        /// The entity it holds.
        entity: String,
        /// Its name before.
        old: Option<String>,
        /// Its name after.
        new: Option<String>,
    },
    /// A stored field whose type, kind, nesting or `_id` changed.
    FieldType {
        /// The collection (new name).
        collection: String,
        /// The field's stored path (new).
        path: String,
        /// `kind bson_type` before and after.
        old: String,
        /// After.
        new: String,
    },
    /// A field that was optional is now required: stored documents may lack it.
    NowRequired {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// A new required field with no source to fill it from.
    RequiredWithoutSource {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// A field renamed or removed inside an array (needs a pipeline update with `$map`).
    InsideArray {
        /// The collection.
        collection: String,
        /// The stored path.
        path: String,
    },
    /// The `_id` of a collection changed (a natural key added, removed or moved): every
    /// reference to its documents would have to be rewritten.
    IdChanged {
        /// The collection.
        collection: String,
    },
    /// A top-N list added to embedded children: its copies hold the child's `_id`, which
    /// embedded children lack (the new code fills it from what the application offers).
    ListWithoutIds {
        /// The relationship.
        relation: String,
        /// The parent's collection.
        collection: String,
        /// The list's stored path.
        path: String,
    },
    /// An index whose keys or options changed under the same name.
    IndexRedefined {
        /// The collection.
        collection: String,
        /// The index.
        name: String,
    },
}

impl Unsupported {
    /// The relationship a refused layout change is about (its own collections and fields are
    /// not refused again).
    pub fn relation(&self) -> Option<&str> {
        match self {
            Unsupported::Decision { relation, .. }
            | Unsupported::Buckets { relation, .. }
            | Unsupported::Links { relation, .. } => Some(relation),
            _ => None,
        }
    }
}
