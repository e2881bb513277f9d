use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Host {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: i64,
    #[squillion(subset(to = Host, sort = "time"))]
    pub logs: Vec<String>,
    #[squillion(parent_refs(max = 10))]
    pub parts: Vec<i64>,
    #[squillion(two_way(to = Host, max = 3))]
    pub peers: Vec<i64>,
    #[squillion(computed(of = logs))]
    pub total: i64,
}

fn main() {}
