//! Ranges (`@range(min, max)`) for any bounds on any field type: a reference model of the rules
//! (numbers only; whole and within the type for `int32`/`int64`; smallest first; a counter's range
//! starts at 0 or more) says whether the file is accepted. Accepted, the Plan's validator holds
//! exactly the bounds (`minimum`/`maximum`, on the elements of arrays and maps), the generated
//! field's docs state them and a counter's derive attribute carries its floor; refused, every
//! error is E0316 or E0325 (or E0314/E0312 for a unit) with a position and a help line. The
//! server test `examples/generated/tests/ranges.rs` checks that the server refuses writes outside.

use proptest::prelude::*;
use serde_json::Value;
use squillion_codegen::rust::{generate, RustSettings};
use squillion_codegen::validator::validator;
use squillion_grammar::SourceFile;

/// Field types: numbers, arrays and maps of numbers, and types that are not numbers.
const TYPES: [&str; 9] = [
    "int32",
    "int64",
    "double",
    "decimal128",
    "[int32; 4]",
    "map<double>",
    "string",
    "bool",
    "[string; 3]",
];

/// A bound as written, and its exact value when it is a plain number.
fn bound() -> impl Strategy<Value = String> {
    prop_oneof![
        (-20i64..20).prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            i64::from(i32::MIN) - 1,
            i64::from(i32::MAX) + 1,
            i64::MIN,
            i64::MAX,
        ])
        .prop_map(|n| n.to_string()),
        Just("9223372036854775808".to_owned()),
        Just("-9223372036854775809".to_owned()),
        (-200i32..200, 1u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
        Just("-0".to_owned()),
    ]
}

/// The model: whether `@range(min, max)` holds on a field of `ty` (a counter or not).
fn accepted(ty: &str, counter: bool, min: &str, max: &str) -> bool {
    let element = ty
        .trim_start_matches('[')
        .trim_start_matches("map<")
        .split([';', '>', ']'])
        .next()
        .unwrap_or_default();
    let limits = match element {
        "int32" => Some((i128::from(i32::MIN), i128::from(i32::MAX))),
        "int64" => Some((i128::from(i64::MIN), i128::from(i64::MAX))),
        "double" | "decimal128" => None,
        _ => return false,
    };
    let (lo, hi) = match limits {
        Some((tlo, thi)) => {
            let (Ok(lo), Ok(hi)) = (min.parse::<i128>(), max.parse::<i128>()) else {
                return false;
            };
            if !(tlo..=thi).contains(&lo) || !(tlo..=thi).contains(&hi) {
                return false;
            }
            if lo > hi {
                return false;
            }
            (lo as f64, hi as f64)
        }
        None => {
            let (lo, hi) = (min.parse::<f64>().unwrap(), max.parse::<f64>().unwrap());
            if lo > hi {
                return false;
            }
            (lo, hi)
        }
    };
    let _ = hi;
    !counter || lo >= 0.0
}

/// The validator node of `name` in a plan's only collection, under arrays and maps.
fn element_schema(schema: &Value, name: &str) -> Value {
    let mut node = schema["$jsonSchema"]["properties"][name].clone();
    loop {
        if let Some(items) = node.get("items") {
            node = items.clone();
        } else if let Some(values) = node.get("additionalProperties") {
            node = values.clone();
        } else {
            return node;
        }
    }
}

/// `a` and `b` are the same number (exactly, for integers).
fn same(a: &Value, written: &str) -> bool {
    match (a.as_i64(), written.parse::<i64>()) {
        (Some(x), Ok(y)) => x == y,
        _ => a
            .as_f64()
            .zip(written.parse::<f64>().ok())
            .is_some_and(|(x, y)| x == y),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_range_is_planned_exactly_or_refused_with_a_coded_diagnostic(
        ty in prop::sample::select(TYPES.to_vec()),
        counter in any::<bool>(),
        optional in any::<bool>(),
        min in bound(),
        max in bound(),
    ) {
        // `@counter` has its own rules (scalar int32/int64/double, never optional): keep to them.
        let counter = counter && matches!(ty, "int32" | "int64" | "double");
        let optional = optional && !counter;
        let q = if optional { "?" } else { "" };
        let c = if counter { " @counter" } else { "" };
        let text = format!("entity Reading {{\n  name: string\n  level: {ty}{q}{c} @range({min}, {max})\n}}\n");
        let source = SourceFile::new("ranges.sqn", &text);
        let expected = accepted(ty, counter, &min, &max);
        match squillion_codegen::load(&source) {
            Err(errors) => {
                prop_assert!(!expected, "refused although the rules allow it:\n{text}\n{errors:?}");
                for d in &errors {
                    prop_assert!(["E0316", "E0325"].contains(&d.code), "{text}\n{d:?}");
                    prop_assert!(d.help.is_some(), "{d:?}");
                    prop_assert_eq!(source.position(d.span.start).line, 3, "{:?}", d);
                }
            }
            Ok(checked) => {
                prop_assert!(expected, "accepted although the rules refuse it:\n{text}");
                let plan = squillion_codegen::engine::plan(&checked.model, &source);
                let collection = &plan.collections[0];
                let node = element_schema(&validator(collection), "level");
                prop_assert!(same(&node["minimum"], &min), "{node} {min}");
                prop_assert!(same(&node["maximum"], &max), "{node} {max}");
                let code = generate(&plan, &RustSettings::default());
                prop_assert!(code.contains(&format!("(`@range({}, {})`)", node["minimum"], node["maximum"])), "{code}");
                if counter {
                    // The derive's floor for `dec_`: the same number, as a Rust literal.
                    let tight: String = code.chars().filter(|c| !c.is_whitespace()).collect();
                    let floor = tight
                        .split("#[squillion(counter,minimum=")
                        .nth(1)
                        .and_then(|rest| rest.split(',').next())
                        .and_then(|lit| lit.trim().parse::<f64>().ok());
                    prop_assert_eq!(floor, node["minimum"].as_f64(), "{}", code);
                }
            }
        }
    }
}

/// Every place a count, size, rate, duration or ratio is written refuses a negative number with
/// E0314 saying so, now that the grammar reads a sign.
#[test]
fn negative_numbers_are_refused_wherever_a_positive_one_is_expected() {
    let places = [
        "entity A { a: [string; -3] }",
        "entity A { a: string @size(-2KB) }",
        "entity A { a: string @updates(-5/day) }",
        "entity A { a: date @expires(-30d) }",
        "entity A { a: string }\nquery q on A { where a == ? limit -5 }",
        "entity A { a: string }\nquery q on A { where a == ? rate -5/s }",
        "entity A { a: string }\nentity B { b: string }\nrelation A.bs: many(-10) <-> B.a: one",
        "settings { embed_array_max = -1 }\nentity A { a: string }",
        "entity A @schema_version(-1) { a: string }",
    ];
    for text in places {
        let source = SourceFile::new("negative.sqn", text);
        let errors = match squillion_codegen::load(&source) {
            Ok(_) => panic!("accepted: {text}"),
            Err(errors) => errors,
        };
        assert!(
            errors.iter().any(|d| d.code == "E0314"
                && d.label.as_deref() == Some("negative")
                && d.help.is_some()),
            "{text}: {errors:?}"
        );
    }
}
