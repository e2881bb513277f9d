//! `squillion review`: files written where asked (the Markdown diagram beside the document),
//! colour only on a terminal, clear failures.

use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("{name}.sqn"))
}

fn squillion() -> Command {
    let mut cmd = Command::cargo_bin("squillion").expect("the squillion binary");
    cmd.env_remove("NO_COLOR");
    cmd
}

#[test]
fn markdown_with_output_writes_the_diagram_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review").join("inventory.md");
    let svg_path = dir.path().join("review").join("inventory.erd.svg");
    squillion()
        .args(["review", "--format", "md", "-o"])
        .arg(&out)
        .arg(example("inventory"))
        .assert()
        .success()
        .stdout(format!(
            "wrote {}\nwrote {}\n",
            out.display(),
            svg_path.display()
        ));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.starts_with("# Schema design review"));
    assert!(md.contains("](inventory.erd.svg)"));
    let svg = std::fs::read_to_string(dir.path().join("review/inventory.erd.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
}

#[test]
fn html_is_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("blog.html");
    squillion()
        .args(["review", "--format", "html", "-o"])
        .arg(&out)
        .arg(example("blog"))
        .assert()
        .success()
        .stdout(format!("wrote {}\n", out.display()));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn text_on_a_pipe_has_no_colour() {
    squillion()
        .args(["review", "--format", "text"])
        .arg(example("blog"))
        .assert()
        .success()
        .stdout(predicate::str::contains("RELATIONSHIPS"))
        .stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn markdown_on_stdout_says_where_the_diagram_went() {
    squillion()
        .args(["review"])
        .arg(example("blog"))
        .assert()
        .success()
        .stdout(predicate::str::contains("## Entity-relationship diagram"))
        .stderr(predicate::str::contains("written only with -o"));
}

#[test]
fn an_invalid_schema_fails_with_its_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sqn");
    std::fs::write(&bad, "entity Book { title: strin }\n").unwrap();
    squillion()
        .args(["review"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.sqn"));
}

#[test]
fn unknown_formats_and_missing_files_are_usage_errors() {
    squillion()
        .args(["review", "--format", "pdf"])
        .arg(example("blog"))
        .assert()
        .code(2);
    squillion()
        .args(["review", "no-such-file.sqn"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-file.sqn"));
}
