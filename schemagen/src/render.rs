//! `.sqn` text from a [`Schema`]: one declaration after another, in the canonical spacing of
//! `squillion fmt` where it is cheap to follow.

use std::fmt::Write as _;

use crate::spec::{Card, Entity, Fact, Field, FieldAttr, Pattern, Query, Relation, Schema, Ty};

/// The schema as `.sqn` text.
pub fn render(schema: &Schema) -> String {
    let mut out = String::new();
    if !schema.settings.is_empty() {
        out.push_str("settings {\n");
        for (k, v) in &schema.settings {
            let _ = writeln!(out, "  {k} = {v}");
        }
        out.push_str("}\n\n");
    }
    for v in &schema.values {
        let _ = writeln!(out, "value {} {{", v.name);
        fields(&mut out, &v.fields, "  ");
        out.push_str("}\n\n");
    }
    for e in &schema.entities {
        entity(&mut out, e);
    }
    for r in &schema.relations {
        relation(&mut out, r);
    }
    for q in &schema.queries {
        query(&mut out, q);
    }
    out
}

fn entity(out: &mut String, e: &Entity) {
    let _ = write!(out, "entity {}", e.name);
    match e.pattern {
        Pattern::Plain => {}
        Pattern::Tree => out.push_str(" @tree"),
        Pattern::Queue => out.push_str(" @queue(priority: n)"),
        Pattern::VersionedFuture => out.push_str(" @versioned(future)"),
        Pattern::SchemaVersion(v) => {
            let _ = write!(out, " @schema_version({v})");
        }
        Pattern::Polymorphic => out.push_str(" @polymorphic(discriminator: \"kind\")"),
    }
    if let Some(c) = &e.collection {
        let _ = write!(out, " @collection(\"{c}\")");
    }
    out.push_str(" {\n");
    fields(out, &e.fields, "  ");
    for v in &e.variants {
        let _ = writeln!(out, "  variant {} {{", v.name);
        fields(out, &v.fields, "    ");
        out.push_str("  }\n");
    }
    out.push_str("}\n\n");
}

fn fields(out: &mut String, fields: &[Field], indent: &str) {
    for f in fields {
        let _ = write!(out, "{indent}{}: {}", f.name, ty(&f.ty));
        if f.optional {
            out.push('?');
        }
        for a in &f.attrs {
            out.push(' ');
            out.push_str(&attr(a));
        }
        out.push('\n');
    }
}

/// A type as written.
pub fn ty(t: &Ty) -> String {
    match t {
        Ty::Scalar(s) => s.as_str().to_owned(),
        Ty::Value(v) => v.clone(),
        Ty::Array(inner, Some(n)) => format!("[{}; {n}]", ty(inner)),
        Ty::Array(inner, None) => format!("[{}]", ty(inner)),
        Ty::Map(inner, Some(n)) => format!("map<{}; {n}>", ty(inner)),
        Ty::Map(inner, None) => format!("map<{}>", ty(inner)),
        Ty::Nullable(inner) => format!("{}?", ty(inner)),
        Ty::Counters(a, b) => format!("counters({a} x {b})"),
        Ty::OneOf(values) => {
            let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
            format!("one_of({})", quoted.join(", "))
        }
    }
}

fn attr(a: &FieldAttr) -> String {
    match a {
        FieldAttr::Key => "@key".to_owned(),
        FieldAttr::Unique => "@unique".to_owned(),
        FieldAttr::Index => "@index".to_owned(),
        FieldAttr::Expires => "@expires(30d)".to_owned(),
        FieldAttr::Stored(s) => format!("@stored(\"{s}\")"),
        FieldAttr::Immutable => "@immutable".to_owned(),
        FieldAttr::Sensitive => "@sensitive".to_owned(),
        FieldAttr::IgnoreCase => "@ignore_case".to_owned(),
        FieldAttr::Attributes => "@attributes".to_owned(),
        FieldAttr::Counter => "@counter".to_owned(),
        FieldAttr::Range(min, max) => format!("@range({min}, {max})"),
    }
}

/// A cardinality as written.
pub fn card(c: Card) -> String {
    match c {
        Card::One => "one".to_owned(),
        Card::OptionalOne => "one?".to_owned(),
        Card::Few(None) => "few".to_owned(),
        Card::Few(Some(n)) => format!("few({n})"),
        Card::Many(None, None) => "many".to_owned(),
        Card::Many(Some(n), None) => format!("many({n})"),
        Card::Many(Some(n), Some(t)) => format!("many({n}, typical {t})"),
        Card::Many(None, Some(t)) => format!("many(typical {t})"),
        Card::Squillions => "squillions".to_owned(),
    }
}

fn relation(out: &mut String, r: &Relation) {
    let _ = write!(
        out,
        "relation {}.{}: {} <-> {}.{}: {}",
        r.left.entity,
        r.left.field,
        card(r.left.card),
        r.right.entity,
        r.right.field,
        card(r.right.card)
    );
    if r.facts.is_empty() {
        out.push_str("\n\n");
        return;
    }
    out.push_str(" {\n");
    for f in &r.facts {
        out.push_str("  ");
        out.push_str(&fact(f));
        out.push('\n');
    }
    out.push_str("}\n\n");
}

fn by(field: &str, desc: bool) -> String {
    if desc {
        format!("by {field} desc")
    } else {
        format!("by {field}")
    }
}

fn keep(list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!(" keep {}", list.join(", "))
    }
}

fn fact(f: &Fact) -> String {
    match f {
        Fact::Standalone(e) => format!("standalone {e}"),
        Fact::Show {
            from,
            fields,
            on,
            ratio,
        } => {
            let paths: Vec<String> = fields.iter().map(|x| format!("{from}.{x}")).collect();
            let ratio = ratio.map(|r| format!(" ratio {r}:1")).unwrap_or_default();
            format!("show {} on {on}{ratio}", paths.join(", "))
        }
        Fact::NavigateBoth => "navigate both".to_owned(),
        Fact::Growth => "growth append_heavy, unbounded".to_owned(),
        Fact::AtomicMove => "atomic_move".to_owned(),
        Fact::Page(n, f, desc) => format!("page {n} {}", by(f, *desc)),
        Fact::Latest(n, f, desc, k) => format!("latest {n} {}{}", by(f, *desc), keep(k)),
        Fact::Top(n, f, desc, k) => format!("top {n} {}{}", by(f, *desc), keep(k)),
        Fact::Summary(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|(func, field)| match field {
                    Some(x) => format!("{func}({x})"),
                    None => func.clone(),
                })
                .collect();
            format!("summary {}", items.join(", "))
        }
        Fact::TimeRange(f) => format!("time_range by {f}"),
        Fact::Force(l, Some(n)) => format!("force {}({n})", l.as_str()),
        Fact::Force(l, None) => format!("force {}", l.as_str()),
        Fact::Fields(fs) => {
            let mut s = String::from("fields {\n");
            fields(&mut s, fs, "    ");
            s.push_str("  }");
            s
        }
    }
}

fn query(out: &mut String, q: &Query) {
    let _ = writeln!(out, "query {} on {} {{", q.name, q.on);
    if !q.conditions.is_empty() {
        let c: Vec<String> = q
            .conditions
            .iter()
            .map(|(p, op)| format!("{p} {op} ?"))
            .collect();
        let _ = writeln!(out, "  where {}", c.join(" and "));
    }
    if !q.sort.is_empty() {
        let s: Vec<String> = q
            .sort
            .iter()
            .map(|(p, d)| if *d { format!("{p} desc") } else { p.clone() })
            .collect();
        let _ = writeln!(out, "  sort {}", s.join(", "));
    }
    if let Some(l) = q.limit {
        let _ = writeln!(out, "  limit {l}");
    }
    if !q.returns.is_empty() {
        let _ = writeln!(out, "  returns {}", q.returns.join(", "));
    }
    out.push_str("}\n\n");
}
