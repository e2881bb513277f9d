//! Ranges (`@range(min, max)`) against the server, on `Product.stock` (`int32 @counter
//! @range(0, 500)`) and the optional `Product.rating` (`double? @range(1, 5)`) of
//! `examples/catalog.sqn`. Random sequences of inserts, setters, increments and guarded decrements
//! run against a reference model: every write that would leave a value outside its range is
//! refused (by the validator the repository installs, `is_validation_failure`, or by the guarded
//! decrement's filter, `None`) and writes nothing; every other write lands; after each step the
//! stored document is the model's.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test ranges`.

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion_examples_generated::catalog::{Product, ProductRepo};
use squillion_testkit::TestDb;

const STOCK: (i32, i32) = (0, 500);
const RATING: (f64, f64) = (1.0, 5.0);

#[derive(Debug, Clone)]
enum Op {
    Insert { stock: i32, rating: Option<f64> },
    SetStock(i32),
    IncStock(i32),
    DecStock(i32),
    SetRating(Option<f64>),
}

/// Numbers around and across the bounds, where the mistakes are.
fn stock() -> impl Strategy<Value = i32> {
    prop_oneof![
        -3..4i32,
        497..504i32,
        -1_000..1_500i32,
        Just(i32::MIN),
        Just(i32::MAX)
    ]
}

fn rating() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(prop_oneof![
        (-8..48i32).prop_map(|n| f64::from(n) / 8.0),
        Just(0.999_999),
        Just(5.000_001),
        Just(f64::MAX),
    ])
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (stock(), rating()).prop_map(|(stock, rating)| Op::Insert { stock, rating }),
        stock().prop_map(Op::SetStock),
        (-600..600i32).prop_map(Op::IncStock),
        (-3..600i32).prop_map(Op::DecStock),
        rating().prop_map(Op::SetRating),
    ]
}

fn stock_ok(v: i64) -> bool {
    (i64::from(STOCK.0)..=i64::from(STOCK.1)).contains(&v)
}

fn rating_ok(v: Option<f64>) -> bool {
    v.is_none_or(|v| (RATING.0..=RATING.1).contains(&v))
}

fn refused<T: std::fmt::Debug>(r: squillion::Result<T>, what: &str) {
    match r {
        Err(e) => assert!(e.is_validation_failure(), "{what}: {e:?}"),
        Ok(v) => panic!("{what} was not refused: {v:?}"),
    }
}

async fn run(ops: Vec<Op>) {
    let t = TestDb::new("ranges").await;
    let repo = ProductRepo::new(&t.db);
    repo.ensure_validator().await.unwrap();
    // The model: the one product inserted so far.
    let mut model: Option<Product> = None;
    for op in ops {
        let what = format!("{op:?} on {model:?}");
        match (op, model.as_mut()) {
            (Op::Insert { stock, rating }, None) => {
                let p = Product {
                    id: ObjectId::new(),
                    name: "shelf".into(),
                    stock,
                    rating,
                    category_ids: Vec::new().try_into().unwrap(),
                };
                let r = repo.insert(&p).await;
                if stock_ok(i64::from(stock)) && rating_ok(rating) {
                    r.unwrap();
                    model = Some(p);
                } else {
                    refused(r, &what);
                }
            }
            (Op::Insert { .. }, Some(_)) => continue,
            (_, None) => continue,
            (Op::SetStock(v), Some(m)) => {
                let r = repo.set_stock(&m.id, &v).await;
                if stock_ok(i64::from(v)) {
                    r.unwrap();
                    m.stock = v;
                } else {
                    refused(r, &what);
                }
            }
            (Op::IncStock(by), Some(m)) => {
                let r = repo.inc_stock(&m.id, by).await;
                let after = i64::from(m.stock) + i64::from(by);
                if stock_ok(after) {
                    assert_eq!(i64::from(r.unwrap()), after, "{what}");
                    m.stock = after as i32;
                } else {
                    refused(r, &what);
                }
            }
            (Op::DecStock(by), Some(m)) => {
                let r = repo.dec_stock(&m.id, by).await;
                let after = i64::from(m.stock) - i64::from(by);
                if after < i64::from(STOCK.0) {
                    // The guard's filter: nothing written, no error.
                    assert_eq!(r.unwrap(), None, "{what}");
                } else if after > i64::from(STOCK.1) {
                    // A negative decrement past the top: the validator refuses it.
                    refused(r, &what);
                } else {
                    assert_eq!(r.unwrap().map(i64::from), Some(after), "{what}");
                    m.stock = after as i32;
                }
            }
            (Op::SetRating(v), Some(m)) => {
                let r = repo.set_rating(&m.id, &v).await;
                if rating_ok(v) {
                    r.unwrap();
                    m.rating = v;
                } else {
                    refused(r, &what);
                }
            }
        }
        if let Some(m) = &model {
            assert_eq!(
                repo.get(&m.id).await.unwrap().as_ref(),
                Some(m),
                "after {what}"
            );
        }
    }
    t.cleanup().await;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn writes_outside_a_range_are_refused_and_the_others_land(
        first in (0..=500i32, rating()),
        ops in prop::collection::vec(op(), 1..14),
    ) {
        // Start from a product in range, so that most steps reach the server's checks.
        let mut all = vec![Op::Insert { stock: first.0, rating: first.1.filter(|r| rating_ok(Some(*r))) }];
        all.extend(ops);
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(run(all));
    }
}
