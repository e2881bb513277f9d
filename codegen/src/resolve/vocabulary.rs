//! The words the resolver knows, for tools that offer them (the language server's completion, the
//! editor grammar's tests): the very tables the resolver checks a file against, so the lists stay
//! in step with what `squillion check` accepts.

use super::{attrs, children, facts, relations, types, units};
use crate::model::{BsonType, Layout, Settings};

/// Field attributes: the name (without `@`) and the form it is written in (`@large(20KB)`).
pub fn field_attributes() -> &'static [(&'static str, &'static str)] {
    &attrs::FIELD_ATTRS
}

/// Entity attributes: the name (without `@`) and the form it is written in.
pub fn entity_attributes() -> &'static [(&'static str, &'static str)] {
    &attrs::ENTITY_ATTRS
}

/// The BSON type names of field types.
pub fn bson_types() -> Vec<&'static str> {
    BsonType::ALL.iter().map(|t| t.sqn_name()).collect()
}

/// The named periods of `counters(...)`.
pub fn counter_periods() -> Vec<&'static str> {
    types::COUNTER_PERIODS
        .iter()
        .map(|(name, _)| *name)
        .collect()
}

/// Size units (`KB`), for `@large`, `@size` and size settings.
pub fn size_units() -> Vec<&'static str> {
    units::SIZE_UNITS.iter().map(|(u, _)| *u).collect()
}

/// Rate units (`/s`), for `@updates` and a query's `rate`.
pub fn rate_units() -> Vec<&'static str> {
    units::RATE_UNITS.iter().map(|(u, _)| *u).collect()
}

/// Duration units (`d`), for `@expires`.
pub fn duration_units() -> Vec<&'static str> {
    units::DURATION_UNITS.iter().map(|(u, _)| *u).collect()
}

/// Cardinality classes: `one`, `few`, `many`, `squillions`.
pub fn cardinalities() -> Vec<&'static str> {
    relations::CLASSES.iter().map(|c| c.as_str()).collect()
}

/// Named arguments of a cardinality: `many(20000, typical 50, embed 100)`.
pub fn cardinality_arguments() -> &'static [&'static str] {
    &["max", "typical", "embed"]
}

/// The kinds of `growth`.
pub fn growth_kinds() -> &'static [&'static str] {
    &facts::GROWTH
}

/// The layouts `force` takes.
pub fn layouts() -> Vec<&'static str> {
    Layout::ALL.iter().map(|l| l.as_str()).collect()
}

/// The functions of `summary`.
pub fn summary_functions() -> Vec<&'static str> {
    children::SUMMARY_FNS.iter().map(|f| f.as_str()).collect()
}

/// Settings: name and meaning.
pub fn settings() -> Vec<(&'static str, &'static str)> {
    Settings::DESCRIPTIONS
        .iter()
        .map(|(name, _, meaning)| (*name, *meaning))
        .collect()
}
