//! Small pieces of English shared by every stage that writes sentences for people: diagnostics,
//! the engine's reasons and the printouts.

/// `a` or `an` before a word as written (`an Address`, `a string`, `an int32`).
pub fn article(word: &str) -> &'static str {
    match word.trim_start_matches('`').chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'A' | 'E' | 'I' | 'O') => "an",
        _ => "a",
    }
}

/// `word` with its article: `an Address`.
pub fn a(word: &str) -> String {
    format!("{} {word}", article(word))
}

/// `text` with `a` turned into `an` before a capitalised name that starts with a vowel sound the
/// engine can tell from its first letter (`a Author` -> `an Author`; `a User` stays). Entity names
/// are interpolated into the engine's sentences after a fixed `a`; this puts the article right
/// once, where the sentences enter the Plan.
pub fn articles(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut boundary = true;
    while let Some(c) = rest.chars().next() {
        if boundary && (rest.starts_with("a ") || rest.starts_with("A ")) {
            let after = rest[2..].trim_start_matches('`');
            if after.starts_with(['A', 'E', 'I', 'O']) {
                out.push(c);
                out.push('n');
                rest = &rest[1..];
                boundary = false;
                continue;
            }
        }
        out.push(c);
        boundary = !(c.is_alphanumeric() || c == '_' || c == '\'');
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `n thing` or `n things`, with the plural given.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in bytes as people read it (`312 B`, `4.2 KB`, `16 MB`).
pub fn bytes(n: u64) -> String {
    const KB: f64 = 1024.0;
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < KB * KB {
        trim_unit(f / KB, "KB")
    } else if f < KB * KB * KB {
        trim_unit(f / (KB * KB), "MB")
    } else {
        trim_unit(f / (KB * KB * KB), "GB")
    }
}

fn trim_unit(v: f64, unit: &str) -> String {
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_first_letter() {
        assert_eq!(a("Address"), "an Address");
        assert_eq!(a("`int32`"), "an `int32`");
        assert_eq!(a("Part"), "a Part");
        assert_eq!(counted(1, "warning", "warnings"), "1 warning");
        assert_eq!(counted(0, "warning", "warnings"), "0 warnings");
    }

    #[test]
    fn articles_are_corrected_before_names_only() {
        assert_eq!(
            articles("a Author has a Book; A Invoice, a `Effort`"),
            "an Author has a Book; An Invoice, an `Effort`"
        );
        assert_eq!(
            articles("a User, a UTC date, a array"),
            "a User, a UTC date, a array"
        );
        assert_eq!(
            articles("data Author, la Ecole, é a Item"),
            "data Author, la Ecole, é an Item"
        );
        assert_eq!(articles(""), "");
        assert_eq!(articles("a"), "a");
    }
}
