//! Text from the schema made safe for generated Rust, in one place: doc comments (which come
//! from `///` lines and from names the user chose) and the comment at the top of the file.
//!
//! rustc rejects, in a doc comment, a bare carriage return and the Unicode characters that
//! change the visible direction of text (its `text_direction_codepoint_in_literal` lint); rustdoc
//! compiles every fenced or indented code block of a doc comment as a doctest, so `cargo test`
//! would run whatever a schema's comment shows; `*/` would close a block doc comment. So:
//!
//! - line breaks (including a bare `\r`) end the line: every doc attribute holds one line, which
//!   prettyplease writes as a `///` comment (never `/** */`), where `*/` and `#[` are plain text;
//! - invisible and direction-changing characters are written as `\u{202e}`;
//! - every code fence opened in the text is marked ```` ```text ````, and an indented code block is
//!   fenced as text, so no doctest comes from a schema.

use squillion_grammar::escape_invisible;

/// Doc comment lines for user text (each without the leading space of `///`).
pub(super) fn doc_lines<'a>(lines: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    doc_of(lines).finish()
}

/// Doc comment lines for the schema's own text (`user`) followed by squillion's (`made`): the
/// schema's text is closed first (an open code fence, a list item or a quote), so it never takes
/// squillion's lines in.
pub(super) fn joined(user: &[String], made: &[String]) -> Vec<String> {
    let first = doc_of(user);
    let open = first.container != Container::None || first.block != Block::Text;
    let mut lines = first.finish();
    if open && made.first().is_some_and(|l| !l.trim().is_empty()) {
        lines.push(String::new());
    }
    lines.extend(doc_lines(made));
    lines
}

fn doc_of<'a>(lines: impl IntoIterator<Item = &'a String>) -> Doc {
    // The start of a doc comment is like a blank line: an indented line there is code.
    let mut doc = Doc {
        blank_before: true,
        ..Doc::default()
    };
    for line in lines.into_iter().flat_map(|l| l.split(['\n', '\r'])) {
        doc.line(&visible(line));
    }
    doc
}

/// The block a doc line is in.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// Paragraphs, lists, quotes.
    #[default]
    Text,
    /// A fenced code block, with its fence character and length.
    Fence(char, usize),
    /// An indented code block, fenced as text here.
    Indented,
}

/// What a paragraph line continues: clippy refuses a "lazy" continuation of a list item or a
/// quote (`doc_lazy_continuation`), so continuation lines get the item's indentation or the
/// quote's `>`.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Container {
    #[default]
    None,
    /// A list item whose text starts at this column.
    Item(usize),
    Quote,
}

#[derive(Default)]
struct Doc {
    out: Vec<String>,
    block: Block,
    container: Container,
    blank_before: bool,
}

impl Doc {
    fn line(&mut self, line: &str) {
        let trimmed = line.trim_start();
        let indent = indentation(line);
        match self.block {
            Block::Fence(c, n) => {
                if indent < 4 && is_closing_fence(trimmed, c, n) {
                    self.block = Block::Text;
                }
                self.out.push(line.to_owned());
                return;
            }
            Block::Indented if trimmed.is_empty() || indent >= 4 => {
                self.out.push(dedent(line, 4));
                return;
            }
            Block::Indented => {
                self.close_indented();
                self.block = Block::Text;
                self.blank_before = false;
            }
            Block::Text => {}
        }
        if trimmed.is_empty() {
            self.out.push(String::new());
            self.blank_before = true;
            return;
        }
        let blank_before = std::mem::replace(&mut self.blank_before, false);
        if indent < 4 {
            if let Some((c, n)) = opening_fence(trimmed) {
                self.block = Block::Fence(c, n);
                self.container = Container::None;
                self.out.push(format!(
                    "{}{}text",
                    " ".repeat(indent),
                    c.to_string().repeat(n)
                ));
                return;
            }
            if let Some(width) = list_marker(trimmed) {
                self.container = Container::Item(indent + width);
                self.out.push(line.to_owned());
                return;
            }
            if trimmed.starts_with('>') {
                self.container = Container::Quote;
                self.out.push(line.to_owned());
                return;
            }
        }
        match self.container {
            // A line of the item's text, or a paragraph of it after a blank line: at the
            // item's column (never more, which would be code or `doc_overindented_list_items`).
            Container::Item(column) if !blank_before || indent >= column => {
                self.out.push(format!("{}{trimmed}", " ".repeat(column)));
            }
            Container::Quote if !blank_before => self.out.push(format!("> {trimmed}")),
            _ if indent >= 4 && blank_before => {
                self.container = Container::None;
                self.block = Block::Indented;
                self.out.push("```text".to_owned());
                self.out.push(dedent(line, 4));
            }
            _ => {
                self.container = Container::None;
                self.out.push(line.to_owned());
            }
        }
    }

    fn close_indented(&mut self) {
        // Blank lines at the end belong after the block.
        let mut blanks = 0;
        while self.out.last().is_some_and(|l| l.trim().is_empty()) {
            self.out.pop();
            blanks += 1;
        }
        self.out.push("```".to_owned());
        self.out.extend(std::iter::repeat_n(String::new(), blanks));
    }

    fn finish(mut self) -> Vec<String> {
        match self.block {
            Block::Indented => self.close_indented(),
            // A fence left open would swallow the generated lines that follow.
            Block::Fence(..) => self.out.push("```".to_owned()),
            Block::Text => {}
        }
        self.out
    }
}

/// The width of a list item's marker and the spaces after it (`- `, `12. `), if `trimmed` starts
/// a list item.
fn list_marker(trimmed: &str) -> Option<usize> {
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let marker = match trimmed.as_bytes().get(digits)? {
        b'-' | b'*' | b'+' if digits == 0 => 1,
        b'.' | b')' if (1..=9).contains(&digits) => digits + 1,
        _ => return None,
    };
    let spaces = trimmed[marker..].bytes().take_while(|b| *b == b' ').count();
    match spaces {
        0 if marker < trimmed.len() => None,
        0 => Some(marker + 1),
        1..=4 => Some(marker + spaces),
        _ => Some(marker + 1),
    }
}

/// Text for a `//` comment: one line, every invisible character written out.
pub(super) fn comment(text: &str) -> String {
    visible(&text.replace(['\n', '\r'], " "))
}

/// `text` with each invisible or direction-changing character written as `\u{...}`, and tabs as
/// spaces (clippy's `tabs_in_doc_comments`).
fn visible(text: &str) -> String {
    escape_invisible(&text.replace('\t', "    ")).into_owned()
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn dedent(line: &str, n: usize) -> String {
    let strip = indentation(line).min(n);
    line[strip..].to_owned()
}

/// The fence character and length if `trimmed` opens a fenced code block (three or more of
/// ``` ` ``` or `~`).
fn opening_fence(trimmed: &str) -> Option<(char, usize)> {
    let c = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = trimmed.chars().take_while(|x| *x == c).count();
    // A backtick fence's info string cannot hold a backtick.
    let info = &trimmed[n..];
    (n >= 3 && !(c == '`' && info.contains('`'))).then_some((c, n))
}

/// Whether `trimmed` closes a fence of `n` characters `c`: at least as long, no info string.
fn is_closing_fence(trimmed: &str, c: char, n: usize) -> bool {
    trimmed.chars().take_while(|x| *x == c).count() >= n
        && trimmed.trim_start_matches(c).trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Vec<String> {
        let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        doc_lines(&lines)
    }

    #[test]
    fn fences_become_text_and_stay_balanced() {
        assert_eq!(
            doc("a\n```\npanic!()\n```\nb"),
            ["a", "```text", "panic!()", "```", "b"]
        );
        assert_eq!(doc("```rust,should_panic\nx"), ["```text", "x", "```"]);
        assert_eq!(doc("~~~~\n```\n~~~~"), ["~~~~text", "```", "~~~~"]);
        assert_eq!(doc("inline ``` fence"), ["inline ``` fence"]);
    }

    #[test]
    fn indented_code_is_fenced_as_text() {
        assert_eq!(
            doc("a\n\n    code();\n      more();\n\nb"),
            ["a", "", "```text", "code();", "  more();", "```", "", "b"]
        );
        // A paragraph's continuation is not code.
        assert_eq!(doc("a\n    b"), ["a", "    b"]);
        assert_eq!(doc("    first"), ["```text", "first", "```"]);
    }

    #[test]
    fn invisible_characters_carriage_returns_and_comment_closers() {
        assert_eq!(
            doc("a\u{202E}b\rc */ #[x]\u{1b}"),
            ["a\\u{202e}b", "c */ #[x]\\u{1b}"]
        );
        assert_eq!(comment("x.sqn\nfn main"), "x.sqn fn main");
    }

    #[test]
    fn list_items_and_quotes_are_continued_without_laziness() {
        assert_eq!(doc("- a\nb\n\nc"), ["- a", "  b", "", "c"]);
        assert_eq!(doc("12. a\n      b"), ["12. a", "    b"]);
        assert_eq!(doc("> a\nb"), ["> a", "> b"]);
        assert_eq!(doc("- a\n\n      more"), ["- a", "", "  more"]);
        assert_eq!(doc("-1 is not a list\nx"), ["-1 is not a list", "x"]);
    }
}
