//! The names `#[derive(Document)]` gives what it writes, for tools that generate code beside it
//! and must not clash with it (squillion's code generator checks the names of query methods
//! against them before it writes them on the same repository).

/// The repository type the derive writes for a document type named `name`.
pub fn repository(name: &str) -> String {
    format!("{name}Repo")
}

/// The methods of every repository.
pub const REPOSITORY_METHODS: &[&str] = &[
    "new",
    "with_collection",
    "core",
    "collection",
    "insert",
    "insert_many",
    "get",
    "replace",
    "delete",
    "find",
    "count",
    "ensure_indexes",
    "ensure_validator",
];

/// The methods the layout `layout` (the attribute's name: `embed`, `parent_refs`, ..., and
/// `fan_out`) adds for a field `f`, as `(prefix, suffix)`: `prefix_f_suffix`, an empty part left
/// out with its `_` ([`field_method`]). A bounded array without a layout is embedded.
pub fn layout_methods(layout: &str) -> &'static [(&'static str, &'static str)] {
    match layout {
        "embed" => &[("push", ""), ("remove", ""), ("pull", ""), ("set", "")],
        "parent_refs" => &[
            ("add", ""),
            ("remove", ""),
            ("load", ""),
            ("load", "projected"),
        ],
        // `parent_refs(.., find_by)` adds these to an array of ids (the holders of an id).
        "child_ref" | "find_by" => &[("find_by", ""), ("count_by", "")],
        "two_way" => &[
            ("link", ""),
            ("unlink", ""),
            ("load", ""),
            ("load", "projected"),
        ],
        "subset" => &[
            ("push", ""),
            ("replace", ""),
            ("remove", ""),
            ("refill", ""),
        ],
        "top" => &[
            ("offer", ""),
            ("push", ""),
            ("replace", ""),
            ("remove", ""),
            ("refill", ""),
        ],
        "bucket" => &[
            ("append", ""),
            ("", "bucket"),
            ("", "buckets"),
            ("", "between"),
        ],
        "outlier" => &[("push", ""), ("all", ""), ("get_with", "")],
        "fan_out" => &[("set", "")],
        "counters" => &[("inc", "")],
        _ => &[],
    }
}

/// The `#[squillion(...)]` field attributes that leave a field's value to the application: a
/// field carrying only these (or none) gets a plain setter `set_<f>`. Every other attribute names
/// a layout, a summary or a copy whose own operations keep the stored value right.
pub const PLAIN_FIELD_ATTRS: &[&str] = &[
    "child_ref",
    "index",
    "unique",
    "counter",
    "inner",
    "inner_array",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "pattern",
    "one_of",
    "map",
];

/// The Rust types `inc_<f>` adds to with `$inc`: the numbers BSON stores (int32, int64, double).
pub const NUMERIC_TYPES: &[&str] = &["i32", "i64", "f64"];

/// What the derive knows of a field when it writes the field's own update methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldShape {
    /// The field is the document's `_id`, or a tree's or a versioned document's field, which
    /// their patterns' operations maintain.
    pub maintained: bool,
    /// A bounded array (`BoundedVec`): its layout's `set_<f>` checks the bound.
    pub bounded: bool,
    /// Every `#[squillion(...)]` attribute of the field is in [`PLAIN_FIELD_ATTRS`].
    pub plain: bool,
    /// Its type is one of [`NUMERIC_TYPES`] (not optional: `$inc` fails on null).
    pub numeric: bool,
    /// Declared a counter (`#[squillion(counter)]`).
    pub counter: bool,
    /// A map whose keys are data (`BTreeMap`, `HashMap`, `IndexMap`): it gets its per-entry
    /// `set_<f>_entry` and `remove_<f>_entry` beside `set_<f>`.
    pub map: bool,
    /// An `@attributes` map (`#[squillion(attributes(value = V))]`), stored as an array of
    /// `{k, v}`: it gets `set_<f>_entry` and `remove_<f>_entry` only (no `set_<f>`, and a bounded
    /// one no embedded array's methods, which could repeat a key).
    pub attributes: bool,
}

/// The update methods of one field, as `(prefix, suffix)` like [`layout_methods`]: `set_<f>` for
/// a plain field, `inc_<f>` for a plain number, the guarded `dec_<f>` for a counter, and
/// `set_<f>_entry` and `remove_<f>_entry` for a map and for an `@attributes` map (only those).
pub fn field_methods(shape: FieldShape) -> &'static [(&'static str, &'static str)] {
    if shape.attributes {
        return &[("set", "entry"), ("remove", "entry")];
    }
    if shape.maintained || shape.bounded || !shape.plain {
        return &[];
    }
    if shape.map {
        return &[("set", ""), ("set", "entry"), ("remove", "entry")];
    }
    match (shape.numeric, shape.counter) {
        (true, true) => &[("set", ""), ("inc", ""), ("dec", "")],
        (true, false) => &[("set", ""), ("inc", "")],
        _ => &[("set", "")],
    }
}

/// The methods of a bounded array inside an embedded subdocument (`inner_array`), as
/// `(prefix, suffix)`: push, and with a key to find an element by, update and remove by key
/// (without one, remove by equality).
pub fn inner_array_methods(keyed: bool) -> &'static [(&'static str, &'static str)] {
    if keyed {
        &[("push", ""), ("update", ""), ("remove", "")]
    } else {
        &[("push", ""), ("remove", "")]
    }
}

/// The methods of a number in the elements of a bounded array (`element(...)`), as
/// `(prefix, suffix)` after `<array>_<field>`: `inc_`, and the guarded `dec_` for a counter.
pub fn element_methods(counter: bool) -> &'static [(&'static str, &'static str)] {
    if counter {
        &[("inc", ""), ("dec", "")]
    } else {
        &[("inc", "")]
    }
}

/// The methods the document pattern `pattern` (the container attribute: `queue`, `tree`,
/// `versioned`, `link`) adds; a link also adds [`link_methods`].
pub fn pattern_methods(pattern: &str) -> &'static [&'static str] {
    match pattern {
        "queue" => &[
            "enqueue",
            "claim_next",
            "complete",
            "release",
            "count_waiting",
            "in_progress",
        ],
        "tree" => &["insert_under", "children", "descendants", "ancestors"],
        "versioned" => &["new_version", "current_at", "versions"],
        "history" => &["new_version", "history", "version_of"],
        "link" => &["link", "unlink", "get_link"],
        _ => &[],
    }
}

/// The method `prefix_field_suffix` for field `field` (its name without `r#`).
pub fn field_method(prefix: &str, field: &str, suffix: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    let mut s = String::new();
    if !prefix.is_empty() {
        s.push_str(prefix);
        s.push('_');
    }
    s.push_str(field);
    if !suffix.is_empty() {
        s.push('_');
        s.push_str(suffix);
    }
    s
}

/// The methods of the link pattern for a link whose ends are `a` and `b`.
pub fn link_methods(a: &str, b: &str) -> [String; 4] {
    [
        format!("by_{a}"),
        format!("by_{b}"),
        format!("{b}s_of_{a}"),
        format!("{a}s_of_{b}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names inside `#[squillion(...)]` attributes: `embed` of `embed(max = 10)`.
    fn attr_names(attrs: &[syn::Attribute]) -> Vec<String> {
        let mut out = Vec::new();
        for a in attrs.iter().filter(|a| a.path().is_ident("squillion")) {
            let _ = a.parse_nested_meta(|m| {
                if let Some(i) = m.path.get_ident() {
                    out.push(i.to_string());
                }
                // Skip the arguments.
                if m.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in m.input);
                    let _: proc_macro2::TokenStream = content.parse()?;
                } else if m.input.peek(syn::Token![=]) {
                    let _: syn::Expr = m.value()?.parse()?;
                }
                Ok(())
            });
        }
        out
    }

    /// Every method the derive writes on the structs of the derive's every-layout test is named
    /// by [`REPOSITORY_METHODS`], the patterns' lists and the layouts' lists of its fields.
    #[test]
    fn the_lists_name_every_method_the_derive_writes() {
        let file: syn::File =
            syn::parse_str(include_str!("../../derive/tests/ui/pass/every_layout.rs")).unwrap();
        let mut seen = 0;
        for item in &file.items {
            let syn::Item::Struct(s) = item else { continue };
            let derived = s.attrs.iter().any(|a| {
                a.path().is_ident("derive") && quote::quote!(#a).to_string().contains("Document")
            });
            if !derived {
                continue;
            }
            let mut expected: Vec<String> =
                REPOSITORY_METHODS.iter().map(|m| m.to_string()).collect();
            let container = attr_names(&s.attrs);
            for pattern in &container {
                expected.extend(pattern_methods(pattern).iter().map(|m| m.to_string()));
            }
            let names: Vec<String> = s
                .fields
                .iter()
                .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
                .collect();
            if container.iter().any(|c| c == "link") {
                for a in &names {
                    for b in &names {
                        expected.extend(link_methods(a, b));
                    }
                }
            }
            for f in &s.fields {
                let Some(name) = f.ident.as_ref().map(|i| i.to_string()) else {
                    continue;
                };
                let mut layouts = attr_names(&f.attrs);
                let bounded = quote::quote!(#f).to_string().contains("BoundedVec");
                let attributes = attr_names(&f.attrs).iter().any(|a| a == "attributes");
                if bounded && !attributes && !layouts.iter().any(|l| !layout_methods(l).is_empty())
                {
                    layouts.push("embed".to_owned());
                }
                for layout in layouts {
                    for (p, x) in layout_methods(&layout) {
                        expected.push(field_method(p, &name, x));
                    }
                }
                // Over-approximated: a field a pattern maintains is listed as plain.
                let ty = &f.ty;
                let ty = quote::quote!(#ty).to_string();
                let attrs = attr_names(&f.attrs);
                let shape = FieldShape {
                    maintained: attrs.iter().any(|a| a == "id"),
                    bounded,
                    plain: attrs
                        .iter()
                        .all(|a| PLAIN_FIELD_ATTRS.contains(&a.as_str())),
                    numeric: NUMERIC_TYPES.contains(&ty.as_str()),
                    counter: attrs.iter().any(|a| a == "counter"),
                    map: crate::types::map(&f.ty).is_some(),
                    attributes,
                };
                for (p, x) in field_methods(shape) {
                    expected.push(field_method(p, &name, x));
                }
                let cx = crate::ctxt::Ctxt::new();
                for e in crate::attr::field(&cx, f).elements {
                    for (p, x) in element_methods(e.counter) {
                        expected.push(field_method(p, &format!("{name}_{}", e.name), x));
                    }
                }
                assert!(cx.check().is_ok());
            }
            let out = crate::derive_document(quote::quote!(#s)).unwrap();
            let expanded: syn::File = syn::parse2(out).unwrap();
            for item in expanded.items {
                let syn::Item::Impl(i) = item else { continue };
                if i.trait_.is_some() {
                    continue;
                }
                for item in i.items {
                    let syn::ImplItem::Fn(f) = item else { continue };
                    let name = f.sig.ident.to_string();
                    seen += 1;
                    assert!(
                        expected.contains(&name),
                        "`{}::{name}` is not named by the lists: {expected:?}",
                        s.ident
                    );
                }
            }
        }
        assert!(seen > 60, "only {seen} methods seen");
    }
}
