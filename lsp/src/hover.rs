//! Hover: on a relation, its decision as the review shows it (layout, `because`, where each side
//! is stored, the rules, the rejected alternatives, the costs and warnings); on a field, where the
//! Plan stores it (path, BSON type, size, indexes); on an entity or value type, its collection or
//! where it is embedded; on a query, the index that serves it. Everything shown is the Plan's data
//! in the review's formatting ([`squillion_codegen::review::view`]).

use std::fmt::Write as _;

use squillion_codegen::plan::{Collection, FieldKind, Plan, PlanField};
use squillion_codegen::review::view::{self, CollectionView, DecisionView, Review};

use crate::analysis::Analysis;
use crate::symbols::{Kind, Symbol};

/// The Markdown shown when hovering byte `offset`, if anything is there.
pub fn hover(analysis: &Analysis, offset: usize) -> Option<String> {
    let symbols = &analysis.symbols;
    let on_symbol = symbols.at(offset).map(|o| &symbols.symbols[o.symbol]);
    let Some(plan) = &analysis.plan else {
        // A symbol or a relation, but no Plan: say why there is nothing to show.
        on_symbol
            .map(|_| ())
            .or_else(|| symbols.relation_at(offset).map(|_| ()))?;
        return Some(no_plan(analysis));
    };
    let review = Review::new(plan, "", "");
    match on_symbol {
        Some(symbol) => symbol_hover(analysis, plan, &review, symbol),
        None => {
            let header = symbols.relation_at(offset)?;
            let d = review.relationships.iter().find(|d| d.id == header.id)?;
            Some(decision(d))
        }
    }
}

fn no_plan(analysis: &Analysis) -> String {
    let errors = analysis.diagnostics.iter().filter(|d| d.is_error()).count();
    format!(
        "The Plan is not available: the file has {errors} error{}. Fix {} to see the decisions.",
        if errors == 1 { "" } else { "s" },
        if errors == 1 { "it" } else { "them" }
    )
}

fn symbol_hover(
    analysis: &Analysis,
    plan: &Plan,
    review: &Review,
    symbol: &Symbol,
) -> Option<String> {
    match symbol.kind {
        Kind::RelationEnd => {
            let id = symbol.relation.as_deref()?;
            let d = review.relationships.iter().find(|d| d.id == id)?;
            let mut out = stored_at(plan, review, symbol, analysis);
            out.push_str("\n---\n\n");
            out.push_str(&decision(d));
            Some(out)
        }
        Kind::Field => Some(stored_at(plan, review, symbol, analysis)),
        Kind::Entity => Some(entity(plan, review, &symbol.name)),
        Kind::Value => Some(embedded_type(plan, &symbol.name, "value type")),
        Kind::Variant => {
            let owner = symbol.owner.as_deref()?;
            let c = plan.collections.iter().find(|c| c.entity == owner)?;
            let v = c.variants.as_ref()?;
            Some(format!(
                "**variant {}** of `{owner}`, stored in `{}` with `{}: \"{}\"`",
                symbol.name, c.name, v.discriminator, symbol.name
            ))
        }
        Kind::Query => query(plan, &symbol.name),
    }
}

/// The relationship's decision, as the review writes it.
fn decision(d: &DecisionView) -> String {
    let mut out = format!(
        "**{}** \u{2014} {}: `{}`\n\n**decision: {}**\n\n{}\n",
        d.id, d.kind, d.cardinality, d.headline, d.because
    );
    list(&mut out, "stored", d.placement.iter().cloned());
    list(
        &mut out,
        "rules",
        d.rules
            .iter()
            .map(|r| format!("**{}** \u{2014} {}: {}", r.label, r.title, r.text)),
    );
    list(
        &mut out,
        "rejected",
        d.rejected.iter().map(|r| {
            let rules = if r.rules.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.rules)
            };
            format!("`{}`: {}{rules}", r.strategy, r.why)
        }),
    );
    list(&mut out, "patterns", d.patterns.iter().cloned());
    list(&mut out, "costs", d.obligations.iter().cloned());
    list(
        &mut out,
        "warnings",
        d.warnings
            .iter()
            .map(|w| format!("{} {}: {}", w.severity, w.code, w.message)),
    );
    out
}

fn list(out: &mut String, title: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n*{title}:*\n");
    for item in items {
        let _ = writeln!(out, "- {item}");
    }
}

/// Where a declared field (or a relation end) is stored: every document path that holds it.
fn stored_at(plan: &Plan, review: &Review, symbol: &Symbol, analysis: &Analysis) -> String {
    let owner = symbol.owner.as_deref().unwrap_or_default();
    let what = match symbol.kind {
        Kind::RelationEnd => "relation end",
        _ if symbol.relation.is_some() => "field of the relationship",
        _ => "field",
    };
    let mut out = format!("**{owner}.{}** \u{2014} {what}\n", symbol.name);
    let bson = bson_name(analysis, owner, &symbol.name);
    let mut found = 0;
    for c in &plan.collections {
        let context = match &c.role {
            squillion_codegen::plan::CollectionRole::Entity => Some(c.entity.as_str()),
            _ => None,
        };
        let mut hits = Vec::new();
        find_fields(&c.fields, context, symbol, owner, &bson, &mut hits);
        for f in hits {
            found += 1;
            field(&mut out, review, c, f);
        }
    }
    let source = format!("{owner}.{}", symbol.name);
    let mut copies = Vec::new();
    for c in &plan.collections {
        copies_of(&c.fields, &source, &c.name, &mut copies);
    }
    if !copies.is_empty() {
        let _ = writeln!(out, "\n*copied into:*\n");
        for copy in copies {
            let _ = writeln!(out, "- `{copy}`");
        }
    }
    if found == 0 {
        out.push_str(match symbol.kind {
            Kind::RelationEnd => {
                "\nNot stored on this side: the layout keeps the link on the other.\n"
            }
            _ => "\nNot stored in any document.\n",
        });
    }
    out
}

/// The fields of `fields` (and their children) that store `symbol`; `context` is the type whose
/// fields these are.
fn find_fields<'p>(
    fields: &'p [PlanField],
    context: Option<&str>,
    symbol: &Symbol,
    owner: &str,
    bson: &str,
    hits: &mut Vec<&'p PlanField>,
) {
    for f in fields {
        let hit = match symbol.kind {
            Kind::RelationEnd => {
                context == Some(owner)
                    && f.relation.as_deref() == symbol.relation.as_deref()
                    && f.name == symbol.name
            }
            _ if symbol.relation.is_some() => {
                f.name == bson && f.relation.as_deref() == symbol.relation.as_deref()
            }
            _ => {
                context == Some(owner)
                    && f.name == bson
                    && f.variant.as_deref() == symbol.variant.as_deref()
                    && f.relation.is_none()
            }
        };
        if hit {
            hits.push(f);
        }
        if !f.recursive {
            find_fields(
                &f.children,
                f.type_name.as_deref(),
                symbol,
                owner,
                bson,
                hits,
            );
        }
    }
}

/// The paths of the copies of `source`: `Entity.field` (rule 5), or `Entity` (a subset).
fn copies_of(fields: &[PlanField], source: &str, collection: &str, out: &mut Vec<String>) {
    for f in fields {
        if f.kind == FieldKind::Denormalized && f.source.as_deref() == Some(source) {
            out.push(format!("{collection}.{}", f.path));
        }
        if !f.recursive {
            copies_of(&f.children, source, collection, out);
        }
    }
}

/// The name a field is stored under (`@stored("ts")`).
fn bson_name(analysis: &Analysis, owner: &str, name: &str) -> String {
    let model = analysis.checked.as_ref().map(|c| &c.model);
    let field = model.and_then(|m| {
        m.entity(owner)
            .and_then(|e| {
                e.field(name).or_else(|| {
                    e.variants
                        .iter()
                        .flat_map(|v| &v.fields)
                        .find(|f| f.name == name)
                })
            })
            .or_else(|| {
                m.value(owner)
                    .and_then(|v| v.fields.iter().find(|f| f.name == name))
            })
    });
    field.map_or_else(|| name.to_owned(), |f| f.bson_name.clone())
}

fn field(out: &mut String, review: &Review, c: &Collection, f: &PlanField) {
    let size = match f.size.worst {
        Some(w) => format!(
            "{} average, {} worst",
            view::bytes(f.size.average),
            view::bytes(w)
        ),
        None => format!("{} average, unbounded", view::bytes(f.size.average)),
    };
    // The validator's wording of the BSON type: `array of object`.
    let bson = view::validator_rows(std::slice::from_ref(f))
        .into_iter()
        .next()
        .map_or_else(|| f.bson_type.clone(), |row| row.bson_type);
    let _ = write!(
        out,
        "\n`{}.{}`: `{}`, BSON `{bson}` ({}, {})\n",
        c.name,
        f.path,
        view::type_label(f),
        f.kind.as_str(),
        size
    );
    let cv = review.collections.iter().find(|v| v.name == c.name);
    let indexes: Vec<String> = c
        .indexes
        .iter()
        .filter(|i| i.keys.iter().any(|k| k.path == f.path))
        .filter_map(|i| cv?.indexes.iter().find(|v| v.name == i.name))
        .map(|i| {
            let options = if i.options.is_empty() {
                String::new()
            } else {
                format!(" ({})", i.options.join(", "))
            };
            format!("index `{}` `{}`{options}", i.name, i.keys)
        })
        .collect();
    for i in indexes {
        let _ = writeln!(out, "- {i}");
    }
    for doc in &f.docs {
        let _ = writeln!(out, "\n{doc}");
    }
}

fn entity(plan: &Plan, review: &Review, name: &str) -> String {
    let mut out = format!("**entity {name}**\n");
    for c in review.collections.iter().filter(|c| c.entity == name) {
        collection(&mut out, c);
    }
    let embedded = embedded_type(plan, name, "");
    if embedded.contains('`') {
        out.push_str(&embedded);
    }
    let mut copies = Vec::new();
    for c in &plan.collections {
        copies_of(&c.fields, name, &c.name, &mut copies);
    }
    if !copies.is_empty() {
        let _ = writeln!(out, "\n*copies kept in:*\n");
        for copy in copies {
            let _ = writeln!(out, "- `{copy}`");
        }
    }
    out
}

fn collection(out: &mut String, c: &CollectionView) {
    let _ = write!(
        out,
        "\ncollection `{}`: {}; {} average, {} worst ({}); {} index{}\n",
        c.name,
        c.role,
        c.size_average,
        c.size_worst,
        c.size_share,
        c.indexes.len(),
        if c.indexes.len() == 1 { "" } else { "es" }
    );
}

/// Where a value type (or an entity) is embedded.
fn embedded_type(plan: &Plan, name: &str, what: &str) -> String {
    let mut out = if what.is_empty() {
        String::new()
    } else {
        format!("**{what} {name}**\n")
    };
    let mut paths = Vec::new();
    for c in &plan.collections {
        collect_embedded(&c.fields, name, &c.name, &mut paths);
    }
    if paths.is_empty() {
        if !what.is_empty() {
            out.push_str("\nNot embedded in any document.\n");
        }
        return out;
    }
    out.push_str("\nembedded at:\n");
    for p in paths {
        let _ = writeln!(out, "- `{p}`");
    }
    out
}

fn collect_embedded(fields: &[PlanField], name: &str, collection: &str, out: &mut Vec<String>) {
    for f in fields {
        if f.type_name.as_deref() == Some(name) && !f.children.is_empty() {
            out.push(format!("{collection}.{}", f.path));
        }
        if !f.recursive {
            collect_embedded(&f.children, name, collection, out);
        }
    }
}

fn query(plan: &Plan, name: &str) -> Option<String> {
    let q = plan.queries.iter().find(|q| q.name == name)?;
    let mut out = format!(
        "**query {}** on `{}` (collection `{}`)\n",
        q.name, q.entity, q.collection
    );
    match &q.index {
        Some(i) => {
            let _ = writeln!(out, "\nserved by index `{i}`");
        }
        None => out.push_str("\nno index serves it\n"),
    }
    if let Some(j) = &q.join {
        let _ = writeln!(
            out,
            "\nreads `{j}` first (an application-level join, rule 4)"
        );
    }
    for u in &q.unstored {
        let _ = writeln!(
            out,
            "\n`{u}` is not stored in this collection: no method is generated"
        );
    }
    Some(out)
}
