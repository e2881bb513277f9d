//! `squillion diff` and `squillion review --base/--since`: golden outputs of seed 002's evolution
//! (comments few -> many, then beyond any bound), the exit codes (0 no change, 1 changes, 2
//! trouble), JSON that reads back, positioned diagnostics for a bad side, and every way git can
//! refuse `--base`. Goldens: `SQUILLION_BLESS=1` rewrites them (review the diff).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use squillion_codegen::diff::PlanDiff;

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

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(cmd: &mut Command) -> Out {
    let out = cmd.output().unwrap();
    let o = Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    o
}

const FEW: &str = "cli/tests/diff/few.sqn";
const MANY: &str = "cli/tests/diff/many.sqn";
const OUTGROWN: &str = "cli/tests/diff/outgrown.sqn";

#[test]
fn few_to_many_is_golden_in_text_and_markdown_and_exits_1() {
    let text = run(squillion().args(["diff", FEW, MANY]));
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(text.stdout.contains("`embed` becomes `parent_refs`"));
    golden("diff-few-many.txt", &text.stdout);
    let md = run(squillion().args(["diff", FEW, MANY, "--format", "md"]));
    assert_eq!(md.code, 1);
    assert!(md
        .stdout
        .starts_with("## Changes since `cli/tests/diff/few.sqn`"));
    golden("diff-few-many.md", &md.stdout);
    let outgrown = run(squillion().args(["diff", MANY, OUTGROWN]));
    assert_eq!(outgrown.code, 1);
    assert!(outgrown
        .stdout
        .contains("`parent_refs` becomes `child_ref`"));
    golden("diff-many-outgrown.txt", &outgrown.stdout);
}

#[test]
fn json_reads_back_and_mirrors_the_reverse_diff() {
    let forward = run(squillion().args(["diff", FEW, OUTGROWN, "--format", "json"]));
    assert_eq!(forward.code, 1);
    let d = PlanDiff::from_json(&forward.stdout).unwrap();
    assert_eq!(PlanDiff::from_json(&d.to_json()).unwrap(), d);
    let c = d
        .decisions
        .iter()
        .find(|c| c.relation == "Post.comments")
        .unwrap();
    assert_eq!(c.old.as_ref().unwrap().layout, "embed");
    assert_eq!(c.new.as_ref().unwrap().layout, "child_ref");
    // `@stored("t")` renames the stored field; the version was raised from 1 to 2.
    assert!(d.fields.iter().any(|f| f.code_path == "title"
        && f.old.as_ref().is_some_and(|o| o.path == "title")
        && f.new.as_ref().is_some_and(|n| n.path == "t")));
    let v = d
        .versions
        .iter()
        .find(|v| v.new_collection == "posts")
        .unwrap();
    assert!(v.shape_changed && !v.must_bump && v.old == Some(1) && v.new == Some(2));
    let back = run(squillion().args(["diff", OUTGROWN, FEW, "--format", "json"]));
    assert_eq!(PlanDiff::from_json(&back.stdout).unwrap(), d.mirror());
}

#[test]
fn the_same_plan_exits_0() {
    for format in ["text", "md", "json"] {
        let same = run(squillion().args(["diff", FEW, FEW, "--format", format]));
        assert_eq!(same.code, 0, "{format}: {}", same.stdout);
        if format == "json" {
            assert!(PlanDiff::from_json(&same.stdout).unwrap().is_empty());
        } else {
            assert!(same.stdout.contains("No changes"), "{}", same.stdout);
        }
    }
}

#[test]
fn a_side_that_does_not_check_gives_positioned_diagnostics_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sqn");
    std::fs::write(&bad, "entity Post { title: strin }\n").unwrap();
    for args in [[FEW, bad.to_str().unwrap()], [bad.to_str().unwrap(), FEW]] {
        let out = run(squillion().arg("diff").args(args));
        assert_eq!(out.code, 2);
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains("E0301"), "{}", out.stderr);
        assert!(out.stderr.contains("bad.sqn:1:22"), "{}", out.stderr);
    }
    let missing = run(squillion().args(["diff", FEW, "cli/tests/diff/absent.sqn"]));
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("absent.sqn"), "{}", missing.stderr);
    let usage = run(squillion().args(["diff", FEW]));
    assert_eq!(usage.code, 2, "one file and no --base is a usage error");
    let both = run(squillion().args(["diff", FEW, MANY, "--base", "HEAD"]));
    assert_eq!(both.code, 2, "--base with two files is a usage error");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// A repository whose first commit has `few.sqn` as `blog.sqn` and whose work tree has
/// `outgrown.sqn` in its place.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    let blog = dir.path().join("schema/blog.sqn");
    std::fs::copy(root().join(FEW), &blog).unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-qm", "few comments"]);
    std::fs::copy(root().join(OUTGROWN), &blog).unwrap();
    dir
}

#[test]
fn base_compares_with_the_file_at_a_git_revision() {
    let repo = repository();
    let mut cmd = squillion();
    cmd.current_dir(repo.path()).args([
        "diff",
        "schema/blog.sqn",
        "--base",
        "HEAD",
        "--format",
        "json",
    ]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let d = PlanDiff::from_json(&out.stdout).unwrap();
    assert_eq!(d.old_source, "schema/blog.sqn@HEAD");
    assert_eq!(d.new_source, "schema/blog.sqn");
    // The same as comparing the two files.
    let files = run(squillion().args(["diff", FEW, OUTGROWN, "--format", "json"]));
    let mut expected = PlanDiff::from_json(&files.stdout).unwrap();
    expected.old_source = d.old_source.clone();
    expected.new_source = d.new_source.clone();
    assert_eq!(d, expected);
    // From inside the folder, with a relative revision.
    git(repo.path(), &["commit", "-qam", "outgrown"]);
    let mut cmd = squillion();
    cmd.current_dir(repo.path().join("schema"))
        .args(["diff", "blog.sqn", "--base", "HEAD~1"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let mut cmd = squillion();
    cmd.current_dir(repo.path().join("schema"))
        .args(["diff", "blog.sqn", "--base", "HEAD"]);
    assert_eq!(run(&mut cmd).code, 0, "the committed file has not changed");
}

#[test]
fn base_failures_are_coded_with_help_and_exit_2() {
    let repo = repository();
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["diff", "schema/blog.sqn", "--base", "no-such-rev"],
            "G0003",
            "unknown revision `no-such-rev`",
        ),
        (
            &["diff", "schema/blog.sqn", "--base=--output=x"],
            "G0003",
            "unknown revision `--output=x`",
        ),
        (
            &["diff", "schema/new.sqn", "--base", "HEAD"],
            "G0004",
            "`schema/new.sqn` does not exist at revision `HEAD`",
        ),
        (
            &["review", "schema/new.sqn", "--base", "HEAD"],
            "G0004",
            "does not exist at revision",
        ),
    ];
    std::fs::copy(root().join(MANY), repo.path().join("schema/new.sqn")).unwrap();
    for (args, code, message) in cases {
        let mut cmd = squillion();
        cmd.current_dir(repo.path()).args(args);
        let out = run(&mut cmd);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!("error[{code}]")),
            "{args:?}: {}",
            out.stderr
        );
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("help: "), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
    assert!(
        !repo.path().join("x").exists(),
        "a revision is never read as an option"
    );
    // Outside any repository.
    let plain = tempfile::tempdir().unwrap();
    std::fs::copy(root().join(FEW), plain.path().join("blog.sqn")).unwrap();
    let mut cmd = squillion();
    cmd.current_dir(plain.path())
        .env("GIT_CEILING_DIRECTORIES", plain.path().parent().unwrap())
        .args(["diff", "blog.sqn", "--base", "HEAD"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("error[G0002]"), "{}", out.stderr);
    // A file that does not check at the base revision: positioned diagnostics, named `@REV`.
    let repo = repository();
    std::fs::write(
        repo.path().join("schema/blog.sqn"),
        "entity Post { title: strin }\n",
    )
    .unwrap();
    git(repo.path(), &["commit", "-qam", "broken"]);
    std::fs::copy(root().join(FEW), repo.path().join("schema/blog.sqn")).unwrap();
    let mut cmd = squillion();
    cmd.current_dir(repo.path())
        .args(["diff", "schema/blog.sqn", "--base", "HEAD"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("schema/blog.sqn@HEAD:1:22"),
        "{}",
        out.stderr
    );
}

#[test]
fn review_has_a_changes_since_section_in_every_format() {
    for (format, heading) in [
        ("md", "## Changes since `cli/tests/diff/few.sqn`"),
        (
            "html",
            "<h2>Changes since <code>cli&#x2f;tests&#x2f;diff&#x2f;few.sqn</code></h2>",
        ),
        ("text", "CHANGES SINCE cli/tests/diff/few.sqn"),
    ] {
        let out = run(squillion().args(["review", OUTGROWN, "--since", FEW, "--format", format]));
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        assert!(out.stdout.contains(heading), "{format}:\n{}", out.stdout);
        assert!(out.stdout.contains("child_ref"), "{format}");
        let without = run(squillion().args(["review", OUTGROWN, "--format", format]));
        assert!(
            !without.stdout.contains("Changes since") && !without.stdout.contains("CHANGES SINCE")
        );
    }
    let html = run(squillion().args(["review", OUTGROWN, "--since", FEW, "--format", "html"]));
    assert!(html
        .stdout
        .contains("<code>embed</code> becomes <code>child_ref</code>"));
    let repo = repository();
    let mut cmd = squillion();
    cmd.current_dir(repo.path()).args([
        "review",
        "schema/blog.sqn",
        "--base",
        "HEAD",
        "--format",
        "md",
    ]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out
        .stdout
        .contains("## Changes since `schema/blog.sqn@HEAD`"));
    assert!(out.stdout.contains("### Decisions"));
}

/// Seed 000's story of the library's notes, replayed on `examples/library.sqn` (the last step):
/// notes embedded in the book (`few(20)`), then linked (`many(2000)`, added often), then bucketed
/// (`squillions`, read a page of 10 at a time). Each step flips `Book.notes` and the relations
/// nested in a note follow it to its new place.
#[test]
fn the_library_notes_evolve_embedded_linked_bucketed() {
    let library = std::fs::read_to_string(root().join("examples/library.sqn")).unwrap();
    let start = library.find("relation Book.notes: squillions").unwrap();
    let end = start + library[start..].find("}\n").unwrap() + 2;
    let version = |relation: &str| format!("{}{relation}{}", &library[..start], &library[end..]);
    let dir = tempfile::tempdir().unwrap();
    let embedded = dir.path().join("library-embedded.sqn");
    let linked = dir.path().join("library-linked.sqn");
    std::fs::write(
        &embedded,
        version("relation Book.notes: few(20) <-> Note.book: one\n"),
    )
    .unwrap();
    std::fs::write(
        &linked,
        version("relation Book.notes: many(2000) <-> Note.book: one {\n  growth append_heavy\n}\n"),
    )
    .unwrap();
    let steps = [
        (embedded.clone(), linked.clone(), "embed", "child_ref"),
        (
            linked,
            root().join("examples/library.sqn"),
            "child_ref",
            "bucket",
        ),
    ];
    for (old, new, from, to) in steps {
        let out = run(squillion()
            .arg("diff")
            .arg(&old)
            .arg(&new)
            .args(["--format", "json"]));
        assert_eq!(out.code, 1, "{}", out.stderr);
        let d = PlanDiff::from_json(&out.stdout).unwrap();
        let notes = d
            .decisions
            .iter()
            .find(|c| c.relation == "Book.notes")
            .unwrap();
        assert_eq!(notes.old.as_ref().unwrap().layout, from);
        assert_eq!(notes.new.as_ref().unwrap().layout, to);
        assert!(notes.moved.documents > 0 && notes.moved.bytes > 0);
        // The note's own relations keep their layout and move with the note.
        let comments = d
            .decisions
            .iter()
            .find(|c| c.relation == "Note.comments")
            .unwrap();
        assert_eq!(comments.old.as_ref().unwrap().layout, "embed");
        assert_eq!(comments.new.as_ref().unwrap().layout, "embed");
        assert_ne!(
            comments.old.as_ref().unwrap().placement,
            comments.new.as_ref().unwrap().placement
        );
        let text = run(squillion().arg("diff").arg(&old).arg(&new));
        assert!(
            text.stdout
                .contains(&format!("`Book.notes`: `{from}` becomes `{to}`")),
            "{}",
            text.stdout
        );
        assert!(
            text.stdout
                .contains("`Note.comments` stays `embed`, stored at"),
            "{}",
            text.stdout
        );
    }
    let whole = run(squillion()
        .arg("diff")
        .arg(&embedded)
        .arg(root().join("examples/library.sqn")));
    assert!(
        whole
            .stdout
            .contains("`Book.notes`: `embed` becomes `bucket`"),
        "{}",
        whole.stdout
    );
}
