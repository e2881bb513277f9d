//! The language's keywords, read from the grammar itself (`kw_name = @{ "word" ~ kw_end }`), so
//! that tools offering or highlighting them stay in step with the parser.

const GRAMMAR: &str = include_str!("squillion.pest");

/// Every keyword of the grammar, in the order the grammar declares them.
///
/// ```
/// let keywords = squillion_grammar::keywords();
/// assert!(keywords.contains(&"entity") && keywords.contains(&"time_range"));
/// ```
pub fn keywords() -> Vec<&'static str> {
    GRAMMAR
        .lines()
        .filter_map(|line| {
            let rule = line.trim_start().strip_prefix("kw_")?;
            let (_, body) = rule.split_once("@{")?;
            let word = body.trim_start().strip_prefix('"')?;
            word.split_once('"').map(|(word, _)| word)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_rule_is_read() {
        let rules = GRAMMAR
            .lines()
            .filter(|l| l.starts_with("kw_") && !l.starts_with("kw_end"))
            .count();
        let words = keywords();
        assert_eq!(words.len(), rules);
        assert!(rules > 30);
        assert!(words
            .iter()
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
    }
}
