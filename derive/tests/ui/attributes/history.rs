use serde::{Deserialize, Serialize};
use squillion::bson::{oid::ObjectId, DateTime};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(history)]
pub struct NoTarget {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(history(to = NoTarget, versions = v))]
pub struct UnknownOption {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(history(to = NoTarget, version = revision))]
pub struct MissingVersion {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(versioned, history(to = NoTarget))]
pub struct Both {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub document_id: ObjectId,
    pub version: i32,
    pub valid_from: DateTime,
    pub valid_to: Option<DateTime>,
}

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(archive, history(to = NoTarget))]
pub struct ArchiveWithHistory {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
}

fn main() {}
