//! Syntax errors about how names and bounds are spelt, which the grammar alone reports as
//! something else: a name with a letter outside ASCII (`Café`, `prénom`, `名前`: the grammar
//! reads `Caf` and stops at `é`, expecting what follows a name), and a cardinality's bound in
//! brackets other than parentheses (`many[300]`, `few<10>`, `many{300}`: read as an array type,
//! a type argument or a body).

use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// The diagnostic for a word at `at` (`word`, spanning `span`) holding a letter or digit outside
/// ASCII, when there is one: names become Rust identifiers and index names, so they are ASCII.
pub(super) fn non_ascii_name(word: &str, span: Span) -> Option<Diagnostic> {
    let (_, first) = word
        .char_indices()
        .find(|(_, c)| !c.is_ascii() && (c.is_alphanumeric() || *c == '_'))?;
    let ascii = ascii_spelling(word);
    let spelling = match &ascii {
        Some(a) => format!("write `{a}`"),
        None => "spell it with ASCII letters".to_owned(),
    };
    Some(
        Diagnostic::error(
            codes::SYNTAX,
            span,
            format!(
                "`{word}` is not a name: a name is made of ASCII letters, digits and `_`, and `{first}` is not one of them"
            ),
        )
        .with_label(format!("`{first}` is not ASCII"))
        .with_fix_from(ascii.as_deref().map(|a| (span, a)))
        .with_help(format!(
            "{spelling}: names become Rust identifiers and MongoDB index names; `@stored(\"{word}\")` keeps a field's own spelling in the documents, `@collection(\"...\")` a collection's, and a doc comment (`///`) any text"
        )),
    )
}

/// `word` with the accents of Latin letters taken off (`Café` -> `Cafe`, `Straße` -> `Strasse`),
/// when every other character is ASCII already.
fn ascii_spelling(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let lower = c.to_lowercase().next().unwrap_or(c);
        let base = match lower {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' => "a",
            'ç' | 'ć' | 'č' => "c",
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
            'ì' | 'í' | 'î' | 'ï' | 'ī' => "i",
            'ñ' | 'ń' | 'ň' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => "u",
            'ý' | 'ÿ' => "y",
            'ś' | 'š' => "s",
            'ź' | 'ż' | 'ž' => "z",
            'ł' => "l",
            'ř' => "r",
            'ß' => "ss",
            'æ' => "ae",
            'œ' => "oe",
            _ => return None,
        };
        if c.is_uppercase() {
            let mut chars = base.chars();
            if let Some(f) = chars.next() {
                out.push(f.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push_str(base);
        }
    }
    Some(out)
}

/// The cardinality classes that take a bound.
const CLASSES: [&str; 2] = ["few", "many"];

/// The help for a bound written in other brackets than parentheses, or after `:` or `=`
/// (`many[300]`, `few<10>`, `many{300}`, `many: 300`), when `before` ends with a cardinality
/// class and `rest` opens such a bound.
pub(super) fn bound_brackets_help(rest: &str, before: &str) -> Option<String> {
    let ends_with_class = |text: &str| {
        CLASSES.iter().copied().find(|c| {
            text.strip_suffix(*c)
                .is_some_and(|b| !b.ends_with(|ch: char| ch.is_alphanumeric() || ch == '_'))
        })
    };
    // `B.a: few{3}` at the end of a relation's ends: `{` opened the relation's body, and the
    // error is at the number inside it.
    let braced = before
        .trim_end()
        .strip_suffix('{')
        .and_then(|b| ends_with_class(b.trim_end()))
        .filter(|_| rest.starts_with(|c: char| c.is_ascii_digit()));
    let (class, open, inner) = match braced {
        Some(class) => (class, '{', rest),
        None => {
            let class = ends_with_class(before)?;
            let open = rest.chars().next()?;
            (class, open, &rest[open.len_utf8()..])
        }
    };
    if !matches!(open, '[' | '<' | '{' | ':' | '=') {
        return None;
    }
    let digits: String = inner
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '_')
        .collect();
    let n = if digits.is_empty() {
        "300"
    } else {
        digits.as_str()
    };
    let written = match open {
        '[' => "`[...]`",
        '<' => "`<...>`",
        '{' => "`{...}`",
        ':' => "`:`",
        _ => "`=`",
    };
    Some(format!(
        "a bound is written in parentheses right after the class, not with {written}: `{class}({n})`"
    ))
}
