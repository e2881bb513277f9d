//! The reference model of the element operations (`src/elements.rs`), without a server: on a
//! shelf embedding bins keyed by their `@unique` code (a counter stored as `q`, a counter with a
//! `@range`, a double with a `@range`, the shelf's top list and summaries over them), each
//! operation predicts what docs/derive.md's `element(...)` promises: the new value, `None` for a
//! decrement past the floor, `NotFound`, `NoSuchElement`, a validator's refusal past the range,
//! nothing written when refused, and the summaries and the top list set to the array's after a
//! change. The draw reaches every one of those cases.

use bson::{doc, Bson, Document};
use squillion_modelcheck::driver::Method;
use squillion_modelcheck::elements::{draw, expect, keyed, method_names};
use squillion_modelcheck::model::Reference;
use squillion_modelcheck::ops::{Expect, Kind, Op, Schema};
use squillion_modelcheck::run::plan_of;
use squillion_modelcheck::values::Rng;

const SQN: &str = r#"
entity Shelf { name: string }
entity Bin {
  code: string @unique
  qty: int32 @counter @stored("q")
  stock: int64 @counter @range(2, 100)
  level: double @range(-5, 5)
}
relation Shelf.bins: few(4) <-> Bin.shelf: one {
  top 2 by stock desc keep code, stock
  summary count, total(qty), min(stock)
  force embed
}
"#;

const METHODS: &[&str] = &[
    "inc_bins_qty",
    "dec_bins_qty",
    "inc_bins_stock",
    "dec_bins_stock",
    "inc_bins_level",
];

fn methods(collection: &'static str) -> Vec<Method> {
    METHODS
        .iter()
        .copied()
        .map(|name| Method {
            collection,
            name,
            params: &[],
            ret: "",
        })
        .collect()
}

fn bin(code: &str, qty: i32, stock: i64, level: f64) -> Bson {
    Bson::Document(doc! { "code": code, "q": qty, "stock": stock, "level": level })
}

fn op(collection: &str, method: &str, args: Vec<Bson>, field: &str, decrement: bool) -> Op {
    Op {
        collection: collection.to_owned(),
        method: method.to_owned(),
        args: args.into_iter().map(Bson::into_canonical_extjson).collect(),
        kind: Kind::Element {
            path: "bins".to_owned(),
            key: "code".to_owned(),
            field: field.to_owned(),
            decrement,
        },
        then: Vec::new(),
    }
}

fn element(d: &Document, code: &str) -> Document {
    d.get_array("bins")
        .unwrap_or_else(|e| panic!("no bins: {e}"))
        .iter()
        .filter_map(Bson::as_document)
        .find(|e| e.get_str("code") == Ok(code))
        .cloned()
        .unwrap_or_else(|| panic!("no bin {code} in {d}"))
}

#[test]
fn the_reference_predicts_every_answer_and_the_document_after() {
    let plan = plan_of("shelves", SQN).unwrap_or_else(|e| panic!("{e}"));
    let shelves = plan
        .collections
        .iter()
        .find(|c| c.entity == "Shelf")
        .unwrap_or_else(|| panic!("no Shelf collection"))
        .clone();
    let name: &'static str = Box::leak(shelves.name.clone().into_boxed_str());
    let all = methods(name);
    let s = Schema {
        plan: &plan,
        methods: &all,
    };
    // What the Plan keys: the bins by their code, with three numbers.
    let k = keyed(&shelves);
    assert_eq!(k.len(), 1, "one keyed array");
    assert_eq!(k[0].key.name, "code");
    let numbers: Vec<&str> = k[0].numbers.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(numbers, ["q", "stock", "level"]);
    assert_eq!(
        method_names(k[0].array, k[0].numbers[0]),
        ("inc_bins_qty".to_owned(), "dec_bins_qty".to_owned())
    );

    let id = Bson::Int32(7);
    let mut shelf = doc! {
        "_id": id.clone(),
        "name": "north",
        "bins": [bin("a", 3, 10, 4.0), bin("b", 0, 2, 0.0), bin("c", 5, 40, -1.0)],
    };
    squillion_modelcheck::checks::recompute_summaries(&plan, &shelves, &mut shelf);
    let mut r = Reference::default();
    r.docs_mut(name).push(shelf.clone());
    let summary = |r: &Reference, suffix: &str| -> Bson {
        let d = r
            .get(name, &id)
            .unwrap_or_else(|| panic!("the shelf is gone"));
        d.iter()
            .find(|(k, _)| k.starts_with("bins") && k.ends_with(suffix))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no summary *{suffix} in {d}"))
    };
    assert_eq!(summary(&r, "_total"), Bson::Int64(8));
    assert_eq!(summary(&r, "_min"), Bson::Int64(2));

    // An increment answers the new value and moves the summaries.
    let inc = op(
        name,
        "inc_bins_qty",
        vec![id.clone(), "a".into(), Bson::Int32(4)],
        "q",
        false,
    );
    assert_eq!(
        expect(&s, &mut r, &inc),
        Some(Expect::Value(Bson::Int32(7)))
    );
    let after = r.get(name, &id).cloned().unwrap_or_default();
    assert_eq!(element(&after, "a").get_i32("q"), Ok(7));
    assert_eq!(summary(&r, "_total"), Bson::Int64(12));

    // A decrement past the floor (the range's 2) answers null and writes nothing.
    let before = r.clone();
    let past = op(
        name,
        "dec_bins_stock",
        vec![id.clone(), "a".into(), Bson::Int64(9)],
        "stock",
        true,
    );
    assert_eq!(expect(&s, &mut r, &past), Some(Expect::Value(Bson::Null)));
    assert_eq!(r, before);
    // Down to the floor exactly: allowed; the minimum and the top list follow.
    let to_floor = op(
        name,
        "dec_bins_stock",
        vec![id.clone(), "c".into(), Bson::Int64(38)],
        "stock",
        true,
    );
    assert_eq!(
        expect(&s, &mut r, &to_floor),
        Some(Expect::Value(Bson::Int64(2)))
    );
    assert_eq!(summary(&r, "_min"), Bson::Int64(2));
    let d = r.get(name, &id).cloned().unwrap_or_default();
    let top = d
        .iter()
        .find(|(k, v)| k.contains("bins") && matches!(v, Bson::Array(_)) && *k != "bins")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no top list in {d}"));
    let first = top
        .as_array()
        .and_then(|a| a.first())
        .and_then(Bson::as_document)
        .and_then(|e| e.get_str("code").ok())
        .map(str::to_owned);
    assert_eq!(first.as_deref(), Some("a"), "the top list reordered: {top}");

    // A counter without a range stops at 0.
    let zero = op(
        name,
        "dec_bins_qty",
        vec![id.clone(), "b".into(), Bson::Int32(1)],
        "q",
        true,
    );
    let before = r.clone();
    assert_eq!(expect(&s, &mut r, &zero), Some(Expect::Value(Bson::Null)));
    assert_eq!(r, before);

    // Past the range's maximum: the validator refuses it, nothing written.
    let over = op(
        name,
        "inc_bins_level",
        vec![id.clone(), "a".into(), Bson::Double(1.5)],
        "level",
        false,
    );
    assert_eq!(expect(&s, &mut r, &over), Some(Expect::Invalid));
    assert_eq!(r, before);

    // A key the array does not hold, a parent that does not exist.
    let missing = op(
        name,
        "inc_bins_qty",
        vec![id.clone(), "zz".into(), Bson::Int32(1)],
        "q",
        false,
    );
    assert_eq!(expect(&s, &mut r, &missing), Some(Expect::NoSuchElement));
    let nobody = op(
        name,
        "inc_bins_qty",
        vec![Bson::Int32(8), "a".into(), Bson::Int32(1)],
        "q",
        false,
    );
    assert_eq!(expect(&s, &mut r, &nobody), Some(Expect::NotFound));
    assert_eq!(r, before);

    // The draw reaches every case: held and missing keys, missing parents, increments and
    // decrements, decrements past the floor.
    let mut rng = Rng::new(5);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let d = r.get(name, &id).cloned().unwrap_or_default();
        let Some(o) = draw(&s, &r, &shelves, &d, &id, &mut rng) else {
            continue;
        };
        let mut tmp = r.clone();
        let e = expect(&s, &mut tmp, &o);
        let what = match (&o.kind, e) {
            (
                Kind::Element {
                    decrement: true, ..
                },
                Some(Expect::Value(Bson::Null)),
            ) => "past the floor",
            (
                Kind::Element {
                    decrement: true, ..
                },
                Some(Expect::Value(_)),
            ) => "decrement",
            (_, Some(Expect::Value(_))) => "increment",
            (_, Some(Expect::NotFound)) => "no parent",
            (_, Some(Expect::NoSuchElement)) => "no element",
            (_, Some(Expect::Invalid)) => "past the range",
            (_, other) => panic!("{}: {other:?}", o.describe()),
        };
        seen.insert(what);
    }
    for want in [
        "past the floor",
        "decrement",
        "increment",
        "no parent",
        "no element",
    ] {
        assert!(
            seen.contains(want),
            "the draw never gives `{want}`: {seen:?}"
        );
    }
}
