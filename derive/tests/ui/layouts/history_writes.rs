// A document versioned with a history changes its own fields by `new_version` only: no setter,
// increment or push of an embedded array is written.
use serde::{Deserialize, Serialize};
use squillion::bson::{oid::ObjectId, DateTime};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(history(to = ContractVersion))]
pub struct Contract {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub version: i32,
    pub amount: i64,
    #[squillion(embed(max = 5))]
    pub clauses: Vec<String>,
}

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct ContractVersion {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub document_id: ObjectId,
    pub version: i32,
    pub archived_at: DateTime,
    pub amount: i64,
    #[squillion(embed(max = 5))]
    pub clauses: Vec<String>,
}

fn main() {
    let _ = ContractRepo::set_amount;
    let _ = ContractRepo::inc_amount;
    let _ = ContractRepo::push_clauses;
    let _ = ContractRepo::new_version;
}
