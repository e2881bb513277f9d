//! The fixed-seed batch: every generated schema, set up as an application would, then driven by
//! random operations through its generated repositories against the real server; after every
//! step the stored documents equal the reference model, every document reads back through its
//! repository, and the Plan's invariants hold. Failures print the shrunk operation sequence and
//! the schema (see docs/testing.md to make one a regression).

use futures::StreamExt;
use squillion_modelcheck::run::{replay, run};
use squillion_modelcheck::schemas::SCHEMAS;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

async fn client() -> mongodb::Client {
    mongodb::Client::with_uri_str(squillion_testkit::uri())
        .await
        .unwrap_or_else(|e| panic!("cannot connect to SQUILLION_MONGODB_URI: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_generated_schema_keeps_its_layout_under_random_operations() {
    let steps = env_number("SQUILLION_MODELCHECK_STEPS", 200);
    let client = client().await;
    let generated: Vec<_> = SCHEMAS.iter().filter(|s| s.origin == "generated").collect();
    let started = std::time::Instant::now();
    let results: Vec<_> = futures::stream::iter(generated.iter().enumerate())
        .map(|(i, entry)| {
            let client = client.clone();
            async move { (entry, run(&client, entry, 1000 + i as u64, steps).await) }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let mut calls = std::collections::BTreeMap::<String, u64>::new();
    let (mut refused, mut failures) = (0, Vec::new());
    for (_, r) in &results {
        match r {
            Ok(stats) => {
                for (k, v) in &stats.calls {
                    *calls.entry(k.clone()).or_default() += v;
                }
                refused += stats.refused;
            }
            Err(f) => failures.push(f.to_string()),
        }
    }
    let total: u64 = calls.values().sum();
    eprintln!(
        "modelcheck: {} schemas, up to {steps} operations each: {total} calls ({refused} refused as expected) in {:.1} s; by kind {calls:?}; {} failed",
        results.len(),
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} schemas failed:\n\n{}",
        failures.len(),
        results.len(),
        failures.join("\n\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_regression_replays_clean() {
    let client = client().await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let (mut failures, mut count) = (Vec::new(), 0);
    for entry in SCHEMAS.iter().filter(|s| s.origin == "regression") {
        let stem = entry.name.trim_start_matches("r_");
        let path = dir.join(format!("{stem}.ops.json"));
        let ops = match std::fs::read_to_string(&path) {
            Ok(text) => {
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            }
            Err(_) => Vec::new(),
        };
        match replay(&client, entry, &ops).await {
            Err((at, m)) => failures.push(format!("regression {stem}, operation {at}: {m}")),
            Ok(stats) => {
                // Every operation of a regression applies: none is skipped as out of place.
                let ran: u64 = stats.calls.values().sum();
                if ran != ops.len() as u64 {
                    failures.push(format!(
                        "regression {stem}: {ran} of {} operations ran",
                        ops.len()
                    ));
                }
            }
        }
        count += 1;
    }
    assert!(
        count >= 3,
        "the checked-in regressions are in the batch ({count} found)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
