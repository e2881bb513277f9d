//! The holder's side of denormalized copies: `copy_of(...)` on each collection holding copies, so
//! its repository takes every copy it writes from the source (issue 11), never from the caller.

use proc_macro2::TokenStream;
use quote::quote;

use super::layout::PlanIndex;
use crate::plan::Collection;

/// `copy_of(from = Source, source = "field", by = "path", copy = "path")` for every copy the
/// Plan keeps in `c`'s documents, in the Plan's order, each once.
pub(super) fn copy_of(lookup: &PlanIndex<'_>, c: &Collection) -> Vec<TokenStream> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for x in lookup.copies_in(&c.name) {
        let Some((entity, field)) = x.source.split_once('.') else {
            continue;
        };
        let Some(home) = lookup.home(entity) else {
            continue;
        };
        let Some(source) = home
            .fields
            .iter()
            .find(|f| f.name == field || f.code_name == field)
        else {
            continue;
        };
        let Some(from) = lookup.document_type(entity) else {
            continue;
        };
        let (by, copy) = x.fan_out.marked_paths();
        if !seen.insert((by.clone(), copy.clone())) {
            continue;
        }
        let name = &source.name;
        out.push(quote!(copy_of(from = #from, source = #name, by = #by, copy = #copy)));
    }
    out
}
