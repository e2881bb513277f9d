//! W128: a `value` type that no stored field uses. A value exists only inside the documents whose
//! fields have its type; one that no entity, variant or relationship reaches, directly or through
//! other values, describes nothing the database holds, and nothing said so.
//!
//! Every place a value can be used (an entity's field, a variant's, a relationship's own
//! `fields`, a field of another value that is itself used) under every wrapping (optional, array,
//! array of optional elements, map, map of optional values, array of maps): no W128 when the
//! value is used there, and exactly the expected W128s, at each declaration's name, when the same
//! schema does not use it; a chain of values used from any link (or none) warns about exactly
//! the links above it.

mod planned;

use planned::plan;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::{Plan, Severity};
use squillion_grammar::SourceFile;

/// Where the schema uses the value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    /// A field of an entity.
    Entity,
    /// A field of one variant of a `@polymorphic` entity.
    Variant,
    /// A field of a relationship's own `fields { }`.
    RelationFields,
    /// A field of another value type that an entity's field uses.
    InsideValue,
}

const PLACES: [Place; 4] = [
    Place::Entity,
    Place::Variant,
    Place::RelationFields,
    Place::InsideValue,
];

/// How the field's type wraps the value: (type with `{}` for the value's name, field suffix).
const WRAPS: [(&str, &str); 8] = [
    ("{}", ""),
    ("{}", "?"),
    ("[{}; 5]", ""),
    ("[{}?; 5]", ""),
    ("map<{}; 4>", ""),
    ("map<{}?>", ""),
    ("[map<{}; 3>; 4]", "?"),
    ("map<[{}; 2]; 6>", ""),
];

/// How the schema leaves the value unused.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Use {
    /// The field has the value's type (wrapped).
    Used,
    /// The field is a `string` instead.
    NotUsed,
    /// For [`Place::InsideValue`]: the inner field uses the value, but no entity uses the outer
    /// value: both are unused.
    OuterNotUsed,
}

/// A schema where `place` holds a field of type `ty` (`string` when the value is not used
/// there), with a value `Stamp` always used elsewhere, which must never be reported.
fn schema(value: &str, place: Place, ty: &str, suffix: &str, outer_used: bool) -> String {
    let field = format!("spot: {ty}{suffix}");
    let mut src = format!("value {value} {{\n  lat: double\n  lng: double\n}}\n\n");
    src.push_str("value Stamp {\n  at: date\n}\n\n");
    let (holder_field, rel_field) = match place {
        Place::Entity => (field.clone(), "since: date".to_owned()),
        Place::Variant => (String::new(), "since: date".to_owned()),
        Place::RelationFields => (String::new(), field.clone()),
        Place::InsideValue => {
            src.push_str(&format!(
                "value Outer {{\n  label: string\n  {field}\n}}\n\n"
            ));
            let outer = if outer_used { "Outer" } else { "string" };
            (format!("outer: {outer}"), "since: date".to_owned())
        }
    };
    if place == Place::Variant {
        src.push_str(&format!(
            "entity Holder @polymorphic(discriminator: \"type\") {{\n  name: string\n  variant a {{\n    {field}\n  }}\n  variant b {{\n    size: int32\n  }}\n}}\n\n"
        ));
    } else {
        src.push_str(&format!(
            "entity Holder {{\n  name: string\n  {holder_field}\n}}\n\n"
        ));
    }
    src.push_str("entity Other {\n  made: Stamp\n}\n\n");
    src.push_str(&format!(
        "relation Holder.others: few(20) <-> Other.holders: many(300) {{\n  fields {{\n    {rel_field}\n  }}\n}}\n"
    ));
    src
}

/// The W128s of `p`: (line, column, message, help).
fn w128(p: &Plan) -> Vec<(usize, usize, String, String)> {
    p.warnings
        .iter()
        .filter(|w| w.code == "W128")
        .map(|w| {
            assert_eq!(w.severity, Severity::Warning, "{w:?}");
            (
                w.position.line,
                w.position.column,
                w.message.clone(),
                w.help.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Line and column (1-based) of the name in `value <name> {`.
fn declared_at(src: &str, name: &str) -> (usize, usize) {
    let decl = format!("value {name} {{");
    let line = src
        .lines()
        .position(|l| l.starts_with(&decl))
        .unwrap_or_else(|| panic!("no `{decl}` in\n{src}"));
    (line + 1, "value ".len() + 1)
}

#[test]
fn a_value_is_unused_exactly_when_no_stored_field_reaches_it() {
    let mut cases = 0;
    for value in ["Coord", "GeoSpot", "Address"] {
        for place in PLACES {
            for (wrap, suffix) in WRAPS {
                let uses: &[Use] = if place == Place::InsideValue {
                    &[Use::Used, Use::NotUsed, Use::OuterNotUsed]
                } else {
                    &[Use::Used, Use::NotUsed]
                };
                for &u in uses {
                    cases += 1;
                    let ty = match u {
                        Use::NotUsed => "string".to_owned(),
                        _ => wrap.replace("{}", value),
                    };
                    let src = schema(value, place, &ty, suffix, u != Use::OuterNotUsed);
                    let found = w128(&plan(&src));
                    let expected: Vec<&str> = match u {
                        Use::Used => vec![],
                        Use::NotUsed => vec![value],
                        Use::OuterNotUsed => vec![value, "Outer"],
                    };
                    let at: Vec<(usize, usize)> =
                        found.iter().map(|(l, c, _, _)| (*l, *c)).collect();
                    let expected_at: Vec<(usize, usize)> =
                        expected.iter().map(|v| declared_at(&src, v)).collect();
                    assert_eq!(at, expected_at, "{place:?} {u:?} `{ty}`\n{src}\n{found:#?}");
                    for ((_, _, message, help), name) in found.iter().zip(&expected) {
                        assert!(
                            message.contains(&format!("value type `{name}`")),
                            "{message}"
                        );
                        assert!(help.contains(&format!(": {name}`")), "{help}");
                        assert!(help.contains("remove it"), "{help}");
                    }
                    if u == Use::OuterNotUsed {
                        // The inner value says which unused value uses it.
                        assert!(
                            found[0].2.contains("used only by `Outer`"),
                            "{}",
                            found[0].2
                        );
                        assert!(found[1].2.contains("no field uses it"), "{}", found[1].2);
                    }
                }
            }
        }
    }
    assert_eq!(cases, 3 * 8 * (3 * 2 + 3));
}

/// A chain `V0 { next: V1 }`, `V1 { next: V2 }`, ... whose entity uses link `j` (or none): the
/// links from `j` down are used, the links above it are not, each said once, and each but the
/// first names the unused link that uses it.
#[test]
fn a_value_used_only_by_unused_values_is_unused_too() {
    for len in 1..=5usize {
        for root in (0..len).map(Some).chain([None]) {
            let mut src = String::new();
            for i in 0..len {
                let (wrap, suffix) = WRAPS[i % WRAPS.len()];
                let next = if i + 1 < len {
                    format!(
                        "next: {}{suffix}",
                        wrap.replace("{}", &format!("V{}", i + 1))
                    )
                } else {
                    "n: int32".to_owned()
                };
                src.push_str(&format!("value V{i} {{\n  {next}\n}}\n"));
            }
            let field = root.map_or("string".to_owned(), |j| format!("V{j}"));
            src.push_str(&format!("entity Root {{\n  top: {field}\n}}\n"));
            let found = w128(&plan(&src));
            let unused = root.unwrap_or(len);
            assert_eq!(found.len(), unused, "{src}\n{found:#?}");
            for (i, (line, column, message, _)) in found.iter().enumerate() {
                assert_eq!(
                    (*line, *column),
                    declared_at(&src, &format!("V{i}")),
                    "{src}"
                );
                if i == 0 {
                    assert!(message.contains("no field uses it"), "{message}");
                } else {
                    assert!(
                        message.contains(&format!("used only by `V{}`", i - 1)),
                        "{message}"
                    );
                }
            }
        }
    }
}

/// What the warning says is true: an unused value gets no Rust type, a used one does; following
/// the help (a field of its type) ends the warning.
#[test]
fn following_the_help_uses_the_value() {
    let src = "value Address {\n  street: string\n  city: string\n}\n\nentity Customer {\n  name: string\n}\n";
    let before = compile(
        &SourceFile::new("shop.sqn", src),
        &GenerateSettings::default(),
    )
    .unwrap();
    let w: Vec<_> = before
        .plan
        .warnings
        .iter()
        .filter(|w| w.code == "W128")
        .collect();
    assert_eq!(w.len(), 1, "{:#?}", before.plan.warnings);
    assert_eq!((w[0].position.line, w[0].position.column), (1, 7));
    let help = w[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("`address: Address`"), "{help}");
    assert!(!before.rust.contains("struct Address"), "{}", before.rust);

    let fixed = src.replace("name: string\n}", "name: string\n  address: Address\n}");
    let after = compile(
        &SourceFile::new("shop.sqn", fixed),
        &GenerateSettings::default(),
    )
    .unwrap();
    assert!(
        after.plan.warnings.iter().all(|w| w.code != "W128"),
        "{:#?}",
        after.plan.warnings
    );
    assert!(after.rust.contains("street"), "{}", after.rust);
}
