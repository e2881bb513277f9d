//! A Plan diff laid out for people: terminal text or Markdown. The words come from
//! [`crate::prose::diff`]; this module only arranges them, with every invisible character of the
//! schema's names (control characters, bidi overrides) written out as `\u{202e}`, as the review
//! shows them.

use crate::prose::diff::{sections, summary};

use super::PlanDiff;

/// Terminal text: the summary, then each section with its changes and their details indented.
pub fn text(d: &PlanDiff) -> String {
    let mut out = format!("{}\n", summary(d));
    for s in sections(d) {
        out.push_str(&format!("\n{}:\n", s.title));
        for i in s.items {
            out.push_str(&format!("  - {}\n", i.text));
            for detail in i.details {
                out.push_str(&format!("      {detail}\n"));
            }
        }
    }
    squillion_grammar::escape_invisible(&out).into_owned()
}

/// GitHub-flavoured Markdown under a heading of `level` (`##`), each section one level below.
pub fn markdown(d: &PlanDiff, level: usize) -> String {
    let md = crate::review::markdown_inline;
    let hashes = "#".repeat(level.clamp(1, 5));
    let mut out = format!(
        "{hashes} Changes since `{}`\n\n{}\n",
        d.old_source.replace('`', "'"),
        md(summary(d))
    );
    for s in sections(d) {
        out.push_str(&format!("\n{hashes}# {}\n\n", s.title));
        for i in s.items {
            out.push_str(&format!("- {}\n", md(i.text)));
            for detail in i.details {
                out.push_str(&format!("  - {}\n", md(detail)));
            }
        }
    }
    squillion_grammar::escape_invisible(&out).into_owned()
}
