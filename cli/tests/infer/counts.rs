//! The counting pipelines against a reference model: for random documents with references at
//! the root, in subdocuments, in arrays of subdocuments, in arrays inside those and in arrays
//! of ids (with missing, null and non-array values on the way), the histogram the server
//! returns for `per_value` (per distinct value, how many hold it; per count, how many values)
//! equals the one counted in Rust by walking the documents.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};
use futures::TryStreamExt;
use squillion_cli::infer::counts::per_value;
use squillion_cli::infer::path::Loc;

use super::*;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A reference value, a missing one (`None`) or null: few distinct values, so counts repeat.
fn value(rng: &mut Rng) -> Option<Bson> {
    match rng.below(10) {
        0 => None,
        1 => Some(Bson::Null),
        2..=5 => Some(Bson::Int32(rng.below(6) as i32)),
        _ => Some(Bson::String(format!("k{}", rng.below(8)))),
    }
}

fn holder(rng: &mut Rng) -> Document {
    let mut d = Document::new();
    if let Some(v) = value(rng) {
        d.insert("r", v);
    }
    d
}

/// An array of `make`'s, or now and then something else where the array belongs.
fn array(rng: &mut Rng, make: &mut dyn FnMut(&mut Rng) -> Bson) -> Option<Bson> {
    match rng.below(12) {
        0 => None,
        1 => Some(Bson::Null),
        2 => Some(Bson::Int32(7)),
        _ => Some(Bson::Array((0..rng.below(5)).map(|_| make(rng)).collect())),
    }
}

fn document(rng: &mut Rng, i: i64) -> Document {
    let mut d = holder(rng);
    d.insert("_id", i);
    if rng.below(4) > 0 {
        d.insert("m", Bson::Document(holder(rng)));
    }
    let a = array(rng, &mut |rng| {
        if rng.below(10) == 0 {
            return Bson::Int32(3); // an element that is not a document
        }
        let mut e = holder(rng);
        if let Some(b) = array(rng, &mut |rng| Bson::Document(holder(rng))) {
            e.insert("b", b);
        }
        if let Some(ids) = array(rng, &mut |rng| value(rng).unwrap_or(Bson::Null)) {
            e.insert("ids", ids);
        }
        Bson::Document(e)
    });
    if let Some(a) = a {
        d.insert("a", a);
    }
    if let Some(ids) = array(rng, &mut |rng| value(rng).unwrap_or(Bson::Null)) {
        d.insert("ids", ids);
    }
    d
}

/// The values at `leaf` of every place in `doc`, walking as the pipeline means to.
fn walk<'a>(v: &'a Bson, steps: &[(&str, bool)], leaf: &str, out: &mut Vec<&'a Bson>) {
    match steps.split_first() {
        None => {
            let found = if leaf.is_empty() {
                Some(v)
            } else {
                v.as_document().and_then(|d| d.get(leaf))
            };
            if let Some(x) = found.filter(|x| !matches!(x, Bson::Null)) {
                out.push(x);
            }
        }
        Some(((field, each), rest)) => {
            let Some(next) = v.as_document().and_then(|d| d.get(*field)) else {
                return;
            };
            if *each {
                if let Bson::Array(items) = next {
                    for item in items {
                        walk(item, rest, leaf, out);
                    }
                }
            } else {
                walk(next, rest, leaf, out);
            }
        }
    }
}

fn key(v: &Bson) -> String {
    v.clone().into_relaxed_extjson().to_string()
}

#[tokio::test]
async fn counts_per_value_equal_the_reference_model_at_every_place() {
    let t = TestDb::new("infer_counts").await;
    let coll = t.db.collection::<Document>("things");
    let places: Vec<(Vec<(&str, bool)>, &str)> = vec![
        (vec![], "r"),
        (vec![("m", false)], "r"),
        (vec![("a", true)], "r"),
        (vec![("a", true), ("b", true)], "r"),
        (vec![("ids", true)], ""),
        (vec![("a", true), ("ids", true)], ""),
    ];
    for seed in 1..=12u64 {
        coll.delete_many(doc! {}).await.unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let docs: Vec<Document> = (0..(20 + rng.below(80) as i64))
            .map(|i| document(&mut rng, i))
            .collect();
        coll.insert_many(docs.clone()).await.unwrap();
        for (steps, leaf) in &places {
            let mut place = Loc::root();
            for (field, each) in steps {
                place = place.child(field, *each);
            }
            // The model: per value, its holders; per count, how many values.
            let mut per: BTreeMap<String, u64> = BTreeMap::new();
            for d in &docs {
                let mut found = Vec::new();
                let d = Bson::Document(d.clone());
                walk(&d, steps, leaf, &mut found);
                for v in found {
                    *per.entry(key(v)).or_default() += 1;
                }
            }
            let mut want: BTreeMap<i64, i64> = BTreeMap::new();
            for n in per.values() {
                *want.entry(*n as i64).or_default() += 1;
            }
            // The test means something only where there is something to count.
            assert!(
                !per.is_empty() || seed > 1,
                "seed {seed}: nothing at {}",
                place.display("things")
            );
            let pipeline = per_value(&place, leaf);
            let got: Vec<Document> = coll
                .aggregate(pipeline.clone())
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            let got: BTreeMap<i64, i64> = got
                .iter()
                .map(|d| {
                    let n = |k: &str| match d.get(k) {
                        Some(Bson::Int32(x)) => i64::from(*x),
                        Some(Bson::Int64(x)) => *x,
                        Some(Bson::Double(x)) => *x as i64,
                        other => panic!("{k}: {other:?}"),
                    };
                    (n("_id"), n("k"))
                })
                .collect();
            assert_eq!(
                got,
                want,
                "seed {seed}, place {}, leaf {leaf:?}: pipeline {pipeline:?}",
                place.display("things")
            );
        }
    }
    t.cleanup().await;
}
