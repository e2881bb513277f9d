//! The validator carries what the repository guarantees about a value: every `@counter` has
//! `minimum: 0` wherever it is (a top-level field, a value type's field, each element of an array
//! of value types), the floor its guarded `dec_` keeps; numbers that are not counters have none.
//! The server test `tests/derive_fields.rs` shows the server refusing a counter below its floor.

use serde_json::Value;
use squillion_grammar::SourceFile;

const SCHEMA: &str = r#"
value Bin { label: string  count: int32 @counter  weight: double }
entity Store {
  stock: int32 @counter
  sold: int64 @counter
  fuel: double @counter
  price: double
  views: int64
  main: Bin
  bins: [Bin; 5]
}
"#;

/// Every `(path, schema)` node of a `$jsonSchema`, properties and array items walked.
fn nodes<'a>(path: &str, schema: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, s) in props {
            let p = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            out.push((p.clone(), s));
            nodes(&p, s, out);
        }
    }
    if let Some(items) = schema.get("items") {
        nodes(path, items, out);
        if items.get("properties").is_none() {
            out.push((format!("{path}[]"), items));
        }
    }
}

#[test]
fn every_counter_and_only_counters_have_a_floor_of_zero() {
    let source = SourceFile::new("floors.sqn", SCHEMA);
    let checked = squillion_codegen::load(&source).unwrap();
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    let store = plan
        .collections
        .iter()
        .find(|c| c.entity == "Store")
        .unwrap();
    let schema = squillion_codegen::validator::document_schema(store);
    let mut all = Vec::new();
    nodes("", &schema, &mut all);
    let counters = ["stock", "sold", "fuel", "main.count", "bins.count"];
    for name in counters {
        let (_, node) = all
            .iter()
            .find(|(p, _)| p == name)
            .unwrap_or_else(|| panic!("no {name} in {schema}"));
        assert_eq!(
            node.get("minimum"),
            Some(&serde_json::json!(0)),
            "{name}: {node}"
        );
    }
    for (path, node) in &all {
        if !counters.contains(&path.as_str()) {
            assert!(
                node.get("minimum").is_none(),
                "{path} is not a counter: {node}"
            );
        }
    }
}
