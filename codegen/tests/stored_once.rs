//! An entity is stored in one place (rule 2 across relationships): when one relationship's layout
//! refers to an entity by its `_id` (an id array in a parent, a reference to a parent, a link
//! document), that entity needs documents of its own, so no other relationship may embed or
//! bucket it unless forced to. Before, each relationship was decided alone: a chat's messages
//! were bucketed by channel while replies listed message ids, and every message was stored twice
//! (in its bucket and in its own collection, W117). Tested over squillion-schemagen's schemas
//! and over a generator of the family: a child embedded by one relationship and referenced by id
//! from another, for every referencing layout and every embedding layout.
//!
//! The same holds for a child two relationships would embed: a league's standing belongs to a
//! season and to a team (`Season.standings: few(24) <-> Standing.season: one`, `Team.standings:
//! few(30) <-> Standing.team: one`); embedded in both, every standing was stored twice, as two
//! subdocuments nothing kept alike (newcomer round 22). Such a child is a document of its own.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, Plan, Shape};
use squillion_grammar::SourceFile;
use squillion_schemagen::{batch, render, schema, Config};

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(d) => panic!("does not check:\n{}\n{src}", source.render(&d, false)),
    }
}

fn by_id(shape: &Shape) -> bool {
    matches!(
        shape,
        Shape::Id | Shape::ArrayOfIds | Shape::ExtendedRef | Shape::ArrayOfExtendedRefs
    )
}

/// Every entity some layout refers to by `_id` has a collection of its own, and no layout the
/// engine chose (not forced) embeds or buckets it. Returns the violations, described.
fn violations(p: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    let own = |e: &str| {
        p.collections
            .iter()
            .any(|c| c.role == CollectionRole::Entity && c.entity == e)
    };
    // One child embedded (or bucketed) by two relationships under parents of its own kind or
    // another: stored twice. A tree's own nodes (child == parent) and many-to-many copies are not.
    let embedders: Vec<_> = p
        .relationships
        .iter()
        .filter(|d| matches!(d.strategy, Layout::Embed | Layout::Bucket) && !d.forced)
        .filter(|d| {
            d.child != d.parent && d.kind != squillion_codegen::model::RelationKind::ManyToMany
        })
        .collect();
    for (i, d) in embedders.iter().enumerate() {
        for e in embedders.iter().skip(i + 1).filter(|e| e.child == d.child) {
            out.push(format!(
                "{} ({}) and {} ({}) both embed {}: stored twice",
                d.id,
                d.strategy.as_str(),
                e.id,
                e.strategy.as_str(),
                d.child
            ));
        }
    }
    for d in &p.relationships {
        for pl in d.placement.iter().filter(|pl| by_id(&pl.shape)) {
            if !own(&pl.target) {
                out.push(format!(
                    "{} refers to {} by id ({}) but {} has no collection of its own",
                    d.id, pl.target, pl.path, pl.target
                ));
            }
            for e in &p.relationships {
                let embeds = matches!(e.strategy, Layout::Embed | Layout::Bucket);
                if embeds && !e.forced && e.child == pl.target && e.child != e.parent {
                    out.push(format!(
                        "{} ({}) embeds {} although {} ({}) refers to it by id",
                        e.id,
                        e.strategy.as_str(),
                        e.child,
                        d.id,
                        d.strategy.as_str()
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn no_generated_schema_embeds_an_entity_it_refers_to_by_id() {
    let mut planned = 0;
    let mut bad = Vec::new();
    for (_, s) in batch(23, 400, Config::default()) {
        let text = render(&s);
        let p = plan(&text);
        planned += 1;
        for v in violations(&p) {
            bad.push(format!("{v}\n{text}"));
        }
    }
    assert_eq!(planned, 400);
    assert!(
        bad.is_empty(),
        "{} violations, first:\n{}",
        bad.len(),
        bad[0]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn any_generated_schema_stores_each_referenced_entity_once(s in schema(Config::default())) {
        let text = render(&s);
        let v = violations(&plan(&text));
        prop_assert!(v.is_empty(), "{:?}\n{}", v, text);
    }
}

/// How the child `C` is held by its parent `P` (facts that make the engine embed or bucket it).
const EMBEDDINGS: [&str; 4] = [
    "relation P.cs: few(20) <-> C.p: one",
    "relation P.cs: one <-> C.p: one",
    "relation P.cs: squillions <-> C.p: one { page 50 by at desc }",
    "relation P.cs: squillions <-> C.p: one { growth append_heavy, unbounded  time_range by at }",
];

/// How another relationship refers to `C` by id: an id array in a parent, a reference from a
/// child of `C`, a self relation listing ids, a many-to-many on either side, a link; and the
/// references that breaking an embedding cycle makes (after the other decisions): `C` related
/// to itself one-to-one, and `C` and `D` embedding each other.
const REFERENCES: [&str; 8] = [
    "relation D.cs: many(1000) <-> C.d: one { standalone D }",
    "relation C.ds: squillions <-> D.c: one { standalone D }",
    "relation C.replies: many(1000) <-> C.thread: one?",
    "relation D.cs: few(10) <-> C.ds: squillions { standalone D }",
    "relation D.cs: many(3000) <-> C.ds: many(3000) { standalone D  navigate both }",
    "relation D.cs: many(3000) <-> C.ds: many(3000) { standalone D  fields { role: string } }",
    "relation C.twin: one <-> C.twin_of: one",
    "relation C.d1: one <-> D.c1: one\nrelation D.c2: one <-> C.d2: one",
];

#[test]
fn a_child_embedded_by_one_relationship_and_referenced_by_another_is_stored_once() {
    let mut moved = 0;
    for embed in EMBEDDINGS {
        for reference in REFERENCES {
            let src = format!(
                "entity P {{ name: string }}\nentity C {{ at: date  text: string }}\nentity D {{ label: string }}\n{embed}\n{reference}\n"
            );
            let p = plan(&src);
            let v = violations(&p);
            assert!(v.is_empty(), "{v:?}\n{src}");
            let w117: Vec<_> = p.warnings.iter().filter(|w| w.code == "W117").collect();
            assert!(w117.is_empty(), "stored twice: {w117:?}\n{src}");
            // Where C is referenced by id, the relationship with P says why C is not embedded.
            let with_p = p
                .relationships
                .iter()
                .find(|d| d.id == "P.cs")
                .unwrap_or_else(|| panic!("no decision for P.cs\n{src}"));
            if !matches!(with_p.strategy, Layout::Embed | Layout::Bucket) {
                moved += 1;
                assert!(
                    with_p
                        .facts
                        .iter()
                        .chain(with_p.rejected.iter().map(|r| &r.why))
                        .any(|f| {
                            f.contains("by its id")
                                || f.contains("on its own")
                                || f.contains("documents of their own")
                        }),
                    "P.cs must say why C is not embedded: {:?}\n{src}",
                    with_p.facts
                );
            }
        }
    }
    assert!(
        moved >= 12,
        "only {moved} of 24 combinations keep C out of P"
    );
}

/// How a second parent `Q` would embed the same child `C`.
const SECOND_EMBEDDINGS: [&str; 5] = [
    "relation Q.cs: few(30) <-> C.q: one",
    "relation Q.cs: one <-> C.q: one",
    "relation Q.cs: many(150) <-> C.q: one { show Q.label on C ratio 100:1 }",
    "relation Q.cs: squillions <-> C.q: one { page 20 by at }",
    "relation Q.cs: few(10) <-> C.q: one { summary count  latest 3 by at desc }",
];

/// A child that two relationships (of two parents, or of one parent through two ends) would each
/// embed or bucket is stored once: a document of its own, and both relationships say why.
#[test]
fn a_child_two_relationships_would_embed_is_stored_once() {
    let mut cases = 0;
    for first in EMBEDDINGS {
        for second in SECOND_EMBEDDINGS {
            for same_parent in [false, true] {
                let second = if same_parent {
                    second
                        .replace("Q.cs", "P.others")
                        .replace("Q.label", "P.name")
                } else {
                    second.to_owned()
                };
                let src = format!(
                    "entity P {{ name: string }}\nentity Q {{ label: string }}\nentity C {{ at: date  text: string }}\n{first}\n{second}\n"
                );
                let p = plan(&src);
                let v = violations(&p);
                assert!(v.is_empty(), "{v:?}\n{src}");
                assert!(
                    p.collections
                        .iter()
                        .any(|c| c.role == CollectionRole::Entity && c.entity == "C"),
                    "C has no collection of its own\n{src}"
                );
                for d in p.relationships.iter().filter(|d| d.child == "C") {
                    let text: Vec<&String> = d
                        .facts
                        .iter()
                        .chain(d.rejected.iter().map(|r| &r.why))
                        .collect();
                    assert!(
                        text.iter().any(|f| f.contains("stored twice")),
                        "{} must say why C is not embedded: {text:?}\n{src}",
                        d.id
                    );
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 40);
}
