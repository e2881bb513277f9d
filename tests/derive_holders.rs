//! The other direction of an array of ids against the real server: `parent_refs(.., find_by)`
//! lists the documents whose array holds an id (`find_by_<f>`, in `_id` order, by keyset pages)
//! and counts them (`count_by_<f>`). The engine writes it where the Plan indexes the array for
//! that direction: a one-way many-to-many read from both sides (students hold their courses, a
//! course's students are found through the students' multikey index), or a parent_refs
//! relationship read from the child.
//!
//! Random memberships (students added to and removed from courses through the repository) are
//! compared with a reference model: every course's holders, joined over pages of random sizes,
//! are exactly the students whose array holds it, in `_id` order, each once, and the count
//! agrees; a course nobody holds has no holder.

mod derive_support;

use std::collections::BTreeMap;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::oid::ObjectId;
use squillion::{BoundedVec, Document, PageCursor};
use squillion_testkit::Lcg;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "courses")]
pub struct Course {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "students")]
pub struct Student {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(parent_refs(to = Course, max = 6, find_by))]
    pub courses: BoundedVec<ObjectId, 6>,
}

/// Every holder of `course`, page after page of `per_page`.
async fn holders(repo: &StudentRepo, course: &ObjectId, per_page: u32) -> Vec<ObjectId> {
    let (mut all, mut after): (Vec<ObjectId>, Option<PageCursor>) = (Vec::new(), None);
    loop {
        let page = repo
            .find_by_courses(course, after.as_ref(), per_page)
            .await
            .unwrap();
        assert!(
            page.items.len() <= per_page as usize,
            "a page holds at most per_page"
        );
        all.extend(page.items.iter().map(|s| s.id));
        match page.next {
            Some(next) => after = Some(next),
            None => return all,
        }
    }
}

#[tokio::test]
async fn the_holders_of_an_id_are_listed_by_the_array_index() {
    let db = database("holders").await;
    let (courses, students) = (CourseRepo::new(&db), StudentRepo::new(&db));
    students.ensure_indexes().await.unwrap();
    let keys: Vec<Vec<&str>> = <Student as Document>::INDEXES
        .iter()
        .map(|i| i.keys.iter().map(|(k, _)| *k).collect())
        .collect();
    assert!(
        keys.contains(&vec!["courses", "_id"]),
        "find_by_courses pages on {{courses: 1, _id: 1}}: {keys:?}"
    );
    let all_courses: Vec<Course> = (0..10)
        .map(|i| Course {
            id: ObjectId::new(),
            title: format!("c{i}"),
        })
        .collect();
    courses.insert_many(&all_courses).await.unwrap();
    let mut rng = Lcg(11);
    // The model: each student's courses.
    let mut model: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
    for i in 0..60 {
        let s = Student {
            id: ObjectId::new(),
            name: format!("s{i}"),
            courses: BoundedVec::new(),
        };
        students.insert(&s).await.unwrap();
        model.insert(s.id, Vec::new());
    }
    let ids: Vec<ObjectId> = model.keys().copied().collect();
    for _ in 0..400 {
        let s = ids[rng.below(ids.len() as u64) as usize];
        // The first nine courses only: the tenth is never held.
        let c = all_courses[rng.below(9) as usize].id;
        let held = model.get_mut(&s).unwrap();
        if rng.below(4) == 0 {
            let removed = students.remove_courses(&s, &c).await.unwrap();
            assert_eq!(removed, held.contains(&c));
            held.retain(|x| *x != c);
        } else if held.contains(&c) || held.len() < 6 {
            let added = students.add_courses(&s, &c).await.unwrap();
            assert_eq!(added, !held.contains(&c));
            if !held.contains(&c) {
                held.push(c);
            }
        }
    }
    for course in &all_courses {
        let want: Vec<ObjectId> = model
            .iter()
            .filter(|(_, cs)| cs.contains(&course.id))
            .map(|(s, _)| *s)
            .collect();
        let per_page = 1 + rng.below(12) as u32;
        assert_eq!(
            holders(&students, &course.id, per_page).await,
            want,
            "{}'s students, pages of {per_page}",
            course.title
        );
        assert_eq!(
            students.count_by_courses(&course.id).await.unwrap(),
            want.len() as u64
        );
    }
    assert!(holders(&students, &all_courses[9].id, 5).await.is_empty());
}

/// One enrolment: the course's id and fields of the relationship itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Enrolment {
    pub id: ObjectId,
    pub since: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "enrolled")]
pub struct Enrolled {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(embed(max = 5, unique("id"), find_by(to = Course, id = "id")))]
    pub courses: BoundedVec<Enrolment, 5>,
}

/// `embed(.., find_by(to = Course, id = "id"))`: an array of references with fields of their
/// own (a one-way many-to-many with fields) lists the documents holding an element that
/// references a course, by pages over its multikey index, as `parent_refs(.., find_by)` does for
/// bare ids; checked against a model over random pushes and removals.
#[tokio::test]
async fn the_holders_of_a_reference_with_fields_are_listed_by_its_index() {
    let db = database("holders_lines").await;
    let (courses, repo) = (CourseRepo::new(&db), EnrolledRepo::new(&db));
    repo.ensure_indexes().await.unwrap();
    let keys: Vec<Vec<&str>> = <Enrolled as Document>::INDEXES
        .iter()
        .map(|i| i.keys.iter().map(|(k, _)| *k).collect())
        .collect();
    assert!(
        keys.contains(&vec!["courses.id", "_id"]),
        "find_by_courses pages on {{courses.id: 1, _id: 1}}: {keys:?}"
    );
    let all_courses: Vec<Course> = (0..8)
        .map(|i| Course {
            id: ObjectId::new(),
            title: format!("c{i}"),
        })
        .collect();
    courses.insert_many(&all_courses).await.unwrap();
    let mut rng = Lcg(29);
    let mut model: BTreeMap<ObjectId, Vec<Enrolment>> = BTreeMap::new();
    for i in 0..40 {
        let s = Enrolled {
            id: ObjectId::new(),
            name: format!("s{i}"),
            courses: BoundedVec::new(),
        };
        repo.insert(&s).await.unwrap();
        model.insert(s.id, Vec::new());
    }
    let ids: Vec<ObjectId> = model.keys().copied().collect();
    for step in 0..250 {
        let s = ids[rng.below(ids.len() as u64) as usize];
        // The first seven courses only: the eighth is never held.
        let c = all_courses[rng.below(7) as usize].id;
        let held = model.get_mut(&s).unwrap();
        let at = held.iter().position(|e| e.id == c);
        match at {
            Some(i) if rng.below(3) == 0 => {
                let line = held.remove(i);
                assert!(repo.remove_courses(&s, &line).await.unwrap());
            }
            None if held.len() < 5 => {
                let line = Enrolment { id: c, since: step };
                repo.push_courses(&s, &line).await.unwrap();
                held.push(line);
            }
            _ => {}
        }
    }
    for course in &all_courses {
        let want: Vec<ObjectId> = model
            .iter()
            .filter(|(_, es)| es.iter().any(|e| e.id == course.id))
            .map(|(s, _)| *s)
            .collect();
        let per_page = 1 + rng.below(9) as u32;
        let (mut got, mut after): (Vec<ObjectId>, Option<PageCursor>) = (Vec::new(), None);
        loop {
            let page = repo
                .find_by_courses(&course.id, after.as_ref(), per_page)
                .await
                .unwrap();
            assert!(page.items.len() <= per_page as usize);
            got.extend(page.items.iter().map(|s| s.id));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(got, want, "{}'s holders, pages of {per_page}", course.title);
        assert_eq!(
            repo.count_by_courses(&course.id).await.unwrap(),
            want.len() as u64
        );
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "followers")]
pub struct Follower {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(parent_refs(to = Course, max = 4, find_by))]
    pub following: BoundedVec<ObjectId, 4>,
    #[squillion(computed(count, of = following))]
    pub following_count: i32,
}

/// `computed(count, of = <ids>)` on an array of ids (a user's `following_count`, the `summary
/// count` of a one-way many-to-many): every `add_` and `remove_` that changes the array leaves the
/// count equal to its length, over random adds (new, repeated, beyond the bound) and removals
/// (present or not), compared with a model.
#[tokio::test]
async fn the_count_of_an_array_of_ids_follows_its_adds_and_removals() {
    let db = database("holders_count").await;
    let repo = FollowerRepo::new(&db);
    let targets: Vec<ObjectId> = (0..7).map(|_| ObjectId::new()).collect();
    let mut rng = Lcg(5);
    let mut model: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
    for _ in 0..6 {
        let f = Follower {
            id: ObjectId::new(),
            following: BoundedVec::new(),
            following_count: 0,
        };
        repo.insert(&f).await.unwrap();
        model.insert(f.id, Vec::new());
    }
    let ids: Vec<ObjectId> = model.keys().copied().collect();
    for _ in 0..150 {
        let f = ids[rng.below(ids.len() as u64) as usize];
        let t = targets[rng.below(targets.len() as u64) as usize];
        let held = model.get_mut(&f).unwrap();
        if rng.below(3) == 0 {
            let removed = repo.remove_following(&f, &t).await.unwrap();
            assert_eq!(removed, held.contains(&t));
            held.retain(|x| *x != t);
        } else {
            match repo.add_following(&f, &t).await {
                Ok(added) => {
                    assert_eq!(added, !held.contains(&t));
                    if added {
                        held.push(t);
                    }
                }
                Err(squillion::Error::BoundExceeded { .. }) => {
                    assert!(held.len() == 4 && !held.contains(&t))
                }
                Err(e) => panic!("{e}"),
            }
        }
        let doc = repo.get(&f).await.unwrap().unwrap();
        assert_eq!(doc.following.len(), held.len());
        assert_eq!(doc.following_count as usize, held.len(), "{doc:?}");
    }
}
