use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(queue(priority = rank), tree(parent = up))]
pub struct Job {
    #[serde(rename = "_id")]
    pub id: i64,
    pub in_progress: bool,
    pub started: Option<i64>,
    pub ancestors: Vec<i64>,
    #[squillion(bucket(size = 10, key = sensor))]
    pub readings: Vec<f64>,
    #[squillion(outlier(max = 3, flag = overflowed, overflow = "extra"))]
    pub cast: squillion::BoundedVec<String, 3>,
    #[squillion(computed(sum = "v", of = nothing))]
    pub total: f64,
}

fn main() {}
