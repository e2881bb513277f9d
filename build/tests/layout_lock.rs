//! The layout lock (`Builder::lock`): written on the first build; a build whose stored layout
//! differs fails, naming each change, and writes nothing, until the change is accepted. Over
//! every pair of a family of one-to-many schemas (the child side's cardinality, whether the
//! child is read on its own, a field added), against the layouts the two plans decide.

use std::path::{Path, PathBuf};

use squillion_build::{BuildError, Builder};
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

fn schema(card: &str, standalone: bool, extra_field: bool) -> String {
    format!(
        "entity Author {{\n  name: string\n}}\nentity Book {{\n  title: string\n{}}}\n\
         relation Author.books: {card} <-> Book.author: one {{\n{}}}\n",
        if extra_field { "  pages: int32\n" } else { "" },
        if standalone {
            "  standalone Book\n"
        } else {
            ""
        },
    )
}

/// The layout the engine gives `Author.books` in `text`.
fn layout(text: &str) -> String {
    let source = SourceFile::new("library.sqn", text);
    let generated = compile(&source, &GenerateSettings::default())
        .unwrap_or_else(|_| panic!("does not compile:\n{text}"));
    generated
        .plan
        .relationship("Author.books")
        .map(|d| d.strategy.as_str().to_owned())
        .unwrap_or_default()
}

struct Project {
    _dir: tempfile::TempDir,
    schema: PathBuf,
    lock: PathBuf,
    out: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        Project {
            schema: root.join("library.sqn"),
            lock: root.join("squillion.lock"),
            out: root.join("out"),
            _dir: dir,
        }
    }

    fn build(&self, text: &str, accept: bool) -> Result<Vec<PathBuf>, BuildError> {
        std::fs::write(&self.schema, text).unwrap();
        Builder::new()
            .schema(&self.schema)
            .out_dir(&self.out)
            .lock(&self.lock)
            .accept_layout_changes(accept)
            .emit_rerun_if_changed(false)
            .compile()
    }

    fn read(&self, path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_default()
    }
}

/// A lock's entries, without its comments and the schemas' hashes.
fn entries(lock: &str) -> Vec<&str> {
    lock.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('['))
        .collect()
}

#[test]
fn the_first_build_writes_the_lock_and_the_same_layout_builds_again() {
    let p = Project::new();
    let text = schema("many(100)", true, false);
    p.build(&text, false).unwrap();
    let lock = p.read(&p.lock);
    let expected = format!("relationship Author.books = {}", layout(&text));
    assert!(lock.contains(&expected), "{expected} not in:\n{lock}");
    assert!(lock.contains("collection books = "), "{lock}");
    p.build(&text, false).unwrap();
    assert_eq!(p.read(&p.lock), lock, "an unchanged build rewrote the lock");
}

/// Every pair of schemas of the family: the second build fails exactly when a layout or a
/// stored field changed, naming the relationship with both layouts; nothing is written then;
/// accepted, it builds and the lock holds the new layout.
#[test]
fn a_changed_layout_fails_the_build_until_accepted() {
    let mut family = Vec::new();
    for card in ["few(5)", "many(100)", "many(3000)", "squillions"] {
        for standalone in [false, true] {
            for extra in [false, true] {
                family.push(schema(card, standalone, extra));
            }
        }
    }
    let (mut failed, mut flips) = (0, 0);
    for a in &family {
        for b in &family {
            let p = Project::new();
            p.build(a, false).unwrap();
            let (lock_a, code_a) = (p.read(&p.lock), p.read(&p.out.join("library.rs")));
            let (la, lb) = (layout(a), layout(b));
            let fields_changed = a.contains("pages") != b.contains("pages");
            match p.build(b, false) {
                // The same layout: the lock keeps its entries (the text's hash follows the text).
                Ok(_) => assert!(
                    la == lb && !fields_changed && entries(&p.read(&p.lock)) == entries(&lock_a),
                    "built without a word:\n--- a ({la})\n{a}--- b ({lb})\n{b}"
                ),
                Err(BuildError::LayoutChanged { changes, .. }) => {
                    failed += 1;
                    assert!(
                        la != lb || fields_changed,
                        "failed with nothing changed: {changes:?}"
                    );
                    let said: Vec<&String> = changes.iter().flat_map(|(_, _, l)| l).collect();
                    if la != lb {
                        flips += 1;
                        let needle = format!("relationship Author.books: {la}");
                        assert!(
                            said.iter()
                                .any(|c| c.starts_with(&needle) && c.contains(&format!("-> {lb}"))),
                            "{la} -> {lb} not named: {said:?}"
                        );
                    }
                    if fields_changed {
                        assert!(
                            said.iter().any(|c| c.contains("pages int")),
                            "the field pages not named: {said:?}"
                        );
                    }
                    // Text changed: not blamed on squillion's rules.
                    assert!(changes.iter().all(|(_, same, _)| !same), "{changes:?}");
                    assert_eq!(p.read(&p.lock), lock_a, "the lock was rewritten");
                    assert_eq!(
                        p.read(&p.out.join("library.rs")),
                        code_a,
                        "code was written"
                    );
                    p.build(b, true).unwrap();
                    assert!(p
                        .read(&p.lock)
                        .contains(&format!("relationship Author.books = {lb}")));
                    p.build(b, false).unwrap();
                }
                Err(other) => panic!("{other}"),
            }
        }
    }
    assert!(
        failed >= 20 && flips >= 10,
        "{failed} failures, {flips} layout flips"
    );
}

/// The same schema text with another layout in the lock: a newer squillion decides differently,
/// and the error says so, with what to do.
#[test]
fn a_layout_the_rules_changed_is_blamed_on_the_rules() {
    let p = Project::new();
    let text = schema("many(100)", true, false);
    p.build(&text, false).unwrap();
    let now = layout(&text);
    let older = if now == "embed" {
        "parent_refs"
    } else {
        "embed"
    };
    let lock = p.read(&p.lock);
    let edited = lock.replace(
        &format!("relationship Author.books = {now}"),
        &format!("relationship Author.books = {older}"),
    );
    assert_ne!(edited, lock);
    std::fs::write(&p.lock, &edited).unwrap();
    let err = p.build(&text, false).unwrap_err();
    let shown = err.to_string();
    for part in [
        "its text is unchanged: this version of squillion decides differently",
        &format!("relationship Author.books: {older}"),
        &format!("-> {now}"),
        "squillion migrate",
        "force <layout>",
        "SQUILLION_ACCEPT_LAYOUT=1",
    ] {
        assert!(shown.contains(part), "{part:?} not in:\n{shown}");
    }
    assert_eq!(format!("{err:?}"), shown);
}

#[test]
fn a_lock_that_does_not_read_names_its_line() {
    let p = Project::new();
    let text = schema("few(5)", false, false);
    std::fs::write(
        &p.lock,
        "# a comment\n[library.sqn] 00\nrelationship Author.books embed\n",
    )
    .unwrap();
    let err = p.build(&text, false).unwrap_err();
    let shown = err.to_string();
    assert!(matches!(err, BuildError::Lock { line: 3, .. }), "{shown}");
    assert!(shown.contains("squillion.lock:3:"), "{shown}");
    assert!(shown.contains("help: "), "{shown}");
    assert!(!p.out.join("library.rs").exists(), "code was written");
}
