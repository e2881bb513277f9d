//! Trees as an array of ancestors plus a parent reference (seeds 000 and 001).

use bson::{doc, Bson, Document as BsonDocument};

use super::arrays::load_by_ids;
use super::core::RepoCore;
use crate::error::Context;
use crate::{Document, Result};

/// Where a node keeps its parent and ancestors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeSpec {
    /// The parent's id (`null` for roots).
    pub parent: &'static str,
    /// Every ancestor's id, root first.
    pub ancestors: &'static str,
}

/// Inserts `node` under `parent`, computing its ancestors from the parent's.
pub async fn insert_under<T: Document>(
    core: &RepoCore<T>,
    spec: &TreeSpec,
    parent: Option<Bson>,
    mut node: BsonDocument,
) -> Result<BsonDocument> {
    match parent {
        Some(p) => {
            let Some(pd) = core
                .raw()
                .find_one(doc! { "_id": p.clone() })
                .projection(doc! { spec.ancestors: 1 })
                .await
                .during("find", core.name())?
            else {
                return Err(core.not_found(&p));
            };
            let mut ancestors = pd.get_array(spec.ancestors).cloned().unwrap_or_default();
            ancestors.push(p.clone());
            node.insert(spec.parent, p);
            node.insert(spec.ancestors, ancestors);
        }
        None => {
            // A root: no parent, written as the document's own type writes "none" (absent when
            // it skips a `None`, else null), so a root reads back as it was stored.
            if node.contains_key(spec.parent) {
                node.insert(spec.parent, Bson::Null);
            }
            node.insert(spec.ancestors, Vec::<Bson>::new());
        }
    }
    // The kept path when a parent keeps a list or summaries of the nodes.
    core.insert_encoded(node.clone()).await?;
    Ok(node)
}

/// The ancestors of node `id`, root first.
pub async fn ancestors<T: Document>(
    core: &RepoCore<T>,
    spec: &TreeSpec,
    id: Bson,
) -> Result<Vec<BsonDocument>> {
    let Some(node) = core
        .raw()
        .find_one(doc! { "_id": id.clone() })
        .projection(doc! { spec.ancestors: 1 })
        .await
        .during("find", core.name())?
    else {
        return Err(core.not_found(&id));
    };
    let ids = node.get_array(spec.ancestors).cloned().unwrap_or_default();
    load_by_ids(core.raw(), &ids, None).await
}
