//! A reader that stops early (`squillion plan x.sqn | head -1`) closes the pipe: every command
//! that prints finishes without a panic and exits with the code it gives when its output is read
//! (the same code whether standard output, standard error or both are closed).
//!
//! The pipe's read end is closed before the command starts, so every write fails with `EPIPE`
//! (deterministic, unlike racing a `head`). Every subcommand is covered: the test fails when a new
//! one is added without a case here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::CommandFactory;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Which streams of the command are a pipe whose reader has gone.
#[derive(Debug, Clone, Copy)]
enum Closed {
    Nothing,
    Stdout,
    Stderr,
    Both,
}

/// The write end of a pipe whose reader has gone (a process that exited without reading): every
/// write to it fails with `EPIPE`.
fn gone() -> Stdio {
    let mut reader = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
    let writer = reader.stdin.take().unwrap();
    assert!(reader.wait().unwrap().success());
    Stdio::from(writer)
}

/// Runs `squillion ARGS` in the workspace root; returns the exit code and what it wrote on the
/// streams left open.
fn run(args: &[&str], closed: Closed) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_squillion"));
    cmd.current_dir(root())
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("SQUILLION_MONGODB_URI")
        .stdin(Stdio::null());
    let (out, err) = match closed {
        Closed::Nothing => (Stdio::piped(), Stdio::piped()),
        Closed::Stdout => (gone(), Stdio::piped()),
        Closed::Stderr => (Stdio::piped(), gone()),
        Closed::Both => (gone(), gone()),
    };
    let output = cmd.stdout(out).stderr(err).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

/// Every case prints something when read, and exits the same way when not.
fn assert_family(cases: &[Vec<String>]) {
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, text) = run(&args, Closed::Nothing);
        assert!(!text.is_empty(), "{args:?} prints something");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
        for closed in [Closed::Stdout, Closed::Stderr, Closed::Both] {
            let (closed_code, rest) = run(&args, closed);
            assert!(
                !rest.contains("panicked"),
                "{args:?} with {closed:?} closed: {rest}"
            );
            assert_eq!(
                closed_code, code,
                "{args:?} with {closed:?} closed exits as when read: {rest}"
            );
        }
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn every_command_that_prints_survives_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out").display().to_string();
    let unformatted = dir.path().join("unformatted.sqn");
    std::fs::write(&unformatted, "entity   A {  x:string }\n").unwrap();
    let unformatted = unformatted.display().to_string();
    let invalid = dir.path().join("invalid.sqn");
    std::fs::write(&invalid, "entity A { x: strin }\nentity {\n").unwrap();
    let invalid = invalid.display().to_string();
    let library = "examples/library.sqn";
    let (old, renamed, retyped) = migration_pair(dir.path());
    let cases = vec![
        strings(&["--help"]),
        strings(&["--version"]),
        strings(&["plan", "--help"]),
        strings(&["check", library]),
        strings(&["check", "--format", "json", library]),
        strings(&["check", &invalid]),
        strings(&["check", "--format", "json", &invalid]),
        strings(&["plan", library]),
        strings(&["plan", "--json", library]),
        strings(&["plan", "--explain", library]),
        strings(&["plan", &invalid]),
        strings(&["review", library]),
        strings(&["review", "-f", "html", library]),
        strings(&["review", "-f", "text", library]),
        strings(&["review", &invalid]),
        strings(&["generate", library, "-o", &out, "--scripts"]),
        strings(&["generate", &invalid, "-o", &out]),
        strings(&["fmt", "--check", &unformatted]),
        strings(&["fmt", &invalid]),
        strings(&["indexes", library]),
        strings(&["diff", library, library]),
        strings(&["diff", library, "examples/inventory.sqn"]),
        strings(&["diff", "-f", "md", library, "examples/inventory.sqn"]),
        strings(&["diff", "-f", "json", library, "examples/inventory.sqn"]),
        strings(&["diff", library, &invalid]),
        strings(&["review", "--since", "examples/inventory.sqn", library]),
        strings(&["migrate", &old, &renamed, "--print", "mongosh"]),
        strings(&["migrate", &old, &retyped, "--print", "mongosh"]),
    ];
    assert_family(&cases);

    // `fmt -` reads standard input: a file given as standard input.
    for closed in [Closed::Nothing, Closed::Stdout, Closed::Both] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_squillion"));
        let file = std::fs::File::open(&unformatted).unwrap();
        let (o, e) = match closed {
            Closed::Nothing => (Stdio::piped(), Stdio::piped()),
            Closed::Stdout => (gone(), Stdio::piped()),
            _ => (gone(), gone()),
        };
        let output = cmd
            .args(["fmt", "-"])
            .stdin(file)
            .stdout(o)
            .stderr(e)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "fmt - with {closed:?} closed"
        );
        assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    }

    // Every subcommand has a case here (or in the server test below), so a new one is not missed.
    let covered: BTreeSet<String> = cases
        .iter()
        .filter_map(|c| c.first().cloned())
        .chain(["audit", "infer", "lsp"].map(String::from))
        .collect();
    for sub in squillion_cli::Cli::command().get_subcommands() {
        assert!(
            covered.contains(sub.get_name()),
            "`squillion {}` has no closed-pipe case",
            sub.get_name()
        );
    }
}

/// A schema, the same with a field renamed (`@stored`: migrate moves it) and with the field's
/// type changed (migrate refuses it, on standard error), as paths.
fn migration_pair(dir: &std::path::Path) -> (String, String, String) {
    let write = |name: &str, field: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!("entity Author {{ name: string }}\nentity Book {{ title: string {field} }}\n"),
        )
        .unwrap();
        path.display().to_string()
    };
    (
        write("old.sqn", "pages: int32"),
        write("renamed.sqn", "pages: int32 @stored(\"p\")"),
        write("retyped.sqn", "pages: string"),
    )
}

/// The commands that read a live database print their findings; they need the server
/// (`scripts/with-server.sh cargo test -p squillion-cli --test closed_pipe`).
#[test]
fn database_commands_survive_a_closed_pipe() {
    let uri = squillion_testkit::uri();
    let db = format!("closed_pipe_{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let (old, renamed, _) = migration_pair(dir.path());
    let library = "examples/library.sqn";
    let cases = vec![
        strings(&["indexes", library, "--uri", &uri, "--db", &db]),
        strings(&[
            "indexes", library, "--uri", &uri, "--db", &db, "--format", "json",
        ]),
        strings(&["audit", library, "--uri", &uri, "--db", &db]),
        strings(&[
            "audit", library, "--uri", &uri, "--db", &db, "--format", "json",
        ]),
        strings(&["infer", "--uri", &uri, "--db", &db]),
        strings(&["migrate", &old, &renamed, "--uri", &uri, "--db", &db]),
        strings(&[
            "migrate",
            &old,
            &renamed,
            "--uri",
            &uri,
            "--db",
            &db,
            "--dry-run",
        ]),
    ];
    assert_family(&cases);
}
