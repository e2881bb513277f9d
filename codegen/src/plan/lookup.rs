//! The Plan's collections and decisions looked up by name, each index built once where a lookup
//! follows for every relationship or query (a scan per lookup would make those callers
//! quadratic in the size of the schema).

use std::collections::HashMap;

use super::{Collection, Decision};

/// Collections by name.
pub struct CollectionsByName<'a>(HashMap<&'a str, &'a Collection>);

impl<'a> CollectionsByName<'a> {
    /// Indexes `collections` by name.
    pub fn new(collections: &'a [Collection]) -> Self {
        CollectionsByName(collections.iter().map(|c| (c.name.as_str(), c)).collect())
    }

    /// The collection named `name`.
    pub fn get(&self, name: &str) -> Option<&'a Collection> {
        self.0.get(name).copied()
    }
}

/// Decisions by relationship id.
pub struct DecisionsById<'a>(HashMap<&'a str, &'a Decision>);

impl<'a> DecisionsById<'a> {
    /// Indexes `decisions` by their relationship's id.
    pub fn new(decisions: &'a [Decision]) -> Self {
        DecisionsById(decisions.iter().map(|d| (d.id.as_str(), d)).collect())
    }

    /// The decision about relationship `id`.
    pub fn get(&self, id: &str) -> Option<&'a Decision> {
        self.0.get(id).copied()
    }
}
