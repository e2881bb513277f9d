//! The online mode (`upgrade(...)`): every write of a document by its `id` first gives a stored
//! document of an older version the current shape (`RepoCore::upgrade_stored`), so that an
//! update relative to the stored value finds it under its new name.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Item;

use super::rt;

/// `methods`, each one taking an `id` upgrading the stored document first, when `item` reads
/// older versions; `methods` as they are otherwise.
pub(super) fn upgrading(item: &Item<'_>, methods: TokenStream) -> TokenStream {
    if item.attrs.upgrades.is_empty() {
        return methods;
    }
    // The methods are the derive's own tokens: they parse (otherwise, left as they are).
    let Ok(block) = syn::parse2::<syn::ItemImpl>(quote!(impl __Methods { #methods })) else {
        return methods;
    };
    let rt = rt();
    let items = block.items.into_iter().map(|it| match it {
        syn::ImplItem::Fn(mut f) if f.sig.asyncness.is_some() && takes_id(&f.sig) => {
            let upgrade: syn::Stmt =
                syn::parse_quote!(self.core.upgrade_stored(&#rt::to_bson(id)?).await?;);
            f.block.stmts.insert(0, upgrade);
            quote!(#f)
        }
        other => quote!(#other),
    });
    quote!(#(#items)*)
}

/// Whether the method has a parameter named `id` (the document it writes).
fn takes_id(sig: &syn::Signature) -> bool {
    sig.inputs.iter().any(|a| match a {
        syn::FnArg::Typed(p) => matches!(&*p.pat, syn::Pat::Ident(i) if i.ident == "id"),
        syn::FnArg::Receiver(_) => false,
    })
}
