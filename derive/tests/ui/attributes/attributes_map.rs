use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use squillion::BoundedVec;

#[derive(Serialize, Deserialize)]
pub struct Spec {
    pub k: String,
    pub v: String,
}

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(attributes)]
    pub no_value: Vec<Spec>,
    #[squillion(attributes(value = String))]
    pub not_an_array: BTreeMap<String, String>,
    #[squillion(attributes(value = String, max = 3))]
    pub unknown_option: Vec<Spec>,
    #[squillion(embed, attributes(value = String))]
    pub laid_out: BoundedVec<Spec, 5>,
    #[squillion(maintained, attributes(value = String))]
    pub kept: Vec<Spec>,
}

fn main() {}
