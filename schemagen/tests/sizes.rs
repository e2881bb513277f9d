//! No chosen layout makes a document outgrow the size limit (issue 13): over generated schemas
//! with a small `doc_max_size` (so that embeddings and buckets of ordinary entities outgrow it),
//! every document whose worst case exceeds the limit is there because the schema forces a layout
//! into it, because the entity's own fields are that large, or because every unforced layout that
//! fills it was tried and ruled out for its size; each such document has warning W104, an error
//! unless a forced layout put it there. A layout ruled out for its size is never the one chosen.

use proptest::prelude::*;
use squillion_codegen::plan::{
    Collection, CollectionRole, Decision, Plan, PlanField, RuleId, Severity,
};
use squillion_grammar::SourceFile;
use squillion_schemagen::{batch, render, schema, Config};

fn config(limit: u64) -> Config {
    Config {
        doc_max_size: Some(limit),
        ..Config::default()
    }
}

fn plan(text: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", text.to_owned());
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => {
            let shown: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            panic!("generated schema is invalid: {shown:?}\n{text}")
        }
    }
}

/// Whether relationship `rel` placed anything in `fields`, at any depth.
fn placed_in(fields: &[PlanField], rel: &str) -> bool {
    fields
        .iter()
        .any(|f| f.relation.as_deref() == Some(rel) || placed_in(&f.children, rel))
}

/// Whether relationship `rel` filled some of `c`'s documents: its buckets or overflow documents,
/// or fields it placed there.
fn fills(c: &Collection, rel: &str) -> bool {
    match &c.role {
        CollectionRole::Bucket { relation } | CollectionRole::Overflow { relation }
            if relation == rel =>
        {
            true
        }
        _ => placed_in(&c.fields, rel),
    }
}

/// Worst case of `c`'s own fields: the document without anything a relationship placed.
fn own_worst(c: &Collection) -> u64 {
    if !matches!(c.role, CollectionRole::Entity) {
        return 0;
    }
    c.fields
        .iter()
        .filter(|f| !has_relation(f))
        .map(|f| f.size.worst.unwrap_or(u64::MAX))
        .fold(5, u64::saturating_add)
}

fn has_relation(f: &PlanField) -> bool {
    f.relation.is_some() || f.children.iter().any(has_relation)
}

fn ruled_out_for_size(d: &Decision) -> Vec<&str> {
    d.rejected
        .iter()
        .filter(|r| r.rules.contains(&RuleId::DocumentSize))
        .map(|r| r.strategy.as_str())
        .collect()
}

/// The property; returns how many layouts were ruled out for their size and how many documents
/// exceed the limit (forced), for the coverage test.
fn check(text: &str) -> (usize, usize) {
    let plan = plan(text);
    let limit = plan.settings.doc_max_size;
    let mut ruled_out = 0;
    for d in &plan.relationships {
        let out = ruled_out_for_size(d);
        ruled_out += out.len();
        assert!(
            !d.forced || out.is_empty(),
            "{}: forced, yet an alternative was ruled out for its size\n{text}",
            d.id
        );
        assert!(
            !out.contains(&d.strategy.as_str()),
            "{}: {} chosen although ruled out for its size\n{text}",
            d.id,
            d.strategy.as_str()
        );
        for a in d.cost.iter().flat_map(|c| &c.alternatives) {
            assert!(
                !(a.acceptable
                    && out.contains(&a.layout.as_str())
                    && a.layout.as_str() != "bucket"),
                "{}: {} ruled out for its size, yet acceptable to the cost model\n{text}",
                d.id,
                a.layout.as_str()
            );
        }
        for r in d
            .rejected
            .iter()
            .filter(|r| r.rules.contains(&RuleId::DocumentSize))
        {
            assert!(
                !r.why.is_empty(),
                "{}: a size rejection without words",
                d.id
            );
        }
    }
    let mut over = 0;
    for c in &plan.collections {
        let Some(worst) = c.size.worst.filter(|w| *w > limit) else {
            continue;
        };
        over += 1;
        let fillers: Vec<&Decision> = plan
            .relationships
            .iter()
            .filter(|d| fills(c, &d.id))
            .collect();
        let forced = fillers.iter().any(|d| d.forced);
        let own = own_worst(c) > limit;
        let all_tried = fillers
            .iter()
            .filter(|d| !d.forced)
            .all(|d| !ruled_out_for_size(d).is_empty());
        assert!(
            forced || own || (!fillers.is_empty() && all_tried),
            "`{}` reaches {worst} bytes at worst, over the limit of {limit}, with no forced layout in it, \
             its own fields under the limit, and an unforced layout filling it never ruled out: {:?}\n{text}",
            c.name,
            fillers.iter().map(|d| (&d.id, d.strategy.as_str(), d.forced)).collect::<Vec<_>>()
        );
        let w104: Vec<_> = plan
            .warnings
            .iter()
            .filter(|w| w.code == "W104" && w.collection.as_deref() == Some(c.name.as_str()))
            .collect();
        assert!(
            !w104.is_empty(),
            "`{}` is over the limit without W104\n{text}",
            c.name
        );
        if !forced {
            assert!(
                w104.iter().all(|w| w.severity == Severity::Error),
                "`{}` is over the limit with no forced layout in it: W104 must be an error\n{text}",
                c.name
            );
        }
        for w in &w104 {
            assert!(
                w.position.line > 0 && w.help.is_some(),
                "W104 without a place or help: {w:?}"
            );
        }
    }
    (ruled_out, over)
}

fn limit() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(64 * 1024),
        Just(256 * 1024),
        Just(1024 * 1024),
        Just(4 * 1024 * 1024)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn no_chosen_layout_outgrows_the_limit_unless_forced(
        s in limit().prop_flat_map(|l| schema(config(l)))
    ) {
        check(&render(&s));
    }

    /// MongoDB's own limit, with the generator's usual schemas.
    #[test]
    fn no_chosen_layout_outgrows_16_mb_unless_forced(s in schema(Config::default())) {
        check(&render(&s));
    }
}

/// The property is not vacuous: a fixed batch rules layouts out for their size and keeps forced
/// documents over the limit.
#[test]
fn a_batch_rules_layouts_out_for_their_size() {
    let (mut ruled_out, mut over) = (0, 0);
    for (_, s) in batch(13, 200, config(256 * 1024)) {
        let (r, o) = check(&render(&s));
        ruled_out += r;
        over += o;
    }
    eprintln!("ruled out for their size: {ruled_out}; documents over the limit: {over}");
    assert!(ruled_out > 0, "no layout was ruled out for its size");
    assert!(over > 0, "no forced layout kept a document over the limit");
}
