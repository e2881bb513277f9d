//! What the language server must agree with: `squillion check --format json` and
//! `squillion plan --json` on the same text, and positions counted independently of the server.

use serde_json::{json, Value};

/// A diagnostic as both sides can state it: code, 1-based line, 1-based column in characters,
/// help.
pub type Said = (String, u64, u64, Option<String>);

fn run(args: &[&str], name: &str, text: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("squillion"))
        .current_dir(dir.path())
        .args(args)
        .arg(name)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// What `squillion check --format json` says: the language's diagnostics and, for a file that
/// checks, the Plan's warnings (not notes; `cli`'s `check_reports_the_plans_warnings` holds them
/// equal to `squillion plan --json`'s).
pub fn expected(name: &str, text: &str) -> Vec<Said> {
    let check = run(&["check", "--format", "json"], name, text);
    let mut said: Vec<Said> = check["files"][0]["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("check --format json: {check}"))
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["help"].as_str().map(str::to_owned),
            )
        })
        .collect();
    said.sort();
    said
}

/// The server's diagnostics in the same terms (UTF-16 columns turned back into characters).
pub fn published(text: &str, diagnostics: &[Value]) -> Vec<Said> {
    let mut said: Vec<Said> = diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "squillion");
            let message = d["message"].as_str().unwrap();
            let help = message
                .split_once("\nhelp: ")
                .map(|(_, help)| help.to_owned());
            let start = &d["range"]["start"];
            let line = start["line"].as_u64().unwrap();
            let column = char_column(text, line, start["character"].as_u64().unwrap());
            (
                d["code"].as_str().unwrap().to_owned(),
                line + 1,
                column + 1,
                help,
            )
        })
        .collect();
    said.sort();
    said
}

/// The 0-based character column of a UTF-16 column on 0-based `line`.
pub fn char_column(text: &str, line: u64, utf16: u64) -> u64 {
    let line = text.split('\n').nth(line as usize).unwrap_or("");
    let mut units = 0;
    for (chars, c) in line.chars().enumerate() {
        if units >= utf16 {
            return chars as u64;
        }
        units += c.len_utf16() as u64;
    }
    line.chars().count() as u64
}

/// The protocol position of byte `offset`.
pub fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": character })
}

/// The byte offset of a protocol position.
pub fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap();
    let start: usize = text.split('\n').take(line).map(|l| l.len() + 1).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}

/// The text with the edits of a `TextEdit[]` applied (they do not overlap).
pub fn apply(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_owned();
    for (start, end, new) in spans {
        out.replace_range(start..end, new);
    }
    out
}

/// Byte offsets of `word` as a whole word in the code of a `.sqn` text (not in comments or
/// strings).
pub fn word_offsets(text: &str, word: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b if is_word(b) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                if &text[start..i] == word {
                    found.push(start);
                }
            }
            _ => i += 1,
        }
    }
    found
}
