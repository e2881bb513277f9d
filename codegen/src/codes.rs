//! Stable codes of the semantic diagnostics (documented in `docs/diagnostics.md`).
//!
//! The syntax codes (`E01xx`) live in [`squillion_grammar::codes`]; the engine's plan warnings
//! (`W1xx`) in [`crate::engine::codes`]. The codes here are reported by [`crate::resolve()`]:
//!
//! - `E02xx`: names and declarations,
//! - `E03xx`: fields, types, attributes, numbers and units,
//! - `E04xx`: relations and their facts,
//! - `E05xx`: queries,
//! - `E06xx`: settings,
//! - `W0xxx`: warnings (the file is usable), numbered after the error group they belong to.
//!
//! A code's meaning never changes; a retired code is not reused.

// ---------------------------------------------------------------------------------------------
// Names and declarations

/// Two entities or value types with the same name.
pub const DUPLICATE_NAME: &str = "E0201";
/// Two entities stored in the same collection.
pub const DUPLICATE_COLLECTION: &str = "E0202";
/// Two queries with the same name.
pub const DUPLICATE_QUERY: &str = "E0203";
/// A relation or query names an entity that is not declared.
pub const UNKNOWN_ENTITY: &str = "E0204";
/// A relation or query names a value type where an entity is needed.
pub const NOT_AN_ENTITY: &str = "E0205";
/// `@collection("...")` names a collection MongoDB does not allow.
pub const INVALID_COLLECTION_NAME: &str = "E0206";
/// An entity or value type is named like a BSON type.
pub const RESERVED_TYPE_NAME: &str = "E0207";
/// Two declarations that are one type in the generated Rust (`UserAccount`, `user_account`;
/// `BookRepo` beside `Book`).
pub const RUST_TYPE_CLASH: &str = "E0208";

// ---------------------------------------------------------------------------------------------
// Fields, types, attributes, numbers and units

/// A field's type is neither a BSON type nor a declared value type.
pub const UNKNOWN_TYPE: &str = "E0301";
/// A field's type is an entity.
pub const ENTITY_AS_FIELD_TYPE: &str = "E0302";
/// `counters(...)` with an unknown period or an empty dimension.
pub const INVALID_COUNTERS: &str = "E0303";
/// A value type contains itself.
pub const VALUE_TYPE_CYCLE: &str = "E0304";
/// Two fields with the same name in one entity, value type, variant or relation.
pub const DUPLICATE_FIELD: &str = "E0305";
/// Two fields stored under the same BSON name.
pub const DUPLICATE_BSON_NAME: &str = "E0306";
/// A BSON field name MongoDB does not allow (`$` first, `.`, NUL, empty).
pub const FORBIDDEN_FIELD_NAME: &str = "E0307";
/// `_id` declared twice: two `@key`s, or a field stored as `_id` beside the identity.
pub const DUPLICATE_ID: &str = "E0308";
/// A `@key` that cannot be a natural key (optional, mutable, not a scalar, misplaced).
pub const INVALID_KEY: &str = "E0309";
/// An attribute that does not exist, or not on this kind of declaration.
pub const UNKNOWN_ATTRIBUTE: &str = "E0310";
/// An attribute with the wrong number or kind of arguments.
pub const ATTRIBUTE_ARGUMENTS: &str = "E0311";
/// A unit that does not exist, or not here.
pub const UNKNOWN_UNIT: &str = "E0312";
/// A quantity that needs a unit has none.
pub const MISSING_UNIT: &str = "E0313";
/// A number that must be positive, or whole, is not.
pub const INVALID_NUMBER: &str = "E0314";
/// Two attributes of one field that contradict each other.
pub const CONTRADICTORY_ATTRIBUTES: &str = "E0315";
/// An attribute that does not fit the field's type.
pub const ATTRIBUTE_TYPE_MISMATCH: &str = "E0316";
/// Variants without `@polymorphic`, `@polymorphic` without variants, or a variant declared twice.
pub const INVALID_VARIANTS: &str = "E0317";
/// `@queue(priority: f)` where `f` is not a numeric field of the entity.
pub const INVALID_QUEUE_PRIORITY: &str = "E0318";
/// A field clashes with one an entity pattern adds (`parent`, `version`, the discriminator...).
pub const PATTERN_FIELD_CLASH: &str = "E0319";
/// Value types nested deeper than [`crate::model::MAX_VALUE_NESTING`] in a document.
pub const VALUE_NESTING_TOO_DEEP: &str = "E0320";
/// A document with more than [`crate::model::MAX_DOCUMENT_FIELDS`] fields once value types are
/// expanded.
pub const DOCUMENT_TOO_WIDE: &str = "E0321";
/// Two fields of one generated struct with one Rust name (`id` beside the `_id` field).
pub const RUST_FIELD_CLASH: &str = "E0322";
/// Two layouts writing repository methods of one name.
pub const RUST_METHOD_CLASH: &str = "E0323";
/// `one_of(...)` with no values, a value that is not a string, a value listed twice, or two values
/// that would be one Rust enum variant.
pub const INVALID_ENUM: &str = "E0324";
/// `@range(min, max)` whose bounds do not fit the field's type, start above their end, or take a
/// counter below its floor 0.
pub const INVALID_RANGE: &str = "E0325";

// ---------------------------------------------------------------------------------------------
// Relations

/// A relation end's name clashes with a field or another relation end of its entity.
pub const RELATION_END_CLASH: &str = "E0401";
/// The same relationship declared twice.
pub const DUPLICATE_RELATION: &str = "E0402";
/// A cardinality class other than `one`, `few`, `many`, `squillions`.
pub const UNKNOWN_CARDINALITY: &str = "E0403";
/// Cardinality arguments that make no sense together.
pub const INVALID_CARDINALITY: &str = "E0404";
/// A bound that contradicts its cardinality class.
pub const BOUND_CONTRADICTS_CLASS: &str = "E0405";
/// A fact names an entity that is not at the right end of the relation.
pub const NOT_A_RELATION_ENTITY: &str = "E0406";
/// A fact names a field its entity does not have.
pub const UNKNOWN_FACT_FIELD: &str = "E0407";
/// A `growth` kind other than `append_heavy`, `unbounded`.
pub const UNKNOWN_GROWTH: &str = "E0408";
/// `atomic_move` on a many-to-many relation.
pub const ATOMIC_MOVE_MANY_TO_MANY: &str = "E0409";
/// `page`, `latest`, `top` or `summary` on a one-to-one relation.
pub const NEEDS_MANY_SIDE: &str = "E0410";
/// A summary with an unknown function, or a function used with the wrong argument.
pub const INVALID_SUMMARY: &str = "E0411";
/// A fact's field has a type the fact cannot use.
pub const FACT_FIELD_TYPE: &str = "E0412";
/// `force` with an unknown layout.
pub const UNKNOWN_LAYOUT: &str = "E0413";
/// `force layout(N)` with a size on a layout that takes none.
pub const FORCE_ARGUMENT: &str = "E0414";
/// A relation fact stated twice.
pub const REPEATED_FACT: &str = "E0415";
/// `growth unbounded` on a relation whose ends are bounded.
pub const GROWTH_CONTRADICTS_BOUND: &str = "E0416";
/// `growth static` with `append_heavy` or `unbounded`.
pub const GROWTH_CONTRADICTS_STATIC: &str = "E0417";
/// `force embed` or `force bucket` of children whose end is `one?` (they may have no parent).
pub const FORCED_EMBED_OF_OPTIONAL_END: &str = "E0418";
/// A `time_range` window larger than the relation's declared bound.
pub const WINDOW_EXCEEDS_BOUND: &str = "E0419";

// ---------------------------------------------------------------------------------------------
// Queries

/// A query path names a field that does not exist.
pub const UNKNOWN_QUERY_FIELD: &str = "E0501";
/// A comparison that does not fit the field's type.
pub const OPERATOR_TYPE_MISMATCH: &str = "E0502";
/// A query path continues past a scalar, a map or counters.
pub const PATH_INTO_SCALAR: &str = "E0503";
/// A query clause written twice.
pub const REPEATED_CLAUSE: &str = "E0504";
/// A query filters or sorts on a `@payload` field (which is never indexed).
pub const QUERY_ON_PAYLOAD: &str = "E0505";
/// A query named like another method of its repository (`find`, `new`, a layout's method).
pub const QUERY_METHOD_CLASH: &str = "E0506";
/// More than one `near`/`within` condition in one query.
pub const SECOND_GEO_CONDITION: &str = "E0507";
/// `query q on Parent.end`: `end` is not a relation end of `Parent`.
pub const UNKNOWN_CHILDREN_END: &str = "E0508";
/// `query q on Parent.end`: `end` does not reach children (a `one` end, or a many-to-many).
pub const NOT_A_CHILDREN_END: &str = "E0509";
/// A query on a parent's children compares a field through a relation end of the children.
pub const CHILDREN_QUERY_THROUGH_RELATION: &str = "E0510";
/// A field named twice in a query's `returns`.
pub const DUPLICATE_RETURNED_FIELD: &str = "E0511";
/// `has (k == ?, v == ?)` on something that is not a `map<T> @attributes` field of the entity.
pub const NOT_AN_ATTRIBUTES_MAP: &str = "E0512";
/// `has (k <op> ?, ...)` with a key compared by something other than `==`.
pub const ATTRIBUTE_KEY_COMPARISON: &str = "E0513";

// ---------------------------------------------------------------------------------------------
// Settings

/// A setting that does not exist.
pub const UNKNOWN_SETTING: &str = "E0601";
/// Two `settings` blocks, or a setting set twice.
pub const DUPLICATE_SETTING: &str = "E0602";
/// A setting given the wrong kind of value.
pub const INVALID_SETTING_VALUE: &str = "E0603";
/// Settings that contradict each other.
pub const CONTRADICTORY_SETTINGS: &str = "E0604";

// ---------------------------------------------------------------------------------------------
// Warnings

/// The same attribute written twice.
pub const DUPLICATE_ATTRIBUTE: &str = "W0301";
/// An attribute another one already implies.
pub const REDUNDANT_ATTRIBUTE: &str = "W0302";
/// A query sorted by an enumeration whose listed order is not alphabetical.
pub const SORT_BY_ENUMERATION: &str = "W0501";
/// `many(N)` with a bound small enough to be `few`.
pub const MANY_WITH_SMALL_BOUND: &str = "W0401";
/// A one-to-many relation whose ends' names say the opposite of their cardinalities
/// (`Ticket.comments: one <-> Comment.ticket: squillions`).
pub const SWAPPED_CARDINALITIES: &str = "W0402";

/// Every semantic code with a one-line summary.
pub const ALL: &[(&str, &str)] = &[
    (DUPLICATE_NAME, "entity or value type declared twice"),
    (DUPLICATE_COLLECTION, "two entities in one collection"),
    (DUPLICATE_QUERY, "query declared twice"),
    (UNKNOWN_ENTITY, "unknown entity"),
    (NOT_AN_ENTITY, "a value type where an entity is needed"),
    (
        INVALID_COLLECTION_NAME,
        "collection name MongoDB does not allow",
    ),
    (
        RESERVED_TYPE_NAME,
        "entity or value type named like a BSON type",
    ),
    (RUST_TYPE_CLASH, "two declarations with one Rust type name"),
    (UNKNOWN_TYPE, "unknown field type"),
    (ENTITY_AS_FIELD_TYPE, "an entity used as a field type"),
    (INVALID_COUNTERS, "invalid counters shape"),
    (VALUE_TYPE_CYCLE, "value type contains itself"),
    (DUPLICATE_FIELD, "field declared twice"),
    (DUPLICATE_BSON_NAME, "two fields stored under one name"),
    (FORBIDDEN_FIELD_NAME, "field name MongoDB does not allow"),
    (DUPLICATE_ID, "`_id` declared twice"),
    (INVALID_KEY, "field cannot be the natural key"),
    (UNKNOWN_ATTRIBUTE, "unknown attribute"),
    (ATTRIBUTE_ARGUMENTS, "wrong attribute arguments"),
    (UNKNOWN_UNIT, "unknown unit"),
    (MISSING_UNIT, "missing unit"),
    (
        INVALID_NUMBER,
        "number out of range (zero, fraction or too large)",
    ),
    (CONTRADICTORY_ATTRIBUTES, "contradictory field attributes"),
    (
        ATTRIBUTE_TYPE_MISMATCH,
        "attribute does not fit the field's type",
    ),
    (INVALID_VARIANTS, "variants and `@polymorphic` do not match"),
    (
        INVALID_QUEUE_PRIORITY,
        "queue priority is not a numeric field",
    ),
    (
        PATTERN_FIELD_CLASH,
        "field clashes with a field an entity pattern adds",
    ),
    (VALUE_NESTING_TOO_DEEP, "value types nested too deeply"),
    (
        DOCUMENT_TOO_WIDE,
        "too many fields once value types are expanded",
    ),
    (RUST_FIELD_CLASH, "two fields with one Rust name"),
    (RUST_METHOD_CLASH, "two layouts write one repository method"),
    (
        INVALID_ENUM,
        "`one_of(...)` empty, with a non-string, repeated or clashing value",
    ),
    (
        INVALID_RANGE,
        "`@range` bounds outside the type, reversed, or below a counter's 0",
    ),
    (RELATION_END_CLASH, "relation end name already in use"),
    (DUPLICATE_RELATION, "relationship declared twice"),
    (UNKNOWN_CARDINALITY, "unknown cardinality class"),
    (INVALID_CARDINALITY, "invalid cardinality arguments"),
    (
        BOUND_CONTRADICTS_CLASS,
        "bound contradicts its cardinality class",
    ),
    (
        NOT_A_RELATION_ENTITY,
        "fact names an entity not in the relation",
    ),
    (UNKNOWN_FACT_FIELD, "fact names an unknown field"),
    (UNKNOWN_GROWTH, "unknown growth kind"),
    (
        ATOMIC_MOVE_MANY_TO_MANY,
        "`atomic_move` on a many-to-many relation",
    ),
    (NEEDS_MANY_SIDE, "fact needs a side with many children"),
    (INVALID_SUMMARY, "invalid summary"),
    (FACT_FIELD_TYPE, "fact field has the wrong type"),
    (UNKNOWN_LAYOUT, "unknown layout"),
    (FORCE_ARGUMENT, "layout takes no size"),
    (REPEATED_FACT, "relation fact stated twice"),
    (
        GROWTH_CONTRADICTS_BOUND,
        "`growth unbounded` on a bounded relation",
    ),
    (
        GROWTH_CONTRADICTS_STATIC,
        "`growth static` with children that keep arriving",
    ),
    (
        FORCED_EMBED_OF_OPTIONAL_END,
        "children that may have no parent forced into it",
    ),
    (
        WINDOW_EXCEEDS_BOUND,
        "`time_range` window larger than the relation's bound",
    ),
    (UNKNOWN_QUERY_FIELD, "unknown field in a query"),
    (
        OPERATOR_TYPE_MISMATCH,
        "comparison does not fit the field's type",
    ),
    (PATH_INTO_SCALAR, "query path continues past a scalar"),
    (REPEATED_CLAUSE, "query clause written twice"),
    (QUERY_ON_PAYLOAD, "query on a `@payload` field"),
    (QUERY_METHOD_CLASH, "query named like a repository method"),
    (
        SECOND_GEO_CONDITION,
        "more than one `near`/`within` in a query",
    ),
    (
        UNKNOWN_CHILDREN_END,
        "query on children through an unknown relation end",
    ),
    (
        NOT_A_CHILDREN_END,
        "query on children through an end that has no children",
    ),
    (
        CHILDREN_QUERY_THROUGH_RELATION,
        "query on children through another relation",
    ),
    (DUPLICATE_RETURNED_FIELD, "field returned twice by a query"),
    (
        NOT_AN_ATTRIBUTES_MAP,
        "`has` on a field that is not an `@attributes` map",
    ),
    (
        ATTRIBUTE_KEY_COMPARISON,
        "attribute key compared with something other than `==`",
    ),
    (UNKNOWN_SETTING, "unknown setting"),
    (DUPLICATE_SETTING, "setting given twice"),
    (INVALID_SETTING_VALUE, "wrong kind of setting value"),
    (CONTRADICTORY_SETTINGS, "contradictory settings"),
    (DUPLICATE_ATTRIBUTE, "attribute written twice"),
    (REDUNDANT_ATTRIBUTE, "attribute already implied"),
    (MANY_WITH_SMALL_BOUND, "`many` with a bound of `few`"),
    (
        SWAPPED_CARDINALITIES,
        "the ends' cardinalities look swapped",
    ),
    (SORT_BY_ENUMERATION, "sorted by an enumeration's text"),
];

#[cfg(test)]
mod tests {
    use super::ALL;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for (code, summary) in ALL {
            assert!(seen.insert(*code), "{code} listed twice");
            assert!(
                code.len() == 5 && (code.starts_with("E0") || code.starts_with("W0")),
                "{code}"
            );
            assert!(!summary.is_empty());
        }
    }
}
