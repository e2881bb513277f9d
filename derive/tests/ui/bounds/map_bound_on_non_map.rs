use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Bag {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(map(max = 3))]
    pub tags: Vec<String>,
    #[squillion(map(max = 0))]
    pub empty: BTreeMap<String, i32>,
    #[squillion(map(maximum = 2))]
    pub misnamed: BTreeMap<String, i32>,
}

fn main() {}
