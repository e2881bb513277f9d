//! `squillion review`: the design-review printout of a Plan, in Markdown, HTML or terminal text.
//!
//! A reviewer reading only this document must be able to tell why each layout was chosen and what
//! it costs: per relationship the decision, the facts it rests on, the rules cited (with their
//! text), the alternatives rejected and the obligations it creates; per collection the document
//! shape, a sample document, sizes, indexes with the queries they serve and the validator; the
//! anti-pattern warnings with their source positions; and an entity-relationship diagram.
//!
//! Reads only the [`Plan`]: [`view`] turns it into the data the templates show (formatting, never
//! deciding), [`diagram`] lays the diagram out with `layout-rs` and draws it as SVG, [`sample`]
//! writes sample documents. The templates (`templates/*.jinja`) are embedded with `include_str!`
//! and rendered by minijinja with strict undefined behaviour, so a misspelt name fails the render
//! instead of printing nothing.

mod canvas;
pub mod diagram;
pub mod sample;
mod text;
pub mod view;

use std::fmt;
use std::str::FromStr;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};

use crate::plan::Plan;

/// The document kind to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GitHub-flavoured Markdown; the diagram is a side file (`<stem>.erd.svg`) linked from it.
    Markdown,
    /// One self-contained HTML file: inline CSS and inline SVG, print-ready.
    Html,
    /// Terminal text, with ANSI colour when `color` is set.
    Text {
        /// Emit ANSI colour codes.
        color: bool,
    },
}

impl Format {
    /// The formats' names on the command line.
    pub const NAMES: [&'static str; 3] = ["md", "html", "text"];

    /// The usual file extension of the main document.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Text { .. } => "txt",
        }
    }
}

impl FromStr for Format {
    type Err = ReviewError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "md" | "markdown" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            "text" | "txt" => Ok(Format::Text { color: false }),
            other => Err(ReviewError::UnknownFormat {
                name: other.to_owned(),
            }),
        }
    }
}

/// A file written beside the main document (the diagram of a Markdown review).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    /// File name, relative to the main document's folder (the main document links it by this
    /// name).
    pub name: String,
    /// Its content.
    pub content: String,
}

/// A rendered review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The main document.
    pub main: String,
    /// Files the main document links to, to be written beside it.
    pub files: Vec<SideFile>,
}

/// Why a review could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// `--format` named no known format.
    #[error("unknown review format `{name}` (expected one of: md, html, text)")]
    UnknownFormat {
        /// The name given.
        name: String,
    },
    /// A template failed (a bug in squillion: templates are embedded and tested).
    #[error("review template `{template}` failed: {detail}")]
    Template {
        /// The template's name.
        template: &'static str,
        /// minijinja's description, with the line.
        detail: String,
    },
    /// The layout library could not lay the diagram out.
    #[error("the entity-relationship diagram could not be laid out: {reason}")]
    Diagram {
        /// What went wrong.
        reason: String,
    },
}

const MARKDOWN: (&str, &str) = ("review.md.jinja", include_str!("templates/review.md.jinja"));
const HTML: (&str, &str) = (
    "review.html.jinja",
    include_str!("templates/review.html.jinja"),
);
const TEXT: (&str, &str) = (
    "review.txt.jinja",
    include_str!("templates/review.txt.jinja"),
);

/// Markdown inline text as the review writes it: code spans kept, everything else escaped.
pub fn markdown_inline(s: String) -> String {
    text::md(s)
}

/// Renders the review of `plan` in `format`.
pub fn render(plan: &Plan, format: Format) -> Result<Rendered, ReviewError> {
    render_with_changes(plan, None, format)
}

/// Renders the review of `plan` in `format`, with a "Changes since" section from `changes` (the
/// diff from an earlier Plan of the schema to `plan`) after the summary.
pub fn render_with_changes(
    plan: &Plan,
    changes: Option<&crate::diff::PlanDiff>,
    format: Format,
) -> Result<Rendered, ReviewError> {
    let svg = squillion_grammar::escape_invisible(&diagram::svg(plan)?).into_owned();
    let svg_name = format!("{}.erd.svg", view::file_stem(&plan.source));
    let mut data = view::Review::new(plan, &svg, &svg_name);
    data.changes = changes.map(view::ChangesView::new);
    let review = visible(
        serde_json::to_value(data).map_err(|e| ReviewError::Template {
            template: "review data",
            detail: e.to_string(),
        })?,
    );
    let (template, color) = match format {
        Format::Markdown => (MARKDOWN, false),
        Format::Html => (HTML, false),
        Format::Text { color } => (TEXT, color),
    };
    let env = environment(color)?;
    let tmpl = env
        .get_template(template.0)
        .map_err(|e| error(template.0, &e))?;
    let mut main = tmpl
        .render(Value::from_serialize(&review))
        .map_err(|e| error(template.0, &e))?;
    if format != Format::Html {
        // Trailing spaces are noise in a terminal, and a line break in Markdown.
        main = main
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n");
    }
    if !main.ends_with('\n') {
        main.push('\n');
    }
    let files = match format {
        Format::Markdown => vec![SideFile {
            name: svg_name,
            content: svg,
        }],
        _ => Vec::new(),
    };
    Ok(Rendered { main, files })
}

/// Every string of the review's data with its invisible characters (control characters, bidi
/// overrides, zero-width marks: they come from the schema's names and comments) written out as
/// `\u{202e}`, so no format shows text that reads differently from what it is, and no terminal
/// obeys an escape sequence from a schema.
fn visible(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as V;
    match value {
        V::String(s) => V::String(squillion_grammar::escape_invisible(&s).into_owned()),
        V::Array(items) => V::Array(items.into_iter().map(visible).collect()),
        V::Object(map) => V::Object(map.into_iter().map(|(k, v)| (k, visible(v))).collect()),
        other => other,
    }
}

fn environment(color: bool) -> Result<Environment<'static>, ReviewError> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html.jinja") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    for (name, source) in [MARKDOWN, HTML, TEXT] {
        env.add_template(name, source)
            .map_err(|e| error(static_name(name), &e))?;
    }
    text::register_filters(&mut env, color);
    Ok(env)
}

fn static_name(name: &str) -> &'static str {
    [MARKDOWN, HTML, TEXT]
        .into_iter()
        .map(|t| t.0)
        .find(|n| *n == name)
        .unwrap_or("template")
}

fn error(template: &'static str, e: &minijinja::Error) -> ReviewError {
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail.push_str(&format!(": {s}"));
        source = s.source();
    }
    if let Some(line) = e.line() {
        detail.push_str(&format!(" (line {line})"));
    }
    ReviewError::Template { template, detail }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Text { .. } => "text",
        })
    }
}
