//! What the compiler would refuse in a generated module, found without compiling it: the module
//! is parsed with `syn`, every `#[derive(squillion::Document)]` is expanded with the derive's own
//! library, and every name is looked for twice in its namespace (items of the module, the
//! inherent methods and constants of each type, the fields of each struct and variant, the
//! variants of each enum, the parameters of each function). Tests and the `generate` fuzz target
//! hold the emitter to it: [`super::clashes`] must have reported, before generation, every
//! duplicate this finds.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;

/// The duplicate definitions of the generated `module` (empty when it is sound), or why it does
/// not parse or a derive refuses it.
pub fn duplicate_definitions(module: &str) -> Result<Vec<String>, String> {
    let file = syn::parse_file(module).map_err(|e| format!("the module does not parse: {e}"))?;
    let mut items: Vec<syn::Item> = Vec::new();
    for item in file.items {
        if let syn::Item::Struct(s) = &item {
            if derives_document(&s.attrs) {
                let expanded = squillion_derive_impl::derive_document(s.to_token_stream())
                    .map_err(|e| format!("the derive refuses `{}`: {e}", s.ident))?;
                let expanded: syn::File = syn::parse2(expanded).map_err(|e| {
                    format!("the derive's code for `{}` does not parse: {e}", s.ident)
                })?;
                items.extend(expanded.items);
            }
        }
        items.push(item);
    }
    let mut out = Vec::new();
    let mut module_names = Names::new("the module");
    let mut inherent: BTreeMap<String, Names> = BTreeMap::new();
    for item in &items {
        match item {
            syn::Item::Struct(s) => {
                module_names.add(&s.ident.to_string(), &mut out);
                let mut fields = Names::new(&format!("the fields of `{}`", s.ident));
                for f in &s.fields {
                    if let Some(i) = &f.ident {
                        fields.add(&unraw(i), &mut out);
                    }
                }
            }
            syn::Item::Enum(e) => {
                module_names.add(&e.ident.to_string(), &mut out);
                let mut variants = Names::new(&format!("the variants of `{}`", e.ident));
                for v in &e.variants {
                    variants.add(&v.ident.to_string(), &mut out);
                    let mut fields =
                        Names::new(&format!("the fields of `{}::{}`", e.ident, v.ident));
                    for f in &v.fields {
                        if let Some(i) = &f.ident {
                            fields.add(&unraw(i), &mut out);
                        }
                    }
                }
            }
            syn::Item::Fn(f) => {
                module_names.add(&f.sig.ident.to_string(), &mut out);
                parameters(&f.sig, &mut out);
            }
            syn::Item::Const(c) => module_names.add(&c.ident.to_string(), &mut out),
            syn::Item::Static(s) => module_names.add(&s.ident.to_string(), &mut out),
            syn::Item::Type(t) => module_names.add(&t.ident.to_string(), &mut out),
            syn::Item::Trait(t) => module_names.add(&t.ident.to_string(), &mut out),
            syn::Item::Mod(m) => module_names.add(&m.ident.to_string(), &mut out),
            syn::Item::Impl(i) if i.trait_.is_none() => {
                let ty = i.self_ty.to_token_stream().to_string();
                let names = inherent
                    .entry(ty.clone())
                    .or_insert_with(|| Names::new(&format!("the methods of `{ty}`")));
                for item in &i.items {
                    match item {
                        syn::ImplItem::Fn(f) => {
                            names.add(&unraw(&f.sig.ident), &mut out);
                            parameters(&f.sig, &mut out);
                        }
                        syn::ImplItem::Const(c) => names.add(&c.ident.to_string(), &mut out),
                        syn::ImplItem::Type(t) => names.add(&t.ident.to_string(), &mut out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn derives_document(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.meta
                .to_token_stream()
                .to_string()
                .replace(' ', "")
                .contains("squillion::Document")
    })
}

fn unraw(ident: &syn::Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}

fn parameters(sig: &syn::Signature, out: &mut Vec<String>) {
    let mut names = Names::new(&format!("the parameters of `{}`", sig.ident));
    for input in &sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            if let syn::Pat::Ident(p) = &*t.pat {
                names.add(&unraw(&p.ident), out);
            }
        }
    }
}

/// The names of one namespace.
struct Names {
    what: String,
    seen: BTreeSet<String>,
}

impl Names {
    fn new(what: &str) -> Self {
        Names {
            what: what.to_owned(),
            seen: BTreeSet::new(),
        }
    }

    fn add(&mut self, name: &str, out: &mut Vec<String>) {
        if !self.seen.insert(name.to_owned()) {
            out.push(format!("`{name}` twice in {}", self.what));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_in_every_namespace() {
        let module = r#"
            pub struct A { pub x: u8, pub r#x: u8 }
            pub struct A;
            pub enum E { V { a: u8, a: u8 }, V }
            impl A { pub fn f(&self, p: u8, p: u8) {} }
            impl A { pub const f: u8 = 0; }
        "#;
        let found = duplicate_definitions(module).unwrap();
        for expected in [
            "`x` twice in the fields of `A`",
            "`A` twice in the module",
            "`a` twice in the fields of `E::V`",
            "`V` twice in the variants of `E`",
            "`p` twice in the parameters of `f`",
            "`f` twice in the methods of `A`",
        ] {
            assert!(found.iter().any(|f| f == expected), "{expected}: {found:?}");
        }
        assert!(duplicate_definitions("pub struct").is_err());
    }
}
