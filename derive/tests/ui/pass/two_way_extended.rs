//! `two_way` whose references are extended references (`{id, copies...}`) on either side or
//! both: `link_<f>` takes the other document's id, `load_<f>` reads the elements' ids.
#![deny(warnings)]

use serde::{Deserialize, Serialize};
use squillion::bson::oid::ObjectId;
use squillion::BoundedVec;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorRef {
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClinicRef {
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "clinics",
    copy_of(from = Doctor, source = "name", by = "doctors[].id", copy = "doctors[].name")
)]
pub struct Clinic {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(fan_out(to = Doctor, by = "clinic.id", copy = "clinic.name"))]
    pub name: String,
    #[squillion(two_way(to = Doctor, max = 80, inverse = "clinic", id = "id", inverse_id = "id"))]
    pub doctors: BoundedVec<DoctorRef, 80>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "doctors",
    copy_of(from = Clinic, source = "name", by = "clinic.id", copy = "clinic.name")
)]
pub struct Doctor {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(fan_out(to = Clinic, by = "doctors[].id", copy = "doctors[].name"))]
    pub name: String,
    pub clinic: Option<ClinicRef>,
}

// Many-to-many, extended references on one side only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CourseRef {
    pub id: ObjectId,
    pub title: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "students",
    copy_of(from = Course, source = "title", by = "courses[].id", copy = "courses[].title")
)]
pub struct Student {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(two_way(to = Course, max = 10, inverse = "students", inverse_max = 300, id = "id"))]
    pub courses: BoundedVec<CourseRef, 10>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "courses")]
pub struct Course {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(fan_out(to = Student, by = "courses[].id", copy = "courses[].title"))]
    pub title: String,
    #[squillion(two_way(to = Student, max = 300, inverse = "courses", inverse_max = 10, inverse_id = "id"))]
    pub students: BoundedVec<ObjectId, 300>,
}

async fn calls(db: &squillion::mongodb::Database, id: ObjectId) -> squillion::Result<()> {
    let clinics = ClinicRepo::new(db);
    clinics.link_doctors(&id, &id).await?;
    clinics.unlink_doctors(&id, &id).await?;
    if let Some(c) = clinics.get(&id).await? {
        let _: Vec<Doctor> = clinics.load_doctors(&c).await?;
    }
    StudentRepo::new(db).link_courses(&id, &id).await?;
    CourseRepo::new(db).link_students(&id, &id).await?;
    Ok(())
}

fn main() {
    let _ = calls;
    let _ = (DoctorRepo::new, StudentRepo::new, CourseRepo::new);
}
