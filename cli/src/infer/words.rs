//! The sentences of the draft's comments, made from the measurements.

use std::collections::BTreeMap;

use super::histogram::Histogram;
use super::shape::Kind;

/// `1204` -> `1,204`.
pub fn n(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A percentage with at most one decimal: `2.5%`, `40%`.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_owned();
    }
    let p = (part as f64 * 1000.0 / whole as f64).round() / 10.0;
    let text = format!("{p:.1}");
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `in all 1,000 sampled books` or `in 950 of 1,000 sampled books`.
pub fn presence(present: u64, seen: u64, what: &str) -> String {
    if present == seen {
        format!("in all {} sampled {what}", n(seen))
    } else {
        format!("in {} of {} sampled {what}", n(present), n(seen))
    }
}

/// `string in 950, int in 50`, most common first.
pub fn kinds(kinds: &BTreeMap<Kind, u64>) -> String {
    let mut list: Vec<(&Kind, &u64)> = kinds.iter().collect();
    list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list.iter()
        .map(|(k, c)| format!("{} in {}", k.name(), n(**c)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `p50 3, p99 41, max 57`.
pub fn spread(h: &Histogram) -> String {
    match (h.p50(), h.p99(), h.max()) {
        (Some(a), Some(b), Some(c)) => format!("p50 {}, p99 {}, max {}", n(a), n(b), n(c)),
        _ => "none seen".to_owned(),
    }
}

/// `1 document` / `3 documents`.
pub fn count(v: u64, one: &str, many: &str) -> String {
    if v == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", n(v))
    }
}

/// A span of time for people: `12 seconds`, `3 minutes`, `1.5 hours`, `2.0 days`.
pub fn duration(secs: f64) -> String {
    if secs >= 86_400.0 {
        format!("{:.1} days", secs / 86_400.0)
    } else if secs >= 3_600.0 {
        format!("{:.1} hours", secs / 3_600.0)
    } else if secs >= 60.0 {
        format!("{:.0} minutes", secs / 60.0)
    } else if secs < 2.0 {
        "1 second".to_owned()
    } else {
        format!("{secs:.0} seconds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_sentences() {
        assert_eq!(n(0), "0");
        assert_eq!(n(999), "999");
        assert_eq!(n(1204), "1,204");
        assert_eq!(n(1_000_000), "1,000,000");
        assert_eq!(percent(1, 40), "2.5%");
        assert_eq!(percent(2, 5), "40%");
        assert_eq!(presence(3, 3, "books"), "in all 3 sampled books");
        assert_eq!(presence(2, 3, "books"), "in 2 of 3 sampled books");
        let h = Histogram::from_pairs([(1, 50), (3, 40), (41, 9), (57, 1)]);
        assert_eq!(spread(&h), "p50 1, p99 41, max 57");
    }
}
