//! "Did you mean" comes with its edit: over misspellings of every name in every example, each
//! diagnostic whose help suggests a word carries the fix that writes it, the help names that very
//! word, and applying the fix makes the diagnostic go away (the editor's quick fix relies on it).

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use squillion_grammar::{Diagnostic, SourceFile};

fn examples() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Byte ranges of the words (names, keywords, units) outside comments and strings.
fn words(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    i += 1;
                }
                i += 1;
            }
            b if is_word(b) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                if i - start >= 3 {
                    found.push((start, i));
                }
            }
            _ => i += 1,
        }
    }
    found
}

/// A near miss: one character dropped, two swapped, or one doubled, or the case changed.
fn misspell(word: &str, how: u8, at: usize) -> String {
    let chars: Vec<char> = word.chars().collect();
    let i = at % chars.len();
    let mut out = chars.clone();
    match how % 4 {
        0 => {
            out.remove(i);
        }
        1 if i + 1 < chars.len() => out.swap(i, i + 1),
        2 => out.insert(i, chars[i]),
        _ => return word.to_uppercase(),
    }
    out.into_iter().collect()
}

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    match squillion_codegen::load(&SourceFile::new("t.sqn", text)) {
        Ok(checked) => checked.warnings,
        Err(all) => all,
    }
}

#[test]
fn every_suggestion_is_a_fix_that_works() {
    let examples = examples();
    let suggested = Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..examples.len(),
        any::<prop::sample::Index>(),
        any::<u8>(),
        any::<usize>(),
    );
    runner
        .run(&strategy, |(example, pick, how, at)| {
            let text = &examples[example];
            let candidates = words(text);
            let (start, end) = candidates[pick.index(candidates.len())];
            let mut broken = text.clone();
            broken.replace_range(start..end, &misspell(&text[start..end], how, at));
            for d in diagnostics(&broken) {
                let help = d.help.clone().unwrap_or_default();
                match &d.fix {
                    None if help.contains("did you mean") => {
                        return Err(TestCaseError::fail(format!(
                            "{} `{}` suggests without a fix: {help}",
                            d.code, d.message
                        )))
                    }
                    None => {}
                    Some(fix) => {
                        suggested.set(suggested.get() + 1);
                        prop_assert!(
                            help.contains(&format!("{}`?", fix.replacement)),
                            "{} fix `{}` is not what the help suggests: {help}",
                            d.code,
                            fix.replacement
                        );
                        let mut repaired = broken.clone();
                        repaired.replace_range(fix.span.start..fix.span.end, &fix.replacement);
                        let again = diagnostics(&repaired);
                        prop_assert!(
                            !again
                                .iter()
                                .any(|a| a.code == d.code && a.span.start == d.span.start),
                            "{} `{}` is still there after writing `{}`",
                            d.code,
                            d.message,
                            fix.replacement
                        );
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(
        suggested.get() >= 60,
        "only {} suggestions met in 300 misspellings",
        suggested.get()
    );
}
