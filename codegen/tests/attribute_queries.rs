//! `where attrs has (k == ?, v <op> ?)` (issue 12): a query on one attribute of an `@attributes`
//! map. Resolution: every comparison against every value type (E0502 where it does not fit),
//! the key compared only with `==` (E0513), `has` only on a `map<T> @attributes` field of the
//! queried entity (E0512), and `attrs.colour` pointing to `has` (E0503). Plan: over generated
//! queries (other conditions, sorts, limits, a second attribute, other arrays), the query is
//! served by the attribute pattern's index (its keys first) and adds no index of its own, and no
//! index holds two arrays. Code: the method takes the key, then the value(s), typed, in the
//! order written, and sends `$elemMatch`. The server test is `correctness/tests/attributes.rs`.

use proptest::prelude::*;
use squillion_codegen::plan::Plan;
use squillion_codegen::rust::{generate, RustSettings};
use squillion_grammar::{Diagnostic, SourceFile};

/// The value types an `@attributes` map may have, the Rust type its parameters take (last path
/// segment) and whether the type is ordered (`<` and `between` fit it).
const TYPES: [(&str, &str, bool); 7] = [
    ("string", "str", true),
    ("int32", "i32", true),
    ("int64", "i64", true),
    ("double", "f64", true),
    ("bool", "bool", false),
    ("date", "DateTime", true),
    ("objectId", "ObjectId", true),
];

/// Every comparison of the language, and the parameters it takes after the key (suffixes).
const OPS: [(&str, &[&str]); 11] = [
    ("==", &["value"]),
    ("!=", &["value_not"]),
    ("<", &["value_below"]),
    ("<=", &["value_at_most"]),
    (">", &["value_above"]),
    (">=", &["value_at_least"]),
    ("between", &["value_from", "value_to"]),
    ("in", &["value_in"]),
    ("starts_with", &["value_prefix"]),
    ("near", &[]),
    ("within", &[]),
];

fn load(text: &str) -> Result<Plan, Vec<Diagnostic>> {
    let source = SourceFile::new("attrs.sqn", text);
    let checked = squillion_codegen::load(&source)?;
    Ok(squillion_codegen::engine::plan(&checked.model, &source))
}

fn codes(text: &str) -> Vec<&'static str> {
    match load(text) {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().filter(|d| d.is_error()).map(|d| d.code).collect(),
    }
}

fn errors(text: &str) -> Vec<Diagnostic> {
    load(text).err().unwrap_or_default()
}

/// Whether `v <op> ?` fits values of a type (ordered or not, a string or not).
fn fits(op: &str, ordered: bool, string: bool) -> bool {
    match op {
        "==" | "!=" | "in" => true,
        "<" | "<=" | ">" | ">=" | "between" => ordered,
        "starts_with" => string,
        _ => false,
    }
}

/// The parameters (name, last segment of the type) of method `name` in generated `code`.
fn params(code: &str, name: &str) -> Vec<(String, String)> {
    fn last(ty: &syn::Type) -> String {
        match ty {
            syn::Type::Reference(r) => last(&r.elem),
            syn::Type::Slice(s) => last(&s.elem),
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
    let file = syn::parse_file(code).unwrap_or_else(|e| panic!("{e}\n{code}"));
    let sig = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Impl(im) => Some(im),
            _ => None,
        })
        .flat_map(|im| im.items.iter())
        .find_map(|i| match i {
            syn::ImplItem::Fn(f) if f.sig.ident == name => Some(f.sig.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no method {name} in\n{code}"));
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some((i.ident.to_string(), last(&t.ty))),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every comparison of the value against every value type: accepted where it fits (and the
    /// method takes the key, then the value typed as the map's values), E0502 where it does not.
    #[test]
    fn the_value_comparison_must_fit_the_maps_value_type(
        ty in prop::sample::select(TYPES.to_vec()),
        op in prop::sample::select(OPS.to_vec()),
        optional in any::<bool>(),
    ) {
        let (sqn, rust, ordered) = ty;
        let (op, suffixes) = op;
        let q = if optional { "?" } else { "" };
        let text = format!(
            "entity P {{ sku: string attrs: map<{sqn}{q}> @attributes }}\n\
             query q on P {{ where attrs has (k == ?, v {op} ?) }}\n"
        );
        let want_ok = fits(op, ordered, sqn == "string");
        match load(&text) {
            Ok(plan) => {
                prop_assert!(want_ok, "accepted:\n{}", text);
                let code = generate(&plan, &RustSettings::default());
                let got = params(&code, "q");
                let mut expected = vec![("attrs_key".to_owned(), "str".to_owned())];
                for s in suffixes {
                    let t = match (*s, rust) {
                        ("value_prefix", _) => "str",
                        // `in` takes a slice of owned values.
                        ("value_in", "str") => "String",
                        _ => rust,
                    };
                    expected.push((format!("attrs_{s}"), t.to_owned()));
                }
                prop_assert_eq!(got, expected, "{}", code);
                prop_assert!(code.contains("\"$elemMatch\""), "{}", code);
            }
            Err(d) => {
                prop_assert!(!want_ok, "refused:\n{text}\n{d:?}");
                let codes: Vec<&str> = d.iter().map(|d| d.code).collect();
                prop_assert_eq!(codes, vec!["E0502"], "{}", text);
                prop_assert!(d[0].help.is_some());
                prop_assert_eq!(
                    &text[d[0].span.start..d[0].span.end],
                    format!("attrs has (k == ?, v {op} ?)")
                );
            }
        }
    }

    /// The key names the attribute: any comparison of it but `==` is E0513, at `k <op> ?`.
    #[test]
    fn the_key_is_compared_with_equality_only(
        op in prop::sample::select(OPS.iter().map(|o| o.0).filter(|o| *o != "==").collect::<Vec<_>>()),
    ) {
        let text = format!(
            "entity P {{ attrs: map<string> @attributes }}\n\
             query q on P {{ where attrs has (k {op} ?, v == ?) }}\n"
        );
        let d = errors(&text);
        prop_assert_eq!(d.len(), 1, "{:?}", d);
        prop_assert_eq!(d[0].code, "E0513");
        prop_assert_eq!(&text[d[0].span.start..d[0].span.end], format!("k {op} ?"));
        prop_assert!(d[0].help.as_deref().is_some_and(|h| h.contains("k == ?")));
    }
}

#[test]
fn has_reads_only_an_attributes_map_of_the_queried_entity() {
    let with = |field: &str, path: &str| {
        format!(
            "entity Author {{ name: string attrs: map<string> @attributes }}\n\
             value Spec {{ attrs: map<string> }}\n\
             entity P {{ sku: string {field} }}\n\
             relation Author.books: many(100) <-> P.author: one {{ show Author.name on P ratio 10:1 }}\n\
             query q on P {{ where {path} has (k == ?, v == ?) }}\n"
        )
    };
    // A plain map: add `@attributes`.
    let d = errors(&with("attrs: map<string>", "attrs"));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, "E0512");
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("attrs: map<string> @attributes"), "{help}");
    // A scalar, a value type's map, a map across a relation, `_id`, a relation end.
    for (field, path) in [
        ("attrs: string", "attrs"),
        ("attrs: [string]", "attrs"),
        ("spec: Spec", "spec.attrs"),
        ("attrs: map<string> @attributes", "author.attrs"),
        ("attrs: map<string> @attributes", "_id"),
        ("attrs: map<string> @attributes", "author"),
    ] {
        let d = errors(&with(field, path));
        let codes: Vec<&str> = d.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E0512"], "{field} / {path}: {d:?}");
        assert!(d[0].help.is_some());
    }
    // An unknown field: E0501, with the closest name.
    assert_eq!(
        codes(&with("attrs: map<string> @attributes", "atrs")),
        ["E0501"]
    );
}

#[test]
fn a_key_of_an_attributes_map_in_a_path_points_to_has() {
    let d = errors(
        "entity P { attrs: map<string> @attributes }\nquery q on P { where attrs.colour == ? }\n",
    );
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, "E0503");
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(
        help.contains("attrs has (k == ?, v == ?)") && help.contains("\"colour\""),
        "{help}"
    );
    // A plain map: mark it `@attributes`, then `has`.
    let d = errors("entity P { m: map<string> }\nquery q on P { where m.colour == ? }\n");
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(
        help.contains("@attributes") && help.contains("has ("),
        "{help}"
    );
}

/// One generated query: what it combines with its `has`.
#[derive(Debug, Clone)]
struct Shape {
    ty: &'static str,
    value_op: &'static str,
    has_first: bool,
    other_eq: bool,
    other_range: bool,
    other_array: bool,
    second_has: bool,
    other_map: bool,
    sort: Option<&'static str>,
    limit: Option<u32>,
    returns: bool,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        prop::sample::select(vec!["string", "int32", "double", "date", "bool"]),
        prop::sample::select(vec!["==", "!=", "<", ">=", "between", "in"]),
        any::<[bool; 7]>(),
        prop::sample::select(vec![None, Some("sku"), Some("price"), Some("sku desc")]),
        prop::sample::select(vec![None, Some(1), Some(20)]),
    )
        .prop_map(|(ty, value_op, b, sort, limit)| Shape {
            ty,
            // `bool` has no order: its attributes are compared by equality.
            value_op: if ty == "bool" { "==" } else { value_op },
            has_first: b[0],
            other_eq: b[1],
            other_range: b[2],
            other_array: b[3],
            second_has: b[4],
            other_map: b[5],
            sort,
            limit,
            returns: b[6],
        })
}

/// The schema, with or without the query.
fn schema(s: &Shape, with_query: bool) -> String {
    let mut text = format!(
        "entity P {{\n  sku: string\n  brand: string\n  price: double\n  tags: [string; 10]\n  \
         attrs: map<{}> @attributes\n  specs: map<int32> @attributes\n}}\n",
        s.ty
    );
    if !with_query {
        return text;
    }
    let has = format!("attrs has (k == ?, v {} ?)", s.value_op);
    let mut conds = Vec::new();
    if s.other_eq {
        conds.push("brand == ?".to_owned());
    }
    if s.other_range {
        conds.push("price < ?".to_owned());
    }
    if s.other_array {
        conds.push("tags == ?".to_owned());
    }
    if s.other_map {
        conds.push("specs has (k == ?, v > ?)".to_owned());
    }
    if s.has_first {
        conds.insert(0, has);
    } else {
        conds.push(has);
    }
    if s.second_has {
        conds.push("attrs has (k == ?, v == ?)".to_owned());
    }
    text.push_str(&format!(
        "query q on P {{\n  where {}\n",
        conds.join(" and ")
    ));
    if let Some(sort) = s.sort {
        text.push_str(&format!("  sort {sort}\n"));
    }
    if let Some(n) = s.limit {
        text.push_str(&format!("  limit {n}\n"));
    }
    if s.returns {
        text.push_str("  returns sku, attrs\n");
    }
    text.push_str("}\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Whatever the query combines with `has`, it is served by one index that starts with the
    /// attribute pattern's keys and carries the pattern's reason (the pattern's index, extended
    /// where the query needs more keys), the collection has as many indexes as without the
    /// query, and no index holds two arrays (MongoDB refuses to index parallel arrays).
    #[test]
    fn a_has_query_is_served_by_the_pattern_index_and_adds_none(s in shape()) {
        let with = schema(&s, true);
        let plan = load(&with).map_err(|d| TestCaseError::fail(format!("{with}\n{d:?}")))?;
        let without = load(&schema(&s, false)).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
        let c = plan.collection("ps").ok_or_else(|| TestCaseError::fail("no ps"))?;
        let c0 = without.collection("ps").ok_or_else(|| TestCaseError::fail("no ps"))?;
        prop_assert_eq!(c.indexes.len(), c0.indexes.len(), "{}\n{:#?}", with, c.indexes);
        // The first `has` written chooses the index; each map's pattern index is there once.
        let first_map = if s.has_first || !s.other_map { "attrs" } else { "specs" };
        for m in ["attrs", "specs"] {
            let on_map = c
                .indexes
                .iter()
                .filter(|i| i.keys.iter().any(|k| k.path == format!("{m}.k")))
                .count();
            prop_assert_eq!(on_map, 1, "{}\n{:#?}", with, c.indexes);
        }
        let q = &plan.queries[0];
        let index = c
            .indexes
            .iter()
            .find(|i| Some(&i.name) == q.index.as_ref())
            .ok_or_else(|| TestCaseError::fail(format!("q has no index:\n{with}\n{q:#?}")))?;
        let first: Vec<&str> = index.keys.iter().take(2).map(|k| k.path.as_str()).collect();
        prop_assert_eq!(first, vec![format!("{first_map}.k"), format!("{first_map}.v")], "{}", with);
        prop_assert!(index.reasons.iter().any(|r| r.starts_with("attribute pattern")), "{:?}", index.reasons);
        prop_assert!(index.multikey);
        // Without other keys, the index is the pattern's own, unchanged.
        let alone = !s.other_eq && !s.other_range && s.sort.is_none() && s.limit.is_some();
        if alone {
            prop_assert_eq!(index.keys.len(), 2, "{}\n{:?}", with, index.keys);
        }
        for i in &c.indexes {
            let mut arrays: Vec<&str> = i
                .keys
                .iter()
                .filter_map(|k| k.path.split('.').next())
                .filter(|root| ["attrs", "specs", "tags"].contains(root))
                .collect();
            arrays.dedup();
            prop_assert!(arrays.len() <= 1, "parallel arrays in {:?}\n{}", i.keys, with);
        }
        // The method: the key, then the value(s), where the condition is written.
        let code = generate(&plan, &RustSettings::default());
        let got = params(&code, "q");
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        let key = names.iter().position(|n| *n == "attrs_key");
        prop_assert!(key.is_some(), "{:?}\n{}", names, code);
        let key = key.unwrap_or_default();
        let alone_in_where = !(s.other_eq || s.other_range || s.other_array || s.other_map);
        prop_assert_eq!(key == 0, s.has_first || alone_in_where, "{:?}", names);
        prop_assert!(names[key + 1].starts_with("attrs_value"), "{:?}", names);
        prop_assert_eq!(got[key].1.as_str(), "str");
        prop_assert!(code.contains("\"$elemMatch\""));
        if s.second_has {
            prop_assert!(code.contains("\"$all\""), "{}", code);
        }
    }
}
