//! The layout variants `benches/layouts.rs` measures are what squillion generates: each
//! `benches/layouts/<name>.sqn` (an example's hot relationship, chosen by the engine or forced
//! with `force`) has its generated module checked in beside it as `<name>.rs`, and this test fails
//! when the generator's output differs from it, so the benchmark never measures stale code.
//! Updating is opt-in: `SQUILLION_BLESS=1 cargo test --test layout_variants`.

mod checked_in;

use std::path::{Path, PathBuf};

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/layouts")
}

fn variants() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn generate(name: &str) -> String {
    let text = std::fs::read_to_string(dir().join(format!("{name}.sqn"))).unwrap();
    let source = SourceFile::new(format!("{name}.sqn"), text);
    match compile(&source, &GenerateSettings::default()) {
        Ok(generated) => generated.rust,
        Err(d) => panic!("{name}: {}", source.render(&d, false)),
    }
}

#[test]
fn every_layout_variant_matches_the_generator() {
    let names = variants();
    assert!(
        names.len() >= 25,
        "benches/layouts/ should hold the 25 variants of the layouts benchmark, found {names:?}"
    );
    let bench =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/layouts.rs"))
            .unwrap();
    let mut differ = Vec::new();
    for name in &names {
        let generated = generate(name);
        let path = dir().join(format!("{name}.rs"));
        checked_in::compare_or_bless(&path, &generated, &mut differ);
        assert!(
            bench.contains(&format!("\"layouts/{name}.rs\"")),
            "benches/layouts.rs does not include the variant {name}"
        );
    }
    assert!(
        differ.is_empty(),
        "generated code changed ({}); regenerate with SQUILLION_BLESS=1 cargo test --test layout_variants",
        differ.join(", ")
    );
}
