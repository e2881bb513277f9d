//! What a build script prints for a schema's warnings: Cargo shows each `cargo:warning=` line on
//! its own, and the builder printed only `file:line:col: warning[W...]: message`, so a build
//! showed what was wrong and never what to do. For the examples, the real-world corpus and a
//! batch of generated schemas and the example of every diagnostic docs/diagnostics.md
//! describes, every warning the build would print is its located message then
//! its help, each one line, and every warning has a help to print.

use squillion_build::cargo_warning_lines;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

fn sources() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in [
        root.join("examples"),
        root.join("examples/generated/schemas"),
        root.join("codegen/tests/decisions/real_world"),
    ] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).expect("read");
            out.push((p.display().to_string(), text));
        }
    }
    // The example of every diagnostic the docs describe: each plan warning code once at least.
    let docs = std::fs::read_to_string(root.join("docs/diagnostics.md")).expect("diagnostics.md");
    for (k, block) in docs.split("```sqn\n").skip(1).enumerate() {
        let example = block.split("```").next().unwrap_or_default();
        out.push((format!("diagnostics_{k}.sqn"), example.to_owned()));
    }
    for (k, (_, schema)) in
        squillion_schemagen::batch(23, 80, squillion_schemagen::Config::default())
            .into_iter()
            .enumerate()
    {
        out.push((format!("gen_{k}.sqn"), squillion_schemagen::render(&schema)));
    }
    out
}

#[test]
fn every_printed_warning_says_where_what_and_what_to_do() {
    let mut printed = 0;
    let mut codes = std::collections::BTreeSet::new();
    for (name, text) in sources() {
        let source = SourceFile::new(name.clone(), text);
        let Ok(generated) = compile(&source, &GenerateSettings::default()) else {
            continue;
        };
        for w in &generated.warnings {
            let lines = cargo_warning_lines(&source, w);
            let pos = source.position(w.span.start);
            let head = format!("{name}:{}:{}: warning[{}]: ", pos.line, pos.column, w.code);
            assert!(
                lines[0].starts_with(&head),
                "`{}` does not start with `{head}`",
                lines[0]
            );
            let help = w
                .help
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: {} has no help: {}", w.code, w.message));
            assert_eq!(lines.len(), 2, "{name}: {lines:?}");
            assert_eq!(lines[1], format!("  help: {}", help.replace('\n', " ")));
            for line in &lines {
                assert!(
                    !line.contains(['\n', '\r']),
                    "{name}: a printed line breaks: {line:?}"
                );
            }
            codes.insert(w.code);
            printed += 1;
        }
    }
    assert!(
        printed > 200 && codes.len() > 20,
        "only {printed} warnings of {} codes",
        codes.len()
    );
}
