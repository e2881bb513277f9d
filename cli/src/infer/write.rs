//! The one place that writes `.sqn` text: a [`Draft`] in the language of `docs/language.md`,
//! laid out as `squillion fmt` lays it out.

use std::fmt::Write as _;

use super::draft::{
    Attr, Card, Draft, End, EntityDecl, FactKind, FieldDecl, QueryDecl, RelationDecl, Summary,
    TypeExpr, ValueDecl,
};

/// The draft as formatted `.sqn` text, or the syntax errors of text that did not parse (a defect
/// of `infer`, which its tests keep from happening).
pub fn write(draft: &Draft) -> Result<String, String> {
    let text = raw(draft);
    squillion_grammar::format(&text).map_err(|diagnostics| {
        let source = squillion_grammar::SourceFile::new("draft.sqn".to_owned(), text);
        source.render(&diagnostics, false)
    })
}

/// The text before formatting.
pub fn raw(d: &Draft) -> String {
    let mut out = String::new();
    for line in &d.header {
        comment(&mut out, "", line);
    }
    for v in &d.values {
        out.push('\n');
        value(&mut out, v);
    }
    for e in &d.entities {
        out.push('\n');
        entity(&mut out, e);
    }
    for r in &d.relations {
        out.push('\n');
        relation(&mut out, r);
    }
    for q in &d.queries {
        out.push('\n');
        query(&mut out, q);
    }
    out
}

/// A comment line, made safe: no line breaks or other control characters.
fn comment(out: &mut String, indent: &str, text: &str) {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.trim_end();
    if clean.is_empty() {
        let _ = writeln!(out, "{indent}//");
    } else {
        // `///` would make it a doc comment and `////` a banner: keep a space after `//`.
        let _ = writeln!(out, "{indent}// {clean}");
    }
}

/// A string literal: quotes and backslashes escaped (control characters never reach here).
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn value(out: &mut String, v: &ValueDecl) {
    for c in &v.comments {
        comment(out, "", c);
    }
    let _ = writeln!(out, "value {} {{", v.name);
    for f in &v.fields {
        field(out, "  ", f);
    }
    out.push_str("}\n");
}

fn entity(out: &mut String, e: &EntityDecl) {
    for c in &e.comments {
        comment(out, "", c);
    }
    let mut head = format!("entity {}", e.name);
    if let Some(c) = &e.collection {
        let _ = write!(head, " @collection({})", string(c));
    }
    if e.tree {
        head.push_str(" @tree");
    }
    if e.versioned_future {
        head.push_str(" @versioned(future)");
    }
    if let Some(d) = &e.discriminator {
        let _ = write!(head, " @polymorphic(discriminator: {})", string(d));
    }
    if let Some(v) = e.schema_version {
        let _ = write!(head, " @schema_version({v})");
    }
    let _ = writeln!(out, "{head} {{");
    for f in &e.fields {
        field(out, "  ", f);
    }
    for v in &e.variants {
        for c in &v.comments {
            comment(out, "  ", c);
        }
        let _ = writeln!(out, "  variant {} {{", v.name);
        for f in &v.fields {
            field(out, "    ", f);
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
}

fn field(out: &mut String, indent: &str, f: &FieldDecl) {
    for c in &f.comments {
        comment(out, indent, c);
    }
    let mut line = format!("{indent}{}: {}", f.name, type_expr(&f.ty));
    if f.optional {
        line.push('?');
    }
    for a in &f.attrs {
        line.push(' ');
        line.push_str(&attr(a));
    }
    match &f.trailing {
        Some(t) => {
            let mut c = String::new();
            comment(&mut c, "", t);
            let _ = write!(out, "{line}  {c}");
        }
        None => {
            let _ = writeln!(out, "{line}");
        }
    }
}

fn type_expr(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Named(n) => n.clone(),
        TypeExpr::Array {
            element,
            nullable,
            max,
        } => {
            let q = if *nullable { "?" } else { "" };
            match max {
                Some(m) => format!("[{}{q}; {m}]", type_expr(element)),
                None => format!("[{}{q}]", type_expr(element)),
            }
        }
        TypeExpr::Map(inner) => format!("map<{}>", type_expr(inner)),
    }
}

fn attr(a: &Attr) -> String {
    match a {
        Attr::Key => "@key".to_owned(),
        Attr::Unique => "@unique".to_owned(),
        Attr::IgnoreCase => "@ignore_case".to_owned(),
        Attr::Stored(s) => format!("@stored({})", string(s)),
        Attr::Expires(secs) => format!("@expires({})", duration(*secs)),
        Attr::Attributes => "@attributes".to_owned(),
    }
}

/// A duration in the largest unit that divides it: `30d`, `12h`, `90min`, `45s`.
fn duration(secs: u64) -> String {
    for (unit, size) in [("d", 86_400), ("h", 3_600), ("min", 60)] {
        if secs >= size && secs % size == 0 {
            return format!("{}{unit}", secs / size);
        }
    }
    format!("{secs}s")
}

fn card(c: Card) -> String {
    let args = |max: Option<u64>, typical: Option<u64>| match (max, typical) {
        (Some(m), Some(t)) => format!("({m}, typical {t})"),
        (Some(m), None) => format!("({m})"),
        (None, Some(t)) => format!("(typical {t})"),
        (None, None) => String::new(),
    };
    match c {
        Card::One => "one".to_owned(),
        Card::Few { max, typical } => format!("few{}", args(max, typical)),
        Card::Many { max, typical } => format!("many{}", args(max, typical)),
        Card::Squillions => "squillions".to_owned(),
    }
}

pub(super) fn end(e: &End) -> String {
    format!("{}.{}: {}", e.entity, e.field, card(e.card))
}

fn relation(out: &mut String, r: &RelationDecl) {
    for c in &r.comments {
        comment(out, "", c);
    }
    let head = format!("relation {} <-> {}", end(&r.left), end(&r.right));
    if r.facts.is_empty() {
        let _ = writeln!(out, "{head}");
        return;
    }
    let _ = writeln!(out, "{head} {{");
    for f in &r.facts {
        for c in &f.comments {
            comment(out, "  ", c);
        }
        if let FactKind::Fields(fields) = &f.kind {
            out.push_str("  fields {\n");
            for d in fields {
                field(out, "    ", d);
            }
            out.push_str("  }\n");
            continue;
        }
        let _ = writeln!(out, "  {}", fact(&f.kind));
    }
    out.push_str("}\n");
}

fn direction(desc: bool) -> &'static str {
    if desc {
        "desc"
    } else {
        "asc"
    }
}

fn keep(fields: &[String]) -> String {
    if fields.is_empty() {
        String::new()
    } else {
        format!(" keep {}", fields.join(", "))
    }
}

pub(super) fn fact(f: &FactKind) -> String {
    match f {
        FactKind::Standalone(e) => format!("standalone {e}"),
        FactKind::Show { fields, on, ratio } => {
            let mut s = format!("show {} on {on}", fields.join(", "));
            if let Some((r, w)) = ratio {
                let _ = write!(s, " ratio {r}:{w}");
            }
            s
        }
        FactKind::NavigateBoth => "navigate both".to_owned(),
        FactKind::Page { size, by } => match by {
            Some((f, desc)) => format!("page {size} by {f} {}", direction(*desc)),
            None => format!("page {size}"),
        },
        FactKind::Latest { n, by, keep: k } => {
            format!("latest {n} by {} {}{}", by.0, direction(by.1), keep(k))
        }
        FactKind::Top { n, by, keep: k } => {
            format!("top {n} by {} {}{}", by.0, direction(by.1), keep(k))
        }
        FactKind::Summary { items, per_bucket } => {
            let items: Vec<String> = items
                .iter()
                .map(|s| match s {
                    Summary::Count => "count".to_owned(),
                    Summary::Total(f) => format!("total({f})"),
                    Summary::Max(f) => format!("max({f})"),
                    Summary::Min(f) => format!("min({f})"),
                })
                .collect();
            let scope = if *per_bucket { " per bucket" } else { "" };
            format!("summary {}{scope}", items.join(", "))
        }
        FactKind::TimeRange(f) => format!("time_range by {f}"),
        FactKind::Fields(_) => String::new(),
    }
}

fn query(out: &mut String, q: &QueryDecl) {
    for c in &q.comments {
        comment(out, "", c);
    }
    let _ = writeln!(out, "query {} on {} {{", q.name, q.on);
    if !q.conditions.is_empty() {
        let conditions: Vec<String> = q
            .conditions
            .iter()
            .map(|(p, ic)| {
                if *ic {
                    format!("{p} == ? ignore_case")
                } else {
                    format!("{p} == ?")
                }
            })
            .collect();
        let _ = writeln!(out, "  where {}", conditions.join(" and "));
    }
    if !q.sort.is_empty() {
        let keys: Vec<String> = q
            .sort
            .iter()
            .map(|(p, desc)| {
                if *desc {
                    format!("{p} desc")
                } else {
                    p.clone()
                }
            })
            .collect();
        let _ = writeln!(out, "  sort {}", keys.join(", "));
    }
    if let Some(n) = q.limit {
        let _ = writeln!(out, "  limit {n}");
    }
    if let Some(r) = q.rate_per_second {
        let _ = writeln!(out, "  rate {}", rate(r));
    }
    out.push_str("}\n");
}

/// A rate in the unit that gives a number of at least one, with at most two decimals:
/// `12/s`, `1.5/min`, `3/day`.
pub fn rate(per_second: f64) -> String {
    let units = [
        ("s", 1.0),
        ("min", 60.0),
        ("h", 3_600.0),
        ("day", 86_400.0),
        ("week", 604_800.0),
        ("month", 2_592_000.0),
        ("year", 31_536_000.0),
    ];
    for (unit, secs) in units {
        let n = per_second * secs;
        if n >= 1.0 || unit == "year" {
            let rounded = (n * 100.0).round() / 100.0;
            let rounded = if rounded <= 0.0 { 0.01 } else { rounded };
            let text = format!("{rounded:.2}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            return format!("{text}/{unit}");
        }
    }
    "1/year".to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::draft::{Fact, VariantDecl};
    use super::*;

    fn f(name: &str, ty: &str) -> FieldDecl {
        FieldDecl {
            name: name.into(),
            ty: TypeExpr::Named(ty.into()),
            optional: false,
            attrs: vec![],
            comments: vec![],
            trailing: None,
        }
    }

    /// Every construct the writer knows, with hostile comment and string text, gives a file that
    /// parses, checks and is already formatted.
    #[test]
    fn every_construct_is_valid_formatted_sqn() {
        let mut key = f("key", "string");
        key.attrs = vec![Attr::Key];
        key.trailing = Some("measured: all\nstrings /// not a doc".into());
        let mut odd = f("first_name", "string");
        odd.attrs = vec![Attr::Stored("first \"name\" \\".into()), Attr::Unique];
        odd.optional = true;
        let mut tags = f("tags", "string");
        tags.ty = TypeExpr::Array {
            element: Box::new(TypeExpr::Named("string".into())),
            nullable: true,
            max: Some(7),
        };
        let mut ttl = f("created", "date");
        ttl.attrs = vec![Attr::Expires(3600)];
        let mut attrs = f("attrs", "string");
        attrs.ty = TypeExpr::Map(Box::new(TypeExpr::Named("string".into())));
        attrs.attrs = vec![Attr::Attributes];
        let draft = Draft {
            header: vec!["inferred".into(), "".into(), "/ slash".into()],
            values: vec![ValueDecl {
                name: "Publisher".into(),
                comments: vec!["a value".into()],
                fields: vec![f("city", "string")],
            }],
            entities: vec![
                EntityDecl {
                    name: "User".into(),
                    place: "users".into(),
                    collection: Some("users".into()),
                    comments: vec!["users: 3 documents".into()],
                    tree: false,
                    versioned_future: false,
                    discriminator: None,
                    schema_version: Some(2),
                    fields: vec![key, odd, tags, ttl, attrs, f("publisher", "Publisher")],
                    variants: vec![],
                },
                EntityDecl {
                    name: "Shape".into(),
                    place: "shapes".into(),
                    collection: Some("shapes".into()),
                    comments: vec![],
                    tree: true,
                    versioned_future: true,
                    discriminator: Some("type".into()),
                    schema_version: None,
                    fields: vec![f("area", "double")],
                    variants: vec![VariantDecl {
                        name: "circle".into(),
                        comments: vec!["12 of 40".into()],
                        fields: vec![f("radius", "double")],
                    }],
                },
            ],
            relations: vec![RelationDecl {
                comments: vec!["measured: p50 3".into()],
                left: End {
                    entity: "User".into(),
                    field: "shapes".into(),
                    card: Card::Few {
                        max: Some(12),
                        typical: Some(3),
                    },
                },
                right: End {
                    entity: "Shape".into(),
                    field: "user".into(),
                    card: Card::One,
                },
                facts: vec![
                    Fact {
                        comments: vec!["why".into()],
                        kind: FactKind::Standalone("Shape".into()),
                    },
                    Fact {
                        comments: vec![],
                        kind: FactKind::Show {
                            fields: vec!["User.first_name".into()],
                            on: "Shape".into(),
                            ratio: Some((100, 1)),
                        },
                    },
                    Fact {
                        comments: vec![],
                        kind: FactKind::Page {
                            size: 10,
                            by: Some(("area".into(), true)),
                        },
                    },
                    Fact {
                        comments: vec![],
                        kind: FactKind::Summary {
                            items: vec![Summary::Count, Summary::Max("area".into())],
                            per_bucket: true,
                        },
                    },
                ],
            }],
            queries: vec![QueryDecl {
                name: "by_first_name".into(),
                on: "User".into(),
                comments: vec!["index first_name_1".into()],
                conditions: vec![("first_name".into(), true)],
                sort: Vec::new(),
                limit: None,
                rate_per_second: Some(0.002),
            }],
        };
        let text = write(&draft).unwrap();
        assert_eq!(squillion_grammar::format(&text).unwrap(), text);
        let source = squillion_grammar::SourceFile::new("d.sqn", text.clone());
        if let Err(d) = squillion_codegen::load(&source) {
            panic!("{}\n{text}", source.render(&d, false));
        }
        assert!(
            text.contains("// measured: all strings /// not a doc"),
            "{text}"
        );
        assert!(text.contains(r#"@stored("first \"name\" \\")"#), "{text}");
        assert!(text.contains("relation User.shapes: few(12, typical 3) <-> Shape.user: one {"));
        assert!(text.contains("rate 7.2/h"), "{text}");
        assert!(text.contains("@expires(1h)"));
    }

    #[test]
    fn rates_pick_a_readable_unit() {
        assert_eq!(rate(12.0), "12/s");
        assert_eq!(rate(0.5), "30/min");
        assert_eq!(rate(1.0 / 86_400.0), "1/day");
        assert_eq!(rate(0.0), "0.01/year");
    }
}
