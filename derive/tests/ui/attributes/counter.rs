use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    #[squillion(id, counter)]
    pub id: i64,
    #[squillion(counter)]
    pub name: String,
    #[squillion(counter)]
    pub left: Option<i32>,
    #[squillion(counter)]
    pub stock: i32,
}

fn main() {}
