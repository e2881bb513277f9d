//! Each field's own update methods: `set_<f>` for every field the application owns, `inc_<f>` for
//! numbers, and the guarded `dec_<f>` of counters (`names::field_methods` lists them for tools).

use proc_macro2::TokenStream;

use super::{method, rt};
use crate::ast::{Field, Item};
use crate::attr::Layout;
use crate::names::{field_methods, FieldShape, NUMERIC_TYPES};
use crate::types;

/// Whether `ty` is one of the numbers `$inc` adds to (by its last path segment).
pub(crate) fn numeric(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| {
                s.arguments.is_none() && NUMERIC_TYPES.iter().any(|n| s.ident == n)
            })
        }
        syn::Type::Group(g) => numeric(&g.elem),
        syn::Type::Paren(p) => numeric(&p.elem),
        _ => false,
    }
}

/// The fields a tree or a versioned document names: their patterns' operations write them.
fn maintained_by_pattern(item: &Item<'_>, f: &Field<'_>) -> bool {
    let tree = item
        .attrs
        .tree
        .iter()
        .flat_map(|t| [&t.parent, &t.ancestors]);
    let versioned = item
        .attrs
        .versioned
        .iter()
        .flat_map(|v| [&v.key, &v.version, &v.valid_from, &v.valid_to]);
    tree.chain(versioned).any(|i| i == f.ident)
}

/// What the derive knows of `f` for its update methods.
pub(crate) fn shape(item: &Item<'_>, index: usize, f: &Field<'_>) -> FieldShape {
    let a = &f.attrs;
    let plain = matches!(a.layout, None | Some((Layout::ChildRef { .. }, _)))
        && a.computed.is_none()
        && a.fan_out.is_empty()
        && a.denormalized_from.is_none()
        && a.maintained.is_none()
        && !a.serde_skip
        && !a.serde_flatten;
    FieldShape {
        maintained: index == item.id || maintained_by_pattern(item, f) || a.immutable.is_some(),
        bounded: f.bound.is_some() || types::array(f.ty).is_some_and(|x| x.capacity.is_some()),
        plain,
        numeric: numeric(f.ty),
        counter: a.counter.is_some(),
        map: types::map(f.ty).is_some(),
        attributes: a.attributes.is_some(),
    }
}

/// Every field's update methods.
pub fn methods(item: &Item<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, f) in item.fields.iter().enumerate() {
        for (prefix, suffix) in field_methods(shape(item, i, f)) {
            out.extend(match (*prefix, *suffix) {
                ("set", "") => setter(item, f),
                ("inc", "") => increment(item, f),
                ("dec", "") => decrement(item, f),
                ("set", "entry") if f.attrs.attributes.is_some() => {
                    super::attributes::set_entry(item, f)
                }
                ("remove", "entry") if f.attrs.attributes.is_some() => {
                    super::attributes::remove_entry(item, f)
                }
                ("set", "entry") => super::maps::set_entry(item, f),
                ("remove", "entry") => super::maps::remove_entry(item, f),
                _ => TokenStream::new(),
            });
        }
    }
    out
}

fn setter(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let ty = f.ty;
    let path = &f.bson;
    let name = method("set", f, "");
    let optional = types::option_inner(f.ty).is_some();
    let doc = if optional {
        format!(
            "Sets `{path}` (`updateOne({{_id}}, {{$set: {{{path}: value}}}})`; `None` removes the field \
             with `$unset`, as an absent optional is stored). [`squillion::Error::NotFound`] if no \
             document has this id."
        )
    } else {
        format!(
            "Sets `{path}` (`updateOne({{_id}}, {{$set: {{{path}: value}}}})`). \
             [`squillion::Error::NotFound`] if no document has this id."
        )
    };
    let (doc, bound) = super::maps::setter_bound(f, doc);
    let body = super::kept::update(
        item,
        path,
        quote::quote!(#rt::kept::set(self.core.raw(), transactions, &keepers, #rt::to_bson(id)?, #path, self.core.with_copies(#path, #rt::to_bson(value)?).await?, #optional).await),
        quote::quote!(#rt::fields::set(self.core.raw(), #rt::to_bson(id)?, #path, self.core.with_copies(#path, #rt::to_bson(value)?).await?, #optional).await),
    );
    let param = types::value_param(ty);
    quote::quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, value: #param) -> ::squillion::Result<()> {
            #bound
            #body
        }
    }
}

fn increment(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let ty = f.ty;
    let path = &f.bson;
    let name = method("inc", f, "");
    let doc = format!(
        "Adds `by` to `{path}` in one atomic update and returns the new value: \
         `findOneAndUpdate({{_id}}, {{$inc: {{{path}: by}}}}, {{returnDocument: \"after\"}})`, so \
         concurrent increments are never lost. [`squillion::Error::NotFound`] if no document has \
         this id."
    );
    let body = super::kept::update(
        item,
        path,
        quote::quote!(#rt::kept::inc(self.core.raw(), transactions, &keepers, #rt::to_bson(id)?, #path, #rt::to_bson(&by)?).await),
        quote::quote!(#rt::fields::inc(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(&by)?).await),
    );
    quote::quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, by: #ty) -> ::squillion::Result<#ty> {
            let value = { #body }?;
            #rt::bson::from_bson(value).map_err(::squillion::Error::from)
        }
    }
}

fn decrement(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let ty = f.ty;
    let path = &f.bson;
    let name = method("dec", f, "");
    let minimum = f.attrs.facts.minimum.unwrap_or(0.0);
    let floor = if f.attrs.facts.minimum.is_some() {
        format!("its declared minimum {minimum}")
    } else {
        "0".to_owned()
    };
    let doc = format!(
        "Takes `by` from the counter `{path}` only when the result stays at or above {floor}: \
         `findOneAndUpdate({{_id, {path}: {{$gte: {minimum} + by}}}}, {{$inc: {{{path}: -by}}}})`. \
         The server checks the filter and writes in one step, so racing decrements never take it \
         below {floor} (seed 002's `stock > 0`). Returns the new value, or `None` when the \
         decrement was refused and nothing was written; [`squillion::Error::NotFound`] if no \
         document has this id."
    );
    let body = super::kept::update(
        item,
        path,
        quote::quote!(#rt::kept::dec_guarded(self.core.raw(), transactions, &keepers, #rt::to_bson(id)?, #path, #rt::to_bson(&by)?, #minimum).await),
        quote::quote!(#rt::fields::dec_guarded(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(&by)?, #minimum).await),
    );
    quote::quote! {
        #[doc = #doc]
        pub async fn #name(&self, id: &#id_ty, by: #ty) -> ::squillion::Result<::core::option::Option<#ty>> {
            match { #body }? {
                ::core::option::Option::Some(value) => #rt::bson::from_bson(value).map(::core::option::Option::Some).map_err(::squillion::Error::from),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }
    }
}
