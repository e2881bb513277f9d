//! Attribute names from other tools (ORMs, SQL, serde, JSON Schema) and what to write instead:
//! the squillion attribute they mean, or how the language says it when no attribute does.

use super::words::meaning;

/// Field attribute names people write, and the field attribute they mean (same arguments).
const FIELD_ALIASES: &[(&[&str], &str)] = &[
    (
        &[
            "case_insensitive",
            "caseinsensitive",
            "ci",
            "nocase",
            "collate",
            "collation",
            "icase",
        ],
        "ignore_case",
    ),
    (
        &[
            "primary",
            "primary_key",
            "primarykey",
            "pk",
            "id",
            "natural_key",
        ],
        "key",
    ),
    (&["indexed", "idx", "searchable", "lookup"], "index"),
    (&["uniq", "unique_index", "distinct"], "unique"),
    (
        &[
            "readonly",
            "read_only",
            "final",
            "const",
            "frozen",
            "immutable_after_insert",
        ],
        "immutable",
    ),
    (
        &[
            "secret", "private", "password", "hidden", "redact", "redacted", "pii",
        ],
        "sensitive",
    ),
    (
        &[
            "ttl",
            "expire",
            "expire_after",
            "expireafter",
            "expiry",
            "expires_after",
        ],
        "expires",
    ),
    (
        &[
            "rename", "column", "name", "alias", "serde", "bson", "db_name",
        ],
        "stored",
    ),
    (&["increment", "inc", "counted", "count"], "counter"),
    (
        &["attrs", "attribute", "eav", "kv", "key_value"],
        "attributes",
    ),
    (&["rare", "cold", "rarely_read", "seldom"], "seldom_read"),
    (&["blob", "big", "huge"], "large"),
];

/// Entity attribute names people write, and the entity attribute they mean.
const ENTITY_ALIASES: &[(&[&str], &str)] = &[
    (
        &["table", "collection_name", "coll", "name", "table_name"],
        "collection",
    ),
    (
        &["hierarchy", "materialized_path", "nested_set", "parent"],
        "tree",
    ),
    (
        &[
            "version", "versions", "history", "audit", "audited", "temporal",
        ],
        "versioned",
    ),
    (
        &[
            "inheritance",
            "discriminator",
            "union",
            "subtypes",
            "single_table",
        ],
        "polymorphic",
    ),
    (
        &[
            "readonly",
            "read_only",
            "immutable",
            "constant",
            "reference_data",
            "lookup",
        ],
        "static",
    ),
    (&["job", "jobs", "work_queue", "tasks"], "queue"),
];

/// Field attribute names with no single equivalent, and what to write instead.
const FIELD_HELP: &[(&[&str], &str)] = &[
    (
        &[
            "required",
            "not_null",
            "notnull",
            "nonnull",
            "non_null",
            "mandatory",
        ],
        "fields are required unless their type ends with `?`: remove it",
    ),
    (
        &["optional", "nullable", "null", "maybe"],
        "an optional field takes `?` after its type: `nickname: string?`",
    ),
    (
        &["default", "default_value", "defaults"],
        "a field has no default in the schema: the application gives every required field a value \
         when it creates the document (or make the field optional with `?`)",
    ),
    (
        &[
            "min", "max", "minimum", "maximum", "between", "bounds", "positive",
        ],
        "bound a number with `@range(min, max)`, both ends included: `@range(0, 100)`",
    ),
    (
        &[
            "length",
            "len",
            "max_length",
            "maxlength",
            "min_length",
            "max_len",
            "max_size",
        ],
        "strings take no length limit; `@size(200B)` states a string's average size, and an \
         array's bound is written in its type: `[string; 10]`",
    ),
    (
        &["pattern", "regex", "format", "email", "url", "validate"],
        "the schema does not check a string's format: the application validates it before writing",
    ),
    (
        &[
            "foreign_key",
            "fk",
            "ref",
            "references",
            "reference",
            "relation",
            "belongs_to",
            "has_many",
        ],
        "a reference to another entity is a `relation`: `relation Author.books: many <-> \
         Book.author: one`; remove the field, the engine decides where the reference is stored",
    ),
    (
        &[
            "auto_increment",
            "autoincrement",
            "serial",
            "identity",
            "generated",
            "uuid",
        ],
        "ids are made for you: an entity without `@key` gets an ObjectId `_id`",
    ),
];

/// The attribute `name` means on a field or an entity (`field` says which), if it is one of the
/// names other tools use for it.
pub(super) fn alias(name: &str, field: bool) -> Option<&'static str> {
    meaning(if field { FIELD_ALIASES } else { ENTITY_ALIASES }, name)
}

/// What to write instead of field attribute `name`, where no attribute means it.
pub(super) fn field_help(name: &str) -> Option<&'static str> {
    meaning(FIELD_HELP, name)
}
