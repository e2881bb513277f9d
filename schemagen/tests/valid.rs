//! The generator's promise: every schema it draws is valid (checked without an error, planned
//! without an error, generated), and a batch covers every layout family, forced and chosen, with
//! every modifier.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;
use squillion_schemagen::{batch, render, schema, Config, Family};

fn generated(text: &str) -> squillion_codegen::pipeline::Generated {
    let source = SourceFile::new("gen.sqn", text.to_owned());
    match compile(&source, &GenerateSettings::default()) {
        Ok(g) => g,
        Err(diags) => {
            let shown: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            panic!("generated schema is invalid: {shown:?}\n{text}")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_generated_schema_is_valid(s in schema(Config::default())) {
        let text = render(&s);
        let g = generated(&text);
        prop_assert!(!g.rust.is_empty());
    }
}

/// How many arrays enclose the field at `path` of `collection`'s documents.
fn arrays_above(plan: &squillion_codegen::plan::Plan, collection: &str, path: &str) -> usize {
    let Some(c) = plan.collection(collection) else {
        return 0;
    };
    let mut fields = &c.fields;
    let mut depth = 0;
    let segments: Vec<&str> = path.split('.').collect();
    for (i, seg) in segments.iter().enumerate() {
        let Some(f) = fields.iter().find(|f| f.name == *seg) else {
            break;
        };
        if i + 1 < segments.len() && f.array_depth > 0 {
            depth += 1;
        }
        fields = &f.children;
    }
    depth
}

#[test]
fn a_batch_covers_every_family_forced_and_chosen_with_every_modifier() {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (_, s) in batch(11, 400, Config::default()) {
        let g = generated(&render(&s));
        for d in &g.plan.relationships {
            let how = if d.forced { "forced" } else { "chosen" };
            seen.insert(format!("{} {how}", d.strategy.as_str()));
            if d.subset.is_some() {
                seen.insert("subset".into());
            }
            if d.outlier.is_some() {
                seen.insert("outlier".into());
            }
            if d.bucket.is_some() {
                seen.insert("bucket".into());
            }
            for x in &d.denormalized {
                let depth = arrays_above(&g.plan, &x.collection, &x.copy_path);
                let role = g.plan.collection(&x.collection).map(|c| c.role.clone());
                let bucket = matches!(
                    role,
                    Some(squillion_codegen::plan::CollectionRole::Bucket { .. })
                );
                let place = match (depth, bucket) {
                    // Reached when the bucketed child has no collection of its own; the
                    // harness reports how often.
                    (_, true) => "copy in a bucket",
                    (0, _) => "copy beside a reference",
                    (1, _) => "copy in an array",
                    _ => "copy in a nested array",
                };
                seen.insert(place.to_owned());
            }
            for c in &d.computed {
                let what = match c.function {
                    squillion_codegen::plan::ComputedFn::TopN { .. } => "top",
                    squillion_codegen::plan::ComputedFn::Summary { .. }
                    | squillion_codegen::plan::ComputedFn::Average { .. } => "summary",
                };
                seen.insert(what.into());
            }
        }
    }
    let mut missing = Vec::new();
    for f in Family::ALL {
        // The engine never chooses a link collection or a bucket the facts do not ask for, but
        // the generator states those facts; every family is also forced.
        for how in ["forced", "chosen"] {
            let key = format!("{} {how}", f.as_str());
            if !seen.contains(&key) {
                missing.push(key);
            }
        }
    }
    for m in [
        "subset",
        "outlier",
        "bucket",
        "top",
        "summary",
        "copy beside a reference",
        "copy in an array",
        "copy in a nested array",
    ] {
        if !seen.contains(m) {
            missing.push(m.to_owned());
        }
    }
    eprintln!("covered: {seen:?}");
    assert!(
        missing.is_empty(),
        "not covered: {missing:?}\ncovered: {seen:?}"
    );
}
