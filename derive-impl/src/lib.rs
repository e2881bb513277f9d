//! The expansion of `#[derive(squillion::Document)]`, as a library over `proc_macro2` tokens so it
//! is testable without a compiler in the loop.
//!
//! [`derive_document`] parses the item, reads every `#[squillion(...)]` attribute (collecting all
//! errors of the item, like serde's `Ctxt`), checks the layouts against the field types, and writes
//! the `squillion::Document` impl and the `<Name>Repo` repository. The attribute language is
//! described in `docs/derive.md`.
#![deny(missing_docs)]

#[allow(missing_docs)]
mod ast;
#[allow(missing_docs)]
mod attr;
mod case;
mod ctxt;
mod expand;
pub mod names;
mod types;

use proc_macro2::TokenStream;

/// Expands `#[derive(Document)]` on `input` (the item's tokens).
pub fn derive_document(input: TokenStream) -> syn::Result<TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let cx = ctxt::Ctxt::new();
    let item = ast::Item::from_ast(&cx, &input);
    cx.check()?;
    match item {
        Some(item) => Ok(expand::expand(&item)),
        None => Err(syn::Error::new_spanned(
            &input.ident,
            "cannot derive Document",
        )),
    }
}
