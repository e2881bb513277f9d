//! Sampling one collection: `$sample` (or, where the server has none, the first documents), one
//! document at a time into its [`Shape`] and [`Evidence`].

use futures::TryStreamExt;
use mongodb::bson::{doc, Document};
use mongodb::options::IndexOptions;
use mongodb::{Database, IndexModel};

use super::evidence::Evidence;
use super::server::Server;
use super::shape::{Kind, Shape};
use super::windows;
use super::Progress;

/// What sampling one collection found.
#[derive(Debug, Clone)]
pub struct Sampled {
    /// The collection.
    pub name: String,
    /// Its documents, as the server estimates.
    pub estimated: u64,
    /// Documents sampled.
    pub sampled: u64,
    /// The shape of the sampled documents.
    pub shape: Shape,
    /// Relations between their top-level fields.
    pub evidence: Evidence,
    /// Its indexes (besides `_id_`): keys and options.
    pub indexes: Vec<(Document, IndexOptions)>,
}

impl Sampled {
    /// The kind most `_id`s have.
    pub fn id_kind(&self) -> Option<Kind> {
        self.shape
            .fields
            .get("_id")
            .and_then(|f| f.main_kind())
            .map(|(k, _)| k)
    }
}

/// Samples up to `size` documents of `name`.
pub async fn sample(
    db: &Database,
    server: &mut Server,
    name: &str,
    size: u64,
    progress: Progress<'_>,
) -> mongodb::error::Result<Sampled> {
    let coll = db.collection::<Document>(name);
    let estimated = coll.estimated_document_count().await?;
    let mut shape = Shape::default();
    let mut evidence = Evidence::default();
    // A large collection: windows of `_id`s read through the index, not a pass over it all.
    if estimated >= size.saturating_mul(windows::FROM_RATIO) {
        let seen = windows::sample(&coll, size, estimated, |d| {
            progress(1);
            shape.observe(d, 0);
            evidence.observe(d);
        })
        .await?;
        if let Some(sampled) = seen {
            server.windowed(name, estimated, sampled);
            return finish(&coll, name, estimated, sampled, shape, evidence).await;
        }
    }
    let n = i64::try_from(size).unwrap_or(i64::MAX);
    let cursor = server
        .aggregate(
            &coll,
            vec![doc! { "$sample": { "size": n } }],
            "$sample",
            "the first documents of each collection were read instead (in natural order, which \
             may not represent the whole collection)",
        )
        .await?;
    let mut cursor = match cursor {
        Some(c) => c,
        None => coll.find(doc! {}).limit(n).await?,
    };
    let mut sampled = 0u64;
    // One document at a time: a sample of large documents is never held in memory whole.
    while let Some(d) = cursor.try_next().await? {
        sampled += 1;
        progress(1);
        shape.observe(&d, 0);
        evidence.observe(&d);
        if sampled >= size {
            break;
        }
    }
    finish(&coll, name, estimated, sampled, shape, evidence).await
}

/// The sample with the collection's indexes.
async fn finish(
    coll: &mongodb::Collection<Document>,
    name: &str,
    estimated: u64,
    sampled: u64,
    shape: Shape,
    evidence: Evidence,
) -> mongodb::error::Result<Sampled> {
    let models: Vec<IndexModel> = coll.list_indexes().await?.try_collect().await?;
    let indexes = models
        .into_iter()
        .filter(|m| m.options.as_ref().and_then(|o| o.name.as_deref()) != Some("_id_"))
        .map(|m| (m.keys, m.options.unwrap_or_default()))
        .collect();
    Ok(Sampled {
        name: name.to_owned(),
        estimated,
        sampled,
        shape,
        evidence,
        indexes,
    })
}
