//! The Plan as the templates show it: the same facts, formatted (sizes, counts, type names,
//! document trees) but never re-decided. Every template reads only [`Review`].

use serde::Serialize;

use crate::model::RelationKind;
use crate::plan::Settings;
use crate::plan::{
    BucketPurpose, Collection, CollectionRole, ComputedFn, Decision, FieldKind, Index, Plan,
    PlanField, RuleCitation, RuleId, Severity, SizeEstimate, Warning,
};

use super::{diagram, sample};

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

/// One relationship's decision.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionView {
    /// `Entity.field`.
    pub id: String,
    /// HTML/Markdown anchor.
    pub anchor: String,
    /// Left entity.
    pub from: String,
    /// Right entity.
    pub to: String,
    /// one-to-one, one-to-many, many-to-many.
    pub kind: &'static str,
    /// `Product many(1000) <-> Part one`.
    pub cardinality: String,
    /// The owning entity.
    pub parent: String,
    /// The other entity.
    pub child: String,
    /// The layout's name.
    pub strategy: &'static str,
    /// Modifiers: denormalized, subset, computed, outlier.
    pub modifiers: Vec<&'static str>,
    /// `parent_refs + denormalized`.
    pub headline: String,
    /// Forced with `force`.
    pub forced: bool,
    /// One sentence from the facts.
    pub because: String,
    /// Facts used.
    pub facts: Vec<String>,
    /// Where each side is stored, as sentences.
    pub placement: Vec<String>,
    /// Rules cited.
    pub rules: Vec<RuleView>,
    /// Alternatives considered and why each lost.
    pub rejected: Vec<RejectedView>,
    /// Obligations for writers.
    pub obligations: Vec<String>,
    /// Copies and the update that keeps each in step.
    pub fan_outs: Vec<FanOutView>,
    /// Subset, bucket, computed and outlier details, as sentences.
    pub patterns: Vec<String>,
    /// Warning codes about this relationship.
    pub warnings: Vec<String>,
}

/// A cited rule.
#[derive(Debug, Clone, Serialize)]
pub struct RuleView {
    /// `Rule 3` or the pattern's title.
    pub label: String,
    /// The rule's short title.
    pub title: &'static str,
    /// Its text.
    pub text: &'static str,
    /// Where it comes from.
    pub source: &'static str,
}

/// A rejected alternative.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedView {
    /// The alternative.
    pub strategy: String,
    /// Why it lost.
    pub why: String,
    /// The rules that ruled it out (`rule 3, bucket pattern`).
    pub rules: String,
}

/// A denormalized copy and its fan-out.
#[derive(Debug, Clone, Serialize)]
pub struct FanOutView {
    /// `Part.name`.
    pub source: String,
    /// `products.parts.name`.
    pub copy: String,
    /// `1,000 reads per update`, or `ratio not given`.
    pub ratio: String,
    /// The mongosh statement run when the source changes.
    pub statement: String,
}

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
    /// Warning codes about this collection.
    pub warnings: Vec<String>,
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

/// A warning.
#[derive(Debug, Clone, Serialize)]
pub struct WarningView {
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
            relationships: plan.relationships.iter().map(decision).collect(),
            collections: plan
                .collections
                .iter()
                .map(|c| collection(plan, c))
                .collect(),
            warnings: plan.warnings.iter().map(warning).collect(),
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

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in bytes as people read it (`312 B`, `4.2 KB`, `16 MB`).
pub fn bytes(n: u64) -> String {
    const KB: f64 = 1024.0;
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < KB * KB {
        trim_unit(f / KB, "KB")
    } else if f < KB * KB * KB {
        trim_unit(f / (KB * KB), "MB")
    } else {
        trim_unit(f / (KB * KB * KB), "GB")
    }
}

fn trim_unit(v: f64, unit: &str) -> String {
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {unit}")
}

fn ratio(r: f64) -> String {
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
fn anchor(prefix: &str, id: &str) -> String {
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

fn kind(k: RelationKind) -> &'static str {
    match k {
        RelationKind::OneToOne => "one-to-one",
        RelationKind::OneToMany => "one-to-many",
        RelationKind::ManyToMany => "many-to-many",
    }
}

fn rule(r: &RuleCitation) -> RuleView {
    RuleView {
        label: match r.number {
            Some(n) => format!("Rule {n}"),
            None => r.title.to_owned(),
        },
        title: r.title,
        text: r.text,
        source: r.source,
    }
}

fn rule_name(id: RuleId) -> String {
    let c = crate::plan::citation(id);
    match c.number {
        Some(n) => format!("rule {n}"),
        None => c.title.to_lowercase(),
    }
}

fn decision(d: &Decision) -> DecisionView {
    let mut modifiers = Vec::new();
    if !d.denormalized.is_empty() {
        modifiers.push("denormalized");
    }
    if d.subset.is_some() {
        modifiers.push("subset");
    }
    if !d.computed.is_empty() {
        modifiers.push("computed");
    }
    if d.outlier.is_some() {
        modifiers.push("outlier");
    }
    let mut headline = d.strategy.as_str().to_owned();
    for m in &modifiers {
        headline.push_str(" + ");
        headline.push_str(m);
    }
    if d.forced {
        headline.push_str(" (forced)");
    }
    DecisionView {
        id: d.id.clone(),
        anchor: anchor("rel", &d.id),
        from: d.from.clone(),
        to: d.to.clone(),
        kind: kind(d.kind),
        cardinality: format!(
            "{} {} \u{2194} {} {}",
            d.from, d.cardinality.from, d.to, d.cardinality.to
        ),
        parent: d.parent.clone(),
        child: d.child.clone(),
        strategy: d.strategy.as_str(),
        modifiers,
        headline,
        forced: d.forced,
        because: d.because.clone(),
        facts: d.facts.clone(),
        placement: d.placement.iter().map(placement).collect(),
        rules: d.rules.iter().map(rule).collect(),
        rejected: d
            .rejected
            .iter()
            .map(|r| RejectedView {
                strategy: r.strategy.clone(),
                why: r.why.clone(),
                rules: r
                    .rules
                    .iter()
                    .map(|id| rule_name(*id))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
            .collect(),
        obligations: d.obligations.clone(),
        fan_outs: d
            .denormalized
            .iter()
            .map(|c| FanOutView {
                source: c.source.clone(),
                copy: format!("{}.{}", c.collection, c.copy_path),
                ratio: c
                    .reads_per_update
                    .map(|r| format!("{} reads per update", ratio(r)))
                    .unwrap_or_else(|| "ratio not given".to_owned()),
                statement: fan_out_statement(&c.source, &c.fan_out),
            })
            .collect(),
        patterns: patterns(d),
        warnings: d.warnings.clone(),
    }
}

fn placement(p: &crate::plan::Placement) -> String {
    use crate::plan::Shape;
    let what = match p.shape {
        Shape::Subdocument => format!("one embedded {}", p.target),
        Shape::ArrayOfSubdocuments => format!("an array of embedded {}", p.target),
        Shape::Id => format!("the id of a {}", p.target),
        Shape::ArrayOfIds => format!("an array of {} ids", p.target),
        Shape::ArrayOfExtendedRefs => {
            format!(
                "an array of {} extended references (id + copied fields)",
                p.target
            )
        }
        Shape::ExtendedRef => format!(
            "an extended reference to a {} (id + copied fields)",
            p.target
        ),
    };
    let max = p
        .max_items
        .map(|m| format!(", at most {}", thousands(m)))
        .unwrap_or_default();
    format!("`{}.{}` holds {what}{max}", p.collection, p.path)
}

fn fan_out_statement(source: &str, f: &crate::plan::FanOut) -> String {
    let field = source.rsplit('.').next().unwrap_or(source);
    let id = format!(
        "{}Id",
        lower_first(source.split('.').next().unwrap_or(source))
    );
    let value = format!("new{}", upper_first(field));
    let mut s = format!(
        "db.{}.updateMany(\n  {{ \"{}\": {id} }},\n  {{ $set: {{ \"{}\": {value} }} }}",
        f.collection, f.match_path, f.set_path
    );
    if let Some(filter) = &f.array_filter {
        s.push_str(&format!(
            ",\n  {{ arrayFilters: [ {{ \"{filter}\": {id} }} ] }}"
        ));
    }
    s.push_str("\n)");
    s
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

fn upper_first(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn patterns(d: &Decision) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = &d.subset {
        let keep = if s.keep.is_empty() {
            "every field".to_owned()
        } else {
            s.keep.join(", ")
        };
        out.push(format!(
            "Subset: `{}.{}` keeps the {} {} {} ordered by `{}` ({keep}).",
            s.collection,
            s.path,
            if s.descending { "latest" } else { "first" },
            thousands(s.n),
            d.child,
            s.sort_by
        ));
    }
    if let Some(b) = &d.bucket {
        let purpose = match b.purpose {
            BucketPurpose::Pages => "one bucket is one page",
            BucketPurpose::TimeSeries => "a time series read by ranges",
        };
        let mut line = format!(
            "Bucket: `{}` holds up to {} {} per document in `{}`, counted in `{}`, referencing the {} by `{}` ({purpose}).",
            b.collection,
            thousands(b.size),
            d.child,
            b.items_path,
            b.count_path,
            d.parent,
            b.parent_path
        );
        if let Some(order) = &b.order_by {
            line.push_str(&format!(" Items are ordered by `{order}`."));
        }
        if let Some(t) = &b.time_range {
            line.push_str(&format!(
                " `{}` and `{}` hold the first and last `{}` of each bucket.",
                t.start_path, t.end_path, t.field
            ));
        }
        out.push(line);
    }
    for c in &d.computed {
        let what = match &c.function {
            ComputedFn::Summary { summary } => match &c.field {
                Some(f) => format!("the {} of `{f}`", summary.as_str()),
                None => format!("the {}", summary.as_str()),
            },
            ComputedFn::TopN {
                n,
                sort_by,
                descending,
                ..
            } => format!(
                "the {} {} by `{sort_by}`",
                if *descending { "top" } else { "bottom" },
                thousands(*n)
            ),
        };
        out.push(format!(
            "Computed: `{}.{}` keeps {what}, maintained on write.",
            c.collection, c.path
        ));
    }
    if let Some(o) = &d.outlier {
        let max = o
            .max
            .map(thousands)
            .unwrap_or_else(|| "no limit".to_owned());
        out.push(format!(
            "Outlier: `{}.{}` embeds up to {} (typically {}, at most {max}); parents past that set `{}` and overflow into `{}`.",
            o.collection,
            o.path,
            thousands(o.embedded_max),
            thousands(o.typical),
            o.flag_path,
            o.overflow_collection
        ));
    }
    out
}

fn role(c: &Collection) -> String {
    match &c.role {
        CollectionRole::Entity => format!("documents of {}", c.entity),
        CollectionRole::Bucket { relation } => {
            format!("buckets of {} ({relation})", c.entity)
        }
        CollectionRole::Link { relation } => format!("one document per pair of {relation}"),
        CollectionRole::Overflow { relation } => {
            format!("overflow documents of {relation}")
        }
        CollectionRole::History => format!("past versions of {}", c.entity),
    }
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

fn collection(plan: &Plan, c: &Collection) -> CollectionView {
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
    let path_width = validator.iter().map(|v| v.path.chars().count()).max().unwrap_or(0);
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
        role: role(c),
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
        warnings: plan
            .warnings
            .iter()
            .filter(|w| w.collection.as_deref() == Some(c.name.as_str()))
            .map(|w| w.code.clone())
            .collect(),
    }
}

/// The type of a field as the tree shows it.
pub fn type_label(f: &PlanField) -> String {
    let mut base = f.type_name.clone().unwrap_or_else(|| f.bson_type.clone());
    if f.map {
        base = format!("map<{base}>");
    }
    for dim in f.inner_dims.iter().rev() {
        base = format!("[{base}; {}]", thousands(*dim));
    }
    let depth = usize::from(f.array_depth).saturating_sub(f.inner_dims.len());
    if depth > 0 {
        let open = "[".repeat(depth);
        let close = "]".repeat(depth);
        base = match f.max_items {
            Some(m) => format!("{open}{base}{close} \u{2264} {}", thousands(m)),
            None => format!("{open}{base}{close} unbounded"),
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
    if let Some(ttl) = fl.expire_after_seconds {
        out.push(format!("expires after {}s", thousands(ttl)));
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
        let mut ty = if f.map {
            format!("object of {}", f.bson_type)
        } else {
            f.bson_type.clone()
        };
        for _ in 0..f.array_depth {
            ty = format!("array of {ty}");
        }
        let mut max = f.max_items.map(thousands).unwrap_or_default();
        for d in &f.inner_dims {
            max.push_str(&format!(" \u{00d7} {}", thousands(*d)));
        }
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
        .map(|k| format!("{}: {}", k.path, k.direction))
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

fn warning(w: &Warning) -> WarningView {
    WarningView {
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
