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
