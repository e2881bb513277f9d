//! A many-to-many (seed 003's books and authors, seed 004's two-way referencing):
//! `Student.courses`, `many(12)` against `Course.students`, `many(2000)`, `navigate both`: the
//! sides are unbalanced, so the engine keeps the ids on the student only (one_way). 300
//! students of 6 courses among 100; the hot read is a student's courses, the write an enrolment
//! (two documents that exist linked).

use squillion::__private::bson::{doc, oid::ObjectId};
use squillion::__private::mongodb::{Client, Database};
use squillion::{BoundedVec, PageRequest};

use crate::common::{h, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, enroll_chosen, enroll_link, enroll_two_way};

const STUDENTS: usize = 300;
const COURSES: usize = 100;
const PER_STUDENT: usize = 6;

/// The courses student `s` is seeded with.
fn seeded(s: usize) -> Vec<usize> {
    (0..PER_STUDENT)
        .map(|k| (s * 7 + k * 13) % COURSES)
        .collect()
}

/// A course student `s` is not seeded with, for enrolment `i`.
fn new_course(s: usize, i: usize) -> usize {
    let taken = seeded(s);
    let mut c = h(i, 41) % COURSES;
    while taken.contains(&c) {
        c = (c + 1) % COURSES;
    }
    c
}

macro_rules! course {
    ($m:ident, $id:expr, $c:expr $(, $f:ident: $v:expr)*) => {
        $m::Course {
            id: $id,
            title: format!("Introduction to databases, part {}", $c),
            code: format!("DB{:04}", $c),
            description: "Relational and document models, indexes, transactions and the trade-offs between them. ".repeat(2),
            $($f: $v,)*
        }
    };
}

macro_rules! student {
    ($m:ident, $id:expr, $s:expr $(, $f:ident: $v:expr)*) => {
        $m::Student {
            id: $id,
            name: format!("Student {}", $s),
            email: format!("student{}@example.edu", $s),
            $($f: $v,)*
        }
    };
}

struct Ids {
    students: Vec<ObjectId>,
    courses: Vec<ObjectId>,
}

impl Ids {
    fn new() -> Ids {
        Ids {
            students: (0..STUDENTS).map(|_| ObjectId::new()).collect(),
            courses: (0..COURSES).map(|_| ObjectId::new()).collect(),
        }
    }
    fn copy(&self) -> Ids {
        Ids {
            students: self.students.clone(),
            courses: self.courses.clone(),
        }
    }
    fn of(&self, s: usize) -> Vec<ObjectId> {
        seeded(s).into_iter().map(|c| self.courses[c]).collect()
    }
}

fn student_of(i: usize) -> usize {
    h(i, 42) % STUDENTS
}

struct Chosen {
    ids: Ids,
    students: enroll_chosen::StudentRepo,
    courses: enroll_chosen::CourseRepo,
}

impl Variant for Chosen {
    fn name(&self) -> &'static str {
        "one_way (chosen)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/enroll_chosen.sqn")
    }
    async fn seed(&self) {
        self.students.ensure_indexes().await.unwrap();
        let ss: Vec<_> = (0..STUDENTS)
            .map(|s| student!(enroll_chosen, self.ids.students[s], s, courses: BoundedVec::try_from(self.ids.of(s)).unwrap()))
            .collect();
        let cs: Vec<_> = (0..COURSES)
            .map(|c| course!(enroll_chosen, self.ids.courses[c], c))
            .collect();
        self.students.insert_many(&ss).await.unwrap();
        self.courses.insert_many(&cs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let s = student_of(i);
        if op == Op::Write {
            let c = self.ids.courses[new_course(s, i)];
            self.students
                .add_courses(&self.ids.students[s], &c)
                .await
                .unwrap();
            return 0;
        }
        let st = self
            .students
            .get(&self.ids.students[s])
            .await
            .unwrap()
            .unwrap();
        self.students.load_courses(&st).await.unwrap().len()
    }
}

struct TwoWay {
    ids: Ids,
    students: enroll_two_way::StudentRepo,
    courses: enroll_two_way::CourseRepo,
}

impl Variant for TwoWay {
    fn name(&self) -> &'static str {
        "two_way (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/enroll_two_way.sqn")
    }
    async fn seed(&self) {
        let mut of_course: Vec<Vec<ObjectId>> = vec![Vec::new(); COURSES];
        for s in 0..STUDENTS {
            for c in seeded(s) {
                of_course[c].push(self.ids.students[s]);
            }
        }
        let ss: Vec<_> = (0..STUDENTS)
            .map(|s| student!(enroll_two_way, self.ids.students[s], s, courses: BoundedVec::try_from(self.ids.of(s)).unwrap()))
            .collect();
        let cs: Vec<_> = (0..COURSES)
            .map(|c| course!(enroll_two_way, self.ids.courses[c], c, students: BoundedVec::try_from(of_course[c].clone()).unwrap()))
            .collect();
        self.students.insert_many(&ss).await.unwrap();
        self.courses.insert_many(&cs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let s = student_of(i);
        if op == Op::Write {
            let c = self.ids.courses[new_course(s, i)];
            self.students
                .link_courses(&self.ids.students[s], &c)
                .await
                .unwrap();
            return 0;
        }
        // The student, then its courses with `$in` (two_way generates no loader).
        let st = self
            .students
            .get(&self.ids.students[s])
            .await
            .unwrap()
            .unwrap();
        let ids: Vec<ObjectId> = st.courses.iter().copied().collect();
        self.courses
            .find(doc! { "_id": { "$in": ids } })
            .await
            .unwrap()
            .len()
    }
}

struct Link {
    ids: Ids,
    students: enroll_link::StudentRepo,
    courses: enroll_link::CourseRepo,
    links: enroll_link::StudentCoursesLinkRepo,
}

impl Variant for Link {
    fn name(&self) -> &'static str {
        "link_collection (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/enroll_link.sqn")
    }
    async fn seed(&self) {
        self.links.ensure_indexes().await.unwrap();
        let ss: Vec<_> = (0..STUDENTS)
            .map(|s| student!(enroll_link, self.ids.students[s], s))
            .collect();
        let cs: Vec<_> = (0..COURSES)
            .map(|c| course!(enroll_link, self.ids.courses[c], c))
            .collect();
        let ls: Vec<_> = (0..STUDENTS)
            .flat_map(|s| self.ids.of(s).into_iter().map(move |c| (s, c)))
            .map(|(s, c)| enroll_link::StudentCoursesLink {
                id: ObjectId::new(),
                student: self.ids.students[s],
                course: c,
            })
            .collect();
        self.students.insert_many(&ss).await.unwrap();
        self.courses.insert_many(&cs).await.unwrap();
        self.links.insert_many(&ls).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let s = student_of(i);
        if op == Op::Write {
            let l = enroll_link::StudentCoursesLink {
                id: ObjectId::new(),
                student: self.ids.students[s],
                course: self.ids.courses[new_course(s, i)],
            };
            self.links.link(&l).await.unwrap();
            return 0;
        }
        // The links of the student, then the courses with `$in`.
        self.links
            .courses_of_student(&self.ids.students[s], PageRequest::first(12))
            .await
            .unwrap()
            .items
            .len()
    }
}

pub async fn run(client: &Client, ops: usize, rounds: usize, dbs: &mut Vec<Database>) -> Outcome {
    let ids = Ids::new();
    let d: Vec<Database> = (0..3).map(|k| db(client, &format!("enroll{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = Chosen {
        ids: ids.copy(),
        students: enroll_chosen::StudentRepo::new(&d[0]),
        courses: enroll_chosen::CourseRepo::new(&d[0]),
    };
    let two_way = TwoWay {
        ids: ids.copy(),
        students: enroll_two_way::StudentRepo::new(&d[1]),
        courses: enroll_two_way::CourseRepo::new(&d[1]),
    };
    let link = Link {
        ids: ids.copy(),
        students: enroll_link::StudentRepo::new(&d[2]),
        courses: enroll_link::CourseRepo::new(&d[2]),
        links: enroll_link::StudentCoursesLinkRepo::new(&d[2]),
    };
    // The Plan's workload: no rates declared, one read of a student's courses and 0.1
    // enrolments per read.
    let w = workload(chosen.schema(), "Student.courses");
    let mix = Mix::new(&[(Op::Hot, w.list_reads), (Op::Write, w.appends)]);
    let rows = crate::drive!(&mix, ops, rounds; chosen, two_way, link);
    Outcome {
        schema: rows[0].schema.clone(),
        title: "Enrolments (many-to-many): Student.courses against Course.students, read both ways"
            .into(),
        relation: "Student.courses",
        mix: mix.describe(&|op| {
            if op == Op::Hot {
                "a student's courses read"
            } else {
                "enrolment"
            }
        }),
        rows,
    }
}
