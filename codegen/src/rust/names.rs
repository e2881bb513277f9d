//! Rust identifiers for plan names: escaped in one place.

use proc_macro2::{Ident, Span};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// A field identifier: snake_case, keywords raw (`r#type`), invalid characters replaced.
pub(crate) fn field_ident(name: &str) -> Ident {
    let mut s = snake(name);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
        return Ident::new(&s, Span::call_site());
    }
    if KEYWORDS.contains(&s.as_str()) {
        return Ident::new_raw(&s, Span::call_site());
    }
    Ident::new(&s, Span::call_site())
}

/// A type identifier: PascalCase, invalid characters removed.
pub(crate) fn type_ident(name: &str) -> Ident {
    let mut s = pascal(name);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    if KEYWORDS.contains(&s.as_str()) || s == "Self" {
        s.push('_');
    }
    Ident::new(&s, Span::call_site())
}

/// `snake_case`, keeping only ASCII letters, digits and `_`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p));
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next_lower)
            }) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() || *c == '_' {
            out.push(*c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// `PascalCase`, keeping only ASCII letters and digits.
pub(crate) fn pascal(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        } else {
            upper = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_raw_and_names_are_cleaned() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("firstName").to_string(), "first_name");
        assert_eq!(field_ident("2fa").to_string(), "_2fa");
        assert_eq!(field_ident("a-b").to_string(), "a_b");
        assert_eq!(type_ident("log_messages").to_string(), "LogMessages");
        assert_eq!(type_ident("Self").to_string(), "Self_");
    }
}
