//! Each field's own update methods against the real server (issue 12): `set_<f>` for every kind of
//! field the application owns, `inc_<f>` for numbers, the guarded `dec_<f>` of counters at 0, at a
//! declared minimum and under racing writers. A random sequence of operations runs against the
//! server and against a model of the document (the struct updated in memory); after each step the
//! stored document must be the model.

mod derive_support;

use derive_support::database;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId, DateTime};
use squillion::Error;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub city: String,
    pub zip: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "shelves", validator = false)]
pub struct Shelf {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "items")]
pub struct Item {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[serde(rename = "q")]
    pub quantity: i32,
    pub views: i64,
    pub rating: f64,
    pub active: bool,
    pub updated: DateTime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    pub tags: Vec<String>,
    pub address: Address,
    #[squillion(child_ref(to = Shelf))]
    pub shelf: ObjectId,
    #[squillion(counter)]
    pub stock: i32,
    #[squillion(counter, minimum = -100)]
    pub balance: i64,
    #[squillion(counter, minimum = 0.5)]
    pub fuel: f64,
}

fn item(shelf: ObjectId) -> Item {
    Item {
        id: ObjectId::new(),
        name: "lamp".into(),
        quantity: 1,
        views: 0,
        rating: 2.5,
        active: true,
        updated: DateTime::from_millis(1_000),
        note: None,
        weight: Some(3),
        tags: vec!["a".into()],
        address: Address {
            city: "Oslo".into(),
            zip: 150,
        },
        shelf,
        stock: 2,
        balance: 0,
        fuel: 1.0,
    }
}

async fn stored(repo: &ItemRepo, id: &ObjectId) -> Item {
    repo.get(id).await.unwrap().expect("the item is stored")
}

#[tokio::test]
async fn every_kind_of_field_has_a_setter_that_writes_only_it() {
    let db = database("fields_setters").await;
    let repo = ItemRepo::new(&db);
    let mut model = item(ObjectId::new());
    repo.insert(&model).await.unwrap();
    let id = model.id;

    repo.set_name(&id, "desk").await.unwrap();
    model.name = "desk".into();
    repo.set_quantity(&id, &7).await.unwrap();
    model.quantity = 7;
    repo.set_views(&id, &9_000_000_000).await.unwrap();
    model.views = 9_000_000_000;
    repo.set_rating(&id, &4.75).await.unwrap();
    model.rating = 4.75;
    repo.set_active(&id, &false).await.unwrap();
    model.active = false;
    repo.set_updated(&id, &DateTime::from_millis(2_000))
        .await
        .unwrap();
    model.updated = DateTime::from_millis(2_000);
    repo.set_note(&id, &Some("fragile".into())).await.unwrap();
    model.note = Some("fragile".into());
    repo.set_weight(&id, &None).await.unwrap();
    model.weight = None;
    repo.set_tags(&id, &vec!["x".into(), "y".into()])
        .await
        .unwrap();
    model.tags = vec!["x".into(), "y".into()];
    let bergen = Address {
        city: "Bergen".into(),
        zip: 5003,
    };
    repo.set_address(&id, &bergen).await.unwrap();
    model.address = bergen;
    let other_shelf = ObjectId::new();
    repo.set_shelf(&id, &other_shelf).await.unwrap();
    model.shelf = other_shelf;
    repo.set_stock(&id, &11).await.unwrap();
    model.stock = 11;
    assert_eq!(stored(&repo, &id).await, model);

    // Renamed fields are written under their stored name; an absent optional is left out.
    let raw = db
        .collection::<bson::Document>("items")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_i32("q").unwrap(), 7);
    assert!(!raw.contains_key("quantity"));
    assert!(!raw.contains_key("weight"), "None is $unset: {raw}");

    // The validator derived from the struct accepts every value a setter writes.
    repo.ensure_validator().await.unwrap();
    repo.set_weight(&id, &Some(8)).await.unwrap();
    repo.set_note(&id, &None).await.unwrap();

    let missing = ObjectId::new();
    assert!(matches!(
        repo.set_name(&missing, "x").await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        repo.inc_views(&missing, 1).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        repo.dec_stock(&missing, 1).await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn a_guarded_decrement_stops_at_zero_and_at_a_declared_minimum() {
    let db = database("fields_counters").await;
    let repo = ItemRepo::new(&db);
    let model = item(ObjectId::new());
    repo.insert(&model).await.unwrap();
    let id = model.id;

    // stock: 2 -> 1 -> 0, then refused at 0; a decrement larger than the stock is refused too.
    assert_eq!(repo.dec_stock(&id, 1).await.unwrap(), Some(1));
    assert_eq!(repo.dec_stock(&id, 2).await.unwrap(), None);
    assert_eq!(repo.dec_stock(&id, 1).await.unwrap(), Some(0));
    assert_eq!(repo.dec_stock(&id, 1).await.unwrap(), None);
    assert_eq!(stored(&repo, &id).await.stock, 0);
    assert_eq!(repo.inc_stock(&id, 3).await.unwrap(), 3);

    // balance: minimum -100, reached exactly, then refused.
    assert_eq!(repo.dec_balance(&id, 60).await.unwrap(), Some(-60));
    assert_eq!(repo.dec_balance(&id, 41).await.unwrap(), None);
    assert_eq!(repo.dec_balance(&id, 40).await.unwrap(), Some(-100));
    assert_eq!(repo.dec_balance(&id, 1).await.unwrap(), None);
    assert_eq!(stored(&repo, &id).await.balance, -100);

    // fuel: a fractional minimum.
    assert_eq!(repo.dec_fuel(&id, 0.5).await.unwrap(), Some(0.5));
    assert_eq!(repo.dec_fuel(&id, 0.25).await.unwrap(), None);

    // A decrement whose negation does not fit is refused before anything is sent.
    assert!(matches!(
        repo.dec_stock(&id, i32::MIN).await,
        Err(Error::InvalidAmount { .. })
    ));
    assert_eq!(stored(&repo, &id).await.stock, 3);
}

/// The validator carries each counter's floor (0, or the declared minimum): a write that goes
/// around the guarded `dec_` (a raw `$set`, another application) cannot take it lower.
#[tokio::test]
async fn the_validator_refuses_a_counter_below_its_floor() {
    let db = database("fields_counter_floor").await;
    let repo = ItemRepo::new(&db);
    repo.ensure_validator().await.unwrap();
    let model = item(ObjectId::new());
    repo.insert(&model).await.unwrap();
    let raw = db.collection::<bson::Document>("items");
    for (field, floor, below) in [
        ("stock", bson::Bson::Int32(0), bson::Bson::Int32(-1)),
        ("balance", bson::Bson::Int64(-100), bson::Bson::Int64(-101)),
        ("fuel", bson::Bson::Double(0.5), bson::Bson::Double(0.25)),
    ] {
        let err = raw
            .update_one(
                doc! { "_id": model.id },
                doc! { "$set": { field: below.clone() } },
            )
            .await
            .unwrap_err();
        assert!(
            Error::from(err).is_validation_failure(),
            "{field} = {below} was not refused"
        );
        raw.update_one(doc! { "_id": model.id }, doc! { "$set": { field: floor } })
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_decrements_never_take_a_counter_below_zero() {
    const STOCK: i32 = 25;
    const WRITERS: usize = 8;
    const TRIES: usize = 10;
    let db = database("fields_race").await;
    let repo = ItemRepo::new(&db);
    let mut model = item(ObjectId::new());
    model.stock = STOCK;
    repo.insert(&model).await.unwrap();
    let id = model.id;
    let mut tasks = Vec::new();
    for _ in 0..WRITERS {
        let repo = repo.clone();
        tasks.push(tokio::spawn(async move {
            let mut applied = 0;
            for _ in 0..TRIES {
                if repo.dec_stock(&id, 1).await.unwrap().is_some() {
                    applied += 1;
                }
                repo.inc_views(&id, 1).await.unwrap();
            }
            applied
        }));
    }
    let mut applied = 0;
    for t in tasks {
        applied += t.await.unwrap();
    }
    let after = stored(&repo, &id).await;
    assert_eq!(applied, STOCK, "exactly the stock was handed out");
    assert_eq!(after.stock, 0);
    assert_eq!(after.views, (WRITERS * TRIES) as i64, "no increment lost");
}

/// One operation of the model-based test.
#[derive(Debug, Clone)]
enum Op {
    SetQuantity(i32),
    IncQuantity(i32),
    IncViews(i64),
    IncRating(i8),
    DecStock(i32),
    IncStock(i32),
    DecBalance(i64),
    SetNote(Option<String>),
    SetName(String),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (-50i32..50).prop_map(Op::SetQuantity),
        (-50i32..50).prop_map(Op::IncQuantity),
        (-5i64..5).prop_map(Op::IncViews),
        (-4i8..4).prop_map(Op::IncRating),
        (0i32..4).prop_map(Op::DecStock),
        (0i32..3).prop_map(Op::IncStock),
        (0i64..60).prop_map(Op::DecBalance),
        proptest::option::of("[a-z]{0,3}").prop_map(Op::SetNote),
        "[a-z]{1,5}".prop_map(Op::SetName),
    ]
}

/// Applies `op` to the model; for guarded decrements, whether it applies.
fn apply(model: &mut Item, op: &Op) -> Option<bool> {
    match op {
        Op::SetQuantity(v) => model.quantity = *v,
        Op::IncQuantity(v) => model.quantity += v,
        Op::IncViews(v) => model.views += v,
        Op::IncRating(v) => model.rating += f64::from(*v) / 4.0,
        Op::IncStock(v) => model.stock += v,
        Op::DecStock(v) => {
            let ok = model.stock - v >= 0;
            if ok {
                model.stock -= v;
            }
            return Some(ok);
        }
        Op::DecBalance(v) => {
            let ok = model.balance - v >= -100;
            if ok {
                model.balance -= v;
            }
            return Some(ok);
        }
        Op::SetNote(n) => model.note = n.clone(),
        Op::SetName(n) => model.name = n.clone(),
    }
    None
}

async fn run(repo: &ItemRepo, id: &ObjectId, op: &Op) -> Option<bool> {
    match op {
        Op::SetQuantity(v) => repo.set_quantity(id, v).await.unwrap(),
        Op::IncQuantity(v) => {
            repo.inc_quantity(id, *v).await.unwrap();
        }
        Op::IncViews(v) => {
            repo.inc_views(id, *v).await.unwrap();
        }
        Op::IncRating(v) => {
            repo.inc_rating(id, f64::from(*v) / 4.0).await.unwrap();
        }
        Op::IncStock(v) => {
            repo.inc_stock(id, *v).await.unwrap();
        }
        Op::DecStock(v) => return Some(repo.dec_stock(id, *v).await.unwrap().is_some()),
        Op::DecBalance(v) => return Some(repo.dec_balance(id, *v).await.unwrap().is_some()),
        Op::SetNote(n) => repo.set_note(id, n).await.unwrap(),
        Op::SetName(n) => repo.set_name(id, n).await.unwrap(),
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any sequence of setters, increments and guarded decrements leaves the stored document
    /// equal to the model, and a decrement applies exactly when the model says it may.
    #[test]
    fn the_stored_document_follows_the_model(ops in proptest::collection::vec(op(), 1..24)) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let db = database("fields_model").await;
            let repo = ItemRepo::new(&db);
            let mut model = item(ObjectId::new());
            repo.insert(&model).await.unwrap();
            for op in &ops {
                let expected = apply(&mut model, op);
                let got = run(&repo, &model.id, op).await;
                assert_eq!(got, expected, "{op:?}");
                assert_eq!(stored(&repo, &model.id).await, model, "after {op:?}");
            }
        });
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CartItem {
    pub sku: String,
    pub qty: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cart {
    pub total: i32,
    pub items: squillion::BoundedVec<CartItem, 3>,
}

/// A user whose cart is embedded one-to-one, with an array of items inside it (`cart.items`), as
/// the code generator describes it to the derive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "users")]
pub struct User {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(
        inner(path = "total", name = "total", ty = i32, counter),
        inner(path = "items", name = "items", ty = squillion::BoundedVec<CartItem, 3>),
        inner_array(path = "items", name = "items", elem = CartItem, max = 3, key = "sku", key_ty = String)
    )]
    pub cart: Cart,
}

fn line(sku: &str, qty: i32) -> CartItem {
    CartItem {
        sku: sku.into(),
        qty,
    }
}

#[tokio::test]
async fn an_array_inside_a_subdocument_is_pushed_to_its_bound_and_updated_and_removed_by_key() {
    let db = database("fields_nested").await;
    let repo = UserRepo::new(&db);
    let mut model = User {
        id: ObjectId::new(),
        cart: Cart {
            total: 0,
            items: squillion::BoundedVec::new(),
        },
    };
    repo.insert(&model).await.unwrap();
    let id = model.id;
    for (i, sku) in ["a", "b", "c"].iter().enumerate() {
        repo.push_cart_items(&id, &line(sku, i as i32))
            .await
            .unwrap();
        model.cart.items.try_push(line(sku, i as i32)).unwrap();
    }
    // The bound: a fourth element is refused by the update's filter, nothing written.
    assert!(matches!(
        repo.push_cart_items(&id, &line("d", 9)).await,
        Err(Error::BoundExceeded { max: 3, .. })
    ));
    assert_eq!(stored_user(&repo, &id).await, model);
    // A repeated key is refused too, once there is room.
    assert!(repo.remove_cart_items(&id, &"a".to_owned()).await.unwrap());
    model.cart.items.retain(|x| x.sku != "a");
    assert!(!repo.remove_cart_items(&id, &"a".to_owned()).await.unwrap());
    assert!(matches!(
        repo.push_cart_items(&id, &line("b", 5)).await,
        Err(Error::DuplicateElement { .. })
    ));
    // Update one element by its key; the others stay.
    assert!(repo.update_cart_items(&id, &line("c", 42)).await.unwrap());
    for x in model.cart.items.iter_mut().filter(|x| x.sku == "c") {
        x.qty = 42;
    }
    assert!(!repo.update_cart_items(&id, &line("zz", 1)).await.unwrap());
    assert_eq!(stored_user(&repo, &id).await, model);
    // The fields of the subdocument: a counter inside it, guarded at 0.
    assert_eq!(repo.inc_cart_total(&id, 2).await.unwrap(), 2);
    assert_eq!(repo.dec_cart_total(&id, 2).await.unwrap(), Some(0));
    assert_eq!(repo.dec_cart_total(&id, 1).await.unwrap(), None);
    repo.set_cart_items(&id, &squillion::BoundedVec::new())
        .await
        .unwrap();
    model.cart.items = squillion::BoundedVec::new();
    assert_eq!(stored_user(&repo, &id).await, model);
    assert!(matches!(
        repo.update_cart_items(&ObjectId::new(), &line("c", 1))
            .await,
        Err(Error::NotFound { .. })
    ));
}

async fn stored_user(repo: &UserRepo, id: &ObjectId) -> User {
    repo.get(id).await.unwrap().expect("the user is stored")
}
