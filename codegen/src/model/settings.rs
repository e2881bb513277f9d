//! Thresholds the engine uses, with the defaults of DOMAIN.md.

use serde::Serialize;

/// Thresholds in force for one schema.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Settings {
    /// Largest embedded array before rule 3 says "don't embed" (default 200; also the default
    /// bound of `few`).
    pub embed_array_max: u64,
    /// Largest array of ids before rule 3 says "don't reference from an array" (default 5,000;
    /// also the default bound of `many`).
    pub id_array_max: u64,
    /// Reads per update from which a shown field is denormalized (rule 5, default 10).
    pub denormalize_min_ratio: f64,
    /// Worst-case document size that draws a warning (default 2 MB).
    pub doc_warn_size: u64,
    /// Worst-case document size that is an error (default 16 MB, MongoDB's limit).
    pub doc_max_size: u64,
    /// Indexes per collection before a warning (default 30).
    pub max_indexes: u64,
    /// Top-level fields before a warning (default 100).
    pub max_top_level_fields: u64,
    /// Collections per database before a warning (default 100).
    pub max_collections: u64,
    /// Bucket size when no page size is given (default 200).
    pub bucket_size: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            embed_array_max: 200,
            id_array_max: 5_000,
            denormalize_min_ratio: 10.0,
            doc_warn_size: 2 * 1024 * 1024,
            doc_max_size: 16 * 1024 * 1024,
            max_indexes: 30,
            max_top_level_fields: 100,
            max_collections: 100,
            bucket_size: 200,
        }
    }
}

/// The kind of value a setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    /// A whole number of elements or indexes.
    Count,
    /// A ratio (reads per update).
    Ratio,
    /// A size in bytes (`2MB`).
    Size,
}

impl Settings {
    /// Every setting's name, kind and one-line meaning.
    pub const DESCRIPTIONS: &'static [(&'static str, SettingKind, &'static str)] = &[
        (
            "embed_array_max",
            SettingKind::Count,
            "largest embedded array (rule 3), default bound of `few`",
        ),
        (
            "id_array_max",
            SettingKind::Count,
            "largest array of ids (rule 3), default bound of `many`",
        ),
        (
            "denormalize_min_ratio",
            SettingKind::Ratio,
            "reads per update from which shown fields are copied (rule 5)",
        ),
        (
            "doc_warn_size",
            SettingKind::Size,
            "worst-case document size that draws a warning",
        ),
        (
            "doc_max_size",
            SettingKind::Size,
            "worst-case document size that is an error",
        ),
        (
            "max_indexes",
            SettingKind::Count,
            "indexes per collection before a warning",
        ),
        (
            "max_top_level_fields",
            SettingKind::Count,
            "top-level fields before a warning",
        ),
        (
            "max_collections",
            SettingKind::Count,
            "collections per database before a warning",
        ),
        (
            "bucket_size",
            SettingKind::Count,
            "children per bucket when no page size is given",
        ),
    ];

    /// Sets the setting `name` to `value` (already converted to its unit). Returns `false` for an
    /// unknown name.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        // Values arrive validated as finite and positive; whole-number settings are truncated.
        let whole = value as u64;
        match name {
            "embed_array_max" => self.embed_array_max = whole,
            "id_array_max" => self.id_array_max = whole,
            "denormalize_min_ratio" => self.denormalize_min_ratio = value,
            "doc_warn_size" => self.doc_warn_size = whole,
            "doc_max_size" => self.doc_max_size = whole,
            "max_indexes" => self.max_indexes = whole,
            "max_top_level_fields" => self.max_top_level_fields = whole,
            "max_collections" => self.max_collections = whole,
            "bucket_size" => self.bucket_size = whole,
            _ => return false,
        }
        true
    }
}
