//! Enumerations (`one_of(...)`) against the server, on `Order.status` and the optional
//! `Order.channel` of `examples/catalog.sqn`: every value of the generated enum is stored as its
//! exact text and read back as itself (insert, `get`, the per-field setter); the validator the
//! repository installs refuses any other text, and a document holding a text the enum does not
//! know fails to read instead of passing silently. The query `orders_in_states` (`status in ?
//! and channel == ?`) takes the enums and answers exactly the orders a model selects, whole, page
//! by page and streamed.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test enums`.

use std::collections::BTreeSet;

use futures::TryStreamExt;
use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, DateTime, Document};
use squillion_examples_generated::catalog::{
    Order, OrderChannel, OrderRepo, OrderStatus, Payment, ShippingAddress,
};
use squillion_testkit::TestDb;

fn order(status: OrderStatus, channel: Option<OrderChannel>) -> Order {
    Order {
        id: ObjectId::new(),
        line_items: Vec::new().try_into().unwrap(),
        address: ShippingAddress {
            name: "n".into(),
            street: "s".into(),
            zip: 1,
        },
        payment: Payment {
            cc: 1,
            exp: DateTime::from_millis(0),
        },
        subtotal: 10,
        status,
        channel,
    }
}

fn status() -> impl Strategy<Value = OrderStatus> {
    prop::sample::select(OrderStatus::ALL.to_vec())
}

fn channel() -> impl Strategy<Value = Option<OrderChannel>> {
    prop::option::of(prop::sample::select(OrderChannel::ALL.to_vec()))
}

/// Every text the enum lists, from the generated `as_str`.
fn known() -> Vec<&'static str> {
    OrderStatus::ALL.iter().map(|s| s.as_str()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// `orders_in_states(statuses, channel)` answers the orders whose status is one of
    /// `statuses` and whose channel is `channel` (an order without a channel never), the same
    /// through the paged and the streamed methods.
    #[test]
    fn the_query_over_enumerations_answers_what_the_model_selects(
        orders in prop::collection::vec((status(), channel()), 0..24),
        wanted in prop::collection::vec(status(), 0..4),
        asked in prop::sample::select(OrderChannel::ALL.to_vec()),
        per_page in 1u32..5,
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("enums_query").await;
            let repo = OrderRepo::new(&t.db);
            repo.ensure_validator().await.unwrap();
            repo.ensure_indexes().await.unwrap();
            let mut expected = BTreeSet::new();
            for (s, c) in &orders {
                let o = order(*s, *c);
                repo.insert(&o).await.unwrap();
                if wanted.contains(s) && *c == Some(asked) {
                    expected.insert(o.id);
                }
            }
            let ids = |found: &[Order]| -> Vec<ObjectId> { found.iter().map(|o| o.id).collect() };
            let found = repo.orders_in_states(&wanted, &asked).await.unwrap();
            let set: BTreeSet<ObjectId> = ids(&found).into_iter().collect();
            assert_eq!(set.len(), found.len(), "an order answered twice");
            assert_eq!(set, expected, "statuses {wanted:?}, channel {asked:?}");
            for o in &found {
                assert!(wanted.contains(&o.status) && o.channel == Some(asked));
            }
            let mut paged = Vec::new();
            let mut after = None;
            loop {
                let page = repo
                    .orders_in_states_page(&wanted, &asked, after.as_ref(), per_page)
                    .await
                    .unwrap();
                assert!(page.items.len() <= per_page as usize);
                paged.extend(ids(&page.items));
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            let paged_set: BTreeSet<ObjectId> = paged.iter().copied().collect();
            assert_eq!(paged_set.len(), paged.len(), "a page repeated an order");
            assert_eq!(paged_set, expected);
            let streamed: Vec<Order> = repo
                .orders_in_states_stream(&wanted, &asked)
                .try_collect()
                .await
                .unwrap();
            assert_eq!(ids(&streamed).into_iter().collect::<BTreeSet<_>>(), expected);
            let counted = repo.count_orders_in_states(&wanted, &asked).await.unwrap();
            assert_eq!(counted, expected.len() as u64, "count of statuses {wanted:?}, channel {asked:?}");
            t.cleanup().await;
        });
    }

    /// Insert, read back, change with the setter: the stored text is the value's `as_str`, and
    /// what is read is the value written.
    #[test]
    fn every_value_round_trips_as_its_exact_text(
        first in status(),
        then in status(),
        channel in channel(),
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("enums_round_trip").await;
            let repo = OrderRepo::new(&t.db);
            repo.ensure_validator().await.unwrap();
            let o = order(first, channel);
            repo.insert(&o).await.unwrap();
            let raw = t.db.collection::<Document>("orders");
            let stored = raw.find_one(doc! { "_id": o.id }).await.unwrap().unwrap();
            assert_eq!(stored.get_str("status").unwrap(), first.as_str());
            assert_eq!(
                stored.get_str("channel").ok(),
                channel.map(|c| c.as_str()),
                "an absent channel is not stored"
            );
            assert_eq!(repo.get(&o.id).await.unwrap(), Some(o.clone()));
            repo.set_status(&o.id, &then).await.unwrap();
            let got = repo.get(&o.id).await.unwrap().unwrap();
            assert_eq!(got.status, then);
            assert_eq!(Bson::from(then), Bson::String(then.to_string()));
            t.cleanup().await;
        });
    }

    /// Any text the enum does not list is refused by the validator (code 121), through the raw
    /// collection as through a document with a bad value.
    #[test]
    fn the_validator_refuses_any_other_text(text in "[a-z-]{0,12}|\\PC{0,8}") {
        prop_assume!(!known().contains(&text.as_str()));
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("enums_refused").await;
            let repo = OrderRepo::new(&t.db);
            repo.ensure_validator().await.unwrap();
            let o = order(OrderStatus::New, None);
            let mut bad = squillion::bson::to_document(&o).unwrap();
            bad.insert("status", text.clone());
            let raw = t.db.collection::<Document>("orders");
            let err = raw.insert_one(bad).await.unwrap_err();
            assert!(
                squillion::Error::from(err).is_validation_failure(),
                "{text:?} was not refused by the validator"
            );
            // A known value in the same document passes: the refusal is the enum's.
            raw.insert_one(squillion::bson::to_document(&o).unwrap()).await.unwrap();
            t.cleanup().await;
        });
    }
}

/// A document written without the validator (older data) holding an unknown text fails to
/// read: the enum never turns it into some other value.
#[tokio::test]
async fn an_unknown_stored_text_fails_to_read() {
    let t = TestDb::new("enums_unknown").await;
    let repo = OrderRepo::new(&t.db);
    let o = order(OrderStatus::Paid, Some(OrderChannel::Web));
    let mut bad = squillion::bson::to_document(&o).unwrap();
    bad.insert("status", "cancelled");
    t.db.collection::<Document>("orders")
        .insert_one(bad)
        .await
        .unwrap();
    assert!(repo.get(&o.id).await.is_err());
    t.cleanup().await;
}
