//! Document versioning with a history collection (`history(to = H)`, seed 002 pattern 2): the
//! repository's `new_version`, `history` and `version_of`, and the methods it does not write.

use proc_macro2::TokenStream;
use quote::quote;

use super::rt;
use crate::ast::Item;
use crate::attr::Layout;
use crate::names::{field_method, layout_methods};

/// The methods of the pattern (nothing without `history(...)`).
pub fn methods(item: &Item<'_>) -> TokenStream {
    let Some(h) = &item.attrs.history else {
        return TokenStream::new();
    };
    let Some(version_f) = item.field(&h.version) else {
        return TokenStream::new();
    };
    let rt = rt();
    let ident = item.ident;
    let id_ty = item.id_field().ty;
    let to = &h.to;
    let version = &version_f.bson;
    let (key, archived_at) = (&h.key, &h.archived_at);
    let spec = quote! {
        #rt::history::HistorySpec {
            version: #version,
            history: <#to as ::squillion::Document>::COLLECTION,
            key: #key,
            archived_at: #archived_at,
        }
    };
    let new_doc = format!(
        "Makes `doc` the new current version of its document, keeping the current one in the \
         history: reads the current document by `doc`'s `_id` ([`squillion::Error::NotFound`] if \
         none), writes a copy of it to the history (`{key}` = its `_id`, its `{version}`, \
         `{archived_at}` = now, every other field as stored; an upsert keyed on `{{{key}, \
         {version}}}`), then `replaceOne({{_id, {version}: <the version read>}}, doc)` with \
         `{version}` = that version + 1, whatever `doc` holds there. One transaction where the \
         deployment runs them. Two racing new versions never both win: the loser gets \
         [`squillion::Error::VersionConflict`] and nothing of it is kept. Returns the version as \
         stored."
    );
    let history_doc = format!(
        "Every earlier version of document `id`, newest first: `find({{{key}: id}}).sort({{{version}: -1}})` \
         in the history collection."
    );
    let version_doc = format!(
        "Earlier version `version` of document `id`, if the history holds it: `find({{{key}: id, {version}: version}})`. \
         The current version is [`Self::get`]'s."
    );
    quote! {
        #[doc = #new_doc]
        pub async fn new_version(&self, doc: &#ident) -> ::squillion::Result<#ident> {
            let spec = #spec;
            let stored = #rt::history::new_version(&self.core, &spec, self.core.encode_filled(doc).await?).await?;
            self.core.decode(stored)
        }

        #[doc = #history_doc]
        pub async fn history(&self, id: &#id_ty) -> ::squillion::Result<#rt::Vec<#to>> {
            let spec = #spec;
            let core = #rt::RepoCore::<#to>::new(self.core.database());
            #rt::history::history(&core, &spec, #rt::to_bson(id)?).await
        }

        #[doc = #version_doc]
        pub async fn version_of(&self, id: &#id_ty, version: i64) -> ::squillion::Result<::core::option::Option<#to>> {
            let spec = #spec;
            let core = #rt::RepoCore::<#to>::new(self.core.database());
            #rt::history::version_of(&core, &spec, #rt::to_bson(id)?, version).await
        }
    }
}

/// The layouts whose methods that write are writes of the document's own data (not of a
/// relationship's other side, nor of lists and summaries kept of other documents).
fn own_data(layout: &Layout) -> Option<&'static str> {
    match layout {
        Layout::Embed { .. } => Some("embed"),
        Layout::ParentRefs { .. } => Some("parent_refs"),
        Layout::Outlier { .. } => Some("outlier"),
        Layout::Top { to, key, .. } if to.is_none() || key.is_none() => Some("top"),
        _ => None,
    }
}

/// The names of the methods a struct with `history(...)` does not get: each write of one of its
/// own fields (a setter, an increment, an embedded array's push, a fan-out setter...) would make
/// a new version without archiving the current one; `new_version` is the way to change them.
pub fn unversioned_writes(item: &Item<'_>) -> Vec<String> {
    const WRITES: &[&str] = &["push", "remove", "pull", "set", "add", "offer"];
    let mut out = Vec::new();
    for f in &item.fields {
        let name = f.ident.to_string();
        let mut layouts: Vec<&str> = Vec::new();
        match &f.attrs.layout {
            Some((l, _)) => layouts.extend(own_data(l)),
            None if f.bound.is_some() && f.attrs.attributes.is_none() => layouts.push("embed"),
            None => {}
        }
        if !f.attrs.fan_out.is_empty() {
            layouts.push("fan_out");
        }
        for l in layouts {
            for (prefix, suffix) in layout_methods(l) {
                if WRITES.contains(prefix) {
                    out.push(field_method(prefix, &name, suffix));
                }
            }
        }
    }
    out
}

/// `methods` (an `impl` block's items) without the functions named in `drop`.
pub fn without(methods: TokenStream, drop: &[String]) -> TokenStream {
    if drop.is_empty() {
        return methods;
    }
    let Ok(block) = syn::parse2::<syn::ItemImpl>(quote!(impl __Methods { #methods })) else {
        return methods;
    };
    let kept = block.items.into_iter().filter(|i| match i {
        syn::ImplItem::Fn(f) => !drop.contains(&f.sig.ident.to_string()),
        _ => true,
    });
    quote!(#(#kept)*)
}
