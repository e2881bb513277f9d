//! Diagnostics: coded, positioned messages about a `.sqn` file, and their rendering.
//!
//! Every pass (syntax here, resolution and validation in `squillion-codegen`, the decision engine)
//! reports [`Diagnostic`]s. Each has a stable code documented in `docs/diagnostics.md`, a primary
//! span, optional secondary labels and a help line. Rendering goes through `miette`.

use std::fmt;

use serde::Serialize;

use crate::codes;
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
    /// The edit the help suggests, where it is one replacement ("did you mean `string`?"), for
    /// editors to offer as a quick fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// A replacement of source text that fixes a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// The text to replace.
    pub span: Span,
    /// What to write instead.
    pub replacement: String,
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
            fix: None,
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

    /// Adds the edit that fixes it: `replacement` instead of the text at `span`.
    pub fn with_fix(mut self, span: Span, replacement: impl Into<String>) -> Self {
        self.fix = Some(Fix {
            span,
            replacement: replacement.into(),
        });
        self
    }

    /// Adds the edit that fixes it, if there is one.
    pub fn with_fix_from(self, fix: Option<(Span, &str)>) -> Self {
        match fix {
            Some((span, replacement)) => self.with_fix(span, replacement),
            None => self,
        }
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

/// Bytes that are not UTF-8 text ([`SourceFile::from_bytes`]).
#[derive(Debug, Clone)]
pub struct NotText {
    /// The file, each invalid sequence shown as U+FFFD.
    pub source: SourceFile,
    /// `E0106` at the first invalid byte.
    pub diagnostic: Diagnostic,
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
    /// Long lines are cut around what is underlined, and characters that would act on a terminal
    /// are shown as marks (see the `render` module).
    pub fn render(&self, diagnostics: &[Diagnostic], color: bool) -> String {
        crate::render::render(&self.name, &self.text, &self.lines, diagnostics, color)
    }

    /// A source file from raw bytes. Bytes that are not UTF-8 give the file (each invalid
    /// sequence shown as U+FFFD, so it can still be rendered) and a [`codes::INVALID_UTF8`] error
    /// at the first invalid byte.
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, Box<NotText>> {
        let error = match String::from_utf8(bytes) {
            Ok(text) => return Ok(SourceFile::new(name, text)),
            Err(e) => e,
        };
        let utf8 = error.utf8_error();
        let at = utf8.valid_up_to();
        let bytes = error.into_bytes();
        let bad = match utf8.error_len() {
            Some(n) => &bytes[at..at + n],
            None => &bytes[at..],
        };
        let shown: Vec<String> = bad.iter().map(|b| format!("0x{b:02X}")).collect();
        let message = match utf8.error_len() {
            Some(1) => format!(
                "the file is not UTF-8 text: byte {} is not part of any character",
                shown.join(" ")
            ),
            Some(_) => format!(
                "the file is not UTF-8 text: bytes {} do not form a character",
                shown.join(" ")
            ),
            None => format!(
                "the file is not UTF-8 text: it ends inside a character (bytes {})",
                shown.join(" ")
            ),
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let more = text[at..].matches('\u{FFFD}').count().saturating_sub(1);
        let mut label = "not UTF-8 (shown as \u{FFFD})".to_owned();
        if more > 0 {
            label = format!("{label}; {more} more invalid sequence(s) follow");
        }
        let diagnostic = Diagnostic::error(
            codes::INVALID_UTF8,
            // The replacement character in the decoded text (3 bytes).
            Span::new(at, at + '\u{FFFD}'.len_utf8()),
            message,
        )
        .with_label(label)
        .with_help("squillion reads UTF-8 text: save the file as UTF-8, or remove the bytes shown");
        Err(Box::new(NotText {
            source: SourceFile::new(name, text),
            diagnostic,
        }))
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

    #[test]
    fn bytes_that_are_not_utf8_are_an_error_at_the_first_bad_byte() {
        let bytes = b"entity A {\n  t: str\xC3ing \xFF\n}\n".to_vec();
        let NotText {
            source,
            diagnostic: d,
        } = *SourceFile::from_bytes("bad.sqn", bytes).unwrap_err();
        assert_eq!(d.code, codes::INVALID_UTF8);
        let at = source.position(d.span.start);
        assert_eq!((at.line, at.column), (2, 9));
        assert!(d.message.contains("0xC3"), "{}", d.message);
        let out = source.render(&[d], false);
        assert!(out.contains("bad.sqn:2:9"), "{out}");
        assert!(out.contains("1 more invalid sequence"), "{out}");
        let d = SourceFile::from_bytes("cut.sqn", b"entity \xE2\x82".to_vec())
            .unwrap_err()
            .diagnostic;
        assert!(
            d.message.contains("ends inside a character"),
            "{}",
            d.message
        );
        assert!(SourceFile::from_bytes("ok.sqn", "entité".as_bytes().to_vec()).is_ok());
    }
}
