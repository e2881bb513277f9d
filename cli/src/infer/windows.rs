//! Sampling a large collection without reading it whole: windows of consecutive `_id`s from
//! random points of the `_id` range, each a bounded range read through the `_id` index. `$sample` on a server
//! without a random cursor (SecantusDB) reads every document to pick a few; here the work is
//! one index seek per window plus the documents sampled, whatever the collection's size.
//!
//! What the sample is: `WINDOWS` points drawn uniformly between the first and the last `_id`
//! (ObjectIds as 96-bit numbers, numeric ids as numbers), each followed by the documents of a
//! short `_id` range after it (up to the documents wanted from each). Every stretch of the range
//! is as likely to be read, so the sample is uniform over the `_id` range (for ObjectIds, over
//! insertion time) rather than over documents: a period with few inserts is over-represented. Windows of
//! consecutive documents are clusters (documents inserted together look alike), so the sample
//! says less than as many independent documents would; `docs/benchmarks.md` says what that
//! costs. Counts never come from the sample: every cardinality is counted over the whole
//! collection by aggregation, so the sample decides which fields and shapes are seen and
//! which values are looked up, not the classes.

use futures::TryStreamExt;
use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Collection;

/// Windows per collection (at most one per sampled document).
pub const WINDOWS: u64 = 100;
/// Collections with at least this many times the sample's documents are sampled by windows.
pub const FROM_RATIO: u64 = 10;

/// The `_id` range of a collection, when its ids are all of one kind that can be drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Range {
    ObjectIds(u128, u128),
    Integers(i64, i64),
    Doubles(f64, f64),
}

fn oid_number(o: &ObjectId) -> u128 {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(&o.bytes());
    u128::from_be_bytes(b)
}

fn oid_of(n: u128) -> ObjectId {
    let b = n.to_be_bytes();
    let mut out = [0u8; 12];
    out.copy_from_slice(&b[4..]);
    ObjectId::from_bytes(out)
}

fn range(first: &Bson, last: &Bson) -> Option<Range> {
    let int = |b: &Bson| match b {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        _ => None,
    };
    // The ends in either order: natural order need not be `_id` order.
    match (first, last) {
        (Bson::ObjectId(a), Bson::ObjectId(b)) => {
            let (a, b) = (oid_number(a), oid_number(b));
            Some(Range::ObjectIds(a.min(b), a.max(b)))
        }
        (Bson::Double(a), Bson::Double(b)) if a.is_finite() && b.is_finite() => {
            Some(Range::Doubles(a.min(*b), a.max(*b)))
        }
        _ => {
            let (a, b) = (int(first)?, int(last)?);
            Some(Range::Integers(a.min(b), a.max(b)))
        }
    }
}

/// A small deterministic generator (xorshift64*), seeded from the collection's name, so that
/// the same database gives the same draft.
struct Rng(u64);

impl Rng {
    fn new(name: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The `_id` of the first document in natural order (`dir` 1) or the last (-1): on SecantusDB a
/// sort on `_id` without bounds reads the whole collection, natural order does not.
async fn end(coll: &Collection<Document>, dir: i32) -> mongodb::error::Result<Option<Bson>> {
    let d = coll
        .find_one(doc! {})
        .sort(doc! { "$natural": dir })
        .projection(doc! { "_id": 1 })
        .await?;
    Ok(d.and_then(|d| d.get("_id").cloned()))
}

/// The point `u` of the way from `a` to `b`, of the range's kind.
fn at(r: Range, u: f64) -> Bson {
    match r {
        Range::ObjectIds(a, b) => {
            let span = b.saturating_sub(a);
            // 96-bit spans: scale in two halves to keep the precision of the low bits.
            let hi = ((span >> 48) as f64 * u) as u128;
            let lo = (((span & ((1 << 48) - 1)) as f64) * u) as u128;
            Bson::ObjectId(oid_of(a.saturating_add((hi << 48) + lo).min(b)))
        }
        Range::Integers(a, b) => Bson::Int64(a.saturating_add(((b as f64 - a as f64) * u) as i64)),
        Range::Doubles(a, b) => Bson::Double(a + (b - a) * u),
    }
}

/// Reads up to `size` documents of `coll` (about `estimated` documents) in windows, calling
/// `each` on each; `None` when the collection's `_id`s cannot be drawn from (then `$sample` is
/// used). The range's ends are the `_id`s of the first and last documents in natural order
/// (the oldest and newest, for ObjectIds: documents outside them are not sampled). Each window
/// is a bounded `_id` range twice as wide as the average gap times the documents wanted from
/// it: the server reads a bounded range through the index, an open one (`$gte` with a
/// `limit`) by reading the collection.
pub async fn sample(
    coll: &Collection<Document>,
    size: u64,
    estimated: u64,
    mut each: impl FnMut(&Document),
) -> mongodb::error::Result<Option<u64>> {
    let (Some(first), Some(last)) = (end(coll, 1).await?, end(coll, -1).await?) else {
        return Ok(None);
    };
    let Some(r) = range(&first, &last) else {
        return Ok(None);
    };
    let count = WINDOWS.min(size).max(1);
    let per = size.div_ceil(count);
    // The share of the range one window spans: twice the documents wanted, on average, and for
    // ObjectIds at least one second (ids cluster at the start of their second's keys: a
    // narrower window mostly falls between them).
    let second = match r {
        Range::ObjectIds(a, b) => (1u128 << 64) as f64 / b.saturating_sub(a).max(1) as f64,
        _ => 0.0,
    };
    let width = ((2 * per) as f64 / estimated.max(1) as f64)
        .max(second)
        .min(1.0);
    let mut rng = Rng::new(coll.name());
    let mut us: Vec<f64> = (0..count).map(|_| rng.unit() * (1.0 - width)).collect();
    us.sort_by(f64::total_cmp);
    let mut read = 0u64;
    // Where the last window ended: windows never overlap, so no document is read twice.
    let mut done = 0.0f64;
    for u in us {
        if read >= size {
            break;
        }
        let start = u.max(done);
        let stop = (start + width).min(1.0);
        if stop <= start {
            continue;
        }
        done = stop;
        let upper = if stop >= 1.0 { "$lte" } else { "$lt" };
        let filter = doc! { "_id": { "$gte": at(r, start), upper: at(r, stop) } };
        let want = per.min(size - read);
        let mut cursor = coll
            .find(filter)
            .limit(i64::try_from(want).unwrap_or(i64::MAX))
            .await?;
        while let Some(d) = cursor.try_next().await? {
            read += 1;
            each(&d);
        }
    }
    Ok(Some(read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_lie_in_the_range_ascending() {
        let a = ObjectId::parse_str("650000000000000000000000").unwrap();
        let b = ObjectId::parse_str("66ffffffffffffffffffffff").unwrap();
        let r = range(&Bson::ObjectId(a), &Bson::ObjectId(b)).unwrap();
        let mut rng = Rng::new("orders");
        let mut us: Vec<f64> = (0..500).map(|_| rng.unit()).collect();
        us.sort_by(f64::total_cmp);
        let ns: Vec<u128> = us
            .iter()
            .map(|u| match at(r, *u) {
                Bson::ObjectId(o) => oid_number(&o),
                p => panic!("{p:?}"),
            })
            .collect();
        assert!(ns.windows(2).all(|w| w[0] <= w[1]));
        assert!(ns
            .iter()
            .all(|n| (oid_number(&a)..=oid_number(&b)).contains(n)));
        assert_eq!(at(r, 0.0), Bson::ObjectId(a));
        assert_eq!(at(r, 1.0), Bson::ObjectId(b));
        // Spread over the range: each tenth holds some.
        let span = oid_number(&b) - oid_number(&a);
        for k in 0..10u128 {
            let lo = oid_number(&a) + span / 10 * k;
            assert!(
                ns.iter().any(|n| (lo..lo + span / 10).contains(n)),
                "tenth {k}"
            );
        }
    }

    #[test]
    fn mixed_ids_are_not_drawn_from() {
        assert_eq!(range(&Bson::Int32(1), &Bson::String("a".into())), None);
        assert_eq!(
            range(&Bson::Int32(1), &Bson::Int64(9)),
            Some(Range::Integers(1, 9))
        );
    }
}
