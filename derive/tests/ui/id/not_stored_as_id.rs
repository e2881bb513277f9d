use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Book {
    #[squillion(id)]
    pub id: i64,
    #[squillion(id)]
    pub isbn: String,
}

fn main() {}
