use serde::{Deserialize, Serialize};
use squillion::BoundedVec;

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(embed(max = 300))]
    pub notes: BoundedVec<String, 200>,
    #[squillion(embed(max = 0))]
    pub tags: Vec<String>,
    #[squillion(top(n = 50, sort = "v"))]
    pub best: BoundedVec<String, 20>,
}

fn main() {}
