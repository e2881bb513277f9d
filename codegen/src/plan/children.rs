//! Where a relationship's children live when the parent keeps something of them (subsets, top-N
//! lists, summaries of all the children) but not the children themselves.

use super::{CollectionRole, CollectionsByName, Decision, Layout, Shape, SubsetChildren};

impl Decision {
    /// Whether the layout's own writes keep the parent's lists of copies (`latest N`, `top N`):
    /// the children are elements of a bucket or of an array embedded in the parent (the outlier's
    /// overflow included), not documents of their own, even when their entity has a collection
    /// for another relationship or as the parent of this one (an entity bucketed under its own
    /// kind). A bucket's appends and the array's pushes add their copies; no `push_<list>`
    /// inserts a child anywhere else, which would put it outside the relationship (in no bucket,
    /// in none of the parent's pages). Their copies hold the child's `_id` only when the
    /// elements have one (an entity embedded in itself): [`super::SubsetPlan::child_id`].
    pub fn copies_kept_by_layout(&self) -> bool {
        self.bucket.is_some() || self.strategy == Layout::Embed
    }

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
