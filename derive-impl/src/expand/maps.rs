//! A map field's entry methods: `set_<f>_entry` (guarded by the map's bound, `map(max = N)`) and
//! `remove_<f>_entry`; and the bound `set_<f>` checks before it writes a whole map.

use proc_macro2::TokenStream;
use quote::quote;

use super::{method, rt};
use crate::ast::{Field, Item};
use crate::types;

/// The declared bound of a map field, as a `usize` literal.
fn max(f: &Field<'_>) -> Option<u64> {
    f.attrs.map.and_then(|(_, max)| max)
}

/// `Some(N)` or `None`, as tokens.
fn max_tokens(f: &Field<'_>) -> TokenStream {
    match max(f) {
        Some(n) => {
            let n = proc_macro2::Literal::u64_unsuffixed(n);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// `set_<f>_entry(&id, key, &value)`.
pub(crate) fn set_entry(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let Some(map) = types::map(f.ty) else {
        return TokenStream::new();
    };
    let id_ty = item.id_field().ty;
    let value_ty = map.value;
    let path = &f.bson;
    let name = method("set", f, "entry");
    let bounded = max_tokens(f);
    let doc = match max(f) {
        Some(n) => format!(
            "Sets the entry `key` of the map `{path}` to `value`: `updateOne({{_id, $or: \
             [{{\"{path}.<key>\": {{$exists: true}}}}, {{$expr: {{$lt: [{{$size: {{$objectToArray: \
             \"${path}\"}}}}, {n}]}}}}]}}, {{$set: {{\"{path}.<key>\": value}}}})`. The server checks \
             the bound and writes in one step, so racing setters never take the map past {n} \
             entries; a key the map holds is replaced at the bound too. \
             [`squillion::Error::MapFull`] when the key is new and the map is full, \
             [`squillion::Error::InvalidMapKey`] for a key MongoDB would read as another path \
             (empty, with `.`, starting with `$`), [`squillion::Error::NotFound`] if no document \
             has this id; nothing is written then."
        ),
        None => format!(
            "Sets the entry `key` of the map `{path}` to `value`: `updateOne({{_id}}, {{$set: \
             {{\"{path}.<key>\": value}}}})`. [`squillion::Error::InvalidMapKey`] for a key \
             MongoDB would read as another path (empty, with `.`, starting with `$`), \
             [`squillion::Error::NotFound`] if no document has this id; nothing is written then."
        ),
    };
    let kept = quote!(#rt::maps::set_entry(self.core.raw(), #rt::maps::Keeping::Kept { transactions, keepers: &keepers }, #rt::to_bson(id)?, #path, key, #rt::to_bson(value)?, #bounded).await);
    let plain = quote!(#rt::maps::set_entry(self.core.raw(), #rt::maps::Keeping::Alone, #rt::to_bson(id)?, #path, key, #rt::to_bson(value)?, #bounded).await);
    let body = super::kept::update(item, path, kept, plain);
    quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, key: &str, value: &#value_ty) -> ::squillion::Result<()> {
            #body
        }
    }
}

/// `remove_<f>_entry(&id, key) -> bool`.
pub(crate) fn remove_entry(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let path = &f.bson;
    let name = method("remove", f, "entry");
    let doc = format!(
        "Removes the entry `key` of the map `{path}`: `updateOne({{_id, \"{path}.<key>\": \
         {{$exists: true}}}}, {{$unset: {{\"{path}.<key>\": \"\"}}}})`; whether it was there. \
         [`squillion::Error::InvalidMapKey`] for a key MongoDB would read as another path, \
         [`squillion::Error::NotFound`] if no document has this id."
    );
    let kept = quote!(#rt::maps::remove_entry(self.core.raw(), #rt::maps::Keeping::Kept { transactions, keepers: &keepers }, #rt::to_bson(id)?, #path, key).await);
    let plain = quote!(#rt::maps::remove_entry(self.core.raw(), #rt::maps::Keeping::Alone, #rt::to_bson(id)?, #path, key).await);
    let body = super::kept::update(item, path, kept, plain);
    quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, key: &str) -> ::squillion::Result<bool> {
            #body
        }
    }
}

/// For a bounded map's `set_<f>`: its doc with the bound, and the check that refuses a map with
/// more than N entries before anything is written.
pub(crate) fn setter_bound(f: &Field<'_>, doc: String) -> (String, TokenStream) {
    let rt = rt();
    match max(f) {
        Some(n) => {
            let path = &f.bson;
            let lit = proc_macro2::Literal::u64_unsuffixed(n);
            (
                format!(
                    "{doc} A map of more than {n} entries is refused with \
                     [`squillion::Error::MapFull`] before anything is written."
                ),
                quote!(#rt::maps::within_bound(self.core.raw(), #path, &#rt::to_bson(value)?, #lit)?;),
            )
        }
        None => (doc, TokenStream::new()),
    }
}
