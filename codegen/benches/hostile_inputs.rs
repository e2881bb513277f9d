//! Hostile inputs just under 1 MB, answered in under 1 s (issue 14): each goes through parse,
//! validation and, when valid, the engine and the Rust emitter; when invalid, the diagnostics are
//! rendered as the CLI prints them. Reported as time per input; docs/benchmarks.md gives each as a
//! ratio of the 1 s budget.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use squillion_grammar::SourceFile;

/// The one valid input.
const VALID: &str = "many entities and relations";

/// Just under the budget's 1 MB.
const SIZE: usize = 1_000_000;

/// Repeats `unit` until the text is as long as `SIZE`, between `head` and `tail`.
fn fill(head: &str, unit: &str, tail: &str) -> String {
    let n = (SIZE - head.len() - tail.len()) / unit.len().max(1);
    format!("{head}{}{tail}", unit.repeat(n))
}

/// Half of `SIZE` of `open`, then as many `close`: one value type nested as deep as the size allows.
fn nested(open: &str, close: &str) -> String {
    let n = (SIZE - 40) / (open.len() + close.len());
    format!(
        "entity A {{ x: {}string{} }}",
        open.repeat(n),
        close.repeat(n)
    )
}

/// The inputs, each named for what makes it hostile.
fn inputs() -> Vec<(&'static str, String)> {
    // Standalone children: a chain of embedded entities thousands deep is refused (W118), and
    // the valid input must reach the engine and the emitter.
    let many = chain(
        |i| {
            format!(
                "E{}.next{i}: many(100) <-> E{i}.prev{i}: one {{ standalone E{i} }}",
                i - 1
            )
        },
        "",
    );
    vec![
        ("nested arrays", nested("[", "]")),
        ("nested maps", nested("map<", ">")),
        ("nested parentheses", nested("(", ")")),
        ("nested braces", nested("{", "}")),
        ("unclosed brackets", fill("", "[", "")),
        (
            "one long garbage line",
            fill("entity A { x: string }\n", "#@!x", "\n"),
        ),
        (
            "one long comment line",
            fill("// ", "comment ", "\nentity A { x: string }\n"),
        ),
        (
            "a huge number",
            fill("entity A { x: string @size(", "9", "B) }\n"),
        ),
        (
            "a long unterminated string",
            fill("entity A { x: string @stored(\"", "s", "\n}\n"),
        ),
        (
            "a long identifier",
            fill("entity A", "a", " { x: string }\n"),
        ),
        (VALID, many),
        (
            "a chain the engine must cut to fit",
            chain(
                |i| format!("E{i}.next{i}: many(100) <-> E{}.prev{i}: one", i - 1),
                "",
            ),
        ),
        (
            "a one-to-one chain whose end another lists",
            chain(
                |i| format!("E{i}.next{i}: one <-> E{}.prev{i}: one", i - 1),
                "entity X { name: string }\nrelation X.fav: many(50) <-> E0.fans: many(5)\n",
            ),
        ),
        ("rings of five entities that embed each other", rings()),
    ]
}

/// Rings `R0 -> R1 -> ... -> R4 -> R0` of one-to-one embeddings, as many as the size allows:
/// every ring is a cycle the engine must break for its entities to be stored anywhere.
fn rings() -> String {
    let mut text = String::new();
    let mut ring = 0;
    while text.len() < SIZE - 1000 {
        for k in 0..5 {
            text.push_str(&format!(
                "entity R{ring}_{k} {{ name: string @index code: string at: date n: int32 }}\n"
            ));
        }
        for k in 0..5 {
            text.push_str(&format!(
                "relation R{ring}_{k}.next: one <-> R{ring}_{}.prev: one\n",
                (k + 1) % 5
            ));
        }
        ring += 1;
    }
    text
}

/// Entities, each after the first related to the one before it by `relation(i)`, as many as
/// the size allows, then `tail`. The chains the engine must decide link by link (cutting the
/// embedding where documents would outgrow 16 MB or where an entity is referenced) take rounds
/// that do not grow with the chain (`engine::Effort`).
fn chain(relation: impl Fn(usize) -> String, tail: &str) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < SIZE - 200 - tail.len() {
        text.push_str(&format!(
            "entity E{i} {{ name: string @index code: string at: date n: int32 }}\n"
        ));
        if i > 0 {
            text.push_str(&format!("relation {}\n", relation(i)));
        }
        i += 1;
    }
    text.push_str(tail);
    text
}

/// Answers as `squillion check` does: parses, validates and plans (every error `plan` or
/// `generate` could meet), or renders the diagnostics; returns the answer's size.
fn answer(text: &str) -> usize {
    let source = SourceFile::new("hostile.sqn", text);
    match squillion_codegen::pipeline::check(&source) {
        Ok(valid) => valid.plan.collections.len(),
        Err(diags) => source.render(&diags, false).len(),
    }
}

/// Generates the Rust module of a valid input (what `squillion generate` adds to `check`).
fn generate(text: &str) -> usize {
    let source = SourceFile::new("hostile.sqn", text);
    match squillion_codegen::pipeline::compile(&source, &Default::default()) {
        Ok(generated) => generated.rust.len(),
        Err(diags) => panic!(
            "the valid input is refused: {}",
            source.render(&diags, false)
        ),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile_1mb");
    group.sample_size(10);
    let inputs = inputs();
    for (name, text) in &inputs {
        assert!(text.len() <= SIZE, "{name}: {} bytes", text.len());
        group.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| answer(text))
        });
    }
    if let Some((_, valid)) = inputs.iter().find(|(name, _)| *name == VALID) {
        group.bench_with_input(BenchmarkId::new("generate", VALID), valid, |b, text| {
            b.iter(|| generate(text))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
