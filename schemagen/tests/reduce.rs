//! Schema-level shrinking's reductions: each names a part of the schema and removes it (the
//! schema gets strictly smaller), reductions compose, and a reduced schema that checks still
//! generates (the harness compiles the ones that check).

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;
use squillion_schemagen::{batch, reduce, reduce_all, reductions, render, Config, Pattern, Schema};

fn size(s: &Schema) -> usize {
    s.entities.len()
        + s.relations.len()
        + s.relations.iter().map(|r| r.facts.len()).sum::<usize>()
        + s.entities.iter().map(|e| e.fields.len()).sum::<usize>()
        + s.entities
            .iter()
            .filter(|e| e.pattern != Pattern::Plain)
            .count()
        + s.queries.len()
}

#[test]
fn every_reduction_removes_what_it_names_and_reductions_compose() {
    let mut checked = 0;
    for (_, schema) in batch(7, 25, Config::default()) {
        let all = reductions(&schema);
        for r in &all {
            let smaller = reduce(&schema, r).unwrap_or_else(|| panic!("{r} names nothing"));
            assert!(size(&smaller) < size(&schema), "{r} removed nothing");
            assert!(
                !reductions(&smaller).contains(r) || r.starts_with("fact"),
                "{r} is still offered after it was applied"
            );
            let text = render(&smaller);
            let source = SourceFile::new("reduced.sqn", text.clone());
            if compile(&source, &GenerateSettings::default()).is_ok() {
                checked += 1;
            }
        }
        // Applying every relation reduction one after another leaves no relation.
        let relations: Vec<String> = all
            .iter()
            .filter(|r| r.starts_with("relation"))
            .cloned()
            .collect();
        let bare = reduce_all(&schema, &relations).expect("relations reduce one after another");
        assert!(bare.relations.is_empty());
        assert!(reduce(&schema, "entity Nope").is_none());
    }
    assert!(checked > 100, "only {checked} reduced schemas check");
}
