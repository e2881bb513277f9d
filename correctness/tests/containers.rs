//! Issue 12 against the server: container types (`families::containers`: every type of one or
//! two levels, each an array or a map, bounded or not, its elements nullable or not, around an
//! `int32`; single levels around a string and a value type). For every field's shape, from a
//! reference built from the shape itself (not from the Plan):
//!
//! - random documents of every shape (nulls where a level allows them, up to the bounds) are
//!   read by the generated struct, written through the generated repository, accepted by the
//!   planned validator, and stored exactly as generated;
//! - the validator refuses, level by level, a null where the level's elements may not be null
//!   and one element over a level's bound, and takes a null where they may be and exactly the
//!   bound; a required field may not be null or absent;
//! - the generated struct refuses an array over its bound on read (`BoundedVec`).

use squillion::bson::{self, doc, oid::ObjectId, Bson, Document};
use squillion::mongodb::Collection;
use squillion_correctness::containers as generated;
use squillion_correctness::families::{shapes, Leaf, Level, Shape, BOUND};
use squillion_testkit::{Lcg, TestDb};

fn leaf(leaf: Leaf, r: &mut Lcg) -> Bson {
    let n = r.below(1_000) as i32;
    match leaf {
        Leaf::Int => Bson::Int32(n),
        Leaf::Str => Bson::String(format!("s{n}")),
        Leaf::Value => Bson::Document(doc! { "s": format!("v{n}"), "n": n }),
    }
}

/// A random value inside `levels`: up to the bound (3 when unbounded) elements, null one time in
/// three where the level allows it.
fn random(levels: &[Level], l: Leaf, r: &mut Lcg) -> Bson {
    let Some((level, inner)) = levels.split_first() else {
        return leaf(l, r);
    };
    let most = if level.bounded { BOUND } else { 3 };
    let items: Vec<Bson> = (0..r.below(most + 1))
        .map(|_| {
            if level.nullable && r.below(3) == 0 {
                Bson::Null
            } else {
                random(inner, l, r)
            }
        })
        .collect();
    wrap(level, items)
}

fn wrap(level: &Level, items: Vec<Bson>) -> Bson {
    if level.map {
        Bson::Document(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("k{i}"), v))
                .collect(),
        )
    } else {
        Bson::Array(items)
    }
}

/// A value inside `levels` whose level `at` holds `count` elements, the first one null when
/// `null`; every other level holds one element.
fn probe(levels: &[Level], l: Leaf, at: usize, count: u64, null: bool, r: &mut Lcg) -> Bson {
    let Some((level, inner)) = levels.split_first() else {
        return leaf(l, r);
    };
    let n = if at == 0 { count } else { 1 };
    let items = (0..n)
        .map(|i| {
            if at == 0 && null && i == 0 {
                Bson::Null
            } else {
                probe(inner, l, at.wrapping_sub(1), count, null, r)
            }
        })
        .collect();
    wrap(level, items)
}

/// A document of every shape, field `skip` aside, and `value` as field `at` (if any).
fn document(shapes: &[Shape], r: &mut Lcg, at: Option<(usize, Option<Bson>)>) -> Document {
    let mut d = doc! { "_id": ObjectId::new() };
    for (i, s) in shapes.iter().enumerate() {
        let value = match &at {
            Some((j, v)) if *j == i => v.clone(),
            _ if s.optional && r.below(4) == 0 => None,
            _ => Some(random(&s.levels, s.leaf, r)),
        };
        if let Some(v) = value {
            d.insert(format!("f{i}"), v);
        }
    }
    d
}

async fn accepted(raw: &Collection<Document>, d: &Document) -> bool {
    match raw.insert_one(d).await {
        Ok(_) => true,
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("121") || text.to_lowercase().contains("validation"),
                "refused for another reason than the validator: {text}"
            );
            false
        }
    }
}

#[tokio::test]
async fn every_container_type_is_written_read_and_validated_as_declared() {
    let t = TestDb::new("containers").await;
    let db = &t.db;
    generated::ensure_indexes(db).await.unwrap();
    generated::ensure_validators(db).await.unwrap();
    let repo = generated::HolderRepo::new(db);
    let raw = db.collection::<Document>("holders");
    let shapes = shapes();
    let mut r = Lcg(0xc0_47a1);

    // Random documents through the generated struct and repository, stored as generated.
    let (mut nulls, mut full) = (0usize, 0usize);
    for round in 0..40 {
        let d = document(&shapes, &mut r, None);
        let text = d.to_string();
        nulls += text.matches("null").count();
        full += usize::from(text.contains("k1"));
        let typed: generated::Holder = bson::from_document(d.clone())
            .unwrap_or_else(|e| panic!("round {round}: the struct refuses {d}: {e}"));
        repo.insert(&typed)
            .await
            .unwrap_or_else(|e| panic!("round {round}: the server refuses {d}: {e}"));
        let id = d.get_object_id("_id").unwrap();
        let stored = raw.find_one(doc! { "_id": id }).await.unwrap().unwrap();
        assert_eq!(stored, d, "round {round}: stored otherwise than generated");
        let read = repo.get(&id).await.unwrap().expect("stored");
        assert_eq!(bson::to_document(&read).unwrap(), d, "round {round}");
    }
    assert!(
        nulls > 40 && full > 20,
        "the random documents rarely hold nulls or full levels"
    );

    // Level by level: nulls and bounds, refused and taken as the shape says.
    let mut probes = 0;
    for (i, s) in shapes.iter().enumerate() {
        let field = format!("f{i} {}", s.sqn());
        for (at, level) in s.levels.iter().enumerate() {
            let null = probe(&s.levels, s.leaf, at, 1, true, &mut r);
            let d = document(&shapes, &mut r, Some((i, Some(null))));
            assert_eq!(
                accepted(&raw, &d).await,
                level.nullable,
                "{field}: a null at level {at}"
            );
            let typed = bson::from_document::<generated::Holder>(d);
            assert_eq!(
                typed.is_ok(),
                level.nullable,
                "{field}: the struct, a null at level {at}"
            );
            if level.bounded {
                let at_bound = probe(&s.levels, s.leaf, at, BOUND, false, &mut r);
                let d = document(&shapes, &mut r, Some((i, Some(at_bound))));
                assert!(accepted(&raw, &d).await, "{field}: {BOUND} at level {at}");
                let over = probe(&s.levels, s.leaf, at, BOUND + 1, false, &mut r);
                let d = document(&shapes, &mut r, Some((i, Some(over))));
                assert!(
                    !accepted(&raw, &d).await,
                    "{field}: {} at level {at}",
                    BOUND + 1
                );
                if !level.map {
                    assert!(
                        bson::from_document::<generated::Holder>(d).is_err(),
                        "{field}: the struct reads {} at level {at}",
                        BOUND + 1
                    );
                }
            }
            probes += 1;
        }
        let absent = document(&shapes, &mut r, Some((i, None)));
        assert_eq!(accepted(&raw, &absent).await, s.optional, "{field}: absent");
        let null = document(&shapes, &mut r, Some((i, Some(Bson::Null))));
        assert_eq!(accepted(&raw, &null).await, s.optional, "{field}: null");
    }
    assert!(probes > 100, "only {probes} levels probed");
}
