//! `squillion migrate` against the server: for every change kind it supports, pairs of schemas
//! drawn by a generator over entity names, field names and the change; the old layout filled
//! (its validators applied by `squillion indexes --apply`, so the server checks the filler),
//! migrated, then every document checked against the new Plan (the new validator accepts each
//! one, copies equal their source, renamed and removed fields are gone, the logical data has the
//! same count and checksum); a second run changes nothing; a change it does not support is
//! refused with the whole database unchanged.

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
}

/// The change kinds it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// The relation's bound drops: the layout flips.
    LayoutFlip,
    /// A field's type changes.
    TypeChange,
    /// A new required field with nothing to fill it from.
    NewRequired,
    /// A natural key becomes the parent's `_id` (and the children's references change type).
    NaturalKey,
}

/// The names a pair of schemas is drawn with.
struct Names {
    parent: &'static str,
    child: &'static str,
    /// The parent's two string fields (the copy sources).
    shown: [&'static str; 2],
    /// The child's string, int32 and array fields, and a spare one.
    a: &'static str,
    b: &'static str,
    list: &'static str,
    spare: &'static str,
    /// The relation's ends.
    many: &'static str,
    one: &'static str,
    bound: u64,
}

fn names(seed: u64) -> Names {
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
fn schema_text(
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

/// The old and new schema of a supported change.
fn pair(change: Change, n: &Names) -> (String, String) {
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
    }
}

/// The old and new schema of a refused change.
fn refused_pair(kind: Refused, n: &Names) -> (String, String) {
    let old = schema_text(n, "", "int32", n.bound, "", "", "many(100000)");
    let new = match kind {
        Refused::LayoutFlip => schema_text(n, "", "int32", n.bound, "", "", "many(20)"),
        Refused::TypeChange => schema_text(n, "", "string", n.bound, "", "", "many(100000)"),
        Refused::NaturalKey => schema_text(n, "", "int32", n.bound, "", "", "many(100000)")
            .replacen(
                &format!("{}: string", n.shown[0]),
                &format!("{}: string @key", n.shown[0]),
                1,
            ),
        Refused::NewRequired => schema_text(
            n,
            "",
            "int32",
            n.bound,
            &format!("{}: string", n.spare),
            "",
            "many(100000)",
        ),
    };
    (old, new)
}

/// A value of a planned scalar field.
fn scalar(f: &PlanField, rng: &mut Lcg) -> Bson {
    let one = |rng: &mut Lcg| match f.bson_type.as_str() {
        "string" => Bson::String(format!("v{}", rng.below(1_000_000))),
        "int" => Bson::Int32(rng.below(10_000) as i32),
        "double" => Bson::Double(rng.below(10_000) as f64 / 8.0),
        "objectId" => Bson::ObjectId(ObjectId::new()),
        other => panic!("no filler for {other} ({})", f.path),
    };
    if f.array_depth == 0 {
        return one(rng);
    }
    let max = f.max_items.unwrap_or(3);
    Bson::Array((0..rng.below(max + 1)).map(|_| one(rng)).collect())
}

/// Fills every collection of the old Plan: parents first, then children referring to them, by
/// the Plan's fields (plain or extended references, copies of the parent's fields).
async fn fill(db: &Database, plan: &Plan, parents: usize, children: usize, rng: &mut Lcg) {
    let mut stored: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    let mut order: Vec<&squillion_codegen::plan::Collection> = plan.collections.iter().collect();
    order.sort_by_key(|c| c.fields.iter().any(|f| f.kind == FieldKind::Ref));
    for c in order {
        let count = if c.fields.iter().any(|f| f.kind == FieldKind::Ref) {
            children
        } else {
            parents
        };
        let mut docs = Vec::new();
        for _ in 0..count {
            let mut d = Document::new();
            for f in &c.fields {
                let value = match f.kind {
                    FieldKind::Scalar if f.path == "_id" => Bson::ObjectId(ObjectId::new()),
                    FieldKind::Scalar => scalar(f, rng),
                    FieldKind::Ref => {
                        let target = f.source.clone().unwrap();
                        let pool = stored
                            .iter()
                            .find(|(name, _)| plan.collection(name).unwrap().entity == target)
                            .map(|(_, docs)| docs)
                            .unwrap();
                        let parent = &pool[rng.below(pool.len() as u64) as usize];
                        if f.children.is_empty() {
                            parent.get("_id").unwrap().clone()
                        } else {
                            let mut ext = Document::new();
                            for child in &f.children {
                                let v = match child.kind {
                                    FieldKind::Ref => parent.get("_id").unwrap().clone(),
                                    FieldKind::Denormalized => {
                                        let field = child.source.as_ref().unwrap();
                                        let (_, name) = field.split_once('.').unwrap();
                                        parent.get(name).unwrap().clone()
                                    }
                                    k => panic!("no filler for {k:?} in a reference"),
                                };
                                ext.insert(child.name.clone(), v);
                            }
                            Bson::Document(ext)
                        }
                    }
                    k => panic!("no filler for {k:?} ({})", f.path),
                };
                d.insert(f.name.clone(), value);
            }
            docs.push(d);
        }
        db.collection::<Document>(&c.name)
            .insert_many(docs.clone())
            .await
            .unwrap_or_else(|e| panic!("the old validator of {} refuses the filler: {e}", c.name));
        stored.insert(c.name.clone(), docs);
    }
}

/// The logical data of one document by the Plan: each stored field by its path of code names,
/// a reference by the id it holds (plain or inside an extended reference); copies, computed and
/// pattern fields are derived and left out.
fn logical(
    d: &Document,
    fields: &[PlanField],
    prefix: &str,
    keep: &BTreeSet<String>,
    out: &mut BTreeMap<String, String>,
) {
    for f in fields {
        let code = if prefix.is_empty() {
            f.code_name.clone()
        } else {
            format!("{prefix}.{}", f.code_name)
        };
        let Some(value) = d.get(&f.name) else {
            continue;
        };
        match f.kind {
            FieldKind::Denormalized | FieldKind::Computed | FieldKind::Pattern => {}
            FieldKind::Ref => {
                let id = match value {
                    Bson::Document(ext) => f
                        .children
                        .iter()
                        .find(|c| c.kind == FieldKind::Ref)
                        .and_then(|c| ext.get(&c.name))
                        .cloned()
                        .unwrap_or(Bson::Null),
                    plain => plain.clone(),
                };
                if keep.contains(&code) {
                    out.insert(code, format!("{id}"));
                }
            }
            _ if !f.children.is_empty() && f.array_depth == 0 => {
                if let Bson::Document(inner) = value {
                    logical(inner, &f.children, &code, keep, out);
                }
            }
            _ => {
                if keep.contains(&code) {
                    out.insert(code, format!("{value}"));
                }
            }
        }
    }
}

/// The code paths of the top-level and nested fields of a collection.
fn code_paths(fields: &[PlanField], prefix: &str, out: &mut BTreeSet<String>) {
    for f in fields {
        let code = if prefix.is_empty() {
            f.code_name.clone()
        } else {
            format!("{prefix}.{}", f.code_name)
        };
        code_paths(&f.children, &code, out);
        out.insert(code);
    }
}

/// Per entity: the number of documents and a checksum of their logical data, restricted to the
/// code paths both Plans store.
async fn logical_data(db: &Database, plan: &Plan, other: &Plan) -> BTreeMap<String, (usize, u64)> {
    let mut out = BTreeMap::new();
    for c in &plan.collections {
        let Some(o) = other.collections.iter().find(|o| o.entity == c.entity) else {
            continue;
        };
        let (mut mine, mut theirs) = (BTreeSet::new(), BTreeSet::new());
        code_paths(&c.fields, "", &mut mine);
        code_paths(&o.fields, "", &mut theirs);
        let keep: BTreeSet<String> = mine.intersection(&theirs).cloned().collect();
        let docs: Vec<Document> = db
            .collection::<Document>(&c.name)
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for d in &docs {
            let mut m = BTreeMap::new();
            logical(d, &c.fields, "", &keep, &mut m);
            for byte in format!("{m:?}").bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        out.insert(c.entity.clone(), (docs.len(), hash));
    }
    out
}

/// The whole database as text: every collection's documents, indexes and options, sorted.
async fn dump(db: &Database) -> String {
    let mut out = String::new();
    for name in collection_names(db).await {
        let docs: Vec<Document> = db
            .collection::<Document>(&name)
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let specs: Vec<mongodb::results::CollectionSpecification> = db
            .list_collections()
            .filter(doc! { "name": &name })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        out.push_str(&format!(
            "== {name}\n{:?}\n{:?}\n{docs:?}\n",
            specs.first().map(|s| format!("{:?}", s.options)),
            index_models(db, &name)
                .await
                .into_iter()
                .map(|(n, m)| (n, m.keys))
                .collect::<Vec<_>>()
        ));
    }
    out
}

/// `migrate OLD NEW --uri URI EXTRA...`.
async fn migrate(old: &Path, new: &Path, t: &TestDb, extra: &[&str]) -> Run {
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

/// Every document of every collection of the new Plan passes its validator: each one inserted
/// again into a scratch collection created with it.
async fn assert_new_validators_accept_everything(db: &Database, plan: &Plan) {
    for c in &plan.collections {
        let docs: Vec<Document> = db
            .collection::<Document>(&c.name)
            .find(doc! {})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let scratch = format!("check_{}", c.name);
        db.create_collection(&scratch)
            .validator(squillion_cli::sync::validator_document(c))
            .await
            .unwrap();
        for d in docs {
            db.collection::<Document>(&scratch)
                .insert_one(d.clone())
                .await
                .unwrap_or_else(|e| panic!("the new validator of {} refuses {d}: {e}", c.name));
        }
        db.collection::<Document>(&scratch).drop().await.unwrap();
    }
}

/// Every copy the new Plan keeps equals its source.
async fn assert_copies_equal_sources(db: &Database, plan: &Plan) {
    for copy in plan.relationships.iter().flat_map(|r| &r.denormalized) {
        let (entity, field) = copy.source.split_once('.').unwrap();
        let source = plan
            .collections
            .iter()
            .find(|c| c.entity == entity)
            .unwrap();
        let stored = source
            .fields
            .iter()
            .find(|f| f.code_name == field)
            .unwrap()
            .name
            .clone();
        let sources: BTreeMap<String, Bson> = db
            .collection::<Document>(&source.name)
            .find(doc! {})
            .await
            .unwrap()
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .into_iter()
            .map(|d| {
                (
                    d.get("_id").unwrap().to_string(),
                    d.get(&stored).unwrap().clone(),
                )
            })
            .collect();
        let holders: Vec<Document> = db
            .collection::<Document>(&copy.collection)
            .find(doc! {})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert!(!holders.is_empty());
        let at = |d: &Document, path: &str| -> Option<Bson> {
            let mut v = Bson::Document(d.clone());
            for s in path.split('.') {
                v = v.as_document()?.get(s)?.clone();
            }
            Some(v)
        };
        for h in &holders {
            let id = at(h, &copy.fan_out.match_path)
                .unwrap_or_else(|| panic!("no {} in {h}", copy.fan_out.match_path));
            assert_eq!(
                at(h, &copy.copy_path).as_ref(),
                sources.get(&id.to_string()),
                "copy {} of {} in {h}",
                copy.copy_path,
                copy.source
            );
        }
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One supported change, drawn with `seed`: fill, migrate (after a dry run and a mongosh
/// print that write nothing), check, migrate again.
async fn supported(change: Change, seed: u64) {
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
    fill(&t.db, &old_plan, parents, parents + 60, &mut rng).await;
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

    let run = migrate(&old, &new, &t, &[]).await;
    run.expect(0, &what);
    for line in dry.stdout.lines().filter_map(|l| l.strip_prefix("would ")) {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with(&format!("done: {line}"))),
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

    // A second run does nothing and says so.
    let after = dump(&t.db).await;
    let again = migrate(&old, &new, &t, &[]).await;
    again.expect(0, &what);
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
    t.cleanup().await;
}

#[tokio::test]
async fn every_supported_change_migrates_every_document() {
    for change in [
        Change::RenameStored,
        Change::RemoveField,
        Change::CopyOnPlainReference,
        Change::CopyBesideCopy,
        Change::IndexAdded,
        Change::IndexDropped,
        Change::BoundRaised,
    ] {
        for seed in 0..3 {
            supported(change, seed).await;
        }
    }
}

#[tokio::test]
async fn an_unsupported_change_is_refused_with_nothing_written() {
    let docs = std::fs::read_to_string(root().join("docs/migrations.md")).unwrap();
    assert!(
        docs.contains("| `M0001` |"),
        "docs/migrations.md documents M0001"
    );
    // Each kind, the words of its error and the number of changes refused: a layout flip is one
    // (its fields are not listed again); a natural key is the _id and the references to it.
    for (kind, expected, errors) in [
        (Refused::LayoutFlip, "relationship", 1),
        (Refused::TypeChange, "stored as", 1),
        (Refused::NewRequired, "is new and required", 1),
        (Refused::NaturalKey, "the _id of", 2),
    ] {
        for seed in 0..3 {
            let n = names(seed);
            let (old_text, new_text) = refused_pair(kind, &n);
            let what = format!("{kind:?} seed {seed}\n--- old\n{old_text}--- new\n{new_text}");
            let dir = tempfile::tempdir().unwrap();
            let (old, new) = (
                write(dir.path(), "old.sqn", &old_text),
                write(dir.path(), "new.sqn", &new_text),
            );
            let t = TestDb::new(&format!("mig_refused_{kind:?}_{seed}")).await;
            indexes(&old, &t, &["--apply"]).await.expect(0, &what);
            fill(&t.db, &plan_of(&old), 20, 50, &mut Lcg(seed)).await;
            let before = dump(&t.db).await;
            for extra in [&[][..], &["--print", "mongosh"][..], &["--dry-run"][..]] {
                let run = migrate(&old, &new, &t, extra).await;
                run.expect(1, &what);
                assert!(run.stdout.is_empty(), "{what}\n{}", run.stdout);
                assert!(
                    run.stderr.contains("error[M0001]: cannot migrate")
                        && run.stderr.contains(expected)
                        && run.stderr.contains("help: "),
                    "{what}\n{}",
                    run.stderr
                );
                assert_eq!(
                    run.stderr.matches("error[M0001]").count(),
                    errors,
                    "{what}: one error per change, its fields not listed again\n{}",
                    run.stderr
                );
                assert!(
                    run.stderr.contains("nothing was written"),
                    "{what}\n{}",
                    run.stderr
                );
            }
            assert_eq!(
                dump(&t.db).await,
                before,
                "{what}: a refused migration wrote something"
            );
            t.cleanup().await;
        }
    }
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
    for change in [
        Change::RenameStored,
        Change::RemoveField,
        Change::CopyOnPlainReference,
        Change::CopyBesideCopy,
        Change::IndexAdded,
        Change::IndexDropped,
        Change::BoundRaised,
    ] {
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
