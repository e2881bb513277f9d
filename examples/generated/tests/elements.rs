//! Numbers in one element of an array, against the server (issue 13,
//! `examples/generated/schemas/elements.sqn`): order lines (`Order.products`, `[{id, qty,
//! weight}]`, found by the product's id) and bins embedded in their shelf (`Shelf.bins`, found by
//! their `@unique` code, the shelf keeping the two fullest and their count, total and largest
//! stock).
//!
//! Each property runs random operations first one at a time, where a reference model predicts
//! every result (the new value, a refused decrement, a missing parent, a missing element) and the
//! whole stored documents (other elements, other parents, the shelf's summaries and top list);
//! then several tokio tasks on a multi-threaded runtime race increments and guarded decrements on
//! one element, and the element ends at the model's value (the start plus every increment, minus
//! every decrement that was applied), never below its floor, with everything else untouched. An
//! increment made of a read and a write loses updates under this race and fails the property.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test elements`.

use std::sync::Arc;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::DateTime;
use squillion::{BoundedVec, Error};
use squillion_examples_generated::elements::{
    ensure_all, Bin, Order, OrderProducts, OrderRepo, Shelf, ShelfRepo, ShelfTopBins,
};
use squillion_testkit::TestDb;

/// Tasks racing on one element.
const TASKS: usize = 8;

/// One operation on one element's counter (or, for `Weight`, a number that is not a counter).
#[derive(Debug, Clone, Copy)]
enum Op {
    Inc(i64),
    Dec(i64),
    Weight(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1i64..6).prop_map(Op::Inc),
        5 => (1i64..6).prop_map(Op::Dec),
        1 => (-3i64..4).prop_map(Op::Weight),
    ]
}

/// Which parent and element a sequential step addresses: parent 0 or 1 (2: missing), element
/// 0..3 (3: missing).
fn target() -> impl Strategy<Value = (usize, usize)> {
    (
        prop_oneof![9 => 0usize..2, 1 => Just(2usize)],
        prop_oneof![9 => 0usize..3, 1 => Just(3usize)],
    )
}

/// What an operation gave, as the model predicts it.
#[derive(Debug, PartialEq)]
enum Outcome {
    Value(i64),
    Weight(i64),
    Refused,
    NotFound,
    NoSuchElement,
}

fn outcome<T: Into<f64>>(r: Result<Option<T>, Error>, weight: bool) -> Outcome {
    match r {
        Ok(Some(v)) => {
            let v: f64 = v.into();
            if weight {
                Outcome::Weight(v as i64)
            } else {
                Outcome::Value(v as i64)
            }
        }
        Ok(None) => Outcome::Refused,
        Err(Error::NotFound { .. }) => Outcome::NotFound,
        Err(Error::NoSuchElement { .. }) => Outcome::NoSuchElement,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// The reference: each parent's elements as `(counter, weight)`.
#[derive(Debug, Clone, PartialEq)]
struct Model {
    parents: Vec<Vec<(i64, i64)>>,
    floor: i64,
}

impl Model {
    /// Applies `op` to element `e` of parent `p` and says what the repository must answer.
    fn apply(&mut self, p: usize, e: usize, op: Op) -> Outcome {
        let floor = self.floor;
        let Some(parent) = self.parents.get_mut(p) else {
            return Outcome::NotFound;
        };
        let Some(el) = parent.get_mut(e) else {
            return Outcome::NoSuchElement;
        };
        match op {
            Op::Inc(by) => {
                el.0 += by;
                Outcome::Value(el.0)
            }
            Op::Dec(by) if el.0 - by >= floor => {
                el.0 -= by;
                Outcome::Value(el.0)
            }
            Op::Dec(_) => Outcome::Refused,
            Op::Weight(by) => {
                el.1 += by;
                Outcome::Weight(el.1)
            }
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

// ---------------------------------------------------------------------------------------------
// Order lines: a relationship's own fields beside references.

struct Orders {
    repo: OrderRepo,
    ids: Vec<ObjectId>,
    products: Vec<ObjectId>,
}

impl Orders {
    async fn new(t: &TestDb, model: &Model) -> Orders {
        ensure_all(&t.db).await.unwrap();
        let repo = OrderRepo::new(&t.db);
        // The same products in both orders: an element is found within its order only.
        let products: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
        let mut ids = Vec::new();
        for lines in &model.parents {
            let mut order = Order {
                id: ObjectId::new(),
                placed: DateTime::now(),
                products: BoundedVec::new(),
            };
            for (product, (qty, weight)) in products.iter().zip(lines) {
                order
                    .products
                    .try_push(OrderProducts {
                        id: *product,
                        qty: *qty as i32,
                        weight: *weight as f64,
                    })
                    .unwrap();
            }
            repo.insert(&order).await.unwrap();
            ids.push(order.id);
        }
        Orders {
            repo,
            ids,
            products,
        }
    }

    async fn run(&self, p: usize, e: usize, op: Op) -> Outcome {
        let id = self.ids.get(p).copied().unwrap_or_else(ObjectId::new);
        let product = self.products.get(e).copied().unwrap_or_else(ObjectId::new);
        let r = &self.repo;
        match op {
            Op::Inc(by) => outcome(
                r.inc_products_qty(&id, &product, by as i32).await.map(Some),
                false,
            ),
            Op::Dec(by) => outcome(r.dec_products_qty(&id, &product, by as i32).await, false),
            Op::Weight(by) => outcome(
                r.inc_products_weight(&id, &product, by as f64)
                    .await
                    .map(Some),
                true,
            ),
        }
    }

    /// The stored orders equal the model's.
    async fn check(&self, model: &Model) {
        for (id, lines) in self.ids.iter().zip(&model.parents) {
            let got = self.repo.get(id).await.unwrap().expect("the order");
            let want: Vec<OrderProducts> = self
                .products
                .iter()
                .zip(lines)
                .map(|(product, (qty, weight))| OrderProducts {
                    id: *product,
                    qty: *qty as i32,
                    weight: *weight as f64,
                })
                .collect();
            assert_eq!(got.products.as_slice(), want.as_slice());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bins embedded in their shelf, found by their `@unique` code, with summaries and a top list.

struct Shelves {
    repo: ShelfRepo,
    ids: Vec<ObjectId>,
    codes: Vec<Vec<String>>,
}

impl Shelves {
    async fn new(t: &TestDb, model: &Model) -> Shelves {
        ensure_all(&t.db).await.unwrap();
        let repo = ShelfRepo::new(&t.db);
        let mut ids = Vec::new();
        let mut codes = Vec::new();
        for (p, bins) in model.parents.iter().enumerate() {
            let shelf = Shelf {
                id: ObjectId::new(),
                name: format!("shelf {p}"),
                bins: BoundedVec::new(),
                top_bins: BoundedVec::new(),
                bins_count: 0,
                bins_total: 0,
                bins_max: None,
            };
            repo.insert(&shelf).await.unwrap();
            // Codes are unique over every shelf (`@unique`): each shelf has its own.
            let mine: Vec<String> = (0..bins.len()).map(|e| format!("s{p}-b{e}")).collect();
            for (code, (stock, weight)) in mine.iter().zip(bins) {
                let bin = Bin {
                    code: code.clone(),
                    stock: *stock,
                    weight: *weight as f64,
                };
                repo.push_bins(&shelf.id, &bin).await.unwrap();
            }
            ids.push(shelf.id);
            codes.push(mine);
        }
        Shelves { repo, ids, codes }
    }

    async fn run(&self, p: usize, e: usize, op: Op) -> Outcome {
        let id = self.ids.get(p).copied().unwrap_or_else(ObjectId::new);
        let code = self
            .codes
            .get(p)
            .and_then(|c| c.get(e))
            .cloned()
            .unwrap_or_else(|| "no such bin".to_owned());
        let r = &self.repo;
        match op {
            Op::Inc(by) => outcome(
                r.inc_bins_stock(&id, &code, by)
                    .await
                    .map(|v| Some(v as f64)),
                false,
            ),
            Op::Dec(by) => outcome(
                r.dec_bins_stock(&id, &code, by)
                    .await
                    .map(|v| v.map(|v| v as f64)),
                false,
            ),
            Op::Weight(by) => outcome(
                r.inc_bins_weight(&id, &code, by as f64).await.map(Some),
                true,
            ),
        }
    }

    /// The stored shelves equal the model's, with the summaries and the top list of their bins.
    async fn check(&self, model: &Model) {
        for ((id, bins), codes) in self.ids.iter().zip(&model.parents).zip(&self.codes) {
            let got = self.repo.get(id).await.unwrap().expect("the shelf");
            let want: Vec<Bin> = codes
                .iter()
                .zip(bins)
                .map(|(code, (stock, weight))| Bin {
                    code: code.clone(),
                    stock: *stock,
                    weight: *weight as f64,
                })
                .collect();
            assert_eq!(got.bins.as_slice(), want.as_slice());
            assert_eq!(got.bins_count as usize, want.len());
            assert_eq!(got.bins_total, want.iter().map(|b| b.stock).sum::<i64>());
            assert_eq!(got.bins_max, want.iter().map(|b| b.stock).max());
            let mut top: Vec<ShelfTopBins> = want
                .iter()
                .map(|b| ShelfTopBins {
                    code: b.code.clone(),
                    stock: b.stock,
                })
                .collect();
            top.sort_by_key(|b| std::cmp::Reverse(b.stock));
            top.truncate(2);
            let stocks = |v: &[ShelfTopBins]| v.iter().map(|b| b.stock).collect::<Vec<_>>();
            // Ties in stock may list either bin: the stocks are what the order fixes.
            assert_eq!(
                stocks(got.top_bins.as_slice()),
                stocks(&top),
                "{:?}",
                got.top_bins
            );
        }
    }
}

/// What a layout's test needs: run one operation, check the stored documents.
trait Layout: Send + Sync + 'static {
    fn run(&self, p: usize, e: usize, op: Op) -> impl std::future::Future<Output = Outcome> + Send;
    fn check(&self, model: &Model) -> impl std::future::Future<Output = ()> + Send;
}

impl Layout for Orders {
    fn run(&self, p: usize, e: usize, op: Op) -> impl std::future::Future<Output = Outcome> + Send {
        Orders::run(self, p, e, op)
    }
    fn check(&self, model: &Model) -> impl std::future::Future<Output = ()> + Send {
        Orders::check(self, model)
    }
}

impl Layout for Shelves {
    fn run(&self, p: usize, e: usize, op: Op) -> impl std::future::Future<Output = Outcome> + Send {
        Shelves::run(self, p, e, op)
    }
    fn check(&self, model: &Model) -> impl std::future::Future<Output = ()> + Send {
        Shelves::check(self, model)
    }
}

/// The sequential steps, each predicted by the model, then the race on element `hot` of parent 0.
async fn exercise<L: Layout>(
    layout: Arc<L>,
    mut model: Model,
    steps: &[((usize, usize), Op)],
    races: &[Vec<Op>],
    hot: usize,
) {
    for ((p, e), op) in steps {
        let want = model.apply(*p, *e, *op);
        let got = layout.run(*p, *e, *op).await;
        assert_eq!(got, want, "{op:?} on parent {p}, element {e}");
    }
    layout.check(&model).await;

    // The race: every task on the same element, all started before any is awaited.
    let start = model.parents[0][hot].0;
    let floor = model.floor;
    let handles: Vec<_> = races
        .iter()
        .map(|ops| {
            let layout = layout.clone();
            let ops = ops.clone();
            tokio::spawn(async move {
                let mut applied = 0i64;
                let mut refused = 0usize;
                for op in ops.iter().copied() {
                    match (op, layout.run(0, hot, op).await) {
                        (Op::Inc(by), Outcome::Value(v)) => {
                            applied += by;
                            assert!(v >= floor + by, "an increment returned {v}");
                        }
                        (Op::Dec(by), Outcome::Value(v)) => {
                            applied -= by;
                            assert!(v >= floor, "a decrement went below the floor: {v}");
                        }
                        (Op::Dec(_), Outcome::Refused) => refused += 1,
                        (Op::Weight(_), Outcome::Weight(_)) => {}
                        (op, other) => panic!("{op:?} gave {other:?}"),
                    }
                }
                (applied, refused, ops_weight(&ops))
            })
        })
        .collect();
    let mut applied = 0;
    let mut weight = 0;
    for h in handles {
        let (a, _refused, w) = h.await.expect("a racing task");
        applied += a;
        weight += w;
    }
    model.parents[0][hot].0 = start + applied;
    model.parents[0][hot].1 += weight;
    assert!(model.parents[0][hot].0 >= floor);
    // The element ends at the start plus every applied change; nothing else moved.
    layout.check(&model).await;
}

fn ops_weight(ops: &[Op]) -> i64 {
    ops.iter()
        .map(|o| match o {
            Op::Weight(by) => *by,
            _ => 0,
        })
        .sum()
}

fn start_values(floor: i64) -> impl Strategy<Value = Vec<Vec<(i64, i64)>>> {
    prop::collection::vec(prop::collection::vec((floor..floor + 15, -5i64..5), 3), 2)
}

fn races() -> impl Strategy<Value = Vec<Vec<Op>>> {
    prop::collection::vec(prop::collection::vec(op(), 20..30), TASKS)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    /// Order lines: `inc_products_qty`, the guarded `dec_products_qty`, `inc_products_weight`.
    #[test]
    fn order_lines_count_one_line_at_a_time_under_races(
        parents in start_values(0),
        steps in prop::collection::vec((target(), op()), 10..40),
        races in races(),
        hot in 0usize..3,
    ) {
        runtime().block_on(async {
            let t = TestDb::new("elements_lines").await;
            let model = Model { parents, floor: 0 };
            let orders = Arc::new(Orders::new(&t, &model).await);
            exercise(orders, model, &steps, &races, hot).await;
            t.cleanup().await;
        });
    }

    /// Bins found by their code: `inc_bins_stock`, the guarded `dec_bins_stock` (floor 2, the
    /// range's smallest), `inc_bins_weight`, with the shelf's summaries and top list kept.
    #[test]
    fn bins_count_one_bin_at_a_time_under_races(
        parents in start_values(2),
        steps in prop::collection::vec((target(), op()), 10..40),
        races in races(),
        hot in 0usize..3,
    ) {
        runtime().block_on(async {
            let t = TestDb::new("elements_bins").await;
            let model = Model { parents, floor: 2 };
            let shelves = Arc::new(Shelves::new(&t, &model).await);
            exercise(shelves, model, &steps, &races, hot).await;
            t.cleanup().await;
        });
    }
}

/// A decrement the element cannot take is refused and writes nothing; the error of a missing
/// element names the array, the document and the key.
#[test]
fn refusals_and_errors_say_what_is_missing() {
    runtime().block_on(async {
        let t = TestDb::new("elements_errors").await;
        let model = Model {
            parents: vec![vec![(3, 0), (1, 0), (0, 0)]],
            floor: 0,
        };
        let orders = Orders::new(&t, &model).await;
        let (id, line) = (orders.ids[0], orders.products[1]);
        assert_eq!(
            orders.repo.dec_products_qty(&id, &line, 2).await.unwrap(),
            None
        );
        assert_eq!(
            orders.repo.dec_products_qty(&id, &line, 1).await.unwrap(),
            Some(0)
        );
        assert_eq!(
            orders.repo.dec_products_qty(&id, &line, 1).await.unwrap(),
            None
        );
        let stranger = ObjectId::new();
        let e = orders
            .repo
            .inc_products_qty(&id, &stranger, 1)
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::NoSuchElement { .. }), "{e:?}");
        assert!(
            text.contains("orders.products") && text.contains(&stranger.to_hex()),
            "{text}"
        );
        let e = orders
            .repo
            .dec_products_qty(&stranger, &line, 1)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
        orders
            .check(&Model {
                parents: vec![vec![(3, 0), (0, 0), (0, 0)]],
                floor: 0,
            })
            .await;
        t.cleanup().await;
    });
}
