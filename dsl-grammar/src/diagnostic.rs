//! Diagnostics: coded, positioned messages about a `.sqn` file, and their rendering.
//!
//! Every pass (syntax here, resolution and validation in `squillion-codegen`, the decision engine)
//! reports [`Diagnostic`]s. Each has a stable code documented in `docs/diagnostics.md`, a primary
//! span, optional secondary labels and a help line. Rendering goes through `miette`.

use std::fmt;

use serde::Serialize;

use crate::span::{LineIndex, Span};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The file cannot be used.
    Error,
    /// The file can be used, but something deserves attention.
    Warning,
}

/// A secondary label: another place that explains the diagnostic ("first declared here").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// One coded message about a source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0201`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// One sentence saying what is wrong.
    pub message: String,
    /// The text it is about.
    pub span: Span,
    /// Text under the primary span, if more specific than the message.
    pub label: Option<String>,
    /// Other places worth showing.
    pub related: Vec<Label>,
    /// How to fix it, where known.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error with `code` and `message` at `span`.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            related: Vec::new(),
            help: None,
        }
    }

    /// A warning with `code` and `message` at `span`.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Adds the text shown under the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a secondary label.
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {}",
            severity_word(self.severity),
            self.code,
            self.message
        )
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A diagnostic located in a named file: what `--format json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocatedDiagnostic {
    /// Stable code.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The message.
    pub message: String,
    /// The file's name as given.
    pub file: String,
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column (characters) of the span's start.
    pub column: usize,
    /// Byte span.
    pub span: Span,
    /// Help line.
    pub help: Option<String>,
}

/// A source file: its name (as the user gave it) and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    name: String,
    text: String,
    lines: LineIndex,
}

impl SourceFile {
    /// A source named `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        SourceFile {
            name: name.into(),
            lines: LineIndex::new(&text),
            text,
        }
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Line and column of a byte offset.
    pub fn position(&self, offset: usize) -> crate::span::Position {
        self.lines.position(offset)
    }

    /// `diagnostic` with its file, line and column.
    pub fn locate(&self, diagnostic: &Diagnostic) -> LocatedDiagnostic {
        let pos = self.position(diagnostic.span.start);
        LocatedDiagnostic {
            code: diagnostic.code,
            severity: diagnostic.severity,
            message: diagnostic.message.clone(),
            file: self.name.clone(),
            line: pos.line,
            column: pos.column,
            span: diagnostic.span,
            help: diagnostic.help.clone(),
        }
    }

    /// Renders diagnostics for a terminal or a log: `file:line:col`, the source underlined, the help.
    pub fn render(&self, diagnostics: &[Diagnostic], color: bool) -> String {
        let theme = if color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        let handler = miette::GraphicalReportHandler::new_themed(theme)
            .with_context_lines(1)
            .with_width(100);
        let mut out = String::new();
        for diagnostic in diagnostics {
            let report = MietteReport {
                diagnostic,
                source: miette::NamedSource::new(&self.name, self.text.clone()),
                len: self.text.len(),
            };
            if handler.render_report(&mut out, &report).is_err() {
                // Rendering only writes to a String; if miette ever fails, the line above stands.
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }
}

/// Adapter that lets miette draw a [`Diagnostic`].
struct MietteReport<'a> {
    diagnostic: &'a Diagnostic,
    source: miette::NamedSource<String>,
    len: usize,
}

impl MietteReport<'_> {
    fn clamp(&self, span: Span) -> miette::SourceSpan {
        let start = span.start.min(self.len);
        let end = span.end.clamp(start, self.len);
        (start, end - start).into()
    }
}

impl fmt::Debug for MietteReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diagnostic, f)
    }
}

impl fmt::Display for MietteReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.diagnostic, f)
    }
}

impl std::error::Error for MietteReport<'_> {}

impl miette::Diagnostic for MietteReport<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = miette::LabeledSpan::new_primary_with_span(
            Some(
                self.diagnostic
                    .label
                    .clone()
                    .unwrap_or_else(|| "here".to_owned()),
            ),
            self.clamp(self.diagnostic.span),
        );
        let related = self.diagnostic.related.iter().map(|l| {
            miette::LabeledSpan::new_with_span(Some(l.message.clone()), self.clamp(l.span))
        });
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_names_file_line_column_code_and_help() {
        let source = SourceFile::new("lib.sqn", "entity Book {\n  title: strin\n}\n");
        let d = Diagnostic::error("E0301", Span::new(23, 28), "unknown type `strin`")
            .with_help("did you mean `string`?");
        let out = source.render(&[d], false);
        assert!(out.contains("error[E0301]: unknown type `strin`"), "{out}");
        assert!(out.contains("lib.sqn:2:10"), "{out}");
        assert!(out.contains("title: strin"), "{out}");
        assert!(out.contains("did you mean `string`?"), "{out}");
    }

    #[test]
    fn render_survives_spans_past_the_end() {
        let source = SourceFile::new("x.sqn", "abc");
        let d = Diagnostic::error("E0101", Span::new(10, 20), "boom");
        let out = source.render(&[d], false);
        assert!(out.contains("x.sqn:1:4"), "{out}");
    }
}
