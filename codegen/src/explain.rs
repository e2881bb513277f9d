//! `squillion plan --explain`: the Plan as a reviewer reads it, per relationship the decision, the
//! facts, the rules and the rejected alternatives, then the collections. Reads only the Plan.

use std::fmt::Write as _;

use crate::plan::{Collection, Decision, Index, Plan, PlanField, Severity};
use crate::prose::counted;

/// Renders the plan as plain text.
pub fn explain(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan for {}", plan.source);
    let _ = writeln!(
        out,
        "{}, {}, {}",
        counted(plan.collections.len(), "collection", "collections"),
        counted(plan.relationships.len(), "relationship", "relationships"),
        counted(plan.warnings.len(), "warning", "warnings")
    );
    for d in &plan.relationships {
        out.push('\n');
        decision(&mut out, d, &plan.collections);
    }
    for c in &plan.collections {
        out.push('\n');
        collection(&mut out, c);
    }
    if !plan.warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings");
        for w in &plan.warnings {
            let level = match w.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "note",
            };
            let _ = writeln!(
                out,
                "  {}:{}:{}: {level}[{}]: {}",
                w.position.file, w.position.line, w.position.column, w.code, w.message
            );
            let _ = writeln!(out, "      rule: {} ({})", w.rule.title, w.rule.source);
            if let Some(help) = &w.help {
                let _ = writeln!(out, "      help: {help}");
            }
        }
    }
    out
}

fn decision(out: &mut String, d: &Decision, collections: &[Collection]) {
    let _ = writeln!(
        out,
        "{}  {} {} <-> {} {}  ({})",
        d.id,
        d.from,
        d.cardinality.from,
        d.to,
        d.cardinality.to,
        d.kind.describe()
    );
    let forced = if d.forced { " (forced)" } else { "" };
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
    let modifiers = if modifiers.is_empty() {
        String::new()
    } else {
        format!(" + {}", modifiers.join(" + "))
    };
    let _ = writeln!(
        out,
        "  decision: {}{modifiers}{forced}",
        d.strategy.as_str()
    );
    let _ = writeln!(out, "  because:  {}", d.because);
    for p in &d.placement {
        let max = p
            .max_items
            .map(|m| format!(", at most {m}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  stored:   {}.{} holds {}{max}",
            p.collection,
            p.path,
            crate::prose::holds(collections, p)
        );
    }
    if !d.facts.is_empty() {
        let _ = writeln!(out, "  facts:");
        for f in &d.facts {
            let _ = writeln!(out, "    - {f}");
        }
    }
    if !d.rules.is_empty() {
        let _ = writeln!(out, "  rules:");
        for r in &d.rules {
            let name = match r.number {
                Some(n) => format!("rule {n}"),
                None => r.title.to_owned(),
            };
            let _ = writeln!(out, "    - {name}: {}", r.text);
        }
    }
    if !d.rejected.is_empty() {
        let _ = writeln!(out, "  rejected:");
        for r in &d.rejected {
            let _ = writeln!(out, "    - {}: {}", r.strategy, r.why);
        }
    }
    if let Some(c) = &d.cost {
        let _ = writeln!(
            out,
            "  estimated cost, {}:",
            crate::prose::cost::workload(&c.workload)
        );
        for (name, line) in crate::prose::cost::lines(c) {
            let _ = writeln!(out, "    - {name}: {line}");
        }
    }
    if !d.obligations.is_empty() {
        let _ = writeln!(out, "  costs:");
        for o in &d.obligations {
            let _ = writeln!(out, "    - {o}");
        }
    }
    if !d.warnings.is_empty() {
        let _ = writeln!(out, "  warnings: {}", d.warnings.join(", "));
    }
}

fn collection(out: &mut String, c: &Collection) {
    let worst = c
        .size
        .worst
        .map(|w| format!("{w} B"))
        .unwrap_or_else(|| "unbounded".to_owned());
    // An entity's own collection is named by the entity; a link collection, buckets, overflow
    // or history say what they hold (a link collection's `entity` is only one of its two sides).
    let holds = match c.role {
        crate::plan::CollectionRole::Entity => c.entity.clone(),
        _ => crate::prose::collection_role(c),
    };
    let _ = writeln!(
        out,
        "collection {} ({holds}; ~{} B average, {} worst)",
        c.name, c.size.average, worst
    );
    for f in &c.fields {
        field(out, f, 1);
    }
    for i in &c.indexes {
        index(out, i);
    }
    for p in &c.patterns {
        let _ = writeln!(out, "  pattern {}: {}", p.name, p.detail);
    }
}

fn field(out: &mut String, f: &PlanField, depth: usize) {
    let indent = "  ".repeat(depth);
    let mut ty = f.bson_type.clone();
    if let Some(t) = &f.type_name {
        ty = format!("{t} ({ty})");
    }
    for _ in 0..f.array_depth {
        ty = format!("[{ty}]");
    }
    if f.map {
        ty = format!("map<{ty}>");
    }
    let max = f.max_items.map(|m| format!(" max {m}")).unwrap_or_default();
    let opt = if f.optional { "?" } else { "" };
    let _ = writeln!(
        out,
        "{indent}{}{opt}: {ty}{max}  <{}>",
        f.name,
        f.kind.as_str()
    );
    for c in &f.children {
        field(out, c, depth + 1);
    }
}

fn index(out: &mut String, i: &Index) {
    let keys: Vec<String> = i
        .keys
        .iter()
        .map(|k| format!("{}: {}", k.path, k.spec()))
        .collect();
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
    if let Some(t) = i.expire_after_seconds {
        options.push(format!("ttl {t}s"));
    }
    if i.multikey {
        options.push("multikey".to_owned());
    }
    let options = if options.is_empty() {
        String::new()
    } else {
        format!(" {}", options.join(", "))
    };
    let _ = writeln!(out, "  index {} {{{}}}{options}", i.name, keys.join(", "));
    for r in &i.reasons {
        let _ = writeln!(out, "    serves: {r}");
    }
}
