//! Indexes and validators as Rust expressions for generated code: each a raw string of compact
//! JSON (the documents `squillion indexes` and the mongosh script apply) read by a small runtime
//! function, so the generated file shows the documents as MongoDB sees them and stays short.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde_json::Value;

use crate::plan::Collection;

/// `index_models(r#"[...]"#)` for a collection's indexes: one `createIndexes` index document
/// (`key` and the options) per index.
pub(super) fn indexes(c: &Collection) -> TokenStream {
    if c.indexes.is_empty() {
        return quote!(::std::vec::Vec::new());
    }
    let models: Vec<Value> = c
        .indexes
        .iter()
        .map(|i| {
            let mut doc = serde_json::Map::new();
            doc.insert("key".to_owned(), crate::scripts::keys(i));
            if let Value::Object(options) = crate::scripts::options(i) {
                doc.extend(options);
            }
            Value::Object(doc)
        })
        .collect();
    let text = json_literal(&Value::Array(models));
    quote!(::squillion::__private::json::index_models(#text))
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
    let text = json_literal(&crate::validator::document_schema(c));
    quote!(::squillion::__private::json::schema(#text))
}

/// Compact JSON as a raw string literal (`r#"..."#`, with as many `#` as the text needs).
/// Characters rustc refuses in a literal (direction-changing ones) or that would hide text are
/// written as JSON escapes (`\u202e`): they can only stand inside JSON strings.
fn json_literal(v: &Value) -> Literal {
    let mut text = String::new();
    for c in v.to_string().chars() {
        if squillion_grammar::is_invisible(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                text.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            text.push(c);
        }
    }
    raw_string(&text).unwrap_or_else(|| Literal::string(&text))
}

fn raw_string(text: &str) -> Option<Literal> {
    // One more `#` than the longest run of `#` after a quote in the text.
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].bytes().take_while(|b| *b == b'#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}").parse().ok()
}

/// `impl T { fn <end>_avg(&self) -> Option<f64> }`: every `avg(f)` summary of the documents of
/// `c`, read as the stored total divided by the stored count (`None` when there are no children).
pub(super) fn averages(
    plan: &crate::plan::Plan,
    c: &Collection,
    name: &proc_macro2::Ident,
) -> TokenStream {
    use crate::plan::ComputedFn;
    let mut methods = Vec::new();
    for d in &plan.relationships {
        for x in d.computed.iter().filter(|x| x.collection == c.name) {
            let ComputedFn::Average {
                total_path,
                count_path,
            } = &x.function
            else {
                continue;
            };
            let (Some(total), Some(count)) = (c.field(total_path), c.field(count_path)) else {
                continue;
            };
            let method = super::names::field_ident(&x.path);
            let total_is_float = total.bson_type == "double";
            let total = super::names::field_ident(&total.code_name);
            // Casting an f64 to f64 is a clippy warning in generated code.
            let total = if total_is_float {
                quote!(self.#total)
            } else {
                quote!(self.#total as f64)
            };
            let count = super::names::field_ident(&count.code_name);
            let doc = format!(
                " The average of `{}` over the {} ({}): `{total_path}` / `{count_path}`, both kept on write; `None` when there are none.",
                x.field.as_deref().unwrap_or_default(),
                crate::prose::plural(&d.child),
                d.id
            );
            methods.push(quote! {
                #[doc = #doc]
                pub fn #method(&self) -> ::core::option::Option<f64> {
                    if self.#count == 0 {
                        ::core::option::Option::None
                    } else {
                        ::core::option::Option::Some(#total / self.#count as f64)
                    }
                }
            });
        }
    }
    if methods.is_empty() {
        return TokenStream::new();
    }
    quote! {
        impl #name {
            #(#methods)*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strings_have_enough_hashes() {
        let l = json_literal(&serde_json::json!({"a": "say \"#hi\"##"}));
        assert_eq!(l.to_string(), r####"r###"{"a":"say \"#hi\"##"}"###"####);
        let l = json_literal(&serde_json::json!({"b": 1}));
        assert_eq!(l.to_string(), r##"r#"{"b":1}"#"##);
        let l = json_literal(&serde_json::json!({"c": "a\u{202E}b"}));
        assert_eq!(l.to_string(), r##"r#"{"c":"a\u202eb"}"#"##);
    }
}
