//! The cost model on generated schemas: where the schema declares a workload, the chosen layout is
//! never costlier than an alternative the rules accept; more reads of one kind never move the
//! choice away from the layout that serves them; every decision's costs are consistent; and the
//! Plan JSON, costs included, validates against `docs/plan.schema.json`'s schema.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use squillion_codegen::plan::{AlternativeCost, Decision, Plan};
use squillion_grammar::SourceFile;

mod planned;
use planned::plan;

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
    /// The list read is a query on the owner's items (`on Owner.items`), which does not make
    /// the items standalone, rather than a query on Item by its owner.
    children_query: bool,
    /// The time range's declared window (children per range read), when `series`.
    window: Option<u32>,
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
                    children_query: false,
                    window: None,
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
        match c.window {
            // A window is at most the declared bound (E0418 otherwise).
            Some(w) => facts.push(format!(
                "time_range by at window {}",
                declared_bound(CLASSES[c.class]).map_or(w, |b| w.min(b))
            )),
            None => facts.push("time_range by at".to_owned()),
        }
    } else if let Some(p) = c.page {
        facts.push(format!("page {p} by at asc"));
    }
    let mut s = format!(
        "entity Owner {{ name: string }}\nentity Item {{\n  at: date\n  code: string\n{body}}}\n\
         relation Owner.items: {} <-> Item.owner: one {{\n  {}\n}}\n",
        CLASSES[c.class],
        facts.join("\n  ")
    );
    match (c.by_owner_rate, c.children_query) {
        (Some(r), false) => s.push_str(&format!(
            "query items_of_owner on Item {{\n  where owner == ?\n  rate {r}/s\n}}\n"
        )),
        (Some(r), true) => s.push_str(&format!(
            "query items_of_owner on Owner.items {{\n  sort at desc\n  rate {r}/s\n}}\n"
        )),
        (None, _) => {}
    }
    if let Some(r) = c.alone_rate {
        s.push_str(&format!(
            "query item_by_code on Item {{\n  where code == ?\n  rate {r}/s\n}}\n"
        ));
    }
    s
}

/// The bound a class declares (`many(300)`: 300).
fn declared_bound(class: &str) -> Option<u32> {
    let inner = class.split_once('(')?.1;
    inner
        .split(|ch: char| !ch.is_ascii_digit())
        .next()?
        .parse()
        .ok()
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

/// Which layout a decision chose, with its bucket size.
fn key(d: &Decision) -> (squillion_codegen::model::Layout, Option<u64>) {
    let c = chosen(d);
    (c.layout, c.bucket_size)
}

/// The decision of `Owner.items` at each value of one workload fact, in increasing order.
fn sweep(c: &Case, steps: &[u32], set: fn(&mut Case, u32)) -> Vec<Decision> {
    steps
        .iter()
        .map(|&x| {
            let mut k = c.clone();
            set(&mut k, x);
            plan(&text(&k)).relationships[0].clone()
        })
        .collect()
}

/// As one fact grows, the choice never returns to a layout it left, and each change goes to a
/// layout whose cost grows less with that fact (its cost per unit of the fact, measured between
/// the two neighbouring schemas, is no higher than the layout it replaces).
fn flips_once_and_forward(ds: &[Decision], steps: &[u32], what: &str) -> Result<(), TestCaseError> {
    let keys: Vec<_> = ds.iter().map(key).collect();
    let mut left = Vec::new();
    for w in 0..keys.len().saturating_sub(1) {
        let (a, b) = (keys[w], keys[w + 1]);
        if a == b {
            continue;
        }
        prop_assert!(
            !left.contains(&b),
            "{what}: the choice went back to {:?} at {} after leaving it ({:?})",
            b,
            steps[w + 1],
            keys
        );
        left.push(a);
        let cost = |d: &Decision, k: (squillion_codegen::model::Layout, Option<u64>)| {
            costs(d)
                .iter()
                .find(|x| (x.layout, x.bucket_size) == k)
                .map(|x| x.micros)
        };
        let (lo, hi) = (&ds[w], &ds[w + 1]);
        if let (Some(a_lo), Some(a_hi), Some(b_lo), Some(b_hi)) =
            (cost(lo, a), cost(hi, a), cost(lo, b), cost(hi, b))
        {
            let tolerance = 1e-6 * (1.0 + a_hi.abs() + b_hi.abs());
            prop_assert!(
                b_hi - b_lo <= a_hi - a_lo + tolerance,
                "{what}: from {:?} to {:?} between {} and {}, but the new layout's cost grew more \
                 ({} -> {}) than the old one's ({} -> {})",
                a,
                b,
                steps[w],
                steps[w + 1],
                b_lo,
                b_hi,
                a_lo,
                a_hi
            );
        }
    }
    // With two layouts in play, one change at most.
    let mut distinct = keys.clone();
    distinct.dedup();
    let kinds: std::collections::BTreeSet<_> = keys.iter().map(|k| format!("{k:?}")).collect();
    if kinds.len() <= 2 {
        prop_assert!(distinct.len() <= 2, "{what}: {:?}", keys);
    }
    Ok(())
}

/// Steps growing geometrically from `from`, by `factor`, `n` of them.
fn geometric(from: u32, factor: f64, n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(n);
    let mut x = f64::from(from);
    for _ in 0..n {
        let v = x.round() as u32;
        if out.last() != Some(&v) {
            out.push(v);
        }
        x *= factor;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, .. ProptestConfig::default() })]

    /// The rate of reads that list a parent's children grows (reads of a child alone fixed):
    /// the cost-based choice changes at most once per pair of layouts, never back, and toward
    /// the layout that serves list reads more cheaply.
    #[test]
    fn the_choice_flips_at_most_once_as_list_reads_grow(
        c in case(),
        alone in prop::option::of(1u32..100),
        children_query in any::<bool>(),
    ) {
        let steps = geometric(1, 1.8, 14);
        let mut c = c;
        c.alone_rate = alone;
        c.children_query = children_query;
        let ds = sweep(&c, &steps, |k, x| k.by_owner_rate = Some(x));
        flips_once_and_forward(&ds, &steps, &format!("list reads\n{}", text(&c)))?;
    }

    /// The rate of reads of a child alone grows (list reads fixed): the same.
    #[test]
    fn the_choice_flips_at_most_once_as_reads_alone_grow(c in case(), list in 1u32..100) {
        let steps = geometric(1, 1.8, 14);
        let mut c = c;
        c.by_owner_rate = Some(list);
        let ds = sweep(&c, &steps, |k, x| k.alone_rate = Some(x));
        flips_once_and_forward(&ds, &steps, &format!("reads alone\n{}", text(&c)))?;
    }

    /// The size of each child grows (rates fixed): the same; bigger children never move the
    /// choice back toward embedding them.
    #[test]
    fn the_choice_flips_at_most_once_as_children_grow(
        c in case(),
        list in 1u32..200,
        alone in prop::option::of(1u32..200),
        children_query in any::<bool>(),
    ) {
        let steps = geometric(16, 1.9, 12);
        let mut c = c;
        c.by_owner_rate = Some(list);
        c.alone_rate = alone;
        c.children_query = children_query;
        let ds = sweep(&c, &steps, |k, x| k.body_bytes = x);
        flips_once_and_forward(&ds, &steps, &format!("child size\n{}", text(&c)))?;
    }

    /// The time range's declared window grows (rates fixed): the same; a wider window never
    /// moves the choice back toward the layout that reads each child as a document of its own.
    #[test]
    fn the_choice_flips_at_most_once_as_the_window_grows(
        c in case(),
        list in 1u32..200,
        alone in prop::option::of(1u32..200),
    ) {
        let steps = geometric(10, 1.9, 12);
        let mut c = c;
        c.series = true;
        c.by_owner_rate = Some(list);
        c.alone_rate = alone;
        let ds = sweep(&c, &steps, |k, x| k.window = Some(x));
        flips_once_and_forward(&ds, &steps, &format!("window\n{}", text(&c)))?;
    }

    /// A wider window never makes any alternative cheaper, and what one range read returns
    /// follows the declared window (up to the children a parent has).
    #[test]
    fn a_wider_window_never_costs_less(c in case(), list in 1u32..200) {
        let steps = geometric(10, 2.3, 9);
        let mut c = c;
        c.series = true;
        c.by_owner_rate = Some(list);
        let ds = sweep(&c, &steps, |k, x| k.window = Some(x));
        for (w, pair) in ds.windows(2).enumerate() {
            let (lo, hi) = (&pair[0], &pair[1]);
            let (wl, wh) = (
                lo.cost.as_ref().unwrap().workload.children_per_list,
                hi.cost.as_ref().unwrap().workload.children_per_list,
            );
            prop_assert!(wl <= wh, "children per read fell from {} to {} at window {}", wl, wh, steps[w + 1]);
            prop_assert!(wl <= f64::from(steps[w]) + 1e-9, "{} children per read at window {}\n{}", wl, steps[w], text(&c));
            for a in costs(lo) {
                let b = costs(hi)
                    .iter()
                    .find(|b| (b.layout, b.bucket_size) == (a.layout, a.bucket_size));
                if let Some(b) = b {
                    prop_assert!(
                        b.micros + 1e-6 >= a.micros,
                        "{:?} costs {} at window {} but {} at {}\n{}",
                        a.layout, a.micros, steps[w], b.micros, steps[w + 1], text(&c)
                    );
                }
            }
        }
    }
}

/// A two-way many-to-many link updates both sides in one transaction: the two_way alternative
/// counts one transaction per link (and no other alternative counts any), for every pair of
/// bounds and with or without declared rates.
#[test]
fn two_way_links_cost_a_transaction_each() {
    for (left, right) in [
        ("few(5)", "many(300)"),
        ("many(12)", "many(2000)"),
        ("many(100)", "few"),
    ] {
        for rate in [None, Some(40)] {
            let mut s = format!(
                "entity Student {{ name: string }}\nentity Course {{ title: string }}\n\
                 relation Student.courses: {left} <-> Course.students: {right} {{ navigate both }}\n"
            );
            if let Some(r) = rate {
                s.push_str(&format!(
                    "query course_by_title on Course {{\n  where title == ?\n  rate {r}/s\n}}\n"
                ));
            }
            let p = plan(&s);
            let d = &p.relationships[0];
            let c = d.cost.as_ref().expect("costed");
            for a in &c.alternatives {
                let want = if a.layout == squillion_codegen::model::Layout::TwoWay {
                    c.workload.appends
                } else {
                    0.0
                };
                assert!(
                    (a.transactions - want).abs() < 0.01,
                    "{:?}: {} transactions, want {want}\n{s}",
                    a.layout,
                    a.transactions
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Under `two_way` every document of the listed side also holds its own partners' ids, so
    /// listing a parent's partners reads those ids too: the two_way alternative reads exactly
    /// `partners x 16` bytes more per listed document than one_way, whose listed documents hold
    /// nothing of the other side (partners: the listed side's declared typical count, else half
    /// its bound). Drawn over both ends' bounds, typical counts and declared rates.
    #[test]
    fn two_way_reads_carry_the_partners_ids(
        left in prop::sample::select(vec![5u32, 12, 100]),
        right in prop::sample::select(vec![20u32, 300, 2000]),
        typical in prop::option::of(1u32..20),
        rate in prop::option::of(1u32..200),
    ) {
        let typical_text = typical.map_or(String::new(), |t| format!(", typical {t}"));
        let mut s = format!(
            "entity Student {{ name: string }}\nentity Course {{ title: string }}\n\
             relation Student.courses: many({left}) <-> Course.students: many({right}{typical_text}) {{ navigate both }}\n"
        );
        if let Some(r) = rate {
            s.push_str(&format!(
                "query courses_of on Course {{\n  where students == ?\n  rate {r}/s\n}}\n"
            ));
        }
        let p = plan(&s);
        let d = &p.relationships[0];
        prop_assume!(d.parent == "Student");
        let c = d.cost.as_ref().expect("costed");
        let find = |l: squillion_codegen::model::Layout| {
            c.alternatives.iter().find(|a| a.layout == l && !a.nothing_copied)
        };
        let (Some(two), Some(one)) = (
            find(squillion_codegen::model::Layout::TwoWay),
            find(squillion_codegen::model::Layout::OneWay),
        ) else {
            return Err(TestCaseError::fail(format!("two_way and one_way are costed\n{s}")));
        };
        let partners = typical.map_or((f64::from(right) / 2.0).max(1.0), f64::from);
        let listed = c.workload.list_reads * c.workload.children_per_list;
        let want = listed * partners * 16.0;
        prop_assert!(
            (two.bytes_read - one.bytes_read - want).abs() <= 0.02 + want * 1e-6,
            "two_way reads {} B, one_way {} B, want {want} B more\n{s}",
            two.bytes_read,
            one.bytes_read
        );
    }
}
