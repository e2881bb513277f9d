//! Parse + validate + plan on generated schemas of 1,000 and 10,000 entities, and parse + validate
//! alone on 1,000 entities in MB/s.
//!
//! Reports time per entity (criterion's throughput in "elements" = entities) so the 10x scaling
//! ratio can be read directly: target, 10x the entities costs at most 11x the time.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use squillion_grammar::SourceFile;

#[path = "schema.rs"]
mod schema;
use schema::schema;

fn plan(text: &str) -> usize {
    let source = SourceFile::new("bench.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source)
            .collections
            .len(),
        Err(d) => panic!(
            "generated schema does not check: {:?}",
            &d[..d.len().min(3)]
        ),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_validate_plan");
    group.sample_size(10);
    for n in [1_000usize, 10_000] {
        let text = schema(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| plan(text))
        });
    }
    group.finish();
}

fn validate(text: &str) -> usize {
    let source = SourceFile::new("bench.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => checked.model.entities.len(),
        Err(d) => panic!(
            "generated schema does not check: {:?}",
            &d[..d.len().min(3)]
        ),
    }
}

/// Parse + validate (text -> Ast -> Model) of 1,000 and 10,000 entities, as bytes per second:
/// the speed of the front end, and how a pass linear by construction scales on this machine
/// (the floor the engine's 10x ratio is read against).
fn bench_validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_validate");
    group.sample_size(20);
    for n in [1_000usize, 10_000] {
        let text = schema(n);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| validate(text))
        });
    }
    group.finish();
}

/// Parse alone (text -> Ast) of 1,000 and 10,000 entities: pest's pass, linear by
/// construction, read as this machine's floor for a 10x ratio.
fn bench_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group.sample_size(20);
    for n in [1_000usize, 10_000] {
        let text = schema(n);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| squillion_grammar::parse(text).map_or(0, |s| s.items.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_parse, bench_validate, bench);
criterion_main!(benches);
