//! [`RepoCore`]: the collection handles and the CRUD every generated repository delegates to.

use std::sync::{Arc, OnceLock};

use bson::{doc, Bson, Document as BsonDocument};
use futures::TryStreamExt;
use mongodb::{Collection, Database};

use crate::error::Context;
use crate::{Document, Error, Page, PageRequest, Result, SchemaVersion};

/// The handles of one document type's collection, shared by every method of its repository.
pub struct RepoCore<T: Document> {
    db: Database,
    typed: Collection<T>,
    raw: Collection<BsonDocument>,
    transactions: Arc<OnceLock<bool>>,
}

/// Shows the collection's namespace; unlike a derived `Debug`, it asks nothing of `T`, so the
/// documents of a hand-written struct need not implement `Debug` for their repository to.
impl<T: Document> std::fmt::Debug for RepoCore<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoCore")
            .field("namespace", &self.raw.namespace().to_string())
            .finish_non_exhaustive()
    }
}

impl<T: Document> Clone for RepoCore<T> {
    fn clone(&self) -> Self {
        RepoCore {
            db: self.db.clone(),
            typed: self.typed.clone(),
            raw: self.raw.clone(),
            transactions: self.transactions.clone(),
        }
    }
}

/// `value` as BSON.
pub fn to_bson<V: serde::Serialize + ?Sized>(value: &V) -> Result<Bson> {
    Ok(bson::to_bson(value)?)
}

/// `value` as a BSON document.
pub fn to_document<V: serde::Serialize + ?Sized>(value: &V) -> Result<BsonDocument> {
    Ok(bson::to_document(value)?)
}

/// [`Error::NotFound`] for `id` in `coll`.
pub(crate) fn not_found_in<T: Send + Sync>(coll: &Collection<T>, id: &Bson) -> Error {
    Error::NotFound {
        collection: coll.name().to_owned(),
        id: describe(id),
    }
}

/// Whether a document with `_id` `id` is in `coll`: what tells "missing" from "refused by the
/// update's own filter" after a guarded write matched nothing.
pub(crate) async fn id_exists(coll: &Collection<BsonDocument>, id: &Bson) -> Result<bool> {
    let n = coll
        .count_documents(doc! { "_id": id.clone() })
        .limit(1)
        .await
        .during("count", coll.name())?;
    Ok(n > 0)
}

/// A short text naming an id in error messages.
pub fn describe(id: &Bson) -> String {
    id.clone().into_relaxed_extjson().to_string()
}

impl<T: Document> RepoCore<T> {
    /// The repository core of `T::COLLECTION` in `db`.
    pub fn new(db: &Database) -> Self {
        Self::with_collection(db, T::COLLECTION)
    }

    /// The repository core of `T` stored in collection `name`.
    pub fn with_collection(db: &Database, name: &str) -> Self {
        RepoCore {
            db: db.clone(),
            typed: db.collection(name),
            raw: db.collection(name),
            transactions: Arc::new(OnceLock::new()),
        }
    }

    /// The database.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// The typed collection.
    pub fn collection(&self) -> &Collection<T> {
        &self.typed
    }

    /// The collection, read and written as plain BSON documents.
    pub fn raw(&self) -> &Collection<BsonDocument> {
        &self.raw
    }

    /// The collection's name.
    pub fn name(&self) -> &str {
        self.raw.name()
    }

    /// `collection.path`, for error messages.
    pub fn qualified(&self, path: &str) -> String {
        format!("{}.{path}", self.raw.name())
    }

    /// Whether the deployment runs multi-document transactions (asked once, then remembered).
    pub async fn transactions_supported(&self) -> Result<bool> {
        if let Some(known) = self.transactions.get() {
            return Ok(*known);
        }
        let supported = super::txn::supports_transactions(&self.db).await?;
        let _ = self.transactions.set(supported);
        Ok(supported)
    }

    /// Fails with [`Error::TransactionsUnsupported`] unless transactions can run.
    pub async fn require_transactions(&self) -> Result<()> {
        if self.transactions_supported().await? {
            Ok(())
        } else {
            Err(Error::TransactionsUnsupported)
        }
    }

    /// `doc` as stored: serialized, with the schema version stamped.
    pub fn encode(&self, doc: &T) -> Result<BsonDocument> {
        let mut d = to_document(doc)?;
        if let Some(v) = T::SCHEMA_VERSION {
            d.insert(SchemaVersion::FIELD, SchemaVersion::stored(v.current));
        }
        Ok(d)
    }

    /// `doc` as stored ([`Self::encode`]) with every copy it holds taken from its source
    /// ([`super::copies::fill`]): the caller's copy values are never written.
    pub async fn encode_filled(&self, doc: &T) -> Result<BsonDocument> {
        self.fill_document(self.encode(doc)?).await
    }

    /// Every document of `docs` as stored, their copies taken from their sources (one read per
    /// source collection for all of them).
    pub async fn encode_all_filled(&self, docs: &[T]) -> Result<Vec<BsonDocument>> {
        let encoded = docs
            .iter()
            .map(|d| self.encode(d))
            .collect::<Result<Vec<_>>>()?;
        self.fill_documents(encoded).await
    }

    /// `doc` (a whole document, or the key of a bucket) with its copies taken from their sources.
    pub async fn fill_document(&self, doc: BsonDocument) -> Result<BsonDocument> {
        if T::COPIES.is_empty() {
            return Ok(doc);
        }
        let mut docs = [doc];
        super::copies::fill_documents(&self.db, self.name(), T::COPIES, &mut docs).await?;
        let [doc] = docs;
        Ok(doc)
    }

    /// `docs` with their copies taken from their sources.
    pub async fn fill_documents(&self, mut docs: Vec<BsonDocument>) -> Result<Vec<BsonDocument>> {
        if !T::COPIES.is_empty() {
            super::copies::fill_documents(&self.db, self.name(), T::COPIES, &mut docs).await?;
        }
        Ok(docs)
    }

    /// `value`, written at the marked path `at` of a document (`author` for a field,
    /// `lines[]` for one element pushed to `lines`), with the copies it holds taken from their
    /// sources.
    pub async fn with_copies(&self, at: &str, value: Bson) -> Result<Bson> {
        if T::COPIES.is_empty() {
            return Ok(value);
        }
        let mut values = [value];
        super::copies::fill(&self.db, self.name(), T::COPIES, at, &mut values).await?;
        let [value] = values;
        Ok(value)
    }

    /// Each of `values`, elements written at the marked path `at` (`lines[]`), with the copies
    /// it holds taken from their sources (one read per source collection for all of them).
    pub async fn with_copies_all(&self, at: &str, mut values: Vec<Bson>) -> Result<Vec<Bson>> {
        if !T::COPIES.is_empty() {
            super::copies::fill(&self.db, self.name(), T::COPIES, at, &mut values).await?;
        }
        Ok(values)
    }

    /// A stored document as `T`, after checking its schema version (a document of an older
    /// version `T` reads is upgraded in memory, [`super::online`]; its copies are not filled:
    /// [`Self::decode_all`] fills them).
    pub fn decode(&self, mut doc: BsonDocument) -> Result<T> {
        if !super::online::upgrade::<T>(&mut doc)? {
            check_schema_version::<T>(&doc)?;
        }
        Ok(bson::from_document(doc)?)
    }

    /// Stored documents as they read at the current version: those of an older version `T`
    /// reads upgraded in memory ([`super::online`]) and their copies taken from their sources,
    /// the others as they are.
    pub async fn upgrade_all(&self, mut docs: Vec<BsonDocument>) -> Result<Vec<BsonDocument>> {
        if !super::online::upgrades::<T>() {
            return Ok(docs);
        }
        let mut upgraded = Vec::new();
        for (i, d) in docs.iter_mut().enumerate() {
            if super::online::upgrade::<T>(d)? {
                upgraded.push(i);
            }
        }
        if upgraded.is_empty() || T::COPIES.is_empty() {
            return Ok(docs);
        }
        let old: Vec<BsonDocument> = upgraded
            .iter()
            .map(|&i| std::mem::take(&mut docs[i]))
            .collect();
        let filled = self.fill_documents(old).await?;
        for (i, d) in upgraded.into_iter().zip(filled) {
            docs[i] = d;
        }
        Ok(docs)
    }

    /// Stored documents as `T` ([`Self::upgrade_all`], then [`Self::decode`]).
    pub async fn decode_all(&self, docs: Vec<BsonDocument>) -> Result<Vec<T>> {
        self.upgrade_all(docs)
            .await?
            .into_iter()
            .map(|d| self.decode(d))
            .collect()
    }

    /// One stored document as `T` ([`Self::decode_all`]).
    pub async fn decode_one(&self, mut doc: BsonDocument) -> Result<T> {
        if super::online::upgrade::<T>(&mut doc)? {
            doc = self.fill_document(doc).await?;
        } else {
            check_schema_version::<T>(&doc)?;
        }
        Ok(bson::from_document(doc)?)
    }

    /// Gives the stored document `id`, when it is of an older version `T` reads, the current
    /// shape in place before a write changes part of it ([`super::online::shape_pipeline`]: one
    /// `updateOne` guarded by the version; nothing when the shape does not change). Validation is
    /// bypassed as the migration's own steps bypass it: the document may lack a copy until the
    /// migration backfills it.
    pub async fn upgrade_stored(&self, id: &Bson) -> Result<()> {
        if !super::online::upgrades::<T>() {
            return Ok(());
        }
        let pipeline = super::online::shape_pipeline::<T>();
        let Some(filter) = super::online::below_current::<T>(id.clone()) else {
            return Ok(());
        };
        if pipeline.is_empty() {
            return Ok(());
        }
        self.raw
            .update_one(filter, pipeline)
            .bypass_document_validation(true)
            .await
            .during("update", self.name())?;
        Ok(())
    }

    /// The filter `{_id: id}`.
    pub fn id_filter(&self, id: &T::Id) -> Result<BsonDocument> {
        Ok(doc! { "_id": to_bson(id)? })
    }

    /// Inserts `doc` (with the schema version). A document keeping lists or summaries of its
    /// children in their own collection gets them from the children already stored (not the
    /// caller's values), and its parents keep it (see [`super::kept::insert`]).
    pub async fn insert(&self, doc: &T) -> Result<()> {
        if let Some(keepers) = self.keeping() {
            let transactions = self.transactions_supported().await?;
            let docs = vec![self.encode_filled(doc).await?];
            return super::kept::insert(&self.raw, transactions, &keepers, T::KEEPS, docs).await;
        }
        self.raw
            .insert_one(self.encode_filled(doc).await?)
            .await
            .during("insert", self.name())?;
        Ok(())
    }

    /// Inserts every document of `docs` in one `insertMany`.
    pub async fn insert_many(&self, docs: &[T]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let encoded = self.encode_all_filled(docs).await?;
        if let Some(keepers) = self.keeping() {
            let transactions = self.transactions_supported().await?;
            return super::kept::insert(&self.raw, transactions, &keepers, T::KEEPS, encoded).await;
        }
        self.raw
            .insert_many(encoded)
            .await
            .during("insert", self.name())?;
        Ok(())
    }

    /// The document whose `_id` is `id`.
    pub async fn get(&self, id: &T::Id) -> Result<Option<T>> {
        // Raw bytes straight into `T`: no intermediate `Document` tree on the hottest read.
        let raw: Collection<bson::RawDocumentBuf> = self.raw.clone_with_type();
        match raw
            .find_one(self.id_filter(id)?)
            .await
            .during("find", self.name())?
        {
            Some(d) if self.is_current(&d) => Ok(Some(self.decode_raw(&d)?)),
            Some(d) => {
                let doc: BsonDocument = bson::from_slice(d.as_bytes())?;
                Ok(Some(self.decode_one(doc).await?))
            }
            None => Ok(None),
        }
    }

    /// Whether raw BSON is read as it is: `T` upgrades no older version, or it is stored at a
    /// version `T` accepts.
    fn is_current(&self, doc: &bson::RawDocument) -> bool {
        let Some(v) = T::SCHEMA_VERSION.filter(|_| super::online::upgrades::<T>()) else {
            return true;
        };
        let version = match doc.get(SchemaVersion::FIELD) {
            Ok(Some(bson::RawBsonRef::Int32(n))) => i64::from(n),
            Ok(Some(bson::RawBsonRef::Int64(n))) => n,
            _ => return false,
        };
        version >= v.min_accepted && version <= v.current
    }

    /// Checks the schema version of raw BSON and deserializes it.
    pub fn decode_raw(&self, doc: &bson::RawDocument) -> Result<T> {
        if T::SCHEMA_VERSION.is_some() {
            let version = match doc.get(SchemaVersion::FIELD) {
                Ok(Some(bson::RawBsonRef::Int32(n))) => Bson::Int32(n),
                Ok(Some(bson::RawBsonRef::Int64(n))) => Bson::Int64(n),
                Ok(Some(bson::RawBsonRef::Double(f))) => Bson::Double(f),
                _ => Bson::Null,
            };
            check_schema_version::<T>(&doc! { SchemaVersion::FIELD: version })?;
        }
        Ok(bson::from_slice(doc.as_bytes())?)
    }

    /// The document whose `_id` is `id`, or [`Error::NotFound`].
    pub async fn require(&self, id: &T::Id) -> Result<T> {
        match self.get(id).await? {
            Some(d) => Ok(d),
            None => Err(self.not_found(&to_bson(id)?)),
        }
    }

    /// [`Error::NotFound`] for `id` in this collection.
    pub fn not_found(&self, id: &Bson) -> Error {
        not_found_in(&self.raw, id)
    }

    /// The parents keeping lists or summaries of these documents, when they have any or the
    /// documents keep lists or summaries of their own children: their writes go through
    /// [`super::kept`].
    fn keeping(&self) -> Option<Vec<super::kept::Keeper>> {
        let keepers = T::keepers();
        (!T::KEEPS.is_empty() || !keepers.is_empty()).then_some(keepers)
    }

    /// Replaces the stored document with `doc` (matched on its `_id`); false if none was stored.
    pub async fn replace(&self, doc: &T) -> Result<bool> {
        if let Some(keepers) = self.keeping() {
            // What the document keeps of its children is refilled from them (not the caller's
            // values), and so is what its parents keep of it.
            let transactions = self.transactions_supported().await?;
            let encoded = self.encode_filled(doc).await?;
            return super::kept::replace(&self.raw, transactions, &keepers, T::KEEPS, encoded)
                .await;
        }
        let r = self
            .raw
            .replace_one(self.id_filter(doc.id())?, self.encode_filled(doc).await?)
            .await
            .during("replace", self.name())?;
        Ok(r.matched_count == 1)
    }

    /// Inserts `doc`, already encoded and prepared by a pattern (a queue's job): kept like
    /// [`Self::insert`] (the parents keeping lists or summaries of it are refilled).
    pub async fn insert_encoded(&self, doc: BsonDocument) -> Result<()> {
        if let Some(keepers) = self.keeping() {
            let transactions = self.transactions_supported().await?;
            return super::kept::insert(&self.raw, transactions, &keepers, T::KEEPS, vec![doc])
                .await;
        }
        self.raw
            .insert_one(doc)
            .await
            .during("insert", self.name())?;
        Ok(())
    }

    /// Deletes the one document matching `filter` (its `_id` and a guard, as a queue's claimed
    /// job), refilling the parents keeping lists or summaries of it; false if none matched.
    pub async fn delete_matching(&self, filter: BsonDocument) -> Result<bool> {
        if let Some(keepers) = self.keeping() {
            let transactions = self.transactions_supported().await?;
            return super::kept::delete_matching(&self.raw, transactions, &keepers, filter).await;
        }
        let r = self
            .raw
            .delete_one(filter)
            .await
            .during("delete", self.name())?;
        Ok(r.deleted_count == 1)
    }

    /// Deletes the document whose `_id` is `id`; false if there was none.
    pub async fn delete(&self, id: &T::Id) -> Result<bool> {
        let r = self
            .raw
            .delete_one(self.id_filter(id)?)
            .await
            .during("delete", self.name())?;
        Ok(r.deleted_count == 1)
    }

    /// Every document matching `filter`, in `sort` order.
    pub async fn find(&self, filter: BsonDocument, sort: Option<BsonDocument>) -> Result<Vec<T>> {
        let mut find = self.raw.find(filter);
        if let Some(s) = sort {
            find = find.sort(s);
        }
        let docs: Vec<BsonDocument> = find
            .await
            .during("find", self.name())?
            .try_collect()
            .await
            .during("find", self.name())?;
        self.decode_all(docs).await
    }

    /// One page of the documents matching `filter`, in `sort` order (ties broken by `_id`).
    pub async fn find_page(
        &self,
        filter: BsonDocument,
        sort: BsonDocument,
        page: PageRequest,
    ) -> Result<Page<T>> {
        let docs = find_page_raw(&self.raw, filter, sort, None, page).await?;
        self.page_of(self.upgrade_all(docs).await?, page)
    }

    /// Page `page` from the `per_page + 1` raw documents [`find_page_raw`] read.
    pub fn page_of(&self, docs: Vec<BsonDocument>, page: PageRequest) -> Result<Page<T>> {
        let has_more = docs.len() as u64 > page.per_page;
        let items = docs
            .into_iter()
            .take(usize::try_from(page.per_page).unwrap_or(usize::MAX))
            .map(|d| self.decode(d))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            items,
            request: page,
            has_more,
        })
    }

    /// How many documents match `filter`.
    pub async fn count(&self, filter: BsonDocument) -> Result<u64> {
        self.raw
            .count_documents(filter)
            .await
            .during("count", self.name())
    }

    /// Whether a document with `_id` `id` exists.
    pub async fn exists(&self, id: &Bson) -> Result<bool> {
        Ok(self
            .raw
            .find_one(doc! { "_id": id.clone() })
            .projection(doc! { "_id": 1 })
            .await
            .during("find", self.name())?
            .is_some())
    }
}

/// `per_page + 1` raw documents of page `page` (the extra one tells whether more follow).
pub async fn find_page_raw(
    coll: &Collection<BsonDocument>,
    filter: BsonDocument,
    mut sort: BsonDocument,
    projection: Option<BsonDocument>,
    page: PageRequest,
) -> Result<Vec<BsonDocument>> {
    if !sort.contains_key("_id") {
        sort.insert("_id", 1);
    }
    let limit = i64::try_from(page.per_page.saturating_add(1)).unwrap_or(i64::MAX);
    let mut find = coll.find(filter).sort(sort).skip(page.skip()).limit(limit);
    if let Some(p) = projection {
        find = find.projection(p);
    }
    find.await
        .during("find", coll.name())?
        .try_collect()
        .await
        .during("find", coll.name())
}

/// Checks the `schema_version` of a stored document against `T`'s.
pub fn check_schema_version<T: Document>(doc: &BsonDocument) -> Result<()> {
    let Some(v) = T::SCHEMA_VERSION else {
        return Ok(());
    };
    let found = match doc.get(SchemaVersion::FIELD) {
        Some(Bson::Int32(n)) => Some(i64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Double(f)) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    };
    match found {
        Some(n) if n >= v.min_accepted && n <= v.current => Ok(()),
        _ => Err(Error::SchemaVersion {
            found,
            expected: v.current,
            min_accepted: v.min_accepted,
        }),
    }
}
