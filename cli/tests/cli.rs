//! The command line: golden help and diagnostics, JSON output, exit codes, every example.
//! Goldens are compared exactly; `SQUILLION_BLESS=1` rewrites them (never automatic).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn squillion() -> Command {
    let mut cmd = Command::cargo_bin("squillion").unwrap();
    cmd.current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("SQUILLION_MONGODB_URI");
    cmd
}

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("SQUILLION_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from the output (rerun with SQUILLION_BLESS=1 and review the diff):\n{actual}",
        path.display()
    );
}

#[test]
fn help_is_golden() {
    let out = squillion().arg("--help").output().unwrap();
    assert!(out.status.success());
    golden("help.txt", &String::from_utf8(out.stdout).unwrap());
    let out = squillion().args(["check", "--help"]).output().unwrap();
    assert!(out.status.success());
    golden("check-help.txt", &String::from_utf8(out.stdout).unwrap());
    let out = squillion().args(["plan", "--help"]).output().unwrap();
    golden("plan-help.txt", &String::from_utf8(out.stdout).unwrap());
    let out = squillion().args(["diff", "--help"]).output().unwrap();
    assert!(out.status.success());
    golden("diff-help.txt", &String::from_utf8(out.stdout).unwrap());
    let out = squillion().args(["review", "--help"]).output().unwrap();
    assert!(out.status.success());
    golden("review-help.txt", &String::from_utf8(out.stdout).unwrap());
}

#[test]
fn every_example_checks_and_plans() {
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sqn"))
        .collect();
    examples.sort();
    assert!(
        examples.len() >= 5,
        "the seed examples are missing: {examples:?}"
    );
    for path in &examples {
        let out = squillion().arg("check").arg(path).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains(": ok ("));
        let out = squillion()
            .arg("plan")
            .arg("--explain")
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("decision:") && text.contains("because:") && text.contains("rejected:")
        );
        let out = squillion()
            .arg("plan")
            .arg("--json")
            .arg(path)
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(json["relationships"]
            .as_array()
            .is_some_and(|r| !r.is_empty()));
    }
}

#[test]
fn diagnostics_are_golden_and_exit_1() {
    let out = squillion()
        .args(["check", "cli/tests/golden/bad.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    golden("bad.stderr", &String::from_utf8(out.stderr).unwrap());
}

#[test]
fn json_diagnostics_name_code_file_line_and_column() {
    let out = squillion()
        .args(["check", "--format", "json", "cli/tests/golden/bad.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &json["files"][0];
    assert_eq!(file["ok"], false);
    let diags = file["diagnostics"].as_array().unwrap();
    assert!(
        diags.len() >= 3,
        "every error of the pass is reported: {diags:#?}"
    );
    let unknown = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("strin"))
        .unwrap();
    assert_eq!(unknown["line"], 2);
    assert_eq!(unknown["column"], 10);
    assert!(unknown["code"].as_str().unwrap().starts_with('E'));
    assert_eq!(unknown["file"], "cli/tests/golden/bad.sqn");
}

#[test]
fn usage_and_io_errors_exit_2_without_panicking() {
    let out = squillion()
        .args(["check", "no/such/file.sqn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.sqn"));
    let out = squillion().args(["check", "examples"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("directory"));
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.sqn");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    // Bytes that are not UTF-8 are an error in the file, coded and positioned, like any other.
    std::fs::write(&binary, b"entity A { t: string }\n\xff\xfe\x00\x41").unwrap();
    for command in ["check", "fmt", "plan", "review", "generate"] {
        let mut cmd = squillion();
        cmd.arg(command).arg(&binary);
        if command == "generate" {
            cmd.arg("-o").arg(dir.path().join("out"));
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        assert!(stderr.contains("error[E0106]"), "{command}: {stderr}");
        assert!(stderr.contains("binary.sqn:2:1"), "{command}: {stderr}");
        assert!(stderr.contains("byte 0xFF"), "{command}: {stderr}");
    }
    let out = squillion()
        .args(["check", "--format", "json"])
        .arg(&binary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json["files"][0]["diagnostics"][0];
    assert_eq!(
        (&d["code"], &d["line"], &d["column"]),
        (&"E0106".into(), &2.into(), &1.into())
    );
    let out = squillion().args(["frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn generate_writes_rust_and_scripts_only_for_valid_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let out = squillion()
        .args(["generate", "examples/inventory.sqn", "--scripts", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rust = std::fs::read_to_string(dir.path().join("inventory.rs")).unwrap();
    assert!(rust.starts_with("// @generated by squillion"));
    assert!(rust.contains("pub struct Product"));
    let js = std::fs::read_to_string(dir.path().join("inventory.mongosh.js")).unwrap();
    assert!(js.contains("createIndex") && js.contains("$jsonSchema"));
    let again = tempfile::tempdir().unwrap();
    squillion()
        .args(["generate", "examples/inventory.sqn", "-o"])
        .arg(again.path())
        .assert()
        .success();
    assert_eq!(
        rust,
        std::fs::read_to_string(again.path().join("inventory.rs")).unwrap(),
        "deterministic"
    );
    // `-o` naming a `.rs` file writes the module there (a directory of that name is not made),
    // the script beside it; the same module.
    let named = tempfile::tempdir().unwrap();
    squillion()
        .args(["generate", "examples/inventory.sqn", "--scripts", "-o"])
        .arg(named.path().join("src/stock.rs"))
        .assert()
        .success();
    let module = named.path().join("src/stock.rs");
    assert!(module.is_file(), "{} is not a file", module.display());
    assert_eq!(rust, std::fs::read_to_string(&module).unwrap());
    assert!(named.path().join("src/stock.mongosh.js").is_file());
    let bad = tempfile::tempdir().unwrap();
    let out = squillion()
        .args(["generate", "cli/tests/golden/bad.sqn", "-o"])
        .arg(bad.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_dir(bad.path()).unwrap().count(),
        0,
        "nothing written on failure"
    );
}

/// `check` says everything `generate` (and build.rs) would say about a schema: the Plan's
/// warnings too, not only the language's. It printed `ok` and nothing else for a relationship
/// forced to embed without bound (W101, W103, W110), which `generate` warned about. For the
/// examples and schemas that draw the Plan's warnings, the codes and places `check --format
/// json` reports are those of `plan --json`'s warnings (notes aside) and the file still checks.
#[test]
fn check_reports_the_plans_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sqn"))
        .collect();
    for (k, (card, force)) in [
        ("squillions", "force embed"),
        ("many", "force embed"),
        ("many(5000)", "force parent_refs"),
        ("few(2000)", ""),
        ("squillions", "force two_way"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("warned_{k}.sqn"));
        std::fs::write(
            &path,
            format!(
                "entity Host {{ name: string  tags: [string] }}\nentity Log {{ msg: string }}\n\
                 relation Host.logs: {card} <-> Log.hosts: many(3) {{ {force} }}\n"
            ),
        )
        .unwrap();
        files.push(path);
    }
    let mut warned = 0;
    for path in &files {
        let out = squillion()
            .args(["check", "--format", "json"])
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", path.display());
        let check: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut reported: Vec<(String, u64, u64)> = check["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            // The Plan's codes (W1xx); the language's own warnings are W0xxx.
            .filter(|d| {
                d["code"]
                    .as_str()
                    .is_some_and(|c| c.len() == 4 && c.starts_with('W'))
            })
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_owned(),
                    d["line"].as_u64().unwrap(),
                    d["column"].as_u64().unwrap(),
                )
            })
            .collect();
        let out = squillion()
            .args(["plan", "--json"])
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", path.display());
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut planned: Vec<(String, u64, u64)> = plan["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["severity"] != "info")
            .map(|w| {
                (
                    w["code"].as_str().unwrap().to_owned(),
                    w["position"]["line"].as_u64().unwrap(),
                    w["position"]["column"].as_u64().unwrap(),
                )
            })
            .collect();
        reported.sort();
        planned.sort();
        assert_eq!(reported, planned, "{}", path.display());
        warned += usize::from(!planned.is_empty());
    }
    assert!(warned >= 5, "only {warned} files drew warnings");
}
