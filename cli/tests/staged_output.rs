//! Commands that write several files (`generate --scripts`, `review -o` and its diagram) write all
//! of them or none, and never touch a file of the user's: I/O failures are injected while the new
//! files are being written (a file-size limit) and while they are renamed into place (a folder
//! where a file should go), and the output folder must then be exactly as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every entry under `dir`: relative path -> content (`<dir>` for folders).
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(name, "<dir>".to_owned());
                stack.push(p);
            } else {
                out.insert(name, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

/// Runs the binary through `sh` so that a shell prefix (a `ulimit`) applies to it.
fn squillion(prefix: &str, args: &[&str]) -> (i32, String) {
    let mut script = format!("{prefix} exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_squillion"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

/// A folder holding the outputs of `examples/blog.sqn` under the name `library`, and files of the
/// user's named like what squillion writes or used to write (`library.tmp`, `library.rs.tmp`).
fn prepared() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let blog = dir.path().join("library.sqn");
    std::fs::copy(root().join("examples/blog.sqn"), &blog).unwrap();
    let (code, stderr) = squillion(
        "",
        &[
            "generate",
            blog.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--scripts",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    for name in [
        "library.tmp",
        "library.rs.tmp",
        "library.mongosh.tmp",
        "notes.md",
    ] {
        std::fs::write(out.join(name), format!("the user's {name}")).unwrap();
    }
    (dir, out)
}

fn generate(out: &Path, prefix: &str) -> (i32, String) {
    let library = root().join("examples/library.sqn");
    squillion(
        prefix,
        &[
            "generate",
            library.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--scripts",
        ],
    )
}

#[test]
fn generate_replaces_its_files_and_keeps_the_users() {
    let (_dir, out) = prepared();
    let before = snapshot(&out);
    let (code, stderr) = generate(&out, "");
    assert_eq!(code, 0, "{stderr}");
    let after = snapshot(&out);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "the same files, no staging folder left"
    );
    for (name, content) in &before {
        if name.starts_with("library.") && (name.ends_with(".rs") || name.ends_with(".js")) {
            assert_ne!(&after[name], content, "{name} replaced");
        } else {
            assert_eq!(&after[name], content, "{name} is the user's: untouched");
        }
    }
}

#[test]
fn a_failure_while_writing_changes_nothing() {
    let (_dir, out) = prepared();
    let before = snapshot(&out);
    // Files may not grow past 8 blocks: the new module cannot be written in full (the signal that
    // would kill the process is ignored, so the write fails with EFBIG as a full disk would).
    let (code, stderr) = generate(&out, "trap '' XFSZ; ulimit -f 8;");
    assert_eq!(code, 2, "an I/O failure: {stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(snapshot(&out), before);
}

#[test]
fn a_failure_while_renaming_puts_everything_back() {
    let (_dir, out) = prepared();
    // The script's place is taken by a folder: the module is renamed into place first, then the
    // script fails and the module must be put back.
    std::fs::remove_file(out.join("library.mongosh.js")).unwrap();
    std::fs::create_dir(out.join("library.mongosh.js")).unwrap();
    let before = snapshot(&out);
    let (code, stderr) = generate(&out, "");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("library.mongosh.js"), "{stderr}");
    assert_eq!(snapshot(&out), before);
}

#[test]
fn review_and_its_diagram_are_written_together() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("library.md");
    let library = root().join("examples/library.sqn");
    std::fs::write(dir.path().join("library.tmp"), "the user's").unwrap();
    std::fs::write(dir.path().join("library.md.tmp"), "the user's").unwrap();
    let args = [
        "review",
        library.to_str().unwrap(),
        "-o",
        doc.to_str().unwrap(),
    ];
    let (code, stderr) = squillion("", &args);
    assert_eq!(code, 0, "{stderr}");
    let written = snapshot(dir.path());
    let diagram = written
        .keys()
        .find(|k| k.ends_with(".svg"))
        .cloned()
        .expect("the Markdown review links a diagram beside it");
    assert_eq!(written["library.tmp"], "the user's");
    assert_eq!(written["library.md.tmp"], "the user's");
    assert_eq!(written.len(), 4, "{:?}", written.keys());

    // The diagram's place taken by a folder: the document is not replaced either.
    std::fs::write(&doc, "an older review").unwrap();
    std::fs::remove_file(dir.path().join(&diagram)).unwrap();
    std::fs::create_dir(dir.path().join(&diagram)).unwrap();
    let before = snapshot(dir.path());
    let (code, stderr) = squillion("", &args);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(snapshot(dir.path()), before);

    // A failure while writing: nothing changes.
    std::fs::remove_dir(dir.path().join(&diagram)).unwrap();
    let before = snapshot(dir.path());
    let (code, stderr) = squillion("trap '' XFSZ; ulimit -f 4;", &args);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(snapshot(dir.path()), before);
}
