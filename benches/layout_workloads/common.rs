//! What every workload of the layout benchmark shares: the operations, the variant trait, the
//! deterministic spread of operation numbers, and the mix of operations a workload runs.

use squillion::__private::bson::oid::ObjectId;

/// A deterministic spread of `i`.
pub fn h(i: usize, salt: u64) -> usize {
    let mut x = (i as u64)
        .wrapping_add(salt)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 29)) as usize
}

/// One operation of a workload.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// The workload's hot read: its relationship's children read together (a list, a page, a
    /// time range).
    Hot,
    /// Another read or write the workload names (library: 0 by title, 1 by author, 2 author by
    /// name, 3 a rename).
    Other(u8),
    /// A child added (or, for a many-to-many, two documents linked).
    Write,
}

pub trait Variant {
    fn name(&self) -> &'static str;
    /// The schema the variant's module was generated from (`benches/layouts/<variant>.sqn`).
    fn schema(&self) -> &'static str;
    /// Whether the variant leaves out something the schema's facts ask for (the IoT readings
    /// without their sensor's summaries): measured and ranked as a point of reference, but not
    /// an alternative the chosen layout must match, since it does less.
    fn reference(&self) -> bool {
        false
    }
    async fn seed(&self);
    /// Runs one operation; returns the number of children/items it read (checked, so that every
    /// variant reads the same thing).
    async fn run(&self, op: Op, i: usize) -> usize;
}

/// The operations of a workload in the proportions of its rates, as a cycle: the `k`th
/// operation is `ops[k % len]`. Built by largest remainder, so every prefix of the cycle keeps
/// the proportions as closely as whole operations can.
pub struct Mix {
    pub ops: Vec<Op>,
    /// The rates it was built from, for the report.
    pub rates: Vec<(Op, f64)>,
}

impl Mix {
    pub fn new(rates: &[(Op, f64)]) -> Mix {
        const CYCLE: usize = 1_000;
        let total: f64 = rates.iter().map(|(_, r)| r.max(0.0)).sum();
        let mut credit = vec![0.0; rates.len()];
        let mut ops = Vec::with_capacity(CYCLE);
        for _ in 0..CYCLE {
            for (c, (_, r)) in credit.iter_mut().zip(rates) {
                *c += r.max(0.0) / total;
            }
            let (k, _) = credit
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .expect("a mix has operations");
            credit[k] -= 1.0;
            ops.push(rates[k].0);
        }
        Mix {
            ops,
            rates: rates.to_vec(),
        }
    }

    pub fn op(&self, i: usize) -> Op {
        self.ops[i % self.ops.len()]
    }

    /// `op: rate` pairs, as the report prints them.
    pub fn describe(&self, names: &dyn Fn(Op) -> &'static str) -> String {
        self.rates
            .iter()
            .filter(|(_, r)| *r > 0.0)
            .map(|(op, r)| format!("{} {}", names(*op), trim(*r)))
            .collect::<Vec<_>>()
            .join(" : ")
    }
}

fn trim(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// An id from an hour ago: seeded documents are older than anything the workload writes. (A
/// bucket without a `start` field is ordered by `_id`; an upsert's server-made `_id` from the
/// same second as a client-made one may sort before it.)
pub fn old_id() -> ObjectId {
    let mut bytes = ObjectId::new().bytes();
    let then = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 3_600) as u32;
    bytes[..4].copy_from_slice(&then.to_be_bytes());
    ObjectId::from_bytes(bytes)
}
