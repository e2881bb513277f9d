//! Seed 003, "establish relationship balance": a many-to-many whose two sides could both hold
//! an id array is two-way embedding when the sides are alike (3 categories against 5 books) and
//! one-way embedding when one side is far larger (3 against 500,000): only the small side holds
//! ids, and the other direction is a query on that array's multikey index, which the generated
//! repository offers as `find_by_<array>`.
//!
//! The property: for generated bounds on both sides (each within an id array's bound, so rule 3
//! alone decides nothing), names, and `navigate` (none, both), the engine agrees with the
//! reference below, which states the balance the way DOMAIN.md's thresholds do: unbalanced when
//! the large side holds more than a couple of hundred (rule 3's bound for embedding) and at least
//! ten times the small side's.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, Decision, Plan};
use squillion_codegen::rust::{generate, RustSettings};

mod planned;
use planned::{decision, plan, snake};

const PAIRS: &[(&str, &str)] = &[
    ("Student", "Course"),
    ("Book", "Category"),
    ("Employee", "Project"),
    ("Recipe", "Ingredient"),
    ("User", "Group"),
    ("Article", "Tag"),
];

/// The small side (`true` for the left) when the sides are unbalanced.
fn reference(left: u64, right: u64) -> Option<bool> {
    let (small, large) = (left.min(right), left.max(right));
    (large > 200 && large >= 10 * small).then_some(left <= right)
}

fn bound() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..20, 2u64..200, 200u64..=5000]
}

/// The `navigate` fact of a case: none, both, or one side by name. Round 21: `navigate` naming
/// the large side of an unbalanced relationship (a driver's 2,000 routes against a route's 10
/// drivers) put 2,000 `{id, fields}` in every driver (W103, 2 MB); seed 003 reads that
/// direction through the small side's array (a category's books, `find({categories: id})`), so
/// the small side holds the ids whichever side is read.
fn navigation(navigate: &str, a: &str, b: &str) -> String {
    match navigate {
        "both" => "navigate both".to_owned(),
        "left" => format!("navigate {a}"),
        "right" => format!("navigate {b}"),
        _ => String::new(),
    }
}

fn class(n: u64) -> String {
    if n <= 200 {
        format!("few({n})")
    } else {
        format!("many({n})")
    }
}

/// What both properties require of an unbalanced relationship: one_way, held by the small side's
/// end alone, the array indexed first on `indexed` for the other direction, no second array on
/// the large side, a reason saying the sides are unbalanced, and `find_by_<array>` in the
/// generated code (returned, for the property's own checks).
fn one_way_on_the_small_side(
    plan: &Plan,
    d: &Decision,
    (holder, holder_field, other, other_field): (&str, &str, &str, &str),
    indexed: &str,
    src: &str,
) -> Result<String, TestCaseError> {
    prop_assert_eq!(d.strategy, Layout::OneWay, "{}", src);
    prop_assert_eq!(d.placement.len(), 1, "{}", src);
    let p = &d.placement[0];
    prop_assert_eq!(p.holder.as_str(), holder, "{}", src);
    prop_assert_eq!(p.path.as_str(), holder_field, "{}", src);
    // The other direction is read through the holder's array: indexed.
    let coll = plan.collection(&p.collection).unwrap();
    prop_assert!(
        coll.indexes.iter().any(|i| i.keys[0].path == indexed),
        "no index on {}.{}\n{}",
        p.collection,
        indexed,
        src
    );
    let other_coll = plan
        .collections
        .iter()
        .find(|c| c.entity == other && c.role == CollectionRole::Entity)
        .unwrap();
    prop_assert!(
        other_coll.field(other_field).is_none(),
        "{} keeps a second array\n{}",
        other,
        src
    );
    prop_assert!(d.because.contains("unbalanced"), "{}", d.because);
    // The repository reads the other direction: `find_by_<array>`.
    let code = generate(plan, &RustSettings::default());
    prop_assert!(
        code.contains(&format!("find_by_{holder_field}")),
        "no find_by_{}",
        holder_field
    );
    Ok(code)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn unbalanced_sides_keep_ids_on_the_small_side_only(
        (a, b) in prop::sample::select(PAIRS),
        left in bound(),
        right in bound(),
        navigate in prop::sample::select(&["", "both", "left", "right"][..]),
    ) {
        let (af, bf) = (format!("{}s", snake(b)), format!("{}s", snake(a)));
        let src = format!(
            "entity {a} {{ name: string }}\nentity {b} {{ title: string }}\n\
             relation {a}.{af}: {} <-> {b}.{bf}: {} {{ {} }}\n",
            class(left),
            class(right),
            navigation(navigate, a, b)
        );
        let plan = plan(&src);
        let d = decision(&plan, &format!("{a}.{af}"));
        match reference(left, right) {
            None if navigate == "left" || navigate == "right" => {
                let named = if navigate == "left" { a } else { b };
                prop_assert_eq!(d.strategy, Layout::OneWay, "{}", src);
                prop_assert_eq!(d.placement[0].holder.as_str(), named, "{}", src);
            }
            None => prop_assert_eq!(d.strategy, Layout::TwoWay, "{}", src),
            Some(left_small) => {
                let ends = if left_small { (a, af.as_str(), b, bf.as_str()) } else { (b, bf.as_str(), a, af.as_str()) };
                let holder_field = ends.1;
                let code = one_way_on_the_small_side(&plan, d, ends, holder_field, &src)?;
                let two_way = d.rejected.iter().find(|r| r.strategy == "two_way");
                prop_assert!(two_way.is_some(), "two_way not among the rejected: {:?}", d.rejected);
                prop_assert!(code.contains(&format!("count_by_{holder_field}")), "no count_by_{}", holder_field);
            }
        }
    }

    /// The balance holds for a relationship with fields of its own (an enrolment's date and
    /// role): when the sides are unbalanced, the small side keeps `{reference, fields}` and the
    /// other direction is a query on its multikey index, whether both directions are read
    /// (`navigate both`) or nothing names one; sides alike in size, with nothing naming one, are
    /// a collection of pairs as before.
    #[test]
    fn unbalanced_sides_with_fields_keep_the_lines_on_the_small_side(
        (a, b) in prop::sample::select(PAIRS),
        left in bound(),
        right in bound(),
        navigate in prop::sample::select(&["", "both", "left", "right"][..]),
        (f1, f2) in prop::sample::select(&[("since", "role"), ("enrolled", "grade"), ("added", "weight")][..]),
    ) {
        let (af, bf) = (format!("{}s", snake(b)), format!("{}s", snake(a)));
        let src = format!(
            "entity {a} {{ name: string }}\nentity {b} {{ title: string }}\n\
             relation {a}.{af}: {} <-> {b}.{bf}: {} {{\n  fields {{ {f1}: date  {f2}: int32 }}\n  {}\n}}\n",
            class(left),
            class(right),
            navigation(navigate, a, b)
        );
        let plan = plan(&src);
        let d = decision(&plan, &format!("{a}.{af}"));
        match reference(left, right) {
            None if navigate == "left" || navigate == "right" => {
                let named = if navigate == "left" { a } else { b };
                prop_assert_eq!(d.strategy, Layout::OneWay, "{}", src);
                prop_assert_eq!(d.placement[0].holder.as_str(), named, "{}", src);
            }
            None => prop_assert_eq!(d.strategy, Layout::LinkCollection, "{}", src),
            Some(left_small) => {
                let ends = if left_small { (a, af.as_str(), b, bf.as_str()) } else { (b, bf.as_str(), a, af.as_str()) };
                let holder_field = ends.1;
                let code = one_way_on_the_small_side(&plan, d, ends, &format!("{holder_field}.id"), &src)?;
                prop_assert!(d.because.contains(f1) && d.because.contains(f2), "{}", d.because);
                for alt in ["two_way", "link_collection"] {
                    prop_assert!(d.rejected.iter().any(|r| r.strategy == alt), "{} not among the rejected: {:?}", alt, d.rejected);
                }
                prop_assert!(code.contains(&format!("pub {f1}:")), "no `{}` in the holder's lines", f1);
            }
        }
    }

    /// The same bounds on an entity related to itself (a user's followed and followers) never
    /// move to one way: one collection holds both arrays, there is no small side to choose.
    #[test]
    fn a_self_relation_has_no_small_side(left in bound(), right in bound()) {
        let src = format!(
            "entity User {{ name: string }}\n\
             relation User.following: {} <-> User.followers: {} {{ navigate both }}\n",
            class(left),
            class(right)
        );
        let plan = plan(&src);
        let d = decision(&plan, "User.following");
        prop_assert_ne!(d.strategy, Layout::OneWay, "{}", src);
    }
}

/// Fields that are arrays or maps would nest in the small side's array (a student's 200 classes,
/// each with its scores: seed 002's sample grades, one document per student and class): the pairs
/// stay documents of a link collection, whatever the names and unbalanced bounds.
#[test]
fn unbalanced_sides_with_array_fields_keep_a_link_collection() {
    for (a, b) in PAIRS {
        for field in [
            "scores: [Score; 10]",
            "tags: [string; 5]",
            "marks: map<int32; 8>",
        ] {
            for (small, large) in [(3u64, 500u64), (200, 2000), (30, 5000)] {
                let (af, bf) = (format!("{}s", snake(b)), format!("{}s", snake(a)));
                let src = format!(
                    "value Score {{ kind: string  score: double }}\n\
                     entity {a} {{ name: string }}\nentity {b} {{ title: string }}\n\
                     relation {a}.{af}: {} <-> {b}.{bf}: {} {{\n  navigate both\n  fields {{ {field} }}\n}}\n",
                    class(small),
                    class(large)
                );
                let plan = plan(&src);
                let d = decision(&plan, &format!("{a}.{af}"));
                assert_eq!(d.strategy, Layout::LinkCollection, "{src}");
            }
        }
    }
}

/// `navigate` naming the large side of an unbalanced relationship keeps the list there only
/// where that side has a reason of its own: it shows the other side's fields (its array carries
/// the copies: sample_training's companies list their people with their names), or it usually
/// holds few (`typical`). Otherwise the small side holds it (round 21: a driver's 2,000 routes).
/// Over both orders of the ends, with and without fields of the relationship.
#[test]
fn navigate_on_the_large_side_needs_a_reason_of_its_own() {
    // (the large end's cardinality, the extra fact, whether the large side holds the list)
    let cases = [
        ("many(2000)", "", false),
        ("many(2000)", "show Route.code on Driver ratio 100:1", true),
        ("many(2000)", "show Driver.name on Route ratio 100:1", false),
        ("many(2000, typical 8)", "", true),
        ("many(2000, typical 500)", "", false),
    ];
    let mut failures = Vec::new();
    for (large, extra, large_holds) in cases {
        for fields in ["", "fields { since: date }"] {
            for driver_left in [true, false] {
                let (left, right) = if driver_left {
                    (
                        format!("Driver.routes: {large}"),
                        "Route.drivers: few(10)".to_owned(),
                    )
                } else {
                    (
                        "Route.drivers: few(10)".to_owned(),
                        format!("Driver.routes: {large}"),
                    )
                };
                let src = format!(
                    "entity Driver {{ name: string }}\nentity Route {{ code: string }}\n\
                     relation {left} <-> {right} {{\n  navigate Driver\n  {extra}\n  {fields}\n}}\n"
                );
                let plan = plan(&src);
                let d = &plan.relationships[0];
                let holders: Vec<&str> = d.placement.iter().map(|p| p.holder.as_str()).collect();
                let want = if large_holds { "Driver" } else { "Route" };
                if d.strategy != Layout::OneWay || holders != [want] {
                    failures.push(format!(
                        "{} held by {holders:?}, want one_way on {want}\n{src}",
                        d.strategy.as_str()
                    ));
                }
            }
        }
    }
    // A forced one_way keeps its ids where `navigate` says, balance or not (the user decided).
    let src = "entity Driver { name: string }\nentity Route { code: string }\n\
               relation Driver.routes: many(2000) <-> Route.drivers: few(10) {\n  navigate Driver\n  force one_way\n}\n";
    let plan = plan(src);
    let d = &plan.relationships[0];
    if d.placement.first().map(|p| p.holder.as_str()) != Some("Driver") {
        failures.push(format!("forced: {:?}\n{src}", d.placement));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
