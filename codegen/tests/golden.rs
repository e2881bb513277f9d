//! Golden generated code: the Rust squillion generates for every example schema is checked in
//! as `examples/generated/src/<example>.rs`, a crate of the workspace that is compiled with
//! `#![deny(warnings, missing_docs)]` and clippy `-D warnings` (so every golden compiles cleanly),
//! and this test fails when the generator's output differs from it. Updating is opt-in:
//! `SQUILLION_BLESS=1 cargo test -p squillion-codegen --test golden`.

use std::path::{Path, PathBuf};

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.extend(
        std::fs::read_dir(root().join("examples/generated/schemas"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()),
    );
    names.sort();
    names
}

/// The schema of golden `name`: an example, or one of the schemas only the generated crate's
/// own tests use (`examples/generated/schemas/`, e.g. the server test of queries on children).
fn schema_path(name: &str) -> String {
    let example = format!("examples/{name}.sqn");
    if root().join(&example).exists() {
        example
    } else {
        format!("examples/generated/schemas/{name}.sqn")
    }
}

fn generate(name: &str) -> String {
    let path = schema_path(name);
    let text = std::fs::read_to_string(root().join(&path)).unwrap();
    let source = SourceFile::new(path, text);
    match compile(&source, &GenerateSettings::default()) {
        Ok(generated) => generated.rust,
        Err(d) => panic!("{name}: {}", source.render(&d, false)),
    }
}

#[test]
fn every_example_matches_its_golden_and_is_compiled() {
    let bless = std::env::var_os("SQUILLION_BLESS").is_some();
    let dir = root().join("examples/generated/src");
    let mut differ = Vec::new();
    for name in examples() {
        let generated = generate(&name);
        assert_eq!(
            generated,
            generate(&name),
            "{name}: generation is deterministic"
        );
        assert!(generated.starts_with(squillion_codegen::rust::HEADER));
        let path = dir.join(format!("{name}.rs"));
        if bless {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(golden) if golden == generated => {}
            Ok(_) => differ.push(format!("{} differs", path.display())),
            Err(e) => differ.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        differ.is_empty(),
        "generated code changed ({}); review the change and bless it with SQUILLION_BLESS=1",
        differ.join(", ")
    );
    let lib = std::fs::read_to_string(dir.join("lib.rs")).unwrap();
    for name in examples() {
        assert!(
            lib.contains(&format!("pub mod {name};")),
            "examples/generated/src/lib.rs does not compile the golden of {name}"
        );
    }
}
