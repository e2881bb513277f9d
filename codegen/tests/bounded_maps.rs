//! Bounded maps, `map<T; N>` (issue 12): the bound is read with the array bound's rules and
//! diagnostics, kept by the Model (`sqn()` writes it back), and used by the size model (N entries
//! at worst, the smaller of N and 10 on average) and the validator (`maxProperties: N`; an
//! `@attributes` map is an array of `{k, v}`, bounded with `maxItems`). The server refusing a
//! map over its bound, and the guarded entry setter, are `correctness/tests/maps.rs`.

use serde_json::Value;
use squillion_codegen::model::FieldType;
use squillion_codegen::plan::{Plan, PlanField};
use squillion_grammar::{Diagnostic, SourceFile};

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let source = SourceFile::new("maps.sqn", text);
    match squillion_codegen::pipeline::check(&source) {
        Ok(valid) => valid.checked.warnings,
        Err(diagnostics) => diagnostics,
    }
}

fn plan(text: &str) -> Plan {
    let source = SourceFile::new("maps.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(d) => panic!("does not check:\n{}", source.render(&d, false)),
    }
}

/// The top-level field `m` of the only collection of `entity A @collection("a") { m: <ty> ... }`.
fn field_m(ty: &str) -> PlanField {
    let p = plan(&format!(
        "value V {{ s: string  n: int32 }}\nentity A @collection(\"a\") {{ m: {ty} }}"
    ));
    let c = p.collection("a").expect("collection a");
    c.field("m").cloned().expect("field m")
}

fn validator_m(ty: &str) -> Value {
    let p = plan(&format!(
        "value V {{ s: string  n: int32 }}\nentity A @collection(\"a\") {{ m: {ty} }}"
    ));
    let c = p.collection("a").expect("collection a");
    let v = squillion_codegen::validator::validator(c);
    v["$jsonSchema"]["properties"]["m"].clone()
}

/// Bounds that are not counts: each gets the array bound's diagnostic, at the same place, with
/// "map" for "array".
#[test]
fn a_bad_map_bound_gets_the_array_bounds_diagnostic() {
    for bad in [
        "0",
        "-3",
        "2.5",
        "10KB",
        "5/s",
        "3d",
        "99999999999999999999999",
    ] {
        for value in ["int32", "string?", "V", "[double; 4]"] {
            let array = diagnostics(&format!(
                "value V {{ s: string }}\nentity A {{ a: [{value}; {bad}] }}"
            ));
            let map = diagnostics(&format!(
                "value V {{ s: string }}\nentity A {{ a: map<{value}; {bad}> }}"
            ));
            assert_eq!(array.len(), 1, "[{value}; {bad}]: {array:?}");
            assert_eq!(map.len(), 1, "map<{value}; {bad}>: {map:?}");
            let (a, m) = (&array[0], &map[0]);
            assert!(a.code.starts_with('E'), "{a:?}");
            assert_eq!(m.code, a.code, "map<{value}; {bad}>");
            assert_eq!(
                m.message,
                a.message.replace("the array bound", "the map bound"),
                "map<{value}; {bad}>"
            );
            assert!(m.message.contains("the map bound"), "{}", m.message);
            assert_eq!(m.help, a.help, "map<{value}; {bad}>");
            assert!(m.help.is_some(), "map<{value}; {bad}>: no help");
            // The same part of the quantity is underlined: `map<` is 3 bytes longer than `[`.
            assert_eq!(m.span.start, a.span.start + 3, "map<{value}; {bad}>");
            assert_eq!(m.span.end, a.span.end + 3, "map<{value}; {bad}>");
            let quantity = m.span.end <= text_len(value, bad) && m.span.end > m.span.start;
            assert!(quantity, "map<{value}; {bad}>: {:?}", m.span);
        }
    }
}

/// Where `map<value; bad>` ends in its test file.
fn text_len(value: &str, bad: &str) -> usize {
    format!("value V {{ s: string }}\nentity A {{ a: map<{value}; {bad}").len()
}

/// Every bound and value type survives the Model: the field's type carries it and `sqn()` writes
/// what was read, which reads back to the same type.
#[test]
fn the_model_keeps_the_bound_and_writes_it_back() {
    for value in ["int32", "string", "V", "[double; 4]", "map<int64; 2>"] {
        for bound in [None, Some(1u64), Some(7), Some(200), Some(5_000)] {
            let written = match bound {
                Some(n) => format!("map<{value}; {n}>"),
                None => format!("map<{value}>"),
            };
            let text =
                format!("value V {{ s: string }}\nentity A @collection(\"a\") {{ m: {written} }}");
            let source = SourceFile::new("maps.sqn", text.as_str());
            let checked = squillion_codegen::load(&source)
                .unwrap_or_else(|d| panic!("{written}:\n{}", source.render(&d, false)));
            let f = checked.model.entity("A").unwrap().field("m").unwrap();
            match &f.ty {
                FieldType::Map { bound: b, .. } => assert_eq!(*b, bound, "{written}"),
                other => panic!("{written}: {other:?}"),
            }
            assert_eq!(f.ty.sqn(), written);
            let again = format!("value V {{ s: string }}\nentity A {{ m: {} }}", f.ty.sqn());
            let source = SourceFile::new("again.sqn", again.as_str());
            let reread = squillion_codegen::load(&source).expect("sqn() reads back");
            assert_eq!(
                reread.model.entity("A").unwrap().field("m").unwrap().ty,
                f.ty
            );
        }
    }
}

/// The size model: a bounded map holds N entries at worst and min(N, 10) on average; an unbounded
/// one 200 and 10. So its worst case grows with N, equals the unbounded map's at N = 200, and its
/// average stops growing at N = 10.
#[test]
fn a_bounded_maps_size_follows_its_bound() {
    // (A map of arrays is left out: the Plan's field cannot tell it from an array of maps.)
    for value in ["int32", "string", "V", "binary"] {
        let unbounded = field_m(&format!("map<{value}>")).size;
        let bounds = [1u64, 2, 5, 9, 10, 11, 50, 199, 200, 201, 1_000];
        let sizes: Vec<_> = bounds
            .iter()
            .map(|n| field_m(&format!("map<{value}; {n}>")).size)
            .collect();
        for (i, (n, s)) in bounds.iter().zip(&sizes).enumerate() {
            let worst = s
                .worst
                .expect("a bounded map of bounded values has a worst case");
            assert!(s.average <= worst, "{value}; {n}: {s:?}");
            if i > 0 {
                let (prev_n, prev) = (bounds[i - 1], &sizes[i - 1]);
                assert!(worst > prev.worst.unwrap(), "{value}: {prev_n} -> {n}");
                if *n <= 10 {
                    assert!(s.average > prev.average, "{value}: {prev_n} -> {n}");
                } else {
                    assert_eq!(s.average, prev.average, "{value}: {prev_n} -> {n}");
                }
            }
            if *n == 200 {
                assert_eq!(s.worst, unbounded.worst, "{value}");
            }
            if *n >= 10 {
                assert_eq!(s.average, unbounded.average, "{value}; {n}");
            } else {
                assert!(s.average < unbounded.average, "{value}; {n}");
            }
        }
        // Each entry at worst costs the same: the worst case is linear in N.
        let per = |a: u64, b: u64, sa: Option<u64>, sb: Option<u64>| {
            (sb.unwrap() - sa.unwrap()) / (b - a)
        };
        assert_eq!(
            per(1, 2, sizes[0].worst, sizes[1].worst),
            per(50, 1_000, sizes[6].worst, sizes[10].worst),
            "{value}"
        );
    }
}

/// An `@attributes` map is stored as an array of `{k, v}`: its bound is the array's, sized as one
/// (N entries at worst, the map's usual min(N, 10) on average) and validated with `maxItems`.
#[test]
fn a_bounded_attributes_map_is_a_bounded_array() {
    let unbounded = field_m("map<string> @attributes");
    assert_eq!(unbounded.max_items, None);
    let mut previous_worst = 0;
    for n in [1u64, 3, 10, 40, 200, 2_000] {
        let f = field_m(&format!("map<string; {n}> @attributes"));
        assert_eq!(f.array_depth, 1);
        assert!(!f.map);
        assert_eq!(f.max_items, Some(n));
        assert_eq!(f.max_entries, None);
        assert_eq!(f.typical_items, Some(n.min(10)));
        let worst = f.size.worst.expect("bounded");
        assert!(worst > previous_worst, "{n}");
        previous_worst = worst;
        if n == 200 {
            assert_eq!(f.size.worst, unbounded.size.worst);
        }
        if n >= 10 {
            assert_eq!(f.size.average, unbounded.size.average, "{n}");
        }
        let v = validator_m(&format!("map<string; {n}> @attributes"));
        assert_eq!(v["bsonType"], "array");
        assert_eq!(v["maxItems"], n, "{v}");
        assert!(v.get("maxProperties").is_none(), "{v}");
    }
    let v = validator_m("map<string> @attributes");
    assert!(v.get("maxItems").is_none(), "{v}");
}

/// The validator bounds a bounded map with `maxProperties` and keeps its values' schema; an
/// unbounded map has none; a map inside an array or a value type is bounded where it is.
#[test]
fn the_validator_bounds_a_map_with_max_properties() {
    for n in [1u64, 5, 64, 10_000] {
        for (value, bson) in [("int32", "int"), ("string", "string"), ("V", "object")] {
            let v = validator_m(&format!("map<{value}; {n}>"));
            assert_eq!(v["bsonType"], "object", "{v}");
            assert_eq!(v["maxProperties"], n, "{v}");
            assert_eq!(v["additionalProperties"]["bsonType"], bson, "{v}");
            let v = validator_m(&format!("map<{value}; {n}>?"));
            assert_eq!(v["maxProperties"], n, "{v}");
            let v = validator_m(&format!("map<{value}>"));
            assert!(v.get("maxProperties").is_none(), "{v}");
        }
    }
    // Inside a value type.
    let p =
        plan("value W { tags: map<int32; 4> }\nentity A @collection(\"a\") { w: W  ws: [W; 2] }");
    let c = p.collection("a").unwrap();
    let v = squillion_codegen::validator::validator(c);
    let props = &v["$jsonSchema"]["properties"];
    assert_eq!(props["w"]["properties"]["tags"]["maxProperties"], 4, "{v}");
    assert_eq!(
        props["ws"]["items"]["properties"]["tags"]["maxProperties"], 4,
        "{v}"
    );
}

/// A map's bound changed between two plans: the diff records it and says it in words, and an
/// unchanged bound is no change.
#[test]
fn the_plan_diff_names_a_changed_map_bound() {
    use squillion_codegen::diff;
    let with = |ty: &str| {
        plan(&format!(
            "value V {{ s: string  n: int32 }}\nentity A @collection(\"a\") {{ m: {ty} }}"
        ))
    };
    for (old, new, words) in [
        (
            "map<int32; 5>",
            "map<int32; 3>",
            "At most 3 entries (was 5).",
        ),
        (
            "map<int32>",
            "map<int32; 3>",
            "At most 3 entries (was unbounded).",
        ),
        ("map<V; 2>", "map<V>", "Unbounded (was at most 2 entries)."),
        (
            "map<V; 2000>",
            "map<V; 20000>",
            "At most 20,000 entries (was 2,000).",
        ),
    ] {
        let d = diff::diff(&with(old), &with(new));
        let changed: Vec<_> = d.fields.iter().filter(|f| f.code_path == "m").collect();
        assert_eq!(changed.len(), 1, "{old} -> {new}: {:?}", d.fields);
        let text = format!("{:?}", squillion_codegen::prose::diff::sections(&d));
        assert!(text.contains(words), "{old} -> {new}: {text}");
    }
    let same = diff::diff(&with("map<int32; 4>"), &with("map<int32; 4>"));
    assert!(
        same.fields.iter().all(|f| f.code_path != "m"),
        "{:?}",
        same.fields
    );
}
