//! `squillion fmt` never changes what a schema means: for every example and every snippet of the
//! language reference that plans, the formatted file gives the same Plan (positions aside) and the
//! same warnings.

use serde_json::Value;
use squillion_grammar::SourceFile;

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
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
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
