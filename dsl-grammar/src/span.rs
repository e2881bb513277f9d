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
///
/// Lookups cost `O(log lines)`, whatever the length of the line: characters are counted with a
/// table of the characters before every block of [`BLOCK`] bytes, so a diagnostic at the end of a
/// 400 KB line costs no more than one at its start.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// Characters before byte `k * BLOCK`, for every block.
    chars_before_block: Vec<usize>,
    text: String,
}

/// Bytes per block of the character-count table.
const BLOCK: usize = 256;

/// Whether `b` starts a character (is not a UTF-8 continuation byte).
fn starts_char(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl LineIndex {
    /// Index the lines of `text`.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut chars_before_block = Vec::with_capacity(text.len() / BLOCK + 1);
        let mut count = 0;
        for block in text.as_bytes().chunks(BLOCK) {
            chars_before_block.push(count);
            count += block.iter().filter(|b| starts_char(**b)).count();
        }
        chars_before_block.push(count);
        LineIndex {
            line_starts,
            chars_before_block,
            text: text.to_owned(),
        }
    }

    /// The position of byte `offset` (clamped to the text).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        Position {
            line: line + 1,
            column: self.chars_before(offset) - self.chars_before(start) + 1,
        }
    }

    /// The 0-based line holding byte `offset` (clamped to the text).
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The bytes of 0-based line `line`, without its line break (`\n` or `\r\n`).
    pub(crate) fn line_range(&self, line: usize) -> (usize, usize) {
        let start = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let mut end = self
            .line_starts
            .get(line + 1)
            .map(|next| next - 1)
            .unwrap_or(self.text.len());
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end)
    }

    /// Number of lines (a text ending with a line break has an empty last line).
    pub(crate) fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Characters in `text[..offset]`.
    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        let from = block * BLOCK;
        self.chars_before_block[block]
            + self.text.as_bytes()[from..offset]
                .iter()
                .filter(|b| starts_char(**b))
                .count()
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

    #[test]
    fn columns_on_long_lines_count_characters() {
        // Blocks of the character table end inside multi-byte characters.
        let line: String = "é€a".repeat(400);
        let text = format!("x\n{line}\n");
        let index = LineIndex::new(&text);
        for (chars, (byte, _)) in line.char_indices().enumerate() {
            let at = index.position(2 + byte);
            assert_eq!((at.line, at.column), (2, chars + 1), "byte {byte}");
        }
        assert_eq!(index.line_range(1), (2, 2 + line.len()));
        assert_eq!(index.line_count(), 3);
    }
}
