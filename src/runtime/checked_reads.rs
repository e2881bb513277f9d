//! The declared queries of a collection whose documents carry a schema version
//! (`schema_version = N`, `@schema_version(n)` in the language). Every other read of the
//! repository checks the version of each document it returns ([`RepoCore::decode`]): one written
//! by a newer application, or older than `min_schema_version`, is `Error::SchemaVersion`. The
//! query methods the code generator writes for such a collection call these functions instead
//! of [`super::query::run`], [`super::paging::page`] and [`super::paging::stream`], which read
//! straight into the returned type: the same `find`, the same keyset pages and projections
//! (with the version beside the returned fields), and the same check before each document is
//! returned. (Collections in the online mode read through [`super::online_reads`], which checks
//! too.)
//!
//! [`RepoCore::decode`]: super::core::RepoCore::decode

use bson::Document as BsonDocument;
use futures::{Stream, StreamExt, TryStreamExt};
use mongodb::options::Collation;
use mongodb::Collection;
use serde::de::DeserializeOwned;

use crate::error::Context;
use crate::{CursorPage, Document, PageCursor, Result, SchemaVersion};

/// [`super::query::run`], each document's version checked against `D`'s.
pub async fn run<D, T>(
    collection: &Collection<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
    projection: Option<BsonDocument>,
) -> Result<Vec<T>>
where
    D: Document + Send + Sync,
    T: DeserializeOwned,
{
    let raw = collection.clone_with_type::<BsonDocument>();
    let projection = projection.map(with_version);
    let docs: Vec<BsonDocument> =
        super::query::find(&raw, filter, sort, limit, collation, projection)
            .await
            .during("find", collection.name())?
            .try_collect()
            .await
            .during("find", collection.name())?;
    docs.into_iter().map(checked::<D, T>).collect()
}

/// [`super::paging::page`], each document's version checked against `D`'s.
pub async fn page<D, T>(
    collection: &Collection<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    collation: Option<Collation>,
    cursor: Option<&PageCursor>,
    per_page: u32,
    projection: Option<BsonDocument>,
) -> Result<CursorPage<T>>
where
    D: Document + Send + Sync,
    T: DeserializeOwned,
{
    let raw = collection.clone_with_type::<BsonDocument>();
    let page = super::paging::page(
        &raw,
        filter,
        sort,
        collation,
        cursor,
        per_page,
        projection.map(with_version),
    )
    .await?;
    let items = page
        .items
        .into_iter()
        .map(checked::<D, T>)
        .collect::<Result<Vec<T>>>()?;
    Ok(CursorPage {
        items,
        next: page.next,
    })
}

/// [`super::paging::stream`], each document's version checked against `D`'s as it is read.
pub fn stream<D, T>(
    collection: Collection<D>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
    collation: Option<Collation>,
    projection: Option<BsonDocument>,
) -> impl Stream<Item = Result<T>> + Send + 'static
where
    D: Document + Send + Sync + 'static,
    T: DeserializeOwned + Send + 'static,
{
    super::paging::stream(
        collection.clone_with_type::<BsonDocument>(),
        filter,
        sort,
        limit,
        collation,
        projection.map(with_version),
    )
    .map(|doc| doc.and_then(checked::<D, T>))
    .boxed()
}

/// A stored document as `T`, after the check of its version against `D`'s.
pub(super) fn checked<D: Document, T: DeserializeOwned>(doc: BsonDocument) -> Result<T> {
    super::core::check_schema_version::<D>(&doc)?;
    Ok(bson::from_document(doc)?)
}

/// A query's projection with the version beside the returned fields: the check reads it.
fn with_version(mut projection: BsonDocument) -> BsonDocument {
    projection.insert(SchemaVersion::FIELD, 1);
    projection
}
