//! A layout whose worst-case document exceeds MongoDB's limit (`doc_max_size`) is never chosen
//! unless forced (issue 13): it is ruled out before the rules' and the cost model's comparison and
//! recorded as a rejected alternative with that reason; a document still over the limit has
//! warning W104 saying why. Hand schemas of the family; the property over generated schemas is
//! `schemagen/tests/sizes.rs`.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{Decision, Plan, RuleId, Severity, Warning};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("size.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!(
            "schema does not check:\n{}\n{src}",
            source.render(&diags, false)
        ),
    }
}

fn decision<'p>(p: &'p Plan, id: &str) -> &'p Decision {
    p.relationship(id)
        .unwrap_or_else(|| panic!("no decision {id}"))
}

fn ruled_out_for_size(d: &Decision) -> Vec<&str> {
    d.rejected
        .iter()
        .filter(|r| r.rules.contains(&RuleId::DocumentSize))
        .map(|r| r.strategy.as_str())
        .collect()
}

fn w104(p: &Plan) -> Vec<&Warning> {
    p.warnings.iter().filter(|w| w.code == "W104").collect()
}

/// Every document of the plan fits.
fn all_fit(p: &Plan) {
    for c in &p.collections {
        let worst = c.size.worst.unwrap_or(0);
        assert!(
            worst <= p.settings.doc_max_size,
            "`{}` reaches {worst} bytes at worst",
            c.name
        );
    }
    assert!(w104(p).is_empty(), "{:?}", w104(p));
}

/// The generated schema that found the defect: each E2 embeds up to 1,000 E0 (forced), and E2's
/// own children, paged, would go in buckets of 8 of them.
#[test]
fn buckets_of_children_that_embed_a_thousand_others() {
    let p = plan(
        "settings { bucket_size = 8 }
         entity E0 { at: date  n: int32  s: string  t: string  u: string }
         entity E2 { at: date  n: int32  s: string }
         relation E2.zs: many(1000) <-> E0.e2: one { force embed }
         relation E2.r3: squillions <-> E2.q3: one {
           growth append_heavy, unbounded
           page 8 by at
         }",
    );
    let d = decision(&p, "E2.r3");
    assert_ne!(d.strategy, Layout::Bucket);
    assert!(
        ruled_out_for_size(d).contains(&"bucket"),
        "{:?}",
        d.rejected
    );
    assert!(d.because.contains("16 MB"), "{}", d.because);
    all_fit(&p);
}

/// Few children, never read alone: embedded, unless each is so large that the parent would not
/// fit; then they are documents of their own, whatever the limit (the same schema under a
/// smaller `doc_max_size`).
#[test]
fn few_large_children_embed_only_while_they_fit() {
    let schema = |limit: &str| {
        format!(
            "settings {{ doc_max_size = {limit} }}
             entity Order {{ at: date }}
             entity Scan {{ at: date  image: binary @large(1MB) }}
             relation Order.scans: many(10) <-> Scan.order: one"
        )
    };
    let fits = plan(&schema("16MB"));
    assert_eq!(decision(&fits, "Order.scans").strategy, Layout::Embed);
    let small = plan(&schema("4MB"));
    let d = decision(&small, "Order.scans");
    assert_ne!(d.strategy, Layout::Embed);
    assert_eq!(ruled_out_for_size(d), ["embed"]);
    all_fit(&small);
}

/// The cost model never brings back a layout ruled out for its size: under a declared workload
/// the alternatives that fit compete, and the one ruled out is costed but not acceptable.
#[test]
fn a_workload_does_not_bring_back_what_does_not_fit() {
    let p = plan(
        "entity Owner { name: string }
         entity Item { at: date  photo: binary @large(600KB) }
         relation Owner.items: many(40) <-> Item.owner: one
         query items_of_owner on Owner.items {
           sort at desc
           rate 50/s
         }",
    );
    let d = decision(&p, "Owner.items");
    assert_ne!(d.strategy, Layout::Embed);
    assert_eq!(ruled_out_for_size(d), ["embed"]);
    let cost = d.cost.as_ref().expect("costed");
    let embed = cost
        .alternatives
        .iter()
        .find(|a| a.layout == Layout::Embed)
        .expect("embed costed");
    assert!(!embed.acceptable && !embed.chosen);
    all_fit(&p);
}

/// An id array is a document's content too: a parent listing its children by ids holds 16 bytes
/// per id, and a limit those ids outgrow leaves the reference on each child.
#[test]
fn an_id_array_that_outgrows_the_limit() {
    let schema = |limit: &str| {
        format!(
            "settings {{ doc_max_size = {limit}  doc_warn_size = 16KB }}
             entity Author {{ name: string }}
             entity Book {{ title: string }}
             relation Author.books: many(3000) <-> Book.author: one {{ standalone Book }}"
        )
    };
    let roomy = plan(&schema("1MB"));
    assert_eq!(
        decision(&roomy, "Author.books").strategy,
        Layout::ParentRefs
    );
    let tight = plan(&schema("32KB"));
    let d = decision(&tight, "Author.books");
    assert_eq!(ruled_out_for_size(d), ["parent_refs"]);
    assert_eq!(d.strategy, Layout::ChildRef);
    all_fit(&tight);
}

/// Forced into a layout that does not fit: kept, with a warning (not an error) that names the
/// forced relationship and says how to fix it.
#[test]
fn a_forced_layout_that_does_not_fit_is_kept_and_warned_about() {
    let p = plan(
        "entity Order { at: date }
         entity Scan { at: date  image: binary @large(4MB) }
         relation Order.scans: many(10) <-> Scan.order: one { force embed }",
    );
    let d = decision(&p, "Order.scans");
    assert_eq!(d.strategy, Layout::Embed);
    assert!(ruled_out_for_size(d).is_empty());
    let w = w104(&p);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].severity, Severity::Warning);
    assert!(
        w[0].message.contains("`Order.scans` to embed"),
        "{}",
        w[0].message
    );
    assert!(w[0].help.as_deref().is_some_and(|h| h.contains("force")));
}

/// A document too large by its own fields: no layout can help, and the error says so.
#[test]
fn a_document_too_large_by_its_own_fields_is_an_error_that_says_so() {
    let fields: String = (0..20)
        .map(|i| format!("  part{i}: binary @large(1MB)\n"))
        .collect();
    let p = plan(&format!(
        "entity Archive {{\n{fields}}}\nentity Note {{ at: date }}\nrelation Archive.notes: many(5) <-> Note.archive: one"
    ));
    let w = w104(&p);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].severity, Severity::Error);
    assert!(w[0].message.contains("its own fields"), "{}", w[0].message);
    // The relationship's own layout is not blamed for what it did not add.
    assert!(ruled_out_for_size(decision(&p, "Archive.notes")).is_empty());
}
