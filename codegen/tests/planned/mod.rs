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
