//! Parse + validate + plan on generated schemas of 1,000 and 10,000 entities.
//!
//! Reports time per entity (criterion's throughput in "elements" = entities) so the 10x scaling
//! ratio can be read directly: target, 10x the entities costs at most 11x the time.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use squillion_grammar::SourceFile;

/// A schema of `n` entities: 8 fields each, a relation to the next entity with facts that
/// exercise every layout family, and a query on every tenth entity.
fn schema(n: usize) -> String {
    let mut s = String::with_capacity(n * 600);
    s.push_str("value Address { street: string city: string zip: string }\n");
    for i in 0..n {
        s.push_str(&format!(
            "/// Entity {i}.\nentity E{i} {{\n  name: string @index\n  code: string @unique\n  at: date\n  n: int32\n  price: decimal128\n  tags: [string; 10]\n  address: Address?\n  note: string? @size(200B)\n}}\n"
        ));
    }
    let classes = [
        ("few(5)", "one", ""),
        (
            "many(1000)",
            "one",
            "standalone {C}\n  show {P}.name on {C} ratio 1000:1",
        ),
        ("squillions", "one", "latest 20 by at desc keep at, n"),
        ("squillions", "one", "page 50 by at"),
        (
            "squillions",
            "one",
            "time_range by at\n  summary count, total(n), max(n)\n  growth append_heavy",
        ),
        ("few(3)", "many(500000)", ""),
        ("many(300)", "one", "standalone {C}\n  navigate both"),
    ];
    for i in 0..n.saturating_sub(1) {
        let (a, b, facts) = classes[i % classes.len()];
        let (p, c) = (format!("E{i}"), format!("E{}", i + 1));
        let facts = facts.replace("{P}", &p).replace("{C}", &c);
        s.push_str(&format!(
            "relation {p}.r{i}: {a} <-> {c}.back{i}: {b} {{\n  {facts}\n}}\n"
        ));
    }
    for i in (0..n).step_by(10) {
        s.push_str(&format!(
            "query q{i} on E{i} {{ where code == ? and at > ? sort n desc rate 10/s }}\n"
        ));
    }
    s
}

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

criterion_group!(benches, bench);
criterion_main!(benches);
