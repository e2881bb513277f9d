//! The language constructs real designs needed (issue 13): each parsed, resolved with coded
//! diagnostics for misuse, decided and placed, with properties over generated relations.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{ComputedFn, FieldKind, Plan};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("does not check:\n{}\n{src}", source.render(&diags, false)),
    }
}

/// The codes of a schema that must not check.
fn errors(src: &str) -> Vec<&'static str> {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().filter(|d| d.is_error()).map(|d| d.code).collect(),
    }
}

const PAIRS: &[(&str, &str)] = &[
    ("Product", "Review"),
    ("Sensor", "Reading"),
    ("Account", "Entry"),
    ("Category", "Item"),
    ("Person", "Address"),
];

fn pair() -> impl Strategy<Value = (&'static str, &'static str)> {
    prop::sample::select(PAIRS)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    /// `avg(f)` stores the total of `f` and the count (once, whether or not they were asked for)
    /// where the other summaries live, on the parent or on each bucket, and records the average
    /// as their quotient; it is never stored itself.
    #[test]
    fn averages_divide_a_stored_total_by_a_stored_count(
        (p, c) in pair(),
        card in prop_oneof![Just("few(50)"), Just("many(3000)"), Just("squillions")],
        also in prop::sample::subsequence(vec!["count", "total(v)", "max(v)", "min(at)"], 0..4),
        bucketed in any::<bool>(),
        ty in prop_oneof![Just("int32"), Just("int64"), Just("double")],
    ) {
        let mut list = vec!["avg(v)".to_owned()];
        list.extend(also.iter().map(|s| s.to_string()));
        let card = if bucketed { "squillions" } else { card };
        let src = format!(
            "entity {p} {{ name: string }}\nentity {c} {{ v: {ty}  at: date }}\n\
             relation {p}.items: {card} <-> {c}.owner: one {{\n  summary {}\n  {}\n}}\n",
            list.join(", "),
            if bucketed { "time_range by at" } else { "" }
        );
        let plan = plan(&src);
        let d = plan.relationship(&format!("{p}.items")).unwrap();
        let averages: Vec<_> = d.computed.iter().filter(|x| matches!(x.function, ComputedFn::Average { .. })).collect();
        prop_assert_eq!(averages.len(), 1);
        let avg = averages[0];
        let ComputedFn::Average { total_path, count_path } = &avg.function else { unreachable!() };
        let coll = plan.collection(&avg.collection).unwrap();
        prop_assert!(coll.field_at(total_path).is_some_and(|f| f.kind == FieldKind::Computed), "{} missing", total_path);
        prop_assert!(coll.field_at(count_path).is_some_and(|f| f.kind == FieldKind::Computed), "{} missing", count_path);
        prop_assert!(coll.field_at(&avg.path).is_none(), "the average is stored");
        // One total of v and one count, never two.
        let totals = coll.fields.iter().filter(|f| f.kind == FieldKind::Computed && f.name.contains("total")).count();
        prop_assert_eq!(totals, 1);
        prop_assert_eq!(d.strategy == Layout::Bucket, bucketed);
    }

    /// An outlier threshold (`embed N`) is how many children stay in the parent: the embedded
    /// array holds exactly N, the rest overflow.
    #[test]
    fn the_outlier_threshold_bounds_the_embedded_part(
        (p, c) in pair(),
        typical in 1u64..50,
        extra in 0u64..300,
        max in 2_000u64..50_000,
    ) {
        let embed = typical + extra;
        let src = format!(
            "entity {p} {{ name: string }}\nentity {c} {{ v: int32 }}\n\
             relation {p}.items: many({max}, typical {typical}, embed {embed}) <-> {c}.owner: one\n"
        );
        let plan = plan(&src);
        let d = plan.relationship(&format!("{p}.items")).unwrap();
        let o = d.outlier.as_ref().expect("the outlier pattern");
        prop_assert_eq!(o.embedded_max, embed);
        prop_assert_eq!(d.placement[0].max_items, Some(embed));
    }

    /// `growth static` (or two `@static` ends) lifts rule 3's growth concern: children not read
    /// on their own are embedded up to what an id array would hold, and the large-array finding
    /// is a note, not a warning; growing children never are.
    #[test]
    fn static_children_embed_beyond_the_growth_threshold(
        (p, c) in pair(),
        max in 201u64..5000,
        by_entities in any::<bool>(),
    ) {
        let (attr, fact) = if by_entities { (" @static", "") } else { ("", "growth static") };
        let src = format!(
            "entity {p}{attr} {{ name: string }}\nentity {c}{attr} {{ v: int32 }}\n\
             relation {p}.items: many({max}) <-> {c}.owner: one {{ {fact} }}\n"
        );
        let plan = plan(&src);
        let d = plan.relationship(&format!("{p}.items")).unwrap();
        prop_assert_eq!(d.strategy, Layout::Embed);
        for w in plan.warnings.iter().filter(|w| w.code == "W101") {
            prop_assert_eq!(w.severity, squillion_codegen::plan::Severity::Info);
        }
        let growing = src.replace("growth static", "growth append_heavy").replace(" @static", "");
        let d2 = plan_of_growing(&growing, &format!("{p}.items"));
        prop_assert_ne!(d2, Layout::Embed);
    }

    /// `one?` makes the reference (or embedded document) optional; `one` requires it.
    #[test]
    fn optional_ends_make_optional_fields(
        (p, c) in pair(),
        optional in any::<bool>(),
        one_to_one in any::<bool>(),
    ) {
        let q = if optional { "?" } else { "" };
        let src = if one_to_one {
            format!("entity {p} {{ name: string }}\nentity {c} {{ v: int32 }}\nrelation {p}.item: one{q} <-> {c}.owner: one\n")
        } else {
            format!("entity {p} {{ name: string }}\nentity {c} {{ v: int32 }}\nrelation {p}.items: squillions <-> {c}.owner: one{q}\n")
        };
        let plan = plan(&src);
        let field = if one_to_one {
            plan.collections.iter().find(|x| x.entity == p).unwrap().field("item").unwrap().clone()
        } else {
            plan.collections.iter().find(|x| x.entity == c).unwrap().field("owner").unwrap().clone()
        };
        prop_assert_eq!(field.optional, optional);
    }
}

fn plan_of_growing(src: &str, id: &str) -> Layout {
    plan(src).relationship(id).unwrap().strategy
}

#[test]
fn pattern_fields_can_be_queried_and_use_the_pattern_indexes() {
    let p = plan(
        "entity Category @tree { name: string @key }
         query subtree on Category { where ancestors == ? }
         query children on Category { where parent == ? sort name }
         entity Job @queue(priority: p) { p: int32 }
         query stale on Job { where in_progress == ? and started < ? }
         entity Doc @versioned(future) { body: string }
         query current on Doc { where document_id == ? and valid_to > ? }",
    );
    for q in &p.queries {
        assert!(q.index.is_some(), "query `{}` has no index", q.name);
        assert!(q.unstored.is_empty());
    }
    let subtree = p.queries.iter().find(|q| q.name == "subtree").unwrap();
    // The tree's own index on `ancestors`, extended with `_id` for the query's keyset pages.
    assert_eq!(subtree.index.as_deref(), Some("ancestors_1__id_1"));
    // A pattern field is a scalar: nothing to look into, and misspellings are suggested.
    assert_eq!(
        errors("entity C @tree { n: string }\nquery q on C { where parent.x == ? }"),
        ["E0503"]
    );
    assert_eq!(
        errors("entity C { n: string }\nquery q on C { where ancestors == ? }"),
        ["E0501"]
    );
}

#[test]
fn keep_names_the_childs_id_and_its_references() {
    let p = plan(
        "entity Host { name: string }
         entity User { name: string }
         entity LogMessage { time: date  message: string }
         relation Host.logmsgs: squillions <-> LogMessage.host: one {
           latest 5 by time desc keep id, time, user
         }
         relation User.logs: squillions <-> LogMessage.user: one {
           show User.name on LogMessage ratio 100:1
         }",
    );
    let hosts = p.collection("hosts").unwrap();
    let copy = hosts.field("logmsgs").unwrap();
    let names: Vec<&str> = copy.children.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["_id", "time", "user"]);
    // The kept reference has the shape the child stores: extended with the user's name.
    let user = &copy.children[2];
    assert_eq!(user.bson_type, "object");
    assert!(user.children.iter().any(|f| f.name == "name"));
    // The copy is not where User.logs is stored: no index is built on it to list a User's
    // messages. The only index on it finds the copies when a User's name changes.
    let on_copy: Vec<&[String]> = hosts.indexes.iter().map(|i| i.reasons.as_slice()).collect();
    assert_eq!(hosts.indexes.len(), 1, "{on_copy:?}");
    assert_eq!(hosts.indexes[0].keys[0].path, "logmsgs.user.id");
    assert!(
        hosts.indexes[0]
            .reasons
            .iter()
            .all(|r| r.starts_with("fan-out (User.logs)")),
        "{on_copy:?}"
    );
    assert_eq!(
        errors(
            "entity H { n: string }\nentity M { t: date }\nentity U { n: string }\n\
             relation H.ms: squillions <-> M.h: one { latest 5 by t keep t, users }\n\
             relation U.ms: squillions <-> M.u: one"
        ),
        ["E0407"]
    );
}

#[test]
fn misuse_of_the_new_constructs_is_coded() {
    let two = |card: &str, body: &str| {
        format!("entity A {{ x: string }}\nentity B {{ v: int32  d: date  m: decimal128 }}\nrelation A.bs: {card} <-> B.a: one {{ {body} }}\n")
    };
    // `?` only on `one`.
    assert_eq!(errors(&two("few?", "")), ["E0404"]);
    // An outlier threshold needs a typical count, at least that many, and fewer than the bound.
    assert_eq!(errors(&two("many(1000, embed 100)", "")), ["E0404"]);
    assert_eq!(
        errors(&two("many(1000, typical 50, embed 10)", "")),
        ["E0404"]
    );
    assert_eq!(
        errors(&two("many(100, typical 50, embed 100)", "")),
        ["E0404"]
    );
    // `avg` of a date or a decimal: no float mean.
    assert_eq!(errors(&two("squillions", "summary avg(d)")), ["E0412"]);
    assert_eq!(errors(&two("squillions", "summary avg(m)")), ["E0412"]);
    // `growth static` with children that keep arriving.
    assert_eq!(
        errors(&two("squillions", "growth static, append_heavy")),
        ["E0417"]
    );
    // `@static` documents are never written: not a queue, not versioned.
    assert_eq!(
        errors("entity J @static @queue(priority: p) { p: int32 }"),
        ["E0315"]
    );
}

// ---- queries on a parent's children (`query q on Parent.end`) ----

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, .. ProptestConfig::default() })]

    /// A query on a parent's children never makes them standalone: without another reason they
    /// stay embedded where the bound allows it. When they have their own collection they hold
    /// their parent's reference (found by their parent, rule 6), never an id array in the
    /// parent, and the query is planned on the collection that holds them: the parent's (an
    /// array, found by `_id`, no index of its own), or the children's (the reference first in
    /// the query's index).
    #[test]
    fn children_queries_read_where_the_layout_keeps_the_children(
        (p, c) in pair(),
        bound in prop::sample::select(vec!["few(20)", "few", "many(1000)", "squillions"]),
        standalone in any::<bool>(),
        sorted in any::<bool>(),
    ) {
        let end = p.to_lowercase();
        let facts = if standalone { format!("{{ standalone {c} }}") } else { String::new() };
        let sort = if sorted { "sort score desc" } else { "" };
        let src = format!(
            "entity {p} {{ name: string }}\nentity {c} {{ score: int32 label: string }}\n\
             relation {p}.items: {bound} <-> {c}.{end}: one {facts}\n\
             query q on {p}.items {{ where score >= ? {sort} }}\n"
        );
        let plan = plan(&src);
        let d = &plan.relationships[0];
        let q = &plan.queries[0];
        let ch = q.children.as_ref().expect("a query on children");
        prop_assert_ne!(d.strategy, Layout::ParentRefs, "{}", src);
        if !standalone && bound.starts_with("few") {
            prop_assert_eq!(d.strategy, Layout::Embed, "{}", src);
        }
        match d.strategy {
            Layout::Embed => {
                prop_assert_eq!(ch.parent_path.as_str(), "_id");
                prop_assert_eq!(ch.array.as_deref(), Some("items"));
                prop_assert!(q.index.is_none(), "{}", src);
            }
            Layout::ChildRef | Layout::TwoWay => {
                prop_assert!(ch.array.is_none());
                let c = plan.collection(&q.collection).expect("the children's collection");
                let i = c.indexes.iter().find(|i| Some(&i.name) == q.index.as_ref());
                let first = i.and_then(|i| i.keys.first()).map(|k| k.path.as_str());
                prop_assert_eq!(first, Some(end.as_str()), "{}", src);
            }
            Layout::Bucket => prop_assert!(ch.array.is_some()),
            other => prop_assert!(false, "{other:?} for {src}"),
        }
        prop_assert!(q.unstored.is_empty(), "{}", src);
        prop_assert_eq!(q.conditions[0].path.as_str(), "score");
    }
}

#[test]
fn children_queries_report_bad_ends_and_paths() {
    let base = "entity P { t: string }\nentity U { n: string }\nentity C { v: int32 }\n\
                relation P.cs: few <-> C.p: one\nrelation U.cs: many <-> C.us: many\n";
    assert_eq!(
        errors(&format!("{base}query q on P.xs {{ where v > ? }}")),
        ["E0508"]
    );
    assert_eq!(
        errors(&format!("{base}query q on C.p {{ where t == ? }}")),
        ["E0509"]
    );
    assert_eq!(
        errors(&format!("{base}query q on U.cs {{ where v > ? }}")),
        ["E0509"]
    );
    assert_eq!(
        errors(&format!("{base}query q on P.cs {{ where v > ? sort p.t }}")),
        ["E0510"]
    );
    assert_eq!(
        errors(&format!("{base}query q on P.cs {{ where w > ? }}")),
        ["E0501"]
    );
    assert!(errors(&format!("{base}query q on P.cs {{ where v > ? sort v }}")).is_empty());
}
