//! Relationships as the review shows them: the decision, its facts, rules, rejected
//! alternatives, costs and the patterns it applies.

use serde::Serialize;

use crate::plan::{BucketPurpose, ComputedFn, Decision, RuleCitation, RuleId};

use super::{anchor, ratio, thousands, WarningView};

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
    /// The cost model's workload, in words (none when the plan has no costs).
    pub workload: Option<String>,
    /// Every alternative's estimated cost, the chosen first.
    pub estimates: Vec<EstimateView>,
    /// Obligations for writers.
    pub obligations: Vec<String>,
    /// Copies and the update that keeps each in step.
    pub fan_outs: Vec<FanOutView>,
    /// Subset, bucket, computed and outlier details, as sentences.
    pub patterns: Vec<String>,
    /// Warnings about this relationship.
    pub warnings: Vec<WarningView>,
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

/// One alternative's estimated cost.
#[derive(Debug, Clone, Serialize)]
pub struct EstimateView {
    /// `bucket(200)`, `child_ref`.
    pub layout: String,
    /// The estimate in words.
    pub estimate: String,
    /// The plan's layout.
    pub chosen: bool,
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

pub(super) fn rule(r: &RuleCitation) -> RuleView {
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

pub(super) fn decision(
    d: &Decision,
    collections: &[crate::plan::Collection],
    warnings: &[WarningView],
) -> DecisionView {
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
        kind: d.kind.describe(),
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
        placement: d
            .placement
            .iter()
            .map(|p| placement(collections, p))
            .collect(),
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
        workload: d
            .cost
            .as_ref()
            .map(|c| crate::prose::cost::workload(&c.workload)),
        estimates: d
            .cost
            .as_ref()
            .map(|c| {
                crate::prose::cost::lines(c)
                    .into_iter()
                    .enumerate()
                    .map(|(i, (layout, estimate))| EstimateView {
                        layout,
                        estimate,
                        chosen: i == 0 && c.chosen().is_some(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
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
        warnings: warnings
            .iter()
            .filter(|w| w.relation.as_deref() == Some(d.id.as_str()))
            .cloned()
            .collect(),
    }
}

fn placement(collections: &[crate::plan::Collection], p: &crate::plan::Placement) -> String {
    let what = crate::prose::holds(collections, p);
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
    if !f.array_filters.is_empty() {
        let filters: Vec<String> = f
            .array_filters
            .iter()
            .map(|filter| format!("{{ \"{filter}\": {id} }}"))
            .collect();
        s.push_str(&format!(
            ",\n  {{ arrayFilters: [ {} ] }}",
            filters.join(", ")
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
            "Subset: `{}.{}` keeps the {} {} ordered by `{}` ({keep}).",
            s.collection,
            s.path,
            if s.descending { "latest" } else { "first" },
            crate::prose::n_of(s.n, &d.child),
            s.sort_by
        ));
    }
    if let Some(b) = &d.bucket {
        let purpose = match b.purpose {
            BucketPurpose::Pages => "one bucket is one page",
            BucketPurpose::TimeSeries => "a time series read by ranges",
        };
        let mut line = format!(
            "Bucket: `{}` holds up to {} per document in `{}`, counted in `{}`, referencing the {} by `{}` ({purpose}).",
            b.collection,
            crate::prose::n_of(b.size, &d.child),
            b.items_path,
            b.count_path,
            d.parent,
            b.parent_path
        );
        if let Some(order) = &b.order_by {
            let (dir, first) = if b.newest_first {
                ("largest first", "newest")
            } else {
                ("smallest first", "oldest")
            };
            let buckets = match &b.time_range {
                Some(t) => format!("by `{}`, {first} first", t.start_path),
                None => format!("{first} first"),
            };
            let short = if b.newest_first {
                " (page 0 is usually the bucket being filled, so it may be short)"
            } else {
                ""
            };
            line.push_str(&format!(
                " Each bucket keeps its items sorted by `{order}` (every append pushes with `$sort`), read {dir}; \
                 buckets are read {buckets}{short} and fill in arrival order, so pages follow `{order}` across buckets \
                 only when items are appended in that order: a late item lands sorted in the bucket being filled."
            ));
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
            ComputedFn::Average {
                total_path,
                count_path,
            } => format!(
                "the average of `{}` (`{total_path}` / `{count_path}`, divided on read)",
                c.field.as_deref().unwrap_or_default()
            ),
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
