//! Collections as the review shows them: document tree, sample, sizes, indexes, validator.

use serde::Serialize;

use crate::plan::{Collection, ContainerKind, FieldKind, Index, Plan, PlanField, SizeEstimate};

use super::super::sample;
use super::decision::{rule, RuleView};
use super::{anchor, bytes, thousands, WarningView};

/// One collection.
#[derive(Debug, Clone, Serialize)]
pub struct CollectionView {
    /// Its name.
    pub name: String,
    /// HTML/Markdown anchor.
    pub anchor: String,
    /// Its entity.
    pub entity: String,
    /// Why it exists, as a phrase.
    pub role: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// How `_id` is made.
    pub id: String,
    /// The document shape, one row per field.
    pub tree: Vec<TreeRow>,
    /// Width of the widest `prefix + name` in `tree`.
    pub tree_width: usize,
    /// Width of the widest type in `tree`.
    pub type_width: usize,
    /// A sample document in MongoDB shell syntax.
    pub sample: String,
    /// Average size, formatted.
    pub size_average: String,
    /// Worst-case size, formatted (`unbounded` when unbounded).
    pub size_worst: String,
    /// The worst case as a share of MongoDB's 16 MB limit (`0.1% of 16 MB`).
    pub size_share: String,
    /// Indexes.
    pub indexes: Vec<IndexView>,
    /// The validator, one row per constrained path.
    pub validator: Vec<ValidatorRow>,
    /// Width of the widest validator path.
    pub path_width: usize,
    /// Width of the widest validator type.
    pub validator_type_width: usize,
    /// Entity-level patterns.
    pub patterns: Vec<PatternView>,
    /// Relationships that place fields here.
    pub relationships: Vec<String>,
    /// Polymorphic variants: `type: Circle, Square`.
    pub variants: Option<String>,
    /// The schema version written on every document (schema versioning).
    pub schema_version: Option<u32>,
    /// Warnings about this collection.
    pub warnings: Vec<WarningView>,
}

/// A field of the document tree.
#[derive(Debug, Clone, Serialize)]
pub struct TreeRow {
    /// Nesting depth (0 at the top level).
    pub depth: usize,
    /// Box-drawing prefix (`│  ├─ `).
    pub prefix: String,
    /// BSON name.
    pub name: String,
    /// Type as shown (`[objectId] ≤ 1,000`).
    pub ty: String,
    /// Notes: reference target, relationship, flags.
    pub notes: Vec<String>,
    /// Never shown in samples.
    pub sensitive: bool,
}

/// An index.
#[derive(Debug, Clone, Serialize)]
pub struct IndexView {
    /// Its name.
    pub name: String,
    /// `{ host: 1, time: -1 }`.
    pub keys: String,
    /// unique, sparse, TTL, collation, partial, multikey.
    pub options: Vec<String>,
    /// The queries and rules it serves.
    pub reasons: Vec<String>,
}

/// One line of the validator summary.
#[derive(Debug, Clone, Serialize)]
pub struct ValidatorRow {
    /// Dotted path.
    pub path: String,
    /// `bsonType` (`array of objectId`).
    pub bson_type: String,
    /// In the enclosing document's `required` list.
    pub required: bool,
    /// `maxItems`, formatted, or empty.
    pub max_items: String,
}

/// An entity-level pattern.
#[derive(Debug, Clone, Serialize)]
pub struct PatternView {
    /// Its name.
    pub name: String,
    /// What it adds.
    pub detail: String,
    /// The rule cited.
    pub rule: RuleView,
}

fn size(s: &SizeEstimate, max: u64) -> (String, String, String) {
    let worst = s.worst.map(bytes).unwrap_or_else(|| "unbounded".to_owned());
    let share = match s.worst {
        Some(w) if max > 0 => {
            let pct = w as f64 * 100.0 / max as f64;
            let pct = if pct < 0.01 {
                "under 0.01%".to_owned()
            } else if pct < 10.0 {
                format!("{pct:.2}%")
            } else {
                format!("{pct:.0}%")
            };
            format!("{pct} of the {} limit", bytes(max))
        }
        _ => format!("no bound below the {} limit", bytes(max)),
    };
    (bytes(s.average), worst, share)
}

pub(super) fn collection(plan: &Plan, c: &Collection, warnings: &[WarningView]) -> CollectionView {
    let mut tree = Vec::new();
    tree_rows(&c.fields, 0, "", &mut tree);
    let tree_width = tree
        .iter()
        .map(|r| r.prefix.chars().count() + r.name.chars().count())
        .max()
        .unwrap_or(0);
    let type_width = tree.iter().map(|r| r.ty.chars().count()).max().unwrap_or(0);
    let (size_average, size_worst, size_share) = size(&c.size, plan.settings.doc_max_size);
    let validator = validator_rows(&c.fields);
    let path_width = validator
        .iter()
        .map(|v| v.path.chars().count())
        .max()
        .unwrap_or(0);
    let validator_type_width = validator
        .iter()
        .map(|v| v.bson_type.chars().count())
        .max()
        .unwrap_or(0);
    let id = match &c.id.natural_key {
        Some(key) => format!(
            "natural key `{key}` ({}), immutable",
            c.id.bson_type.json_schema_name()
        ),
        None => format!("generated {}", c.id.bson_type.json_schema_name()),
    };
    let mut relationships: Vec<String> = plan
        .relationships
        .iter()
        .filter(|d| {
            d.placement.iter().any(|p| p.collection == c.name)
                || d.denormalized.iter().any(|x| x.collection == c.name)
        })
        .map(|d| d.id.clone())
        .collect();
    relationships.dedup();
    CollectionView {
        name: c.name.clone(),
        anchor: anchor("coll", &c.name),
        entity: c.entity.clone(),
        role: crate::prose::collection_role(c),
        docs: c.docs.clone(),
        id,
        tree,
        tree_width,
        type_width,
        sample: sample::document(c),
        size_average,
        size_worst,
        size_share,
        indexes: c.indexes.iter().map(index).collect(),
        validator,
        path_width,
        validator_type_width,
        patterns: c
            .patterns
            .iter()
            .map(|p| PatternView {
                name: p.name.clone(),
                detail: p.detail.clone(),
                rule: rule(&p.rule),
            })
            .collect(),
        relationships,
        variants: c
            .variants
            .as_ref()
            .map(|v| format!("`{}`: {}", v.discriminator, v.names.join(", "))),
        schema_version: c.schema_version,
        warnings: warnings
            .iter()
            .filter(|w| w.collection.as_deref() == Some(c.name.as_str()))
            .cloned()
            .collect(),
    }
}

/// The type of a field as the tree shows it.
pub fn type_label(f: &PlanField) -> String {
    let mut base = f.type_name.clone().unwrap_or_else(|| f.bson_type.clone());
    if !f.enum_values.is_empty() {
        let quoted: Vec<String> = f.enum_values.iter().map(|v| format!("{v:?}")).collect();
        base = format!("one_of({})", quoted.join(", "));
    }
    // Container levels, innermost first, as the schema language writes them; the outermost
    // array says its bound in words.
    for (i, level) in f.containers.iter().enumerate().rev() {
        if level.nullable {
            base.push('?');
        }
        base = match (level.kind, level.bound) {
            (ContainerKind::Array, Some(m)) if i == 0 => {
                format!("[{base}] \u{2264} {}", thousands(m))
            }
            (ContainerKind::Array, None) if i == 0 => format!("[{base}] unbounded"),
            (ContainerKind::Array, Some(m)) => format!("[{base}; {}]", thousands(m)),
            (ContainerKind::Array, None) => format!("[{base}]"),
            (ContainerKind::Map, Some(n)) => {
                format!("map<{base}> \u{2264} {} entries", thousands(n))
            }
            (ContainerKind::Map, None) => format!("map<{base}>"),
        };
    }
    if f.optional {
        base.push('?');
    }
    base
}

fn notes(f: &PlanField) -> Vec<String> {
    let mut out = Vec::new();
    match f.kind {
        FieldKind::Ref | FieldKind::RefArray => {
            if let Some(s) = &f.source {
                out.push(format!("\u{2192} {s}"));
            }
        }
        FieldKind::Denormalized => {
            if let Some(s) = &f.source {
                out.push(format!("copy of {s}"));
            }
        }
        FieldKind::Computed => out.push("computed on write".to_owned()),
        FieldKind::Pattern => out.push("pattern".to_owned()),
        FieldKind::Scalar | FieldKind::Embedded => {}
    }
    if let Some(r) = &f.relation {
        out.push(format!("by {r}"));
    }
    if let Some(v) = &f.variant {
        out.push(format!("only in {v}"));
    }
    let fl = &f.flags;
    for (on, label) in [
        (fl.unique, "unique"),
        (fl.indexed && !fl.unique, "indexed"),
        (fl.immutable, "immutable"),
        (fl.sensitive, "sensitive"),
        (fl.payload, "payload"),
        (fl.large, "large"),
        (fl.seldom_read, "seldom read"),
        (fl.ignore_case, "ignore case"),
        (f.recursive, "recursive"),
    ] {
        if on {
            out.push(label.to_owned());
        }
    }
    match fl.expire_after_seconds {
        Some(0) => out.push("expires at the date it holds".to_owned()),
        Some(ttl) => out.push(format!("expires after {}s", thousands(ttl))),
        None => {}
    }
    out
}

fn tree_rows(fields: &[PlanField], depth: usize, indent: &str, out: &mut Vec<TreeRow>) {
    for (i, f) in fields.iter().enumerate() {
        let last = i + 1 == fields.len();
        let prefix = if depth == 0 {
            String::new()
        } else {
            format!(
                "{indent}{}",
                if last {
                    "\u{2514}\u{2500} "
                } else {
                    "\u{251c}\u{2500} "
                }
            )
        };
        out.push(TreeRow {
            depth,
            prefix,
            name: f.name.clone(),
            ty: type_label(f),
            notes: notes(f),
            sensitive: f.flags.sensitive,
        });
        if !f.children.is_empty() && !f.recursive {
            let child_indent = if depth == 0 {
                String::new()
            } else {
                format!("{indent}{}", if last { "   " } else { "\u{2502}  " })
            };
            tree_rows(&f.children, depth + 1, &child_indent, out);
        }
    }
}

/// The validator summary of a document: `bsonType`, `required` and `maxItems` of every path,
/// read from the planned fields only.
pub fn validator_rows(fields: &[PlanField]) -> Vec<ValidatorRow> {
    let mut rows = Vec::new();
    let mut stack: Vec<&PlanField> = fields.iter().rev().collect();
    while let Some(f) = stack.pop() {
        let mut ty = match &f.range {
            _ if !f.enum_values.is_empty() => {
                format!("{} (one of {})", f.bson_type, f.enum_values.len())
            }
            Some(range) => format!("{} ({} to {})", f.bson_type, range.min, range.max),
            None => f.bson_type.clone(),
        };
        // Container levels, innermost first; the bounds read outermost first (24 × 60).
        for level in f.containers.iter().rev() {
            if level.nullable {
                ty = format!("{ty} or null");
            }
            ty = match level.kind {
                ContainerKind::Array => format!("array of {ty}"),
                ContainerKind::Map => format!("object of {ty}"),
            };
        }
        let bounds: Vec<String> = f
            .containers
            .iter()
            .filter_map(|level| {
                let n = thousands(level.bound?);
                Some(match level.kind {
                    ContainerKind::Array => n,
                    ContainerKind::Map => format!("{n} entries"),
                })
            })
            .collect();
        let max = bounds.join(" \u{00d7} ");
        rows.push(ValidatorRow {
            path: f.path.clone(),
            bson_type: ty,
            required: !f.optional && f.variant.is_none(),
            max_items: max.trim().to_owned(),
        });
        if !f.recursive {
            stack.extend(f.children.iter().rev());
        }
    }
    rows
}

fn index(i: &Index) -> IndexView {
    let keys = i
        .keys
        .iter()
        .map(|k| format!("{}: {}", k.path, k.spec()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut options = Vec::new();
    if i.unique {
        options.push("unique".to_owned());
    }
    if i.sparse {
        options.push("sparse".to_owned());
    }
    if let Some(c) = &i.collation {
        options.push(format!("collation {} strength {}", c.locale, c.strength));
    }
    if let Some(ttl) = i.expire_after_seconds {
        options.push(format!("TTL {}s", thousands(ttl)));
    }
    if let Some(p) = &i.partial_filter {
        options.push(format!("partial {p}"));
    }
    if i.multikey {
        options.push("multikey".to_owned());
    }
    IndexView {
        name: i.name.clone(),
        keys: format!("{{ {keys} }}"),
        options,
        reasons: i.reasons.clone(),
    }
}
