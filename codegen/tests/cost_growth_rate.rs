//! `growth ... rate R`: the children added per unit of time, declared. The cost model's workload
//! takes it as written (in any rate unit, converted to per second), whatever the growth kinds and
//! the relation's class, beside the declared or default reads; with it the workload decides
//! between the layouts the rules accept, as a query's rate does. Its mistakes are coded.

use proptest::prelude::*;
use squillion_codegen::plan::{Plan, WorkloadPlan};
use squillion_grammar::SourceFile;

fn load(src: &str) -> Result<Plan, Vec<String>> {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => Ok(squillion_codegen::engine::plan(&checked.model, &source)),
        Err(diags) => Err(diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code.to_string())
            .collect()),
    }
}

fn plan(src: &str) -> Plan {
    load(src).unwrap_or_else(|codes| panic!("schema does not check ({codes:?}):\n{src}"))
}

/// Rate units and their length in seconds.
const UNITS: &[(&str, f64)] = &[
    ("/s", 1.0),
    ("/min", 60.0),
    ("/h", 3_600.0),
    ("/day", 86_400.0),
    ("/week", 604_800.0),
];

const ENDS: &[&str] = &[
    "few(10)",
    "many(300)",
    "many(5000, typical 30)",
    "squillions",
];

#[derive(Debug, Clone)]
struct Case {
    end: usize,
    kinds: &'static str,
    number: u32,
    unit: usize,
    page: bool,
    list_rate: Option<u32>,
    standalone: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..ENDS.len(),
        prop::sample::select(vec![
            "",
            "append_heavy",
            "unbounded",
            "append_heavy, unbounded",
        ]),
        1u32..5_000,
        0..UNITS.len(),
        any::<bool>(),
        prop::option::of(1u32..500),
        any::<bool>(),
    )
        .prop_map(
            |(end, kinds, number, unit, page, list_rate, standalone)| Case {
                end,
                kinds,
                number,
                unit,
                page,
                list_rate,
                standalone,
            },
        )
}

fn text(c: &Case, with_rate: bool) -> String {
    // `unbounded` contradicts a bound (E0416).
    let end = if c.kinds.contains("unbounded") {
        "squillions"
    } else {
        ENDS[c.end]
    };
    let rate = if with_rate {
        format!(" rate {}{}", c.number, UNITS[c.unit].0)
    } else {
        String::new()
    };
    let growth = match (c.kinds, with_rate) {
        ("", false) => String::new(),
        (kinds, _) => format!("  growth {kinds}{rate}\n"),
    };
    let mut s = format!(
        "entity Post {{ title: string }}\nentity Note {{ at: date  text: string }}\n\
         relation Post.notes: {end} <-> Note.post: one {{\n{growth}"
    );
    if c.page {
        s.push_str("  page 20 by at asc\n");
    }
    if c.standalone {
        s.push_str("  standalone Note\n");
    }
    s.push_str("}\n");
    if let Some(r) = c.list_rate {
        s.push_str(&format!(
            "query notes_of_post on Post.notes {{ rate {r}/s }}\n"
        ));
    }
    s
}

fn workload(p: &Plan) -> WorkloadPlan {
    p.relationship("Post.notes")
        .and_then(|d| d.cost.as_ref())
        .map(|c| c.workload.clone())
        .expect("Post.notes is costed")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_declared_growth_rate_is_the_workloads_additions(c in case()) {
        let src = text(&c, true);
        let with = workload(&plan(&src));
        let without = workload(&plan(&text(&c, false)));
        let per_second = f64::from(c.number) / UNITS[c.unit].1;
        // Rounded as the Plan records figures: two decimals, three significant digits below 0.01.
        let tolerance = if per_second < 0.01 { per_second * 0.006 } else { 0.006 };
        prop_assert!((with.appends - per_second).abs() <= tolerance, "{} added, want {per_second}\n{src}", with.appends);
        prop_assert!(with.appends > 0.0, "{src}");
        prop_assert!(with.appends_declared && !without.appends_declared, "{src}");
        // The reads are what they were without the rate.
        prop_assert_eq!(with.list_reads, without.list_reads, "{}", src);
        prop_assert_eq!(with.alone_reads, without.alone_reads, "{}", src);
        prop_assert_eq!(with.children_per_list, without.children_per_list, "{}", src);
        prop_assert_eq!(with.declared, c.list_rate.is_some(), "{}", src);
        // The words say where the additions come from: declared, or a default per read.
        let said = squillion_codegen::prose::cost::workload(&with);
        prop_assert!(said.contains("growth rate"), "{said}");
        let said = squillion_codegen::prose::cost::workload(&without);
        let default = if c.list_rate.is_some() { "the children added are the default" } else { "default rates" };
        prop_assert!(said.contains(default) && !said.contains("growth rate"), "{said}\n{}", text(&c, false));
    }

    /// With the rate declared, the workload decides among what the rules accept: the chosen
    /// layout is the cheapest acceptable alternative.
    #[test]
    fn a_declared_growth_rate_lets_the_workload_decide(c in case()) {
        let src = text(&c, true);
        let p = plan(&src);
        let d = p.relationship("Post.notes").unwrap();
        let cost = d.cost.as_ref().unwrap();
        let chosen = cost.alternatives.iter().find(|a| a.chosen).unwrap();
        for a in cost.alternatives.iter().filter(|a| a.acceptable && !a.chosen) {
            prop_assert!(chosen.micros <= a.micros + 1e-6, "{} chosen at {} over {} at {}\n{src}", chosen.layout.as_str(), chosen.micros, a.layout.as_str(), a.micros);
        }
    }
}

#[test]
fn growth_rate_mistakes_are_coded() {
    let rel = |growth: &str| {
        format!(
            "entity A {{ x: string }}\nentity B {{ y: string }}\n\
             relation A.bs: squillions <-> B.a: one {{ growth {growth} }}\n"
        )
    };
    let errors = |growth: &str| load(&rel(growth)).err().unwrap_or_default();
    // A rate needs its unit: thirty a second and thirty a day are not the same workload.
    assert_eq!(errors("append_heavy rate 30"), ["E0313"]);
    assert_eq!(errors("rate 30/kg"), ["E0312"]);
    assert_eq!(errors("rate -3/s"), ["E0314"]);
    // Static children are never added.
    assert_eq!(errors("static rate 1/day"), ["E0417"]);
    assert!(errors("rate 5/min").is_empty());
    assert!(errors("append_heavy, unbounded rate 1_000/s").is_empty());
}

/// A rate declared on one relation of a child is the additions of its other one-to-many
/// relations where every child has exactly one parent (a comment added to a post is a comment of
/// its author); not where the child may have none (`one?`), nor where no rate is declared.
#[test]
fn a_declared_rate_is_carried_to_the_childs_other_parents() {
    for (number, unit, seconds) in [
        (50u32, "/s", 1.0),
        (30, "/min", 60.0),
        (2_000, "/day", 86_400.0),
    ] {
        for optional in [false, true] {
            for declared in [true, false] {
                let growth = if declared {
                    format!("  growth append_heavy rate {number}{unit}\n")
                } else {
                    String::new()
                };
                let opt = if optional { "?" } else { "" };
                let src = format!(
                    "entity Post {{ title: string }}\nentity User {{ name: string }}\n\
                     entity Comment {{ text: string  at: date }}\n\
                     relation Post.comments: squillions <-> Comment.post: one {{\n{growth}}}\n\
                     relation User.comments: squillions <-> Comment.author: one{opt}\n"
                );
                let p = plan(&src);
                let w = |id: &str| {
                    p.relationship(id)
                        .and_then(|d| d.cost.as_ref())
                        .map(|c| c.workload.clone())
                        .expect("costed")
                };
                let (post, user) = (w("Post.comments"), w("User.comments"));
                let carried = declared && !optional;
                assert_eq!(user.appends_declared, carried, "{src}");
                if carried {
                    let per_second = f64::from(number) / seconds;
                    let tolerance = if per_second < 0.01 {
                        per_second * 0.006
                    } else {
                        0.006
                    };
                    assert!(
                        (user.appends - per_second).abs() <= tolerance,
                        "{user:?}\n{src}"
                    );
                    assert_eq!(user.appends, post.appends, "{src}");
                }
            }
        }
    }
}
