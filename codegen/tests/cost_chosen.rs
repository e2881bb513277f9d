//! The cost table marks the layout the Plan chose. Some layouts change after the costs are
//! recorded: an embedding cycle (an entity one-to-one with its own kind, two entities embedding
//! each other) is broken with a reference. Over such cycles and over generated schemas, every
//! costed decision has exactly one alternative marked chosen, it is the decision's layout, and
//! every other alternative's cost is relative to it.

use proptest::prelude::*;
use squillion_codegen::plan::Plan;

mod planned;
use planned::plan;

fn check(p: &Plan, src: &str) -> Result<(), String> {
    for d in &p.relationships {
        let Some(cost) = &d.cost else { continue };
        let chosen: Vec<_> = cost.alternatives.iter().filter(|a| a.chosen).collect();
        let [one] = chosen.as_slice() else {
            return Err(format!(
                "{}: {} alternatives marked chosen\n{src}",
                d.id,
                chosen.len()
            ));
        };
        if one.layout != d.strategy {
            return Err(format!(
                "{}: the decision is {} but the costs mark {} chosen\n{src}",
                d.id,
                d.strategy.as_str(),
                one.layout.as_str()
            ));
        }
        for a in &cost.alternatives {
            let expected = if one.micros > 0.0 {
                a.micros / one.micros
            } else {
                1.0
            };
            if (a.relative - expected).abs() > 0.01 * expected.max(1.0) {
                return Err(format!(
                    "{}: {} is {}x the chosen cost, but {:.2}x by its estimate\n{src}",
                    d.id,
                    a.layout.as_str(),
                    a.relative,
                    expected
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    /// Cycles of one-to-one embeddings, of one entity or two, with fields large or small.
    #[test]
    fn the_costs_mark_the_layout_after_a_cycle_is_broken(
        two in any::<bool>(),
        large in any::<bool>(),
        optional in any::<bool>(),
        rate in prop::option::of(prop::sample::select(vec!["1/s", "100/s"])),
    ) {
        let field = if large { "notes: string @large(8KB)" } else { "notes: string" };
        let q = if optional { "one?" } else { "one" };
        let mut src = format!("entity Person {{ name: string  {field} }}\n");
        if two {
            src.push_str(&format!(
                "entity Passport {{ number: string  {field} }}\n\
                 relation Person.passport: {q} <-> Passport.holder: one\n\
                 relation Passport.owner: one <-> Person.document: one\n"
            ));
        } else {
            src.push_str(&format!("relation Person.spouse: {q} <-> Person.partner: one\n"));
        }
        if let Some(r) = rate {
            src.push_str(&format!("query by_name on Person {{ where name == ? limit 1 rate {r} }}\n"));
        }
        let p = plan(&src);
        if let Err(e) = check(&p, &src) {
            prop_assert!(false, "{e}");
        }
    }
}

/// Generated schemas of every kind.
#[test]
fn the_costs_mark_the_layout_of_generated_schemas() {
    let batch = squillion_schemagen::batch(29, 80, squillion_schemagen::Config::default());
    let mut planned = 0;
    for (_, schema) in &batch {
        let text = squillion_schemagen::render(schema);
        let source = squillion_grammar::SourceFile::new("gen.sqn", text.clone());
        let Ok(checked) = squillion_codegen::load(&source) else {
            continue;
        };
        let p = squillion_codegen::engine::plan(&checked.model, &source);
        planned += 1;
        if let Err(e) = check(&p, &text) {
            panic!("{e}");
        }
    }
    assert!(planned > 40, "only {planned} planned");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    /// Where the estimate overrules the rules (children added fast to pages read seldom, or the
    /// other way round), the reason gives the rules' own case as theirs, quoted, never as what
    /// the layout does ("so they are grouped in buckets" under `decision: child_ref`).
    #[test]
    fn the_rules_case_is_quoted_when_the_costs_overrule_it(
        page in prop::sample::select(vec![10u64, 25, 50]),
        added in prop::sample::select(vec!["1/day", "2/s", "30/s", "500/s"]),
        read in prop::sample::select(vec!["1/min", "2/s", "100/s"]),
        body_kb in 1u64..8,
    ) {
        let src = format!(
            "entity Account {{ name: string }}\n\
             entity Activity {{ at: date  subject: string  body: string @size({body_kb}KB) }}\n\
             relation Account.activities: squillions <-> Activity.account: one {{\n\
               growth append_heavy rate {added}\n  page {page} by at desc\n}}\n\
             query by_name on Account {{ where name == ? limit 1 rate {read} }}\n"
        );
        let p = plan(&src);
        let d = p.relationship("Account.activities").expect("decision");
        prop_assert!(!d.because.contains("own case"), "{}", d.because);
        if let Some((_, case)) = d.because.split_once("the rules alone would choose ") {
            let quoted = case.split_once(": ").map(|(_, q)| q).unwrap_or("");
            prop_assert!(
                quoted.starts_with('"') && quoted.ends_with('"'),
                "the rules' case is not quoted: {}", d.because
            );
        }
    }
}

/// The CRM's timeline: 2 KB activities added 20 a second, read 25 a page: the estimate keeps
/// each a document of its own, and the reason quotes the rules' case for buckets.
#[test]
fn a_timeline_the_costs_keep_in_documents_quotes_the_case_for_buckets() {
    let p = plan(
        "entity Account { name: string }\n\
         entity Activity { at: date  subject: string  body: string @large(2KB) @seldom_read }\n\
         relation Account.activities: squillions <-> Activity.account: one {\n\
           growth append_heavy rate 20/s\n  page 25 by at desc\n}\n",
    );
    let d = p.relationship("Account.activities").expect("decision");
    assert_eq!(d.strategy.as_str(), "child_ref", "{}", d.because);
    assert!(
        d.because
            .contains("the rules alone would choose bucket: \"Activities are only read"),
        "{}",
        d.because
    );
    assert!(d.because.ends_with('"'), "{}", d.because);
}
