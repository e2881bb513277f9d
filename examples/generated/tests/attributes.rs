//! The attribute pattern written one attribute at a time, through the generated code
//! (`examples/generated/schemas/attributes.sqn`: `map<string; 5>`, `map<int32; 4>`,
//! `map<decimal128; 3>` and an unbounded `map<string>`, each `@attributes`, stored as `[{k, v}]`),
//! against the server:
//!
//! - random sequences of `set_<f>_entry` and `remove_<f>_entry` (new keys, keys held, absent keys,
//!   keys MongoDB would read as paths elsewhere: the key here is data) run against a reference
//!   list of `(k, v)` pairs, compared with the stored array after every step: a key held has its
//!   value replaced (the element moves last, the others keep their order), a new key is appended,
//!   at the bound a new key is refused with `Error::MapFull` and nothing changes, a removal says
//!   whether the key was there, and the validator takes every state (written again as a new
//!   document);
//! - racing setters at the bound edge: never more than the bound, no entry lost, one key never
//!   held twice;
//! - a shop keeping its latest products with their specs is refilled by each entry write of one
//!   of them (the entry writes of a child a parent reads run through the parent's upkeep);
//! - a missing document is `Error::NotFound`.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test attributes`.

use std::sync::Arc;

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, Decimal128, Document};
use squillion::{BoundedVec, Error};
use squillion_examples_generated::attributes::{
    ensure_all, NotesAttribute, Product, ProductRepo, Shop, ShopRepo, SpecsAttribute,
};
use squillion_testkit::TestDb;

/// Keys drawn with repeats: more than any bound, and some a path-keyed map would refuse.
const KEYS: &[&str] = &[
    "colour", "ram", "size", "vendor", "weight", "$dollar", "dot.ted", "",
];

/// The maps of a product, with their bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Map {
    Specs,
    Sizes,
    Prices,
    Notes,
}

impl Map {
    const ALL: [Map; 4] = [Map::Specs, Map::Sizes, Map::Prices, Map::Notes];

    fn path(self) -> &'static str {
        match self {
            Map::Specs => "specs",
            Map::Sizes => "sizes",
            Map::Prices => "prices",
            Map::Notes => "notes",
        }
    }

    fn max(self) -> Option<usize> {
        match self {
            Map::Specs => Some(5),
            Map::Sizes => Some(4),
            Map::Prices => Some(3),
            Map::Notes => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

fn decimal(cents: i64) -> Decimal128 {
    let text = format!(
        "{}{}.{:02}",
        if cents < 0 { "-" } else { "" },
        cents.unsigned_abs() / 100,
        cents.unsigned_abs() % 100
    );
    text.parse().expect("a decimal literal")
}

/// A string value from a seed, some of them looking like operators or paths.
fn text(seed: i64) -> String {
    match seed.rem_euclid(4) {
        0 => format!("$v{seed}"),
        1 => format!("v.{seed}"),
        2 => String::new(),
        _ => format!("value {seed}"),
    }
}

/// The value stored for `seed` in `map`, as BSON.
fn value(map: Map, seed: i64) -> Bson {
    match map {
        Map::Specs | Map::Notes => Bson::String(text(seed)),
        Map::Sizes => Bson::Int32(seed as i32),
        Map::Prices => Bson::Decimal128(decimal(seed)),
    }
}

/// `set_<f>_entry` of `map` through the generated repository.
async fn set(
    repo: &ProductRepo,
    id: &ObjectId,
    map: Map,
    key: &str,
    seed: i64,
) -> squillion::Result<()> {
    match map {
        Map::Specs => repo.set_specs_entry(id, key, &text(seed)).await,
        Map::Sizes => repo.set_sizes_entry(id, key, &(seed as i32)).await,
        Map::Prices => repo.set_prices_entry(id, key, &decimal(seed)).await,
        Map::Notes => repo.set_notes_entry(id, key, &text(seed)).await,
    }
}

/// `remove_<f>_entry` of `map`.
async fn remove(repo: &ProductRepo, id: &ObjectId, map: Map, key: &str) -> squillion::Result<bool> {
    match map {
        Map::Specs => repo.remove_specs_entry(id, key).await,
        Map::Sizes => repo.remove_sizes_entry(id, key).await,
        Map::Prices => repo.remove_prices_entry(id, key).await,
        Map::Notes => repo.remove_notes_entry(id, key).await,
    }
}

fn empty_product(sku: &str) -> Product {
    Product {
        id: ObjectId::new(),
        sku: sku.to_owned(),
        specs: BoundedVec::new(),
        sizes: BoundedVec::new(),
        prices: BoundedVec::new(),
        notes: Vec::new(),
        // A shop that is not stored keeps nothing.
        shop: ObjectId::new(),
    }
}

/// The stored `[{k, v}]` of `map` as pairs, in stored order.
fn pairs(stored: &Document, map: Map) -> Vec<(String, Bson)> {
    let Ok(array) = stored.get_array(map.path()) else {
        panic!("`{}` is not an array: {stored}", map.path());
    };
    array
        .iter()
        .map(|e| match e {
            Bson::Document(d) => {
                assert_eq!(d.len(), 2, "an element is {{k, v}}: {d}");
                let k = d.get_str("k").expect("k is a string").to_owned();
                let v = d.get("v").cloned().expect("v is there");
                (k, v)
            }
            other => panic!("an element of `{}` is not a document: {other}", map.path()),
        })
        .collect()
}

fn assert_map_full(e: &Error, map: Map) {
    match e {
        Error::MapFull { field, max } => {
            assert_eq!(field, &format!("products.{}", map.path()));
            assert_eq!(Some(*max), map.max());
        }
        other => panic!("expected MapFull on {map:?}, got {other:?}"),
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// Set entry `KEYS[key]` of the map to the value of the seed.
    Set(Map, usize, i64),
    /// Remove entry `KEYS[key]` of the map.
    Remove(Map, usize),
}

fn map() -> impl Strategy<Value = Map> {
    prop::sample::select(Map::ALL.to_vec())
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let key = 0..KEYS.len();
    prop::collection::vec(
        prop_oneof![
            3 => (map(), key.clone(), -100_000i64..100_000).prop_map(|(m, k, v)| Step::Set(m, k, v)),
            1 => (map(), key).prop_map(|(m, k)| Step::Remove(m, k)),
        ],
        1..40,
    )
}

/// Runs `steps` on a fresh product against the reference, checking after every step.
async fn run(t: &TestDb, steps: &[Step]) {
    let repo = ProductRepo::new(&t.db);
    let raw = t.db.collection::<Document>("products");
    let product = empty_product("p");
    repo.insert(&product).await.unwrap();
    let id = product.id;
    let mut model: [Vec<(String, Bson)>; 4] = Default::default();
    for step in steps {
        match *step {
            Step::Set(map, k, seed) => {
                let key = KEYS[k];
                let held = &mut model[map.index()];
                let result = set(&repo, &id, map, key, seed).await;
                let known = held.iter().position(|(hk, _)| hk == key);
                match (known, map.max()) {
                    (None, Some(max)) if held.len() >= max => {
                        let e = result.expect_err("a new key at the bound is refused");
                        assert_map_full(&e, map);
                    }
                    _ => {
                        result.unwrap_or_else(|e| panic!("{step:?}: {e}"));
                        if let Some(i) = known {
                            held.remove(i);
                        }
                        held.push((key.to_owned(), value(map, seed)));
                    }
                }
            }
            Step::Remove(map, k) => {
                let key = KEYS[k];
                let held = &mut model[map.index()];
                let was = held.iter().any(|(hk, _)| hk == key);
                let removed = remove(&repo, &id, map, key).await.unwrap();
                assert_eq!(removed, was, "{step:?}");
                held.retain(|(hk, _)| hk != key);
            }
        }
        let stored = raw
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .expect("the product is stored");
        for map in Map::ALL {
            assert_eq!(
                pairs(&stored, map),
                model[map.index()],
                "{map:?} after {step:?}"
            );
            if let Some(max) = map.max() {
                assert!(model[map.index()].len() <= max);
            }
        }
        // The typed document reads back, with the same attributes.
        let got = repo.get(&id).await.unwrap().expect("the product");
        let specs: Vec<(String, Bson)> = got
            .specs
            .iter()
            .map(|a: &SpecsAttribute| (a.k.clone(), Bson::String(a.v.clone())))
            .collect();
        assert_eq!(specs, model[Map::Specs.index()]);
        let sizes: Vec<(String, Bson)> = got
            .sizes
            .iter()
            .map(|a| (a.k.clone(), Bson::Int32(a.v)))
            .collect();
        assert_eq!(sizes, model[Map::Sizes.index()]);
        let prices: Vec<(String, Bson)> = got
            .prices
            .iter()
            .map(|a| (a.k.clone(), Bson::Decimal128(a.v)))
            .collect();
        assert_eq!(prices, model[Map::Prices.index()]);
        let notes: Vec<(String, Bson)> = got
            .notes
            .iter()
            .map(|a: &NotesAttribute| (a.k.clone(), Bson::String(a.v.clone())))
            .collect();
        assert_eq!(notes, model[Map::Notes.index()]);
        // The validator takes the state: the same document, written again under another id.
        let mut again = stored.clone();
        again.insert("_id", ObjectId::new());
        let copy = raw
            .insert_one(again)
            .await
            .unwrap_or_else(|e| panic!("the validator refuses the state after {step:?}: {e}"));
        raw.delete_one(doc! { "_id": copy.inserted_id })
            .await
            .unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random entry writes on the four maps against the reference list.
    #[test]
    fn entry_writes_follow_the_reference(steps in steps()) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("attributes_model").await;
            ensure_all(&t.db).await.unwrap();
            run(&t, &steps).await;
            t.cleanup().await;
        });
    }
}

/// Fills every bounded map to its bound and past it, replaces at the bound, and checks that the
/// validator refuses one attribute more than the bound written behind the repository's back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bound_holds_and_a_held_key_is_replaced_at_it() {
    let t = TestDb::new("attributes_bound").await;
    ensure_all(&t.db).await.unwrap();
    let mut steps = Vec::new();
    for map in Map::ALL {
        for (k, _) in KEYS.iter().enumerate() {
            steps.push(Step::Set(map, k, k as i64));
        }
        // Replace the first key, remove a middle one, add one more, remove one absent.
        steps.push(Step::Set(map, 0, 77));
        steps.push(Step::Remove(map, 1));
        steps.push(Step::Set(map, KEYS.len() - 1, 99));
        steps.push(Step::Remove(map, 1));
    }
    run(&t, &steps).await;

    let raw = t.db.collection::<Document>("products");
    let attrs = |n: usize| -> Vec<Bson> {
        (0..n)
            .map(|i| Bson::Document(doc! { "k": format!("a{i}"), "v": "x" }))
            .collect()
    };
    let product = |specs: Vec<Bson>| {
        doc! {
            "_id": ObjectId::new(), "sku": "raw", "specs": specs, "sizes": [], "prices": [],
            "notes": [], "shop": ObjectId::new(),
        }
    };
    raw.insert_one(product(attrs(5))).await.unwrap();
    let over = raw.insert_one(product(attrs(6))).await;
    let e = Error::from(over.expect_err("six attributes are over the bound"));
    assert!(e.is_validation_failure(), "{e}");
    t.cleanup().await;
}

/// No document: both methods say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_document_is_not_found() {
    let t = TestDb::new("attributes_missing").await;
    ensure_all(&t.db).await.unwrap();
    let repo = ProductRepo::new(&t.db);
    let id = ObjectId::new();
    for map in Map::ALL {
        let e = set(&repo, &id, map, "colour", 1).await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{map:?}: {e:?}");
        let e = remove(&repo, &id, map, "colour").await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{map:?}: {e:?}");
    }
    t.cleanup().await;
}

/// Writers race on one product whose `specs` (at most 5) holds 3 attributes: 8 setters of new
/// keys, 3 of the keys held and 4 of one more new key. The map never goes over 5, no key is held
/// twice, the keys held keep one of the values written, and exactly as many new keys got in as
/// there was room for.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_setters_at_the_bound_never_overfill_nor_lose_an_entry() {
    let t = TestDb::new("attributes_race").await;
    ensure_all(&t.db).await.unwrap();
    let repo = Arc::new(ProductRepo::new(&t.db));
    for round in 0..6 {
        let mut product = empty_product(&format!("race {round}"));
        for k in ["a", "b", "c"] {
            product
                .specs
                .try_push(SpecsAttribute {
                    k: k.to_owned(),
                    v: "0".to_owned(),
                })
                .unwrap();
        }
        repo.insert(&product).await.unwrap();
        let id = product.id;
        let mut tasks = Vec::new();
        let mut writes: Vec<(String, String)> = Vec::new();
        for i in 0..8 {
            writes.push((format!("new{i}"), format!("n{i}")));
        }
        for k in ["a", "b", "c"] {
            writes.push((k.to_owned(), format!("{k}{round}")));
        }
        for i in 0..4 {
            writes.push(("same".to_owned(), format!("s{i}")));
        }
        for (key, value) in writes.clone() {
            let repo = Arc::clone(&repo);
            tasks.push(tokio::spawn(async move {
                let r = repo.set_specs_entry(&id, &key, &value).await;
                (key, value, r)
            }));
        }
        let mut won: Vec<(String, String)> = Vec::new();
        for task in tasks {
            let (key, value, r) = task.await.unwrap();
            match r {
                Ok(()) => won.push((key, value)),
                Err(e) => {
                    assert_map_full(&e, Map::Specs);
                    assert!(!["a", "b", "c"].contains(&key.as_str()), "{key}: {e}");
                }
            }
        }
        let stored = repo.get(&id).await.unwrap().expect("the product");
        let held: Vec<(&str, &str)> = stored
            .specs
            .iter()
            .map(|a| (a.k.as_str(), a.v.as_str()))
            .collect();
        assert_eq!(held.len(), 5, "round {round}: {held:?}");
        let mut keys: Vec<&str> = held.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys.len(),
            held.len(),
            "round {round}: a key twice: {held:?}"
        );
        for k in ["a", "b", "c"] {
            assert!(
                held.contains(&(k, format!("{k}{round}").as_str())),
                "round {round}: {k} lost its value: {held:?}"
            );
        }
        // Every key held won its write, with one of the values written for it; every winner of a
        // new key is held (none lost).
        for (k, v) in &held {
            assert!(
                won.iter().any(|(wk, wv)| wk == k && wv == v),
                "round {round}: ({k}, {v}) was not a successful write: {won:?}"
            );
        }
        for (k, _) in &won {
            assert!(
                held.iter().any(|(hk, _)| hk == k),
                "round {round}: {k} won and was lost: {held:?}"
            );
        }
    }

    // Unbounded: 12 writers of distinct keys on one product, all kept.
    let product = empty_product("unbounded");
    repo.insert(&product).await.unwrap();
    let id = product.id;
    let tasks: Vec<_> = (0..12)
        .map(|i| {
            let repo = Arc::clone(&repo);
            tokio::spawn(async move { repo.set_notes_entry(&id, &format!("k{i}"), "v").await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let stored = repo.get(&id).await.unwrap().expect("the product");
    let mut keys: Vec<String> = stored.notes.iter().map(|a| a.k.clone()).collect();
    keys.sort();
    let mut expected: Vec<String> = (0..12).map(|i| format!("k{i}")).collect();
    expected.sort();
    assert_eq!(keys, expected);
    t.cleanup().await;
}

/// The shop keeps its two products with the greatest sku, with their specs: every entry write of
/// a product it keeps shows in its list, one of a product it does not keep changes nothing there,
/// and a refused write changes nothing anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_write_refills_the_shops_list() {
    let t = TestDb::new("attributes_kept").await;
    ensure_all(&t.db).await.unwrap();
    let (shops, products) = (ShopRepo::new(&t.db), ProductRepo::new(&t.db));
    let shop = Shop {
        id: ObjectId::new(),
        name: "s".into(),
        products: BoundedVec::new(),
    };
    shops.insert(&shop).await.unwrap();
    let mut ids = Vec::new();
    for sku in ["a", "b", "c"] {
        let p = Product {
            shop: shop.id,
            ..empty_product(sku)
        };
        products.insert(&p).await.unwrap();
        ids.push(p.id);
    }
    let (a, c) = (ids[0], ids[2]);
    // What the shop keeps: (sku, [(k, v)]) of each product, greatest sku first.
    let kept = || async {
        let s = shops.get(&shop.id).await.unwrap().expect("the shop");
        s.products
            .iter()
            .map(|p| {
                let specs: Vec<(String, String)> =
                    p.specs.iter().map(|a| (a.k.clone(), a.v.clone())).collect();
                (p.sku.clone(), specs)
            })
            .collect::<Vec<_>>()
    };
    let pairs_of = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        kept().await,
        vec![("c".into(), vec![]), ("b".into(), vec![])]
    );
    products.set_specs_entry(&c, "colour", "red").await.unwrap();
    products.set_specs_entry(&c, "ram", "64").await.unwrap();
    products
        .set_specs_entry(&c, "colour", "blue")
        .await
        .unwrap();
    assert_eq!(
        kept().await,
        vec![
            ("c".into(), pairs_of(&[("ram", "64"), ("colour", "blue")])),
            ("b".into(), vec![])
        ]
    );
    // A product the shop does not keep: its own document changes, the shop's list does not.
    products
        .set_specs_entry(&a, "colour", "green")
        .await
        .unwrap();
    assert_eq!(
        kept().await,
        vec![
            ("c".into(), pairs_of(&[("ram", "64"), ("colour", "blue")])),
            ("b".into(), vec![])
        ]
    );
    assert!(products.remove_specs_entry(&c, "ram").await.unwrap());
    assert!(!products.remove_specs_entry(&c, "ram").await.unwrap());
    let expected = vec![
        ("c".to_owned(), pairs_of(&[("colour", "blue")])),
        ("b".to_owned(), vec![]),
    ];
    assert_eq!(kept().await, expected);
    // Full: a new key is refused, and the shop keeps what it had.
    for k in ["k1", "k2", "k3", "k4"] {
        products.set_specs_entry(&c, k, "v").await.unwrap();
    }
    let full = kept().await;
    assert_eq!(full[0].1.len(), 5);
    let e = products
        .set_specs_entry(&c, "k5", "v")
        .await
        .expect_err("the specs are full");
    assert_map_full(&e, Map::Specs);
    assert_eq!(kept().await, full);
    t.cleanup().await;
}
