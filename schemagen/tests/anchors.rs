//! The anchors' promise: whatever the seed, a covering batch opens with one schema per anchor,
//! and each holds what its anchor is there for (the forced family, its modifiers, the pattern,
//! the features, a `@unique` field in an embedded array, an enumeration compared by a declared
//! query), so the model-based harness's fixed batch covers its rows without luck.

use squillion_codegen::plan::{CollectionRole, ComputedFn, Plan, PlanField};
use squillion_grammar::SourceFile;
use squillion_schemagen::{covering_batch, render, Config, Feature, Pattern, ANCHORS};

fn plan(text: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", text.to_owned());
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => {
            let shown: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            panic!("anchor schema is invalid: {shown:?}\n{text}")
        }
    }
}

/// Whether some field of `fs`, under at least one array level (`arrays` so far), is unique.
fn unique_in_array(fs: &[PlanField], arrays: usize) -> bool {
    fs.iter().any(|f| {
        (arrays > 0 && f.flags.unique)
            || unique_in_array(&f.children, arrays + usize::from(f.array_depth))
    })
}

/// Paths of enumeration fields among `fs`, at any depth.
fn enums(fs: &[PlanField], prefix: &str, out: &mut Vec<String>) {
    for f in fs {
        let path = format!("{prefix}{}", f.name);
        if !f.enum_values.is_empty() {
            out.push(path.clone());
        }
        enums(&f.children, &format!("{path}."), out);
    }
}

fn pattern_name(p: Pattern) -> Option<&'static str> {
    match p {
        Pattern::Plain => None,
        Pattern::Tree => Some("tree"),
        Pattern::Queue => Some("queue"),
        Pattern::VersionedFuture => Some("document_versioning"),
        Pattern::SchemaVersion(_) => Some("schema_versioning"),
        Pattern::Polymorphic => Some("polymorphic"),
    }
}

#[test]
fn every_seed_opens_with_its_anchors_and_each_holds_its_rows() {
    let mut operators = std::collections::BTreeSet::new();
    for seed in [1, 2, 3, 7, 11, 99] {
        let config = Config {
            elements: true,
            ..Config::default()
        };
        let batch = covering_batch(seed, ANCHORS.len() + 3, config);
        assert_eq!(batch.len(), ANCHORS.len() + 3, "seed {seed}: a short batch");
        for (i, (anchor, (recipe, schema))) in ANCHORS.iter().zip(&batch).enumerate() {
            let text = render(schema);
            let p = plan(&text);
            let at = format!("seed {seed}, anchor {i} ({:?}):\n{text}", anchor.rows);
            assert_eq!(recipe.entities[0].pattern, anchor.pattern, "{at}");
            for f in anchor.parent {
                assert!(recipe.entities[0].features.contains(f), "{at}");
            }
            if let Some(name) = pattern_name(anchor.pattern) {
                assert!(
                    p.collections
                        .iter()
                        .any(|c| c.patterns.iter().any(|x| x.name == name)),
                    "no {name} pattern: {at}"
                );
            }
            if let Some(family) = anchor.family {
                let d = p
                    .relationships
                    .iter()
                    .find(|d| d.forced && d.strategy.as_str() == family.as_str())
                    .unwrap_or_else(|| panic!("no forced {}: {at}", family.as_str()));
                let m = anchor.modifiers;
                assert!(!m.copy_down || !d.denormalized.is_empty(), "no copy: {at}");
                assert!(!m.copy_up || !d.denormalized.is_empty(), "no copy: {at}");
                let has = |top: bool| {
                    d.computed
                        .iter()
                        .any(|c| matches!(c.function, ComputedFn::TopN { .. }) == top)
                };
                // The latest N of an embedded array is a list the parent keeps of it, as top-N.
                let latest = d.subset.is_some() || (family.as_str() == "embed" && has(true));
                assert!(!m.latest || latest, "no subset: {at}");
                assert!(!m.top || has(true), "no top-N: {at}");
                assert!(!m.summary || has(false), "no summary: {at}");
                if anchor.child.contains(&Feature::Unique) && family.as_str() == "embed" {
                    assert!(
                        p.collections.iter().any(|c| unique_in_array(&c.fields, 0)),
                        "no @unique in an array: {at}"
                    );
                }
            }
            // Numbers in keyed elements: the derive gives `inc_<array>_<n>`, and `dec_` for the
            // counters (one floored by its range), keyed by the order line's reference or by the
            // child's `@unique` field (`u`, or `sku` stored as `k`).
            let keyed = [
                ("element inc, order line", "key=\"id\""),
                ("element inc, embedded child", "key=\""),
            ];
            for (row, key) in keyed {
                if anchor.rows.contains(&row) {
                    let g = squillion_codegen::pipeline::compile(
                        &SourceFile::new("gen.sqn", text.clone()),
                        &squillion_codegen::pipeline::GenerateSettings::default(),
                    )
                    .unwrap_or_else(|_| panic!("does not generate: {at}"));
                    let rust: String = g.rust.chars().filter(|c| !c.is_whitespace()).collect();
                    for want in ["element(path=", key, ",counter", "minimum="] {
                        assert!(rust.contains(want), "no `{want}` in the derive: {at}");
                    }
                }
            }
            if anchor.key {
                assert!(
                    p.collections
                        .iter()
                        .any(|c| c.role == CollectionRole::Entity && c.id.natural_key.is_some()),
                    "no natural key: {at}"
                );
            }
            // An enumeration compared by a declared query on E0.
            let home = p
                .collections
                .iter()
                .find(|c| c.role == CollectionRole::Entity && c.entity == "E0")
                .unwrap_or_else(|| panic!("E0 has no collection: {at}"));
            let mut paths = Vec::new();
            enums(&home.fields, "", &mut paths);
            let compared: Vec<String> = p
                .queries
                .iter()
                .filter(|q| q.collection == home.name)
                .flat_map(|q| &q.conditions)
                .filter(|c| paths.contains(&c.path))
                .map(|c| format!("{} {:?}", c.path, c.op))
                .collect();
            assert!(
                !compared.is_empty(),
                "no query compares an enumeration: {at}"
            );
            operators.extend(compared);
        }
    }
    // Between them, the anchors compare enumerations with each operator, through an array and
    // a value type.
    for want in [
        "state In",
        "state Ne",
        "mood Eq",
        "picks Eq",
        "leg.phase In",
    ] {
        assert!(
            operators.contains(want),
            "no anchor query `{want}`: {operators:?}"
        );
    }
}
