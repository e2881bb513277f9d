//! Two-way references whose copies travel with them, through the generated code
//! (`examples/generated/schemas/two_way.sqn`): for each placement of the copies (the array side,
//! the other side, both) in a one-to-many and a many-to-many relation, random sequences of links,
//! moves to another parent, unlinks and renames of a copied field, checked after every step
//! against a model of the links: both sides agree, every copy equals its source, no array passes
//! its bound, and `load_<f>` reads the documents the array names.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test two_way`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, Document};
use squillion::mongodb::Database;
use squillion::{BoundedVec, Error};
use squillion_examples_generated::two_way::*;
use squillion_testkit::TestDb;

/// Each relation of the schema, named by the side whose array `link_<f>` is called on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    /// One-to-many, copies on the array side (`Ward.nurses: [{id, name}]`).
    Ward,
    /// One-to-many, copies on the single side (`Doctor.clinic: {id, name}`).
    Clinic,
    /// One-to-many (optional), copies on both sides.
    Team,
    /// Many-to-many, copies on the first side (`Student.courses: [{id, title}]`).
    Student,
    /// Many-to-many, copies on the second side (`Journal.reviewers: [{id, name}]`).
    Reviewer,
    /// Many-to-many, copies on both sides.
    Member,
}

/// Where one side keeps its references, as stored.
#[derive(Debug, Clone, Copy)]
struct End {
    collection: &'static str,
    /// The field holding the reference(s) to the other side.
    path: &'static str,
    /// `Some(max)`: an array of references; `None`: a single reference.
    max: Option<usize>,
    /// The key of the id inside an extended reference; `None`: plain ids.
    key: Option<&'static str>,
    /// The copy inside each reference: its key, and the field of the other side it copies.
    copy: Option<(&'static str, &'static str)>,
    /// The field of this side's documents renamed by the test (the source of the other side's
    /// copies, when it has any).
    source: &'static str,
}

struct Relation {
    left: End,
    right: End,
    /// The single reference is required: no `unlink_`.
    required: bool,
}

const fn end(
    collection: &'static str,
    path: &'static str,
    max: Option<usize>,
    copy: Option<(&'static str, &'static str)>,
    source: &'static str,
) -> End {
    End {
        collection,
        path,
        max,
        key: match copy {
            Some(_) => Some("id"),
            None => None,
        },
        copy,
        source,
    }
}

fn relation(which: Which) -> Relation {
    let name = Some(("name", "name"));
    let title = Some(("title", "title"));
    let (left, right, required) = match which {
        Which::Ward => (
            end("wards", "nurses", Some(3), name, "name"),
            end("nurses", "ward", None, None, "name"),
            true,
        ),
        Which::Clinic => (
            end("clinics", "doctors", Some(3), None, "name"),
            end("doctors", "clinic", None, name, "name"),
            true,
        ),
        Which::Team => (
            end("teams", "players", Some(3), name, "name"),
            end("players", "team", None, name, "name"),
            false,
        ),
        Which::Student => (
            end("students", "courses", Some(2), title, "name"),
            end("courses", "students", Some(3), None, "title"),
            false,
        ),
        Which::Reviewer => (
            end("reviewers", "journals", Some(2), None, "name"),
            end("journals", "reviewers", Some(3), name, "title"),
            false,
        ),
        Which::Member => (
            end("members", "clubs", Some(2), title, "name"),
            end("clubs", "members", Some(3), name, "title"),
            false,
        ),
    };
    Relation {
        left,
        right,
        required,
    }
}

const LEFTS: usize = 3;
const RIGHTS: usize = 4;

#[derive(Debug, Clone)]
enum Step {
    Link(usize, usize),
    Unlink(usize, usize),
    RenameLeft(usize, u8),
    RenameRight(usize, u8),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        4 => (0..LEFTS, 0..RIGHTS).prop_map(|(l, r)| Step::Link(l, r)),
        2 => (0..LEFTS, 0..RIGHTS).prop_map(|(l, r)| Step::Unlink(l, r)),
        1 => (0..LEFTS, any::<u8>()).prop_map(|(l, n)| Step::RenameLeft(l, n)),
        1 => (0..RIGHTS, any::<u8>()).prop_map(|(r, n)| Step::RenameRight(r, n)),
    ];
    prop::collection::vec(step, 1..25)
}

/// The logical data: each document's renamed field and the links.
struct Model {
    lefts: Vec<String>,
    rights: Vec<String>,
    links: BTreeSet<(usize, usize)>,
}

impl Model {
    fn of_left(&self, l: usize) -> usize {
        self.links.iter().filter(|(x, _)| *x == l).count()
    }
    fn of_right(&self, r: usize) -> usize {
        self.links.iter().filter(|(_, y)| *y == r).count()
    }
}

struct Ids {
    lefts: Vec<ObjectId>,
    rights: Vec<ObjectId>,
}

/// Inserts the documents, every right of a required one-to-many linked to a left (a child needs
/// a parent), and returns the model of what was stored.
async fn setup(which: Which, db: &Database) -> (Ids, Model) {
    let ids = Ids {
        lefts: (0..LEFTS).map(|_| ObjectId::new()).collect(),
        rights: (0..RIGHTS).map(|_| ObjectId::new()).collect(),
    };
    let model = Model {
        lefts: (0..LEFTS).map(|i| format!("left {i}")).collect(),
        rights: (0..RIGHTS).map(|i| format!("right {i}")).collect(),
        links: BTreeSet::new(),
    };
    let (l, r) = (&ids.lefts, &ids.rights);
    let (ln, rn) = (&model.lefts, &model.rights);
    // The parent of right `j` when it needs one.
    let owner = |j: usize| j % LEFTS;
    macro_rules! insert {
        ($repo:ident, $($doc:expr),* $(,)?) => {{
            let repo = $repo::new(db);
            $( repo.insert(&$doc).await.unwrap(); )*
        }};
    }
    for i in 0..LEFTS {
        match which {
            Which::Ward => insert!(
                WardRepo,
                Ward {
                    id: l[i],
                    name: ln[i].clone(),
                    nurses: BoundedVec::new()
                }
            ),
            Which::Clinic => insert!(
                ClinicRepo,
                Clinic {
                    id: l[i],
                    name: ln[i].clone(),
                    doctors: BoundedVec::new()
                }
            ),
            Which::Team => insert!(
                TeamRepo,
                Team {
                    id: l[i],
                    name: ln[i].clone(),
                    players: BoundedVec::new()
                }
            ),
            Which::Student => insert!(
                StudentRepo,
                Student {
                    id: l[i],
                    name: ln[i].clone(),
                    courses: BoundedVec::new()
                }
            ),
            Which::Reviewer => insert!(
                ReviewerRepo,
                Reviewer {
                    id: l[i],
                    name: ln[i].clone(),
                    journals: BoundedVec::new()
                }
            ),
            Which::Member => insert!(
                MemberRepo,
                Member {
                    id: l[i],
                    name: ln[i].clone(),
                    clubs: BoundedVec::new()
                }
            ),
        }
    }
    for j in 0..RIGHTS {
        let o = owner(j);
        match which {
            Which::Ward => insert!(
                NurseRepo,
                Nurse {
                    id: r[j],
                    name: rn[j].clone(),
                    ward: l[o]
                }
            ),
            Which::Clinic => insert!(
                DoctorRepo,
                // The copy is taken from the clinic, whatever the caller puts there.
                Doctor {
                    id: r[j],
                    name: rn[j].clone(),
                    clinic: ClinicRef {
                        id: l[o],
                        name: "stale".into()
                    }
                }
            ),
            Which::Team => insert!(
                PlayerRepo,
                Player {
                    id: r[j],
                    name: rn[j].clone(),
                    team: None
                }
            ),
            Which::Student => insert!(
                CourseRepo,
                Course {
                    id: r[j],
                    title: rn[j].clone(),
                    students: BoundedVec::new()
                }
            ),
            Which::Reviewer => insert!(
                JournalRepo,
                Journal {
                    id: r[j],
                    title: rn[j].clone(),
                    reviewers: BoundedVec::new()
                }
            ),
            Which::Member => insert!(
                ClubRepo,
                Club {
                    id: r[j],
                    title: rn[j].clone(),
                    members: BoundedVec::new()
                }
            ),
        }
    }
    let mut model = model;
    if relation(which).required {
        for j in 0..RIGHTS {
            apply(which, db, &ids, &Step::Link(owner(j), j))
                .await
                .unwrap();
            model.links.insert((owner(j), j));
        }
    }
    (ids, model)
}

/// Runs `step` through the generated repositories.
async fn apply(which: Which, db: &Database, ids: &Ids, step: &Step) -> squillion::Result<()> {
    let name = |n: &u8| format!("name {n}");
    match (which, step) {
        (Which::Ward, Step::Link(l, r)) => {
            WardRepo::new(db)
                .link_nurses(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Clinic, Step::Link(l, r)) => {
            ClinicRepo::new(db)
                .link_doctors(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Team, Step::Link(l, r)) => {
            TeamRepo::new(db)
                .link_players(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Student, Step::Link(l, r)) => {
            StudentRepo::new(db)
                .link_courses(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Reviewer, Step::Link(l, r)) => {
            ReviewerRepo::new(db)
                .link_journals(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Member, Step::Link(l, r)) => {
            MemberRepo::new(db)
                .link_clubs(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        // A required reference cannot be taken away: no `unlink_` (moves are links elsewhere).
        (Which::Ward | Which::Clinic, Step::Unlink(..)) => Ok(()),
        (Which::Team, Step::Unlink(l, r)) => {
            TeamRepo::new(db)
                .unlink_players(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Student, Step::Unlink(l, r)) => {
            StudentRepo::new(db)
                .unlink_courses(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Reviewer, Step::Unlink(l, r)) => {
            ReviewerRepo::new(db)
                .unlink_journals(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Member, Step::Unlink(l, r)) => {
            MemberRepo::new(db)
                .unlink_clubs(&ids.lefts[*l], &ids.rights[*r])
                .await
        }
        (Which::Ward, Step::RenameLeft(l, n)) => WardRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Clinic, Step::RenameLeft(l, n)) => ClinicRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Team, Step::RenameLeft(l, n)) => TeamRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Student, Step::RenameLeft(l, n)) => StudentRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Reviewer, Step::RenameLeft(l, n)) => ReviewerRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Member, Step::RenameLeft(l, n)) => MemberRepo::new(db)
            .set_name(&ids.lefts[*l], &name(n))
            .await
            .map(|_| ()),
        (Which::Ward, Step::RenameRight(r, n)) => NurseRepo::new(db)
            .set_name(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
        (Which::Clinic, Step::RenameRight(r, n)) => DoctorRepo::new(db)
            .set_name(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
        (Which::Team, Step::RenameRight(r, n)) => PlayerRepo::new(db)
            .set_name(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
        (Which::Student, Step::RenameRight(r, n)) => CourseRepo::new(db)
            .set_title(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
        (Which::Reviewer, Step::RenameRight(r, n)) => JournalRepo::new(db)
            .set_title(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
        (Which::Member, Step::RenameRight(r, n)) => ClubRepo::new(db)
            .set_title(&ids.rights[*r], &name(n))
            .await
            .map(|_| ()),
    }
}

/// The ids `load_<f>` reads for left `l`, in the order of its array.
async fn loaded(which: Which, db: &Database, ids: &Ids, l: usize) -> Vec<ObjectId> {
    macro_rules! load {
        ($repo:ident, $load:ident) => {{
            let repo = $repo::new(db);
            let owner = repo
                .get(&ids.lefts[l])
                .await
                .unwrap()
                .expect("the left document");
            repo.$load(&owner)
                .await
                .unwrap()
                .into_iter()
                .map(|d| d.id)
                .collect()
        }};
    }
    match which {
        Which::Ward => load!(WardRepo, load_nurses),
        Which::Clinic => load!(ClinicRepo, load_doctors),
        Which::Team => load!(TeamRepo, load_players),
        Which::Student => load!(StudentRepo, load_courses),
        Which::Reviewer => load!(ReviewerRepo, load_journals),
        Which::Member => load!(MemberRepo, load_clubs),
    }
}

/// What the model expects of `step`: `Ok(())`, or `Err(())` for a bound the link would pass
/// (nothing changes then). Applies it to the model.
fn expect(which: Which, model: &mut Model, step: &Step) -> Result<(), ()> {
    let rel = relation(which);
    match *step {
        Step::Link(l, r) => {
            if model.links.contains(&(l, r)) {
                return Ok(());
            }
            let left_full = rel.left.max.is_some_and(|m| model.of_left(l) >= m);
            let right_full = rel.right.max.is_some_and(|m| model.of_right(r) >= m);
            if left_full || right_full {
                return Err(());
            }
            if rel.right.max.is_none() {
                model.links.retain(|(_, y)| *y != r);
            }
            model.links.insert((l, r));
        }
        Step::Unlink(l, r) => {
            if !rel.required {
                model.links.remove(&(l, r));
            }
        }
        Step::RenameLeft(l, n) => model.lefts[l] = format!("name {n}"),
        Step::RenameRight(r, n) => model.rights[r] = format!("name {n}"),
    }
    Ok(())
}

/// The references `end` holds in `d`: the id each names and its copy, if it has one.
fn references(end: &End, d: &Document) -> Vec<(ObjectId, Option<Bson>)> {
    let one = |v: &Bson| -> (ObjectId, Option<Bson>) {
        match (end.key, v) {
            (Some(k), Bson::Document(r)) => {
                let id = r
                    .get_object_id(k)
                    .unwrap_or_else(|e| panic!("{r}: no id at {k}: {e}"));
                (id, end.copy.and_then(|(c, _)| r.get(c).cloned()))
            }
            (None, Bson::ObjectId(id)) => (*id, None),
            (_, other) => panic!(
                "{}.{}: unexpected reference {other}",
                end.collection, end.path
            ),
        }
    };
    match (end.max, d.get(end.path)) {
        (_, None | Some(Bson::Null)) => Vec::new(),
        (Some(_), Some(Bson::Array(items))) => items.iter().map(one).collect(),
        (None, Some(v)) => vec![one(v)],
        (Some(_), Some(other)) => panic!("{}.{}: not an array: {other}", end.collection, end.path),
    }
}

async fn stored(db: &Database, coll: &str, ids: &[ObjectId]) -> Vec<Document> {
    let mut out = Vec::new();
    for id in ids {
        let d = db
            .collection::<Document>(coll)
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{coll} {id} is gone"));
        out.push(d);
    }
    out
}

/// Both sides agree with the model, every copy equals its source, no bound is passed.
async fn check(which: Which, db: &Database, ids: &Ids, model: &Model, after: &Step) {
    let rel = relation(which);
    let lefts = stored(db, rel.left.collection, &ids.lefts).await;
    let rights = stored(db, rel.right.collection, &ids.rights).await;
    let index = |all: &[ObjectId], id: ObjectId| {
        all.iter()
            .position(|x| *x == id)
            .unwrap_or_else(|| panic!("{id} names no document"))
    };
    let mut seen_left = BTreeSet::new();
    for (l, d) in lefts.iter().enumerate() {
        let refs = references(&rel.left, d);
        if let Some(m) = rel.left.max {
            assert!(refs.len() <= m, "after {after:?}: {d} holds more than {m}");
        }
        for (id, copy) in &refs {
            let r = index(&ids.rights, *id);
            assert!(
                seen_left.insert((l, r)),
                "after {after:?}: {d} names {id} twice"
            );
            if let Some((_, source)) = rel.left.copy {
                assert_eq!(
                    copy.as_ref(),
                    Some(&Bson::String(model.rights[r].clone())),
                    "after {after:?}: the copy of {source} in {d}"
                );
            }
        }
        let in_order: Vec<ObjectId> = refs.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            loaded(which, db, ids, l).await,
            in_order,
            "after {after:?}: load of {d}"
        );
    }
    let mut seen_right = BTreeSet::new();
    for (r, d) in rights.iter().enumerate() {
        let refs = references(&rel.right, d);
        if let Some(m) = rel.right.max {
            assert!(refs.len() <= m, "after {after:?}: {d} holds more than {m}");
        }
        for (id, copy) in &refs {
            let l = index(&ids.lefts, *id);
            assert!(
                seen_right.insert((l, r)),
                "after {after:?}: {d} names {id} twice"
            );
            if let Some((_, source)) = rel.right.copy {
                assert_eq!(
                    copy.as_ref(),
                    Some(&Bson::String(model.lefts[l].clone())),
                    "after {after:?}: the copy of {source} in {d}"
                );
            }
        }
        assert_eq!(
            d.get_str(rel.right.source).ok(),
            Some(model.rights[r].as_str())
        );
    }
    assert_eq!(seen_left, model.links, "after {after:?}: the left side");
    assert_eq!(seen_right, model.links, "after {after:?}: the right side");
    for (l, d) in lefts.iter().enumerate() {
        assert_eq!(
            d.get_str(rel.left.source).ok(),
            Some(model.lefts[l].as_str())
        );
    }
}

async fn run(which: Which, steps: &[Step]) {
    let t = TestDb::new(&format!("two_way_{which:?}")).await;
    assert!(
        t.supports_transactions().await,
        "two_way links need transactions: run against a replica set (scripts/with-server.sh)"
    );
    ensure_all(&t.db).await.unwrap();
    let (ids, mut model) = setup(which, &t.db).await;
    check(which, &t.db, &ids, &model, &Step::Link(0, 0)).await;
    for step in steps {
        let wanted = expect(which, &mut model, step);
        let got = apply(which, &t.db, &ids, step).await;
        match (wanted, got) {
            (Ok(()), Ok(())) => {}
            (Err(()), Err(Error::BoundExceeded { .. })) => {}
            (wanted, got) => panic!("{which:?} {step:?}: expected {wanted:?}, got {got:?}"),
        }
        check(which, &t.db, &ids, &model, step).await;
    }
    t.cleanup().await;
}

fn block_on(f: impl std::future::Future<Output = ()>) {
    tokio::runtime::Runtime::new().unwrap().block_on(f);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn one_to_many_with_copies_on_the_array_side(steps in steps()) {
        block_on(run(Which::Ward, &steps));
    }

    #[test]
    fn one_to_many_with_copies_on_the_single_side(steps in steps()) {
        block_on(run(Which::Clinic, &steps));
    }

    #[test]
    fn one_to_many_with_copies_on_both_sides(steps in steps()) {
        block_on(run(Which::Team, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_the_first_side(steps in steps()) {
        block_on(run(Which::Student, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_the_second_side(steps in steps()) {
        block_on(run(Which::Reviewer, &steps));
    }

    #[test]
    fn many_to_many_with_copies_on_both_sides(steps in steps()) {
        block_on(run(Which::Member, &steps));
    }
}

/// Moving a doctor to another clinic takes it out of the first clinic's array and writes the new
/// clinic's name in its reference, in one transaction; a full clinic refuses it and nothing
/// changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_rewrites_the_copy_and_a_full_parent_refuses_it() {
    let t = TestDb::new("two_way_move").await;
    ensure_all(&t.db).await.unwrap();
    let (ids, _) = setup(Which::Clinic, &t.db).await;
    let doctors = DoctorRepo::new(&t.db);
    let clinics = ClinicRepo::new(&t.db);
    // Rights 0 and 3 are with clinic 0, 1 with clinic 1, 2 with clinic 2.
    clinics
        .link_doctors(&ids.lefts[1], &ids.rights[0])
        .await
        .unwrap();
    let moved = doctors.get(&ids.rights[0]).await.unwrap().unwrap();
    assert_eq!(
        moved.clinic,
        ClinicRef {
            id: ids.lefts[1],
            name: "left 1".into()
        }
    );
    let first = clinics.get(&ids.lefts[0]).await.unwrap().unwrap();
    assert_eq!(first.doctors.as_slice(), &[ids.rights[3]]);
    clinics
        .link_doctors(&ids.lefts[1], &ids.rights[2])
        .await
        .unwrap();
    // Clinic 1 holds 3 doctors now: its bound.
    let refused = clinics.link_doctors(&ids.lefts[1], &ids.rights[3]).await;
    assert!(
        matches!(refused, Err(Error::BoundExceeded { .. })),
        "{refused:?}"
    );
    let stays = doctors.get(&ids.rights[3]).await.unwrap().unwrap();
    assert_eq!(stays.clinic.id, ids.lefts[0]);
    clinics.set_name(&ids.lefts[1], "renamed").await.unwrap();
    for j in [0, 1, 2] {
        let d = doctors.get(&ids.rights[j]).await.unwrap().unwrap();
        assert_eq!(d.clinic.name, "renamed");
    }
    t.cleanup().await;
}

/// Eight writers linking players to teams (moves included) and renaming both sides at once:
/// afterwards each player is in the one team it names, each team lists exactly the players
/// naming it, within its bound, and every copy holds its source's last name (a link writes both
/// documents it copies from, so a racing rename and link conflict and one retries).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_links_and_renames_leave_both_sides_in_agreement_with_current_copies() {
    let t = TestDb::new("two_way_race").await;
    ensure_all(&t.db).await.unwrap();
    let (ids, _) = setup(Which::Team, &t.db).await;
    let ids = std::sync::Arc::new(ids);
    let mut writers = Vec::new();
    for w in 0..8u64 {
        let (db, ids) = (t.db.clone(), ids.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = squillion_testkit::Lcg(w * 7919 + 1);
            for _ in 0..12 {
                let (l, r) = (
                    rng.below(LEFTS as u64) as usize,
                    rng.below(RIGHTS as u64) as usize,
                );
                let n = rng.below(200) as u8;
                let step = match rng.below(4) {
                    0 => Step::RenameLeft(l, n),
                    1 => Step::RenameRight(r, n),
                    _ => Step::Link(l, r),
                };
                match apply(Which::Team, &db, &ids, &step).await {
                    Ok(()) | Err(Error::BoundExceeded { .. }) => {}
                    Err(e) => panic!("{step:?}: {e:?}"),
                }
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let teams = stored(&t.db, "teams", &ids.lefts).await;
    let players = stored(&t.db, "players", &ids.rights).await;
    let rel = relation(Which::Team);
    let name = |d: &Document| d.get_str("name").unwrap().to_owned();
    let mut from_teams = BTreeSet::new();
    for (l, d) in teams.iter().enumerate() {
        let refs = references(&rel.left, d);
        assert!(refs.len() <= 3, "{d}");
        for (id, copy) in refs {
            let r = ids.rights.iter().position(|x| *x == id).unwrap();
            assert!(from_teams.insert((l, r)), "{d} names {id} twice");
            assert_eq!(copy, Some(Bson::String(name(&players[r]))), "{d}");
        }
    }
    let mut from_players = BTreeSet::new();
    for (r, d) in players.iter().enumerate() {
        for (id, copy) in references(&rel.right, d) {
            let l = ids.lefts.iter().position(|x| *x == id).unwrap();
            from_players.insert((l, r));
            assert_eq!(copy, Some(Bson::String(name(&teams[l]))), "{d}");
        }
    }
    assert_eq!(from_teams, from_players);
    t.cleanup().await;
}
