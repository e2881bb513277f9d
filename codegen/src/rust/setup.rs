//! The module's set-up function: every collection's indexes and validator in one call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::plan::Plan;

use super::names::{type_ident, TypeNames};

/// `ensure_all(db)`: each collection's `ensure_indexes` then `ensure_validator`, in the Plan's
/// order. An application that creates them one repository at a time and forgets one loses what
/// that collection's unique indexes and validator guarantee, silently.
pub(super) fn ensure_all(plan: &Plan, types: &TypeNames) -> TokenStream {
    let repos: Vec<proc_macro2::Ident> = plan
        .collections
        .iter()
        .map(|c| {
            let ty = types
                .collection(&c.name)
                .unwrap_or_else(|| type_ident(&super::collection_type_name(c)));
            format_ident!("{}Repo", ty)
        })
        .collect();
    let which = match plan.collections.as_slice() {
        few @ [_, ..] if few.len() <= 12 => {
            let names: Vec<String> = few.iter().map(|c| format!("`{}`", c.name)).collect();
            names.join(", ")
        }
        many => format!("its {} collections", many.len()),
    };
    let doc = super::docs(&[format!(
        "Creates the indexes and validators the Plan declares for every collection of this module ({which}), idempotently: call it once at start-up, before the first write (the unique indexes are what keep unique values unique). Stops at the first collection the server refuses."
    )]);
    quote! {
        #doc
        pub async fn ensure_all(db: &::squillion::mongodb::Database) -> ::squillion::Result<()> {
            #(
                #repos::new(db).ensure_indexes().await?;
                #repos::new(db).ensure_validator().await?;
            )*
            Ok(())
        }
    }
}
