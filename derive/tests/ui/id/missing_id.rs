use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Book {
    pub id: i64,
    pub title: String,
}

fn main() {}
