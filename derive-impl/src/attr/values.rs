//! The values inside `#[squillion(...)]`: literals, names, paths, and index declarations.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Ident, LitInt, LitStr, Token};

use crate::ctxt::Ctxt;

use super::*;

/// Skips the value of a key we reported as unknown (`= expr` or `(...)`), so reading goes on.
pub(super) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: proc_macro2::TokenStream = _content.parse()?;
    }
    Ok(())
}

pub(super) fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        })
}

pub(super) fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

pub(super) fn lit_u64(meta: &ParseNestedMeta<'_>) -> syn::Result<(u64, Span)> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

pub(super) fn lit_i64(meta: &ParseNestedMeta<'_>) -> syn::Result<(i64, Span)> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

pub(super) fn lit_f64(meta: &ParseNestedMeta<'_>) -> syn::Result<f64> {
    let input = meta.value()?;
    let neg = input.peek(Token![-]);
    if neg {
        let _: Token![-] = input.parse()?;
    }
    let lit: syn::Lit = input.parse()?;
    let v = match &lit {
        syn::Lit::Int(i) => i.base10_parse::<f64>()?,
        syn::Lit::Float(f) => f.base10_parse::<f64>()?,
        other => return Err(syn::Error::new(other.span(), "expected a number")),
    };
    Ok(if neg { -v } else { v })
}

pub(super) fn path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    meta.value()?.parse()
}

pub(super) fn ident_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Ident> {
    let input = meta.value()?;
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        return s.parse();
    }
    input.parse()
}

/// A name given as an identifier or a string (`sort = time` or `sort = "time.at"`).
pub(super) fn name_value(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    let input = meta.value()?;
    name_of(input)
}

pub(super) fn name_of(input: ParseStream<'_>) -> syn::Result<String> {
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        if s.value().is_empty() {
            return Err(syn::Error::new(
                s.span(),
                "expected a field name, found an empty string",
            ));
        }
        Ok(s.value())
    } else {
        let i: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        Ok(i.to_string())
    }
}

/// `(a, b, "c.d")`: a list of names.
pub(super) fn name_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let names = content.parse_terminated(name_of, Token![,])?;
    Ok(names.into_iter().collect())
}

/// `keys(a, b = -1, "c.d" = 1, e = "text", f = desc)`.
pub(super) fn index_keys(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(String, KeyKind)>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let keys = content.parse_terminated(
        |input: ParseStream<'_>| {
            let name = name_of(input)?;
            let mut kind = KeyKind::Asc;
            if input.peek(Token![=]) {
                let _: Token![=] = input.parse()?;
                kind = key_kind(input)?;
            }
            Ok((name, kind))
        },
        Token![,],
    )?;
    Ok(keys.into_iter().collect())
}

pub(super) fn key_kind(input: ParseStream<'_>) -> syn::Result<KeyKind> {
    if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        let one: LitInt = input.parse()?;
        if one.base10_digits() == "1" {
            return Ok(KeyKind::Desc);
        }
        return Err(syn::Error::new(minus.span, "an index direction is 1 or -1"));
    }
    if input.peek(LitInt) {
        let one: LitInt = input.parse()?;
        if one.base10_digits() == "1" {
            return Ok(KeyKind::Asc);
        }
        return Err(syn::Error::new(one.span(), "an index direction is 1 or -1"));
    }
    let (word, span) = if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        (s.value(), s.span())
    } else {
        let i: Ident = input.parse()?;
        (i.to_string(), i.span())
    };
    match word.as_str() {
        "asc" => Ok(KeyKind::Asc),
        "desc" => Ok(KeyKind::Desc),
        "text" => Ok(KeyKind::Text),
        "hashed" => Ok(KeyKind::Hashed),
        "2dsphere" => Ok(KeyKind::Sphere2d),
        _ => Err(syn::Error::new(
            span,
            format!("unknown index key kind `{word}`; expected 1, -1, asc, desc, \"text\", \"hashed\" or \"2dsphere\""),
        )),
    }
}

/// The options of `index(...)` (container or field level); `keys` only on the container.
pub(super) fn index_decl(
    meta: &ParseNestedMeta<'_>,
    cx: &Ctxt,
    container: bool,
) -> syn::Result<IndexDecl> {
    let mut decl = IndexDecl::default();
    if !meta.input.peek(syn::token::Paren) {
        return Ok(decl);
    }
    meta.parse_nested_meta(|m| {
        let key = key_name(&m);
        match key.as_str() {
            "keys" if container => decl.keys = index_keys(&m)?,
            "name" => decl.name = Some(lit_str(&m)?.value()),
            "unique" => decl.unique = true,
            "sparse" => decl.sparse = true,
            "desc" if !container => decl.desc = true,
            "asc" if !container => decl.desc = false,
            "ttl" | "expire_after_seconds" => decl.ttl = Some(lit_u64(&m)?.0),
            "partial" => {
                let s = lit_str(&m)?;
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&s.value())
                    .map_err(|e| e.to_string())
                    .and_then(|v| {
                        if v.is_object() {
                            Ok(())
                        } else {
                            Err("expected a JSON object".to_owned())
                        }
                    })
                {
                    cx.error_spanned_by(
                        &s,
                        format!(
                            "`partial` must be a JSON object (the partial filter expression): {e}"
                        ),
                    );
                }
                decl.partial = Some(s.value());
            }
            "collation" => {
                let mut locale = None;
                let mut strength = None;
                m.parse_nested_meta(|c| {
                    match key_name(&c).as_str() {
                        "locale" => locale = Some(lit_str(&c)?.value()),
                        "strength" => {
                            let (s, span) = lit_i64(&c)?;
                            if !(1..=5).contains(&s) {
                                cx.error_at(
                                    span,
                                    "collation strength is 1 to 5 (2: case-insensitive)",
                                );
                            }
                            strength = Some(s as i32);
                        }
                        other => {
                            cx.error_spanned_by(
                                &c.path,
                                format!(
                                    "unknown collation option `{other}`; expected locale, strength"
                                ),
                            );
                            skip_value(&c)?;
                        }
                    }
                    Ok(())
                })?;
                decl.collation = Some((
                    locale.unwrap_or_else(|| "en".to_owned()),
                    strength.unwrap_or(2),
                ));
            }
            other => {
                let expected = if container {
                    "keys, name, unique, sparse, ttl, partial, collation"
                } else {
                    "name, unique, sparse, asc, desc, ttl, partial, collation"
                };
                cx.error_spanned_by(
                    &m.path,
                    format!("unknown index option `{other}`; expected one of: {expected}"),
                );
                skip_value(&m)?;
            }
        }
        Ok(())
    })?;
    if decl.sparse && decl.partial.is_some() {
        cx.error_spanned_by(&meta.path, "an index cannot be both `sparse` and `partial` (MongoDB refuses the combination); a partial filter like `{\"field\": {\"$exists\": true}}` already skips documents without the field");
    }
    if container && decl.keys.is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "an index needs its keys: `index(keys(field, other = -1))`",
        );
    }
    Ok(decl)
}
