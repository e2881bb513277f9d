//! What the repository updates in place inside a one-to-one embedded subdocument: each field of it
//! (`inner(...)`: `set_<f>_<g>`, with `inc_`/`dec_` for numbers and counters) and each bounded
//! array of documents in it (`inner_array(...)`: `push_`, `update_`, `remove_` of `cart.items`, the
//! bound checked by the update). Found on the Plan alone, so the clash check and the emitter agree;
//! the emitter adds the Rust types.

use crate::plan::{FieldKind, PlanField};

use super::names::field_ident;

/// One place inside a top-level field's subdocument.
#[derive(Debug, Clone)]
pub(super) struct Inner<'p> {
    /// BSON path below the top-level field (`items`, `address.city`).
    pub path: String,
    /// The method suffix after the top-level field's name (`items`, `address_city`).
    pub name: String,
    /// The Plan field there.
    pub field: &'p PlanField,
    /// The fields on the way, outermost first (their types name the field's owner).
    pub parents: Vec<&'p PlanField>,
    /// A bounded array of documents: its bound and the element field that identifies an element.
    pub array: Option<(u64, Option<&'p PlanField>)>,
}

/// A subdocument the application owns and that is always there: one-to-one embedded, required,
/// not a map, not a tree of itself.
fn owned_subdocument(f: &PlanField) -> bool {
    f.bson_type == "object"
        && !f.is_geo_point()
        && f.array_depth == 0
        && !f.map
        && !f.optional
        && !f.recursive
        && !f.children.is_empty()
        && matches!(f.kind, FieldKind::Embedded | FieldKind::Scalar)
}

/// The element field an array of documents is keyed by: its `_id`, else its first required,
/// unique scalar.
fn key_of(elem: &PlanField) -> Option<&PlanField> {
    let plain = |c: &&PlanField| c.array_depth == 0 && !c.optional && c.bson_type != "object";
    elem.children
        .iter()
        .filter(plain)
        .find(|c| c.name == "_id")
        .or_else(|| elem.children.iter().filter(plain).find(|c| c.flags.unique))
}

/// The inner places of top-level field `f` (none unless it is an owned subdocument).
pub(super) fn of(f: &PlanField) -> Vec<Inner<'_>> {
    let mut out = Vec::new();
    if owned_subdocument(f) && f.variant.is_none() {
        walk(f, "", "", &mut vec![f], &mut out);
    }
    out
}

fn walk<'p>(
    at: &'p PlanField,
    path: &str,
    name: &str,
    parents: &mut Vec<&'p PlanField>,
    out: &mut Vec<Inner<'p>>,
) {
    for c in &at.children {
        if c.name == "_id"
            || matches!(
                c.kind,
                FieldKind::Computed | FieldKind::Pattern | FieldKind::Denormalized
            )
        {
            continue;
        }
        let rust = field_ident(&c.code_name).to_string();
        let rust = rust.trim_start_matches("r#");
        let (path, name) = if path.is_empty() {
            (c.name.clone(), rust.to_owned())
        } else {
            (format!("{path}.{}", c.name), format!("{name}_{rust}"))
        };
        let array = (c.array_depth == 1
            && c.bson_type == "object"
            && !c.map
            && !c.children.is_empty()
            && c.kind == FieldKind::Embedded)
            .then_some(c.max_items)
            .flatten()
            .map(|max| (max, key_of(c)));
        out.push(Inner {
            path: path.clone(),
            name: name.clone(),
            field: c,
            parents: parents.clone(),
            array,
        });
        if owned_subdocument(c) {
            parents.push(c);
            walk(c, &path, &name, parents, out);
            parents.pop();
        }
    }
}

/// The method names the derive writes for the inner places of `f` (`set_cart_total`,
/// `push_cart_items`, ...), for the clash check.
pub(super) fn method_names(f: &PlanField) -> Vec<String> {
    use squillion_derive_impl::names as derived;
    let top = field_ident(&f.code_name).to_string();
    let top = top.trim_start_matches("r#").to_owned();
    let mut out = Vec::new();
    for i in of(f) {
        let suffix = format!("{top}_{}", i.name);
        let numeric = i.field.array_depth == 0
            && !i.field.optional
            && !i.field.map
            && matches!(i.field.bson_type.as_str(), "int" | "long" | "double");
        let shape = derived::FieldShape {
            maintained: false,
            bounded: false,
            plain: true,
            numeric,
            counter: i.field.flags.counter,
            // The derive writes entry methods for top-level maps only.
            map: false,
            attributes: false,
        };
        for (prefix, _) in derived::field_methods(shape) {
            out.push(derived::field_method(prefix, &suffix, ""));
        }
        if let Some((_, key)) = i.array {
            for (prefix, _) in derived::inner_array_methods(key.is_some()) {
                out.push(derived::field_method(prefix, &suffix, ""));
            }
        }
    }
    out
}
