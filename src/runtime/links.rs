//! Link collections: one document per pair, indexed from both ends (the join table, the last
//! resort for many-to-many relationships unbounded on both sides).

use std::collections::HashMap;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Collection;

use super::arrays::load_by_ids;
use super::core::describe;
use super::txn::server_code;
use crate::error::Context;
use crate::{Document, Error, Page, Result};

/// Upserts the link on its pair; true if the pair was new. A racing link of the same pair hits
/// the unique index and is retried as an update.
pub async fn link(
    coll: &Collection<BsonDocument>,
    a: &str,
    b: &str,
    link: BsonDocument,
) -> Result<bool> {
    let filter = doc! {
        a: link.get(a).cloned().unwrap_or(Bson::Null),
        b: link.get(b).cloned().unwrap_or(Bson::Null),
    };
    let mut set = link.clone();
    let id = set.remove("_id");
    set.remove(a);
    set.remove(b);
    let mut update = BsonDocument::new();
    if !set.is_empty() {
        update.insert("$set", set);
    }
    if let Some(id) = id {
        update.insert("$setOnInsert", doc! { "_id": id });
    }
    if update.is_empty() {
        update.insert(
            "$setOnInsert",
            doc! { a: filter.get(a).cloned(), b: filter.get(b).cloned() },
        );
    }
    let mut attempt = 0;
    loop {
        attempt += 1;
        match coll
            .update_one(filter.clone(), update.clone())
            .upsert(true)
            .await
        {
            Ok(r) => return Ok(r.upserted_id.is_some()),
            Err(e) if attempt < 3 && server_code(&e) == Some(11000) => continue,
            Err(e) => return Err(e).during("update", coll.name()),
        }
    }
}

/// Pairs each link of `links` with its partner document (the `_id` in `partner_field`), loaded with
/// one `$in` query; links whose partner is missing are left out.
pub async fn with_partners<L: Document, P: Document>(
    db: &mongodb::Database,
    links: Page<L>,
    partner_field: &str,
) -> Result<Page<(L, P)>> {
    let mut ids = Vec::with_capacity(links.items.len());
    for l in &links.items {
        let d = super::core::to_document(l)?;
        ids.push(d.get(partner_field).cloned().unwrap_or(Bson::Null));
    }
    let partners = RepoPartners::<P>::load(db, &ids).await?;
    let Page {
        items,
        request,
        has_more,
    } = links;
    let mut paired = Vec::with_capacity(items.len());
    let mut by_id = partners.0;
    for (l, id) in items.into_iter().zip(ids) {
        if let Some(p) = by_id.get(&describe(&id)) {
            paired.push((l, p.clone_doc()?));
        }
    }
    by_id.clear();
    Ok(Page {
        items: paired,
        request,
        has_more,
    })
}

struct Loaded<P>(BsonDocument, std::marker::PhantomData<P>);

impl<P: Document> Loaded<P> {
    fn clone_doc(&self) -> Result<P> {
        super::core::check_schema_version::<P>(&self.0)?;
        bson::from_document(self.0.clone()).map_err(Error::from)
    }
}

struct RepoPartners<P>(HashMap<String, Loaded<P>>);

impl<P: Document> RepoPartners<P> {
    async fn load(db: &mongodb::Database, ids: &[Bson]) -> Result<Self> {
        let coll = db.collection::<BsonDocument>(P::COLLECTION);
        let docs = load_by_ids(&coll, ids, None).await?;
        Ok(RepoPartners(
            docs.into_iter()
                .filter_map(|d| {
                    let key = describe(d.get("_id")?);
                    Some((key, Loaded(d, std::marker::PhantomData)))
                })
                .collect(),
        ))
    }
}
