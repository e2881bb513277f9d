use serde::{Deserialize, Serialize};
use squillion::BoundedVec;

#[derive(Serialize, Deserialize)]
pub struct Line {
    pub sku: String,
    pub qty: Option<i32>,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "orders")]
pub struct Order {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: i64,
    #[squillion(element(path = "qty", name = "qty", ty = i32, key = "sku", key_ty = String))]
    pub total: i32,
    #[squillion(embed(max = 5))]
    #[squillion(element(path = "qty", name = "qty", ty = Option<i32>, key = "sku", key_ty = String, counter))]
    pub lines: BoundedVec<Line, 5>,
    #[squillion(embed(max = 5))]
    #[squillion(element(path = "qty", name = "qty", ty = i32))]
    pub others: BoundedVec<Line, 5>,
}

fn main() {}
