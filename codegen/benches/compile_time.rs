//! Compile time of an application crate with 50 derived repositories, against the same structs
//! with serde derives only. Target: at most 1.5x.
//!
//! A 50-entity schema (the generator of the other benchmarks) is generated twice: with
//! `#[derive(squillion::Document)]` on every collection struct (its repository, layout operations,
//! query methods) and without (plain serde structs). Each becomes a throwaway crate under
//! `target/bench-compile/`, both using the workspace's lock file and target directory so
//! dependencies build at most once (the warm-up, not timed). Then, alternating the two crates, the crate's source is touched and
//! `cargo build` timed: only the crate itself recompiles. Median of `SQUILLION_BENCH_REPS`
//! (default 5) repetitions; the ratio of the medians is the figure.
//!
//! `cargo bench -p squillion-codegen --bench compile_time`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

#[path = "schema.rs"]
mod schema;

fn generate(text: &str, derive_document: bool) -> String {
    let source = SourceFile::new("app.sqn", text);
    match compile(&source, &GenerateSettings { derive_document }) {
        Ok(g) => g.rust,
        Err(d) => panic!("the schema does not compile: {:?}", &d[..d.len().min(3)]),
    }
}

fn write_crate(dir: &Path, name: &str, code: &str, root: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("crate dir");
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nsquillion = {{ path = {root:?} }}\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
    std::fs::write(dir.join("src/app.rs"), code).expect("generated code");
    // The workspace's versions, so the dependencies already built for it are reused.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    touch(dir, 0);
}

/// Rewrites `lib.rs` so the crate really recompiles.
fn touch(dir: &Path, round: usize) {
    let lib =
        format!("//! Benchmark crate (round {round}).\n#![allow(missing_docs)]\npub mod app;\n");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs");
}

fn build(dir: &Path, target: &Path) -> Duration {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let start = Instant::now();
    let out = Command::new(cargo)
        .args(["build", "--quiet"])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{} does not build:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` passes nothing: skip there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let reps: usize = std::env::var("SQUILLION_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("workspace root");
    let base = root.join("target/bench-compile");
    // The workspace's target directory: dependencies are built already.
    let target = root.join("target");
    let text = schema::schema(50);
    let derived = generate(&text, true);
    let plain = generate(&text, false);
    let repositories = derived.matches("#[derive(::squillion::Document)]").count();
    assert!(
        repositories >= 50,
        "expected 50 derived structs, found {repositories}"
    );
    let crates = [
        ("derived", base.join("derived"), derived),
        ("serde_only", base.join("serde_only"), plain),
    ];
    for (name, dir, code) in &crates {
        write_crate(dir, &format!("bench_{name}"), code, &root);
        build(dir, &target); // warm-up: dependencies
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(), Vec::new()];
    for round in 1..=reps {
        for (i, (_, dir, _)) in crates.iter().enumerate() {
            touch(dir, round);
            times[i].push(build(dir, &target));
        }
    }
    let (d, s) = (median(times[0].clone()), median(times[1].clone()));
    println!("compile time, {repositories} derived repositories vs serde only ({reps} rounds)");
    println!("| crate | median | min |");
    println!("|---|---:|---:|");
    for (i, (name, _, _)) in crates.iter().enumerate() {
        let min = times[i].iter().min().copied().unwrap_or_default();
        println!(
            "| {name} | {:.2?} | {:.2?} |",
            median(times[i].clone()),
            min
        );
    }
    println!(
        "ratio derived / serde_only: {:.2}x",
        d.as_secs_f64() / s.as_secs_f64()
    );
}
