//! `two_way(...)` on the array of a two-way relationship (seed 004): both sides hold
//! references, ids or extended references (`{id, name}`, copies of the other's fields), and the
//! derive's `link_<f>` writes both in one transaction, copies included.

use proc_macro2::TokenStream;
use quote::quote;

use crate::plan::{Collection, Decision, FieldKind, Placement, Shape};

use super::layout::{lit, PlanIndex};

/// Whether the reference placed at `p` (the other side of a two-way relationship) is required:
/// its field is not optional.
fn inverse_required(lookup: &PlanIndex<'_>, p: &Placement) -> bool {
    lookup
        .by_name()
        .get(&p.collection)
        .and_then(|c| c.field(&p.path))
        .is_some_and(|f| !f.optional)
}

/// The field of `c` holding the id inside each reference at `path` when they are extended
/// references (`Some("id")` for `{id, name}`), `None` for plain ids.
fn reference_id_key(c: &Collection, p: &Placement) -> Option<String> {
    if !matches!(p.shape, Shape::ExtendedRef | Shape::ArrayOfExtendedRefs) {
        return None;
    }
    c.field(&p.path)
        .and_then(|f| f.children.iter().find(|x| x.kind == FieldKind::Ref))
        .map(|id| id.name.clone())
}

/// `two_way(...)` on the array `p` of `c`, the side that links: its bound, the other side's
/// field and bound, and where each side's extended references hold the id (`id`,
/// `inverse_id`). `None` when the Plan lacks what it needs (no bound, no other side).
pub(super) fn two_way(
    lookup: &PlanIndex<'_>,
    c: &Collection,
    d: &Decision,
    p: &Placement,
) -> Option<TokenStream> {
    let other = d
        .placement
        .iter()
        .find(|o| o.collection != c.name || o.path != p.path)?;
    let to = lookup.document_type(&p.target)?;
    let m = lit(p.max_items?);
    let inverse = &other.path;
    let mut args = vec![quote!(to = #to, max = #m, inverse = #inverse)];
    match (other.shape, other.max_items) {
        (Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs, Some(im)) => {
            let im = lit(im);
            args.push(quote!(inverse_max = #im));
        }
        // A required reference back (`one`, not `one?`): no `unlink_`, which would take it
        // away.
        (Shape::Id | Shape::ExtendedRef, _) if inverse_required(lookup, other) => {
            args.push(quote!(inverse_required));
        }
        (Shape::Id | Shape::ExtendedRef, _) => {}
        _ => return None,
    }
    if let Some(id) = reference_id_key(c, p) {
        args.push(quote!(id = #id));
    }
    let holder = lookup.by_name().get(&other.collection)?;
    if let Some(id) = reference_id_key(holder, other) {
        args.push(quote!(inverse_id = #id));
    }
    Some(quote!(two_way(#(#args),*)))
}
