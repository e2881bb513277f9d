//! `squillion fmt` never changes what a schema means: for every example, every snippet of the
//! language reference and generated schemas written with random spacing, comments and doc comments,
//! the formatted file gives the same syntax tree, the same Plan (positions aside), the same
//! warnings or errors, and keeps every comment in order; formatting it again changes nothing.

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;
use squillion_grammar::SourceFile;
use squillion_testkit::sqn;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    paths.sort();
    for path in paths {
        files.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            std::fs::read_to_string(&path).unwrap(),
        ));
    }
    let doc = std::fs::read_to_string(root().join("docs/language.md")).unwrap();
    for (i, block) in doc.split("```sqn\n").skip(1).enumerate() {
        let code = &block[..block.find("```").unwrap()];
        files.push((format!("language.md snippet {}", i + 1), code.to_owned()));
    }
    files
}

/// The plan as JSON without source positions, and the warnings' codes and messages.
fn meaning(name: &str, text: &str) -> Option<(Value, Vec<String>)> {
    let source = SourceFile::new(name, text);
    let checked = squillion_codegen::load(&source).ok()?;
    meaning_of(checked, &source)
}

fn meaning_of(
    checked: squillion_codegen::resolve::Checked,
    source: &SourceFile,
) -> Option<(Value, Vec<String>)> {
    let plan = squillion_codegen::engine::plan(&checked.model, source);
    let mut json = serde_json::to_value(&plan).unwrap();
    strip_positions(&mut json);
    let mut warnings: Vec<String> = checked
        .warnings
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    warnings.sort();
    Some((json, warnings))
}

fn strip_positions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key("start") && map.contains_key("end") {
                *value = Value::Null;
                return;
            }
            map.remove("span");
            map.values_mut().for_each(strip_positions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_positions),
        _ => {}
    }
}

#[test]
fn formatting_keeps_the_plan() {
    let mut planned = 0;
    for (name, text) in corpus() {
        let Some(before) = meaning(&name, &text) else {
            continue;
        };
        let formatted = squillion_grammar::format(&text).unwrap();
        let after = meaning(&name, &formatted)
            .unwrap_or_else(|| panic!("{name}: the formatted file no longer plans:\n{formatted}"));
        assert!(before == after, "{name}: formatting changed the plan");
        planned += 1;
    }
    assert!(planned >= 20, "only {planned} files planned");
}

/// The syntax tree as JSON, without positions.
fn tree(text: &str) -> Result<Value, TestCaseError> {
    let schema = squillion_grammar::parse(text)
        .map_err(|e| TestCaseError::fail(format!("does not parse: {e:?}\n{text}")))?;
    let mut json = serde_json::to_value(&schema).unwrap();
    strip_positions(&mut json);
    Ok(json)
}

/// What the checker says about a file that does not plan: codes and messages of every diagnostic.
fn verdict(text: &str) -> Result<(Value, Vec<String>), Vec<String>> {
    let source = SourceFile::new("gen.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => Ok(meaning_of(checked, &source).unwrap()),
        Err(diagnostics) => Err(diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect()),
    }
}

/// `needles` occur in `haystack` in this order.
fn in_order(haystack: &str, needles: &[String]) -> Result<(), String> {
    let mut from = 0;
    for needle in needles {
        match haystack[from..].find(needle.as_str()) {
            Some(at) => from += at + needle.len(),
            None => return Err(needle.clone()),
        }
    }
    Ok(())
}

/// The testkit's schemas (every construct of the grammar) and schemagen's (every layout family,
/// always valid), both as tokens to re-space.
fn schemas() -> impl Strategy<Value = sqn::Generated> {
    prop_oneof![
        sqn::schema(),
        squillion_schemagen::schema(Default::default())
            .prop_map(|s| sqn::tokens_of(&squillion_schemagen::render(&s))),
    ]
}

#[test]
fn formatting_generated_schemas_keeps_their_meaning_and_every_comment() {
    let cases = 256;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let planned = Cell::new(0u32);
    let commented = Cell::new(0u32);
    runner
        .run(&(schemas(), sqn::spacing()), |(schema, spacing)| {
            let rendered = sqn::render(&schema, &spacing);
            let text = &rendered.text;
            let once = squillion_grammar::format(text)
                .map_err(|e| TestCaseError::fail(format!("does not format: {e:?}\n{text}")))?;
            let twice = squillion_grammar::format(&once)
                .map_err(|e| TestCaseError::fail(format!("formatted, does not parse: {e:?}\n{once}")))?;
            if once != twice {
                return Err(TestCaseError::fail(format!(
                    "not idempotent\n--- input\n{text}\n--- once\n{once}\n--- twice\n{twice}"
                )));
            }
            if tree(text)? != tree(&once)? {
                return Err(TestCaseError::fail(format!(
                    "the syntax tree changed\n--- input\n{text}\n--- formatted\n{once}"
                )));
            }
            in_order(&once, &rendered.comments).map_err(|lost| {
                TestCaseError::fail(format!("comment `{lost}` lost or moved\n--- input\n{text}\n--- formatted\n{once}"))
            })?;
            in_order(&once, &rendered.docs).map_err(|lost| {
                TestCaseError::fail(format!("doc comment `{lost}` lost or moved\n--- input\n{text}\n--- formatted\n{once}"))
            })?;
            let before = verdict(text);
            if before != verdict(&once) {
                return Err(TestCaseError::fail(format!(
                    "formatting changed the plan or the diagnostics\n--- input\n{text}\n--- formatted\n{once}"
                )));
            }
            if before.is_ok() {
                planned.set(planned.get() + 1);
            }
            if !rendered.comments.is_empty() && !rendered.docs.is_empty() {
                commented.set(commented.get() + 1);
            }
            // The layout depends on the comments and empty lines, not on the rest of the spacing.
            let plain = squillion_grammar::format(&sqn::canonical(&schema)).unwrap();
            if rendered.comments.is_empty() && rendered.docs.is_empty() && !text.contains("\n\n") && plain != once {
                return Err(TestCaseError::fail(format!(
                    "the layout depends on the spacing\n--- input\n{text}\n--- formatted\n{once}\n--- canonical input formatted\n{plain}"
                )));
            }
            Ok(())
        })
        .unwrap();
    // The property is only worth something if many generated schemas plan and carry comments.
    assert!(
        planned.get() >= cases / 3,
        "only {} of {cases} generated schemas planned",
        planned.get()
    );
    assert!(
        commented.get() >= cases / 2,
        "only {} of {cases} generated schemas had comments and doc comments",
        commented.get()
    );
}
