//! `squillion review FILE --format md|html|text [-o OUT]`: the design-review document of a schema.
//!
//! Markdown links its diagram as a side file (`<stem>.erd.svg`), written beside `OUT`; HTML is one
//! self-contained file; text is for the terminal, coloured when standard output is a terminal,
//! `NO_COLOR` is unset and no `-o` is given.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use squillion_codegen::files::{write_all, Output};
use squillion_codegen::review::{self, Format};
use squillion_grammar::SourceFile;

use crate::input::{read_schema, stderr_color, Unread};

/// The document formats on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReviewFormat {
    /// GitHub-flavoured Markdown (the diagram as a linked SVG file beside the output).
    Md,
    /// One self-contained HTML file (inline CSS and SVG), ready to print.
    Html,
    /// Terminal text.
    Text,
}

/// Arguments of `squillion review`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewArgs {
    /// The schema file (`.sqn`).
    pub file: PathBuf,
    /// The document format.
    #[arg(long, short = 'f', value_enum, default_value = "md")]
    pub format: ReviewFormat,
    /// Write the document to this file (and the Markdown diagram beside it) instead of stdout.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Add a "Changes since" section: what changed since FILE's version at this git revision.
    #[arg(long, value_name = "REV", conflicts_with = "since")]
    pub base: Option<String>,
    /// Add a "Changes since" section: what changed since this earlier schema file.
    #[arg(long, value_name = "OLD")]
    pub since: Option<PathBuf>,
}

/// Why `squillion review` failed.
#[derive(Debug)]
pub enum ReviewFailure {
    /// The schema file could not be read (a directory, missing, not UTF-8).
    Unreadable(String),
    /// The file could not be read or the output written.
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The schema has errors; the rendered diagnostics.
    Invalid(String),
    /// The review could not be rendered.
    Render(review::ReviewError),
    /// The earlier version of the schema (`--base`, `--since`) could not be read or checked;
    /// why was said on standard error.
    Base,
}

impl std::fmt::Display for ReviewFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewFailure::Unreadable(message) => f.write_str(message),
            ReviewFailure::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ReviewFailure::Invalid(diagnostics) => f.write_str(diagnostics.trim_end()),
            ReviewFailure::Render(e) => write!(f, "{e}"),
            ReviewFailure::Base => f.write_str("the earlier version of the schema is unusable"),
        }
    }
}

impl std::error::Error for ReviewFailure {}

/// Whether terminal output should be coloured: a terminal, `NO_COLOR` unset, no output file.
pub fn use_color(args: &ReviewArgs) -> bool {
    args.output.is_none()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stdout().is_terminal()
}

/// Runs `squillion review`, writing the document to `stdout` (or `-o`) and notes to `stderr`.
pub fn run(
    args: &ReviewArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), ReviewFailure> {
    let source: SourceFile = read_schema(&args.file).map_err(|unread| match unread {
        Unread::Unreadable(message) => ReviewFailure::Unreadable(message),
        Unread::NotText(e) => {
            ReviewFailure::Invalid(e.source.render(&[e.diagnostic], stderr_color()))
        }
    })?;
    let checked = squillion_codegen::load(&source).map_err(|diagnostics| {
        ReviewFailure::Invalid(source.render(&diagnostics, stderr_color()))
    })?;
    if !checked.warnings.is_empty() {
        let _ = write!(
            stderr,
            "{}",
            source.render(&checked.warnings, stderr_color())
        );
    }
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    if plan.has_errors() {
        // The review is how a team looks at a design that cannot work: write it, and say so.
        let _ = writeln!(
            stderr,
            "note: the plan has errors (see the Warnings section of the review)"
        );
    }
    let format = match args.format {
        ReviewFormat::Md => Format::Markdown,
        ReviewFormat::Html => Format::Html,
        ReviewFormat::Text => Format::Text {
            color: use_color(args),
        },
    };
    let base = match (&args.base, &args.since) {
        (Some(rev), _) => Some(crate::diff::plan_at(&args.file, rev)),
        (None, Some(old)) => Some(crate::diff::plan_of_file(old)),
        (None, None) => None,
    };
    let changes = match base {
        Some(Ok(old)) => Some(squillion_codegen::diff::diff(&old, &plan)),
        Some(Err(())) => return Err(ReviewFailure::Base),
        None => None,
    };
    let rendered = review::render_with_changes(&plan, changes.as_ref(), format)
        .map_err(ReviewFailure::Render)?;
    match &args.output {
        Some(out) => {
            // The document and its side files, all or nothing.
            let dir = out.parent().unwrap_or_else(|| Path::new(""));
            let mut files = vec![Output {
                path: out.clone(),
                content: rendered.main,
            }];
            files.extend(rendered.files.iter().map(|side| Output {
                path: dir.join(&side.name),
                content: side.content.clone(),
            }));
            write_all(&files).map_err(|e| ReviewFailure::Io {
                path: e.path,
                error: e.source,
            })?;
            // Say what was written, as `generate` and `migrate -o` do.
            for f in &files {
                if let Err(error) = writeln!(stdout, "wrote {}", f.path.display()) {
                    if !crate::output::is_closed_pipe(&error) {
                        return Err(ReviewFailure::Io {
                            path: PathBuf::from("<stdout>"),
                            error,
                        });
                    }
                }
            }
        }
        None => {
            match stdout
                .write_all(rendered.main.as_bytes())
                .and_then(|()| stdout.flush())
            {
                // A reader that stopped early (`| head`) has read enough.
                Err(error) if !crate::output::is_closed_pipe(&error) => {
                    return Err(ReviewFailure::Io {
                        path: PathBuf::from("<stdout>"),
                        error,
                    });
                }
                _ => {}
            }
            for side in &rendered.files {
                let _ = writeln!(
                    stderr,
                    "note: the diagram `{}` is written only with -o (beside the document)",
                    side.name
                );
            }
        }
    }
    Ok(())
}
