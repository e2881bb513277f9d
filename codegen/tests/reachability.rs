//! Embedding cycles (issue 11, defect 7): every entity is stored somewhere a collection reaches.
//! Two entities that own each other, an entity related to itself one-to-one, longer cycles: the
//! engine breaks each cycle with a reference, keeps a collection for its root and says so in the
//! decision; a cycle made only of forced embeddings is error W121. Tested over every cycle length,
//! kind and choice of forced edges, and over squillion-schemagen's schemas (which draw cycles).

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, FieldKind, Plan, PlanField, Severity};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(d) => panic!("does not check:\n{}\n{src}", source.render(&d, false)),
    }
}

fn holds(fields: &[PlanField], entity: &str) -> bool {
    fields.iter().any(|f| {
        (f.kind == FieldKind::Embedded && f.type_name.as_deref() == Some(entity))
            || holds(&f.children, entity)
    })
}

/// Whether documents of `entity` are stored: a collection of its own, or embedded in the
/// documents of some collection (a parent's, a bucket's, an overflow's).
fn stored(p: &Plan, entity: &str) -> bool {
    p.collections.iter().any(|c| {
        (c.role == CollectionRole::Entity && c.entity == entity) || holds(&c.fields, entity)
    })
}

fn entities(src: &str) -> Vec<String> {
    src.lines()
        .filter_map(|l| l.trim().strip_prefix("entity "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Every entity stored, or error W121 (and then a forced cycle really is there).
fn check(src: &str, p: &Plan) -> bool {
    let w121 = p.warnings.iter().any(|w| w.code == "W121");
    if w121 {
        assert!(
            p.warnings
                .iter()
                .any(|w| w.code == "W121" && w.severity == Severity::Error),
            "{src}"
        );
        return true;
    }
    for e in entities(src) {
        assert!(
            stored(p, &e),
            "{e} is stored nowhere (collections {:?}):\n{src}",
            p.collections.iter().map(|c| &c.name).collect::<Vec<_>>()
        );
    }
    assert!(!p.collections.is_empty(), "no collection:\n{src}");
    false
}

/// A cycle E0 -> E1 -> ... -> E0 of `len` relations; edge k is one-to-one when bit k of `ones`
/// is set (else few), and forced when bit k of `forced` is set.
fn cycle(len: usize, ones: u32, forced: u32) -> String {
    let mut src = String::new();
    for k in 0..len {
        src.push_str(&format!("entity E{k} {{ s{k}: string }}\n"));
    }
    for k in 0..len {
        let next = (k + 1) % len;
        let card = if ones & (1 << k) != 0 {
            "one"
        } else {
            "few(4)"
        };
        let force = if forced & (1 << k) != 0 {
            " force embed "
        } else {
            ""
        };
        src.push_str(&format!(
            "relation E{k}.down{k}: {card} <-> E{next}.up{k}: one {{{force}}}\n"
        ));
    }
    src
}

#[test]
fn every_cycle_is_broken_with_a_reference_or_refused_when_forced() {
    let mut checked = 0;
    for len in 1..=4 {
        for ones in 0..(1u32 << len) {
            for forced in 0..(1u32 << len) {
                let src = cycle(len, ones, forced);
                let p = plan(&src);
                let refused = check(&src, &p);
                let all_forced = forced == (1 << len) - 1;
                // A self-embedding tree (one relation, few) needs no break: it gets a root.
                let tree = len == 1 && ones == 0;
                assert_eq!(
                    refused,
                    all_forced && !tree,
                    "W121 exactly when every embedding of the cycle is forced:\n{src}"
                );
                if refused || tree {
                    continue;
                }
                // The broken relationship is a reference now, and its decision says why.
                let broken: Vec<_> = p
                    .relationships
                    .iter()
                    .filter(|d| d.strategy != Layout::Embed)
                    .collect();
                assert_eq!(broken.len(), 1, "one reference breaks the cycle:\n{src}");
                let d = broken[0];
                assert!(!d.forced, "a forced embedding was overridden:\n{src}");
                assert!(
                    d.facts.iter().any(|f| f.contains("embeds")),
                    "the decision must name the cycle: {:?}",
                    d.facts
                );
                assert!(
                    d.rejected.iter().any(|r| r.strategy == "embed"),
                    "embedding must be a rejected alternative: {:?}",
                    d.rejected
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} cycles broken");
}

#[test]
fn a_self_embedding_tree_without_another_parent_keeps_a_root_collection() {
    let src = "entity Comment { text: string }\nrelation Comment.replies: few <-> Comment.reply_to: one\n";
    let p = plan(src);
    let c = p
        .collection("comments")
        .expect("a collection of root comments");
    assert!(holds(&c.fields, "Comment"), "replies stay embedded");
    assert!(
        !p.warnings.iter().any(|w| w.code == "W117"),
        "{:?}",
        p.warnings
    );
    // With another parent, the tree lives in that parent's documents (library.sqn's notes).
    let src = "entity Note { text: string }\nentity Comment { text: string }\nrelation Note.comments: few <-> Comment.note: one\nrelation Comment.replies: few <-> Comment.reply_to: one\n";
    let p = plan(src);
    assert!(p.collection("comments").is_none(), "{:?}", p.collections);
    assert!(stored(&p, "Comment"));
}

#[test]
fn the_forced_refusal_points_at_a_force_and_says_what_to_do() {
    let p = plan(&cycle(2, 0b01, 0b11));
    let w = p.warnings.iter().find(|w| w.code == "W121").unwrap();
    assert_eq!(w.position.line, 3, "at the first relation of the cycle");
    assert!(w.message.contains("E0.down0, E1.down1"), "{}", w.message);
    assert!(w
        .help
        .as_deref()
        .unwrap_or("")
        .contains("remove `force embed`"));
    let p = plan(&cycle(1, 0b1, 0b1));
    let w = p.warnings.iter().find(|w| w.code == "W121").unwrap();
    assert!(w.message.contains("one-to-one"), "{}", w.message);
}

#[test]
fn every_entity_is_stored_in_generated_schemas() {
    let mut cycles = 0;
    for (_, schema) in squillion_schemagen::batch(7, 400, squillion_schemagen::Config::default()) {
        let src = squillion_schemagen::render(&schema);
        let p = plan(&src);
        check(&src, &p);
        cycles += usize::from(p.relationships.iter().any(|d| {
            d.facts
                .iter()
                .any(|f| f.contains("would be stored in a collection"))
        }));
    }
    assert!(cycles > 5, "only {cycles} schemas with a cycle to break");
}
