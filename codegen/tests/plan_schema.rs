//! `docs/plan.schema.json` is the Plan's JSON Schema: kept in sync with the types, and every
//! example's plan validates against it.

use std::path::PathBuf;

use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn committed_schema_matches_the_types() {
    let path = root().join("docs/plan.schema.json");
    let generated = serde_json::to_string_pretty(&Plan::json_schema()).unwrap() + "\n";
    if std::env::var_os("SQUILLION_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/plan.schema.json is out of date with the Plan types; regenerate it with \
         `SQUILLION_BLESS=1 cargo test -p squillion-codegen --test plan_schema` and review the diff"
    );
}

#[test]
fn every_example_plan_validates_against_the_schema() {
    let schema = Plan::json_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("sqn") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let source = SourceFile::new(path.display().to_string(), text);
        let checked = squillion_codegen::load(&source)
            .unwrap_or_else(|d| panic!("{}", source.render(&d, false)));
        let plan = squillion_codegen::engine::plan(&checked.model, &source);
        let json: serde_json::Value = serde_json::from_str(&plan.to_json()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        assert_eq!(json["format_version"], Plan::FORMAT_VERSION);
        seen += 1;
    }
    assert!(
        seen >= 5,
        "expected the seed examples under examples/, found {seen}"
    );
}
