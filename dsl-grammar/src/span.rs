//! Byte spans into a source file, and their line/column positions.

use serde::Serialize;

/// A half-open byte range `start..end` into the source text of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Number of bytes covered.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span covers no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// This span moved `offset` bytes to the right.
    pub fn shifted(self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

impl From<pest::Span<'_>> for Span {
    /// A node's span, without the whitespace pest consumed after it while trying optional parts.
    fn from(span: pest::Span<'_>) -> Self {
        let trimmed = span.as_str().trim_end();
        Span::new(span.start(), span.start() + trimmed.len())
    }
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// Converts byte offsets of one source text to line/column positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    text: String,
}

impl LineIndex {
    /// Index the lines of `text`.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            line_starts,
            text: text.to_owned(),
        }
    }

    /// The position of byte `offset` (clamped to the text).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start)
            + 1;
        Position { line, column }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let index = LineIndex::new("ab\ncé d\n");
        assert_eq!(index.position(0), Position { line: 1, column: 1 });
        assert_eq!(index.position(3), Position { line: 2, column: 1 });
        // 'é' is two bytes: byte 6 is the space after it, the third character.
        assert_eq!(index.position(6), Position { line: 2, column: 3 });
        assert_eq!(index.position(999), Position { line: 3, column: 1 });
    }
}
