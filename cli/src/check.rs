//! `squillion check FILE...`: validate schemas.

use std::path::PathBuf;

use serde::Serialize;
use squillion_grammar::LocatedDiagnostic;

use crate::input::{read_schema, stderr_color, Unread};
use crate::Exit;

/// Arguments of `squillion check`.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    /// Schema files (`.sqn`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format: human-readable text, or JSON diagnostics on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutputFormat,
}

/// Text or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// For people.
    Text,
    /// For tools.
    Json,
}

#[derive(Serialize)]
struct FileReport {
    file: String,
    ok: bool,
    summary: Option<Summary>,
    diagnostics: Vec<LocatedDiagnostic>,
}

#[derive(Serialize)]
struct Summary {
    entities: usize,
    values: usize,
    relations: usize,
    queries: usize,
}

/// Runs `check`.
pub fn run(args: &CheckArgs) -> Exit {
    let mut reports = Vec::new();
    let mut exit = Exit::Ok;
    for path in &args.files {
        let source = match read_schema(path) {
            Ok(s) => s,
            Err(Unread::NotText(e)) => {
                exit = exit.max(Exit::Failed);
                if args.format == OutputFormat::Text {
                    err!(
                        "{}",
                        e.source
                            .render(std::slice::from_ref(&e.diagnostic), stderr_color())
                    );
                }
                reports.push(FileReport {
                    file: e.source.name().to_owned(),
                    ok: false,
                    summary: None,
                    diagnostics: vec![e.source.locate(&e.diagnostic)],
                });
                continue;
            }
            Err(unread) => {
                exit = exit.max(unread.report());
                continue;
            }
        };
        match squillion_codegen::pipeline::check(&source) {
            Ok(valid) => {
                let checked = valid.checked;
                // What `generate` and build.rs would print too: the Plan's warnings beside the
                // schema's own, in the file's order.
                let mut warnings = checked.warnings;
                warnings.extend(valid.plan_warnings);
                warnings.sort_by_key(|d| d.span.start);
                let m = &checked.model;
                let summary = Summary {
                    entities: m.entities.len(),
                    values: m.values.len(),
                    relations: m.relations.len(),
                    queries: m.queries.len(),
                };
                if args.format == OutputFormat::Text {
                    let printed = outln!(
                        "{}: ok ({} entities, {} value types, {} relations, {} queries)",
                        source.name(),
                        summary.entities,
                        summary.values,
                        summary.relations,
                        summary.queries
                    );
                    if let Err(failed) = printed {
                        exit = exit.max(failed);
                    }
                    if !warnings.is_empty() {
                        err!("{}", source.render(&warnings, stderr_color()));
                    }
                }
                reports.push(FileReport {
                    file: source.name().to_owned(),
                    ok: true,
                    summary: Some(summary),
                    diagnostics: warnings.iter().map(|d| source.locate(d)).collect(),
                });
            }
            Err(diags) => {
                exit = exit.max(Exit::Failed);
                if args.format == OutputFormat::Text {
                    err!("{}", source.render(&diags, stderr_color()));
                }
                reports.push(FileReport {
                    file: source.name().to_owned(),
                    ok: false,
                    summary: None,
                    diagnostics: diags.iter().map(|d| source.locate(d)).collect(),
                });
            }
        }
    }
    if args.format == OutputFormat::Json {
        let out = serde_json::json!({ "files": reports });
        if let Err(failed) = outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default()) {
            exit = exit.max(failed);
        }
    }
    exit
}
