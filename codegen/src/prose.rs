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

/// `n thing` or `n things`, with the plural given.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
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
}
