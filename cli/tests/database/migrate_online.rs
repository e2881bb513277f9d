//! The online mode of a migration (`squillion generate NEW --from OLD`), against the server: for
//! each change made in place (a stored field renamed; a copy added beside a plain reference,
//! backfilled from its source; a field removed and an optional one added, the old documents
//! without a version), the old layout is filled through the old generated code, then writers
//! through the new generated code (`online/main.rs`, compiled with the three generated modules of
//! each kind into one throwaway binary) write before, during and after the background migration
//! (the generated module of `migrate -o`): absolute and relative updates of the fields being
//! migrated, reads and replaces of old documents, inserts, the copies' sources renamed. Every
//! document read through the new code must equal the writers' models (no write lost, every read
//! right whatever the stored version); here the stored documents must all be at the new version,
//! in the new shape. Changes the online mode cannot read are refused (`M0005`), nothing written.

use std::process::Command;

use super::migrate_data::write;
use super::migrate_generated::build;
use super::*;

/// The change kinds: the module prefix in the throwaway crate and the two schemas.
const KINDS: [(&str, &str, &str); 3] = [
    (
        "rename",
        "entity Book @schema_version(1) { title: string  pages: int32 }\n",
        "entity Book @schema_version(2) { title: string  pages: int32 @stored(\"page_count\") }\n",
    ),
    (
        "copy",
        "entity Author { name: string }\nentity Book @schema_version(1) { title: string }\n\
         relation Author.books: many(100000) <-> Book.author: one {\n  standalone Book\n}\n",
        "entity Author { name: string }\nentity Book @schema_version(2) { title: string }\n\
         relation Author.books: many(100000) <-> Book.author: one {\n  standalone Book\n  show Author.name on Book ratio 1000:1\n}\n",
    ),
    (
        "fields",
        "entity Book { title: string  note: string }\n",
        "entity Book @schema_version(1) { title: string  rating: int32? }\n",
    ),
];

/// The declared queries read online: a stored field renamed (`pages` as `page_count`) and a plain
/// reference wrapped into an extended one with a copy, in one change; queries filter and sort on
/// both and on the copy, one projects.
const QUERIES: (&str, &str, &str) = (
    "queries",
    "entity Author { name: string }\nentity Book @schema_version(1) { title: string  pages: int32 }\n\
     relation Author.books: many(100000) <-> Book.author: one {\n  standalone Book\n}\n",
    "entity Author { name: string }\n\
     entity Book @schema_version(2) { title: string  pages: int32 @stored(\"page_count\") }\n\
     relation Author.books: many(100000) <-> Book.author: one {\n  standalone Book\n  \
     show Author.name on Book ratio 1000:1\n}\n\
     query long_books on Book {\n  where pages >= ?\n  sort pages desc, title\n}\n\
     query books_of_author on Book {\n  where author == ?\n  sort title\n}\n\
     query longest_of_author on Book {\n  where author == ? and pages >= ?\n  sort pages desc\n  limit 5\n}\n\
     query page_counts on Book {\n  where pages between ?\n  sort title\n  returns title, pages\n}\n\
     query books_by_author_name on Book {\n  where author.name == ?\n  sort title\n}\n\
     query books_by_author_names on Book {\n  where pages >= ?\n  sort author.name, title\n}\n",
);

/// The three modules of every kind (old code, new code reading the old version, migration),
/// written by the CLI into the throwaway crate's `src`.
async fn generate_modules(src: &Path, dir: &Path) {
    std::fs::create_dir_all(src).unwrap();
    for (kind, old, new) in KINDS.into_iter().chain([QUERIES]) {
        let old = write(dir, &format!("{kind}_old.sqn"), old);
        let new = write(dir, &format!("{kind}_new.sqn"), new);
        let out = dir.join(kind);
        let o = |p: &Path| p.as_os_str().to_owned();
        squillion([OsString::from("generate"), o(&old), "-o".into(), o(&out)])
            .await
            .expect(0, kind);
        squillion([
            OsString::from("generate"),
            o(&new),
            "--from".into(),
            o(&old),
            "-o".into(),
            o(&out),
        ])
        .await
        .expect(0, kind);
        squillion([
            OsString::from("migrate"),
            o(&old),
            o(&new),
            "-o".into(),
            o(&out),
            "--name".into(),
            format!("{kind}_migrate").into(),
        ])
        .await
        .expect(0, kind);
        for module in ["old", "new", "migrate"] {
            let code = std::fs::read_to_string(out.join(format!("{kind}_{module}.rs"))).unwrap();
            let path = src.join(format!("{kind}_{module}.rs"));
            // Written only when changed: an unchanged crate is not rebuilt.
            if std::fs::read_to_string(&path).ok() != Some(code.clone()) {
                std::fs::write(&path, code).unwrap();
            }
        }
    }
}

/// The writers' program, built once for the tests of this file (they run side by side).
async fn program() -> PathBuf {
    static BUILT: tokio::sync::Mutex<Option<PathBuf>> = tokio::sync::Mutex::const_new(None);
    let mut built = BUILT.lock().await;
    if let Some(bin) = built.as_ref() {
        return bin.clone();
    }
    let dir = tempfile::tempdir().unwrap();
    // The target directory the tests were built in: the program's dependencies are there.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let bin = writers_program(&target, dir.path()).await;
    *built = Some(bin.clone());
    bin
}

/// Runs the program on `kind` against a fresh database: its stdout, after asserting it succeeded.
async fn run_program(kind: &'static str) -> (TestDb, String) {
    let bin = program().await;
    let t = TestDb::new(&format!("online_{kind}")).await;
    let (uri, db) = (uri(), t.db.name().to_owned());
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(bin).args([kind, &uri, &db]).output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{kind}: the program failed:\n{stderr}\n{stdout}"
    );
    eprintln!("{kind} ({:?}):\n{stdout}", started.elapsed());
    (t, stdout)
}

/// The throwaway crate `migrate-online` in `target`: the writers' program and the modules.
async fn writers_program(target: &Path, dir: &Path) -> PathBuf {
    let crate_dir = target.join("migrate-online");
    generate_modules(&crate_dir.join("src"), dir).await;
    let read = |name: &str| {
        std::fs::read_to_string(root().join("cli/tests/database/online").join(name)).unwrap()
    };
    let manifest = format!(
        "[package]\nname = \"migrate-online\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nsquillion = {{ path = {:?} }}\ntokio = {{ version = \"1\", features = [\"full\"] }}\n\n\
         # The workspace's profile, so the dependencies built for it are reused.\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n\n[workspace]\n",
        root().canonicalize().unwrap()
    );
    for (path, text) in [
        (crate_dir.join("src/main.rs"), read("main.rs")),
        (
            crate_dir.join("src/query_checks.rs"),
            read("query_checks.rs"),
        ),
        (crate_dir.join("Cargo.toml"), manifest),
    ] {
        if std::fs::read_to_string(&path).ok() != Some(text.clone()) {
            std::fs::write(&path, text).unwrap();
        }
    }
    std::fs::copy(root().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let target = target.to_path_buf();
    tokio::task::spawn_blocking(move || build(&crate_dir, &target))
        .await
        .unwrap()
}

/// `name: value` lines of the program's report.
fn reported(stdout: &str, name: &str) -> Vec<u64> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map(|v| v.split(' ').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn writers_through_the_new_code_lose_nothing_while_the_migration_runs() {
    for (kind, _, _) in KINDS {
        let (t, stdout) = run_program(kind).await;
        let writes = reported(&stdout, "writes before/during/after");
        assert!(
            writes.len() == 3 && writes.iter().all(|&n| n > 0),
            "{kind}: writes before, during and after the migration: {writes:?}"
        );
        // Stored: every document at the new version, in the new shape only.
        let (version, new_field, old_field) = match kind {
            "rename" => (2, "page_count", Some("pages")),
            "copy" => (2, "author.name", None),
            _ => (1, "title", Some("note")),
        };
        let docs = all_docs(&t.db, "books").await;
        assert_eq!(
            docs.len() as u64,
            reported(&stdout, "documents")[0],
            "{kind}: documents"
        );
        for d in &docs {
            assert_eq!(
                d.get("schema_version"),
                Some(&Bson::Int32(version)),
                "{kind}: {d}"
            );
            let at = |path: &str| {
                path.split('.').try_fold(Bson::Document(d.clone()), |v, s| {
                    v.as_document().and_then(|d| d.get(s)).cloned()
                })
            };
            assert!(
                at(new_field).is_some(),
                "{kind}: {new_field} missing in {d}"
            );
            if let Some(old) = old_field {
                assert!(at(old).is_none(), "{kind}: {old} left in {d}");
            }
            if kind == "copy" {
                assert!(
                    matches!(d.get("author"), Some(Bson::Document(_))),
                    "{kind}: {d}"
                );
            }
        }
    }
}

/// The declared queries of the new code (`find_<query>`, `_page`, `_stream`, `count_`) on a
/// collection holding documents of both versions, some of the old ones given the new shape by a
/// write through the new code but not yet their copies: every query, with random arguments,
/// returns what a reference model of the logical data returns, in the same order, before the
/// migration runs and after it (the program checks and says how many reads it compared).
#[tokio::test(flavor = "multi_thread")]
async fn declared_queries_read_documents_of_both_versions() {
    let (_t, stdout) = run_program(QUERIES.0).await;
    let checked = reported(&stdout, "queries checked before/after");
    assert!(
        checked.len() == 2 && checked.iter().all(|&n| n >= 100),
        "queries checked: {checked:?}\n{stdout}"
    );
}

/// A layout move, a summary computed from children and a renamed subdocument cannot be read
/// online: `generate --from` refuses them, each with `M0005`, and writes nothing.
#[tokio::test]
async fn generate_from_refuses_what_the_online_mode_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let relation = |layout: &str| {
        format!(
            "entity Author {{ name: string }}\nentity Note {{ text: string }}\n\
             relation Author.notes: many(20) <-> Note.author: one {{\n  force {layout}\n}}\n"
        )
    };
    let cases = [
        ("layout", relation("embed"), relation("child_ref"), "moves data between documents or collections"),
        (
            "subdocument",
            "value Size { width: int32  height: int32 }\nentity Book @schema_version(1) { size: Size }\n".to_owned(),
            "value Size { width: int32  height: int32 }\nentity Book @schema_version(2) { size: Size @stored(\"dimensions\") }\n".to_owned(),
            "cannot rename the subdocument books.size to dimensions",
        ),
        (
            "summary",
            "entity Author @schema_version(1) { name: string }\nentity Note { text: string }\n\
             relation Author.notes: many(20) <-> Note.author: one {\n  force embed\n}\n"
                .to_owned(),
            "entity Author @schema_version(2) { name: string }\nentity Note { text: string }\n\
             relation Author.notes: many(20) <-> Note.author: one {\n  force embed\n  summary count\n}\n"
                .to_owned(),
            "computes what they keep from their children",
        ),
        (
            "version",
            "entity Book @schema_version(1) { title: string  pages: int32 }\n".to_owned(),
            "entity Book @schema_version(1) { title: string  pages: int32 @stored(\"page_count\") }\n".to_owned(),
            "`schema_version` stays 1",
        ),
    ];
    for (name, old, new, says) in cases {
        let old = write(dir.path(), &format!("{name}_old.sqn"), &old);
        let new = write(dir.path(), &format!("{name}_new.sqn"), &new);
        let out = dir.path().join(name);
        let run = squillion([
            OsString::from("generate"),
            new.into_os_string(),
            "--from".into(),
            old.into_os_string(),
            "-o".into(),
            out.clone().into_os_string(),
        ])
        .await;
        run.expect(1, name);
        assert!(
            run.stderr.contains("error[M0005]") && run.stderr.contains(says),
            "{name}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("nothing was written"),
            "{name}: {}",
            run.stderr
        );
        assert!(!out.exists(), "{name}: something was written");
    }
}
