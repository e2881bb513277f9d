//! The build.rs API: where the output goes and how a bad schema fails the build.

use std::path::Path;

use squillion_build::{BuildError, Builder};

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Schemas with one mistake each, and the (line, column) of the mistake.
const BAD: &[(&str, usize, usize)] = &[
    ("entity Book {\n  title: strin\n}\n", 2, 10),
    ("entity Book {\n  title: string\n  title: string\n}\n", 3, 3),
    ("entity Book {\n  title string\n}\n", 2, 9),
];

#[test]
fn every_schema_becomes_out_dir_stem_rs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let a = write(
        dir.path(),
        "library.sqn",
        "entity Book {\n  title: string\n}\n",
    );
    let b = write(
        dir.path(),
        "shop.v2.sqn",
        "entity Order {\n  total: int32\n}\n",
    );
    let written = Builder::new()
        .schema(&a)
        .schema(&b)
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap();
    // The file stem of each schema, as the README and the crate docs say.
    assert_eq!(
        written,
        vec![out.join("library.rs"), out.join("shop.v2.rs")]
    );
    for path in &written {
        let code = std::fs::read_to_string(path).unwrap();
        assert!(code.contains("#[derive(::squillion::Document)]"), "{code}");
    }
}

#[test]
fn a_bad_schema_fails_with_rendered_diagnostics_in_debug_and_display() {
    for (text, line, column) in BAD {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "bad.sqn", text);
        let err = Builder::new()
            .schema(&path)
            .out_dir(dir.path().join("out"))
            .emit_rerun_if_changed(false)
            .compile()
            .unwrap_err();
        assert!(matches!(err, BuildError::Schema { .. }), "{err}");
        // What `fn main() -> Result<(), BuildError>` and `Box<dyn Error>` print: `Error: {:?}`.
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        let debug = format!("{boxed:?}");
        assert_eq!(
            debug,
            boxed.to_string(),
            "Debug is the rendered diagnostics"
        );
        assert!(
            debug.contains(&format!("bad.sqn:{line}:{column}")),
            "names file:line:col:\n{debug}"
        );
        assert!(debug.contains("error[E"), "a coded error:\n{debug}");
        assert!(
            debug.contains('\n'),
            "real lines, not escaped ones:\n{debug}"
        );
        assert!(
            !debug.contains("\\n") && !debug.contains("rendered:"),
            "{debug}"
        );
        // No output when a schema is bad.
        assert!(!dir.path().join("out/bad.rs").exists());
    }
}

#[test]
fn a_missing_schema_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.sqn");
    let err = Builder::new()
        .schema(&path)
        .out_dir(dir.path())
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_err();
    assert!(format!("{err:?}").contains("missing.sqn"), "{err:?}");
}
