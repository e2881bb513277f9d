//! A parent that keeps lists (`latest`, `top`) or summaries of children that another relationship
//! stores as elements of its documents (embedded in them, or in their buckets): the generated
//! repositories keep a parent's lists and summaries from writes of children in their own
//! collection, or from appends to the parent's own array or buckets, and these children are
//! written through neither, so the fields stayed at their initial value (a league's
//! `Player.goals_count` over goals embedded in matches: always 0; newcomer round 22). W131 says
//! so, and its help (`standalone C`) gives the children a collection whose writes keep them.
//! Over every way of storing the children as elements and every kept list or summary.

use squillion_codegen::plan::{CollectionRole, Plan};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("kept.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(d) => panic!("does not check:\n{}\n{src}", source.render(&d, false)),
    }
}

/// How `Q` stores the children `C` as elements of its documents or of its buckets.
const HOLDERS: [&str; 4] = [
    "relation Q.cs: few(20) <-> C.q: one",
    "relation Q.cs: many(150) <-> C.q: one",
    "relation Q.cs: squillions <-> C.q: one { page 20 by at }",
    "relation Q.cs: squillions <-> C.q: one { growth append_heavy, unbounded  time_range by at }",
];

/// What `P` keeps of its children `C` (which hold `P`'s reference, with a copy of its name).
const KEPT: [&str; 6] = [
    "summary count",
    "summary max(n)",
    "summary count, total(n)",
    "latest 3 by at desc",
    "top 2 by n desc keep n",
    "latest 2 by at desc\n  summary avg(n)",
];

/// What makes `P`'s children hold its reference rather than `P` hold their ids.
const REFERENCES: [&str; 2] = [
    "relation P.cs: many(1000) <-> C.p: one {\n  show P.name on C ratio 100:1\n  ",
    "relation P.cs: squillions <-> C.p: one {\n  show P.name on C ratio 50:1\n  ",
];

fn source(holder: &str, reference: &str, kept: &str, standalone: bool) -> String {
    let alone = if standalone { "\n  standalone C" } else { "" };
    format!(
        "entity P {{ name: string }}\nentity Q {{ label: string }}\nentity C {{ at: date  n: int32 }}\n{holder}\n{reference}{kept}{alone}\n}}\n"
    )
}

fn own_collection(p: &Plan, entity: &str) -> bool {
    p.collections
        .iter()
        .any(|c| c.role == CollectionRole::Entity && c.entity == entity)
}

#[test]
fn a_parent_keeping_children_stored_in_another_entity_is_warned() {
    let mut cases = 0;
    for holder in HOLDERS {
        for reference in REFERENCES {
            for kept in KEPT {
                let src = source(holder, reference, kept, false);
                let p = plan(&src);
                assert!(!own_collection(&p, "C"), "C has a collection\n{src}");
                let w: Vec<_> = p.warnings.iter().filter(|w| w.code == "W131").collect();
                assert_eq!(w.len(), 1, "one W131 expected: {:?}\n{src}", p.warnings);
                let w = w[0];
                assert_eq!(w.relation.as_deref(), Some("P.cs"), "{w:?}");
                assert!(
                    w.message.contains("Q.cs") && w.message.contains("initial value"),
                    "{}\n{src}",
                    w.message
                );
                let help = w.help.as_deref().unwrap_or_default();
                assert!(help.contains("`standalone C` in P.cs"), "{help}\n{src}");
                // The help works: with `standalone C` the children have a collection and no
                // warning is left.
                let fixed = source(holder, reference, kept, true);
                let p = plan(&fixed);
                assert!(own_collection(&p, "C"), "{fixed}");
                assert!(
                    p.warnings.iter().all(|w| w.code != "W131"),
                    "{:?}\n{fixed}",
                    p.warnings
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 48);
}

/// Whatever the schema, a parent keeping something of children with no collection of their own
/// either holds those children itself (embed, bucket) or is warned.
#[test]
fn no_generated_schema_keeps_unkept_fields_silently() {
    use squillion_codegen::model::Layout;
    use squillion_schemagen::{batch, render, Config};
    let mut kept = 0;
    for (_, s) in batch(31, 300, Config::default()) {
        let src = render(&s);
        let p = plan(&src);
        for d in &p.relationships {
            let keeps = d.subset.is_some() || !d.computed.is_empty();
            if !keeps || matches!(d.strategy, Layout::Embed | Layout::Bucket) {
                continue;
            }
            if d.kind == squillion_codegen::model::RelationKind::ManyToMany {
                continue;
            }
            kept += 1;
            if !own_collection(&p, &d.child) {
                assert!(
                    p.warnings
                        .iter()
                        .any(|w| w.code == "W131" && w.relation.as_deref() == Some(d.id.as_str())),
                    "{} keeps fields of children stored elsewhere without W131\n{src}",
                    d.id
                );
            }
        }
    }
    assert!(kept > 20, "only {kept} relationships keep something");
}
