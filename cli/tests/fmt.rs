//! `squillion fmt`: in place, `--check` with a diff, standard input, files with errors left alone.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn squillion(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("squillion").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

const MESSY: &str = "entity Book{title:string @index // the title\n  pages : int32?,}\n\n\n\nquery by_title on Book{where title==?}\n";
const TIDY: &str = "entity Book {\n  title: string @index // the title\n  pages: int32?\n}\n\nquery by_title on Book {\n  where title == ?\n}\n";

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn formats_in_place_and_then_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.sqn"), MESSY).unwrap();
    std::fs::write(dir.path().join("a.tmp"), "a user's file").unwrap();

    let out = squillion(dir.path())
        .args(["fmt", "--check", "a.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(
        diff.contains("--- a.sqn") && diff.contains("+  pages: int32?"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.sqn")).unwrap(),
        MESSY
    );

    squillion(dir.path())
        .args(["fmt", "a.sqn"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.sqn")).unwrap(),
        TIDY
    );
    assert_eq!(
        entries(dir.path()),
        ["a.sqn", "a.tmp"],
        "no temporary file left, none touched"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.tmp")).unwrap(),
        "a user's file"
    );

    squillion(dir.path())
        .args(["fmt", "--check", "a.sqn"])
        .assert()
        .success()
        .stdout("");
}

#[cfg(unix)]
#[test]
fn keeps_the_file_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sqn");
    std::fs::write(&path, MESSY).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    squillion(dir.path())
        .args(["fmt", "a.sqn"])
        .assert()
        .success();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn a_file_with_errors_is_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let broken = "entity Book {\n  title string\n}\n";
    std::fs::write(dir.path().join("b.sqn"), broken).unwrap();
    std::fs::write(dir.path().join("a.sqn"), MESSY).unwrap();
    let out = squillion(dir.path())
        .args(["fmt", "a.sqn", "b.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("E0101") && err.contains("b.sqn:2:"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.sqn")).unwrap(),
        broken
    );
    // The valid file beside it is still formatted.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.sqn")).unwrap(),
        TIDY
    );
}

#[test]
fn standard_input_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    squillion(dir.path())
        .args(["fmt", "-"])
        .write_stdin(MESSY)
        .assert()
        .success()
        .stdout(TIDY);
    squillion(dir.path())
        .args(["fmt", "--check", "-"])
        .write_stdin(MESSY)
        .assert()
        .code(1);
}

#[test]
fn a_missing_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = squillion(dir.path())
        .args(["fmt", "nope.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("nope.sqn"));
}

#[test]
fn formatting_every_example_twice_changes_nothing_the_second_time() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "sqn") {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let files: Vec<String> = entries(dir.path());
    assert!(files.len() >= 5);
    squillion(dir.path())
        .arg("fmt")
        .args(&files)
        .assert()
        .success();
    squillion(dir.path())
        .args(["fmt", "--check"])
        .args(&files)
        .assert()
        .success();
}

#[test]
fn a_reader_that_stops_early_is_not_a_crash() {
    // A diff larger than a pipe's buffer, read by nobody: writing it fails with a broken pipe.
    let dir = tempfile::tempdir().unwrap();
    let mut messy = String::new();
    for i in 0..4000 {
        messy.push_str(&format!("entity E{i}{{a:int32 long_name:string}}\n"));
    }
    std::fs::write(dir.path().join("big.sqn"), messy).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("squillion"))
        .current_dir(dir.path())
        .args(["fmt", "--check", "big.sqn"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
}
