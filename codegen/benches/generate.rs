//! Code generation of a 1,000-entity schema, side by side with typify.
//!
//! squillion: `.sqn` text -> parse -> validate -> plan -> formatted Rust (structs, layout
//! attributes, indexes, validators, query methods). typify: an equivalent JSON Schema (one
//! definition per collection document with the same fields, nested objects, arrays and bounds,
//! built once outside the timing from squillion's own Plan) -> typify's `TypeSpace` -> tokens ->
//! formatted Rust. Both end with prettyplease-formatted source. Target: squillion at most 0.5x
//! typify's time.
//!
//! Two squillion measurements: `squillion`, the whole module (structs with the derive's layout
//! attributes, index models, validators, query methods), and `squillion_types`, only the
//! document types without the derive (structs and enums with their doc comments and serde
//! attributes), which is what typify writes: the like-for-like comparison.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Map, Value};
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::{Plan, PlanField};
use squillion_grammar::SourceFile;

#[path = "schema.rs"]
mod schema;

fn squillion(text: &str) -> usize {
    let source = SourceFile::new("bench.sqn", text);
    match compile(&source, &GenerateSettings::default()) {
        Ok(g) => g.rust.len(),
        Err(d) => panic!(
            "the generated schema does not compile: {:?}",
            &d[..d.len().min(3)]
        ),
    }
}

/// Parse, validate, plan, then only the document types, without the derive's attributes.
fn squillion_types(text: &str) -> usize {
    let source = SourceFile::new("bench.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => {
            let plan = squillion_codegen::engine::plan(&checked.model, &source);
            let settings = GenerateSettings {
                derive_document: false,
            };
            squillion_codegen::rust::generate_types(&plan, &settings).len()
        }
        Err(d) => panic!(
            "the generated schema does not check: {:?}",
            &d[..d.len().min(3)]
        ),
    }
}

fn scalar(bson: &str) -> Value {
    match bson {
        "double" => json!({"type": "number", "format": "double"}),
        "int" => json!({"type": "integer", "format": "int32"}),
        "long" => json!({"type": "integer", "format": "int64"}),
        "bool" => json!({"type": "boolean"}),
        "date" => json!({"type": "string", "format": "date-time"}),
        _ => json!({"type": "string"}),
    }
}

fn field_schema(f: &PlanField) -> Value {
    let mut v = if f.bson_type == "object" {
        object_schema(&f.children)
    } else {
        scalar(&f.bson_type)
    };
    for _ in 0..f.array_depth {
        let mut a = json!({"type": "array", "items": v});
        if let Some(m) = f.max_items {
            a["maxItems"] = json!(m);
        }
        v = a;
    }
    if f.map {
        v = json!({"type": "object", "additionalProperties": v});
    }
    v
}

fn object_schema(fields: &[PlanField]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        properties.insert(f.name.clone(), field_schema(f));
        if !f.optional {
            required.push(json!(f.name));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// The JSON Schema of the plan's collections: one definition per document type.
fn json_schema(plan: &Plan) -> Value {
    let mut defs = Map::new();
    for c in &plan.collections {
        let mut s = object_schema(&c.fields);
        s["title"] = json!(squillion_codegen::rust::collection_type_name(c));
        defs.insert(squillion_codegen::rust::collection_type_name(c), s);
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Collections",
        "type": "object",
        "definitions": defs,
    })
}

fn typify(root: &schemars08::schema::RootSchema) -> usize {
    let mut settings = typify::TypeSpaceSettings::default();
    settings.with_struct_builder(false);
    let mut space = typify::TypeSpace::new(&settings);
    space
        .add_root_schema(root.clone())
        .expect("typify accepts the schema");
    let tokens = space.to_stream();
    let file: syn::File = syn::parse2(tokens).expect("typify's tokens parse");
    prettyplease::unparse(&file).len()
}

fn bench(c: &mut Criterion) {
    let text = schema::schema(1_000);
    let start = std::time::Instant::now();
    let source = SourceFile::new("bench.sqn", text.as_str());
    let checked = match squillion_codegen::load(&source) {
        Ok(checked) => checked,
        Err(d) => panic!(
            "the generated schema does not check: {:?}",
            &d[..d.len().min(3)]
        ),
    };
    let parsed = start.elapsed();
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    let planned = start.elapsed();
    let rust = squillion_codegen::rust::generate(&plan, &GenerateSettings::default());
    let emitted = start.elapsed();
    eprintln!(
        "one run of squillion by stage: parse and validate {parsed:?}, plan {:?}, Rust emission and formatting {:?} ({} bytes)",
        planned - parsed,
        emitted - planned,
        rust.len()
    );
    let root: schemars08::schema::RootSchema =
        serde_json::from_value(json_schema(&plan)).expect("a JSON Schema");
    let (ours, types, theirs) = (squillion(&text), squillion_types(&text), typify(&root));
    eprintln!(
        "generated source: squillion {ours} bytes, squillion types only {types} bytes, typify {theirs} bytes"
    );
    let mut group = c.benchmark_group("generate_1000_entities");
    group.sample_size(10);
    group.bench_function("squillion", |b| b.iter(|| squillion(&text)));
    group.bench_function("squillion_types", |b| b.iter(|| squillion_types(&text)));
    group.bench_function("typify", |b| b.iter(|| typify(&root)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
