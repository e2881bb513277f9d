//! Every two-way relationship in generated code is linked by the derive: each array of
//! references the Plan places for a `two_way` layout carries `#[squillion(two_way(...))]`,
//! whatever the references hold (ids, or extended references with copies) and whatever the other
//! side holds (an id, an extended reference, an array of either). Without it the two sides are
//! plain fields that nothing keeps in agreement.
//!
//! The schemas: every copy placement (none, the array side, the other side, both) for a
//! one-to-many relation (required and optional) and a many-to-many one, the same of an entity
//! related to itself (a player's friends and the players whose friend it is: both arrays in one
//! struct, each linked, never a plain array that `push_` would write behind the other's back),
//! and every example.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{Plan, Shape};
use squillion_codegen::rust::{generate, RustSettings};

mod planned;
use planned::plan;

/// `(relation line, entities)` for each cardinality.
const CARDINALITIES: &[(&str, &str)] = &[
    (
        "relation Parent.children: many(40) <-> Child.parent: one {\n  standalone Child\n  navigate both\n",
        "required one-to-many",
    ),
    (
        "relation Parent.children: many(40) <-> Child.parent: one? {\n  standalone Child\n  navigate both\n",
        "optional one-to-many",
    ),
    (
        "relation Parent.children: few(5) <-> Child.parent: many(30) {\n  navigate both\n",
        "many-to-many",
    ),
];

/// The `show` lines for each copy placement.
const COPIES: &[(&[&str], &str)] = &[
    (&[], "no copies"),
    (
        &["show Child.label on Parent ratio 500:1"],
        "copies on the array side",
    ),
    (
        &["show Parent.label on Child ratio 500:1"],
        "copies on the other side",
    ),
    (
        &[
            "show Child.label on Parent ratio 500:1",
            "show Parent.label on Child ratio 500:1",
        ],
        "copies on both sides",
    ),
];

fn schema(relation: &str, shows: &[&str]) -> String {
    let mut s = String::from("entity Parent { label: string }\nentity Child { label: string }\n");
    s.push_str(relation);
    for show in shows {
        s.push_str("  ");
        s.push_str(show);
        s.push('\n');
    }
    s.push_str("}\n");
    s
}

/// The `#[squillion(...)]` attributes of field `field` of the struct stored in `collection`.
fn field_attrs(file: &syn::File, collection: &str, field: &str) -> Option<Vec<String>> {
    let needle = format!("collection = \"{collection}\"");
    file.items.iter().find_map(|item| {
        let syn::Item::Struct(s) = item else {
            return None;
        };
        let is_it = s.attrs.iter().any(|a| {
            a.path().is_ident("squillion")
                && a.meta
                    .require_list()
                    .is_ok_and(|l| l.tokens.to_string().contains(&needle))
        });
        if !is_it {
            return None;
        }
        let f = s
            .fields
            .iter()
            .find(|f| f.ident.as_ref().is_some_and(|i| i == field))?;
        Some(
            f.attrs
                .iter()
                .filter(|a| a.path().is_ident("squillion"))
                .filter_map(|a| a.meta.require_list().ok())
                .map(|l| l.tokens.to_string().replace(' ', ""))
                .collect(),
        )
    })
}

/// Every array a two-way decision places carries a `two_way` attribute naming the other side,
/// with `id`/`inverse_id` exactly where the references are extended ones. Returns how many
/// arrays were checked.
fn check(plan: &Plan, what: &str) -> usize {
    let code = generate(plan, &RustSettings::default());
    let file = syn::parse_file(&code).unwrap_or_else(|e| panic!("{what}: {e}\n{code}"));
    let mut checked = 0;
    for d in plan
        .relationships
        .iter()
        .filter(|d| d.strategy == Layout::TwoWay)
    {
        for p in &d.placement {
            if !matches!(p.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs) {
                continue;
            }
            let other = d
                .placement
                .iter()
                .find(|o| o.collection != p.collection || o.path != p.path)
                .unwrap_or_else(|| panic!("{what}: {} has one side", d.id));
            let attrs = field_attrs(&file, &p.collection, &p.path)
                .unwrap_or_else(|| panic!("{what}: no field {}.{}\n{code}", p.collection, p.path));
            let two_way = attrs
                .iter()
                .find(|a| a.starts_with("two_way("))
                .unwrap_or_else(|| {
                    panic!(
                        "{what}: {}.{} ({:?}, other side {:?}) is not linked: {attrs:?}",
                        p.collection, p.path, p.shape, other.shape
                    )
                });
            assert!(
                two_way.contains(&format!("inverse=\"{}\"", other.path)),
                "{what}: {two_way}"
            );
            let extended = p.shape == Shape::ArrayOfExtendedRefs;
            assert_eq!(
                two_way.contains(",id=\"id\""),
                extended,
                "{what}: {two_way}"
            );
            let other_extended =
                matches!(other.shape, Shape::ExtendedRef | Shape::ArrayOfExtendedRefs);
            assert_eq!(
                two_way.contains("inverse_id=\"id\""),
                other_extended,
                "{what}: {two_way}"
            );
            let many = matches!(other.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs);
            assert_eq!(two_way.contains("inverse_max="), many, "{what}: {two_way}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_two_way_array_is_linked_whatever_its_references_hold() {
    let mut shapes = std::collections::BTreeSet::new();
    for (relation, cardinality) in CARDINALITIES {
        for (shows, copies) in COPIES {
            let what = format!("{cardinality}, {copies}");
            let plan = plan(&schema(relation, shows));
            let d = &plan.relationships[0];
            assert_eq!(d.strategy, Layout::TwoWay, "{what}: chose {:?}", d.strategy);
            let n = check(&plan, &what);
            let want = if cardinality.starts_with("many") {
                2
            } else {
                1
            };
            assert_eq!(n, want, "{what}: arrays linked");
            let pair: Vec<String> = d
                .placement
                .iter()
                .map(|p| format!("{:?}", p.shape))
                .collect();
            shapes.insert(pair.join(" <-> "));
        }
    }
    // Every pairing of ids and extended references was met.
    assert!(shapes.len() >= 8, "{shapes:?}");
}

/// An entity related to itself: both arrays of a many-to-many sit in one struct, and each is
/// linked (`link_friends` and `link_friend_of` write both), whatever the bounds and copies.
#[test]
fn both_arrays_of_a_relation_to_itself_are_linked() {
    let mut checked = 0;
    for (left, right) in [
        ("many(500)", "many(500)"),
        ("few(50)", "many(3000)"),
        ("many(2000)", "few(10)"),
    ] {
        for show in [
            "",
            "show Player.name on Player ratio 100:1",
            "show Player.name, Player.rank on Player",
        ] {
            for (name, inverse) in [("friends", "friend_of"), ("follows", "followers")] {
                let src = format!(
                    "entity Player {{ name: string  rank: int32 @immutable }}\n\
                     relation Player.{name}: {left} <-> Player.{inverse}: {right} {{\n  navigate both\n  {show}\n}}\n"
                );
                let what = format!("self {left} <-> {right}, [{show}]");
                let plan = plan(&src);
                assert_eq!(plan.relationships[0].strategy, Layout::TwoWay, "{what}");
                assert_eq!(check(&plan, &what), 2, "{what}: arrays linked");
                // Neither array is written as a plain embedded one.
                let code = generate(&plan, &RustSettings::default());
                let file = syn::parse_file(&code).unwrap();
                for f in [name, inverse] {
                    let attrs = field_attrs(&file, "players", f).unwrap();
                    assert!(
                        !attrs.iter().any(|a| a.starts_with("embed")),
                        "{what}: {f} {attrs:?}"
                    );
                    assert!(
                        !code.contains(&format!("`push_{f}`")),
                        "{what}: push_{f} listed"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 18);
}

#[test]
fn every_example_links_its_two_way_arrays() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "examples/generated/schemas"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "sqn") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        checked += check(&plan(&text), &f.display().to_string());
    }
    assert!(checked > 0, "no example has a two-way relationship");
}
