//! Where a relationship's children live when the parent keeps something of them (subsets, top-N
//! lists, summaries of all the children) but not the children themselves.

use super::{CollectionRole, CollectionsByName, Decision, Shape, SubsetChildren};

impl Decision {
    /// Where the children live when each sits in its own collection with a top-level reference to
    /// its one parent (`post`, `post.id` when copies extended it): the collection a parent's
    /// subsets, top-N lists and summaries of all its children are refilled from, and whose writes
    /// keep them. `None` for the layouts without one (the parent holds the ids, buckets,
    /// embedding).
    pub fn children_in(&self, collections: &CollectionsByName<'_>) -> Option<SubsetChildren> {
        self.placement.iter().find_map(|p| {
            let c = collections.get(&p.collection)?;
            let own = c.role == CollectionRole::Entity && c.entity == self.child;
            let reference = matches!(p.shape, Shape::Id | Shape::ExtendedRef);
            if !own || !reference || p.target != self.parent || p.path.contains('.') {
                return None;
            }
            let extended = c.field(&p.path).is_some_and(|f| f.bson_type == "object");
            Some(SubsetChildren {
                collection: c.name.clone(),
                parent_key: if extended {
                    format!("{}.id", p.path)
                } else {
                    p.path.clone()
                },
            })
        })
    }
}
