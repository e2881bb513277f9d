//! Drawing diagnostics for people, through miette, on any source text.
//!
//! miette is handed a *snippet view* of the file instead of the file: only the lines the
//! diagnostic's labels are on (and one line of context around each), with
//!
//! - lines longer than [`MAX_LINE_BYTES`] cut to a window around each label (`… ` marks a cut), so
//!   a 400 KB line of garbage prints as one short line;
//! - characters that would act on the terminal instead of being seen (control characters, bidi
//!   overrides, line separators, zero-width marks) replaced by a visible mark of the same length;
//! - the real line and column in the `file:line:col` header, taken from the file's [`LineIndex`].
//!
//! The view costs the size of the lines it shows, not the size of the file, so rendering many
//! diagnostics of a large file stays linear.

use std::fmt;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::diagnostic::{Diagnostic, Severity};
use crate::span::{LineIndex, Span};

/// Lines longer than this many bytes are cut around the labels on them.
const MAX_LINE_BYTES: usize = 160;
/// Bytes kept before and after a label on a cut line.
const WINDOW_MARGIN: usize = 40;
/// Bytes of a long label kept on a cut line.
const WINDOW_LABEL: usize = 60;
/// A label spanning more lines than this is shown on its first line only.
const MAX_LABEL_LINES: usize = 8;
/// What stands for the text cut out of a long line.
const CUT: &str = "…";

/// Renders `diagnostics` of the file `name` (text `text`, lines `lines`).
pub(crate) fn render(
    name: &str,
    text: &str,
    lines: &LineIndex,
    diagnostics: &[Diagnostic],
    color: bool,
) -> String {
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
        let report = Report::new(name, text, lines, diagnostic);
        if handler.render_report(&mut out, &report).is_err() {
            // Rendering only writes to a String; if miette ever fails, what it wrote stands.
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// Text as it may be shown on a terminal: control and invisible characters replaced (see
/// [`visible`]). Used for messages, labels and help lines, which can quote the file.
pub(crate) fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_visible(&mut out, text);
    out
}

/// Whether `c` would act on a terminal or hide text instead of being seen: control characters
/// (but tab and line feed), the bidirectional controls rustc's
/// `text_direction_codepoint_in_literal` names, zero-width and other invisible format characters
/// (clippy's `invisible_characters`: the soft hyphen, the word joiner), the Unicode line and
/// paragraph separators, and tag characters.
pub fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// `text` with every invisible character ([`is_invisible`]) written out as `\u{202e}`: how the
/// outputs that quote the file (generated code, the review) show them.
pub fn escape_invisible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_invisible) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_invisible(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A visible stand-in for an invisible character, of the same UTF-8 length (so byte offsets
/// into the shown text stay those of the file).
fn visible(c: char) -> &'static str {
    match c.len_utf8() {
        1 => "?",
        2 => "¤",
        3 => "\u{FFFD}",
        _ => "\u{1F5CC}",
    }
}

fn push_visible(out: &mut String, text: &str) {
    for c in text.chars() {
        if is_invisible(c) {
            out.push_str(visible(c));
        } else {
            out.push(c);
        }
    }
}

/// One piece of a shown line: `len` bytes of the view at `view` are the file's bytes at `file`.
#[derive(Debug, Clone, Copy)]
struct Piece {
    view: usize,
    file: usize,
    len: usize,
}

/// One line of the view.
#[derive(Debug)]
struct ViewLine {
    /// Where the line starts in the view text.
    start: usize,
    /// Where it ends (before its `\n`).
    end: usize,
    /// Its 0-based line number in the file.
    line: usize,
    /// The kept parts of the file's line, in order.
    pieces: Vec<Piece>,
}

/// The lines of the file a diagnostic shows, cut and cleaned: the `SourceCode` miette reads.
struct View<'a> {
    name: &'a str,
    lines: &'a LineIndex,
    text: String,
    view_lines: Vec<ViewLine>,
}

impl<'a> View<'a> {
    /// The view of the lines `spans` are on, each with one line of context.
    fn new(name: &'a str, text: &str, lines: &'a LineIndex, spans: &[Span]) -> Self {
        // The empty line after a final line break is shown only when a label is on it.
        let mut last_context = lines.line_count().saturating_sub(1);
        let (start, end) = lines.line_range(last_context);
        if start == end && last_context > 0 {
            last_context -= 1;
        }
        // Line ranges to show: each label's lines and one line of context around them.
        let mut ranges: Vec<(usize, usize)> = spans
            .iter()
            .map(|s| {
                let first = lines.line_of(s.start);
                let last = lines.line_of(s.end.saturating_sub(1).max(s.start));
                (
                    first.saturating_sub(1),
                    (last + 1).min(last_context).max(last),
                )
            })
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (from, to) in ranges {
            match merged.last_mut() {
                Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        let mut view = View {
            name,
            lines,
            text: String::new(),
            view_lines: Vec::new(),
        };
        for (from, to) in merged {
            for line in from..=to {
                view.push_line(text, line, spans);
            }
        }
        view
    }

    fn push_line(&mut self, text: &str, line: usize, spans: &[Span]) {
        let (start, end) = self.lines.line_range(line);
        let view_start = self.text.len();
        let mut pieces = Vec::new();
        if end - start <= MAX_LINE_BYTES {
            pieces.push(self.push_piece(text, start, end));
        } else {
            let windows = windows(text, start, end, spans);
            if windows.first().is_some_and(|w| w.0 > start) {
                self.text.push_str(CUT);
                self.text.push(' ');
            }
            for (i, (from, to)) in windows.iter().enumerate() {
                if i > 0 {
                    self.text.push(' ');
                    self.text.push_str(CUT);
                    self.text.push(' ');
                }
                pieces.push(self.push_piece(text, *from, *to));
            }
            if windows.last().is_some_and(|w| w.1 < end) {
                self.text.push(' ');
                self.text.push_str(CUT);
            }
        }
        self.view_lines.push(ViewLine {
            start: view_start,
            end: self.text.len(),
            line,
            pieces,
        });
        self.text.push('\n');
    }

    fn push_piece(&mut self, text: &str, from: usize, to: usize) -> Piece {
        let piece = Piece {
            view: self.text.len(),
            file: from,
            len: to - from,
        };
        push_visible(&mut self.text, &text[from..to]);
        piece
    }

    /// Where byte `offset` of the file is in the view (the nearest kept byte when it was cut).
    fn to_view(&self, offset: usize) -> usize {
        let line = self.lines.line_of(offset);
        let at = self.view_lines.partition_point(|l| l.line < line);
        let Some(view_line) = self.view_lines.get(at).filter(|l| l.line == line) else {
            return self.text.len();
        };
        let mut best = view_line.end;
        for p in &view_line.pieces {
            if offset < p.file {
                best = p.view;
                break;
            }
            if offset <= p.file + p.len {
                return p.view + (offset - p.file);
            }
            best = p.view + p.len;
        }
        best
    }

    /// Where byte `offset` of the view is in the file.
    fn to_file(&self, offset: usize) -> usize {
        let at = self
            .view_lines
            .partition_point(|l| l.start <= offset)
            .saturating_sub(1);
        let Some(line) = self.view_lines.get(at) else {
            return 0;
        };
        let mut file = self.lines.line_range(line.line).0;
        for p in &line.pieces {
            if offset < p.view {
                return p.file;
            }
            file = p.file + (offset - p.view).min(p.len);
        }
        file
    }

    /// The view's index of the line holding view byte `offset`.
    fn view_line_of(&self, offset: usize) -> usize {
        self.view_lines
            .partition_point(|l| l.start <= offset)
            .saturating_sub(1)
    }

    /// A file span as a view span (clipped to what is shown).
    fn span(&self, span: Span) -> SourceSpan {
        let start = self.to_view(span.start);
        let end = self.to_view(span.end).max(start);
        (start, end - start).into()
    }
}

/// The windows of a long line `start..end` to keep: around each span's start on it.
fn windows(text: &str, start: usize, end: usize, spans: &[Span]) -> Vec<(usize, usize)> {
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let mut out: Vec<(usize, usize)> = spans
        .iter()
        .filter(|s| s.start <= end && s.end.max(s.start + 1) > start)
        .map(|s| {
            let from = s.start.max(start);
            let label_end = s.end.clamp(from, end).min(from + WINDOW_LABEL);
            (
                floor(from.saturating_sub(WINDOW_MARGIN).max(start)),
                floor((label_end + WINDOW_MARGIN).min(end)),
            )
        })
        .collect();
    if out.is_empty() {
        // A context line: its start.
        out.push((start, floor(start + MAX_LINE_BYTES / 2)));
    }
    out.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (from, to) in out {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

impl SourceCode for View<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        if self.view_lines.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let first = self.view_line_of(span.offset());
        let last = self.view_line_of(
            (span.offset() + span.len())
                .saturating_sub(1)
                .max(span.offset()),
        );
        // Context stops where the view skips lines of the file.
        let mut from = first;
        while from > 0
            && first - from < context_lines_before
            && self.view_lines[from - 1].line + 1 == self.view_lines[from].line
        {
            from -= 1;
        }
        let mut to = last.max(first);
        while to + 1 < self.view_lines.len()
            && to - last.max(first) < context_lines_after
            && self.view_lines[to].line + 1 == self.view_lines[to + 1].line
        {
            to += 1;
        }
        let data_start = self.view_lines[from].start;
        let data_end = (self.view_lines[to].end + 1).min(self.text.len());
        let column = self
            .lines
            .position(self.to_file(span.offset()))
            .column
            .saturating_sub(1);
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_owned(),
            &self.text.as_bytes()[data_start..data_end],
            (data_start, data_end - data_start).into(),
            self.view_lines[from].line,
            column,
            to - from + 1,
        )))
    }
}

/// A [`Diagnostic`] as miette wants it, over its snippet [`View`].
struct Report<'a> {
    diagnostic: &'a Diagnostic,
    view: View<'a>,
    message: String,
    label: String,
    related: Vec<(Span, String)>,
    help: Option<String>,
}

impl<'a> Report<'a> {
    fn new(name: &'a str, text: &str, lines: &'a LineIndex, diagnostic: &'a Diagnostic) -> Self {
        let len = text.len();
        let clamp = |span: Span| {
            let mut start = span.start.min(len);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = span.end.clamp(start, len);
            while !text.is_char_boundary(end) {
                end += 1;
            }
            // A label over many lines is shown on its first line.
            let first = lines.line_of(start);
            if lines.line_of(end) > first + MAX_LABEL_LINES {
                end = lines.line_range(first).1.max(start);
            }
            Span::new(start, end)
        };
        let primary = clamp(diagnostic.span);
        let related: Vec<(Span, String)> = diagnostic
            .related
            .iter()
            .map(|l| (clamp(l.span), printable(&l.message)))
            .collect();
        let spans: Vec<Span> = std::iter::once(primary)
            .chain(related.iter().map(|(s, _)| *s))
            .collect();
        let view = View::new(name, text, lines, &spans);
        Report {
            diagnostic,
            view,
            message: printable(&diagnostic.to_string()),
            label: printable(diagnostic.label.as_deref().unwrap_or("here")),
            related: std::iter::once((primary, String::new()))
                .chain(related)
                .collect(),
            help: diagnostic.help.as_deref().map(printable),
        }
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.view)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let mut spans = self.related.iter();
        let primary = spans.next().map(|(span, _)| {
            miette::LabeledSpan::new_primary_with_span(
                Some(self.label.clone()),
                self.view.span(*span),
            )
        });
        let related = spans.map(|(span, message)| {
            miette::LabeledSpan::new_with_span(Some(message.clone()), self.view.span(*span))
        });
        Some(Box::new(primary.into_iter().chain(related)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_one(text: &str, diagnostic: Diagnostic) -> String {
        let lines = LineIndex::new(text);
        render("t.sqn", text, &lines, &[diagnostic], false)
    }

    #[test]
    fn a_long_line_is_cut_around_the_label_and_the_column_is_the_files() {
        let text = format!("entity A {{\n  x: {} strin\n}}\n", "y".repeat(400_000));
        let at = text.find("strin").unwrap();
        let out = render_one(
            &text,
            Diagnostic::error("E0301", Span::new(at, at + 5), "unknown type `strin`"),
        );
        assert!(out.contains("t.sqn:2:400007"), "{out}");
        assert!(out.len() < 2_000, "{} bytes:\n{out}", out.len());
        assert!(out.contains("… yyyy"), "{out}");
        assert!(out.contains("strin"), "{out}");
        assert!(out.contains("unknown type `strin`"), "{out}");
    }

    #[test]
    fn invisible_characters_are_shown_as_marks() {
        let text = "entity A { x: string } // \u{202E}evil\u{1b}[31m\r\n";
        let at = text.find("string").unwrap();
        let out = render_one(
            text,
            Diagnostic::error("E0101", Span::new(at, at + 6), "a \u{1b}[2J message"),
        );
        assert!(!out.contains('\u{202E}'), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
        assert!(out.contains("\u{FFFD}evil?[31m"), "{out}");
        assert!(out.contains("t.sqn:1:15"), "{out}");
    }

    #[test]
    fn labels_far_apart_keep_their_line_numbers() {
        let mut text = String::from("entity A { t: string }\n");
        for i in 0..1000 {
            text.push_str(&format!("entity E{i} {{ t: string }}\n"));
        }
        text.push_str("entity A { t: string }\n");
        let second = text.rfind("A {").unwrap();
        let d = Diagnostic::error(
            "E0201",
            Span::new(second, second + 1),
            "`A` is declared twice",
        )
        .with_related(Span::new(7, 8), "first declared here");
        let out = render_one(&text, d);
        assert!(out.contains("t.sqn:1002:8"), "{out}");
        assert!(out.contains("1002 │ entity A"), "{out}");
        assert!(out.contains(" 1 │ entity A { t"), "{out}");
        assert!(!out.contains("E500"), "{out}");
    }

    #[test]
    fn spans_at_the_end_and_past_it_are_shown() {
        for text in ["", "abc", "abc\n", "a\r\nb\r\n"] {
            let out = render_one(text, Diagnostic::error("E0101", Span::new(10, 20), "boom"));
            assert!(out.contains("boom"), "{text:?}: {out}");
        }
    }
}
