use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Boxed<T> {
    #[serde(rename = "_id")]
    pub id: i64,
    pub value: T,
}

fn main() {}
