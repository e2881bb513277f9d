//! Methods on what an embedded subdocument holds: `set_<f>_<g>` (and `inc_`, the guarded `dec_`)
//! for a field `g` inside field `f`'s subdocument, and `push_`/`update_`/`remove_` for a bounded
//! array inside it (`cart.items`), the bound checked by the update's filter.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::fields::numeric;
use super::rt;
use crate::ast::{Field, Item};
use crate::attr::{InnerArrayDecl, InnerDecl};
use crate::names::{field_method, inner_array_methods, FieldShape};
use crate::types;

/// The method `prefix_<field>_<name>`.
fn method(prefix: &str, f: &Field<'_>, name: &str) -> syn::Ident {
    let field = f.ident.to_string();
    let field = field.trim_start_matches("r#");
    let suffix = format!("{field}_{name}");
    format_ident!(
        "{}",
        field_method(prefix, &suffix, ""),
        span = f.ident.span()
    )
}

/// Every inner field's and inner array's methods.
pub fn methods(item: &Item<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    for f in &item.fields {
        for d in &f.attrs.inner {
            out.extend(inner_field(item, f, d));
        }
        for d in &f.attrs.inner_arrays {
            out.extend(inner_array(item, f, d));
        }
    }
    out
}

/// What the derive knows of an inner field for its update methods.
pub(crate) fn inner_shape(d: &InnerDecl) -> FieldShape {
    FieldShape {
        maintained: false,
        bounded: false,
        plain: true,
        numeric: numeric(&d.ty),
        counter: d.counter,
        map: false,
        attributes: false,
    }
}

fn inner_field(item: &Item<'_>, f: &Field<'_>, d: &InnerDecl) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let ty = &d.ty;
    let path = format!("{}.{}", f.bson, d.path);
    let shape = inner_shape(d);
    let mut out = TokenStream::new();
    for (prefix, _) in crate::names::field_methods(shape) {
        let name = method(prefix, f, &d.name);
        out.extend(match *prefix {
            "set" => {
                let optional = types::option_inner(ty).is_some();
                let doc = format!(
                    "Sets `{path}` inside the embedded `{}` (`updateOne({{_id}}, {{$set: {{\"{path}\": value}}}})`{}). \
                     [`squillion::Error::NotFound`] if no document has this id.",
                    f.bson,
                    if optional { "; `None` removes it with `$unset`" } else { "" }
                );
                let param = crate::types::value_param(ty);
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, value: #param) -> ::squillion::Result<()> {
                        #rt::fields::set(self.core.raw(), #rt::to_bson(id)?, #path, self.core.with_copies(#path, #rt::to_bson(value)?).await?, #optional).await
                    }
                }
            }
            "inc" => {
                let doc = format!(
                    "Adds `by` to `{path}` in one atomic update (`$inc`) and returns the new value. \
                     [`squillion::Error::NotFound`] if no document has this id."
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, by: #ty) -> ::squillion::Result<#ty> {
                        let value = #rt::fields::inc(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(&by)?).await?;
                        #rt::bson::from_bson(value).map_err(::squillion::Error::from)
                    }
                }
            }
            "dec" => {
                let minimum = d.minimum.unwrap_or(0.0);
                let floor = match d.minimum {
                    Some(m) => format!("{m} + by"),
                    None => "by".to_owned(),
                };
                let doc = format!(
                    "Takes `by` from the counter `{path}` only when the result stays at or above {minimum} \
                     (`findOneAndUpdate({{_id, \"{path}\": {{$gte: {floor}}}}}, {{$inc: {{\"{path}\": -by}}}})`). \
                     Returns the new value, or `None` when the decrement was refused and nothing was written."
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, by: #ty) -> ::squillion::Result<::core::option::Option<#ty>> {
                        match #rt::fields::dec_guarded(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(&by)?, #minimum).await? {
                            ::core::option::Option::Some(value) => #rt::bson::from_bson(value).map(::core::option::Option::Some).map_err(::squillion::Error::from),
                            ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
                        }
                    }
                }
            }
            _ => TokenStream::new(),
        });
    }
    out
}

fn inner_array(item: &Item<'_>, f: &Field<'_>, d: &InnerArrayDecl) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let elem = &d.elem;
    let path = format!("{}.{}", f.bson, d.path);
    let max = d.max;
    let each = format!("{path}[]");
    let mut out = TokenStream::new();
    let unique: Vec<&str> = d.key.iter().map(|(k, _)| k.as_str()).collect();
    for (prefix, _) in inner_array_methods(d.key.is_some()) {
        let name = method(prefix, f, &d.name);
        out.extend(match (*prefix, &d.key) {
            ("push", _) => {
                let mut doc = format!(
                    "Appends `item` to `{path}` inside the embedded `{}` unless it already holds its \
                     bound of {max}: `updateOne({{_id, \"{path}.{}\": {{$exists: false}}}}, {{$push: {{\"{path}\": item}}}})`. \
                     The bound is checked by the update itself; a full array gives \
                     [`squillion::Error::BoundExceeded`] and writes nothing.",
                    f.bson,
                    max.saturating_sub(1)
                );
                if let Some((k, _)) = &d.key {
                    doc.push_str(&format!(
                        " An element whose `{k}` is already in the array gives \
                         [`squillion::Error::DuplicateElement`] and writes nothing."
                    ));
                }
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
                        #rt::arrays::push_bounded(self.core.raw(), #rt::to_bson(id)?, #path, #max as usize, self.core.with_copies(#each, #rt::to_bson(item)?).await?, &[], &[#(#unique),*]).await
                    }
                }
            }
            ("update", Some((k, _))) => {
                let doc = format!(
                    "Replaces the element of `{path}` whose `{k}` is `item.{k}` with `item`: \
                     `updateOne({{_id}}, {{$set: {{\"{path}.$[e]\": item}}}}, {{arrayFilters: [{{\"e.{k}\": item.{k}}}]}})`. \
                     True if such an element was there."
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<bool> {
                        #rt::fields::replace_element(self.core.raw(), #rt::to_bson(id)?, #path, #k, self.core.with_copies(#each, #rt::to_bson(item)?).await?).await
                    }
                }
            }
            ("remove", Some((k, key_ty))) => {
                let doc = format!(
                    "Removes the element of `{path}` whose `{k}` is `key` \
                     (`$pull: {{\"{path}\": {{{k}: key}}}}`). True if one was removed."
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, key: &#key_ty) -> ::squillion::Result<bool> {
                        let mut condition = #rt::bson::Document::new();
                        condition.insert(#k, #rt::to_bson(key)?);
                        #rt::arrays::pull(self.core.raw(), #rt::to_bson(id)?, #path, #rt::bson::Bson::Document(condition)).await
                    }
                }
            }
            ("remove", None) => {
                let doc = format!(
                    "Removes every element of `{path}` equal to `item` (`$pull`); true if one was removed."
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<bool> {
                        #rt::arrays::pull(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(item)?).await
                    }
                }
            }
            _ => TokenStream::new(),
        });
    }
    out
}
