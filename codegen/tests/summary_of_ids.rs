//! `summary count` of a relationship whose ids sit in an array (`one_way`, `parent_refs`: a
//! user's `following`): the Plan says the count is kept on every write, so the generated field
//! carries `computed(count, of = <array>)`, which the derive accepts on a `parent_refs` array and
//! recomputes after each `add_` and `remove_` (tested against the server in
//! tests/derive_holders.rs). It was marked `maintained`, with nothing maintaining it: the count
//! stayed 0. Over entity and end names, bounds, and self relations.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::rust::{generate, RustSettings};

mod planned;
use planned::{decision, plan};

const PAIRS: &[(&str, &str)] = &[
    ("User", "User"),
    ("Account", "Account"),
    ("Student", "Course"),
    ("Article", "Tag"),
    ("Player", "Team"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn the_count_of_an_id_array_is_computed_from_it(
        (a, b) in prop::sample::select(PAIRS),
        small in 2u64..5000,
        (ends, many_to_many) in prop::sample::select(&[(("following", "followers"), true), (("members", "groups"), true), (("items", "owner"), false)][..]),
    ) {
        let (af, bf) = ends;
        let (ca, cb) = if many_to_many {
            (format!("many({small})"), "squillions".to_owned())
        } else {
            (format!("many({small})"), "one".to_owned())
        };
        let b_decl = if a == b { String::new() } else { format!("entity {b} {{ title: string }}\n") };
        // A one-to-many reaches parent_refs when the child is read alone and not found by parent.
        let body = if many_to_many { "summary count".to_owned() } else { format!("standalone {b}\n  summary count") };
        let src = format!(
            "entity {a} {{ name: string }}\n{b_decl}relation {a}.{af}: {ca} <-> {b}.{bf}: {cb} {{\n  {body}\n}}\n"
        );
        let plan = plan(&src);
        let d = decision(&plan, &format!("{a}.{af}"));
        prop_assume!(matches!(d.strategy, Layout::OneWay | Layout::ParentRefs));
        let code = generate(&plan, &RustSettings::default());
        prop_assert!(
            code.contains(&format!("#[squillion(computed(count, of = {af}))]")),
            "{}_count is not computed from `{}`:\n{}", af, af, src
        );
        // The derive accepted it: the repository's methods are listed from its expansion.
        let repo = format!("{a}Repo::new(&db)");
        prop_assert!(code.contains(&repo), "{}", src);
        prop_assert!(code.contains(&format!("`add_{af}`")), "no add_{} listed:\n{}", af, src);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    /// W129: a many-to-many's summaries that no generated write keeps are reported, each named,
    /// and only those: everything but the `count` of an array of ids (`one_way`, `parent_refs`).
    /// Over bounds that give two_way, one_way and link collections, with and without fields of the
    /// relationship, and every subset of summaries.
    #[test]
    fn summaries_no_write_keeps_are_reported(
        (a, b) in prop::sample::select(&[("Playlist", "Song"), ("Student", "Course"), ("User", "Group")][..]),
        left in prop_oneof![Just("few(5)".to_owned()), Just("many(40)".to_owned()), Just("many(3000)".to_owned())],
        right in prop_oneof![Just("few(8)".to_owned()), Just("many(4000)".to_owned()), Just("squillions".to_owned())],
        with_fields in any::<bool>(),
        sums in prop::sample::subsequence(vec!["count", "total(n)", "max(n)", "min(n)"], 1..4),
    ) {
        let (af, bf) = ("links", "linked");
        let fields = if with_fields { "fields { since: date }" } else { "" };
        let src = format!(
            "entity {a} {{ name: string }}\nentity {b} {{ title: string  n: int32 }}\n\
             relation {a}.{af}: {left} <-> {b}.{bf}: {right} {{\n  summary {}\n  {fields}\n}}\n",
            sums.join(", ")
        );
        let plan = plan(&src);
        let d = decision(&plan, &format!("{a}.{af}"));
        let ids = matches!(d.strategy, Layout::OneWay | Layout::ParentRefs)
            && d.placement.iter().any(|p| p.shape == squillion_codegen::plan::Shape::ArrayOfIds);
        let unkept: Vec<&str> = sums.iter().copied().filter(|s| !(ids && *s == "count")).collect();
        let w = plan.warnings.iter().find(|w| w.code == "W129");
        // The plan's costs never claim a write keeps what W129 says no write keeps.
        for o in d.obligations.iter().filter(|o| o.contains("_count`") || o.contains("_total`") || o.contains("_max`") || o.contains("_min`")) {
            let claims = o.contains("updates the") || o.contains("recomputes");
            let kept = ids && o.contains("_count`");
            prop_assert_eq!(claims, kept, "{}\n{}", o, src);
        }
        if unkept.is_empty() {
            prop_assert!(w.is_none(), "{:?}\n{}", w, src);
        } else {
            let w = w.unwrap_or_else(|| panic!("no W129 ({})\n{src}", d.strategy.as_str()));
            for s in &sums {
                let named = w.message.contains(&format!("`{s}`"));
                prop_assert_eq!(named, unkept.contains(s), "{}: {}\n{}", s, w.message, src);
            }
        }
    }
}
