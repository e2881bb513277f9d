//! Preallocated counters (`counters`, seed 002's histogram of events per minute of the day):
//! `inc_<f>(&id, slot, by)`, one `$inc` on the slot's path.

use proc_macro2::TokenStream;
use quote::quote;

use super::{method, rt};
use crate::ast::{Field, Item};
use crate::types;

/// `inc_<f>` of a `counters` field.
pub fn increment(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let Some(dims) = types::counter_dims(f.ty) else {
        // Reported by the checks of the attributes.
        return TokenStream::new();
    };
    let rt = rt();
    let id_ty = item.id_field().ty;
    let path = &f.bson;
    let name = method("inc", f, "");
    let depth = dims.len();
    let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
    let example: Vec<String> = dims.iter().map(|d| (d / 2).to_string()).collect();
    let doc = format!(
        "Adds `by` to one counter of `{path}` ({} slots, {}) in one atomic update: \
         `updateOne({{_id}}, {{$inc: {{\"{path}.{}\": by}}}})` for `slot` `[{}]`, so concurrent \
         increments are never lost. A slot outside the dimensions gives \
         [`squillion::Error::NoSuchSlot`] and writes nothing; [`squillion::Error::NotFound`] if \
         no document has this id.",
        dims.iter().product::<u64>(),
        shape.join(" x "),
        example.join("."),
        example.join(", "),
    );
    let dims = dims
        .iter()
        .map(|d| proc_macro2::Literal::usize_unsuffixed(usize::try_from(*d).unwrap_or(usize::MAX)));
    quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, slot: [usize; #depth], by: i64) -> ::squillion::Result<()> {
            #rt::fields::inc_slot(self.core.raw(), #rt::to_bson(id)?, #path, &slot, &[#(#dims),*], by).await
        }
    }
}
