use serde::{Deserialize, Serialize};
use squillion::bson::oid::ObjectId;

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(
    collection = "books",
    schema_version = 2,
    upgrade(
        from = 1,
        rename(from = "pages", to = "page_count"),
        wrap(path = "author", id = "id")
    )
)]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub page_count: i32,
    pub title: String,
}

fn main() {
    assert_eq!(<Book as squillion::Document>::UPGRADES.len(), 1);
    let _ = |repo: BookRepo, id: ObjectId| async move { repo.set_title(&id, "t").await };
}
