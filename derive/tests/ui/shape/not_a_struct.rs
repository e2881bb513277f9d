use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, squillion::Document)]
pub enum Shape {
    Circle,
}

#[derive(Serialize, Deserialize, squillion::Document)]
pub struct Pair(i64, i64);

fn main() {}
