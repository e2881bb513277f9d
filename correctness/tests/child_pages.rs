//! Issue 12 against the server: `find_by_customer`, the listing of a parent's children the derive
//! writes for a child_ref relationship (`families::child_pages`), pages by keyset in the order the
//! relation declares (`page 20 by placed_at desc`, ascending, or none: `_id`), with the reference
//! stored as an id or as an extended reference. For generated orders (few dates, so the declared
//! key ties and `_id` breaks the ties), the pages read one after another, whatever their size,
//! are exactly the customer's orders in a reference sort; `count_by_customer` counts them; and the
//! Plan's index on the reference holds the declared order then `_id`, so it serves the pages.

use std::cmp::Ordering;

use squillion::bson::oid::ObjectId;
use squillion::bson::DateTime;
use squillion_testkit::{Lcg, TestDb};

/// One order of the reference model.
#[derive(Debug, Clone, PartialEq)]
struct Order {
    id: ObjectId,
    customer: ObjectId,
    placed_at: DateTime,
    total: i32,
}

/// How the schema orders a customer's orders: by `placed_at` (`Some(descending)`) or by `_id`.
fn reference(orders: &[Order], customer: ObjectId, by_date: Option<bool>) -> Vec<ObjectId> {
    let mut mine: Vec<&Order> = orders.iter().filter(|o| o.customer == customer).collect();
    mine.sort_by(|a, b| {
        let by = match by_date {
            Some(true) => b.placed_at.cmp(&a.placed_at),
            Some(false) => a.placed_at.cmp(&b.placed_at),
            None => Ordering::Equal,
        };
        by.then(a.id.cmp(&b.id))
    });
    mine.into_iter().map(|o| o.id).collect()
}

macro_rules! check {
    ($m:ident, $by_date:expr, |$o:ident| $customer:expr) => {{
        use squillion_correctness::$m as m;
        let module = stringify!($m);
        let t = TestDb::new(module).await;
        let db = &t.db;
        m::ensure_indexes(db).await.expect("indexes");
        let (customers, orders) = (m::CustomerRepo::new(db), m::OrderRepo::new(db));
        let people: Vec<m::Customer> = ["ada", "bob"]
            .iter()
            .map(|n| m::Customer {
                id: ObjectId::new(),
                name: (*n).to_owned(),
            })
            .collect();
        for c in &people {
            customers.insert(c).await.expect("insert a customer");
        }
        let mut r = Lcg(module.len() as u64);
        let model: Vec<Order> = (0..40)
            .map(|_| Order {
                id: ObjectId::new(),
                customer: people[r.below(2) as usize].id,
                placed_at: DateTime::from_millis(
                    1_700_000_000_000 + r.below(5) as i64 * 86_400_000,
                ),
                total: r.below(100) as i32,
            })
            .collect();
        for $o in &model {
            let name = &people
                .iter()
                .find(|c| c.id == $o.customer)
                .expect("a customer")
                .name;
            let doc = m::Order {
                id: $o.id,
                placed_at: $o.placed_at,
                total: $o.total,
                customer: $customer(name.clone()),
            };
            orders.insert(&doc).await.expect("insert an order");
        }
        for c in &people {
            let want = reference(&model, c.id, $by_date);
            assert_eq!(
                orders.count_by_customer(&c.id).await.expect("count"),
                want.len() as u64,
                "{module}"
            );
            for per_page in [1u32, 3, 7, 50] {
                let mut read = Vec::new();
                let mut after = None;
                loop {
                    let page = orders
                        .find_by_customer(&c.id, after.as_ref(), per_page)
                        .await
                        .expect("find_by_customer");
                    assert!(page.items.len() <= per_page as usize, "{module}");
                    read.extend(page.items.iter().map(|o| o.id));
                    match page.next {
                        Some(next) => after = Some(next),
                        None => break,
                    }
                }
                assert_eq!(read, want, "{module}: pages of {per_page}");
            }
        }
        // The Plan's index on the reference: the declared order, then `_id`.
        let plan: serde_json::Value = serde_json::from_str(m::PLAN_JSON).expect("the Plan");
        let orders_collection = plan["collections"]
            .as_array()
            .expect("collections")
            .iter()
            .find(|c| c["entity"] == "Order")
            .expect("orders");
        let keys: Vec<(String, i64)> = orders_collection["indexes"]
            .as_array()
            .expect("indexes")
            .iter()
            .flat_map(|i| i["keys"].as_array().cloned().unwrap_or_default())
            .map(|k| {
                (
                    k["path"].as_str().unwrap_or_default().to_owned(),
                    k["direction"].as_i64().unwrap_or_default(),
                )
            })
            .collect();
        let mut served: Vec<(String, i64)> = Vec::new();
        if let Some(desc) = $by_date {
            served.push(("placed_at".to_owned(), if desc { -1 } else { 1 }));
        }
        served.push(("_id".to_owned(), 1));
        assert!(
            keys.windows(served.len() + 1)
                .any(|w| w[0].0.starts_with("customer") && w[1..] == served[..]),
            "{module}: the index keys {keys:?} do not serve the pages"
        );
        t.cleanup().await;
    }};
}

#[tokio::test]
async fn find_by_parent_pages_in_the_declared_order_with_ties_broken_by_id() {
    check!(child_pages_desc, Some(true), |o| |_: String| o.customer);
    check!(child_pages_asc, Some(false), |o| |_: String| o.customer);
    check!(child_pages_by_id, None, |o| |_: String| o.customer);
    check!(child_pages_extended_desc, Some(true), |o| |name: String| {
        squillion_correctness::child_pages_extended_desc::CustomerRef {
            id: o.customer,
            name,
        }
    });
}
