use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(colection = "books")]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: i64,
    #[squillion(embedd(max = 3))]
    pub notes: Vec<String>,
    #[squillion(index(uniq))]
    pub title: String,
}

fn main() {}
