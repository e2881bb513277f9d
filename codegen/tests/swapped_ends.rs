//! A newcomer's classic slip (round 19): reading an end's cardinality as that of its own entity,
//! `Ticket.comments: one <-> Comment.ticket: squillions`, which says each ticket has one comment
//! and each comment squillions of tickets. W0402 reports it when the ends' names say the
//! opposite of their cardinalities, for every pair of names (irregular plurals, compound names,
//! every many class and optional ends), and never for a relation written the right way round, a
//! self-relation, or any schema of the examples and the real-world corpus.

use squillion_codegen::pipeline::check;
use squillion_grammar::SourceFile;

const NAMES: &[&str] = &[
    "Ticket",
    "Comment",
    "Category",
    "Person",
    "LogMessage",
    "Box",
    "Story",
    "Address",
    "Analysis",
    "Recipe",
    "HTTPRequest",
    "Quiz",
];

const MANY: &[&str] = &[
    "few",
    "few(30)",
    "many",
    "many(2000)",
    "squillions",
    "many(20000, typical 50)",
];
const ONE: &[&str] = &["one", "one?"];

fn snake(name: &str) -> String {
    // The same snake_case the default collection names use (`LogMessage` -> `log_message`).
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn plural_snake(name: &str) -> String {
    squillion_codegen::prose::plural(&snake(name))
}

/// The codes `check` reports for `text` (errors, or the warnings of a valid file).
fn codes(text: &str) -> Vec<&'static str> {
    let source = SourceFile::new("t.sqn", text.to_owned());
    match check(&source) {
        Ok(valid) => valid.checked.warnings.iter().map(|d| d.code).collect(),
        Err(all) => all.iter().map(|d| d.code).collect(),
    }
}

fn schema(parent: &str, child: &str, relation: &str) -> String {
    format!("entity {parent} {{ name: string }}\nentity {child} {{ text: string }}\n{relation}\n")
}

#[test]
fn swapped_cardinalities_are_reported_for_every_naming() {
    let mut failures = Vec::new();
    for (i, parent) in NAMES.iter().enumerate() {
        for child in NAMES.iter().skip(i + 1) {
            for many in MANY {
                for one in ONE {
                    let (ends, sing) = (plural_snake(child), snake(parent));
                    // Swapped, written left to right and right to left.
                    for relation in [
                        format!("relation {parent}.{ends}: {one} <-> {child}.{sing}: {many}"),
                        format!("relation {child}.{sing}: {many} <-> {parent}.{ends}: {one}"),
                    ] {
                        let found = codes(&schema(parent, child, &relation));
                        if !found.contains(&"W0402") {
                            failures.push(format!("not reported: {relation} ({found:?})"));
                        }
                    }
                    // The right way round.
                    for relation in [
                        format!("relation {parent}.{ends}: {many} <-> {child}.{sing}: {one}"),
                        format!("relation {child}.{sing}: {one} <-> {parent}.{ends}: {many}"),
                    ] {
                        let found = codes(&schema(parent, child, &relation));
                        if found.contains(&"W0402") {
                            failures.push(format!("reported, but right: {relation}"));
                        }
                    }
                }
            }
        }
    }
    // Names that do not spell the other entity may mean what they say.
    for relation in [
        "relation Ticket.latest_comment: one <-> Comment.ticket: squillions",
        "relation Ticket.comments: one <-> Comment.tickets: squillions",
        "relation Ticket.comments: one <-> Comment.owner: many",
    ] {
        if codes(&schema("Ticket", "Comment", relation)).contains(&"W0402") {
            failures.push(format!("reported, but the names do not say so: {relation}"));
        }
    }
    // A self-relation's ends name the same entity: never reported.
    let tree = "entity Comment { text: string }\nrelation Comment.comments: one <-> Comment.comment: few\n";
    if codes(tree).contains(&"W0402") {
        failures.push("reported on a self-relation".to_owned());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_shipped_schema_is_reported() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for dir in ["../examples", "tests/decisions/real_world", "../hostile"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_none_or(|e| e != "sqn") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a schema is readable");
            assert!(
                !codes(&text).contains(&"W0402"),
                "{}: W0402 on a schema written the right way round",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} schemas checked");
}
