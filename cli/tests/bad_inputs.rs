//! A corpus of bad schemas (`tests/bad/`, syntax and semantic mistakes, 121 files): each file's
//! first line says the diagnostic it must get (`// expect: E0301 at 2:15`, line and column of the
//! file itself). `squillion check` answers every one with exit 1 and that coded diagnostic at that
//! position, `plan` and `generate` fail the same way, and every diagnostic of every file has a
//! code, a position inside the file, a help line (errors) and a rendered snippet of bounded size. How long each takes is
//! measured by `cargo bench -p squillion-cli --bench robustness` (docs/benchmarks.md).

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    files.sort();
    files
}

/// `(code, line, column)` from the file's first line.
fn expectation(path: &Path) -> (String, u64, u64) {
    let bytes = std::fs::read(path).unwrap();
    let first = String::from_utf8_lossy(bytes.split(|b| *b == b'\n').next().unwrap()).into_owned();
    let rest = first
        .strip_prefix("// expect: ")
        .unwrap_or_else(|| panic!("{}: no expectation line", path.display()));
    let (code, at) = rest.split_once(" at ").unwrap();
    let (line, column) = at.split_once(':').unwrap();
    (
        code.to_owned(),
        line.parse().unwrap(),
        column.trim().parse().unwrap(),
    )
}

fn squillion(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_squillion"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_bad_input_gets_its_coded_positioned_diagnostic_and_exit_1() {
    let files = corpus();
    assert!(files.len() >= 100, "{} bad inputs", files.len());
    let mut codes = std::collections::BTreeSet::new();
    for path in &files {
        let name = format!("tests/bad/{}", path.file_name().unwrap().to_string_lossy());
        let (code, line, column) = expectation(path);
        codes.insert(code.clone());
        let (exit, stdout, stderr) = squillion(&["check", "--format", "json", &name]);
        assert_eq!(exit, 1, "{name}: exit code\n{stdout}{stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let diagnostics = json["files"][0]["diagnostics"].as_array().unwrap();
        assert!(
            diagnostics.iter().any(|d| d["severity"] == "error"
                && d["code"] == code.as_str()
                && d["line"] == line
                && d["column"] == column),
            "{name}: expected {code} at {line}:{column}, got {}",
            serde_json::to_string_pretty(diagnostics).unwrap()
        );
        // Spans are offsets in the text as read (bytes that are not UTF-8 shown as U+FFFD).
        let text_len = String::from_utf8_lossy(&std::fs::read(path).unwrap()).len();
        for d in diagnostics {
            let c = d["code"].as_str().unwrap();
            assert!(
                c.len() == 5 && (c.starts_with('E') || c.starts_with('W')),
                "{name}: {d}"
            );
            assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1);
            assert!(
                d["span"]["end"].as_u64().unwrap() as usize <= text_len,
                "{name}: {d}"
            );
            assert_eq!(d["file"], name.as_str());
            if d["severity"] == "error" {
                assert!(
                    d["help"].as_str().is_some_and(|h| !h.trim().is_empty()),
                    "{name}: an error without a help line: {d}"
                );
            }
            // Sentences, not source layout: a string continued over lines without `\` keeps
            // the next line's indentation.
            for key in ["message", "help"] {
                let text = d[key].as_str().unwrap_or("");
                assert!(
                    !text.contains("  ") && text.trim() == text,
                    "{name}: the {key} has a run of spaces: {text:?}"
                );
            }
        }
        // The rendered form: file:line:col of the expected diagnostic, its code, and a snippet
        // whose lines stay short however long the file's lines are.
        let (exit, _, rendered) = squillion(&["check", &name]);
        assert_eq!(exit, 1, "{name}");
        assert!(
            rendered.contains(&format!("[{code}]")) || rendered.contains(&code),
            "{name}"
        );
        assert!(
            rendered.contains(&format!("{name}:{line}:{column}")),
            "{name}: the snippet names {name}:{line}:{column}\n{rendered}"
        );
        for l in rendered.lines() {
            assert!(
                l.chars().count() <= 400,
                "{name}: a {} character line",
                l.len()
            );
        }
        // generate refuses the file with the same code, and so does plan unless the mistake
        // is only in the Rust the file would generate (names defined twice).
        let rust_only = ["E0208", "E0322", "E0323", "E0506"].contains(&code.as_str());
        let mut commands = vec![vec!["generate", &name, "-o", "/nonexistent/never"]];
        if !rust_only {
            commands.push(vec!["plan", &name]);
        }
        for args in commands {
            let (exit, _, stderr) = squillion(&args);
            assert_eq!(exit, 1, "{args:?}: {stderr}");
            assert!(stderr.contains(&code), "{args:?}: {stderr}");
        }
    }
    // Every family is there: syntax, names, fields, relations, queries, settings, encoding.
    for prefix in ["E01", "E02", "E03", "E04", "E05", "E06"] {
        assert!(
            codes.iter().filter(|c| c.starts_with(prefix)).count() >= 3,
            "{prefix}xx: {codes:?}"
        );
    }
}

/// The family of long lines: every bad input with 2,000 spaces before and a 400 KB comment after
/// the line of its mistake still gets its code, and no rendered line is long: snippets cut long
/// lines around what they point at.
#[test]
fn snippets_stay_short_on_400_kb_lines() {
    let pad = " ".repeat(2_000);
    let comment = format!("// {}", "x".repeat(400_000));
    for path in corpus() {
        let Ok(text) = String::from_utf8(std::fs::read(&path).unwrap()) else {
            continue;
        };
        let (code, line, _) = expectation(&path);
        let widened: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == line as usize && !l.contains("\"") {
                    format!("{pad}{l} {comment}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        for variant in [widened] {
            let source = squillion_grammar::SourceFile::new("long.sqn", variant.as_str());
            let diagnostics = match squillion_codegen::pipeline::check(&source) {
                Ok(_) => panic!("{}: accepted once widened", path.display()),
                Err(d) => d,
            };
            assert!(
                diagnostics.iter().any(|d| d.code == code),
                "{}: {code} once widened: {diagnostics:?}",
                path.display()
            );
            let rendered = source.render(&diagnostics, false);
            assert!(
                rendered.len() < 40_000,
                "{}: {} bytes",
                path.display(),
                rendered.len()
            );
            for l in rendered.lines() {
                assert!(
                    l.chars().count() <= 400,
                    "{}: a {} character line",
                    path.display(),
                    l.len()
                );
            }
        }
    }
}
