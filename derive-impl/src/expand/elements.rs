//! Methods on one element of an embedded bounded array (`element(...)`, issue 13): `inc_<f>_<g>`
//! adds to number `g` of the element whose key is given, and the guarded `dec_<f>_<g>` takes from
//! a counter only while that element stays at or above the floor, each one atomic update; then the
//! summaries and lists the document keeps of the array are set to those of the array as it is.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::layouts::computed_for;
use super::rt;
use crate::ast::{Field, Item};
use crate::attr::{ElementDecl, Layout};
use crate::names::{element_methods, field_method};

/// The method `prefix_<array>_<name>`.
fn method(prefix: &str, f: &Field<'_>, name: &str) -> syn::Ident {
    let field = f.ident.to_string();
    let field = field.trim_start_matches("r#");
    format_ident!(
        "{}",
        field_method(prefix, &format!("{field}_{name}"), ""),
        span = f.ident.span()
    )
}

/// Every `element(...)` of every field.
pub fn methods(item: &Item<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    for f in &item.fields {
        for d in &f.attrs.elements {
            out.extend(element(item, f, d));
        }
    }
    out
}

fn element(item: &Item<'_>, f: &Field<'_>, d: &ElementDecl) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let (ty, key_ty) = (&d.ty, &d.key_ty);
    let array = &f.bson;
    let (key, field) = (&d.key, &d.path);
    let computed = computed_for(item, array);
    let lists = match &f.attrs.layout {
        Some((Layout::Embed { lists, .. }, _)) => lists.as_slice(),
        _ => &[],
    };
    let mut kept: Vec<String> = item
        .fields
        .iter()
        .filter(|x| x.computed_of.as_deref() == Some(array.as_str()))
        .map(|x| format!("`{}`", x.bson))
        .collect();
    kept.extend(lists.iter().map(|l| format!("`{}`", l.path)));
    let lists = super::buckets::list_specs(lists);
    let resync = if kept.is_empty() {
        String::new()
    } else {
        format!(
            " Then sets the summaries and lists {} to those of the array as it now is (read, then \
             written with the array as read in the filter, so a concurrent change is never \
             summarised wrongly; when other writers keep changing the array, the last of them \
             sets them, and the change made here is still returned: do not retry it).",
            kept.join(", ")
        )
    };
    let at = quote!(#rt::elements::ElementField { array: #array, key: #key, field: #field });
    let mut out = TokenStream::new();
    for (prefix, _) in element_methods(d.counter) {
        let name = method(prefix, f, &d.name);
        out.extend(match *prefix {
            "inc" => {
                let doc = format!(
                    "Adds `by` to `{field}` of the element of `{array}` whose `{key}` is `key`, in one \
                     atomic update: `findOneAndUpdate({{_id, \"{array}.{key}\": key}}, \
                     {{$inc: {{\"{array}.$[e].{field}\": by}}}}, {{arrayFilters: [{{\"e.{key}\": key}}]}})`, \
                     so concurrent increments are never lost. Returns the new value. \
                     [`squillion::Error::NotFound`] if no document has this id, \
                     [`squillion::Error::NoSuchElement`] if it holds no such element; nothing is \
                     written then.{resync}"
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, key: &#key_ty, by: #ty) -> ::squillion::Result<#ty> {
                        let id = #rt::to_bson(id)?;
                        let value = #rt::elements::inc(self.core.raw(), id.clone(), &#at, #rt::to_bson(key)?, #rt::to_bson(&by)?).await?;
                        #rt::elements::resync(self.core.raw(), id, #array, #computed, &[#(#lists),*]).await?;
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
                    "Takes `by` from the counter `{field}` of the element of `{array}` whose `{key}` is \
                     `key`, only when the result stays at or above {minimum}: \
                     `findOneAndUpdate({{_id, {array}: {{$elemMatch: {{{key}: key, {field}: {{$gte: {floor}}}}}}}}}, \
                     {{$inc: {{\"{array}.$[e].{field}\": -by}}}}, {{arrayFilters: [{{\"e.{key}\": key}}]}})`. \
                     The server checks the filter and writes in one step, so racing decrements never \
                     take the element below {minimum}. Returns the new value, or `None` when the \
                     decrement was refused and nothing was written. [`squillion::Error::NotFound`] if \
                     no document has this id, [`squillion::Error::NoSuchElement`] if it holds no such \
                     element.{resync}"
                );
                quote! {
                    #[doc = #doc]
                    pub async fn #name(&self, id: &#id_ty, key: &#key_ty, by: #ty) -> ::squillion::Result<::core::option::Option<#ty>> {
                        let id = #rt::to_bson(id)?;
                        match #rt::elements::dec_guarded(self.core.raw(), id.clone(), &#at, #rt::to_bson(key)?, #rt::to_bson(&by)?, #minimum).await? {
                            ::core::option::Option::Some(value) => {
                                #rt::elements::resync(self.core.raw(), id, #array, #computed, &[#(#lists),*]).await?;
                                #rt::bson::from_bson(value).map(::core::option::Option::Some).map_err(::squillion::Error::from)
                            }
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
