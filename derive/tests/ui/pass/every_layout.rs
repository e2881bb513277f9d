//! Every attribute at once; the generated code compiles without warnings.
#![deny(warnings)]

use serde::{Deserialize, Serialize};
use squillion::bson::{oid::ObjectId, DateTime};
use squillion::BoundedVec;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Note {
    pub user: String,
    pub note: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Line {
    pub sku: String,
    pub qty: i32,
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[serde(rename_all = "camelCase")]
#[squillion(
    collection = "books",
    schema_version = 3,
    min_schema_version = 2,
    index(keys(title, "publisher.name" = -1, summary = "text"), name = "search"),
    index(keys(slug), unique, collation(locale = "en", strength = 2)),
    index(keys(expires_at), ttl = 3600),
    index(keys(isbn), partial = r#"{"isbn": {"$exists": true}}"#)
)]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(min_length = 1, max_length = 300, pattern = "^\\S")]
    pub title: String,
    #[squillion(unique)]
    pub slug: String,
    pub summary: String,
    pub isbn: Option<String>,
    pub expires_at: DateTime,
    #[squillion(minimum = 0, maximum = 10000)]
    pub pages: i32,
    #[squillion(one_of("draft", "published"))]
    pub status: String,
    #[squillion(embed(max = 200))]
    pub notes: BoundedVec<Note, 200>,
    /// Lines found by their `sku`: `inc_lines_qty`, the guarded `dec_lines_qty` (floor 1),
    /// `inc_lines_weight`, each keeping `lines_qty`.
    #[squillion(embed(max = 20, unique("sku")))]
    #[squillion(element(path = "qty", name = "qty", ty = i32, key = "sku", key_ty = String, counter, minimum = 1))]
    #[squillion(element(path = "weight", name = "weight", ty = f64, key = "sku", key_ty = String))]
    pub lines: BoundedVec<Line, 20>,
    #[squillion(computed(sum = "qty", of = lines))]
    pub lines_qty: i64,
    pub tags: BoundedVec<String, 10>,
    #[squillion(computed(count, of = notes))]
    pub note_count: i32,
    #[squillion(parent_refs(to = Part, max = 5000, fields(name)))]
    pub parts: Vec<ObjectId>,
    #[squillion(child_ref(to = Part))]
    pub series: Option<ObjectId>,
    #[squillion(top(n = 20, sort = "time", desc))]
    pub best: Vec<Note>,
    #[squillion(outlier(max = 50, flag = has_extras, overflow = "book_extras"))]
    pub extras: Vec<String>,
    #[serde(default)]
    pub has_extras: bool,
    /// An outlier whose owner keeps its latest and best children.
    #[squillion(outlier(
        max = 50,
        flag = has_more_notes,
        overflow = "book_more_notes",
        latest(path = "recentNotes", n = 3, sort = "note", desc, keep("note")),
        top(path = "bestNotes", n = 2, sort = "user", keep("user"))
    ))]
    pub more_notes: Vec<Note>,
    #[serde(default)]
    pub has_more_notes: bool,
    #[squillion(maintained)]
    pub recent_notes: BoundedVec<Note, 3>,
    #[squillion(maintained)]
    pub best_notes: BoundedVec<Note, 2>,
    /// An embedded array whose owner keeps its best two.
    #[squillion(embed(max = 10, top(path = "bestTagged", n = 2, sort = "note", desc, keep("note"))))]
    pub tagged: BoundedVec<Note, 10>,
    #[squillion(maintained)]
    pub best_tagged: BoundedVec<Note, 2>,
    #[squillion(fan_out(to = Part, by = "book", copy = "book_title"))]
    pub display_title: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
pub struct Part {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub book: ObjectId,
    #[squillion(denormalized(from = "Book.display_title"))]
    pub book_title: String,
    #[squillion(two_way(to = Book, max = 10, inverse = parts, inverse_max = 5000))]
    pub books: Vec<ObjectId>,
    #[squillion(subset(to = Book, n = 5, sort = "pages", desc, keep(title)))]
    pub recent: Vec<Note>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reading {
    pub ts: DateTime,
    pub v: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "iot", validator = false)]
pub struct Bucket {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub sensor: i64,
    pub day: i32,
    #[squillion(bucket(size = 200, key = sensor, key = day, start = first, end = last, sort = "ts"))]
    pub readings: Vec<Reading>,
    pub count: i32,
    #[squillion(computed(sum = "v"))]
    pub total: f64,
    #[squillion(computed(min = "ts"))]
    pub first: DateTime,
    #[squillion(computed(max = "ts"))]
    pub last: DateTime,
}

fn custom_validator() -> squillion::bson::Document {
    squillion::bson::doc! { "name": { "$type": "string" } }
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(
    queue(priority = rank, in_progress = busy, started = since, done = finished),
    validator = custom_validator
)]
pub struct Job {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub rank: i32,
    pub busy: bool,
    pub since: Option<DateTime>,
    pub finished: bool,
    /// A bounded map and an unbounded optional one: `set_<f>_entry`, `remove_<f>_entry`.
    #[squillion(map(max = 4))]
    pub tags: std::collections::BTreeMap<String, i64>,
    pub labels: Option<std::collections::HashMap<String, String>>,
    /// Preallocated counters, 24 x 60 and flat: `inc_<f>(&id, slot, by)`.
    #[squillion(counters)]
    pub minutes: squillion::BoundedVec<squillion::BoundedVec<i64, 60>, 24>,
    #[squillion(counters)]
    pub hours: squillion::BoundedVec<i64, 168>,
    /// `@attributes` maps (stored as `[{k, v}]`), bounded and not: `set_<f>_entry`,
    /// `remove_<f>_entry`.
    #[squillion(attributes(value = String))]
    pub specs: BoundedVec<Spec, 50>,
    #[squillion(attributes(value = i32))]
    pub sizes: Vec<Size>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    pub k: String,
    pub v: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Size {
    pub k: String,
    pub v: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(tree)]
pub struct Category {
    #[serde(rename = "_id")]
    pub id: String,
    pub parent: Option<String>,
    pub ancestors: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(versioned)]
pub struct Policy {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub document_id: String,
    pub version: i64,
    pub valid_from: DateTime,
    pub valid_to: Option<DateTime>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "contracts", history(to = ContractVersion))]
pub struct Contract {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
    pub terms: String,
    pub amount: i64,
    #[squillion(embed(max = 5))]
    pub clauses: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "contracts_history")]
pub struct ContractVersion {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(maintained)]
    pub document_id: ObjectId,
    #[squillion(maintained)]
    pub version: i32,
    #[squillion(maintained)]
    pub archived_at: DateTime,
    pub terms: String,
    pub amount: i64,
    #[squillion(embed(max = 5))]
    pub clauses: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, squillion::Document)]
#[squillion(link(book = Book, part = Part))]
pub struct BookPart {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub book: ObjectId,
    pub part: ObjectId,
    pub role: String,
}

fn main() {
    use squillion::Document as _;
    assert_eq!(Book::COLLECTION, "books");
    assert_eq!(Category::COLLECTION, "categorys");
    assert_eq!(BookPart::COLLECTION, "book_parts");
    let _ = (BookRepo::new, PartRepo::new, BucketRepo::new, JobRepo::new);
    let _ = (JobRepo::inc_minutes, JobRepo::inc_hours);
    let _ = (BookRepo::inc_lines_qty, BookRepo::dec_lines_qty, BookRepo::inc_lines_weight);
    let _ = (CategoryRepo::new, PolicyRepo::new, BookPartRepo::new);
    let _ = (JobRepo::set_specs_entry, JobRepo::remove_specs_entry);
    let _ = (JobRepo::set_sizes_entry, JobRepo::remove_sizes_entry);
    let _ = (
        ContractRepo::new_version,
        ContractRepo::history,
        ContractRepo::version_of,
        ContractVersionRepo::new,
    );
}
