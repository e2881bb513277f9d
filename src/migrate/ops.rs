//! What one step does, as data: the collections, filters, updates and aggregation stages, in
//! BSON. `squillion_codegen::migration` writes them from the difference of two Plans; the CLI
//! builds them at run time and the generated module as literals.

use bson::Document;

/// One step of a migration.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Reads only: stops the migration, before anything is written, when the stored data does
    /// not fit the new layout.
    Check(Check),
    /// A collection created with its validator (unless it exists).
    CreateCollection {
        /// The collection.
        collection: String,
        /// Its validator (`{$jsonSchema: ...}`).
        validator: Document,
    },
    /// An index created (the server does nothing if the same index exists).
    CreateIndex {
        /// The collection.
        collection: String,
        /// The index.
        index: Index,
    },
    /// `collMod` with a validator and a validation level.
    CollMod {
        /// The collection.
        collection: String,
        /// The validator.
        validator: Document,
        /// `moderate` while both versions are stored, `strict` after.
        level: ValidationLevel,
    },
    /// `updateMany(filter, update)`, bypassing the validator: renames, references wrapped,
    /// fields unset, `schema_version` raised. The filter is the guard: a second run matches
    /// nothing.
    UpdateMany {
        /// The collection.
        collection: String,
        /// The documents not yet updated.
        filter: Document,
        /// The update.
        update: Update,
    },
    /// Children leaving an array of the documents walked for documents of their own (embedded
    /// children split out, buckets filled from or split into their items): a [`Op::Batched`]
    /// walk whose every batch first gives the array's elements lacking `_id` a new ObjectId
    /// (made here: the server has none; each document updated only if its array is still the
    /// one read), then runs the stages. The ids are written before the batch's children are,
    /// so a run killed at any point and resumed splits out the same children under the same
    /// ids, in the same order.
    SplitOut {
        /// The walk.
        batched: Batched,
        /// The array whose elements get ids.
        ids: Ids,
        /// What a walked document is, for the progress report.
        walk: Walk,
    },
    /// A walk over a collection in `_id` order, one aggregation (ending in a guarded
    /// `$merge`) per batch.
    Batched {
        /// The walk.
        batched: Batched,
        /// What a walked document is, for the progress report.
        walk: Walk,
    },
    /// A batched walk gathering children into their parents, then the parents left over
    /// (over the bound, by children added since the check) named by the check.
    Gather {
        /// The walk.
        batched: Batched,
        /// The guard of the parents not gathered, and the check naming one.
        leftover: Option<(Document, Check)>,
    },
    /// A copy filled from its source: the source walked in `_id` order, each document's value
    /// written where it is copied.
    Backfill(Backfill),
    /// A collection dropped.
    DropCollection {
        /// The collection.
        collection: String,
    },
    /// An index dropped by name (nothing if it is not there).
    DropIndex {
        /// The collection.
        collection: String,
        /// The index's name.
        name: String,
    },
}

/// `validationLevel` of a `collMod`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationLevel {
    /// Existing documents that fail are not checked on update (during the migration).
    Moderate,
    /// Every insert and update is checked.
    Strict,
}

impl ValidationLevel {
    /// `moderate` or `strict`.
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationLevel::Moderate => "moderate",
            ValidationLevel::Strict => "strict",
        }
    }
}

/// The update of [`Op::UpdateMany`].
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// An update document (`{$rename: ...}`, `{$unset: ...}`, `{$set: ...}`).
    Document(Document),
    /// An aggregation pipeline update.
    Pipeline(Vec<Document>),
}

/// What a batched walk walks, for the progress report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Parent documents.
    Parents,
    /// Bucket documents.
    Buckets,
}

/// A walk of `collection` in `_id` order: the next [`super::BATCH`] `_id`s matching `guard`,
/// then `aggregate([{$match: {$and: [guard, {_id: {$gte: first, $lte: last}}]}}, ...stages])`.
#[derive(Debug, Clone, PartialEq)]
pub struct Batched {
    /// The collection walked.
    pub collection: String,
    /// The documents the step has not done.
    pub guard: Document,
    /// The stages after the batch's `$match`.
    pub stages: Vec<Document>,
}

/// The array whose elements get ids in each batch of an [`Op::SplitOut`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ids {
    /// The array's stored path.
    pub array: String,
    /// The documents with an element lacking `_id` (`{array: {$elemMatch: {_id: {$exists:
    /// false}}}}`), matched inside the batch's range.
    pub missing: Document,
}

/// A check: `pipeline` run on `collection` finds the first offender as `{_id, n}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The collection read.
    pub collection: String,
    /// The pipeline finding the first offender.
    pub pipeline: Vec<Document>,
    /// The error for an offender, in full: `{id}` and `{n}` stand for its `_id` and count.
    pub error: String,
}

/// A copy filled from its source ([`Op::Backfill`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Backfill {
    /// The source's collection.
    pub source_collection: String,
    /// The source field's stored path.
    pub source_path: String,
    /// The collection holding the copies.
    pub collection: String,
    /// The path matched against the source's `_id`.
    pub match_path: String,
    /// The path set to the source's value.
    pub set_path: String,
    /// `arrayFilters` identifiers matched against the source's `_id` (`elem.author`).
    pub array_filters: Vec<String>,
}

/// An index as the new schema declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// Its name.
    pub name: String,
    /// Its keys, in order.
    pub keys: Document,
    /// Unique.
    pub unique: bool,
    /// Sparse.
    pub sparse: bool,
    /// Partial filter expression.
    pub partial_filter: Option<Document>,
    /// Collation: locale and strength (1 to 5).
    pub collation: Option<(String, u32)>,
    /// Documents expire this many seconds after the (date) key's value.
    pub expire_after_seconds: Option<u64>,
}

impl Index {
    /// The driver's index model.
    pub fn model(&self) -> mongodb::IndexModel {
        use mongodb::options::{Collation, CollationStrength, IndexOptions};
        let collation = self.collation.as_ref().map(|(locale, strength)| {
            let strength = match strength {
                1 => CollationStrength::Primary,
                2 => CollationStrength::Secondary,
                4 => CollationStrength::Quaternary,
                5 => CollationStrength::Identical,
                _ => CollationStrength::Tertiary,
            };
            Collation::builder()
                .locale(locale.clone())
                .strength(strength)
                .build()
        });
        let options = IndexOptions::builder()
            .name(self.name.clone())
            .unique(self.unique.then_some(true))
            .sparse(self.sparse.then_some(true))
            .partial_filter_expression(self.partial_filter.clone())
            .collation(collation)
            .expire_after(
                self.expire_after_seconds
                    .map(std::time::Duration::from_secs),
            )
            .build();
        mongodb::IndexModel::builder()
            .keys(self.keys.clone())
            .options(options)
            .build()
    }
}
