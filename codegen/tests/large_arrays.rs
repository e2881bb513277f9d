//! `@large` (and `@size`) on arrays and maps counts per element: an array of N large values is
//! N times the size. Over generated fields (scalar, array, map; string, binary or a value type;
//! bounds and sizes drawn), the collection's size estimate, the cost model's document size and the size
//! warnings agree: the average counts the usual number of elements (half the bound) times the
//! declared size, the worst case the bound times it, the cost model's child size is the
//! collection's average within framing, and a worst case over `doc_warn_size` or
//! `doc_max_size` is reported (W103, W104).

use proptest::prelude::*;
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("does not check:\n{}\n{src}", source.render(&diags, false)),
    }
}

#[derive(Debug, Clone)]
enum Shape {
    Scalar,
    Array(u64),
    Map,
}

/// Entries of a map on average and at worst (the size model's defaults, docs/language.md).
const MAP_AVERAGE: u64 = 10;
const MAP_WORST: u64 = 200;

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Scalar),
        (1u64..3000).prop_map(Shape::Array),
        Just(Shape::Map),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn a_declared_size_counts_per_element_everywhere(
        shape in shape(),
        elem in prop::sample::select(vec!["string", "binary", "Photo"]),
        kb in 1u64..64,
        large in any::<bool>(),
    ) {
        let ty = match &shape {
            Shape::Scalar => elem.to_owned(),
            Shape::Array(n) => format!("[{elem}; {n}]"),
            Shape::Map => format!("map<{elem}>"),
        };
        let attr = if large { "large" } else { "size" };
        let src = format!(
            "entity Owner {{ name: string }}\n\
             value Photo {{ caption: string  taken: date }}\n\
             entity Item {{ f: {ty} @{attr}({kb}KB)  label: string }}\n\
             relation Owner.items: many(300) <-> Item.owner: one {{ standalone Item }}\n"
        );
        let p = plan(&src);
        let bytes = kb * 1024;
        let items = p.collections.iter().find(|c| c.entity == "Item").expect("items");
        let f = items.fields.iter().find(|f| f.name == "f").expect("f");
        let (avg_n, worst_n) = match shape {
            Shape::Scalar => (1, 1),
            Shape::Array(n) => ((n / 2).max(1), n),
            Shape::Map => (MAP_AVERAGE, MAP_WORST),
        };
        // Per element: the average counts the usual number of them, the worst case all.
        prop_assert!(f.size.average >= avg_n * bytes, "average {} < {avg_n} x {bytes}\n{src}", f.size.average);
        prop_assert!(f.size.average <= avg_n * (bytes + 64) + 64, "average {}\n{src}", f.size.average);
        if large || !matches!(shape, Shape::Scalar) {
            let worst = f.size.worst.expect("bounded");
            prop_assert!(worst >= worst_n * bytes, "worst {worst} < {worst_n} x {bytes}\n{src}");
        }
        // The cost model sizes the same document.
        let d = p.relationships.iter().find(|d| d.id == "Owner.items").expect("relation");
        let cost = d.cost.as_ref().expect("costed");
        let child = cost.workload.child_bytes as f64;
        let coll = items.size.average as f64;
        prop_assert!(
            (child - coll).abs() <= 0.05 * coll + 64.0,
            "cost model child {child} bytes, collection average {coll}\n{src}"
        );
        // The size warnings follow the worst case.
        let warned = |code: &str| p.warnings.iter().any(|w| w.code == code && w.collection.as_deref() == Some(items.name.as_str()));
        if let Some(w) = items.size.worst {
            if w > 16 * 1024 * 1024 {
                prop_assert!(warned("W104"), "worst {w} not reported\n{src}");
            } else if w > 2 * 1024 * 1024 {
                prop_assert!(warned("W103"), "worst {w} not reported\n{src}");
            }
        }
    }
}
