use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = books)]
#[squillion(schema_version = "2")]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: i64,
    #[squillion(embed(max = "ten"))]
    pub notes: Vec<String>,
    #[squillion(child_ref(to = 5))]
    pub author: i64,
}

fn main() {}
