//! Issue 12 against the server: maps' entry operations and bounded maps (`families::maps`: maps
//! of a number, a string and a value type, bounds 1, 3 and 8, required and optional, and an
//! unbounded map). For each schema:
//!
//! - random sequences of `set_m_entry` and `remove_m_entry` of keys drawn with repeats from a few
//!   more keys than the bound run against a reference `BTreeMap` compared with the stored
//!   document after every step: the bound holds, setting a key the map holds works at the bound,
//!   a new key at the bound is refused with `Error::MapFull` and changes nothing, a removal says
//!   whether the key was there;
//! - keys MongoDB would read as another path (empty, with `.`, starting with `$`, with NUL) are
//!   refused with `Error::InvalidMapKey`, and nothing is written;
//! - N + k setters of distinct new keys race on an empty map: exactly N succeed;
//! - the validator refuses a document written behind the repository's back with N + 1 entries
//!   (`maxProperties`) or N + 1 attributes (`maxItems` of the `@attributes` array), and takes N;
//! - `set_m` of a whole map over the bound is refused before anything is written.

use std::collections::BTreeMap;

use squillion::__private::bson::{self, doc, oid::ObjectId, Bson, Document};
use squillion::__private::mongodb::Database;
use squillion::Error;
use squillion_correctness::{
    map_int_1, map_int_3, map_int_8, map_int_unbounded, map_string_3_optional, map_value_3,
    map_value_8_optional,
};
use squillion_testkit::{Lcg, TestDb};

/// The stored map `m` of bag `id` (an absent map is empty).
async fn stored(db: &Database, id: ObjectId) -> BTreeMap<String, Bson> {
    let d = db
        .collection::<Document>("bags")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .expect("the bag is stored");
    match d.get("m") {
        None => BTreeMap::new(),
        Some(Bson::Document(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(other) => panic!("`m` is not a document: {other}"),
    }
}

fn assert_map_full(e: &Error, max: usize) {
    match e {
        Error::MapFull { field, max: m } => {
            assert_eq!(field, "bags.m");
            assert_eq!(*m, max);
        }
        other => panic!("expected MapFull at {max}, got {other:?}"),
    }
}

/// Everything above, for module `$m` whose map values are made by `$value` (a `u64` seed to a
/// value) and whose bound is `$max` (`None`: unbounded).
macro_rules! map_family {
    ($name:literal, $m:ident, $value:expr, $max:expr) => {{
        let t = TestDb::new($name).await;
        let db = &t.db;
        $m::ensure_indexes(db).await.unwrap();
        $m::ensure_validators(db).await.unwrap();
        let repo = $m::BagRepo::new(db);
        let value = $value;
        let max: Option<usize> = $max;
        let new_bag = || $m::Bag {
            id: ObjectId::new(),
            name: "bag".into(),
            m: Default::default(),
            attrs: Default::default(),
        };

        // Random sequences against the reference model.
        // Four sets for one removal over N + 3 keys: the map fills to about 0.8 (N + 3) > N
        // entries, so every sequence reaches the bound and works there.
        let mut r = Lcg(0x5eed ^ max.unwrap_or(0) as u64);
        let keys: Vec<String> = (0..max.unwrap_or(6) + 3).map(|i| format!("k{i}")).collect();
        let (mut refused, mut replaced_at_bound) = (0, 0);
        for round in 0..6 {
            let bag = new_bag();
            repo.insert(&bag).await.unwrap();
            let mut model: BTreeMap<String, Bson> = BTreeMap::new();
            for step in 0..60 {
                let key = &keys[r.below(keys.len() as u64) as usize];
                let at = format!("{} round {round} step {step}: {key}", $name);
                if r.below(5) < 4 {
                    let v = value(r.below(1_000));
                    let as_bson = bson::to_bson(&v).unwrap();
                    let full = max.is_some_and(|n| model.len() >= n);
                    let result = repo.set_m_entry(&bag.id, key, &v).await;
                    match (full, model.contains_key(key)) {
                        (true, false) => {
                            assert_map_full(&result.expect_err(&at), max.unwrap());
                            refused += 1;
                        }
                        (full, _) => {
                            result.unwrap_or_else(|e| panic!("{at}: {e}"));
                            replaced_at_bound += usize::from(full);
                            model.insert(key.clone(), as_bson);
                        }
                    }
                } else {
                    let was = repo.remove_m_entry(&bag.id, key).await.unwrap();
                    assert_eq!(was, model.remove(key).is_some(), "{at}");
                }
                assert_eq!(stored(db, bag.id).await, model, "{at}");
                if let Some(n) = max {
                    assert!(model.len() <= n, "{at}");
                }
                // The typed read sees the same document.
                repo.get(&bag.id).await.unwrap().expect("stored");
            }
        }
        if max.is_some() {
            assert!(
                refused > 5,
                "{}: the sequences rarely reached the bound",
                $name
            );
            assert!(
                replaced_at_bound > 5,
                "{}: few replacements at the bound",
                $name
            );
        }

        // Keys that would address another path, on an empty and on a full map.
        let bag = new_bag();
        repo.insert(&bag).await.unwrap();
        for i in 0..max.unwrap_or(2) {
            repo.set_m_entry(&bag.id, &format!("f{i}"), &value(i as u64))
                .await
                .unwrap();
        }
        let before = stored(db, bag.id).await;
        for bad in ["", "a.b", ".", "f0.x", "$set", "$", "a\0b"] {
            for result in [
                repo.set_m_entry(&bag.id, bad, &value(7)).await.err(),
                repo.remove_m_entry(&bag.id, bad).await.err(),
            ] {
                match result {
                    Some(Error::InvalidMapKey { field, key, .. }) => {
                        assert_eq!(field, "bags.m");
                        assert_eq!(key, bad);
                    }
                    other => panic!("{}: key {bad:?}: {other:?}", $name),
                }
            }
            assert_eq!(stored(db, bag.id).await, before, "{}: key {bad:?}", $name);
        }
        // Keys with other punctuation are ordinary keys.
        repo.remove_m_entry(&bag.id, "f0").await.unwrap();
        for odd in ["a$", "a b", "é", "0"] {
            repo.set_m_entry(&bag.id, odd, &value(1)).await.unwrap();
            assert!(
                stored(db, bag.id).await.contains_key(odd),
                "{}: {odd:?}",
                $name
            );
            assert!(repo.remove_m_entry(&bag.id, odd).await.unwrap());
        }
        // A missing document.
        let missing = ObjectId::new();
        assert!(matches!(
            repo.set_m_entry(&missing, "k", &value(1)).await,
            Err(Error::NotFound { .. })
        ));
        assert!(matches!(
            repo.remove_m_entry(&missing, "k").await,
            Err(Error::NotFound { .. })
        ));

        // Racing setters of distinct new keys on an empty map: exactly N succeed.
        for round in 0..3 {
            let bag = new_bag();
            repo.insert(&bag).await.unwrap();
            let writers = max.unwrap_or(5) + 4;
            let mut tasks = Vec::new();
            for w in 0..writers {
                let (repo, id, v) = (repo.clone(), bag.id, value(w as u64));
                tasks.push(tokio::spawn(async move {
                    repo.set_m_entry(&id, &format!("w{w}"), &v).await
                }));
            }
            let mut ok = 0;
            for t in tasks {
                match t.await.unwrap() {
                    Ok(()) => ok += 1,
                    Err(e) => assert_map_full(&e, max.expect("only a bounded map refuses")),
                }
            }
            let expected = max.unwrap_or(writers);
            assert_eq!(ok, expected, "{}: round {round}", $name);
            assert_eq!(
                stored(db, bag.id).await.len(),
                expected,
                "{}: round {round}",
                $name
            );
        }

        // The validator, for documents written behind the repository's back.
        let raw = db.collection::<Document>("bags");
        let n = max.unwrap_or(300);
        let map_of = |k: usize| -> Document {
            (0..k)
                .map(|i| (format!("k{i}"), bson::to_bson(&value(i as u64)).unwrap()))
                .collect()
        };
        let attrs_of = |k: usize| -> Vec<Bson> {
            (0..k)
                .map(|i| Bson::Document(doc! { "k": format!("a{i}"), "v": "x" }))
                .collect()
        };
        let raw_bag = |m: Document, attrs: Vec<Bson>| {
            doc! {
                "_id": ObjectId::new(), "name": "raw", "m": m, "attrs": attrs,
            }
        };
        raw.insert_one(raw_bag(map_of(n), attrs_of(n)))
            .await
            .unwrap();
        for (m, attrs) in [(n + 1, 0), (0, n + 1)] {
            let result = raw.insert_one(raw_bag(map_of(m), attrs_of(attrs))).await;
            match max {
                Some(_) => {
                    let e = Error::from(result.expect_err("over the bound"));
                    assert!(e.is_validation_failure(), "{}: {e}", $name);
                }
                None => {
                    result.unwrap();
                }
            }
        }

        // A whole map over the bound is refused before it is written.
        if let Some(n) = max {
            let bag = new_bag();
            repo.insert(&bag).await.unwrap();
            let over: BTreeMap<String, _> = (0..=n)
                .map(|i| (format!("o{i}"), value(i as u64)))
                .collect();
            let e = repo
                .set_m(&bag.id, &over.into())
                .await
                .expect_err("over the bound");
            assert_map_full(&e, n);
            assert!(stored(db, bag.id).await.is_empty());
            let at: BTreeMap<String, _> =
                (0..n).map(|i| (format!("o{i}"), value(i as u64))).collect();
            repo.set_m(&bag.id, &at.into()).await.unwrap();
            assert_eq!(stored(db, bag.id).await.len(), n);
        }
        t.cleanup().await;
    }};
}

#[tokio::test]
async fn a_map_of_numbers_bounded_at_one() {
    map_family!("maps_int_1", map_int_1, |i: u64| i as i32, Some(1));
}

#[tokio::test]
async fn a_map_of_numbers_bounded_at_three() {
    map_family!("maps_int_3", map_int_3, |i: u64| i as i32 - 500, Some(3));
}

#[tokio::test]
async fn a_map_of_numbers_bounded_at_eight() {
    map_family!("maps_int_8", map_int_8, |i: u64| i as i32, Some(8));
}

#[tokio::test]
async fn an_optional_map_of_strings_bounded_at_three() {
    map_family!(
        "maps_string_3",
        map_string_3_optional,
        |i: u64| format!("s{i}"),
        Some(3)
    );
}

#[tokio::test]
async fn a_map_of_values_bounded_at_three() {
    map_family!(
        "maps_value_3",
        map_value_3,
        |i: u64| map_value_3::V {
            s: format!("v{i}"),
            n: i as i32,
        },
        Some(3)
    );
}

#[tokio::test]
async fn an_optional_map_of_values_bounded_at_eight() {
    map_family!(
        "maps_value_8",
        map_value_8_optional,
        |i: u64| map_value_8_optional::V {
            s: format!("v{i}"),
            n: i as i32,
        },
        Some(8)
    );
}

#[tokio::test]
async fn an_unbounded_map() {
    map_family!("maps_unbounded", map_int_unbounded, |i: u64| i as i32, None);
}
