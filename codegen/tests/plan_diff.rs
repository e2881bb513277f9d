//! Plan diffs (issue 15) over generated pairs: schemas drawn by `schemagen`, each mutated the
//! ways facts change in an application's life (a cardinality class, a copy shown or no longer, a
//! stored field renamed, an index or a query added, a ratio flipped, an entity's collection
//! renamed, a schema version raised). For every pair:
//!
//! - the diff of a plan with itself is empty;
//! - every relationship whose layout differs between the two plans is in the diff, with both
//!   layouts, and nothing else is listed as a decision change with the same layouts and placement;
//! - the diff of `b` against `a` is the mirror image of the diff of `a` against `b`;
//! - the JSON form reads back equal;
//! - the change the mutation made is found where it belongs (the fact, the renamed field, the
//!   new index, the query, the collection), and a stored-shape change without a raised version
//!   asks for one.

use squillion_codegen::diff::{self, FactChange, PlanDiff};
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;
use squillion_schemagen::{Card, Fact, FieldAttr, Pattern, Query, Schema};

thread_local! {
    /// The diff's JSON Schema, compiled once per test thread.
    static SCHEMA: jsonschema::Validator = jsonschema::validator_for(&PlanDiff::json_schema())
        .expect("the diff's schema is a valid JSON Schema");
}

fn plan_of(name: &str, text: &str) -> Option<Plan> {
    let source = SourceFile::new(name, text);
    let checked = squillion_codegen::load(&source).ok()?;
    Some(squillion_codegen::engine::plan(&checked.model, &source))
}

/// What a mutation changed, to be found in the diff.
#[derive(Debug, Clone)]
enum Expect {
    /// A cardinality fact of this relationship.
    Cardinality(String),
    /// Some fact of this relationship (a `show` added, removed or with another ratio).
    FactOf(String),
    /// A field stored under this new name, with the same code path as before.
    Renamed(String),
    /// An index created on this collection's field.
    IndexOn(String),
    /// A query.
    Query(String),
    /// The collection of this entity renamed to this name (when it has one of its own).
    CollectionRenamed(String, String),
    /// A schema version changed in this collection, without a shape change.
    Version(String),
}

fn next_card(c: Card) -> Card {
    match c {
        Card::One | Card::OptionalOne => Card::Few(None),
        Card::Few(_) => Card::Many(None, None),
        Card::Many(..) => Card::Squillions,
        Card::Squillions => Card::Few(Some(20)),
    }
}

/// Every single mutation of `s`, with what the diff must show. Some make invalid schemas (a
/// bound a fact contradicts); the caller skips those.
fn mutations(s: &Schema) -> Vec<(Schema, Expect)> {
    let mut out = Vec::new();
    for (i, r) in s.relations.iter().enumerate() {
        let id = format!("{}.{}", r.left.entity, r.left.field);
        let mut m = s.clone();
        m.relations[i].left.card = next_card(r.left.card);
        out.push((m, Expect::Cardinality(id.clone())));
        let mut m = s.clone();
        m.relations[i].right.card = next_card(r.right.card);
        out.push((m, Expect::Cardinality(id.clone())));
        for (j, f) in r.facts.iter().enumerate() {
            if let Fact::Show { ratio, .. } = f {
                let mut m = s.clone();
                m.relations[i].facts.remove(j);
                out.push((m, Expect::FactOf(id.clone())));
                let mut m = s.clone();
                if let Fact::Show { ratio: r2, .. } = &mut m.relations[i].facts[j] {
                    *r2 = Some(match ratio {
                        Some(r) if *r >= 10 => 1,
                        _ => 10_000,
                    });
                }
                out.push((m, Expect::FactOf(id.clone())));
            }
        }
        // A copy shown where none was: the left entity's `s` on the right entity.
        if !r.facts.iter().any(|f| matches!(f, Fact::Show { .. }))
            && r.left.entity != r.right.entity
        {
            let mut m = s.clone();
            m.relations[i].facts.push(Fact::Show {
                from: r.left.entity.clone(),
                fields: vec!["s".to_owned()],
                on: r.right.entity.clone(),
                ratio: Some(1000),
            });
            out.push((m, Expect::FactOf(id.clone())));
        }
    }
    for (i, e) in s.entities.iter().enumerate() {
        let mut m = s.clone();
        if let Some(f) = m.entities[i].fields.iter_mut().find(|f| f.name == "n") {
            if !f
                .attrs
                .iter()
                .any(|a| matches!(a, FieldAttr::Stored(_) | FieldAttr::Key))
            {
                f.attrs.push(FieldAttr::Stored("n_renamed".to_owned()));
                out.push((m, Expect::Renamed("n_renamed".to_owned())));
            }
        }
        let mut m = s.clone();
        if let Some(f) = m.entities[i].fields.iter_mut().find(|f| f.name == "at") {
            if !f
                .attrs
                .iter()
                .any(|a| matches!(a, FieldAttr::Index | FieldAttr::Key))
            {
                f.attrs.push(FieldAttr::Index);
                out.push((m, Expect::IndexOn("at".to_owned())));
            }
        }
        let mut m = s.clone();
        m.queries.push(Query {
            name: "diff_probe".to_owned(),
            on: e.name.clone(),
            conditions: vec![("s".to_owned(), "==".to_owned())],
            sort: Vec::new(),
            limit: Some(5),
            returns: Vec::new(),
        });
        out.push((m, Expect::Query("diff_probe".to_owned())));
        if e.collection.is_none() {
            let mut m = s.clone();
            m.entities[i].collection = Some(format!("renamed_{i}"));
            out.push((
                m,
                Expect::CollectionRenamed(e.name.clone(), format!("renamed_{i}")),
            ));
        }
        if let Pattern::SchemaVersion(v) = e.pattern {
            let mut m = s.clone();
            m.entities[i].pattern = Pattern::SchemaVersion(v + 1);
            out.push((m, Expect::Version(e.name.clone())));
        }
    }
    out
}

/// The properties every pair must hold.
fn check_pair(a: &Plan, b: &Plan, context: &str) -> PlanDiff {
    let d = diff::diff(a, b);
    let back = diff::diff(b, a);
    assert_eq!(
        back,
        d.mirror(),
        "diff(b, a) is not the mirror of diff(a, b): {context}"
    );
    let json = d.to_json();
    let read = PlanDiff::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(read, d, "the JSON form does not read back: {context}");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let errors: Vec<String> = SCHEMA.with(|v| {
        v.iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect()
    });
    assert!(
        errors.is_empty(),
        "the JSON does not fit docs/diff.schema.json: {errors:#?}: {context}"
    );
    for old in &a.relationships {
        let Some(new) = b.relationship(&old.id) else {
            assert!(
                d.decisions
                    .iter()
                    .any(|c| c.relation == old.id && c.new.is_none()),
                "`{}` went but the diff does not say so: {context}",
                old.id
            );
            continue;
        };
        let listed = d.decisions.iter().find(|c| c.relation == old.id);
        if old.strategy != new.strategy {
            let c = listed.unwrap_or_else(|| {
                panic!(
                    "`{}` flipped {} -> {} but the diff lacks it: {context}",
                    old.id,
                    old.strategy.as_str(),
                    new.strategy.as_str()
                )
            });
            let (o, n) = (c.old.as_ref().unwrap(), c.new.as_ref().unwrap());
            assert_eq!(o.layout, old.strategy.as_str(), "{context}");
            assert_eq!(n.layout, new.strategy.as_str(), "{context}");
            assert_eq!(o.because, old.because, "{context}");
            assert_eq!(n.because, new.because, "{context}");
        }
    }
    // Every collection whose stored fields changed shape has a version entry asking for a bump
    // unless the version was raised.
    for f in d.fields.iter().filter(|f| f.changes_stored_shape()) {
        let v = d
            .versions
            .iter()
            .find(|v| v.collection == f.collection)
            .unwrap_or_else(|| panic!("no version entry for {:?}: {context}", f.collection));
        assert!(v.shape_changed, "{context}");
        assert_eq!(
            v.must_bump,
            v.new.unwrap_or(0) <= v.old.unwrap_or(0),
            "{context}"
        );
    }
    d
}

fn found(d: &PlanDiff, expect: &Expect) -> bool {
    match expect {
        Expect::Cardinality(id) => d
            .facts
            .iter()
            .any(|f| matches!(f, FactChange::Cardinality { relation, .. } if relation == id)),
        Expect::FactOf(id) => d.facts.iter().any(|f| match f {
            FactChange::Stated { relation, .. } | FactChange::Cardinality { relation, .. } => {
                relation == id
            }
            _ => false,
        }),
        Expect::Renamed(name) => d.fields.iter().any(|f| {
            matches!((&f.old, &f.new), (Some(o), Some(n))
                if n.path.rsplit('.').next() == Some(name.as_str())
                    && o.path != n.path)
        }),
        Expect::IndexOn(field) => d.indexes.iter().any(|i| {
            i.old.is_none()
                && i.new.as_ref().is_some_and(|n| {
                    n.keys.iter().any(|k| {
                        let path = k.split(' ').next().unwrap_or("");
                        path.rsplit('.').next() == Some(field.as_str())
                    })
                })
        }),
        Expect::Query(name) => d.facts.iter().any(
            |f| matches!(f, FactChange::Query { name: n, old: None, new: Some(_) } if n == name),
        ),
        Expect::CollectionRenamed(_, name) => d
            .collections
            .iter()
            .any(|c| c.old.is_some() && c.new.as_ref().is_some_and(|n| &n.name == name)),
        Expect::Version(entity) => d
            .versions
            .iter()
            .any(|v| &v.collection.entity == entity && v.old != v.new),
    }
}

/// The layout lock (build.rs's `Builder::lock`) names a change wherever the diff finds the
/// stored layout changed (a layout flipped, a relationship or collection added or removed, a
/// stored shape changed), and none where the diff is empty.
fn lock_sees_the_stored_changes(a: &Plan, b: &Plan, d: &PlanDiff, context: &str) {
    use squillion_codegen::lock::{changes, SchemaLock};
    let locked = changes(
        &SchemaLock::of("s.sqn", b"", a),
        &SchemaLock::of("s.sqn", b"", b),
    );
    let flipped = d.decisions.iter().any(|c| match (&c.old, &c.new) {
        (Some(o), Some(n)) => o.layout != n.layout,
        _ => true,
    });
    let stored = flipped || !d.collections.is_empty() || d.versions.iter().any(|v| v.shape_changed);
    assert!(
        !stored || !locked.is_empty(),
        "the stored layout changed and the lock sees nothing: {context}\n{}",
        d.to_json()
    );
    assert!(
        locked.is_empty() || !d.is_empty(),
        "the lock sees {locked:?} where the diff is empty: {context}"
    );
}

#[test]
fn generated_pairs_hold_the_diff_properties() {
    let batch = squillion_schemagen::batch(0x15d1ff, 32, Default::default());
    let (mut pairs, mut flips, mut shape_changes) = (0usize, 0usize, 0usize);
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for (n, (_, schema)) in batch.iter().enumerate() {
        let text = squillion_schemagen::render(schema);
        let Some(a) = plan_of("a.sqn", &text) else {
            panic!("schemagen drew a schema that does not check:\n{text}");
        };
        let same = diff::diff(&a, &a);
        assert!(
            same.is_empty(),
            "diff(a, a) is not empty:\n{}\n{text}",
            same.to_json()
        );
        for (i, (mutated, expect)) in mutations(schema).into_iter().enumerate() {
            let mtext = squillion_schemagen::render(&mutated);
            let Some(b) = plan_of("b.sqn", &mtext) else {
                continue;
            };
            if b.has_errors() {
                continue;
            }
            let context =
                format!("schema {n}, mutation {i} ({expect:?}):\n--- a\n{text}--- b\n{mtext}");
            let d = check_pair(&a, &b, &context);
            lock_sees_the_stored_changes(&a, &b, &d, &context);
            // A `show` stated twice and removed once, or a ratio on an immutable copy, may leave
            // the decision's facts as they were: then there is nothing to find.
            let facts_differ = |id: &str| {
                let set = |p: &Plan| -> std::collections::BTreeSet<String> {
                    p.relationship(id)
                        .map(|d| d.facts.iter().cloned().collect())
                        .unwrap_or_default()
                };
                set(&a) != set(&b)
            };
            // An entity stored inside another's documents has no collection to rename.
            let own_collection = |entity: &str| {
                a.collections.iter().any(|c| {
                    c.entity == entity && c.role == squillion_codegen::plan::CollectionRole::Entity
                })
            };
            let applies = match &expect {
                Expect::FactOf(id) => facts_differ(id),
                Expect::CollectionRenamed(entity, _) | Expect::Version(entity) => {
                    own_collection(entity)
                }
                _ => true,
            };
            if applies {
                assert!(
                    found(&d, &expect),
                    "the mutation is not in the diff: {context}\n{}",
                    d.to_json()
                );
            }
            pairs += 1;
            flips += d
                .decisions
                .iter()
                .filter(|c| matches!((&c.old, &c.new), (Some(o), Some(n)) if o.layout != n.layout))
                .count();
            shape_changes += d.versions.iter().filter(|v| v.shape_changed).count();
            let kind = format!("{expect:?}");
            *kinds
                .entry(kind.split('(').next().unwrap_or("").to_owned())
                .or_default() += 1;
        }
    }
    eprintln!("{pairs} pairs, {flips} layout flips, {shape_changes} shape changes: {kinds:?}");
    // The batch must exercise what the properties are about, or they prove nothing.
    assert!(pairs >= 300, "only {pairs} valid pairs");
    assert!(flips >= 20, "only {flips} layout flips among {pairs} pairs");
    assert!(shape_changes >= 50, "only {shape_changes} shape changes");
    for kind in [
        "Cardinality",
        "FactOf",
        "Renamed",
        "IndexOn",
        "Query",
        "CollectionRenamed",
    ] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) >= 10,
            "mutation {kind} drawn {} times: {kinds:?}",
            kinds.get(kind).copied().unwrap_or(0)
        );
    }
}

#[test]
fn every_example_against_itself_is_empty_and_against_each_other_mirrors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut plans = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let plan = plan_of(&name, &text).unwrap();
        assert!(diff::diff(&plan, &plan).is_empty(), "{name}");
        plans.push(plan);
    }
    assert!(plans.len() >= 5);
    for a in &plans {
        for b in &plans {
            if a.source != b.source {
                let d = check_pair(a, b, &format!("{} -> {}", a.source, b.source));
                assert!(!d.is_empty());
            }
        }
    }
}

/// Seed 002's evolution: comments that were few become unbounded. The engine flips the layout
/// from `embed` to `child_ref`; the diff shows both layouts with the Plan's reasons, the new
/// collection, the array gone from the parent, the children moved (as many as the old plan
/// stored per parent), and asks for a schema version bump of the parent.
#[test]
fn few_to_squillions_flips_embed_to_child_ref() {
    let old = "entity Post @schema_version(1) { title: string }\n\
               entity Comment { text: string }\n\
               relation Post.comments: few(50) <-> Comment.post: one\n";
    let new = old.replace("few(50)", "squillions");
    let (a, b) = (
        plan_of("old.sqn", old).unwrap(),
        plan_of("new.sqn", &new).unwrap(),
    );
    let d = check_pair(&a, &b, "few -> squillions");
    let c = &d.decisions[0];
    let (o, n) = (c.old.as_ref().unwrap(), c.new.as_ref().unwrap());
    assert_eq!(
        (o.layout.as_str(), n.layout.as_str()),
        ("embed", "child_ref")
    );
    let old_children = a.relationships[0].cost.as_ref().unwrap().workload.children;
    assert_eq!(c.moved.documents, old_children.ceil() as u64);
    assert!(c.moved.bytes >= c.moved.documents * 10);
    assert!(d
        .collections
        .iter()
        .any(|c| c.old.is_none() && c.new.as_ref().is_some_and(|n| n.name == "comments")));
    assert!(d
        .fields
        .iter()
        .any(|f| f.code_path == "comments" && f.new.is_none()));
    let v = d
        .versions
        .iter()
        .find(|v| v.new_collection == "posts")
        .unwrap();
    assert!(v.shape_changed && v.must_bump);
    let text = diff::render::text(&d);
    assert!(text.contains("`embed` becomes `child_ref`"), "{text}");
    assert!(text.contains("raise it to 2"), "{text}");
    // Raising the version answers the bump.
    let bumped = new.replace("@schema_version(1)", "@schema_version(2)");
    let d = diff::diff(&a, &plan_of("new.sqn", &bumped).unwrap());
    let v = d
        .versions
        .iter()
        .find(|v| v.new_collection == "posts")
        .unwrap();
    assert!(v.shape_changed && !v.must_bump);
}

/// Moves among the many-to-many layouts (ids on one side, on both, a link per pair) move the
/// pairs' references, wherever the new layout keeps them: the diff says so, never "a reference in
/// each of" the partners (that is the one-to-many move to child references).
#[test]
fn many_to_many_moves_say_the_references_move() {
    let layouts = ["one_way", "two_way", "link_collection"];
    let schema = |force: &str| {
        format!(
            "entity Student {{ name: string }}\nentity Course {{ title: string }}\n\
             relation Student.courses: many(12) <-> Course.students: many(300) {{\n  navigate both\n  force {force}\n}}\n"
        )
    };
    let mut seen = 0;
    for from in layouts {
        for to in layouts {
            if from == to {
                continue;
            }
            let (a, b) = (
                plan_of("old.sqn", &schema(from)).unwrap(),
                plan_of("new.sqn", &schema(to)).unwrap(),
            );
            let text = diff::render::text(&diff::diff(&a, &b));
            assert!(
                text.contains(&format!("`{from}` (forced) becomes `{to}`")),
                "{text}"
            );
            assert!(
                !text.contains("a reference in each of"),
                "{from} -> {to}:\n{text}"
            );
            if text.contains("Data moved: the references to the Courses stored") {
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 6, "every move says what it moves");
}

/// The hostile schemas (names like keywords, doc comments and strings that break Markdown,
/// invisible characters) against each other and an empty schema: the text and Markdown show no
/// invisible character, and the Markdown's lines are list items, headings or the summary (nothing
/// from a name opens a block of its own).
#[test]
fn hostile_names_stay_visible_and_inline() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile/schemas");
    let mut plans = vec![plan_of("empty.sqn", "").unwrap()];
    for name in ["docs.sqn", "names.sqn", "strings.sqn"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        plans.push(plan_of(name, &text).unwrap());
    }
    for a in &plans {
        for b in &plans {
            let d = check_pair(a, b, &format!("{} -> {}", a.source, b.source));
            let text = diff::render::text(&d);
            let md = diff::render::markdown(&d, 2);
            for out in [&text, &md] {
                assert!(
                    !out.chars().any(squillion_grammar::is_invisible),
                    "{} -> {}: an invisible character is shown:\n{out}",
                    a.source,
                    b.source
                );
            }
            for line in md.lines().filter(|l| !l.is_empty()) {
                assert!(
                    line.starts_with("- ")
                        || line.starts_with("  - ")
                        || line.starts_with('#')
                        || line.starts_with("Changes from ")
                        || line.starts_with("No changes"),
                    "{} -> {}: a line of its own: {line}",
                    a.source,
                    b.source
                );
            }
        }
    }
}

/// `docs/diff.schema.json` is the JSON Schema of `squillion diff --format json`, kept in sync
/// with the types (every diff above validates against it).
#[test]
fn committed_schema_matches_the_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diff.schema.json");
    let generated = serde_json::to_string_pretty(&PlanDiff::json_schema()).unwrap() + "\n";
    if std::env::var_os("SQUILLION_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/diff.schema.json is out of date with the diff types; regenerate it with \
         `SQUILLION_BLESS=1 cargo test -p squillion-codegen --test plan_diff` and review the diff"
    );
}

/// The version a changed shape asks for is above both sides' (a lowered version is said as
/// such), and the largest version does not overflow.
#[test]
fn the_version_asked_for_is_above_both_sides() {
    let cases = [
        (1u64, 1u64, "stays 1: raise it to 2"),
        (3, 2, "goes from 3 to 2: raise it to 4"),
        (
            u64::from(u32::MAX),
            u64::from(u32::MAX),
            "raise it to 4294967296",
        ),
    ];
    for (old, new, said) in cases {
        let a = plan_of(
            "a.sqn",
            &format!("entity A @schema_version({old}) {{ x: string }}\n"),
        )
        .unwrap();
        let b = plan_of(
            "b.sqn",
            &format!("entity A @schema_version({new}) {{ x: string @stored(\"y\") }}\n"),
        )
        .unwrap();
        let d = check_pair(&a, &b, &format!("{old} -> {new}"));
        assert!(d.versions.iter().all(|v| v.must_bump));
        let text = diff::render::text(&d);
        assert!(text.contains(said), "{text}");
    }
}
