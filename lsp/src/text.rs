//! Positions as the protocol counts them: lines from 0 and columns in UTF-16 code units, converted
//! to and from the byte offsets the parser and every diagnostic use; and edits applied to a
//! document's text.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use squillion_grammar::Span;

/// A document's text with the start of every line, for position conversions.
#[derive(Debug, Clone)]
pub struct Text {
    text: String,
    line_starts: Vec<usize>,
}

impl Text {
    /// Indexes `text`.
    pub fn new(text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Text { text, line_starts }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The protocol position of byte `offset` (clamped to the text, and to a character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.boundary(offset.min(self.text.len()));
        let line = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line];
        let column: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(column))
    }

    /// The protocol range of a span.
    pub fn range(&self, span: Span) -> Range {
        Range::new(
            self.position(span.start),
            self.position(span.end.max(span.start)),
        )
    }

    /// The byte offset of a protocol position. A line past the end is the end of the text; a
    /// column past the end of its line is the end of the line; a column inside a character (the
    /// second half of a surrogate pair) is the start of that character.
    pub fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.line_starts.get(line) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |next| next - 1);
        let mut units = 0usize;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
            if units > position.character as usize {
                return start + i;
            }
        }
        end
    }

    /// The byte span of a protocol range.
    pub fn span(&self, range: Range) -> Span {
        let start = self.offset(range.start);
        Span::new(start, self.offset(range.end).max(start))
    }

    /// Applies one change from `textDocument/didChange`: a range replaced, or the whole text.
    pub fn apply(&mut self, change: TextDocumentContentChangeEvent) {
        let text = match change.range {
            Some(range) => {
                let span = self.span(range);
                let mut text = std::mem::take(&mut self.text);
                text.replace_range(span.start..span.end, &change.text);
                text
            }
            None => change.text,
        };
        *self = Text::new(text);
    }

    fn boundary(&self, mut offset: usize) -> usize {
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

/// Lines and columns of a `.sqn` file fit in `u32` (files are at most 64 MB).
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn columns_count_utf16_units() {
        // `é` is 2 bytes and 1 unit, `😀` 4 bytes and 2 units, `日` 3 bytes and 1 unit.
        let text = Text::new("ab\né😀日 x\n".to_owned());
        let x = text.as_str().find('x').unwrap();
        assert_eq!(text.position(x), Position::new(1, 5));
        assert_eq!(text.offset(Position::new(1, 5)), x);
        // Inside the surrogate pair: the start of the emoji.
        assert_eq!(
            text.offset(Position::new(1, 2)),
            text.as_str().find('😀').unwrap()
        );
        // Past the end of a line, past the last line.
        assert_eq!(text.offset(Position::new(0, 99)), 2);
        assert_eq!(text.offset(Position::new(9, 0)), text.as_str().len());
    }

    #[test]
    fn changes_replace_ranges() {
        let mut text = Text::new("entity A {\n  é: int32\n}\n".to_owned());
        text.apply(TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(1, 2), Position::new(1, 3))),
            range_length: None,
            text: "name😀".to_owned(),
        });
        assert_eq!(text.as_str(), "entity A {\n  name😀: int32\n}\n");
        assert_eq!(
            text.position(text.as_str().find(':').unwrap()),
            Position::new(1, 8)
        );
    }

    proptest! {
        #[test]
        fn offsets_and_positions_round_trip(s in "[a-zé😀日\\n ]{0,40}") {
            let text = Text::new(s.clone());
            for (offset, _) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
                prop_assert_eq!(text.offset(text.position(offset)), offset);
            }
        }
    }
}
