//! The schema `examples/generated/schemas/two_way.sqn` as the server test `two_way.rs` drives
//! it: each relation's sides as stored, its documents, and each step run through the generated
//! repositories.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::mongodb::Database;
use squillion::BoundedVec;
use squillion_examples_generated::two_way::*;

/// Each relation of the schema, named by the side whose array `link_<f>` is called on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
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
pub struct End {
    pub collection: &'static str,
    /// The field holding the reference(s) to the other side.
    pub path: &'static str,
    /// `Some(max)`: an array of references; `None`: a single reference.
    pub max: Option<usize>,
    /// The key of the id inside an extended reference; `None`: plain ids.
    pub key: Option<&'static str>,
    /// The copy inside each reference: its key, and the field of the other side it copies.
    pub copy: Option<(&'static str, &'static str)>,
    /// The field of this side's documents renamed by the test (the source of the other side's
    /// copies, when it has any).
    pub source: &'static str,
}

pub struct Relation {
    pub left: End,
    pub right: End,
    /// The single reference is required: no `unlink_`.
    pub required: bool,
}

pub const fn end(
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

pub fn relation(which: Which) -> Relation {
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

pub const LEFTS: usize = 3;
pub const RIGHTS: usize = 4;

#[derive(Debug, Clone)]
pub enum Step {
    Link(usize, usize),
    Unlink(usize, usize),
    RenameLeft(usize, u8),
    RenameRight(usize, u8),
}

pub fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        4 => (0..LEFTS, 0..RIGHTS).prop_map(|(l, r)| Step::Link(l, r)),
        2 => (0..LEFTS, 0..RIGHTS).prop_map(|(l, r)| Step::Unlink(l, r)),
        1 => (0..LEFTS, any::<u8>()).prop_map(|(l, n)| Step::RenameLeft(l, n)),
        1 => (0..RIGHTS, any::<u8>()).prop_map(|(r, n)| Step::RenameRight(r, n)),
    ];
    prop::collection::vec(step, 1..25)
}

/// The logical data: each document's renamed field and the links.
pub struct Model {
    pub lefts: Vec<String>,
    pub rights: Vec<String>,
    pub links: BTreeSet<(usize, usize)>,
}

impl Model {
    pub fn of_left(&self, l: usize) -> usize {
        self.links.iter().filter(|(x, _)| *x == l).count()
    }
    pub fn of_right(&self, r: usize) -> usize {
        self.links.iter().filter(|(_, y)| *y == r).count()
    }
}

pub struct Ids {
    pub lefts: Vec<ObjectId>,
    pub rights: Vec<ObjectId>,
}

/// Inserts the documents, every right of a required one-to-many linked to a left (a child needs
/// a parent), and returns the model of what was stored.
pub async fn setup(which: Which, db: &Database) -> (Ids, Model) {
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
pub async fn apply(which: Which, db: &Database, ids: &Ids, step: &Step) -> squillion::Result<()> {
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
pub async fn loaded(which: Which, db: &Database, ids: &Ids, l: usize) -> Vec<ObjectId> {
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
