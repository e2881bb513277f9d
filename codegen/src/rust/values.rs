//! Indexes and validators as Rust expressions for generated code.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde_json::Value;

use crate::plan::Collection;

/// `vec![IndexModel, ...]` for a collection's indexes.
pub(super) fn indexes(c: &Collection) -> TokenStream {
    let models = c.indexes.iter().map(|i| {
        let keys = i.keys.iter().map(|k| {
            let path = &k.path;
            let dir = Literal::i32_unsuffixed(k.direction);
            quote!(#path: #dir)
        });
        let name = &i.name;
        let mut options = quote!(.name(::std::string::String::from(#name)));
        if i.unique {
            options.extend(quote!(.unique(true)));
        }
        if i.sparse {
            options.extend(quote!(.sparse(true)));
        }
        if let Some(t) = i.expire_after_seconds {
            let t = Literal::u64_unsuffixed(t);
            options.extend(quote!(.expire_after(::std::time::Duration::from_secs(#t))));
        }
        if let Some(c) = &i.collation {
            let locale = &c.locale;
            let strength = match c.strength {
                1 => quote!(Primary),
                2 => quote!(Secondary),
                3 => quote!(Tertiary),
                4 => quote!(Quaternary),
                _ => quote!(Identical),
            };
            options.extend(quote!(.collation(
                ::squillion::__private::mongodb::options::Collation::builder()
                    .locale(#locale)
                    .strength(::squillion::__private::mongodb::options::CollationStrength::#strength)
                    .build()
            )));
        }
        if let Some(p) = &i.partial_filter {
            let doc = document(p);
            options.extend(quote!(.partial_filter_expression(#doc)));
        }
        quote! {
            ::squillion::__private::mongodb::IndexModel::builder()
                .keys(::squillion::__private::bson::doc! { #(#keys),* })
                .options(::squillion::__private::mongodb::options::IndexOptions::builder() #options .build())
                .build()
        }
    });
    quote!(::std::vec![#(#models),*])
}

/// Doc lines listing each index and what it serves.
pub(super) fn index_docs(c: &Collection) -> Vec<String> {
    let mut lines = Vec::new();
    for i in &c.indexes {
        lines.push(String::new());
        lines.push(format!("- `{}`: {}", i.name, i.reasons.join("; ")));
    }
    lines
}

/// The collection's `$jsonSchema` as a `bson::Document` expression.
pub(super) fn validator(c: &Collection) -> TokenStream {
    document(&crate::validator::document_schema(c))
}

/// A JSON object as a `doc!` expression.
fn document(v: &Value) -> TokenStream {
    match v {
        Value::Object(map) => {
            let entries = map.iter().map(|(k, v)| {
                let v = bson(v);
                quote!(#k: #v)
            });
            quote!(::squillion::__private::bson::doc! { #(#entries),* })
        }
        other => {
            let v = bson(other);
            quote!(::squillion::__private::bson::doc! { "value": #v })
        }
    }
}

fn bson(v: &Value) -> TokenStream {
    match v {
        Value::Null => quote!(::squillion::__private::bson::Bson::Null),
        Value::Bool(b) => quote!(#b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if let Ok(small) = i32::try_from(i) {
                    let l = Literal::i32_suffixed(small);
                    quote!(#l)
                } else {
                    let l = Literal::i64_suffixed(i);
                    quote!(#l)
                }
            } else {
                let l = Literal::f64_suffixed(n.as_f64().unwrap_or(0.0));
                quote!(#l)
            }
        }
        Value::String(s) => quote!(#s),
        Value::Array(items) => {
            let items = items.iter().map(bson);
            quote!([#(#items),*])
        }
        Value::Object(map) => {
            let entries = map.iter().map(|(k, v)| {
                let v = bson(v);
                quote!(#k: #v)
            });
            quote!({ #(#entries),* })
        }
    }
}
