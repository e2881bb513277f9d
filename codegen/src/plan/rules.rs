//! The six rules of thumb (seed 004) and the design patterns (seeds 000-003), as citations.

use serde::Serialize;

/// A rule of thumb or a named design pattern.
#[derive(
    Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    /// Favor embedding unless there is a compelling reason not to.
    #[serde(rename = "rule_1")]
    Rule1,
    /// Needing to access an object on its own is a compelling reason not to embed it.
    #[serde(rename = "rule_2")]
    Rule2,
    /// Arrays should not grow without bound.
    #[serde(rename = "rule_3")]
    Rule3,
    /// Don't be afraid of application-level joins.
    #[serde(rename = "rule_4")]
    Rule4,
    /// Consider the read/write ratio when denormalizing.
    #[serde(rename = "rule_5")]
    Rule5,
    /// Model for the application's access patterns.
    #[serde(rename = "rule_6")]
    Rule6,
    /// Bucket pattern.
    Bucket,
    /// Computed pattern.
    Computed,
    /// Subset pattern.
    Subset,
    /// Outlier (overspill) pattern.
    Outlier,
    /// Extended reference (partially embedded document).
    ExtendedReference,
    /// Two-way referencing.
    TwoWayReferencing,
    /// One-way embedding of ids for unbalanced many-to-many.
    OneWayEmbedding,
    /// A collection of pairs (the relational join table).
    LinkCollection,
    /// Immutable natural key as `_id`.
    NaturalKey,
    /// Tree with an array of ancestors.
    Tree,
    /// Queue claimed with find-and-modify.
    Queue,
    /// Single-collection inheritance.
    Polymorphic,
    /// Attribute pattern.
    Attribute,
    /// Document versioning.
    DocumentVersioning,
    /// Schema versioning.
    SchemaVersioning,
    /// Preallocated counters in nested arrays.
    Histogram,
    /// Payload versus processing fields.
    Payload,
    /// MongoDB's document size limits.
    DocumentSize,
    /// Index advice (case-insensitive indexes, too many indexes, indexes on arrays).
    Indexing,
    /// Document shape advice (flat documents, long field names).
    DocumentShape,
}

/// A cited rule: its id, number (for rules of thumb), title, text and source.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct RuleCitation {
    /// Which rule.
    pub id: RuleId,
    /// 1-6 for the rules of thumb.
    pub number: Option<u8>,
    /// Short title.
    pub title: &'static str,
    /// The rule's text.
    pub text: &'static str,
    /// Where it comes from.
    pub source: &'static str,
}

/// The citation for `id`.
pub fn citation(id: RuleId) -> RuleCitation {
    let (number, title, text, source) = match id {
        RuleId::Rule1 => (
            Some(1),
            "Favor embedding",
            "Favor embedding unless there is a compelling reason not to.",
            "seed 004, rule of thumb 1",
        ),
        RuleId::Rule2 => (
            Some(2),
            "Standalone objects are not embedded",
            "Needing to access an object on its own is a compelling reason not to embed it.",
            "seed 004, rule of thumb 2",
        ),
        RuleId::Rule3 => (
            Some(3),
            "Arrays should not grow without bound",
            "More than a couple of hundred documents on the \"many\" side: don't embed them; more than a few thousand: don't use an array of ObjectId references either.",
            "seed 004, rule of thumb 3; seed 002 (keep arrays under about 200 elements)",
        ),
        RuleId::Rule4 => (
            Some(4),
            "Application-level joins are fine",
            "Don't be afraid of application-level joins: with the right index and a projection they are barely more expensive than server-side joins.",
            "seed 004, rule of thumb 4",
        ),
        RuleId::Rule5 => (
            Some(5),
            "Denormalize by read/write ratio",
            "A field mostly read and seldom updated is a good candidate for denormalization; a field updated often is not. A denormalized field can no longer be updated atomically in one place.",
            "seed 004, rule of thumb 5",
        ),
        RuleId::Rule6 => (
            Some(6),
            "Model for the access patterns",
            "Structure the data to match the ways the application queries and updates it.",
            "seed 004, rule of thumb 6",
        ),
        RuleId::Bucket => (
            None,
            "Bucket pattern",
            "Store many small related items in bounded bucket documents; append with an upsert guarded by `count < N`.",
            "seed 002 (IoT readings), seed 003 (comment pages), seed 000 (bookNotes)",
        ),
        RuleId::Computed => (
            None,
            "Computed pattern",
            "Never recompute what you can precompute: maintain summaries and top-N lists on write.",
            "seed 002 (bucket totals, best times)",
        ),
        RuleId::Subset => (
            None,
            "Subset pattern",
            "Keep the most used part of linked data embedded in the parent; the rest stays in its own collection.",
            "seed 002 (invoices), seed 004 (latest 1000 log messages)",
        ),
        RuleId::Outlier => (
            None,
            "Outlier pattern",
            "Embed the usual case; rare parents with many children overflow into extra documents, flagged in the parent.",
            "seed 002 (movie cast)",
        ),
        RuleId::ExtendedReference => (
            None,
            "Extended reference",
            "Store the referenced id together with the few fields shown with it, so reads need no join.",
            "seed 000 (author name cached on books), seed 004 (part names on products)",
        ),
        RuleId::TwoWayReferencing => (
            None,
            "Two-way referencing",
            "Both sides hold references, so each direction is one indexed lookup; no single atomic update can move a child between parents.",
            "seed 004 (person and tasks), seed 003 (two-way embedding)",
        ),
        RuleId::OneWayEmbedding => (
            None,
            "One-way embedding",
            "In an unbalanced many-to-many, store the id array on the side with the small bound only.",
            "seed 003 (3 categories per book, 500,000 books per category), seed 002 (follows)",
        ),
        RuleId::LinkCollection => (
            None,
            "Link collection",
            "One document per pair, indexed from both ends: the relational join table, the last resort when neither side can hold an id array or the link carries fields.",
            "the relational join table: the last resort of every source (docs/language.md, fields)",
        ),
        RuleId::NaturalKey => (
            None,
            "Immutable natural key",
            "An immutable natural key becomes `_id`, and references store it directly.",
            "seed 000 (username)",
        ),
        RuleId::Tree => (
            None,
            "Tree with ancestors",
            "Each node stores its parent and the array of its ancestors, both indexed: children, descendants and ancestors are single queries.",
            "seed 000, seed 001 (trees)",
        ),
        RuleId::Queue => (
            None,
            "Queue",
            "Claim the next job with one find-and-modify on the in-progress flag sorted by priority, so each job is started once and only once.",
            "seed 001 (queues)",
        ),
        RuleId::Polymorphic => (
            None,
            "Single-collection inheritance",
            "Variants share one collection with a type discriminator; fields of one variant get sparse indexes.",
            "seed 001 (shapes)",
        ),
        RuleId::Attribute => (
            None,
            "Attribute pattern",
            "Open-ended attributes are stored as an array of {k, v} with one index on k and v.",
            "seed 002 (product attributes)",
        ),
        RuleId::DocumentVersioning => (
            None,
            "Document versioning",
            "Keep every version; one is current (valid_from/valid_to, or a current collection plus history).",
            "seed 002 (versioning pattern)",
        ),
        RuleId::SchemaVersioning => (
            None,
            "Schema versioning",
            "A version field on every document; readers accept older versions and convert on modification.",
            "seed 002 (evolutionary dynamic schema)",
        ),
        RuleId::Histogram => (
            None,
            "Preallocated counters",
            "Preallocate counters as nested arrays (24 x 60), not one flat array of 1,440: updates reach their element in about 42 steps instead of 720.",
            "seed 002 (histogram exercise)",
        ),
        RuleId::Payload => (
            None,
            "Payload and processing fields",
            "Payload is stored and returned, never queried: store it opaquely and index only processing fields.",
            "seed 002 (payload vs processing)",
        ),
        RuleId::DocumentSize => (
            None,
            "Document size",
            "A document cannot exceed 16 MB; MongoDB's advisor warns from 2 MB.",
            "seed 003; MongoDB's 16 MB document limit and its schema advisor's 2 MB warning",
        ),
        RuleId::Indexing => (
            None,
            "Indexes",
            "Case-insensitive queries need a case-insensitive (collation strength 2) index; avoid unnecessary indexes, especially on large arrays, and more than about 30 per collection.",
            "seed 002 (anti-patterns); MongoDB's schema advisor (about 30 indexes per collection)",
        ),
        RuleId::DocumentShape => (
            None,
            "Document shape",
            "Avoid very flat documents (group fields into subdocuments), long field names repeated in every document, and large seldom-read data beside hot data.",
            "seed 002 (anti-patterns)",
        ),
    };
    RuleCitation {
        id,
        number,
        title,
        text,
        source,
    }
}
