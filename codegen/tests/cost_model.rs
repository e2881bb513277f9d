//! The cost model on generated schemas: where the schema declares a workload, the chosen layout is
//! never costlier than an alternative the rules accept; more reads of one kind never move the
//! choice away from the layout that serves them; every decision's costs are consistent; and the
//! Plan JSON, costs included, validates against `docs/plan.schema.json`'s schema.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use squillion_codegen::plan::{AlternativeCost, Decision, Plan};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!(
            "schema does not check:\n{}\n{src}",
            source.render(&diags, false)
        ),
    }
}

const CLASSES: &[&str] = &[
    "few(5)",
    "few",
    "many(300)",
    "many(1000)",
    "many(20000, typical 50)",
    "squillions",
];

/// One relation Owner -> Item with drawn facts, and drawn rates of the queries that read it.
#[derive(Debug, Clone)]
struct Case {
    class: usize,
    standalone: bool,
    append_heavy: bool,
    series: bool,
    page: Option<u64>,
    by_owner_rate: Option<u32>,
    alone_rate: Option<u32>,
    body_bytes: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..CLASSES.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec![10u64, 25, 50])),
        prop::option::of(1u32..500),
        prop::option::of(1u32..500),
        prop::sample::select(vec![0u32, 200, 2000]),
    )
        .prop_map(
            |(
                class,
                standalone,
                append_heavy,
                series,
                page,
                by_owner_rate,
                alone_rate,
                body_bytes,
            )| {
                Case {
                    class,
                    standalone,
                    append_heavy,
                    series,
                    page,
                    by_owner_rate,
                    alone_rate,
                    body_bytes,
                }
            },
        )
}

fn text(c: &Case) -> String {
    let body = if c.body_bytes > 0 {
        format!("  body: string @size({}B)\n", c.body_bytes)
    } else {
        String::new()
    };
    let mut facts = Vec::new();
    if c.standalone {
        facts.push("standalone Item".to_owned());
    }
    let unbounded = CLASSES[c.class] == "squillions";
    match (c.append_heavy, unbounded) {
        (true, true) => facts.push("growth append_heavy, unbounded".to_owned()),
        (true, false) => facts.push("growth append_heavy".to_owned()),
        (false, true) => facts.push("growth unbounded".to_owned()),
        (false, false) => {}
    }
    if c.series {
        facts.push("time_range by at".to_owned());
    } else if let Some(p) = c.page {
        facts.push(format!("page {p} by at asc"));
    }
    let mut s = format!(
        "entity Owner {{ name: string }}\nentity Item {{\n  at: date\n  code: string\n{body}}}\n\
         relation Owner.items: {} <-> Item.owner: one {{\n  {}\n}}\n",
        CLASSES[c.class],
        facts.join("\n  ")
    );
    if let Some(r) = c.by_owner_rate {
        s.push_str(&format!(
            "query items_of_owner on Item {{\n  where owner == ?\n  rate {r}/s\n}}\n"
        ));
    }
    if let Some(r) = c.alone_rate {
        s.push_str(&format!(
            "query item_by_code on Item {{\n  where code == ?\n  rate {r}/s\n}}\n"
        ));
    }
    s
}

fn costs(d: &Decision) -> &[AlternativeCost] {
    d.cost
        .as_ref()
        .map(|c| c.alternatives.as_slice())
        .unwrap_or_default()
}

fn chosen(d: &Decision) -> &AlternativeCost {
    let chosen: Vec<_> = costs(d).iter().filter(|a| a.chosen).collect();
    assert_eq!(
        chosen.len(),
        1,
        "{} has {} chosen alternatives",
        d.id,
        chosen.len()
    );
    chosen[0]
}

/// Every decision's costs: exactly one chosen, the plan's layout; every figure finite and never
/// negative; `relative` is the ratio to the chosen estimate.
fn consistent(p: &Plan) -> Result<(), TestCaseError> {
    for d in &p.relationships {
        let Some(c) = &d.cost else {
            return Err(TestCaseError::fail(format!("{} has no costs", d.id)));
        };
        let ch = chosen(d);
        prop_assert_eq!(ch.layout, d.strategy, "{}", d.id);
        prop_assert_eq!(
            ch.bucket_size,
            d.bucket.as_ref().map(|b| b.size),
            "{}",
            d.id
        );
        for a in &c.alternatives {
            for x in [
                a.round_trips,
                a.documents_read,
                a.bytes_read,
                a.index_entries_written,
                a.documents_written,
                a.documents_rewritten,
                a.bytes_rewritten,
                a.micros,
            ] {
                prop_assert!(x.is_finite() && x >= 0.0, "{}: {:?}", d.id, a);
            }
            prop_assert!(a.documents_rewritten <= a.documents_written + 1e-9);
            if ch.micros > 0.0 {
                let r = a.micros / ch.micros;
                prop_assert!((a.relative - r).abs() <= 0.01 + r * 0.001, "{:?}", a);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, .. ProptestConfig::default() })]

    /// Where the schema declares a workload (a query rate), the chosen layout costs no more than
    /// any alternative the rules accept; without one, the rules' order stands.
    #[test]
    fn the_chosen_layout_is_never_costlier_than_an_acceptable_one(c in case()) {
        let src = text(&c);
        let p = plan(&src);
        consistent(&p)?;
        let d = &p.relationships[0];
        let w = &d.cost.as_ref().unwrap().workload;
        prop_assert_eq!(w.declared, c.by_owner_rate.is_some() || c.alone_rate.is_some());
        if w.declared {
            let ch = chosen(d);
            for a in costs(d).iter().filter(|a| a.acceptable) {
                prop_assert!(
                    ch.micros <= a.micros + 1e-6,
                    "chose {:?} at {} over acceptable {:?} at {}\n{}",
                    ch.layout, ch.micros, a.layout, a.micros, src
                );
            }
        }
    }

    /// More reads of a parent's children never make the layout that serves them best costlier
    /// relative to the others, and never move the choice away from it.
    #[test]
    fn more_reads_never_turn_against_the_layout_that_serves_them(
        c in case(),
        alone in 1u32..50,
        steps in (1u32..20, 2u32..20),
    ) {
        let (low, high) = (steps.0, steps.0 * steps.1);
        let at = |rate: u32| {
            let mut k = c.clone();
            k.by_owner_rate = Some(rate);
            k.alone_rate = Some(alone);
            let p = plan(&text(&k));
            p.relationships[0].clone()
        };
        let (a, b) = (at(low), at(high));
        let cost_of = |d: &Decision, x: &AlternativeCost| {
            costs(d)
                .iter()
                .find(|y| y.layout == x.layout && y.bucket_size == x.bucket_size)
                .map(|y| y.micros)
        };
        // The layout whose cost grows least per extra read serves the reads best.
        let Some(server) = costs(&a)
            .iter()
            .filter(|x| cost_of(&b, x).is_some())
            .min_by(|x, y| {
                let gx = cost_of(&b, x).unwrap() - x.micros;
                let gy = cost_of(&b, y).unwrap() - y.micros;
                gx.total_cmp(&gy)
            })
        else {
            return Ok(());
        };
        let s_low = server.micros;
        let s_high = cost_of(&b, server).unwrap();
        for x in costs(&a) {
            let Some(x_high) = cost_of(&b, x) else { continue };
            // Its cost against every other's never grows with the reads.
            prop_assert!(
                s_high - x_high <= s_low - x.micros + 1e-6 * (1.0 + x_high.abs()),
                "{:?} against {:?}: {} -> {}", server.layout, x.layout,
                s_low - x.micros, s_high - x_high
            );
        }
        let a_chose = chosen(&a);
        if a_chose.layout == server.layout && a_chose.bucket_size == server.bucket_size {
            let b_chose = chosen(&b);
            prop_assert_eq!(
                (b_chose.layout, b_chose.bucket_size),
                (server.layout, server.bucket_size),
                "more reads moved the choice away from {:?}\n{}", server.layout, text(&c)
            );
        }
    }
}

/// The Plan JSON of generated schemas, costs included, validates against the Plan's JSON
/// Schema (the one `docs/plan.schema.json` holds, kept in sync by `plan_schema.rs`).
#[test]
fn plans_with_costs_validate_against_the_schema() {
    let schema = Plan::json_schema();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut texts: Vec<String> = (0..48)
        .map(|_| text(&case().new_tree(&mut runner).unwrap().current()))
        .collect();
    texts.extend(
        squillion_schemagen::batch(7, 24, squillion_schemagen::Config::default())
            .iter()
            .map(|(_, s)| squillion_schemagen::render(s)),
    );
    for src in texts {
        let source = SourceFile::new("gen.sqn", src.as_str());
        let Ok(checked) = squillion_codegen::load(&source) else {
            continue;
        };
        let p = squillion_codegen::engine::plan(&checked.model, &source);
        assert!(p.relationships.iter().all(|d| d.cost.is_some()));
        let json: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{src}");
    }
}
