use serde::{Deserialize, Serialize};
use squillion::bson::oid::ObjectId;

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(upgrade(from = 1))]
pub struct Unversioned {
    #[serde(rename = "_id")]
    pub id: ObjectId,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(schema_version = 2, upgrade(from = 2))]
pub struct NotOlder {
    #[serde(rename = "_id")]
    pub id: ObjectId,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(schema_version = 2, upgrade(rename(from = "pages")))]
pub struct HalfRename {
    #[serde(rename = "_id")]
    pub id: ObjectId,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(schema_version = 2, upgrade(from = 1, wrap(path = "author", name = "id")))]
pub struct UnknownWrapOption {
    #[serde(rename = "_id")]
    pub id: ObjectId,
}

fn main() {}
