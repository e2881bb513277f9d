//! The Rust enum of an enumeration field (`status: one_of("new", "paid")`): one unit variant per
//! value, renamed by serde to the exact stored text, with `ALL`, `as_str` and `Display`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::names::{self, enum_variant};
use super::{docs, serde_path, Generator};
use crate::plan::PlanField;

impl Generator<'_> {
    /// The enum of enumeration field `f` of struct `owner`, generated once per name and values.
    pub(super) fn enum_type(&mut self, f: &PlanField, owner: &str) -> Ident {
        let base = format!("{owner}{}", names::pascal(&f.code_name));
        let signature = format!("enum{:?}", f.enum_values);
        let (ident, new) = self.types.embedded(&base, &signature, false);
        if new {
            self.items.push(definition(&ident, f));
        }
        ident
    }
}

fn definition(ident: &Ident, f: &PlanField) -> TokenStream {
    let variants: Vec<Ident> = f
        .enum_values
        .iter()
        .map(|v| Ident::new(&enum_variant(v), proc_macro2::Span::call_site()))
        .collect();
    let values = &f.enum_values;
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    let doc = docs(&[format!(
        "The values of `{}`: {} (stored as these strings).",
        f.path,
        quoted.join(", ")
    )]);
    let value_docs: Vec<TokenStream> = quoted
        .iter()
        .map(|q| docs(&[format!("Stored as {q}.")]))
        .collect();
    let count = proc_macro2::Literal::usize_unsuffixed(values.len());
    let serde = serde_path();
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, #serde::Serialize, #serde::Deserialize)]
        #[serde(crate = "::squillion::__private::serde")]
        #[allow(clippy::enum_variant_names, clippy::upper_case_acronyms)]
        pub enum #ident {
            #(
                #value_docs
                #[serde(rename = #values)]
                #variants,
            )*
        }

        impl #ident {
            /// Every value, in the order the schema lists them.
            pub const ALL: [Self; #count] = [#(Self::#variants),*];

            /// The string the value is stored as.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
        }

        impl ::std::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::convert::From<#ident> for ::squillion::bson::Bson {
            fn from(value: #ident) -> Self {
                ::squillion::bson::Bson::String(value.as_str().to_owned())
            }
        }
    }
}
