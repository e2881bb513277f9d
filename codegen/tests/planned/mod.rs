//! The Plan of a schema given as text, for the tests that state schemas inline: one place that
//! loads, checks and plans it, and says why when it does not check.
#![allow(dead_code)]

use squillion_codegen::plan::{Decision, Plan};
use squillion_grammar::SourceFile;

/// The Plan of `src`, which must check (the panic shows its diagnostics and the text).
pub fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!(
            "schema does not check:\n{}\n{src}",
            source.render(&diags, false)
        ),
    }
}

/// The first diagnostic of `src`, which must not check (the panic shows the text).
pub fn first_error(src: &str) -> squillion_grammar::Diagnostic {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(_) => panic!("checks, but should not:\n{src}"),
        Err(d) => d
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no error\n{src}")),
    }
}

/// `snake_case` of a `PascalCase` name (`LogMessage` -> `log_message`).
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The decision about relationship `id`, which must exist.
pub fn decision<'p>(p: &'p Plan, id: &str) -> &'p Decision {
    p.relationship(id)
        .unwrap_or_else(|| panic!("no decision {id}"))
}

/// The bound a cardinality as written puts in force (`few(20)`: 20; `few`: rule 3's 200;
/// `many`: 5,000; `None`: unbounded).
#[allow(dead_code)] // not every test crate including this module reads bounds
pub fn bound(card: &str) -> Option<u64> {
    let declared = card
        .trim_end_matches(')')
        .split('(')
        .nth(1)
        .and_then(|n| n.parse().ok());
    declared.or(match card {
        "few" => Some(200),
        "many" => Some(5000),
        _ => None,
    })
}

/// A one-to-many `P.<c>s: card <-> C.<p>: one` with `growth kinds`, `navigate` (`PARENT` stands
/// for `P`) and `standalone C` if asked, its relation block left open for more facts.
#[allow(dead_code)] // not every test crate including this module draws growth schemas
pub fn growth_schema(
    (p, c): (&str, &str),
    card: &str,
    kinds: &str,
    navigate: &str,
    standalone: bool,
) -> String {
    let (pf, cf) = (format!("{}s", snake(c)), snake(p));
    let mut src = format!(
        "entity {p} {{ name: string }}\nentity {c} {{ title: string  at: date }}\n\
         relation {p}.{pf}: {card} <-> {c}.{cf}: one {{\n  growth {kinds}\n  {}\n",
        navigate.replace("PARENT", p)
    );
    if standalone {
        src.push_str(&format!("  standalone {c}\n"));
    }
    src
}
