//! `squillion migrate OLD NEW -o DIR`: the Rust module it writes, compiled into one throwaway
//! binary (a path dependency on this workspace's `squillion`, its lock file and target
//! directory) and run against the server, must leave the database exactly as the CLI's own
//! `migrate` leaves a copy of the same data: every collection's documents, indexes, options
//! (validators) and the checkpoint, the ObjectIds made during the migration (ids given to
//! embedded children, links' ids) renumbered in order of appearance. Then: a second run of the
//! generated code changes nothing, the CLI after it finds everything done (and the generated
//! code after the CLI too), and a CLI run killed halfway is finished by the generated code.
//!
//! Change kinds, seeded as the other migrate tests seed them: embed -> child_ref, a copy added
//! with its backfill, child_ref -> bucket, and a many-to-many one_way -> link_collection.

use std::process::Command;

use super::migrate::{killed_migration, layout_text, migrate, names, schema_text};
use super::migrate_buckets::{fill_plain, text as bucket_text};
use super::migrate_data::{dump, fill, fill_layout, relation_data, write};
use super::*;
use squillion_testkit::Lcg;

/// One change kind: its module name in the throwaway crate and its two schemas.
struct Kind {
    module: &'static str,
    old: String,
    new: String,
}

fn kinds() -> Vec<Kind> {
    let n = names(3);
    let show = format!(
        "  show {}.{} on {} ratio 1000:1\n",
        n.parent, n.shown[0], n.child
    );
    let plain = |shows: &str| schema_text(&n, "", "int32", n.bound, "", shows, "many(100000)");
    let courses = |body: &str| {
        format!(
            "entity Student {{ name: string }}\nentity Course {{ title: string }}\n\
             relation Student.courses: many(6) <-> Course.students: many(200) {{\n  {body}\n}}\n"
        )
    };
    vec![
        Kind {
            module: "embed_to_child_ref",
            old: layout_text(&n, "embed", n.bound * 3),
            new: layout_text(&n, "child_ref", n.bound * 3),
        },
        Kind {
            module: "copy_backfilled",
            old: plain(""),
            new: plain(&show),
        },
        Kind {
            module: "child_ref_to_bucket",
            old: bucket_text(&n, "force child_ref"),
            new: bucket_text(&n, "force bucket(4)"),
        },
        Kind {
            module: "one_way_to_link",
            old: courses("navigate Student\n  force one_way"),
            new: courses("navigate both\n  force link_collection"),
        },
    ]
}

/// Fills the old layout of `kind` (the old validators applied first).
async fn seed(kind: &Kind, old: &Path, t: &TestDb) {
    indexes(old, t, &["--apply"]).await.expect(0, kind.module);
    let plan = plan_of(old);
    let mut rng = Lcg(17);
    match kind.module {
        "embed_to_child_ref" => fill_layout(&t.db, &plan, 40, 100, 0, &mut rng).await,
        "copy_backfilled" => fill(&t.db, &plan, 40, 100, &mut rng).await,
        "child_ref_to_bucket" => fill_plain(&t.db, &plan, 30, 90, &mut rng).await,
        "one_way_to_link" => {
            let courses: Vec<ObjectId> = (0..20).map(|_| ObjectId::new()).collect();
            let docs: Vec<Document> = courses
                .iter()
                .map(|c| doc! { "_id": c, "title": format!("c{c}") })
                .collect();
            t.db.collection::<Document>("courses")
                .insert_many(docs)
                .await
                .unwrap();
            let students: Vec<Document> = (0..50)
                .map(|_| {
                    let mut mine: Vec<ObjectId> = Vec::new();
                    for _ in 0..rng.below(7) {
                        let c = courses[rng.below(courses.len() as u64) as usize];
                        if !mine.contains(&c) {
                            mine.push(c);
                        }
                    }
                    doc! { "_id": ObjectId::new(), "name": "s", "courses": mine }
                })
                .collect();
            t.db.collection::<Document>("students")
                .insert_many(students)
                .await
                .unwrap();
        }
        other => panic!("no seed for {other}"),
    }
}

/// `to` made a copy of `from`: each collection with its options (validator), indexes and
/// documents.
async fn copy_database(from: &Database, to: &Database) {
    let specs: Vec<mongodb::results::CollectionSpecification> = from
        .list_collections()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    for spec in specs {
        to.create_collection(&spec.name)
            .with_options(spec.options.clone())
            .await
            .unwrap();
        let models: Vec<IndexModel> = from
            .collection::<Document>(&spec.name)
            .list_indexes()
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for m in models {
            let name = m.options.as_ref().and_then(|o| o.name.clone());
            if name.as_deref() != Some("_id_") {
                to.collection::<Document>(&spec.name)
                    .create_index(m)
                    .await
                    .unwrap();
            }
        }
        let docs: Vec<Document> = all_docs(from, &spec.name).await;
        if !docs.is_empty() {
            to.collection::<Document>(&spec.name)
                .insert_many(docs)
                .bypass_document_validation(true)
                .await
                .unwrap();
        }
    }
}

/// Every ObjectId's hex in a dump, in order.
fn object_ids(dump: &str) -> Vec<(usize, &str)> {
    const OPEN: &str = "ObjectId(\"";
    dump.match_indices(OPEN)
        .filter_map(|(at, _)| {
            let start = at + OPEN.len();
            dump.get(start..start + 24).map(|hex| (start, hex))
        })
        .collect()
}

/// A dump with every ObjectId not in `seeded` renumbered in order of appearance (`new#0`,
/// `new#1`, ...): ids made during a migration differ between two runs, their places must not.
fn renumbered(dump: &str, seeded: &str) -> String {
    let old: BTreeSet<&str> = object_ids(seeded).into_iter().map(|(_, h)| h).collect();
    let mut map: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut out, mut from) = (String::new(), 0);
    for (start, hex) in object_ids(dump) {
        if old.contains(hex) {
            continue;
        }
        let k = map.len();
        let k = *map.entry(hex).or_insert(k);
        out.push_str(&dump[from..start]);
        out.push_str(&format!("new#{k}"));
        from = start + hex.len();
    }
    out.push_str(&dump[from..]);
    out
}

/// The throwaway crate: one module per kind, `main KIND URI DB` running its `migrate`.
fn write_crate(dir: &Path, modules: &[(&str, String)]) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"migrate-generated\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nsquillion = {{ path = {:?} }}\ntokio = {{ version = \"1\", features = [\"full\"] }}\n\n\
         # The workspace's profile, so the dependencies built for it are reused.\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n\n[workspace]\n",
        root().canonicalize().unwrap()
    );
    let mut main = String::from("#![deny(warnings)]\n\n");
    let mut arms = String::new();
    for (module, code) in modules {
        // Written only when changed: an unchanged crate is not rebuilt.
        let path = dir.join(format!("src/{module}.rs"));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(code.as_str()) {
            std::fs::write(&path, code).unwrap();
        }
        main.push_str(&format!("mod {module};\n"));
        arms.push_str(&format!(
            "        \"{module}\" => {module}::migrate(&db, &mut progress).await,\n"
        ));
    }
    main.push_str(&format!(
        r#"
#[tokio::main(flavor = "current_thread")]
async fn main() {{
    let args: Vec<String> = std::env::args().collect();
    let [_, kind, uri, name] = args.as_slice() else {{
        eprintln!("usage: migrate-generated KIND URI DB");
        std::process::exit(2);
    }};
    let client = squillion::mongodb::Client::with_uri_str(uri).await.expect("client");
    let db = client.database(name);
    let mut progress = |p: &squillion::migrate::Progress<'_>| match p {{
        squillion::migrate::Progress::Started {{ .. }} | squillion::migrate::Progress::Batch {{ .. }} => {{}}
        _ => println!("{{p}}"),
    }};
    let result = match kind.as_str() {{
{arms}        other => panic!("no module {{other}}"),
    }};
    match result {{
        Ok(s) => println!("summary: {{}} run, {{}} skipped", s.run, s.skipped),
        Err(e) => {{
            eprintln!("{{e}}");
            std::process::exit(1);
        }}
    }}
}}
"#
    ));
    if std::fs::read_to_string(dir.join("src/main.rs")).ok() != Some(main.clone()) {
        std::fs::write(dir.join("src/main.rs"), main).unwrap();
    }
    // The workspace's versions (cargo adds the crate itself to the copy, offline).
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    if std::fs::read_to_string(dir.join("Cargo.toml")).ok() != Some(manifest.clone()) {
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    }
}

/// `cargo build` of the crate (its package named as its directory), in a plain shell's environment (the variables cargo sets for
/// tests would make dependencies' build scripts rerun), into the workspace's target directory.
pub(super) fn build(dir: &Path, target: &Path) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.env_clear();
    for key in [
        "PATH",
        "HOME",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
    ] {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    let started = Instant::now();
    let out = cmd
        .args(["build", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the generated modules do not build (or warn):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("built the generated modules in {:?}", started.elapsed());
    // The package is named as its directory.
    target.join("debug").join(dir.file_name().unwrap())
}

/// Runs the generated `migrate` of `kind` on `t`'s database.
async fn generated(bin: &Path, kind: &str, t: &TestDb) -> Run {
    let (bin, kind, uri, db) = (
        bin.to_path_buf(),
        kind.to_owned(),
        uri(),
        t.db.name().to_owned(),
    );
    tokio::task::spawn_blocking(move || {
        Run::from(Command::new(bin).args([&kind, &uri, &db]).output().unwrap())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_generated_module_migrates_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let kinds = kinds();
    let mut modules = Vec::new();
    let mut files = Vec::new();
    for k in &kinds {
        let old = write(dir.path(), &format!("{}_old.sqn", k.module), &k.old);
        let new = write(dir.path(), &format!("{}_new.sqn", k.module), &k.new);
        let out = dir.path().join("out");
        let args: Vec<OsString> = vec![
            "migrate".into(),
            old.clone().into(),
            new.clone().into(),
            "-o".into(),
            out.clone().into(),
            "--name".into(),
            k.module.into(),
        ];
        squillion(args).await.expect(0, k.module);
        let code = std::fs::read_to_string(out.join(format!("{}.rs", k.module))).unwrap();
        let script = std::fs::read_to_string(out.join(format!("{}.js", k.module))).unwrap();
        let printed = squillion([
            "migrate".into(),
            old.clone().into_os_string(),
            new.clone().into_os_string(),
            OsString::from("--print"),
            OsString::from("mongosh"),
        ])
        .await;
        assert_eq!(
            script, printed.stdout,
            "{}: the .js is the --print mongosh script",
            k.module
        );
        // No mongosh here to run the script; node at least parses it (scripts/test.sh installs
        // node for the TextMate test).
        let checked = std::process::Command::new("node")
            .arg("--check")
            .arg(out.join(format!("{}.js", k.module)))
            .output()
            .unwrap_or_else(|e| {
                panic!("node, which scripts/ensure-node-packages.sh installs: {e}")
            });
        assert!(
            checked.status.success(),
            "{}: the mongosh script does not parse:\n{}",
            k.module,
            String::from_utf8_lossy(&checked.stderr)
        );
        modules.push((k.module, code));
        files.push((old, new));
    }
    // The target directory the tests were built in: the module's dependencies are there.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let crate_dir = target.join("migrate-generated");
    write_crate(&crate_dir, &modules);
    let bin = tokio::task::spawn_blocking(move || build(&crate_dir, &target))
        .await
        .unwrap();

    for (k, (old, new)) in kinds.iter().zip(&files) {
        let what = format!("{}\n--- old\n{}--- new\n{}", k.module, k.old, k.new);
        let by_cli = TestDb::new(&format!("gen_{}_cli", k.module)).await;
        let by_rust = TestDb::new(&format!("gen_{}_rust", k.module)).await;
        let killed = TestDb::new(&format!("gen_{}_kill", k.module)).await;
        let killed_rust = TestDb::new(&format!("gen_{}_kill_rs", k.module)).await;
        seed(k, old, &by_cli).await;
        copy_database(&by_cli.db, &by_rust.db).await;
        copy_database(&by_cli.db, &killed.db).await;
        copy_database(&by_cli.db, &killed_rust.db).await;
        let seeded = dump(&by_cli.db).await;
        assert_eq!(
            dump(&by_rust.db).await,
            seeded,
            "{what}: the copy is the seed"
        );

        let started = Instant::now();
        migrate(old, new, &by_cli, &[]).await.expect(0, &what);
        let cli_took = started.elapsed();
        let started = Instant::now();
        let first = generated(&bin, k.module, &by_rust).await;
        let rust_took = started.elapsed();
        first.expect(0, &what);
        eprintln!("{}: the CLI took {cli_took:?}, the generated module {rust_took:?} (process start included)", k.module);
        assert!(
            first.stdout.lines().any(|l| l.starts_with("done: move: ")),
            "{what}: the generated code moved data:\n{}",
            first.stdout
        );
        let (cli_dump, rust_dump) = (dump(&by_cli.db).await, dump(&by_rust.db).await);
        assert_ne!(
            cli_dump, seeded,
            "{what}: the migration changed the database"
        );
        assert!(
            cli_dump.contains("squillion_migrations"),
            "{what}: the checkpoint is in the dump"
        );
        let (cli_view, rust_view) = (
            renumbered(&cli_dump, &seeded),
            renumbered(&rust_dump, &seeded),
        );
        if cli_view != rust_view {
            let diff = similar_lines(&cli_view, &rust_view);
            panic!("{what}: the generated module and the CLI left different databases:\n{diff}");
        }

        // A second run of the generated code: every step skipped, nothing changed.
        let second = generated(&bin, k.module, &by_rust).await;
        second.expect(0, &what);
        assert!(
            second.stdout.contains("summary: 0 run"),
            "{what}:\n{}",
            second.stdout
        );
        assert_eq!(
            dump(&by_rust.db).await,
            rust_dump,
            "{what}: the second run changed the database"
        );
        // The CLI after the generated code, and the generated code after the CLI: nothing to do.
        let cli_after = migrate(old, new, &by_rust, &[]).await;
        cli_after.expect(0, &what);
        assert!(
            cli_after.stdout.starts_with("already migrated"),
            "{what}:\n{}",
            cli_after.stdout
        );
        assert_eq!(
            dump(&by_rust.db).await,
            rust_dump,
            "{what}: the CLI after the generated code changed the database"
        );
        let rust_after = generated(&bin, k.module, &by_cli).await;
        rust_after.expect(0, &what);
        assert!(
            rust_after.stdout.contains("summary: 0 run"),
            "{what}:\n{}",
            rust_after.stdout
        );
        assert_eq!(
            dump(&by_cli.db).await,
            cli_dump,
            "{what}: the generated code after the CLI changed the database"
        );

        // A CLI run killed after its checkpoint records three steps, finished by the generated
        // code; and the generated code killed so, finished by the CLI.
        killed_migration(old, new, &killed, 3, 0).await;
        let cli_recorded = recorded(&killed).await;
        generated(&bin, k.module, &killed).await.expect(0, &what);
        let rust_recorded = killed_generated(&bin, k.module, &killed_rust, 3).await;
        migrate(old, new, &killed_rust, &[]).await.expect(0, &what);
        eprintln!(
            "{}: killed with {cli_recorded} (CLI) and {rust_recorded} (generated) of the steps recorded, then finished by the other",
            k.module
        );
        for resumed in [&killed, &killed_rust] {
            if k.module == "embed_to_child_ref" {
                // The ids given to embedded children come from two processes here: compared as
                // the relation's data (each parent's children by content), not by id.
                let new_plan = plan_of(new);
                let d = &new_plan.relationships[0];
                assert_eq!(
                    relation_data(&resumed.db, &new_plan, &d.id).await,
                    relation_data(&by_cli.db, &new_plan, &d.id).await,
                    "{what}: after a killed run finished by the other, relation {}",
                    d.id
                );
            } else {
                let resumed_view = renumbered(&dump(&resumed.db).await, &seeded);
                assert!(
                    resumed_view == cli_view,
                    "{what}: a killed run finished by the other left another database:\n{}",
                    similar_lines(&cli_view, &resumed_view)
                );
            }
        }
        let checkpoint = |db: Database| async move {
            db.collection::<Document>("squillion_migrations")
                .find_one(doc! {})
                .await
                .unwrap()
                .unwrap()
        };
        for resumed in [&killed, &killed_rust] {
            assert_eq!(
                checkpoint(resumed.db.clone()).await,
                checkpoint(by_cli.db.clone()).await,
                "{what}: the checkpoint after a killed run finished by the other"
            );
        }
    }
}

/// Where `a` and `b` first differ, with some text around it.
fn similar_lines(a: &str, b: &str) -> String {
    let at = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let around = |s: &str| {
        let boundary = |mut i: usize| {
            i = i.min(s.len());
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        s[boundary(at.saturating_sub(300))..boundary(at + 300)].to_owned()
    };
    format!("--- CLI\n{}\n--- generated\n{}", around(a), around(b))
}

/// Starts the generated `migrate` of `kind` and kills it once the checkpoint records `steps`
/// steps (or when it ends by itself); returns how many were recorded when it stopped.
async fn killed_generated(bin: &Path, kind: &str, t: &TestDb, steps: usize) -> usize {
    let mut child = Command::new(bin)
        .args([kind, &uri(), t.db.name()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    loop {
        let recorded = recorded(t).await;
        if child.try_wait().unwrap().is_some() || recorded >= steps {
            let _ = child.kill();
            child.wait().unwrap();
            return recorded;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The steps the checkpoint records.
async fn recorded(t: &TestDb) -> usize {
    t.db.collection::<Document>("squillion_migrations")
        .find_one(doc! {})
        .await
        .unwrap()
        .and_then(|c| c.get_array("done").ok().map(Vec::len))
        .unwrap_or(0)
}

/// Refused (exit 1): nothing is written, not even the directory.
#[tokio::test]
async fn a_refused_migration_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.sqn", "entity A { x: int32 }\n");
    let new = write(dir.path(), "new.sqn", "entity A { x: string }\n");
    let out = dir.path().join("out");
    let run = squillion(vec![
        OsString::from("migrate"),
        old.into(),
        new.into(),
        "-o".into(),
        out.clone().into(),
    ])
    .await;
    run.expect(1, "a type change is refused");
    assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
    assert!(!out.exists(), "the output directory was created");
}

/// `-o` where a directory cannot be made: a coded error naming the place, exit 2, nothing
/// written.
#[tokio::test]
async fn an_unwritable_output_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.sqn", "entity A { x: int32 }\n");
    let new = write(dir.path(), "new.sqn", "entity A { x: int32 @index }\n");
    // A file where the directory should be.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "mine").unwrap();
    let out = blocker.join("out");
    let run = squillion(vec![
        OsString::from("migrate"),
        old.into(),
        new.into(),
        "-o".into(),
        out.clone().into(),
    ])
    .await;
    run.expect(2, "an output under a file");
    assert!(
        run.stderr
            .contains("error[M0003]: cannot write the migration into")
            && run.stderr.contains(&out.display().to_string())
            && run.stderr.contains("help: ")
            && run.stderr.contains("nothing was written"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "mine");
}
