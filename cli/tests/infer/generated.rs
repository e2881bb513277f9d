//! The round trip on the end-to-end harness's schemas: a fixed-seed batch drawn by
//! `squillion-schemagen` (the generator `modelcheck/` uses), each planned, its database filled
//! from the Plan with raw documents that realise the declared facts (`plan_fill`), read back by
//! `infer`, and every declared relation looked for among the inferred ones as for the examples.
//! Schemas the fill cannot lay out are counted and left out, with the reason.

use squillion_cli::infer::{infer as run_infer, Options};

use super::plan_fill::{unsupported, write, Fill};
use super::roundtrip::{compare_with, declared_in, plan_of};
use super::*;

/// The batch: its seed, how many are drawn, and the generator's limits (small schemas, so the
/// test stays within a minute).
pub const SEED: u64 = 17;
pub const DRAWN: usize = 40;

fn config() -> squillion_schemagen::Config {
    squillion_schemagen::Config {
        max_entities: 4,
        max_relations: 4,
        ..squillion_schemagen::Config::default()
    }
}

/// Relations of the batch `infer` does not recover, as `schema: relation id`, each explained in
/// `docs/testing.md`.
pub const EXPECTED_MISSES: &[&str] = &[
    "g17_04: E1.r0",
    "g17_05: E0.r1",
    "g17_15: E2.r2",
    "g17_22: E0.r0",
    "g17_22: E0.r2",
    "g17_23: E0.r0",
    "g17_28: E0.r0",
    "g17_32: E0.r0",
    "g17_34: E0.r2",
    "g17_39: E0.r2",
    "g17_39: E0.r3",
];

/// The class data realising a bounded end shows, where the bound lies in another class's range
/// (`many(6)`: `few`; `few(300)` cannot be written).
fn shown_class(c: &squillion_codegen::model::Cardinality) -> Option<&'static str> {
    use squillion_codegen::model::CardinalityClass as C;
    let bound = c.bound?;
    match c.class {
        C::Many | C::Squillions if bound <= 200 => Some("few"),
        C::Squillions if bound <= 5_000 => Some("many"),
        _ => None,
    }
}

#[tokio::test]
async fn roundtrip_generated_schemas() {
    let batch = squillion_schemagen::batch(SEED, DRAWN, config());
    let mut declared_total = 0usize;
    let mut misses = Vec::new();
    let mut skipped = Vec::new();
    let mut tried = 0usize;
    let mut bounded = 0usize;
    for (k, (_, schema)) in batch.iter().enumerate() {
        let name = format!("g{SEED}_{k:02}");
        let text = squillion_schemagen::render(schema);
        let (model, plan) = plan_of(&name, &text);
        if let Some(why) = unsupported(&plan) {
            skipped.push(format!("{name}: {why}"));
            continue;
        }
        tried += 1;
        let t = TestDb::new(&format!("infer_{name}")).await;
        let fill = Fill::new(&model, &plan, SEED + k as u64);
        write(&t.db, &fill).await;
        let options = Options {
            sample: 1000,
            without: Vec::new(),
        };
        let mut declared = declared_in(&model, &plan);
        // `many(6)` holds at most 6: data that realises it shows a `few` relation, which is what
        // `infer` says (the classes come from the counts). The generator writes such bounds.
        for (d, r) in declared.iter_mut().zip(&model.relations) {
            for (class, c) in [
                (&mut d.left_class, &r.left.cardinality),
                (&mut d.right_class, &r.right.cardinality),
            ] {
                if let Some(shown) = shown_class(c) {
                    if *class != shown {
                        *class = shown.to_owned();
                        bounded += 1;
                    }
                }
            }
        }
        declared_total += declared.len();
        let outcome = match run_infer(&t.db, &options, &|_| {}).await {
            Ok(o) => o,
            Err(e) => {
                // Every relation of a schema whose draft could not be made is missed.
                let first = e.to_string().lines().nth(1).unwrap_or_default().to_owned();
                eprintln!("{name}: infer failed: {e}\n{text}");
                for d in &declared {
                    misses.push((format!("{name}: {}", d.id), first.clone()));
                }
                t.cleanup().await;
                continue;
            }
        };
        let r = compare_with(&declared, &outcome);
        eprintln!(
            "{name}: {} of {} recovered; misses {:?}; extras {:?}",
            declared.len() - r.misses.len(),
            declared.len(),
            r.misses,
            r.extras
        );
        if !r.misses.is_empty() && std::env::var_os("SQUILLION_SHOW_DRAFT").is_some() {
            eprintln!(
                "--- {name} source\n{text}\n--- {name} draft\n{}",
                outcome.text
            );
        }
        for (id, why) in r.misses {
            misses.push((format!("{name}: {id}"), why));
        }
        t.cleanup().await;
    }
    let recovered = declared_total - misses.len();
    eprintln!(
        "generated schemas: {tried} filled, {} left out {skipped:?}; {recovered} of {declared_total} relations recovered; {bounded} ends read by their bound",
        skipped.len()
    );
    assert!(
        tried * 2 >= DRAWN,
        "the fill supports too few schemas: {skipped:#?}"
    );
    let missed: Vec<&str> = misses.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        missed, EXPECTED_MISSES,
        "the misses changed (update EXPECTED_MISSES and docs/testing.md):\n{misses:#?}"
    );
    // The 90% target holds for the examples, not yet for this batch: docs/testing.md says
    // which families `infer` misses (an entity related to itself more than once, buckets
    // holding summaries). No schema may do worse than the documented misses.
    let docs = std::fs::read_to_string(root().join("docs/testing.md")).unwrap();
    let line = format!("{recovered} of {declared_total} relations of {tried} generated schemas");
    assert!(docs.contains(&line), "docs/testing.md should say `{line}`");
}
