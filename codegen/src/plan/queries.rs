//! Declared queries, resolved against the layout: stored paths, conditions and the index that
//! serves them.

use serde::Serialize;

use super::IndexKey;

/// A declared query, resolved: the stored paths it filters and sorts on, and the index that
/// serves it. The Rust emitter writes one repository method per query from it.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct QueryPlan {
    /// The query's name.
    pub name: String,
    /// Its doc comment.
    pub docs: Vec<String>,
    /// The entity it returns.
    pub entity: String,
    /// The collection it runs on.
    pub collection: String,
    /// Its conditions, all of which must hold.
    pub conditions: Vec<QueryCondition>,
    /// Sort keys, in order.
    pub sort: Vec<IndexKey>,
    /// At most this many documents.
    pub limit: Option<u64>,
    /// Declared rate, per second.
    pub rate_per_second: Option<f64>,
    /// The index that serves it (its name), if one does.
    pub index: Option<String>,
    /// Set when a condition is on another entity's field that is not copied here: the
    /// application must query that entity first (rule 4); `Entity.field`.
    pub join: Option<String>,
    /// Conditions and sort keys (as written) on paths the chosen layout does not store in this
    /// collection, e.g. a reference a forced `embed` removed. Such a query has no method: run
    /// without them it would return the wrong documents (warning W119).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unstored: Vec<String>,
    /// The stored (BSON) names of the top-level fields the query returns (`returns`), in the
    /// order written; `_id` is always returned besides them. Empty: whole documents. The method
    /// returns a projection struct of these fields and sends the projection to the server.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<String>,
    /// Set for a query on a parent's children (`query q on Post.comments`): how one parent's
    /// children are found in `collection`. Its conditions' and sort keys' paths are then
    /// relative to each child when the children are elements of an array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<ChildrenPlan>,
}

/// How a query on a parent's children finds them.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct ChildrenPlan {
    /// The relationship's id.
    pub relation: String,
    /// The parent entity.
    pub parent: String,
    /// The name of the method's parent parameter: the children's relation end (`post`).
    pub parent_param: String,
    /// The BSON type of the parent's id.
    pub parent_id_type: String,
    /// The stored path, in the documents of the query's collection, of the parent's id: `_id`
    /// when the children are embedded in the parent, the children's reference (`post`), or the
    /// bucket's reference to its parent.
    pub parent_path: String,
    /// The stored path of the array that holds the children in each document (embedded in the
    /// parent, or in buckets); `None` when each child is a document of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
}

/// One condition of a query.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct QueryCondition {
    /// The stored (dotted) path it compares.
    pub path: String,
    /// The path as written in the schema (dotted field names), for parameter names.
    pub written: String,
    /// BSON type of the compared field.
    pub bson_type: String,
    /// The comparison.
    pub op: QueryOp,
    /// Compared case-insensitively (collation strength 2).
    pub ignore_case: bool,
    /// `has (k == ?, v <op> ?)`: `path` is an `@attributes` map stored as `[{k, v}]`; the
    /// condition is `{path: {$elemMatch: {k: <key>, v: <op> <value>}}}`, `op` compares `v` and
    /// `bson_type` is the type of `v`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub attribute: bool,
}

/// A query comparison.
#[derive(Debug, Clone, Copy, schemars::JsonSchema, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `starts_with`
    StartsWith,
    /// `between` (inclusive)
    Between,
    /// `in`
    In,
    /// `near`: points nearest first, within a distance (`$near`, served by a `2dsphere` key).
    Near,
    /// `within`: points inside a shape (`$geoWithin`, served by a `2dsphere` key).
    Within,
}
