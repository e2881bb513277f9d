//! The fixed-seed batch: every generated schema, set up as an application would, then driven by
//! random operations through its generated repositories against the real server; after every
//! step the stored documents equal the reference model, every document reads back through its
//! repository, and the Plan's invariants hold. Failures print the shrunk operation sequence and
//! the schema (see docs/testing.md to make one a regression).

use futures::StreamExt;
use squillion_modelcheck::coverage;
use squillion_modelcheck::run::{plan_of, replay, run};
use squillion_modelcheck::schemas::SCHEMAS;
use squillion_modelcheck::shrink::failure_class;

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
    let results: Vec<_> = futures::stream::iter(generated.iter())
        .map(|entry| {
            let client = client.clone();
            async move {
                (
                    entry,
                    run(&client, entry, run_seed(entry.name), steps).await,
                )
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let mut calls = std::collections::BTreeMap::<String, u64>::new();
    let (mut refused, mut failures) = (0, Vec::new());
    let mut table = coverage::Table::default();
    for (entry, r) in &results {
        match r {
            Ok(stats) => {
                for (k, v) in &stats.calls {
                    *calls.entry(k.clone()).or_default() += v;
                }
                refused += stats.refused;
                let plan = plan_of(entry.name, entry.sqn).unwrap_or_else(|e| panic!("{e}"));
                table.add(&coverage::of_plan(&plan), &stats.methods);
            }
            Err(f) => {
                let written = keep(f);
                failures.push(format!("{f}\n(written as {written})"));
            }
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
    let markdown = table.markdown();
    eprintln!("{markdown}");
    let mut empty = table.empty_rows();
    if default_slice(steps) {
        // No anchor holds an embedding cycle (schemagen/src/anchor.rs): the batch has one only
        // when a free draw makes it, and an entity whose every document must name another of
        // its kind (a required reference to a parent of the same entity) can insert none, so
        // its array of itself gets no push; the long run's batches drive the pushes
        // (docs/testing.md).
        empty.retain(|row| row != "embedding cycle");
    }
    if default_slice(steps) {
        assert!(
            empty.is_empty(),
            "rows of the cross product the batch no longer covers (no schema, or no call on a driven row): {empty:?}\n{markdown}"
        );
    } else if !empty.is_empty() {
        // A long run's batch of 100 may draw no schema (or no call) for a rare row; the long
        // run's coverage is its batches' together (docs/testing.md), and a few schemas run alone
        // to reproduce a failure cover what they cover.
        eprintln!("rows this batch does not cover (no schema, or no call): {empty:?}");
    }
    if default_slice(steps) {
        documented(&markdown, total, generated.len());
    }
}

/// The seed of a generated schema's operations: 1000 plus its index in the batch (`s3_048`: 1048),
/// so a schema run alone (`SQUILLION_MODELCHECK_ONLY`) draws the operations it drew in its batch.
fn run_seed(name: &str) -> u64 {
    let index = name.rsplit('_').next().and_then(|i| i.parse::<u64>().ok());
    // Cannot fire: build.rs names every generated schema `s<seed>_<index>` itself (the names
    // come from no user input), and only generated schemas are run with random operations.
    1000 + index.unwrap_or_else(|| panic!("generated schema `{name}` has no index"))
}

/// The CI slice: the defaults of `build.rs` and of the step count.
fn default_slice(steps: usize) -> bool {
    let unset = |v: &str| std::env::var(v).map_or(true, |x| x.trim().is_empty());
    steps == 200
        && unset("SQUILLION_MODELCHECK_SEED")
        && unset("SQUILLION_MODELCHECK_SCHEMAS")
        && squillion_modelcheck::schemas::SEED == 1
        && squillion_modelcheck::schemas::ONLY.is_empty()
}

const BEGIN: &str = "<!-- coverage: written by modelcheck/tests/batch.rs (SQUILLION_BLESS=1) -->\n";
const END: &str = "<!-- coverage end -->\n";

/// docs/testing.md holds the CI slice's coverage table as computed; `SQUILLION_BLESS=1` writes it.
fn documented(markdown: &str, calls: u64, schemas: usize) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/testing.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!(
            "{} has no coverage markers ({BEGIN:?} ... {END:?})",
            path.display()
        );
    };
    let section = format!(
        "{BEGIN}\nCoverage of the CI slice ({schemas} schemas, {calls} calls): per row, the schemas whose Plan has it / the repository calls made on the collections holding it.\n\n{markdown}\n{END}"
    );
    let current = &text[b..e + END.len()];
    if current == section {
        return;
    }
    if std::env::var("SQUILLION_BLESS").is_ok_and(|v| v == "1") {
        let updated = format!("{}{section}{}", &text[..b], &text[e + END.len()..]);
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    panic!(
        "docs/testing.md's coverage table is not the CI slice's (rerun with SQUILLION_BLESS=1 to write it):\n{section}"
    );
}

/// Writes a failure in the regressions' format (`<name>.sqn`, `<name>.ops.json`): into
/// `modelcheck/regressions/` with `SQUILLION_MODELCHECK_KEEP=1`, else beside the test's
/// temporary files. Returns where.
fn keep(f: &squillion_modelcheck::run::Failure) -> String {
    let dir = if std::env::var("SQUILLION_MODELCHECK_KEEP").is_ok_and(|v| v == "1") {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions")
    } else {
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("modelcheck-regressions")
    };
    let _ = std::fs::create_dir_all(&dir);
    let stem = format!("found_{}", f.schema);
    let ops = serde_json::to_string_pretty(&f.ops).unwrap_or_default();
    let sqn = dir.join(format!("{stem}.sqn"));
    let written = std::fs::write(&sqn, &f.sqn)
        .and_then(|()| std::fs::write(dir.join(format!("{stem}.ops.json")), ops + "\n"));
    match written {
        Ok(()) => format!("{}/{stem}.{{sqn,ops.json}}", dir.display()),
        Err(e) => format!("nothing: {e}"),
    }
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

/// One round of schema-level shrinking (`scripts/modelcheck-shrink.sh` runs rounds until none
/// helps; docs/testing.md). build.rs compiled `k_base` (the failing schema with the reductions so
/// far) and every one-step reduction of it; the first reduction that still fails the same way
/// with the failure's operations is kept, the operations shrunk again, and the next round's
/// specification written. When none does, the schema is minimal and is written in the
/// regressions' format.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a tool: run by scripts/modelcheck-shrink.sh with SQUILLION_MODELCHECK_SHRINK set"]
async fn shrink_schema() {
    let spec = std::env::var("SQUILLION_MODELCHECK_SHRINK").unwrap_or_default();
    assert!(
        !spec.trim().is_empty(),
        "set SQUILLION_MODELCHECK_SHRINK=\"<seed> <index>\" and SQUILLION_MODELCHECK_SHRINK_OPS"
    );
    let ops_path = std::env::var("SQUILLION_MODELCHECK_SHRINK_OPS").unwrap_or_else(|_| {
        panic!("set SQUILLION_MODELCHECK_SHRINK_OPS to the failure's .ops.json")
    });
    let text = std::fs::read_to_string(&ops_path).unwrap_or_else(|e| panic!("{ops_path}: {e}"));
    let ops: Vec<squillion_modelcheck::ops::Op> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{ops_path}: {e}"));
    let client = client().await;
    let shrinking: Vec<_> = SCHEMAS.iter().filter(|s| s.origin == "shrink").collect();
    let base = shrinking
        .iter()
        .find(|s| s.name == "k_base")
        .unwrap_or_else(|| panic!("the batch was not built for shrinking"));
    let (_, message) = match replay(&client, base, &ops).await {
        Err(f) => f,
        Ok(_) => panic!(
            "schema `{}` no longer fails with these operations",
            base.reductions
        ),
    };
    // The failure's class is the first round's, kept in the shrink's state directory: every
    // round keeps only what fails that way, however the messages' values change.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("modelcheck-shrink");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let class_file = dir.join("class");
    let wanted = match std::fs::read_to_string(&class_file) {
        Ok(c) if !c.trim().is_empty() => c.trim().to_owned(),
        _ => {
            let c = failure_class(&message);
            std::fs::write(&class_file, &c).unwrap_or_else(|e| panic!("{e}"));
            c
        }
    };
    assert_eq!(
        failure_class(&message),
        wanted,
        "schema `{}` fails another way than the failure being shrunk: {message}",
        base.reductions
    );
    eprintln!(
        "shrinking: {} ({} candidates): {wanted}",
        base.reductions,
        shrinking.len() - 1
    );
    let mut chosen = None;
    for c in shrinking.iter().filter(|s| s.name != "k_base") {
        if let Err((_, m)) = replay(&client, c, &ops).await {
            if failure_class(&m) == wanted {
                chosen = Some((*c, m));
                break;
            }
        }
    }
    let (entry, message, next) = match chosen {
        Some((c, m)) => {
            let head = spec.split(';').next().unwrap_or_default().trim().to_owned();
            let next = if c.reductions.is_empty() {
                head
            } else {
                format!("{head}; {}", c.reductions)
            };
            (c, m, next)
        }
        None => (*base, message, String::new()),
    };
    let (ops, message) =
        squillion_modelcheck::shrink::operations(&client, entry, ops, message).await;
    let ops = squillion_modelcheck::run::applied(&client, entry, &ops).await;
    let json = serde_json::to_string_pretty(&ops).unwrap_or_default() + "\n";
    std::fs::write(dir.join("ops.json"), &json).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("next"), &next).unwrap_or_else(|e| panic!("{e}"));
    if next.is_empty() {
        let failure = squillion_modelcheck::run::Failure {
            schema: format!(
                "shrunk_{}",
                spec.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .replace(' ', "_")
            ),
            sqn: entry.sqn.to_owned(),
            ops,
            message,
        };
        let written = keep(&failure);
        eprintln!("minimal: {failure}\nwritten as {written}");
    } else {
        eprintln!("kept: {next} ({} operations): {message}", ops.len());
    }
}
