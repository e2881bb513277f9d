use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(embed(max = 3))]
    pub publisher: String,
    #[squillion(parent_refs(to = Book, max = 10))]
    pub author: i64,
}

fn main() {}
