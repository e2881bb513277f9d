use serde::{Deserialize, Serialize};
use squillion::BoundedVec;

const N: usize = 60;

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "histograms")]
pub struct Histogram {
    #[serde(rename = "_id")]
    pub id: String,
    /// Counters are 64-bit integers.
    #[squillion(counters)]
    pub doubles: BoundedVec<f64, 24>,
    /// Every dimension is a literal capacity.
    #[squillion(counters)]
    pub computed: BoundedVec<BoundedVec<i64, N>, 24>,
    /// An unbounded array has no slots to preallocate.
    #[squillion(counters)]
    pub open: Vec<i64>,
    /// A scalar is a `counter`, not `counters`.
    #[squillion(counters)]
    pub one: i64,
    /// The counters are the field's layout.
    #[squillion(counters, maintained)]
    pub kept: BoundedVec<i64, 7>,
    #[squillion(counters)]
    pub fine: BoundedVec<BoundedVec<i64, 60>, 24>,
}

fn main() {}
