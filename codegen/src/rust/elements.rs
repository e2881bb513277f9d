//! What the repository changes in one element of an embedded bounded array (issue 13):
//! `element(...)` for each number of the elements of an array whose elements have an identity
//! (the referenced `id` of an array of references with fields, a required `@unique` field of an
//! embedded child), giving `inc_<array>_<f>` and, for a `@counter`, the guarded `dec_<array>_<f>`.
//! Which arrays are keyed is found by the layout ([`super::layout`]); which fields are numbers and
//! what the methods are called, here on the Plan alone, so the clash check and the emitter agree.

use proc_macro2::TokenStream;
use quote::quote;

use crate::plan::{FieldKind, PlanField};

use super::names::field_ident;
use super::Generator;

/// The BSON paths, relative to each element, of the values an array of documents keeps unique
/// among its elements (`@unique` fields of an embedded entity or value type, not inside a further
/// array).
pub(super) fn unique_in_elements(f: &crate::plan::PlanField) -> Vec<String> {
    fn walk(fields: &[crate::plan::PlanField], prefix: &str, out: &mut Vec<String>) {
        for f in fields {
            let path = if prefix.is_empty() {
                f.name.clone()
            } else {
                format!("{prefix}.{}", f.name)
            };
            if f.flags.unique && f.array_depth == 0 {
                out.push(path.clone());
            }
            if f.array_depth == 0 && !f.map {
                walk(&f.children, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    if f.array_depth == 1 && f.bson_type == "object" {
        walk(&f.children, "", &mut out);
    }
    out
}

/// The element field an embedded child is found by in its array: its first required, unique,
/// top-level scalar.
pub(super) fn key_of_child(array: &PlanField) -> Option<String> {
    array
        .children
        .iter()
        .find(|c| {
            c.flags.unique
                && c.array_depth == 0
                && !c.optional
                && !c.map
                && c.bson_type != "object"
                && c.kind == FieldKind::Scalar
        })
        .map(|c| c.name.clone())
}

/// The element field of an array of references that holds the referenced id.
pub(super) fn key_of_reference(array: &PlanField) -> Option<String> {
    array
        .children
        .iter()
        .find(|c| c.kind == FieldKind::Ref && c.array_depth == 0)
        .map(|c| c.name.clone())
}

/// The numbers of the elements of `array` (keyed by `key`) the repository adds to one element
/// at a time: required, top-level, declared (not copies, summaries or the key).
pub(super) fn numbers<'p>(array: &'p PlanField, key: &str) -> Vec<&'p PlanField> {
    if array.array_depth != 1 || array.bson_type != "object" || array.max_items.is_none() {
        return Vec::new();
    }
    array
        .children
        .iter()
        .filter(|c| {
            c.name != key
                && c.kind == FieldKind::Scalar
                && c.array_depth == 0
                && !c.optional
                && !c.map
                && matches!(c.bson_type.as_str(), "int" | "long" | "double")
        })
        .collect()
}

/// The Rust name of field `f` without `r#`.
fn rust_name(f: &PlanField) -> String {
    field_ident(&f.code_name)
        .to_string()
        .trim_start_matches("r#")
        .to_owned()
}

/// The method names the derive writes for the numbers of `array`'s elements (`inc_lines_qty`,
/// `dec_lines_qty`), for the clash check.
pub(super) fn method_names(array: &PlanField, key: Option<&String>) -> Vec<String> {
    use squillion_derive_impl::names as derived;
    let Some(key) = key else {
        return Vec::new();
    };
    let top = rust_name(array);
    let mut out = Vec::new();
    for n in numbers(array, key) {
        let suffix = format!("{top}_{}", rust_name(n));
        for (prefix, _) in derived::element_methods(n.flags.counter) {
            out.push(derived::field_method(prefix, &suffix, ""));
        }
    }
    out
}

impl Generator<'_> {
    /// `element(...)` for each number of the elements of array `f` of struct `owner`, keyed by
    /// element field `key`.
    pub(super) fn element_attrs(
        &mut self,
        f: &PlanField,
        owner: &str,
        key: Option<&String>,
    ) -> Vec<TokenStream> {
        let Some(key) = key else {
            return Vec::new();
        };
        let numbers = numbers(f, key);
        let Some(key_field) = f.children.iter().find(|c| &c.name == key) else {
            return Vec::new();
        };
        if numbers.is_empty() {
            return Vec::new();
        }
        let elem = self.object_type(f, owner).to_string();
        let key_ty = self.rust_type(key_field, &elem);
        let mut out = Vec::new();
        for n in numbers {
            let (path, name) = (&n.name, rust_name(n));
            let ty = self.rust_type(n, &elem);
            let counter = match (n.flags.counter, &n.range) {
                (true, Some(range)) => {
                    let min = super::layout::number_lit(&range.min);
                    quote!(, counter, minimum = #min)
                }
                (true, None) => quote!(, counter),
                (false, _) => TokenStream::new(),
            };
            out.push(quote!(element(path = #path, name = #name, ty = #ty, key = #key, key_ty = #key_ty #counter)));
        }
        out
    }
}

/// Whether the Plan indexes `path` first in `c` to find the holders of an id for decision `d`:
/// the index that serves the other direction of an array of references, whose holders the
/// repository then lists (`find_by_<f>`).
pub(super) fn indexed_for(
    c: &crate::plan::Collection,
    d: &crate::plan::Decision,
    path: &str,
) -> bool {
    c.indexes.iter().any(|i| {
        i.keys.first().is_some_and(|k| k.path == path)
            && i.serves_relationship(&d.id, crate::plan::RelationshipUse::Holders)
    })
}
