use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Task {
    #[serde(rename = "_id")]
    pub id: i64,
    #[squillion(child_ref(to = Task))]
    pub owners: Vec<i64>,
    #[squillion(fan_out(to = Task, by = "owner"))]
    pub name: String,
}

fn main() {}
