//! Enumerations (`one_of(...)`) for any list of strings: either the file is refused with E0324
//! (a value listed twice, or two values with one Rust variant name), or the generated Rust has an
//! enum whose variants are distinct valid identifiers, each renamed by serde to exactly its value,
//! in the order listed, and the validator lists exactly these values. The server test
//! `examples/generated/tests/enums.rs` round-trips the values of a generated enum through BSON.

use std::collections::BTreeSet;

use proptest::prelude::*;
use squillion_codegen::rust::{generate, RustSettings};
use squillion_grammar::SourceFile;

/// `text` as a `.sqn` string literal.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Values as people write them (words, case, punctuation, digits first), and any text at all.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z][a-z0-9]{0,6}",
        "[a-z0-9]{1,3}[ _.-][a-zA-Z0-9]{1,3}",
        Just("Self".to_owned()),
        Just(String::new()),
        "\\PC{0,6}",
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

/// The enum `name` of a generated file: each variant with its `#[serde(rename = ...)]`.
fn variants(file: &syn::File, name: &str) -> Option<Vec<(String, String)>> {
    file.items.iter().find_map(|item| match item {
        syn::Item::Enum(e) if e.ident == name => Some(
            e.variants
                .iter()
                .map(|v| {
                    let rename = v
                        .attrs
                        .iter()
                        .filter(|a| a.path().is_ident("serde"))
                        .find_map(|a| {
                            let mut found = None;
                            let _ = a.parse_nested_meta(|m| {
                                if m.path.is_ident("rename") {
                                    let s: syn::LitStr = m.value()?.parse()?;
                                    found = Some(s.value());
                                }
                                Ok(())
                            });
                            found
                        })
                        .unwrap_or_default();
                    (v.ident.to_string(), rename)
                })
                .collect(),
        ),
        _ => None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_values_give_a_valid_enum_or_e0324(values in prop::collection::vec(value(), 1..6)) {
        let list: Vec<String> = values.iter().map(|v| literal(v)).collect();
        let text = format!("entity Order {{ status: one_of({}) }}", list.join(", "));
        let source = SourceFile::new("enums.sqn", &text);
        let distinct: BTreeSet<&String> = values.iter().collect();
        match squillion_codegen::load(&source) {
            Err(errors) => {
                prop_assert!(errors.iter().all(|d| d.code == "E0324"), "{errors:?}");
                if distinct.len() == values.len() {
                    // Refused although every value is distinct: two share a Rust variant.
                    prop_assert!(
                        errors.iter().any(|d| d.message.contains("would both be the variant")),
                        "{errors:?}"
                    );
                }
            }
            Ok(checked) => {
                prop_assert_eq!(distinct.len(), values.len(), "a repeated value was accepted");
                let plan = squillion_codegen::engine::plan(&checked.model, &source);
                let code = generate(&plan, &RustSettings::default());
                let file = syn::parse_file(&code).map_err(|e| TestCaseError::fail(format!("{e}\n{code}")))?;
                let got = variants(&file, "OrderStatus")
                    .ok_or_else(|| TestCaseError::fail(format!("no enum OrderStatus in\n{code}")))?;
                let renames: Vec<&String> = got.iter().map(|(_, r)| r).collect();
                prop_assert_eq!(renames, values.iter().collect::<Vec<_>>());
                let idents: BTreeSet<&String> = got.iter().map(|(v, _)| v).collect();
                prop_assert_eq!(idents.len(), values.len(), "variants not distinct: {:?}", got);
                for (ident, _) in &got {
                    prop_assert!(
                        ident.chars().all(|c| c.is_ascii_alphanumeric())
                            && ident.starts_with(|c: char| c.is_ascii_uppercase()),
                        "variant {ident} is not an ASCII PascalCase name"
                    );
                }
                let orders = plan.collections.iter().find(|c| c.entity == "Order").unwrap();
                let schema = squillion_codegen::validator::document_schema(orders);
                let listed = &schema["properties"]["status"]["enum"];
                prop_assert_eq!(listed, &serde_json::json!(values));
            }
        }
    }
}

/// Values listed twice, numbers and names are refused wherever the enumeration is (a field, an
/// array's elements, a map's values, a value type's field), each at the value's place.
#[test]
fn bad_lists_are_refused_in_every_position() {
    let lists = [
        ("one_of()", "lists no values"),
        ("one_of(\"a\", \"a\")", "lists \"a\" twice"),
        ("one_of(\"a\", 3)", "`3` is a number"),
        ("one_of(a)", "`a` is a name"),
        ("one_of(\"a b\", \"a-b\")", "would both be the variant `AB`"),
    ];
    for (list, message) in lists {
        for shape in ["{}", "{}?", "[{}; 3]", "map<{}>"] {
            let ty = shape.replace("{}", list);
            for text in [
                format!("entity A {{ e: {ty} }}"),
                format!("value V {{ e: {ty} }}\nentity A {{ v: V }}"),
            ] {
                let source = SourceFile::new("bad.sqn", &text);
                let errors = match squillion_codegen::load(&source) {
                    Ok(_) => panic!("accepted: {text}"),
                    Err(errors) => errors,
                };
                assert_eq!(errors.len(), 1, "{text}: {errors:?}");
                let d = &errors[0];
                assert_eq!(d.code, "E0324", "{text}");
                assert!(d.message.contains(message), "{text}: {}", d.message);
                assert!(d.help.is_some(), "{text}: no help");
                // The diagnostic points into the list.
                let at = text.find(list).unwrap();
                assert!(
                    d.span.start >= at && d.span.end <= at + list.len(),
                    "{text}: {:?} is outside {list}",
                    d.span
                );
            }
        }
    }
}
