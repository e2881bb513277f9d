//! Queries comparing an enumeration field (`one_of(...)`) take the generated enum, not a string,
//! for every comparison an enumeration has (`==`, `!=`, `in`) and wherever the field is: at the
//! top level, optional, inside a value type, in an array. The method's parameters are checked in
//! the generated code (parsed with `syn`) against the enums the same file defines. An ordered
//! comparison (`<`, `between`, ...) on an enumeration is refused (E0502): the server would order
//! the stored texts alphabetically, not as `one_of` lists them. The server tests
//! `examples/generated/tests/enums.rs` (catalog) and the modelcheck batch (enumerations of every
//! spelling) run such queries.

use proptest::prelude::*;
use squillion_codegen::rust::{generate, RustSettings};
use squillion_grammar::SourceFile;

/// Where the enumeration field sits, and the path a query writes to reach it.
const PLACES: [(&str, &str); 4] = [
    ("state: one_of(\"new\", \"paid\", \"in-transit\")", "state"),
    ("state: one_of(\"new\", \"paid\")?", "state"),
    ("box: Box", "box.state"),
    ("tags: [one_of(\"gift\", \"express\"); 4]", "tags"),
];

/// The comparisons an enumeration has.
const OPS: [&str; 3] = ["==", "!=", "in"];

/// The ordered comparisons, which an enumeration has not.
const ORDERED: [&str; 5] = ["<", "<=", ">", ">=", "between"];

fn schema(field: &str, path: &str, op: &str, other: &str) -> String {
    format!(
        "value Box {{ state: one_of(\"open\", \"shut\") }}\n\
         entity Parcel {{\n  code: string\n  {field}\n}}\n\
         query parcels on Parcel {{ where {path} {op} ?{other} }}\n"
    )
}

/// The last segment of a parameter's type, under `&` and `&[...]`.
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Slice(s) => type_name(&s.elem),
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_compared_enumeration_is_a_parameter_of_its_enum_type(
        place in prop::sample::select(PLACES.to_vec()),
        op in prop::sample::select(OPS.to_vec()),
        with_other in any::<bool>(),
    ) {
        let (field, path) = place;
        let other = if with_other { " and code == ?" } else { "" };
        let text = schema(field, path, op, other);
        let source = SourceFile::new("enum_queries.sqn", &text);
        let checked = squillion_codegen::load(&source)
            .map_err(|e| TestCaseError::fail(format!("{text}\n{e:?}")))?;
        let plan = squillion_codegen::engine::plan(&checked.model, &source);
        let code = generate(&plan, &RustSettings::default());
        let file = syn::parse_file(&code).map_err(|e| TestCaseError::fail(format!("{e}\n{code}")))?;
        let enums: Vec<String> = file
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Enum(e) => Some(e.ident.to_string()),
                _ => None,
            })
            .collect();
        let method = file
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Impl(im) => Some(im),
                _ => None,
            })
            .flat_map(|im| im.items.iter())
            .find_map(|i| match i {
                syn::ImplItem::Fn(f) if f.sig.ident == "parcels" => Some(f.sig.clone()),
                _ => None,
            })
            .ok_or_else(|| TestCaseError::fail(format!("no method parcels in\n{code}")))?;
        let params: Vec<(String, Option<String>)> = method
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => {
                    let name = match &*t.pat {
                        syn::Pat::Ident(i) => i.ident.to_string(),
                        _ => String::new(),
                    };
                    Some((name, type_name(&t.ty)))
                }
                _ => None,
            })
            .collect();
        let base = path.replace('.', "_");
        let compared: Vec<&(String, Option<String>)> =
            params.iter().filter(|(n, _)| n.starts_with(&base)).collect();
        prop_assert!(!compared.is_empty(), "{params:?}\n{code}");
        for (name, ty) in compared {
            let ty = ty.clone().unwrap_or_default();
            prop_assert!(enums.contains(&ty), "{name}: {ty} is not one of the enums {enums:?}\n{code}");
        }
        if with_other {
            let code_param = params.iter().find(|(n, _)| n == "code");
            prop_assert_eq!(code_param.and_then(|(_, t)| t.clone()), Some("str".to_owned()));
        }
    }

    #[test]
    fn an_ordered_comparison_of_an_enumeration_is_refused(
        place in prop::sample::select(PLACES.to_vec()),
        op in prop::sample::select(ORDERED.to_vec()),
    ) {
        let (field, path) = place;
        let text = schema(field, path, op, "");
        let source = SourceFile::new("enum_queries.sqn", &text);
        let Err(diagnostics) = squillion_codegen::load(&source) else {
            return Err(TestCaseError::fail(format!("accepted:\n{text}")));
        };
        let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
        prop_assert_eq!(codes, vec!["E0502"], "{}", text);
        prop_assert!(diagnostics[0].message.contains("enumeration"), "{:?}", diagnostics[0]);
        prop_assert!(diagnostics[0].help.as_deref().is_some_and(|h| h.contains("`in`")));
    }
}
