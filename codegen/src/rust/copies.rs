//! The holder's side of denormalized copies: `copy_of(...)` on each collection holding copies, so
//! its repository takes every copy it writes from the source (issue 11), never from the caller.

use proc_macro2::TokenStream;
use quote::quote;

use super::layout::PlanIndex;
use crate::plan::{Collection, CollectionRole};

/// `copy_of(from = Source, source = "field", by = "path", copy = "path")` for every copy the
/// Plan keeps in `c`'s documents, in the Plan's order, each once.
pub(super) fn copy_of(lookup: &PlanIndex<'_>, c: &Collection) -> Vec<TokenStream> {
    let plan = lookup.plan();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for x in plan.relationships.iter().flat_map(|d| &d.denormalized) {
        if x.fan_out.collection != c.name {
            continue;
        }
        let Some((entity, field)) = x.source.split_once('.') else {
            continue;
        };
        let Some(home) = plan
            .collections
            .iter()
            .find(|h| h.role == CollectionRole::Entity && h.entity == entity)
        else {
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
        if seen.contains(&(by.clone(), copy.clone())) {
            continue;
        }
        seen.push((by.clone(), copy.clone()));
        let name = &source.name;
        out.push(quote!(copy_of(from = #from, source = #name, by = #by, copy = #copy)));
    }
    out
}
