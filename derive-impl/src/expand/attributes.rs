//! An `@attributes` map's entry methods (`#[squillion(attributes(value = V))]`, the attribute
//! pattern: a map stored as an array of `{k, v}`): `set_<f>_entry`, guarded by the array's bound
//! (a `BoundedVec<T, N>`), and `remove_<f>_entry`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{method, rt};
use crate::ast::{Field, Item};
use crate::types;

/// `set_<f>_entry(&id, key, &value)`.
pub(crate) fn set_entry(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let Some((_, value_ty)) = &f.attrs.attributes else {
        return TokenStream::new();
    };
    let id_ty = item.id_field().ty;
    let value_param = types::value_param(value_ty);
    let path = &f.bson;
    let name = method("set", f, "entry");
    let guard = match &f.bound {
        Some((_, Some(n))) => format!(
            "The update's filter holds the bound: `{{_id, $or: [{{\"{path}.k\": key}}, {{$expr: \
             {{$lt: [{{$size: {{$ifNull: [\"${path}\", []]}}}}, {n}]}}}}]}}`, so racing setters never take the map \
             past {n} entries, and a key the map holds is replaced at the bound too. \
             [`squillion::Error::MapFull`] when the key is new and the map is full, "
        ),
        Some((_, None)) => "The update's filter holds the array's bound, so racing setters \
             never overfill it, and a key the map holds is replaced at the bound too. \
             [`squillion::Error::MapFull`] when the key is new and the map is full, "
            .to_owned(),
        None => String::new(),
    };
    let doc = format!(
        "Sets the attribute `key` of `{path}` (an `@attributes` map, stored as `[{{k, v}}]`) to \
         `value`: replaces its value when the map holds the key, appends `{{k: key, v: value}}` \
         otherwise. One pipeline update: `$set: {{{path}: {{$concatArrays: [{{$filter: \
         <the elements whose k is not key>}}, [{{k: key, v: value}}]]}}}}`, so the other \
         attributes keep their order and the one set comes last. Any string is a key (it is \
         data, not a path). {guard}[`squillion::Error::NotFound`] if no document has this id; \
         nothing is written then."
    );
    let bound = match &f.bound {
        Some((b, _)) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    let kept = quote!(#rt::attributes::set_entry(self.core.raw(), #rt::maps::Keeping::Kept { transactions, keepers: &keepers }, #rt::to_bson(id)?, #path, key, #rt::to_bson(value)?, #bound).await);
    let plain = quote!(#rt::attributes::set_entry(self.core.raw(), #rt::maps::Keeping::Alone, #rt::to_bson(id)?, #path, key, #rt::to_bson(value)?, #bound).await);
    let body = super::kept::update(item, path, kept, plain);
    quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, key: &str, value: #value_param) -> ::squillion::Result<()> {
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
        "Removes the attribute `key` of `{path}` (an `@attributes` map, stored as `[{{k, v}}]`): \
         `updateOne({{_id, \"{path}.k\": key}}, {{$pull: {{{path}: {{k: key}}}}}})`; whether it \
         was there. The other attributes keep their order. [`squillion::Error::NotFound`] if no \
         document has this id."
    );
    let kept = quote!(#rt::attributes::remove_entry(self.core.raw(), #rt::maps::Keeping::Kept { transactions, keepers: &keepers }, #rt::to_bson(id)?, #path, key).await);
    let plain = quote!(#rt::attributes::remove_entry(self.core.raw(), #rt::maps::Keeping::Alone, #rt::to_bson(id)?, #path, key).await);
    let body = super::kept::update(item, path, kept, plain);
    quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, key: &str) -> ::squillion::Result<bool> {
            #body
        }
    }
}
