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
pub const EXPECTED_MISSES: &[&str] = &["g17_23: E0.r0", "g17_36: E1.r1"];

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

/// How one schema came back.
struct Outcome {
    name: String,
    /// Why it was left out, if it was.
    skipped: Option<String>,
    declared: usize,
    bounded: usize,
    misses: Vec<(String, String)>,
}

/// Fills schema `k`'s database, runs `infer` on it and compares.
async fn one(k: usize, schema: &squillion_schemagen::Schema) -> Outcome {
    let name = format!("g{SEED}_{k:02}");
    let text = squillion_schemagen::render(schema);
    let (model, plan) = plan_of(&name, &text);
    let mut out = Outcome {
        name: name.clone(),
        skipped: None,
        declared: 0,
        bounded: 0,
        misses: Vec::new(),
    };
    if let Some(why) = unsupported(&plan) {
        out.skipped = Some(format!("{name}: {why}"));
        return out;
    }
    let t = TestDb::new(&format!("infer_{name}")).await;
    let started = std::time::Instant::now();
    let fill = Fill::new(&model, &plan, SEED + k as u64);
    write(&t.db, &fill).await;
    let filled = started.elapsed();
    // Every document is read: with a sample of 1,000, a collection of a few thousand is sampled
    // by `$sample`, a different subset on every run, and a relation seen in few documents (a
    // self-relation of g17_26's) was recovered on some runs only (CI run 13 missed it). What is
    // tested here is the round trip; sampling has its own tests.
    let options = Options {
        sample: 100_000,
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
                    out.bounded += 1;
                }
            }
        }
    }
    out.declared = declared.len();
    let outcome = match run_infer(&t.db, &options, &|_| {}).await {
        Ok(o) => o,
        Err(e) => {
            // Every relation of a schema whose draft could not be made is missed.
            let first = e.to_string().lines().nth(1).unwrap_or_default().to_owned();
            eprintln!("{name}: infer failed: {e}\n{text}");
            for d in &declared {
                out.misses
                    .push((format!("{name}: {}", d.id), first.clone()));
            }
            t.cleanup().await;
            return out;
        }
    };
    let r = compare_with(&declared, &outcome);
    eprintln!(
        "{name} (fill {:.1} s, infer {:.1} s): {} of {} recovered; misses {:?}; extras {:?}",
        filled.as_secs_f64(),
        (started.elapsed() - filled).as_secs_f64(),
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
        out.misses.push((format!("{name}: {id}"), why));
    }
    t.cleanup().await;
    out
}

/// Schemas filled and read at once: the server works on one while the test fills another.
const AT_ONCE: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roundtrip_generated_schemas() {
    use futures::StreamExt;
    let batch = squillion_schemagen::batch(SEED, DRAWN, config());
    let outcomes: Vec<Outcome> = futures::stream::iter(batch.iter().enumerate())
        .map(|(k, (_, schema))| one(k, schema))
        .buffered(AT_ONCE)
        .collect()
        .await;
    let mut declared_total = 0usize;
    let mut misses = Vec::new();
    let mut skipped = Vec::new();
    let mut tried = 0usize;
    let mut bounded = 0usize;
    for o in outcomes {
        if let Some(why) = o.skipped {
            skipped.push(why);
            continue;
        }
        tried += 1;
        declared_total += o.declared;
        bounded += o.bounded;
        misses.extend(o.misses);
        let _ = o.name;
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
    // The target, and the documentation: the share recovered, and each miss's schema named
    // where docs/testing.md explains it.
    assert!(
        recovered * 10 >= declared_total * 9,
        "{recovered} of {declared_total} relations recovered: under the 90% target"
    );
    let docs = std::fs::read_to_string(root().join("docs/testing.md")).unwrap();
    let line = format!("{recovered} of {declared_total} relations of {tried} generated schemas");
    assert!(docs.contains(&line), "docs/testing.md should say `{line}`");
    for m in EXPECTED_MISSES {
        let schema = m.split(':').next().unwrap_or(m);
        assert!(
            docs.contains(schema),
            "docs/testing.md should explain the miss {m}"
        );
    }
}
