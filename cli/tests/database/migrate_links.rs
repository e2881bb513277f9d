//! `squillion migrate` of many-to-many layouts, against the server: every direction among
//! `one_way` (held by either side), `two_way` and `link_collection`, over drawn data sets (the
//! bounds of both sides, how many documents and pairs, the order pairs were linked in). The old
//! layout is filled as its code writes it (arrays in link order, as `$addToSet` leaves them;
//! links through the runtime's own `links::link`). After the migration:
//! - the set of pairs read from every store the new layout keeps (each side's arrays, the
//!   links) is the set written, with no duplicate id in an array and one link per pair;
//! - gathered arrays are in the order the runtime would have appended them where the old layout
//!   knows it (links: the order they were made in, by `_id`), else by the partner's `_id`; kept
//!   arrays are untouched; links hold `_id` (an ObjectId) and the two keys only;
//! - the new validators accept every document, indexes and collections are the new Plan's, a
//!   second run changes nothing, every step replayed without its checkpoint changes nothing,
//!   and a run killed at a drawn moment then resumed ends the same.
//!
//! Data the new layout cannot hold (an array over its new bound, an id or a link naming no
//! document, a two-way pair on one side only) stops the migration before any write (`M0002`,
//! dry run too); pairs with fields of their own are refused (`M0001`).

use super::migrate::{a_second_run_changes_nothing, killed_migration, migrate};
use super::migrate_data::{assert_new_validators_accept_everything, dump, write};
use super::*;
use squillion_testkit::Lcg;

/// A many-to-many layout of `Student.courses <-> Course.students`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// `one_way`, the students holding the courses' ids.
    OneWayStudent,
    /// `one_way`, the courses holding the students' ids.
    OneWayCourse,
    TwoWay,
    Link,
}

const ALL: [Layout; 4] = [
    Layout::OneWayStudent,
    Layout::OneWayCourse,
    Layout::TwoWay,
    Layout::Link,
];

impl Layout {
    fn body(self) -> &'static str {
        match self {
            Layout::OneWayStudent => "navigate Student\n  force one_way",
            Layout::OneWayCourse => "navigate Course\n  force one_way",
            Layout::TwoWay => "navigate both\n  force two_way",
            Layout::Link => "navigate both\n  force link_collection",
        }
    }
    fn student_array(self) -> bool {
        matches!(self, Layout::OneWayStudent | Layout::TwoWay)
    }
    fn course_array(self) -> bool {
        matches!(self, Layout::OneWayCourse | Layout::TwoWay)
    }
}

/// The schema: `s_max` courses per student, `c_max` students per course.
fn text(layout: Layout, s_max: u64, c_max: u64, fields: &str) -> String {
    format!(
        "entity Student {{ name: string }}\n\
         entity Course {{ title: string }}\n\
         relation Student.courses: many({s_max}) <-> Course.students: many({c_max}) {{\n  {}\n{fields}}}\n",
        layout.body()
    )
}

/// The pairs, in the order they were linked.
type Pairs = Vec<(ObjectId, ObjectId)>;

/// Fills `layout` with drawn students, courses and pairs (within both bounds), as its code
/// writes them; returns the pairs in link order.
async fn fill(
    db: &Database,
    layout: Layout,
    rng: &mut Lcg,
    n: (usize, usize),
    max: (u64, u64),
) -> Pairs {
    let students: Vec<ObjectId> = (0..n.0).map(|_| ObjectId::new()).collect();
    let courses: Vec<ObjectId> = (0..n.1).map(|_| ObjectId::new()).collect();
    let mut pairs = Pairs::new();
    let (mut per_s, mut per_c) = (BTreeMap::new(), BTreeMap::new());
    for _ in 0..(n.0 * max.0 as usize / 2) {
        let s = students[rng.below(n.0 as u64) as usize];
        let c = courses[rng.below(n.1 as u64) as usize];
        let (ns, nc) = (
            *per_s.get(&s).unwrap_or(&0u64),
            *per_c.get(&c).unwrap_or(&0u64),
        );
        if ns < max.0 && nc < max.1 && !pairs.contains(&(s, c)) {
            pairs.push((s, c));
            per_s.insert(s, ns + 1);
            per_c.insert(c, nc + 1);
        }
    }
    let of = |x: ObjectId, left: bool| -> Vec<ObjectId> {
        pairs
            .iter()
            .filter(|p| if left { p.0 == x } else { p.1 == x })
            .map(|p| if left { p.1 } else { p.0 })
            .collect()
    };
    let docs: Vec<Document> = students
        .iter()
        .map(|s| {
            let mut d = doc! { "_id": s, "name": format!("s{s}") };
            if layout.student_array() {
                d.insert("courses", of(*s, true));
            }
            d
        })
        .collect();
    db.collection::<Document>("students")
        .insert_many(docs)
        .await
        .unwrap();
    let docs: Vec<Document> = courses
        .iter()
        .map(|c| {
            let mut d = doc! { "_id": c, "title": format!("c{c}") };
            if layout.course_array() {
                d.insert("students", of(*c, false));
            }
            d
        })
        .collect();
    db.collection::<Document>("courses")
        .insert_many(docs)
        .await
        .unwrap();
    if layout == Layout::Link {
        let links = db.collection::<Document>("student_courses");
        for (s, c) in &pairs {
            let link = doc! { "_id": ObjectId::new(), "student": s, "course": c };
            squillion::__private::links::link(&links, "student", "course", link)
                .await
                .unwrap();
        }
    }
    pairs
}

/// Every document's array at `path` (absent: `None`).
async fn arrays(
    db: &Database,
    coll: &str,
    path: &str,
) -> BTreeMap<ObjectId, Option<Vec<ObjectId>>> {
    let docs: Vec<Document> = all_docs(db, coll).await;
    docs.iter()
        .map(|d| {
            let ids = d.get_array(path).ok().map(|a| {
                a.iter()
                    .map(|x| x.as_object_id().expect("an array of ids"))
                    .collect()
            });
            (d.get_object_id("_id").unwrap(), ids)
        })
        .collect()
}

/// The links as stored, in `_id` order: (student, course).
async fn links(db: &Database) -> Vec<(ObjectId, ObjectId)> {
    let docs: Vec<Document> = docs_by_id(db, "student_courses").await;
    docs.iter()
        .map(|d| {
            let keys: Vec<&str> = d.keys().map(String::as_str).collect();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, ["_id", "course", "student"], "a link holds {d}");
            assert!(d.get_object_id("_id").is_ok(), "a link's _id: {d}");
            (
                d.get_object_id("student").unwrap(),
                d.get_object_id("course").unwrap(),
            )
        })
        .collect()
}

/// The order a gathered array must have: the old layout's pairs of `x` (as `(x, partner)`,
/// ordered by the link's `_id` or the partner's `_id`).
fn expected_order(ordered: &[(ObjectId, ObjectId)], x: ObjectId) -> Vec<ObjectId> {
    ordered.iter().filter(|p| p.0 == x).map(|p| p.1).collect()
}

/// Every store the new layout keeps holds exactly `pairs`, arrays in the order the runtime
/// defines (`old_arrays`: the arrays before the move, kept ones unchanged; `old_links`: the
/// links before, in `_id` order).
async fn assert_pairs(
    db: &Database,
    layout: Layout,
    pairs: &BTreeSet<(ObjectId, ObjectId)>,
    old: (&Old, Layout),
    what: &str,
) {
    let (before, from) = old;
    for (on, coll, path) in [
        (layout.student_array(), "students", "courses"),
        (layout.course_array(), "courses", "students"),
    ] {
        if !on {
            continue;
        }
        let student_side = coll == "students";
        let flip = |(a, b): (ObjectId, ObjectId)| if student_side { (a, b) } else { (b, a) };
        let got = arrays(db, coll, path).await;
        let mut seen = BTreeSet::new();
        // The old layout's pairs of this side in the order a gather keeps.
        let ordered: Vec<(ObjectId, ObjectId)> = if from == Layout::Link {
            before.links.iter().map(|p| flip(*p)).collect()
        } else {
            let mut v: Vec<(ObjectId, ObjectId)> = pairs.iter().map(|p| flip(*p)).collect();
            v.sort_by_key(|p| (p.0, p.1));
            v
        };
        let kept = before.arrays.get(coll);
        for (id, ids) in &got {
            let ids = ids
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: {coll} {id} has no {path}"));
            let unique: BTreeSet<&ObjectId> = ids.iter().collect();
            assert_eq!(unique.len(), ids.len(), "{what}: {coll} {id}: duplicates");
            let want = match kept {
                Some(k) => k[id].clone().unwrap(),
                None => expected_order(&ordered, *id),
            };
            assert_eq!(*ids, want, "{what}: {coll}.{path} of {id}");
            seen.extend(ids.iter().map(|x| flip((*id, *x))));
        }
        assert_eq!(seen, *pairs, "{what}: pairs in {coll}.{path}");
    }
    if layout == Layout::Link {
        let l = links(db).await;
        let set: BTreeSet<(ObjectId, ObjectId)> = l.iter().copied().collect();
        assert_eq!(set.len(), l.len(), "{what}: two links of one pair");
        assert_eq!(set, *pairs, "{what}: pairs in the links");
    }
}

/// What the old layout stored, read before the move.
struct Old {
    arrays: BTreeMap<&'static str, BTreeMap<ObjectId, Option<Vec<ObjectId>>>>,
    links: Vec<(ObjectId, ObjectId)>,
}

async fn read_old(db: &Database, layout: Layout) -> Old {
    let mut arrays_ = BTreeMap::new();
    if layout.student_array() {
        arrays_.insert("students", arrays(db, "students", "courses").await);
    }
    if layout.course_array() {
        arrays_.insert("courses", arrays(db, "courses", "students").await);
    }
    let links = if layout == Layout::Link {
        links(db).await
    } else {
        Vec::new()
    };
    Old {
        arrays: arrays_,
        links,
    }
}

/// One direction with one seed (and, with `kill`, a first run killed after that many steps).
async fn one(from: Layout, to: Layout, seed: u64, kill: Option<(usize, u64)>) {
    let mut rng = Lcg(seed * 31 + 7);
    let s_max = [8, 12, 20][rng.below(3) as usize];
    let c_max = [30, 60, 2000][rng.below(3) as usize];
    let n = if seed == 0 {
        (2_500, 1_200)
    } else {
        (20 + rng.below(200) as usize, 10 + rng.below(80) as usize)
    };
    let dir = tempfile::tempdir().unwrap();
    let (old_text, new_text) = (text(from, s_max, c_max, ""), text(to, s_max, c_max, ""));
    let (old, new) = (
        write(dir.path(), "old.sqn", &old_text),
        write(dir.path(), "new.sqn", &new_text),
    );
    let new_plan = plan_of(&new);
    let what = format!(
        "{from:?} -> {to:?} seed {seed} kill {kill:?}\n--- old\n{old_text}--- new\n{new_text}"
    );
    let t = TestDb::new(&format!("mig_ln_{from:?}_{to:?}_{seed}")).await;
    indexes(&old, &t, &["--apply"]).await.expect(0, &what);
    let pairs = fill(&t.db, from, &mut rng, n, (s_max, c_max)).await;
    let set: BTreeSet<(ObjectId, ObjectId)> = pairs.iter().copied().collect();
    let before = read_old(&t.db, from).await;
    let untouched = dump(&t.db).await;
    let dry = migrate(&old, &new, &t, &["--dry-run"]).await;
    dry.expect(0, &what);
    let script = migrate(&old, &new, &t, &["--print", "mongosh"]).await;
    script.expect(0, &what);
    assert_eq!(
        dump(&t.db).await,
        untouched,
        "{what}: a dry run or a print wrote"
    );
    let steps: Vec<&str> = dry
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("would "))
        .collect();
    for s in &steps {
        assert!(
            script
                .stdout
                .contains(&format!("step({}", Value::String((*s).to_owned()))),
            "{what}: `{s}` not in the script"
        );
    }
    if let Some((k, ms)) = kill {
        killed_migration(&old, &new, &t, k % steps.len(), ms).await;
    }
    let started = Instant::now();
    // Seed 2: the mongosh script, run by mongosh (the checks are the same).
    if kill.is_none() && seed == 2 {
        super::mongosh::mongosh(&script.stdout, t.db.name())
            .await
            .expect(0, &what);
    } else {
        migrate(&old, &new, &t, &[]).await.expect(0, &what);
    }
    if seed == 0 && kill.is_none() {
        eprintln!(
            "{from:?} -> {to:?}: {} pairs ({} students, {} courses) in {:?}",
            pairs.len(),
            n.0,
            n.1,
            started.elapsed()
        );
    }
    let check = |stage: &'static str| {
        let (what, t, set, before, new_plan) = (&what, &t, &set, &before, &new_plan);
        async move {
            let what = format!("{what}\n({stage})");
            assert_pairs(&t.db, to, set, (before, from), &what).await;
            assert_new_validators_accept_everything(&t.db, new_plan).await;
            assert_matches_plan(&t.db, new_plan).await;
            let mut expected: BTreeSet<String> = new_plan
                .collections
                .iter()
                .map(|c| c.name.clone())
                .collect();
            expected.insert("squillion_migrations".to_owned());
            assert_eq!(
                collection_names(&t.db).await,
                expected,
                "{what}: collections"
            );
        }
    };
    check("migrated").await;
    a_second_run_changes_nothing(&old, &new, &t, &what).await;
    t.db.collection::<Document>("squillion_migrations")
        .delete_many(doc! {})
        .await
        .unwrap();
    migrate(&old, &new, &t, &[]).await.expect(0, &what);
    check("replayed without checkpoint").await;
    t.cleanup().await;
}

/// Every direction among the four layouts (12), three seeds each, the first with 2,500
/// students and 1,200 courses (several batches).
#[tokio::test]
async fn every_many_to_many_move_keeps_every_pair() {
    for from in ALL {
        for to in ALL.into_iter().filter(|t| *t != from) {
            for seed in 0..3 {
                one(from, to, seed, None).await;
            }
        }
    }
}

/// Every direction killed at a drawn step (and a drawn moment inside it), then resumed.
#[tokio::test]
async fn a_killed_many_to_many_move_resumes() {
    let mut rng = Lcg(99);
    for from in ALL {
        for to in ALL.into_iter().filter(|t| *t != from) {
            let k = 1 + rng.below(8) as usize;
            one(from, to, 3 + rng.below(5), Some((k, rng.below(20)))).await;
        }
    }
}

/// Bad data is refused before anything is written, in a dry run too: `(from, to, how the data
/// is spoiled, what the error names)`.
#[tokio::test]
async fn data_that_does_not_fit_is_refused_before_any_write() {
    let cases: [(Layout, Layout, &str); 6] = [
        (
            Layout::OneWayStudent,
            Layout::Link,
            "name no document of courses",
        ),
        (
            Layout::OneWayStudent,
            Layout::OneWayCourse,
            "name no document of courses",
        ),
        (Layout::TwoWay, Layout::Link, "do not list it back"),
        (Layout::TwoWay, Layout::OneWayStudent, "do not list it back"),
        (
            Layout::Link,
            Layout::OneWayStudent,
            "refers by course to no parent",
        ),
        (
            Layout::Link,
            Layout::OneWayStudent,
            "over the new layout's bound of 8",
        ),
    ];
    for (i, (from, to, said)) in cases.into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let (old_text, new_text) = (text(from, 8, 60, ""), text(to, 8, 60, ""));
        let (old, new) = (
            write(dir.path(), "old.sqn", &old_text),
            write(dir.path(), "new.sqn", &new_text),
        );
        let what = format!("{from:?} -> {to:?}: {said}");
        let t = TestDb::new(&format!("mig_ln_bad_{i}")).await;
        indexes(&old, &t, &["--apply"]).await.expect(0, &what);
        let mut rng = Lcg(i as u64 + 5);
        let pairs = fill(&t.db, from, &mut rng, (30, 20), (8, 60)).await;
        let (s, c) = pairs[0];
        let (students, courses, ln) = (
            t.db.collection::<Document>("students"),
            t.db.collection::<Document>("courses"),
            t.db.collection::<Document>("student_courses"),
        );
        match i {
            0 | 1 => {
                students
                    .update_one(
                        doc! { "_id": s },
                        doc! { "$push": { "courses": ObjectId::new() } },
                    )
                    .await
                    .unwrap();
            }
            2 | 3 => {
                courses
                    .update_one(doc! { "_id": c }, doc! { "$pull": { "students": s } })
                    .await
                    .unwrap();
            }
            4 => {
                ln.insert_one(
                    doc! { "_id": ObjectId::new(), "student": s, "course": ObjectId::new() },
                )
                .await
                .unwrap();
            }
            _ => {
                let many: Vec<Document> = (0..9)
                    .map(|_| doc! { "_id": ObjectId::new(), "student": s, "course": ObjectId::new() })
                    .collect();
                // Courses that exist, so that only the bound offends.
                for d in &many {
                    courses
                        .insert_one(
                            doc! { "_id": d.get_object_id("course").unwrap(), "title": "x" },
                        )
                        .await
                        .unwrap();
                }
                ln.insert_many(many).await.unwrap();
            }
        }
        let untouched = dump(&t.db).await;
        for extra in [&["--dry-run"][..], &[][..]] {
            let run = migrate(&old, &new, &t, extra).await;
            run.expect(1, &what);
            assert!(
                run.stderr.contains("error[M0002]"),
                "{what}\n{}",
                run.stderr
            );
            assert!(run.stderr.contains(said), "{what}\n{}", run.stderr);
            assert!(run.stderr.contains("help: "), "{what}\n{}", run.stderr);
            assert_eq!(dump(&t.db).await, untouched, "{what}: written ({extra:?})");
        }
        t.cleanup().await;
    }
}

/// Pairs with fields of their own, and links between documents of one entity, are refused
/// whole (`M0001` naming why), nothing written.
#[tokio::test]
async fn pairs_these_moves_cannot_carry_are_refused() {
    let fields = "  fields { role: string }\n";
    let self_link = |body: &str| {
        format!("entity Person {{ name: string }}\nrelation Person.follows: many(10) <-> Person.followers: many(10) {{\n  navigate both\n  {body}\n}}\n")
    };
    let cases = [
        (
            text(Layout::Link, 8, 60, fields),
            text(Layout::TwoWay, 8, 60, fields),
            "own fields",
        ),
        (
            text(Layout::OneWayStudent, 8, 60, fields),
            text(Layout::Link, 8, 60, fields),
            "own fields",
        ),
        (
            self_link("force link_collection"),
            self_link("force two_way"),
            "same entity",
        ),
    ];
    for (i, (old_text, new_text, said)) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (
            write(dir.path(), "old.sqn", old_text),
            write(dir.path(), "new.sqn", new_text),
        );
        let what = format!("{said}\n--- old\n{old_text}--- new\n{new_text}");
        let t = TestDb::new(&format!("mig_ln_refused_{i}")).await;
        indexes(&old, &t, &["--apply"]).await.expect(0, &what);
        let untouched = dump(&t.db).await;
        let run = migrate(&old, &new, &t, &[]).await;
        run.expect(1, &what);
        assert!(
            run.stderr.contains("error[M0001]"),
            "{what}\n{}",
            run.stderr
        );
        assert!(run.stderr.contains(said), "{what}\n{}", run.stderr);
        assert!(run.stderr.contains("help: "), "{what}\n{}", run.stderr);
        assert_eq!(dump(&t.db).await, untouched, "{what}: written");
        t.cleanup().await;
    }
}
