//! The Rust module `squillion migrate -o` writes (`migration::rust::module`): a golden text for
//! a small migration (a stored field renamed, an index added, a validator relaxed and tightened,
//! `schema_version` raised), the same bytes on every generation, exactly what prettyplease makes
//! of it, and a value in extended JSON refused with the step named. That the module compiles and
//! migrates as the CLI does is checked against the server in
//! `cli/tests/database/migrate_generated.rs`.

use serde_json::json;
use squillion_codegen::migration::{self, rust, Action, Migration, Phase, Step};
use squillion_codegen::plan::{Index, IndexKey, Plan};
use squillion_grammar::SourceFile;

fn plan_of(name: &str, text: &str) -> Plan {
    let source = SourceFile::new(name, text);
    let checked =
        squillion_codegen::load(&source).unwrap_or_else(|d| panic!("{name} does not load: {d:?}"));
    squillion_codegen::engine::plan(&checked.model, &source)
}

fn small() -> Migration {
    let old = plan_of(
        "v1.sqn",
        "entity Note @schema_version(1) { title: string pages: int32 }\n",
    );
    let new = plan_of(
        "v2.sqn",
        "entity Note @schema_version(2) { title: string @index pages: int32 @stored(\"n_pages\") }\n",
    );
    let d = squillion_codegen::diff::diff(&old, &new);
    migration::plan(&old, &new, &d).unwrap_or_else(|r| panic!("refused: {r:?}"))
}

#[test]
fn a_small_migration_as_rust() {
    let m = small();
    let text = rust::module(&m).unwrap();
    insta::assert_snapshot!("small_migration_rs", text);
}

#[test]
fn the_module_is_deterministic_and_formatted() {
    let (a, b) = (
        rust::module(&small()).unwrap(),
        rust::module(&small()).unwrap(),
    );
    assert_eq!(a, b, "two generations differ");
    // Each item as prettyplease prints it: formatting the file again changes nothing but the
    // blank lines between items (prettyplease writes none).
    let file: syn::File = syn::parse_str(&a).expect("the module parses");
    let again = prettyplease::unparse(&file);
    let code = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    assert_eq!(code(&a), code(&again), "the module is not prettyplease's");
    for f in [
        "pub async fn migrate(",
        "pub const MIGRATION",
        "pub const STEPS",
    ] {
        assert!(a.contains(f), "no `{f}`");
    }
    // One function per step, named after it, each running the step of the same name.
    for (i, step) in small().steps.iter().enumerate() {
        assert!(
            a.contains(&format!("pub async fn step_{:02}_", i + 1)),
            "no function for step {}",
            i + 1
        );
        assert!(a.contains(&format!("{:?}", step.name())), "{}", step.name());
        assert!(
            a.contains(&format!("STEPS[{i}]")),
            "step {i} runs its own name"
        );
    }
}

#[test]
fn extended_json_is_refused_naming_the_step() {
    let mut index = Index {
        name: "recent".to_owned(),
        keys: vec![IndexKey::ordered("at", 1)],
        unique: false,
        sparse: false,
        partial_filter: Some(json!({ "at": { "$gt": { "$date": "2020-01-01T00:00:00Z" } } })),
        collation: None,
        expire_after_seconds: None,
        multikey: false,
        reasons: Vec::new(),
        serves: Vec::new(),
    };
    let step = |index: Index| Step {
        phase: Phase::Expand,
        action: Action::CreateIndex {
            collection: "notes".to_owned(),
            index,
        },
    };
    let m = Migration {
        id: "a..b".to_owned(),
        old_source: "v1.sqn".to_owned(),
        new_source: "v2.sqn".to_owned(),
        steps: vec![step(index.clone())],
    };
    let e = rust::module(&m).unwrap_err().to_string();
    assert!(
        e.contains("expand: create index notes.recent") && e.contains("$date"),
        "{e}"
    );
    index.partial_filter = Some(json!({ "at": { "$exists": true } }));
    let ok = Migration {
        steps: vec![step(index)],
        ..m
    };
    assert!(rust::module(&ok).is_ok());
}
