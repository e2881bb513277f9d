//! `squillion migrate` against the server (its refusals: `migrate_refused.rs`): for every change kind it supports, pairs of schemas
//! drawn by a generator over entity names, field names and the change; the old layout filled
//! (its validators applied by `squillion indexes --apply`, so the server checks the filler),
//! migrated, then every document checked against the new Plan (the new validator accepts each
//! one, copies equal their source, renamed and removed fields are gone, the logical data has the
//! same count and checksum); a second run changes nothing; a change it does not support is
//! refused with the whole database unchanged.

use super::migrate_data::*;
use super::*;
use squillion_testkit::Lcg;

/// The change kinds `migrate` supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// `@stored("...")` given to a field.
    RenameStored,
    /// A field deleted.
    RemoveField,
    /// A copy (`show`) added where the reference is a plain id.
    CopyOnPlainReference,
    /// A second copy added beside one already kept.
    CopyBesideCopy,
    /// `@index` added.
    IndexAdded,
    /// `@index` removed.
    IndexDropped,
    /// An array's bound raised (a validator change only).
    BoundRaised,
    /// A field of an embedded value and the field holding it both given `@stored`.
    NestedRename,
    /// `@schema_version` raised with a rename (the stored shape changed).
    VersionRaised,
    /// A second copy added in the parent's array of extended references (`arrayFilters`).
    CopyInArray,
    /// One of two copies removed (the extended reference keeps the other).
    CopyRemoved,
    /// A new entity (its collection created with its validator and indexes).
    EntityAdded,
    /// Layout moves of a one-to-many relationship (`force` on both sides).
    EmbedToChildRef,
    ChildRefToEmbed,
    EmbedToParentRefs,
    ParentRefsToEmbed,
    EmbedToTwoWay,
    TwoWayToEmbed,
    ParentRefsToChildRef,
    ChildRefToParentRefs,
    ChildRefToTwoWay,
    TwoWayToChildRef,
    ParentRefsToTwoWay,
    TwoWayToParentRefs,
}

impl Change {
    /// The old and new layout of a move.
    fn layouts(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Change::EmbedToChildRef => ("embed", "child_ref"),
            Change::ChildRefToEmbed => ("child_ref", "embed"),
            Change::EmbedToParentRefs => ("embed", "parent_refs"),
            Change::ParentRefsToEmbed => ("parent_refs", "embed"),
            Change::EmbedToTwoWay => ("embed", "two_way"),
            Change::TwoWayToEmbed => ("two_way", "embed"),
            Change::ParentRefsToChildRef => ("parent_refs", "child_ref"),
            Change::ChildRefToParentRefs => ("child_ref", "parent_refs"),
            Change::ChildRefToTwoWay => ("child_ref", "two_way"),
            Change::TwoWayToChildRef => ("two_way", "child_ref"),
            Change::ParentRefsToTwoWay => ("parent_refs", "two_way"),
            Change::TwoWayToParentRefs => ("two_way", "parent_refs"),
            _ => return None,
        })
    }
}

/// Every layout move.
const MOVES: [Change; 12] = [
    Change::EmbedToChildRef,
    Change::ChildRefToEmbed,
    Change::EmbedToParentRefs,
    Change::ParentRefsToEmbed,
    Change::EmbedToTwoWay,
    Change::TwoWayToEmbed,
    Change::ParentRefsToChildRef,
    Change::ChildRefToParentRefs,
    Change::ChildRefToTwoWay,
    Change::TwoWayToChildRef,
    Change::ParentRefsToTwoWay,
    Change::TwoWayToParentRefs,
];

/// Every supported change kind but the layout moves.
const SUPPORTED: [Change; 12] = [
    Change::RenameStored,
    Change::RemoveField,
    Change::CopyOnPlainReference,
    Change::CopyBesideCopy,
    Change::IndexAdded,
    Change::IndexDropped,
    Change::BoundRaised,
    Change::NestedRename,
    Change::VersionRaised,
    Change::CopyInArray,
    Change::CopyRemoved,
    Change::EntityAdded,
];

/// The names a pair of schemas is drawn with.
pub(super) struct Names {
    pub(super) parent: &'static str,
    pub(super) child: &'static str,
    /// The parent's two string fields (the copy sources).
    pub(super) shown: [&'static str; 2],
    /// The child's string, int32 and array fields, and a spare one.
    pub(super) a: &'static str,
    pub(super) b: &'static str,
    pub(super) list: &'static str,
    pub(super) spare: &'static str,
    /// The relation's ends.
    pub(super) many: &'static str,
    pub(super) one: &'static str,
    pub(super) bound: u64,
}

pub(super) fn names(seed: u64) -> Names {
    let mut rng = Lcg(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut pick = |from: &[&'static str]| from[rng.below(from.len() as u64) as usize];
    let parent = pick(&["Author", "Harbor", "Garden", "Studio"]);
    let child = pick(&["Book", "Vessel", "Plant", "Canvas"]);
    let mut fields = vec![
        "title", "label", "weight", "code", "colour", "height", "grade", "origin",
    ];
    Lcg(seed + 7).shuffle(&mut fields);
    let mut shown = vec!["name", "city", "motto", "founder"];
    Lcg(seed + 11).shuffle(&mut shown);
    Names {
        parent,
        child,
        shown: [shown[0], shown[1]],
        a: fields[0],
        b: fields[1],
        list: fields[2],
        spare: fields[3],
        many: pick(&["items", "members", "holdings"]),
        one: pick(&["owner", "keeper", "home"]),
        bound: [2, 3, 4][(seed % 3) as usize],
    }
}

/// One schema of a pair: `extra` goes into the child, `shows` into the relation.
pub(super) fn schema_text(
    n: &Names,
    a_attr: &str,
    b_decl: &str,
    bound: u64,
    extra: &str,
    shows: &str,
    many: &str,
) -> String {
    format!(
        "entity {p} {{ {s0}: string {s1}: string }}\n\
         entity {c} {{ {a}: string{a_attr} {b}: {b_decl} {list}: [string; {bound}] {extra} }}\n\
         relation {p}.{m}: {many} <-> {c}.{o}: one {{\n  standalone {c}\n{shows}}}\n",
        p = n.parent,
        c = n.child,
        s0 = n.shown[0],
        s1 = n.shown[1],
        a = n.a,
        b = n.b,
        list = n.list,
        m = n.many,
        o = n.one,
    )
}

/// A schema of the layout moves: the parent, the child, and the relation between them with its
/// layout forced, at most `bound` children per parent.
pub(super) fn layout_text(n: &Names, layout: &str, bound: u64) -> String {
    format!(
        "entity {p} {{ {s0}: string {s1}: string }}\n\
         entity {c} {{ {a}: string {b}: int32 {list}: [string; {lb}] }}\n\
         relation {p}.{m}: many({bound}) <-> {c}.{o}: one {{\n  force {layout}\n}}\n",
        p = n.parent,
        c = n.child,
        s0 = n.shown[0],
        s1 = n.shown[1],
        a = n.a,
        b = n.b,
        list = n.list,
        lb = n.bound,
        m = n.many,
        o = n.one,
    )
}

/// The old and new schema of a supported change.
fn pair(change: Change, n: &Names) -> (String, String) {
    if let Some((from, to)) = change.layouts() {
        let bound = n.bound * 3;
        return (layout_text(n, from, bound), layout_text(n, to, bound));
    }
    let show = |fields: &[&str]| {
        let listed: Vec<String> = fields.iter().map(|f| format!("{}.{f}", n.parent)).collect();
        format!("  show {} on {} ratio 1000:1\n", listed.join(", "), n.child)
    };
    let many = "many(100000)";
    let spare = format!("{}: double", n.spare);
    let s = |a: &str, b: &str, bound: u64, extra: &str, shows: &str| {
        schema_text(n, a, b, bound, extra, shows, many)
    };
    let stored = format!("int32 @stored(\"{}_v2\")", n.b);
    let one = show(&[n.shown[0]]);
    let two = show(&[n.shown[0], n.shown[1]]);
    match change {
        Change::RenameStored => (
            s("", "int32", n.bound, "", ""),
            s("", &stored, n.bound, "", ""),
        ),
        Change::RemoveField => (
            s("", "int32", n.bound, &spare, ""),
            s("", "int32", n.bound, "", ""),
        ),
        Change::CopyOnPlainReference => (
            s("", "int32", n.bound, "", ""),
            s("", "int32", n.bound, "", &one),
        ),
        Change::CopyBesideCopy => (
            s("", "int32", n.bound, "", &one),
            s("", "int32", n.bound, "", &two),
        ),
        Change::EntityAdded => {
            let old = s("", "int32", n.bound, "", "");
            let new = format!(
                "{old}entity Note {{ {}: string @index {}: int32 @unique }}\n",
                n.a, n.b
            );
            (old, new)
        }
        Change::CopyRemoved => (
            s("", "int32", n.bound, "", &two),
            s("", "int32", n.bound, "", &one),
        ),
        Change::IndexAdded => (
            s("", "int32", n.bound, "", ""),
            s(" @index", "int32", n.bound, "", ""),
        ),
        Change::IndexDropped => (
            s(" @index", "int32", n.bound, "", ""),
            s("", "int32", n.bound, "", ""),
        ),
        Change::BoundRaised => (
            s("", "int32", n.bound, "", ""),
            s("", "int32", n.bound * 3, "", ""),
        ),
        Change::NestedRename => {
            let value = |inner: &str, outer: &str| {
                format!(
                    "value Size {{ width: int32 depth: int32{inner} }}\n{}",
                    s(
                        "",
                        "int32",
                        n.bound,
                        &format!("{}: Size{outer}", n.spare),
                        ""
                    )
                )
            };
            (
                value("", ""),
                value(" @stored(\"d2\")", &format!(" @stored(\"{}_v2\")", n.spare)),
            )
        }
        Change::CopyInArray => {
            // The parent holds its children's ids (`many(300)`), with copies of their fields.
            let on_parent = |fields: &[&str]| {
                let listed: Vec<String> =
                    fields.iter().map(|f| format!("{}.{f}", n.child)).collect();
                format!(
                    "  show {} on {} ratio 1000:1\n",
                    listed.join(", "),
                    n.parent
                )
            };
            (
                schema_text(n, "", "int32", n.bound, "", &on_parent(&[n.a]), "many(300)"),
                schema_text(
                    n,
                    "",
                    "int32",
                    n.bound,
                    "",
                    &on_parent(&[n.a, n.b]),
                    "many(300)",
                ),
            )
        }
        Change::EmbedToChildRef
        | Change::ChildRefToEmbed
        | Change::EmbedToParentRefs
        | Change::ParentRefsToEmbed
        | Change::EmbedToTwoWay
        | Change::TwoWayToEmbed
        | Change::ParentRefsToChildRef
        | Change::ChildRefToParentRefs
        | Change::ChildRefToTwoWay
        | Change::TwoWayToChildRef
        | Change::ParentRefsToTwoWay
        | Change::TwoWayToParentRefs => unreachable!("layout moves are drawn above"),
        Change::VersionRaised => {
            let versioned = |text: String, v: u32| {
                text.replacen(
                    &format!("entity {} {{", n.child),
                    &format!("entity {} @schema_version({v}) {{", n.child),
                    1,
                )
            };
            (
                versioned(s("", "int32", n.bound, "", ""), 1),
                versioned(s("", &stored, n.bound, "", ""), 2),
            )
        }
    }
}

/// Runs the migration from `old` to `new` again, after a run that finished: it says so and
/// writes nothing.
pub(super) async fn a_second_run_changes_nothing(old: &Path, new: &Path, t: &TestDb, what: &str) {
    let after = dump(&t.db).await;
    let again = migrate(old, new, t, &[]).await;
    again.expect(0, what);
    assert!(
        again.stdout.starts_with("already migrated"),
        "{what}\n{}",
        again.stdout
    );
    assert_eq!(
        dump(&t.db).await,
        after,
        "{what}: the second run changed the database"
    );
}

pub(super) async fn migrate(old: &Path, new: &Path, t: &TestDb, extra: &[&str]) -> Run {
    let mut args: Vec<OsString> = vec![
        "migrate".into(),
        old.into(),
        new.into(),
        "--uri".into(),
        db_uri(t.db.name()).into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    squillion(args).await
}

/// Starts `migrate OLD NEW --uri URI` and kills it once its checkpoint records `steps` steps
/// (then `extra` later: inside the next step), or when it ends by itself.
pub(super) async fn killed_migration(old: &Path, new: &Path, t: &TestDb, steps: usize, extra: u64) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("squillion"))
        .arg("migrate")
        .arg(old)
        .arg(new)
        .arg("--uri")
        .arg(db_uri(t.db.name()))
        .env("NO_COLOR", "1")
        .env_remove("SQUILLION_MONGODB_URI")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let checkpoints = t.db.collection::<Document>("squillion_migrations");
    loop {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        let done = checkpoints
            .find_one(doc! {})
            .await
            .unwrap()
            .and_then(|c| c.get_array("done").ok().map(Vec::len))
            .unwrap_or(0);
        if done >= steps {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(extra)).await;
    let _ = child.kill();
    child.wait().unwrap();
}

/// One supported change, drawn with `seed`: fill, migrate (after a dry run and a mongosh
/// print that write nothing; with `kill` = (steps, ms), a first run killed that long after its
/// checkpoint records that many steps, then resumed),
/// check, migrate again.
///
/// Returns, for a killed run, how many of the steps it had recorded when killed.
async fn supported(change: Change, seed: u64, kill: Option<(usize, u64)>) -> (usize, usize) {
    let n = names(seed);
    let (old_text, new_text) = pair(change, &n);
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (
        write(dir.path(), "old.sqn", &old_text),
        write(dir.path(), "new.sqn", &new_text),
    );
    let (old_plan, new_plan) = (plan_of(&old), plan_of(&new));
    let what = format!("{change:?} seed {seed}\n--- old\n{old_text}--- new\n{new_text}");
    let t = TestDb::new(&format!("mig_{change:?}_{seed}")).await;
    indexes(&old, &t, &["--apply"]).await.expect(0, &what);
    let mut rng = Lcg(seed);
    let parents = if seed == 0 { 1_050 } else { 40 };
    if change.layouts().is_some() {
        fill_layout(&t.db, &old_plan, parents, parents + 60, 0, &mut rng).await;
    } else {
        fill(&t.db, &old_plan, parents, parents + 60, &mut rng).await;
    }
    let before = logical_data(&t.db, &old_plan, &new_plan).await;
    let untouched = dump(&t.db).await;

    let dry = migrate(&old, &new, &t, &["--dry-run"]).await;
    dry.expect(0, &what);
    assert!(
        dry.stdout.lines().any(|l| l.starts_with("would ")),
        "{what}\n{}",
        dry.stdout
    );
    let script = migrate(&old, &new, &t, &["--print", "mongosh"]).await;
    script.expect(0, &what);
    assert_eq!(
        script.stdout,
        migrate(&old, &new, &t, &["--print", "mongosh"])
            .await
            .stdout,
        "deterministic script"
    );
    assert_eq!(
        dump(&t.db).await,
        untouched,
        "{what}: a dry run or a print wrote something"
    );

    let steps = dry
        .stdout
        .lines()
        .filter(|l| l.starts_with("would "))
        .count();
    let mut recorded = 0;
    if let Some((k, extra)) = kill {
        killed_migration(&old, &new, &t, k % steps.max(1), extra).await;
        recorded =
            t.db.collection::<Document>("squillion_migrations")
                .find_one(doc! {})
                .await
                .unwrap()
                .and_then(|c| c.get_array("done").ok().map(Vec::len))
                .unwrap_or(0);
    }
    // Every other seed, the expand phase alone first (`--until expand`).
    let expanded = kill.is_none() && seed % 2 == 1;
    if expanded {
        super::migrate_until::expand_only(&old, &new, &t, &dry.stdout, &new_plan, &what).await;
    }
    // Every third seed, the migration is the mongosh script, run by mongosh; the checks below,
    // and the second run through the CLI (which finds every step recorded), are the same.
    let run = if kill.is_none() && seed % 3 == 2 {
        super::mongosh::mongosh(&script.stdout, t.db.name()).await
    } else {
        migrate(&old, &new, &t, &[]).await
    };
    run.expect(0, &what);
    for line in dry.stdout.lines().filter_map(|l| l.strip_prefix("would ")) {
        let resumed = kill.is_some() || expanded || run.stdout.starts_with("already migrated");
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with(&format!("done: {line}"))
                    || (resumed && l == format!("already done: {line}")))
                || (resumed && run.stdout.starts_with("already migrated")),
            "{what}: `{line}` not done:\n{}",
            run.stdout
        );
        assert!(
            script.stdout.contains(&format!(
                "step({}",
                serde_json::Value::String(line.to_owned())
            )),
            "{what}: `{line}` not in the script"
        );
    }

    // The data: same documents, same logical content, valid under the new Plan.
    assert_eq!(
        logical_data(&t.db, &new_plan, &old_plan).await,
        before,
        "{what}: logical data changed"
    );
    assert_new_validators_accept_everything(&t.db, &new_plan).await;
    assert_copies_equal_sources(&t.db, &new_plan).await;
    assert_matches_plan(&t.db, &new_plan).await;
    // No collection the new Plan does not have (a layout's children moved into their parents).
    let mut expected: BTreeSet<String> = new_plan
        .collections
        .iter()
        .map(|c| c.name.clone())
        .collect();
    expected.insert("squillion_migrations".to_owned());
    assert_eq!(
        collection_names(&t.db).await,
        expected,
        "{what}: the collections"
    );
    // Renamed and removed fields are gone from every document.
    for f in squillion_codegen::diff::diff(&old_plan, &new_plan).fields {
        if let Some(o) = f.old.filter(|o| {
            f.new
                .as_ref()
                .is_none_or(|n| n.path != o.path && !o.path.contains('.'))
        }) {
            let left =
                t.db.collection::<Document>(&o.collection)
                    .count_documents(doc! { &o.path: { "$exists": true } })
                    .await
                    .unwrap();
            assert_eq!(
                left, 0,
                "{what}: {}.{} is still stored",
                o.collection, o.path
            );
        }
    }

    // Every document carries the new schema version.
    for c in &new_plan.collections {
        if let Some(v) = c.schema_version {
            let behind =
                t.db.collection::<Document>(&c.name)
                    .count_documents(doc! { "schema_version": { "$ne": v as i32 } })
                    .await
                    .unwrap();
            assert_eq!(
                behind, 0,
                "{what}: documents of {} below version {v}",
                c.name
            );
        }
    }

    // A second run does nothing and says so.
    a_second_run_changes_nothing(&old, &new, &t, &what).await;
    t.cleanup().await;
    (recorded, steps)
}

#[tokio::test]
async fn every_supported_change_migrates_every_document() {
    for change in SUPPORTED {
        for seed in 0..3 {
            supported(change, seed, None).await;
        }
    }
}

/// Every layout move among `embed`, `child_ref`, `parent_refs` and `two_way`: the relation read
/// from every side the new layout stores is the relation written under the old one.
#[tokio::test]
async fn every_layout_move_migrates_every_child() {
    for change in MOVES {
        for seed in 0..3 {
            supported(change, seed, None).await;
        }
    }
}

/// A run killed at a drawn moment (after a drawn number of steps, a few milliseconds into the
/// next) and run again migrates
/// every document exactly as an uninterrupted run: nothing lost, nothing duplicated.
#[tokio::test]
async fn a_killed_migration_resumes() {
    let mut rng = Lcg(42);
    let mut inside = 0;
    for change in [
        Change::CopyOnPlainReference,
        Change::CopyInArray,
        Change::RenameStored,
        Change::VersionRaised,
        Change::EmbedToChildRef,
        Change::ChildRefToEmbed,
        Change::EmbedToTwoWay,
        Change::ParentRefsToEmbed,
        Change::ParentRefsToChildRef,
        Change::ChildRefToParentRefs,
    ] {
        for _ in 0..2 {
            let kill = (rng.below(8) as usize, rng.below(40));
            let (recorded, steps) = supported(change, 0, Some(kill)).await;
            if recorded > 0 && recorded < steps {
                inside += 1;
            }
        }
    }
    assert!(
        inside > 0,
        "no kill landed between two steps: draw other moments"
    );
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

/// `migrate FILE --base REV` migrates from the committed version to the work tree's: the same
/// steps and checkpoint as with two files, for every supported change.
#[tokio::test]
async fn base_migrates_from_a_git_revision() {
    for change in SUPPORTED.into_iter().chain(MOVES) {
        let (old_text, new_text) = pair(change, &names(5));
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let file = write(repo.path(), "schema.sqn", &old_text);
        git(repo.path(), &["add", "schema.sqn"]);
        git(repo.path(), &["commit", "-qm", "old"]);
        std::fs::write(&file, &new_text).unwrap();
        let files = tempfile::tempdir().unwrap();
        let (old, new) = (
            write(files.path(), "old.sqn", &old_text),
            write(files.path(), "new.sqn", &new_text),
        );
        let body = |run: &Run| run.stdout.split_once('\n').map(|(_, b)| b.to_owned());
        let two = squillion([
            OsString::from("migrate"),
            old.into(),
            new.into(),
            "--print".into(),
            "mongosh".into(),
        ])
        .await;
        two.expect(0, &format!("{change:?}"));
        let based = squillion([
            OsString::from("migrate"),
            file.clone().into(),
            "--base".into(),
            "HEAD".into(),
            "--print".into(),
            "mongosh".into(),
        ])
        .await;
        based.expect(0, &format!("{change:?} --base"));
        assert!(
            based
                .stdout
                .lines()
                .next()
                .unwrap()
                .contains("schema.sqn@HEAD -> "),
            "{}",
            based.stdout
        );
        assert_eq!(
            body(&based),
            body(&two),
            "{change:?}: --base HEAD and two files differ"
        );
    }
}
