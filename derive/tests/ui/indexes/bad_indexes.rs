use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(index(keys(isbn), sparse, partial = r#"{"isbn": {"$exists": true}}"#))]
#[squillion(index(keys(title), partial = "{not json"))]
#[squillion(index(unique))]
#[squillion(index(keys(title = 2)))]
#[squillion(index(keys(title), collation(strength = 9)))]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: i64,
    pub isbn: Option<String>,
    pub title: String,
}

fn main() {}
