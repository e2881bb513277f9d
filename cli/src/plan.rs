//! `squillion plan FILE [--json | --explain]`: the layout of every relationship and collection.

use std::path::PathBuf;

use squillion_codegen::prose::n_of;

use crate::input::{read_schema, stderr_color};
use crate::Exit;

/// Arguments of `squillion plan`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// Print the Plan as JSON (format: docs/plan.schema.json).
    #[arg(long, conflicts_with = "explain")]
    pub json: bool,
    /// Print every decision with its facts, rules and rejected alternatives.
    #[arg(long)]
    pub explain: bool,
}

/// Runs `plan`. Exit 1 when the schema is invalid or the plan has errors (a document over 16 MB).
pub fn run(args: &PlanArgs) -> Exit {
    let source = match read_schema(&args.file) {
        Ok(s) => s,
        Err(unread) => return unread.report(),
    };
    let checked = match squillion_codegen::load(&source) {
        Ok(c) => c,
        Err(diags) => {
            err!("{}", source.render(&diags, stderr_color()));
            return Exit::Failed;
        }
    };
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    let printed = if args.json {
        outln!("{}", plan.to_json())
    } else if args.explain {
        out!("{}", squillion_codegen::explain::explain(&plan))
    } else {
        out!("{}", summary(&plan))
    };
    if let Err(exit) = printed {
        return exit;
    }
    if plan.has_errors() {
        let errors = squillion_codegen::pipeline::plan_diagnostics(&plan);
        let errors: Vec<_> = errors.into_iter().filter(|d| d.is_error()).collect();
        err!("{}", source.render(&errors, stderr_color()));
        return Exit::Failed;
    }
    Exit::Ok
}

/// One line per relationship and per collection.
fn summary(plan: &squillion_codegen::plan::Plan) -> String {
    let mut out = String::new();
    for d in &plan.relationships {
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
        out.push_str(&format!(
            "{:<28} {}{modifiers}\n",
            d.id,
            d.strategy.as_str()
        ));
    }
    out.push('\n');
    for c in &plan.collections {
        out.push_str(&format!(
            "{:<28} {}, {}, ~{} B\n",
            c.name,
            n_of(c.fields.len() as u64, "field"),
            n_of(c.indexes.len() as u64, "index"),
            c.size.average
        ));
    }
    if !plan.warnings.is_empty() {
        out.push_str(&format!(
            "\n{} (see --explain)\n",
            n_of(plan.warnings.len() as u64, "warning")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use squillion_codegen::prose::n_of;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        for (one, many) in [
            ("field", "fields"),
            ("index", "indexes"),
            ("warning", "warnings"),
        ] {
            assert_eq!(n_of(1, one), format!("1 {one}"));
            for n in [0u64, 2, 3, 10, 101] {
                assert_eq!(n_of(n, one), format!("{n} {many}"));
            }
        }
    }
}
