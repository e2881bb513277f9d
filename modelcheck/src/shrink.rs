//! Shrinking a failure to a smaller one of the same kind: a reduction (fewer operations, or a
//! smaller schema in `tests/batch.rs`'s `shrink_schema`) is kept only when it fails the same
//! check with the same kind of message ([`failure_class`]), never merely "some failure": a
//! shrink that drifts to another failure (an operation on a document whose insert was dropped,
//! a different invariant) hides the defect it started from.

use mongodb::Client;

use crate::driver::Schema as Entry;
use crate::ops::Op;
use crate::run::replay;

/// The kind of a failure: its message without what names or numbers it (text between
/// backquotes, quotes, brackets, parentheses and braces, digits), its first eight words. Two
/// failures of the same check on the same method and collection kind have the same class
/// whatever the values and ids involved.
pub fn failure_class(message: &str) -> String {
    let mut depth = 0i32;
    let (mut tick, mut quote) = (false, false);
    let mut kept = String::new();
    for ch in message.chars() {
        match ch {
            '`' if !quote => tick = !tick,
            '"' if !tick => quote = !quote,
            '(' | '{' | '[' if !tick && !quote => depth += 1,
            ')' | '}' | ']' if !tick && !quote => depth -= 1,
            c if !tick && !quote && depth <= 0 && !c.is_ascii_digit() => kept.push(c),
            _ => {}
        }
    }
    kept.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Removes operations while the sequence still fails with the same [`failure_class`] as
/// `message`: chunks of halving size, then one by one. The failing operation stays last.
pub async fn operations(
    client: &Client,
    entry: &Entry,
    mut ops: Vec<Op>,
    mut message: String,
) -> (Vec<Op>, String) {
    let wanted = failure_class(&message);
    let mut chunk = ops.len() / 2;
    let mut tries = 0;
    while chunk >= 1 && tries < 400 {
        let mut i = 0;
        let mut progressed = false;
        while i < ops.len() && tries < 400 {
            let end = (i + chunk).min(ops.len().saturating_sub(1));
            if i >= end {
                break;
            }
            let mut candidate = ops.clone();
            candidate.drain(i..end);
            tries += 1;
            match replay(client, entry, &candidate).await {
                Err((at, m)) if failure_class(&m) == wanted => {
                    candidate.truncate(at + 1);
                    ops = candidate;
                    message = m;
                    progressed = true;
                }
                // Passes, or fails another way: this chunk is part of the failure.
                _ => i += chunk,
            }
        }
        if !progressed {
            chunk /= 2;
        }
    }
    (ops, message)
}

#[cfg(test)]
mod tests {
    use super::failure_class;

    #[test]
    fn the_class_leaves_out_names_values_and_numbers() {
        let a = failure_class(
            "bucket {\"$oid\":\"6b07\"} of `e1_items` names owner \"key12\", which `e0s` does not hold",
        );
        let b = failure_class(
            "bucket {\"$oid\":\"99ff\"} of `c_e3` names owner \"key7\", which `e2s` does not hold",
        );
        assert_eq!(a, b);
        assert!(a.contains("names owner"), "{a}");
        let other = failure_class("collection `e0s` differs from the reference: n: expected 3");
        assert_ne!(a, other);
        // Another method answering differently is another class.
        assert_ne!(
            failure_class("e0s.push_r0 answered Err(x), expected Ok"),
            failure_class("e0s.insert answered Err(x), expected Ok")
        );
    }
}
