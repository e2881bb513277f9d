use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(embed(max = 10), parent_refs(to = Product, max = 10))]
    pub parts: Vec<i64>,
    #[squillion(child_ref(to = Product))]
    #[squillion(subset(to = Product, n = 3, sort = "t"))]
    pub recent: Vec<i64>,
}

fn main() {}
