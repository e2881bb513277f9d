//! The output side of the formatter: indentation, line breaks, comments, alignment.
//!
//! Line breaks are lazy: ending a statement only asks for one, so that a comment trailing the
//! statement in the source still lands on the same line. Comments are written when the first
//! token after them (by source position) is written.

use super::lex::{self, Comment};

const INDENT: &str = "  ";

/// A field line, for aligning the types of consecutive fields.
#[derive(Debug)]
struct FieldLine {
    /// The output line holding the field's name.
    line: usize,
    /// Bytes of indentation before the name.
    indent: usize,
    /// Bytes of the name.
    name: usize,
    block: usize,
    /// Where an empty line precedes the field, a new alignment group starts.
    blank_before: bool,
    /// A comment broke the field over several lines: it is not aligned.
    single_line: bool,
}

pub(crate) struct Writer<'s> {
    source: &'s str,
    comments: Vec<Comment>,
    next_comment: usize,
    out: String,
    lines: usize,
    depth: usize,
    /// Inside a statement whose first token is written: a line break continues it.
    continuing: bool,
    in_statement: bool,
    /// A token of the current statement (not only its doc lines) is written.
    code_in_statement: bool,
    at_line_start: bool,
    newline_pending: bool,
    blank_pending: bool,
    /// Right after `{`: no empty line may follow.
    after_open: bool,
    /// Right after a top-level declaration: an empty line must follow.
    after_declaration: bool,
    fields: Vec<FieldLine>,
    /// An empty line was written since the last field name.
    blank_since_field: bool,
    open_field: Option<usize>,
    blocks: Vec<usize>,
    next_block: usize,
}

impl<'s> Writer<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        Writer {
            source,
            comments: lex::comments(source),
            next_comment: 0,
            out: String::with_capacity(source.len() + source.len() / 8),
            lines: 0,
            depth: 0,
            continuing: false,
            in_statement: false,
            code_in_statement: false,
            at_line_start: true,
            newline_pending: false,
            blank_pending: false,
            after_open: false,
            after_declaration: false,
            fields: Vec::new(),
            blank_since_field: false,
            open_field: None,
            blocks: vec![0],
            next_block: 1,
        }
    }

    /// A declaration, field, fact or clause starts at `at` (its doc comments included).
    pub(crate) fn begin_statement(&mut self, at: usize) {
        self.flush_comments(at);
        self.newline_pending = !self.out.is_empty();
        if lex::blank_line_before(self.source, at) {
            self.blank_pending = true;
        }
        self.in_statement = true;
        self.code_in_statement = false;
        self.continuing = false;
    }

    /// The statement that started last is complete.
    pub(crate) fn end_statement(&mut self) {
        if let Some(index) = self.open_field.take() {
            let last = self.lines;
            if let Some(field) = self.fields.get_mut(index) {
                field.single_line = field.line == last;
            }
        }
        self.in_statement = false;
        self.code_in_statement = false;
        self.continuing = false;
        self.newline_pending = true;
        if self.depth == 0 {
            self.after_declaration = true;
        }
    }

    /// The source being formatted.
    pub(crate) fn source(&self) -> &'s str {
        self.source
    }

    /// A `///` line of the statement that is starting.
    pub(crate) fn doc_line(&mut self, text: &str, at: usize) {
        self.flush_comments(at);
        self.newline_pending = !self.out.is_empty();
        self.put(text.trim_end_matches('\r'), false);
        self.newline_pending = true;
    }

    /// The name of a field: remembered so that the types of neighbouring fields line up.
    pub(crate) fn field_name(&mut self, name: &str, at: usize) {
        self.token(name, at, false);
        let blank_before = std::mem::take(&mut self.blank_since_field);
        self.fields.push(FieldLine {
            line: self.lines,
            indent: self.depth * INDENT.len(),
            name: name.len(),
            block: self.blocks.last().copied().unwrap_or(0),
            blank_before,
            single_line: true,
        });
        self.open_field = Some(self.fields.len() - 1);
    }

    /// A token found at `at` in the source.
    pub(crate) fn token(&mut self, text: &str, at: usize, space_before: bool) {
        self.flush_comments(at);
        self.put(text, space_before);
        self.code_in_statement = self.in_statement;
    }

    /// `{` at `at`: what follows is one level deeper.
    pub(crate) fn open_block(&mut self, at: usize) {
        self.token("{", at, true);
        self.depth += 1;
        self.blocks.push(self.next_block);
        self.next_block += 1;
        self.newline_pending = true;
        self.after_open = true;
        self.in_statement = false;
        self.code_in_statement = false;
        self.continuing = false;
    }

    /// `}` at `at`, closing the innermost block.
    pub(crate) fn close_block(&mut self, at: usize) {
        self.flush_comments(at);
        self.depth = self.depth.saturating_sub(1);
        self.blocks.pop();
        self.newline_pending = true;
        self.blank_pending = false;
        self.put("}", true);
        // The statement holding the block goes on after it (`}` ends it in practice).
        self.in_statement = true;
        self.continuing = false;
    }

    /// Whether a comment lies in the source before `at` that is not written yet.
    pub(crate) fn has_comment_before(&self, at: usize) -> bool {
        self.comments
            .get(self.next_comment)
            .is_some_and(|c| c.start < at)
    }

    /// The formatted text: every remaining comment written, types aligned, one final newline.
    pub(crate) fn finish(mut self) -> String {
        self.flush_comments(self.source.len());
        let mut out = align_fields(&self.out, &self.fields);
        while out.ends_with('\n') {
            out.pop();
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    fn flush_comments(&mut self, before: usize) {
        while let Some(comment) = self.comments.get(self.next_comment) {
            if comment.start >= before {
                break;
            }
            let comment = comment.clone();
            self.next_comment += 1;
            if comment.own_line || self.out.is_empty() {
                self.newline_pending = !self.out.is_empty();
                if comment.blank_before {
                    self.blank_pending = true;
                }
                self.put(&comment.text, false);
            } else {
                // Trailing: stays on the line it followed, whatever is pending.
                self.out.push(' ');
                self.out.push_str(&comment.text);
                self.at_line_start = false;
            }
            self.newline_pending = true;
            // A comment inside a statement breaks it: the rest is a continuation line.
            self.continuing = self.continuing || (self.in_statement && self.code_in_statement);
        }
    }

    fn put(&mut self, text: &str, space_before: bool) {
        if self.newline_pending {
            if !self.out.is_empty() {
                let blank = (self.blank_pending || self.after_declaration) && !self.after_open;
                self.out.push('\n');
                self.lines += 1;
                if blank {
                    self.out.push('\n');
                    self.lines += 1;
                    self.blank_since_field = true;
                }
            }
            let levels = self.depth + usize::from(self.continuing);
            for _ in 0..levels {
                self.out.push_str(INDENT);
            }
            self.newline_pending = false;
            self.blank_pending = false;
            self.after_declaration = false;
            self.at_line_start = true;
        } else if space_before && !self.at_line_start {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.at_line_start = false;
        self.after_open = false;
    }
}

/// Pads the names of consecutive single-line fields of one block so that their types line up.
fn align_fields(out: &str, fields: &[FieldLine]) -> String {
    let mut pad = vec![0usize; out.lines().count() + 1];
    let mut group: Vec<&FieldLine> = Vec::new();
    let mut flush = |group: &mut Vec<&FieldLine>| {
        let widest = group.iter().map(|f| f.name).max().unwrap_or(0);
        for field in group.iter() {
            if let Some(slot) = pad.get_mut(field.line) {
                *slot = widest - field.name;
            }
        }
        group.clear();
    };
    for field in fields {
        let joins = group
            .last()
            .is_some_and(|last| last.block == field.block && !field.blank_before);
        if !joins {
            flush(&mut group);
        }
        if field.single_line {
            group.push(field);
        } else {
            flush(&mut group);
        }
    }
    flush(&mut group);
    let mut by_line: Vec<Option<&FieldLine>> = vec![None; pad.len()];
    for field in fields {
        if let Some(slot) = by_line.get_mut(field.line) {
            *slot = Some(field);
        }
    }
    let mut aligned = String::with_capacity(out.len());
    for (index, line) in out.split('\n').enumerate() {
        if index > 0 {
            aligned.push('\n');
        }
        let field = by_line.get(index).copied().flatten();
        match (pad.get(index), field) {
            (Some(&n), Some(field)) if n > 0 && line.len() > field.indent + field.name + 1 => {
                let (head, tail) = line.split_at(field.indent + field.name + 1);
                aligned.push_str(head);
                aligned.extend(std::iter::repeat_n(' ', n));
                aligned.push_str(tail);
            }
            _ => aligned.push_str(line),
        }
    }
    aligned
}
