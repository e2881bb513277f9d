//! Stable codes of plan warnings, and their one-line titles.

/// An embedded array can exceed `embed_array_max`, or has no bound.
pub const LARGE_EMBEDDED_ARRAY: &str = "W101";
/// An array of ids can exceed `id_array_max`.
pub const LARGE_ID_ARRAY: &str = "W102";
/// A document's worst case exceeds `doc_warn_size`.
pub const LARGE_DOCUMENT: &str = "W103";
/// A document's worst case exceeds `doc_max_size` (16 MB).
pub const DOCUMENT_TOO_LARGE: &str = "W104";
/// More indexes than `max_indexes` on a collection.
pub const TOO_MANY_INDEXES: &str = "W105";
/// More top-level fields than `max_top_level_fields`.
pub const FLAT_DOCUMENT: &str = "W106";
/// A case-insensitive query: the Plan adds a collation index.
pub const CASE_INSENSITIVE_QUERY: &str = "W107";
/// An index on an array that can be large.
pub const INDEX_ON_LARGE_ARRAY: &str = "W108";
/// Large, seldom-read data in a document read often.
pub const LARGE_SELDOM_READ: &str = "W109";
/// A forced layout breaks a rule.
pub const FORCED_LAYOUT: &str = "W110";
/// Flat counters restructured as nested arrays.
pub const FLAT_COUNTERS: &str = "W112";
/// A long field name repeated in every document.
pub const LONG_FIELD_NAME: &str = "W113";
/// More collections than `max_collections`.
pub const TOO_MANY_COLLECTIONS: &str = "W114";
/// A query filters on another entity's field without a copy: it joins in the application.
pub const QUERY_NEEDS_JOIN: &str = "W115";
/// A shown field is not copied (ratio missing or too low).
pub const COPY_DECLINED: &str = "W116";
/// An entity is embedded and also stored in a collection of its own.
pub const EMBEDDED_AND_STORED: &str = "W117";
/// Entities embedded inside each other deeper than MongoDB's nesting limit allows.
pub const EMBEDDING_TOO_DEEP: &str = "W118";
/// A query on a path the chosen layout does not store in the query's collection.
pub const QUERY_NOT_STORED: &str = "W119";
/// An entity whose documents expire (`@expires`) is forced inside other documents.
pub const EXPIRING_EMBEDDED: &str = "W120";
/// Forced embeddings form a cycle: no entity of it would have a collection.
pub const FORCED_EMBEDDING_CYCLE: &str = "W121";
/// A field updated often in a large document read often.
pub const HOT_FIELD: &str = "W122";
/// A query returns a field the chosen layout does not store in the query's collection.
pub const RETURNS_NOT_STORED: &str = "W123";
/// A query on a parent's children returns some fields, but the layout keeps the children in
/// an array, whose elements the query returns whole.
pub const RETURNS_ARRAY_CHILDREN: &str = "W124";
/// A parent keeps copies or summaries of children whose documents expire (`@expires`).
pub const EXPIRING_KEPT: &str = "W125";
/// A `@counter` field of an entity (or of a relationship's own fields) kept as array elements:
/// the repository has no increment or guarded decrement for one element.
pub const COUNTER_IN_ARRAY: &str = "W126";
/// `summary ... per bucket` on children the layout does not bucket: the parent keeps them.
pub const SUMMARY_NOT_BUCKETED: &str = "W127";
/// A value type no field of an entity, variant or relationship uses, directly or through other
/// value types: nothing is stored in its shape.
pub const UNUSED_VALUE: &str = "W128";
/// Summaries of a many-to-many relationship that the generated repository does not keep: only
/// the `count` of an array of ids (`one_way`, `parent_refs`) is recomputed by its writes.
pub const SUMMARY_NOT_KEPT: &str = "W129";
/// `keep id` in a `latest`/`top` list of children that are elements without an `_id` (bucketed,
/// or embedded in another entity): the copies cannot hold it.
pub const KEPT_ID_DROPPED: &str = "W130";
/// A parent keeps lists (`latest`, `top`) or summaries of children that another relationship
/// stores as elements of its own documents (embedded or bucketed): no generated write keeps them.
pub const KEPT_ELSEWHERE: &str = "W131";
/// `page N` on children of which a parent has at most N: one page holds them all, so the page
/// does not bucket them.
pub const WHOLE_PAGE: &str = "W135";

/// Every plan warning code with a one-line summary.
pub const ALL: &[(&str, &str)] = &[
    (
        LARGE_EMBEDDED_ARRAY,
        "embedded array can exceed its threshold or has no bound",
    ),
    (LARGE_ID_ARRAY, "array of ids can exceed its threshold"),
    (
        LARGE_DOCUMENT,
        "worst-case document size over the warning size (2 MB)",
    ),
    (
        DOCUMENT_TOO_LARGE,
        "worst-case document size over MongoDB's 16 MB limit",
    ),
    (TOO_MANY_INDEXES, "too many indexes on a collection"),
    (FLAT_DOCUMENT, "too many top-level fields"),
    (
        CASE_INSENSITIVE_QUERY,
        "case-insensitive query: collation index added",
    ),
    (INDEX_ON_LARGE_ARRAY, "index on a large array"),
    (LARGE_SELDOM_READ, "large, seldom-read data beside hot data"),
    (FORCED_LAYOUT, "forced layout breaks a rule"),
    (FLAT_COUNTERS, "flat counters stored as nested arrays"),
    (
        LONG_FIELD_NAME,
        "long field name repeated in every document",
    ),
    (TOO_MANY_COLLECTIONS, "too many collections"),
    (
        QUERY_NEEDS_JOIN,
        "query on another entity's field joins in the application",
    ),
    (COPY_DECLINED, "shown field not copied"),
    (EMBEDDED_AND_STORED, "entity embedded and stored on its own"),
    (
        EMBEDDING_TOO_DEEP,
        "embedding chain deeper than MongoDB's nesting limit",
    ),
    (
        QUERY_NOT_STORED,
        "query on a path the layout does not store: no method",
    ),
    (
        EXPIRING_EMBEDDED,
        "an entity whose documents expire is forced inside other documents",
    ),
    (
        FORCED_EMBEDDING_CYCLE,
        "forced embeddings form a cycle: its entities have no collection",
    ),
    (
        HOT_FIELD,
        "field updated often in a large document read often",
    ),
    (
        RETURNS_NOT_STORED,
        "query returns a field its collection does not store",
    ),
    (
        RETURNS_ARRAY_CHILDREN,
        "`returns` on children the layout keeps in an array",
    ),
    (
        EXPIRING_KEPT,
        "a parent keeps copies or summaries of children that expire",
    ),
    (
        COUNTER_IN_ARRAY,
        "a `@counter` kept in array elements: no guarded decrement",
    ),
    (
        SUMMARY_NOT_BUCKETED,
        "summaries `per bucket` of children that are not bucketed",
    ),
    (
        SUMMARY_NOT_KEPT,
        "summaries of a many-to-many that no generated write keeps",
    ),
    (UNUSED_VALUE, "a value type no stored field uses"),
    (
        KEPT_ID_DROPPED,
        "`keep id` in a list of children that have no `_id`",
    ),
    (
        KEPT_ELSEWHERE,
        "a parent keeps lists or summaries of children stored inside another entity's documents",
    ),
    (
        WHOLE_PAGE,
        "a page that holds every child: no buckets for it",
    ),
];
