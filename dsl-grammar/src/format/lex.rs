//! The parts of a `.sqn` source the syntax tree does not hold: line comments and punctuation.
//!
//! pest keeps `//` comments silent and literal punctuation (`{`, `:`, `<->`) out of the tree; the
//! formatter finds them here, by position, in the text between the tree's leaves.

/// A `//` comment (not a `///` doc comment, which the tree holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Comment {
    /// Byte offset of the first `/`.
    pub start: usize,
    /// The comment's text, from `//` to the end of the line, trailing whitespace removed.
    pub text: String,
    /// Nothing but whitespace precedes it on its line.
    pub own_line: bool,
    /// An empty line separates it from what precedes it.
    pub blank_before: bool,
}

/// Every `//` comment of a source that parses, in order.
pub(crate) fn comments(source: &str) -> Vec<Comment> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = line_end(bytes, i);
                let doc = bytes.get(i + 2) == Some(&b'/') && bytes.get(i + 3) != Some(&b'/');
                if !doc {
                    found.push(Comment {
                        start: i,
                        text: source[i..end].trim_end().to_owned(),
                        own_line: source[line_start(bytes, i)..i].trim().is_empty(),
                        blank_before: blank_line_before(source, i),
                    });
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

/// The punctuation tokens written between two leaves of the tree (`{`, `:`, `<->`, `,` ...),
/// skipping whitespace and comments, read lazily (a caller looking for the next `{` reads no
/// further).
pub(crate) fn punctuation(source: &str, from: usize, to: usize) -> Punctuation<'_> {
    Punctuation {
        source,
        at: from,
        to: to.min(source.len()),
    }
}

/// The iterator of [`punctuation`].
pub(crate) struct Punctuation<'s> {
    source: &'s str,
    at: usize,
    to: usize,
}

impl<'s> Iterator for Punctuation<'s> {
    type Item = (usize, &'s str);

    fn next(&mut self) -> Option<Self::Item> {
        let source = self.source;
        while self.at < self.to {
            let i = self.at;
            let rest = source.get(i..self.to)?;
            if rest.starts_with("//") {
                self.at = line_end(source.as_bytes(), i).min(self.to);
            } else if rest.starts_with("<->") {
                self.at += 3;
                return Some((i, "<->"));
            } else {
                let c = rest.chars().next()?;
                self.at += c.len_utf8();
                if !c.is_whitespace() && c != '\u{FEFF}' {
                    return Some((i, &source[i..i + c.len_utf8()]));
                }
            }
        }
        None
    }
}

/// Whether an empty line lies between `at` and the last non-whitespace text before it.
pub(crate) fn blank_line_before(source: &str, at: usize) -> bool {
    let before = &source[..at];
    let gap = &before[before.trim_end().len()..];
    // The gap starts after the previous text, so its first newline ends that text's line.
    gap.matches('\n').count() >= 2 && !before.trim_end().is_empty()
}

fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' | b'\n' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_skip_strings_and_doc_comments() {
        let src =
            "/// doc\nentity A { // trailing\n  s: string @default(\"//no\")\n\n  //// four\n}\n";
        let found = comments(src);
        let texts: Vec<&str> = found.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["// trailing", "//// four"]);
        assert!(!found[0].own_line && !found[0].blank_before);
        assert!(found[1].own_line && found[1].blank_before);
    }

    #[test]
    fn punctuation_skips_comments() {
        let src = "x: // c: d\n <-> {";
        let tokens: Vec<&str> = punctuation(src, 1, src.len()).map(|t| t.1).collect();
        assert_eq!(tokens, [":", "<->", "{"]);
    }
}
