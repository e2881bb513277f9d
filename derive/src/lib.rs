//! The `#[derive(squillion::Document)]` macro.
//!
//! Thin on purpose: it hands the item to [`squillion_derive_impl::derive_document`], which parses
//! the `#[squillion(...)]` attributes, checks them (reporting every error of the item at once) and
//! writes the repository. Use it through the `squillion` crate (`squillion::Document`); the
//! attribute language is described in `docs/derive.md`.
#![deny(missing_docs)]

use proc_macro::TokenStream;

/// Derives `squillion::Document` and writes `<Name>Repo`, the typed repository of the struct's
/// collection. See `docs/derive.md` for every `#[squillion(...)]` attribute.
#[proc_macro_derive(Document, attributes(squillion))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    squillion_derive_impl::derive_document(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
