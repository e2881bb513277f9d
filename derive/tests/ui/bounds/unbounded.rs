use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(embed)]
    pub notes: Vec<String>,
    #[squillion(parent_refs(to = Product))]
    pub parts: Vec<i64>,
}

fn main() {}
