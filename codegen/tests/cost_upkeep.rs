//! What a parent keeps of its children (summaries, `latest N`, `top N`) is written with every
//! child added, and the cost model charges each layout for it as the generated code writes it:
//! in the same write where the append rewrites the parent anyway (embedded children, an array
//! of ids), as a second write and a transaction where the child is a document of its own
//! (`child_ref`, and a bucket, whose append writes the parent's summaries and subsets apart;
//! summaries kept `per bucket` live in the bucket, written by the append itself). Checked over generated one-to-many relations against a reference model: the same
//! schema without the kept patterns, whose alternatives must differ from it by exactly the
//! upkeep, per layout. The decision's own sentences must say which of the two writes it is.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{AlternativeCost, Decision, Plan};

mod planned;
use planned::plan;

const CLASSES: &[&str] = &[
    "few(10)",
    "many(300)",
    "many(5000, typical 40)",
    "squillions",
];

#[derive(Debug, Clone)]
struct Case {
    class: usize,
    standalone: bool,
    append_heavy: bool,
    series: bool,
    by_owner_rate: Option<u32>,
    summaries: bool,
    per_bucket: bool,
    latest: Option<u64>,
    top: Option<u64>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..CLASSES.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(1u32..400),
        (any::<bool>(), any::<bool>()),
        prop::option::of(prop::sample::select(vec![3u64, 10, 50])),
        prop::option::of(prop::sample::select(vec![3u64, 10])),
    )
        .prop_map(
            |(
                class,
                standalone,
                append_heavy,
                series,
                by_owner_rate,
                (summaries, per_bucket),
                latest,
                top,
            )| {
                Case {
                    class,
                    standalone,
                    append_heavy,
                    series,
                    by_owner_rate,
                    summaries,
                    per_bucket,
                    latest,
                    top,
                }
            },
        )
        .prop_filter("keeps something", |c| {
            c.summaries || c.latest.is_some() || c.top.is_some()
        })
}

/// The schema of `c`, with its kept patterns or without them.
fn text(c: &Case, kept: bool) -> String {
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
    }
    if kept {
        if c.summaries {
            let scope = if c.per_bucket { " per bucket" } else { "" };
            facts.push(format!("summary count, total(score), max(score){scope}"));
        }
        if let Some(n) = c.latest {
            facts.push(format!("latest {n} by at desc"));
        }
        if let Some(n) = c.top {
            facts.push(format!("top {n} by score desc"));
        }
    }
    let mut s = format!(
        "entity Owner {{ name: string }}\nentity Item {{\n  at: date\n  code: string\n  score: double\n}}\n\
         relation Owner.items: {} <-> Item.owner: one {{\n  {}\n}}\n",
        CLASSES[c.class],
        facts.join("\n  ")
    );
    if let Some(r) = c.by_owner_rate {
        s.push_str(&format!(
            "query items_of_owner on Item {{\n  where owner == ?\n  rate {r}/s\n}}\n"
        ));
    }
    s
}

fn decision(p: &Plan) -> &Decision {
    p.relationships
        .iter()
        .find(|d| d.id == "Owner.items")
        .expect("the relation is decided")
}

fn alternatives(d: &Decision) -> Vec<&AlternativeCost> {
    d.cost
        .as_ref()
        .map(|c| {
            c.alternatives
                .iter()
                .filter(|a| !a.nothing_copied)
                .collect()
        })
        .unwrap_or_default()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.02 + 1e-6 * a.abs().max(b.abs())
}

/// The upkeep the reference model expects of `layout` per child added: (a second write and a
/// transaction, more bytes of the parent rewritten).
fn expected(c: &Case, layout: Layout) -> (bool, bool) {
    let summaries = c.summaries;
    let latest = c.latest.is_some();
    let top = c.top.is_some();
    match layout {
        Layout::ChildRef | Layout::LinkCollection => (true, true),
        Layout::Bucket => {
            let parent = latest || top || (summaries && !c.per_bucket);
            (parent, parent)
        }
        Layout::Embed => (false, summaries || top),
        // The append pushes the child's id onto the parent: the same write.
        Layout::ParentRefs | Layout::TwoWay | Layout::OneWay => (false, true),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn every_layout_pays_for_what_the_parent_keeps_as_its_code_writes_it(c in case()) {
        let with = plan(&text(&c, true));
        let without = plan(&text(&c, false));
        let (dw, dn) = (decision(&with), decision(&without));
        let appends = dw.cost.as_ref().map_or(0.0, |x| x.workload.appends);
        prop_assert!(
            close(appends, dn.cost.as_ref().map_or(0.0, |x| x.workload.appends)),
            "the kept patterns changed the workload:\n{}", text(&c, true)
        );
        let before = alternatives(dn);
        for a in alternatives(dw) {
            let Some(b) = before
                .iter()
                .find(|b| (b.layout, b.bucket_size) == (a.layout, a.bucket_size))
            else {
                continue;
            };
            let (second_write, more_bytes) = expected(&c, a.layout);
            let ctx = format!("{:?}: {a:?}\nagainst {b:?}\n{}", a.layout, text(&c, true));
            // Reads are the same: keeping costs on write only.
            prop_assert!(close(a.round_trips - appends * if second_write { 2.0 } else { 0.0 }, b.round_trips), "round trips, {ctx}");
            prop_assert!(close(a.documents_read, b.documents_read), "documents read, {ctx}");
            prop_assert!(close(a.transactions, b.transactions + if second_write { appends } else { 0.0 }), "transactions, {ctx}");
            prop_assert!(
                close(a.documents_written, b.documents_written + if second_write { appends } else { 0.0 }),
                "documents written, {ctx}"
            );
            if more_bytes && appends > 0.0 {
                prop_assert!(a.bytes_rewritten > b.bytes_rewritten, "bytes rewritten, {ctx}");
                prop_assert!(a.micros > b.micros, "estimated time, {ctx}");
            } else {
                prop_assert!(close(a.bytes_rewritten, b.bytes_rewritten), "bytes rewritten, {ctx}");
            }
        }
    }

    #[test]
    fn a_summary_says_which_write_keeps_it(c in case()) {
        prop_assume!(c.summaries);
        let p = plan(&text(&c, true));
        let d = decision(&p);
        let lines: Vec<&String> = d
            .obligations
            .iter()
            .filter(|o| o.starts_with("adding or removing") && o.contains("updates the Owner's"))
            .collect();
        if d.strategy == Layout::Bucket {
            // The summaries live in each bucket, written by the append itself.
            prop_assert!(lines.is_empty(), "{lines:?}");
            return Ok(());
        }
        prop_assert!(!lines.is_empty(), "no summary obligation in {:?}", d.obligations);
        let apart = matches!(d.strategy, Layout::ChildRef | Layout::LinkCollection);
        for l in lines {
            prop_assert_eq!(l.contains("in the same write"), !apart, "{:?}: {}", d.strategy, l);
            prop_assert_eq!(l.contains("in one transaction with the child's"), apart, "{:?}: {}", d.strategy, l);
        }
    }
}
