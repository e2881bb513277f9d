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
fn json_literal(v: &Value) -> Literal {
    let text = v.to_string();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strings_have_enough_hashes() {
        let l = json_literal(&serde_json::json!({"a": "say \"#hi\"##"}));
        assert_eq!(l.to_string(), r####"r###"{"a":"say \"#hi\"##"}"###"####);
        let l = json_literal(&serde_json::json!({"b": 1}));
        assert_eq!(l.to_string(), r##"r#"{"b":1}"#"##);
    }
}
