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
