//! Deciding a schema takes a number of rounds that does not grow with the schema's size, so the
//! engine's time is linear in it (the robustness corpus feeds it 5 MB files; issue 14: any input
//! under 1 MB answered in under a second). The effort is counted, not timed: whole plans built
//! (fitting rounds and alternatives sized in a plan of their own) and relationships decided, per
//! relationship of the schema, and the steps taken breaking embedding cycles (entities reached
//! and walked back through). Each family of shapes is decided at two sizes, the larger four times the
//! smaller; a round per relationship or per level (a quadratic engine) shows as a count that
//! grows with the size.

use squillion_codegen::engine::{plan_with_effort, Effort};
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn decide(src: &str) -> (Plan, Effort) {
    let source = SourceFile::new("effort.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => plan_with_effort(&checked.model, &source),
        Err(diags) => panic!("{}\n{src}", source.render(&diags, false)),
    }
}

const ENTITY: &str = "{ name: string @index code: string at: date n: int32 }";

/// E0 <- E1 <- ... each parent with `card` children of the next.
fn chain(n: usize, card: &str) -> String {
    linked(n, |i| {
        format!("E{}.next{i}: {card} <-> E{i}.prev{i}: one", i - 1)
    })
}

/// The same chain declared the other way round: each entity the parent of the one before it
/// (a walk that follows the declarations in order meets the deepest child first).
fn reversed(n: usize, card: &str) -> String {
    linked(n, |i| {
        format!("E{i}.next{i}: {card} <-> E{}.prev{i}: one", i - 1)
    })
}

/// `n` entities, each after the first related to the one before it by `relation(i)`.
fn linked(n: usize, relation: impl Fn(usize) -> String) -> String {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!("entity E{i} {ENTITY}\n"));
        if i > 0 {
            t.push_str(&format!("relation {}\n", relation(i)));
        }
    }
    t
}

/// Rings of `card` embeddings of five entities each (cycles the engine breaks).
fn rings(n: usize, card: &str) -> String {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!("entity R{i} {ENTITY}\n"));
    }
    for i in 0..n {
        let next = if i % 5 == 4 { i - 4 } else { i + 1 };
        t.push_str(&format!(
            "relation R{i}.r{i}: {card} <-> R{next}.back{i}: one\n"
        ));
    }
    t
}

/// One hub with `n` kinds of children, each too many (or too large) to embed or list by id.
fn star(n: usize, card: &str) -> String {
    let mut t = format!("entity Hub {ENTITY}\n");
    for i in 0..n {
        t.push_str(&format!(
            "entity C{i} {{ name: string body: string @large(200KB) }}\nrelation Hub.c{i}: {card} <-> C{i}.hub: one\n"
        ));
    }
    t
}

/// A binary tree of entities, each parent with `card` children of each of its two kinds.
fn tree(n: usize, card: &str) -> String {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!("entity T{i} {ENTITY}\n"));
        if i > 0 {
            t.push_str(&format!(
                "relation T{}.t{i}: {card} <-> T{i}.up{i}: one\n",
                (i - 1) / 2
            ));
        }
    }
    t
}

/// A chain of small embedded children whose last one another entity lists by id (each child
/// that may no longer be embedded then refers to its parent, up the chain), and a many-to-many
/// ladder beside it.
fn referenced(n: usize, card: &str) -> String {
    let mut t = chain(n, card);
    t.push_str(&format!(
        "entity X {ENTITY}\nrelation X.tags: many(50) <-> E{}.xs: many(5)\n",
        n - 1
    ));
    if card == "one" {
        return t;
    }
    for i in 1..n {
        t.push_str(&format!(
            "relation E{}.peers{i}: few(4) <-> E{i}.peered{i}: many(40)\n",
            i - 1
        ));
    }
    t
}

type Family = fn(usize, &str) -> String;

#[test]
fn rounds_do_not_grow_with_the_schema() {
    let families: [(&str, Family, &[&str]); 6] = [
        (
            "chain",
            chain,
            &["one", "few(10)", "many(100)", "many(5000)"],
        ),
        ("reversed", reversed, &["one", "many(100)"]),
        ("rings", rings, &["one", "few(5)"]),
        ("star", star, &["few(50)", "many(1000)", "many(200000)"]),
        ("tree", tree, &["one", "few(20)", "many(300)"]),
        // "one": each child that may no longer be embedded refers to its parent, one level per
        // round of the referenced-entity fixpoint.
        ("referenced", referenced, &["one", "few(3)", "many(100)"]),
    ];
    let mut failures = Vec::new();
    for (name, family, cards) in families {
        for card in cards {
            // Past the embedding depth limit (40) at the larger size, for chains.
            let (small, large) = (25, 100);
            let (p, a) = decide(&family(small, card));
            let (q, b) = decide(&family(large, card));
            let per = |n: usize, p: &Plan| n as f64 / p.relationships.len().max(1) as f64;
            if b.plans > a.plans + 1
                || per(b.decisions, &q) > per(a.decisions, &p) + 1.0
                || per(b.walked, &q) > per(a.walked, &p) + 1.0
            {
                failures.push(format!(
                    "{name} {card}: {small} entities took {a:?}, {large} took {b:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The robustness corpus's huge file, cut to 1 MB, is decided in a handful of rounds.
#[test]
fn a_megabyte_schema_is_decided_in_a_handful_of_rounds() {
    let mut n = 1;
    while chain(n, "many(100)").len() < 1024 * 1024 {
        n *= 2;
    }
    let (plan, effort) = decide(&chain(n, "many(100)"));
    assert_eq!(plan.relationships.len(), n - 1);
    assert!(effort.plans <= 3 && effort.decisions <= 4 * n, "{effort:?}");
}
