//! Where the cursor is, read from the text before it: the blocks it is in and the tokens just
//! before it. Text being typed rarely parses, so completion cannot wait for the syntax tree.

/// A token before the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A name or keyword.
    Word(String),
    /// A number with the unit written after it, if any (`20KB`, `100/s`).
    Number,
    /// A string literal.
    Str,
    /// Punctuation: `{`, `:`, `<->`, `@`, `(`...
    Punct(&'static str),
}

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// `settings { ... }`.
    Settings,
    /// `entity Name { ... }`.
    Entity(String),
    /// `value Name { ... }`.
    Value(String),
    /// `variant name { ... }` inside an entity.
    Variant,
    /// `relation A.x: ... <-> B.y: ... { ... }`, with its two entities.
    Relation(Vec<String>),
    /// `fields { ... }` inside a relation.
    Fields,
    /// `query name on Entity { ... }`.
    Query(Option<String>),
    /// Parentheses or brackets (`@large(`, `many(`, `map<`) with the word before them, or `[`
    /// for an array's brackets: not a block of statements.
    Group(Option<String>),
}

/// The cursor's surroundings.
#[derive(Debug, Clone)]
pub struct Context {
    /// Blocks around the cursor, outermost first.
    pub blocks: Vec<Block>,
    /// Tokens of the statement the cursor is in, before the word being typed (the header of a
    /// declaration not opened yet, or everything since the enclosing block opened).
    pub tokens: Vec<Token>,
    /// Byte offset where the word being typed starts (the cursor when none is).
    pub word_start: usize,
    /// A number ends right before the word being typed: the word is a unit.
    pub after_number: bool,
}

impl Context {
    /// The innermost block that holds statements (parentheses skipped).
    pub fn block(&self) -> Option<&Block> {
        self.blocks
            .iter()
            .rev()
            .find(|b| !matches!(b, Block::Group(_)))
    }

    /// The innermost parentheses, with the word before them (`large` in `@large(`).
    pub fn group(&self) -> Option<&Option<String>> {
        match self.blocks.last() {
            Some(Block::Group(word)) => Some(word),
            _ => None,
        }
    }

    /// The last token before the word being typed.
    pub fn last(&self) -> Option<&Token> {
        self.tokens.last()
    }

    /// The last word before the word being typed, skipping `,` lists back to their keyword
    /// (`keep a, b, |` is after `keep`).
    pub fn list_head(&self) -> Option<&str> {
        let mut tokens = self.tokens.iter().rev().peekable();
        match tokens.peek() {
            Some(Token::Punct(",")) => {
                tokens.next();
            }
            Some(Token::Word(w)) => return Some(w),
            _ => return None,
        }
        // Walk back over `item ,` pairs (an item is a word, a path `a.b`, or `word(...)`) to
        // the keyword.
        loop {
            match tokens.next() {
                Some(Token::Word(_)) => {
                    while tokens.peek() == Some(&&Token::Punct(".")) {
                        tokens.next();
                        tokens.next();
                    }
                }
                Some(Token::Punct(")")) => {
                    for t in tokens.by_ref() {
                        if *t == Token::Punct("(") {
                            break;
                        }
                    }
                    tokens.next();
                }
                _ => return None,
            }
            match tokens.next() {
                Some(Token::Punct(",")) => {}
                Some(Token::Word(w)) => return Some(w),
                _ => return None,
            }
        }
    }
}

/// The context of byte `offset` in `text`.
pub fn at(text: &str, offset: usize) -> Context {
    let offset = offset.min(text.len());
    let mut offset = offset;
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let bytes = before.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // The word being typed, and a unit's `/`.
    let mut word_start = offset;
    while word_start > 0 && is_word(bytes[word_start - 1]) {
        word_start -= 1;
    }
    if word_start > 0
        && bytes[word_start - 1] == b'/'
        && word_start > 1
        && bytes[word_start - 2].is_ascii_digit()
    {
        word_start -= 1;
    }
    // A unit glued to its number: `20K|`, `100/|`.
    let mut digits = word_start;
    while digits > 0
        && (bytes[digits - 1].is_ascii_digit()
            || bytes[digits - 1] == b'_'
            || bytes[digits - 1] == b'.')
    {
        digits -= 1;
    }
    let number_start = bytes.get(digits).is_some_and(u8::is_ascii_digit)
        && (digits == 0 || !is_word(bytes[digits - 1]));
    let typed_starts_with_digit = bytes.get(word_start).is_some_and(u8::is_ascii_digit);
    let (after_number, scan_to) = if typed_starts_with_digit {
        // `20KB`: the word is the number and its unit; the unit starts after the digits.
        let mut unit = word_start;
        while unit < offset
            && (bytes[unit].is_ascii_digit() || bytes[unit] == b'_' || bytes[unit] == b'.')
        {
            unit += 1;
        }
        word_start = unit;
        (true, digits.min(unit))
    } else if number_start && digits < word_start {
        (true, digits)
    } else {
        (false, word_start)
    };
    let mut cx = scan(&before[..scan_to]);
    cx.word_start = word_start;
    cx.after_number = after_number;
    cx
}

fn scan(text: &str) -> Context {
    let mut blocks: Vec<Block> = Vec::new();
    let mut tokens: Vec<Token> = Vec::new();
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b == b'"' {
            i += 1;
            while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            tokens.push(Token::Str);
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (is_word(bytes[i]) || matches!(bytes[i], b'.' | b'/' | b':')) {
                i += 1;
            }
            tokens.push(Token::Number);
        } else if is_word(b) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            tokens.push(Token::Word(text[start..i].to_owned()));
        } else if text[i..].starts_with("<->") {
            tokens.push(Token::Punct("<->"));
            i += 3;
        } else if b.is_ascii_whitespace() || b >= 0x80 {
            i += 1;
        } else {
            let punct = match b {
                b'{' => "{",
                b'}' => "}",
                b'(' => "(",
                b')' => ")",
                b'[' => "[",
                b']' => "]",
                b'<' => "<",
                b'>' => ">",
                b':' => ":",
                b',' => ",",
                b'.' => ".",
                b'@' => "@",
                b'=' => "=",
                b'?' => "?",
                _ => "",
            };
            i += 1;
            match punct {
                "{" => {
                    blocks.push(block(&tokens, &blocks));
                    tokens.clear();
                }
                "}" => {
                    while matches!(blocks.last(), Some(Block::Group(_))) {
                        blocks.pop();
                    }
                    blocks.pop();
                    tokens.clear();
                }
                "(" | "[" | "<" => {
                    let word = match tokens.last() {
                        Some(Token::Word(w)) if punct != "[" => Some(w.clone()),
                        // An array's element type: `[` stands for the word.
                        _ if punct == "[" => Some("[".to_owned()),
                        _ => None,
                    };
                    blocks.push(Block::Group(word));
                    tokens.push(Token::Punct(punct));
                }
                ")" | "]" | ">" => {
                    if matches!(blocks.last(), Some(Block::Group(_))) {
                        blocks.pop();
                    }
                    tokens.push(Token::Punct(punct));
                }
                "" => {}
                p => tokens.push(Token::Punct(p)),
            }
        }
    }
    Context {
        blocks,
        tokens,
        word_start: text.len(),
        after_number: false,
    }
}

/// The block a `{` opens, told by the statement before it.
fn block(tokens: &[Token], blocks: &[Block]) -> Block {
    let words: Vec<&str> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect();
    let inside = blocks.iter().rev().find(|b| !matches!(b, Block::Group(_)));
    let name = |at: usize| words.get(at).map(|w| (*w).to_owned()).unwrap_or_default();
    // The statement's keyword: the last one that opens a block (a field list before `fields`
    // or `variant` belongs to earlier statements).
    let keyword = words.iter().rposition(|w| {
        matches!(
            *w,
            "entity" | "value" | "relation" | "query" | "settings" | "variant" | "fields"
        )
    });
    match keyword.map(|k| (k, words[k])) {
        Some((k, "entity")) if inside.is_none() => Block::Entity(name(k + 1)),
        Some((k, "value")) if inside.is_none() => Block::Value(name(k + 1)),
        Some((_, "settings")) if inside.is_none() => Block::Settings,
        Some((k, "relation")) if inside.is_none() => {
            // `relation A . x : c <-> B . y : c`: the words after `relation` and after `<->`.
            let mut ends = vec![name(k + 1)];
            let arrow = tokens.iter().position(|t| *t == Token::Punct("<->"));
            if let Some(Token::Word(w)) = arrow.and_then(|a| tokens.get(a + 1)) {
                ends.push(w.clone());
            }
            Block::Relation(ends)
        }
        Some((k, "query")) if inside.is_none() => {
            let on = words[k..].iter().position(|w| *w == "on");
            Block::Query(on.map(|o| name(k + o + 1)))
        }
        Some((_, "variant")) if matches!(inside, Some(Block::Entity(_))) => Block::Variant,
        Some((_, "fields")) if matches!(inside, Some(Block::Relation(_))) => Block::Fields,
        _ => Block::Group(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(text: &str) -> Context {
        at(text, text.len())
    }

    #[test]
    fn blocks_and_tokens_before_the_cursor() {
        let c = cx("entity A { // {\n  x: \"}\" ");
        assert_eq!(c.blocks, [Block::Entity("A".into())]);
        let c = cx("relation A.b: many <-> B.a: one {\n  latest 5 by ");
        assert_eq!(c.blocks, [Block::Relation(vec!["A".into(), "B".into()])]);
        assert_eq!(c.last(), Some(&Token::Word("by".into())));
        let c = cx("query q on Book { where ti");
        assert_eq!(c.blocks, [Block::Query(Some("Book".into()))]);
        assert_eq!(c.word_start, "query q on Book { where ".len());
        let c = cx("entity A { x: int32 @large(20K");
        assert!(c.after_number);
        assert_eq!(c.group(), Some(&Some("large".into())));
        assert_eq!(c.word_start, "entity A { x: int32 @large(20".len());
        let c = cx("query q on A { rate 100/");
        assert!(c.after_number);
        assert_eq!(c.word_start, "query q on A { rate 100".len());
        let c = cx("relation A.b: few <-> B.a: one { keep a, b, ");
        assert_eq!(c.list_head(), Some("keep"));
        let c = cx("relation A.b: few <-> B.a: one { summary count, total(n), ");
        assert_eq!(c.list_head(), Some("summary"));
        let c = cx("relation A.b: few <-> B.a: one { show A.x, A.y, ");
        assert_eq!(c.list_head(), Some("show"));
    }
}
