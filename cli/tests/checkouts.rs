//! Outputs name the schema as given relative to the working directory, never by an absolute path:
//! two checkouts of one project at different places on disk (one nested deeper than the other)
//! produce byte-identical outputs, whether the schema is given relative or absolute, and no output
//! holds either checkout's path.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A checkout: `schema/<name>.sqn` for every example, under `base`.
fn checkout(base: &Path) -> Vec<String> {
    let schema = base.join("schema");
    std::fs::create_dir_all(&schema).unwrap();
    let mut names = Vec::new();
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sqn") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::copy(&p, schema.join(&name)).unwrap();
            names.push(name);
        }
    }
    names.sort();
    assert!(names.len() >= 5);
    names
}

/// Every output of every command that names the schema, run in `base` with the schema given
/// as `file`: (what, bytes).
fn outputs(base: &Path, file: &str, stem: &str) -> Vec<(String, Vec<u8>)> {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_squillion"))
            .current_dir(base)
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut bytes = out.stdout;
        bytes.extend(b"\n--- stderr ---\n");
        bytes.extend(out.stderr);
        bytes
    };
    let mut all = vec![
        ("check".into(), run(&["check", file])),
        (
            "check json".into(),
            run(&["check", "--format", "json", file]),
        ),
        ("plan".into(), run(&["plan", file])),
        ("plan json".into(), run(&["plan", "--json", file])),
        ("plan explain".into(), run(&["plan", "--explain", file])),
        ("review md".into(), run(&["review", file])),
        ("review html".into(), run(&["review", "-f", "html", file])),
        ("review text".into(), run(&["review", "-f", "text", file])),
    ];
    let _ = run(&["review", file, "-o", "review/doc.md"]);
    let _ = run(&["generate", file, "-o", "gen", "--scripts"]);
    for dir in ["review", "gen"] {
        let Ok(entries) = std::fs::read_dir(base.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for p in files {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            all.push((format!("{stem}: {dir}/{name}"), std::fs::read(&p).unwrap()));
        }
        std::fs::remove_dir_all(base.join(dir)).unwrap();
    }
    all
}

#[test]
fn two_checkouts_produce_byte_identical_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("elsewhere/deeper/b-checkout");
    let names = checkout(&a);
    assert_eq!(checkout(&b), names);
    for name in &names {
        let relative = format!("schema/{name}");
        let stem = name.trim_end_matches(".sqn");
        let in_a = outputs(&a, &relative, stem);
        let in_b = outputs(&b, &relative, stem);
        let absolute_b = b.join(&relative).display().to_string();
        let in_b_absolute = outputs(&b, &absolute_b, stem);
        let dotted = format!("./{relative}");
        let in_a_dotted = outputs(&a, &dotted, stem);
        assert_eq!(in_a.len(), in_b.len());
        for (((what, x), (_, y)), (_, z)) in in_a.iter().zip(&in_b).zip(&in_b_absolute) {
            assert!(x == y, "{name} {what}: differs between checkouts");
            assert!(
                x == z,
                "{name} {what}: differs when given by its absolute path"
            );
            let text = String::from_utf8_lossy(x);
            if ["check", "check json", "plan json", "review md"].contains(&what.as_str()) {
                assert!(
                    text.contains(&relative),
                    "{name} {what}: names the schema as given"
                );
            }
            let tmp_path = tmp.path().display().to_string();
            assert!(
                !text.contains(&tmp_path),
                "{name} {what}: holds an absolute path"
            );
        }
        for (what, x) in &in_a_dotted {
            let text = String::from_utf8_lossy(x);
            assert!(
                !text.contains(&tmp.path().display().to_string()),
                "{name} {what}: holds an absolute path"
            );
        }
    }
}
