//! The Plan as the templates show it: the same facts, formatted (sizes, counts, type names,
//! document trees) but never re-decided. Every template reads only [`Review`].

mod collection;
mod decision;

use serde::Serialize;

use crate::plan::{Plan, Settings, Severity, Warning};

use super::diagram;

pub use collection::{
    type_label, validator_rows, CollectionView, IndexView, PatternView, TreeRow, ValidatorRow,
};
pub use decision::{DecisionView, FanOutView, RejectedView, RuleView};

/// Everything a review template shows.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    /// The schema file's name.
    pub source: String,
    /// The Plan's format version.
    pub format_version: u32,
    /// Counts for the summary.
    pub counts: Counts,
    /// Thresholds in force.
    pub settings: Vec<SettingRow>,
    /// The diagram.
    pub diagram: DiagramView,
    /// Relationships, in declaration order.
    pub relationships: Vec<DecisionView>,
    /// Collections, in the Plan's order.
    pub collections: Vec<CollectionView>,
    /// Warnings, in source order.
    pub warnings: Vec<WarningView>,
    /// What changed since an earlier version of the schema (`review --base`), if asked.
    pub changes: Option<ChangesView>,
}

/// The "Changes since" section: a Plan diff in the words of [`crate::prose::diff`].
#[derive(Debug, Clone, Serialize)]
pub struct ChangesView {
    /// The earlier schema's name (`library.sqn@HEAD~1`).
    pub since: String,
    /// One line saying how much changed.
    pub summary: String,
    /// The changes, grouped.
    pub sections: Vec<crate::prose::diff::Section>,
}

impl ChangesView {
    /// The view of `diff`.
    pub fn new(diff: &crate::diff::PlanDiff) -> ChangesView {
        ChangesView {
            since: diff.old_source.clone(),
            summary: crate::prose::diff::summary(diff),
            sections: crate::prose::diff::sections(diff),
        }
    }
}

/// Summary counts.
#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    /// Collections.
    pub collections: usize,
    /// Relationships.
    pub relationships: usize,
    /// Warnings of error severity.
    pub errors: usize,
    /// Warnings of warning severity.
    pub warnings: usize,
    /// Notes.
    pub notes: usize,
    /// Indexes over all collections.
    pub indexes: usize,
}

/// One threshold.
#[derive(Debug, Clone, Serialize)]
pub struct SettingRow {
    /// The setting's name in `.sqn` files.
    pub name: &'static str,
    /// Its value, formatted.
    pub value: String,
    /// What it governs.
    pub meaning: &'static str,
}

/// The diagram, inline and as a file.
#[derive(Debug, Clone, Serialize)]
pub struct DiagramView {
    /// The SVG document (for inline use).
    pub svg: String,
    /// The side file's name (Markdown links it).
    pub file: String,
    /// The diagram's arrows as text lines (terminal output, and a text fallback).
    pub edges: Vec<String>,
}

/// A warning.
#[derive(Debug, Clone, Serialize)]
pub struct WarningView {
    /// Its number in the document (1-based; anchors `warn-N`).
    pub index: usize,
    /// `W103`.
    pub code: String,
    /// error, warning or note.
    pub severity: &'static str,
    /// `file.sqn:12:3`.
    pub position: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// The rule's title.
    pub rule: &'static str,
    /// The rule's source.
    pub rule_source: &'static str,
    /// The collection concerned.
    pub collection: Option<String>,
    /// The relationship concerned.
    pub relation: Option<String>,
}

impl Review {
    /// The review of `plan`, with its diagram already drawn (`svg`, written as `svg_file`).
    pub fn new(plan: &Plan, svg: &str, svg_file: &str) -> Review {
        let count = |s: Severity| plan.warnings.iter().filter(|w| w.severity == s).count();
        let warnings: Vec<WarningView> = plan
            .warnings
            .iter()
            .enumerate()
            .map(|(i, w)| warning(i + 1, w))
            .collect();
        Review {
            source: plan.source.clone(),
            format_version: plan.format_version,
            counts: Counts {
                collections: plan.collections.len(),
                relationships: plan.relationships.len(),
                errors: count(Severity::Error),
                warnings: count(Severity::Warning),
                notes: count(Severity::Info),
                indexes: plan.collections.iter().map(|c| c.indexes.len()).sum(),
            },
            settings: settings(&plan.settings),
            diagram: DiagramView {
                svg: svg.to_owned(),
                file: svg_file.to_owned(),
                edges: diagram::edges(plan)
                    .iter()
                    .map(diagram::Edge::describe)
                    .collect(),
            },
            relationships: plan
                .relationships
                .iter()
                .map(|d| decision::decision(d, &plan.collections, &warnings))
                .collect(),
            collections: plan
                .collections
                .iter()
                .map(|c| collection::collection(plan, c, &warnings))
                .collect(),
            warnings,
            changes: None,
        }
    }
}

/// The file name without folders and extension (`examples/blog.sqn` -> `blog`).
pub fn file_stem(source: &str) -> String {
    let name = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = name.split('.').next().unwrap_or(name);
    if stem.is_empty() {
        "schema".to_owned()
    } else {
        stem.to_owned()
    }
}

pub use crate::prose::{bytes, thousands};

pub(super) fn ratio(r: f64) -> String {
    if r.fract() == 0.0 && (0.0..1e15).contains(&r) {
        thousands(r as u64)
    } else {
        format!("{r}")
    }
}

fn settings(s: &Settings) -> Vec<SettingRow> {
    Settings::DESCRIPTIONS
        .iter()
        .map(|(name, _, meaning)| {
            let value = match *name {
                "embed_array_max" => thousands(s.embed_array_max),
                "id_array_max" => thousands(s.id_array_max),
                "denormalize_min_ratio" => {
                    format!("{} reads per update", ratio(s.denormalize_min_ratio))
                }
                "doc_warn_size" => bytes(s.doc_warn_size),
                "doc_max_size" => bytes(s.doc_max_size),
                "max_indexes" => thousands(s.max_indexes),
                "max_top_level_fields" => thousands(s.max_top_level_fields),
                "max_collections" => thousands(s.max_collections),
                "bucket_size" => thousands(s.bucket_size),
                _ => String::new(),
            };
            SettingRow {
                name,
                value,
                meaning,
            }
        })
        .collect()
}

/// `Product.parts` -> `rel-product-parts`.
pub(super) fn anchor(prefix: &str, id: &str) -> String {
    let mut out = String::from(prefix);
    out.push('-');
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

fn warning(index: usize, w: &Warning) -> WarningView {
    WarningView {
        index,
        code: w.code.clone(),
        severity: match w.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        },
        position: format!(
            "{}:{}:{}",
            w.position.file, w.position.line, w.position.column
        ),
        message: w.message.clone(),
        help: w.help.clone(),
        rule: w.rule.title,
        rule_source: w.rule.source,
        collection: w.collection.clone(),
        relation: w.relation.clone(),
    }
}
