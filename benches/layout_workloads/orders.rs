//! A read-heavy extended reference (seed 000, MongoDB's extended reference pattern):
//! `Customer.orders`, `many(1000)`, orders standalone and shown with their customer's name and
//! address (`show ... ratio 1000:1`); an order by number 400/s, a customer's latest 20 orders
//! 40/s. 200 customers of 30 orders; the hot read is an order by its number.

use squillion::__private::bson::{doc, oid::ObjectId, DateTime};
use squillion::__private::mongodb::{Client, Database};
use squillion::BoundedVec;

use crate::common::{h, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, orders_all_refs, orders_chosen, orders_parent_refs};

const CUSTOMERS: usize = 200;
const ORDERS: usize = 30;
const LATEST: usize = 20;

fn number(c: usize, k: usize) -> String {
    format!("ORD-{c:04}-{k:06}")
}

fn placed(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 60_000)
}

fn name(c: usize) -> String {
    format!("Customer {c}")
}

fn address(c: usize) -> String {
    format!("{c} Long Island Road, West Egg, NY 11560, United States of America, door {c}")
}

macro_rules! order {
    ($m:ident, $c:expr, $k:expr, $customer:expr) => {
        $m::Order {
            id: ObjectId::new(),
            number: number($c, $k),
            placed_on: placed($k),
            total: 20.0 + ($k % 50) as f64,
            lines: "2 x organic cotton t-shirt (blue, M) at 19.90; ".repeat(8),
            customer: $customer,
        }
    };
}

macro_rules! customer {
    ($m:ident, $id:expr, $c:expr $(, $f:ident: $v:expr)*) => {
        $m::Customer {
            id: $id,
            name: name($c),
            email: format!("customer{}@example.com", $c),
            address: address($c),
            $($f: $v,)*
        }
    };
}

/// The customer, and one of its seeded orders, an operation reads; the customer it adds to.
fn target(i: usize) -> (usize, usize) {
    (h(i, 31) % CUSTOMERS, h(i, 32) % ORDERS)
}

macro_rules! copied {
    ($ty:ident, $m:ident, $label:literal, $schema:literal, $refs:expr $(, add = $add:ident)?) => {
        struct $ty {
            ids: Vec<ObjectId>,
            customers: $m::CustomerRepo,
            orders: $m::OrderRepo,
        }

        impl $ty {
            fn copy(&self, c: usize) -> $m::CustomerRef {
                $m::CustomerRef {
                    id: self.ids[c],
                    name: name(c),
                    address: address(c),
                }
            }
        }

        impl Variant for $ty {
            fn name(&self) -> &'static str {
                $label
            }
            fn schema(&self) -> &'static str {
                include_str!($schema)
            }
            async fn seed(&self) {
                self.orders.ensure_indexes().await.unwrap();
                self.customers.ensure_indexes().await.unwrap();
                let mut cs = Vec::new();
                let mut os = Vec::new();
                for c in 0..CUSTOMERS {
                    let these: Vec<_> = (0..ORDERS).map(|k| order!($m, c, k, self.copy(c))).collect();
                    cs.push($refs(self.ids[c], c, these.iter().map(|o| o.id).collect::<Vec<_>>()));
                    os.extend(these);
                }
                self.customers.insert_many(&cs).await.unwrap();
                self.orders.insert_many(&os).await.unwrap();
            }
            async fn run(&self, op: Op, i: usize) -> usize {
                let (c, k) = target(i);
                match op {
                    Op::Write => {
                        let o = order!($m, c, ORDERS + i, self.copy(c));
                        self.orders.insert(&o).await.unwrap();
                        $(self.customers.$add(&self.ids[c], &o.id).await.unwrap();)?
                        0
                    }
                    // An order's page: the order, its customer's name and address copied in.
                    Op::Hot => {
                        let os = self.orders.order_by_number(&number(c, k)).await.unwrap();
                        os.iter().map(|o| o.customer.name.len().min(1)).sum()
                    }
                    Op::Other(_) => self.latest(c).await,
                }
            }
        }
    };
}

copied!(
    Chosen,
    orders_chosen,
    "child_ref + name, address copied (chosen)",
    "../layouts/orders_chosen.sqn",
    |id, c, _ids: Vec<ObjectId>| customer!(orders_chosen, id, c)
);
copied!(
    ParentRefs,
    orders_parent_refs,
    "parent_refs + name, address copied (forced)",
    "../layouts/orders_parent_refs.sqn",
    |id, c, ids: Vec<ObjectId>| customer!(orders_parent_refs, id, c, orders: BoundedVec::try_from(ids).unwrap()),
    add = add_orders
);

impl Chosen {
    async fn latest(&self, c: usize) -> usize {
        self.orders
            .orders_of_customer(&self.ids[c], &0.0)
            .await
            .unwrap()
            .len()
    }
}

impl ParentRefs {
    /// No generated query (W119): the customer, then its last 20 ids with `$in`.
    async fn latest(&self, c: usize) -> usize {
        let doc = self.customers.get(&self.ids[c]).await.unwrap().unwrap();
        let ids: Vec<ObjectId> = doc.orders.iter().rev().take(LATEST).copied().collect();
        let mut os = self
            .orders
            .find(doc! { "_id": { "$in": ids }, "total": { "$gte": 0.0 } })
            .await
            .unwrap();
        os.sort_by_key(|o| std::cmp::Reverse(o.placed_on));
        os.len()
    }
}

struct AllRefs {
    ids: Vec<ObjectId>,
    customers: orders_all_refs::CustomerRepo,
    orders: orders_all_refs::OrderRepo,
}

impl Variant for AllRefs {
    fn name(&self) -> &'static str {
        "child_ref, nothing copied (all references)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/orders_all_refs.sqn")
    }
    async fn seed(&self) {
        self.orders.ensure_indexes().await.unwrap();
        let cs: Vec<_> = (0..CUSTOMERS)
            .map(|c| customer!(orders_all_refs, self.ids[c], c))
            .collect();
        let os: Vec<_> = (0..CUSTOMERS)
            .flat_map(|c| (0..ORDERS).map(move |k| (c, k)))
            .map(|(c, k)| order!(orders_all_refs, c, k, self.ids[c]))
            .collect();
        self.customers.insert_many(&cs).await.unwrap();
        self.orders.insert_many(&os).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (c, k) = target(i);
        match op {
            Op::Write => {
                let o = order!(orders_all_refs, c, ORDERS + i, self.ids[c]);
                self.orders.insert(&o).await.unwrap();
                0
            }
            // An order's page: the order, then its customer by id (an application-level join).
            Op::Hot => {
                let os = self.orders.order_by_number(&number(c, k)).await.unwrap();
                let mut n = 0;
                for o in &os {
                    let who = self.customers.get(&o.customer).await.unwrap().unwrap();
                    n += who.name.len().min(1);
                }
                n
            }
            Op::Other(_) => self
                .orders
                .orders_of_customer(&self.ids[c], &0.0)
                .await
                .unwrap()
                .len(),
        }
    }
}

pub async fn run(client: &Client, ops: usize, rounds: usize, dbs: &mut Vec<Database>) -> Outcome {
    let ids: Vec<ObjectId> = (0..CUSTOMERS).map(|_| ObjectId::new()).collect();
    let d: Vec<Database> = (0..3).map(|k| db(client, &format!("orders{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = Chosen {
        ids: ids.clone(),
        customers: orders_chosen::CustomerRepo::new(&d[0]),
        orders: orders_chosen::OrderRepo::new(&d[0]),
    };
    let parent_refs = ParentRefs {
        ids: ids.clone(),
        customers: orders_parent_refs::CustomerRepo::new(&d[1]),
        orders: orders_parent_refs::OrderRepo::new(&d[1]),
    };
    let all_refs = AllRefs {
        ids: ids.clone(),
        customers: orders_all_refs::CustomerRepo::new(&d[2]),
        orders: orders_all_refs::OrderRepo::new(&d[2]),
    };
    // The Plan's workload: the latest orders (40/s) are its list reads, an order by number
    // (400/s) its reads alone, an order placed per ten reads.
    let w = workload(chosen.schema(), "Customer.orders");
    let mix = Mix::new(&[
        (Op::Hot, w.alone_reads),
        (Op::Other(0), w.list_reads),
        (Op::Write, w.appends),
    ]);
    let rows = crate::drive!(&mix, ops, rounds; chosen, parent_refs, all_refs);
    Outcome {
        schema: rows[0].schema.clone(),
        title: "Orders (extended reference): Customer.orders, orders read alone 400/s with their customer's name and address".into(),
        relation: "Customer.orders",
        mix: mix.describe(&|op| match op {
            Op::Hot => "order by number",
            Op::Other(_) => "latest 20 orders",
            Op::Write => "order placed",
        }),
        rows,
    }
}
