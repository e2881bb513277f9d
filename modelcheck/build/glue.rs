//! The glue between the harness and one generated module: for every repository method the derive
//! writes (found by expanding the derive with `squillion-derive-impl`, so the list follows the
//! derive as it changes) and every query method the generator writes, a dispatch arm that turns
//! BSON arguments into the method's Rust types, calls it, and turns its result back into BSON.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{FnArg, ImplItem, Item, ReturnType, Type};

/// One method of a repository.
struct Method {
    name: syn::Ident,
    params: Vec<Type>,
    ret: Type,
}

/// The methods of `impl <repo>` blocks in `file`.
fn methods_of(file: &syn::File, repo: &str, out: &mut Vec<Method>) {
    for item in &file.items {
        let Item::Impl(imp) = item else { continue };
        if imp.trait_.is_some() || imp.self_ty.to_token_stream().to_string() != repo {
            continue;
        }
        for it in &imp.items {
            let ImplItem::Fn(f) = it else { continue };
            let sig = &f.sig;
            if sig.asyncness.is_none() || !sig.generics.params.is_empty() {
                continue;
            }
            if !matches!(f.vis, syn::Visibility::Public(_)) {
                continue;
            }
            let mut params = Vec::new();
            let mut has_self = false;
            for input in &sig.inputs {
                match input {
                    FnArg::Receiver(_) => has_self = true,
                    FnArg::Typed(t) => params.push((*t.ty).clone()),
                }
            }
            let ReturnType::Type(_, ret) = &sig.output else {
                continue;
            };
            if !has_self {
                continue;
            }
            out.push(Method {
                name: sig.ident.clone(),
                params,
                ret: (**ret).clone(),
            });
        }
    }
}

/// `T` of `::squillion::Result<T>`.
fn result_inner(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

fn compact(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

/// `T` of `Option<&T>`.
fn optional_borrow(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(Type::Reference(r)) => Some((*r.elem).clone()),
        _ => None,
    }
}

/// The statements that read argument `i` into a local, and the expression passing it.
fn param(i: usize, ty: &Type) -> (TokenStream, TokenStream) {
    let local = format_ident!("a{i}");
    if let Some(inner) = optional_borrow(ty) {
        // `Option<&T>` (a tree's parent): read as `Option<T>`, passed as `.as_ref()`.
        let read =
            quote! { let #local: ::core::option::Option<#inner> = crate::driver::arg(&args, #i)?; };
        return (read, quote!(#local.as_ref()));
    }
    let (owned, by_ref): (TokenStream, bool) = match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => (quote!(::std::string::String), true),
            Type::Slice(s) => {
                let e = &s.elem;
                (quote!(::std::vec::Vec<#e>), true)
            }
            other => (other.to_token_stream(), true),
        },
        other => (other.to_token_stream(), false),
    };
    let read = quote! { let #local: #owned = crate::driver::arg(&args, #i)?; };
    let pass = if by_ref {
        quote!(&#local)
    } else {
        quote!(#local)
    };
    (read, pass)
}

/// The expression turning the method's successful value `v` into BSON.
fn outcome(inner: &Type) -> TokenStream {
    let text = compact(inner);
    if text == "()" {
        quote!({
            let () = v;
            crate::driver::Value::Null
        })
    } else if text == "bool" {
        quote!(crate::driver::Value::Boolean(v))
    } else if text == "u64" {
        quote!(crate::driver::Value::Int64(
            i64::try_from(v).unwrap_or(i64::MAX)
        ))
    } else if text.ends_with("BucketAppend") {
        // The new bucket's `_id` (the reference learns it), or null for an existing bucket.
        quote!(match v {
            ::squillion::BucketAppend::NewBucket(id) => id,
            ::squillion::BucketAppend::Existing => crate::driver::Value::Null,
        })
    } else if text.contains("Page<") {
        quote!(crate::driver::ser(&v.items))
    } else if ["FanOutReport", "IndexReport", "ValidatorReport"]
        .iter()
        .any(|n| text.ends_with(n))
    {
        quote!(crate::driver::Value::String(format!("{v:?}")))
    } else {
        quote!(crate::driver::ser(&v))
    }
}

/// The glue of one generated module: `pub static METHODS` and `pub struct Glue`.
pub fn glue(rust: &str) -> Result<String, String> {
    let file: syn::File = syn::parse_str(rust).map_err(|e| format!("generated code: {e}"))?;
    let mut table = Vec::new();
    let mut dispatch = Vec::new();
    let mut functions = Vec::new();
    for item in &file.items {
        let Item::Struct(s) = item else { continue };
        let derives_document = s
            .attrs
            .iter()
            .any(|a| a.path().is_ident("derive") && compact(a).contains("squillion::Document"));
        if !derives_document {
            continue;
        }
        let ty = &s.ident;
        let repo = format_ident!("{}Repo", s.ident);
        let expanded = squillion_derive_impl::derive_document(s.to_token_stream())
            .map_err(|e| format!("derive of {ty}: {e}"))?;
        let expanded: syn::File =
            syn::parse2(expanded).map_err(|e| format!("expansion of {ty}: {e}"))?;
        let mut methods = Vec::new();
        methods_of(&expanded, &repo.to_string(), &mut methods);
        methods_of(&file, &repo.to_string(), &mut methods);
        let mut arms = Vec::new();
        for m in &methods {
            let Some(inner) = result_inner(&m.ret) else {
                continue;
            };
            // A parameter holding a borrow inside an owned type other than `Option<&T>` cannot
            // be read from BSON; such methods are not driven.
            if m.params.iter().any(|t| {
                let inner = match t {
                    Type::Reference(r) => compact(&r.elem),
                    other if optional_borrow(other).is_some() => String::new(),
                    other => compact(other),
                };
                inner.contains('&')
            }) {
                continue;
            }
            let name = &m.name;
            let name_str = name.to_string();
            let (reads, passes): (Vec<_>, Vec<_>) = m
                .params
                .iter()
                .enumerate()
                .map(|(i, t)| param(i, t))
                .unzip();
            let value = outcome(&inner);
            let params: Vec<String> = m.params.iter().map(compact).collect();
            let ret = compact(&inner);
            table.push(quote! {
                crate::driver::Method {
                    collection: <#ty as ::squillion::Document>::COLLECTION,
                    name: #name_str,
                    params: &[#(#params),*],
                    ret: #ret,
                }
            });
            arms.push(quote! {
                #name_str => {
                    #(#reads)*
                    ::std::result::Result::Ok(match repo.#name(#(#passes),*).await {
                        ::std::result::Result::Ok(v) => ::std::result::Result::Ok(#value),
                        ::std::result::Result::Err(e) => ::std::result::Result::Err(e),
                    })
                }
            });
        }
        let f = format_ident!("call_{}", s.ident.to_string().to_lowercase());
        functions.push(quote! {
            async fn #f(db: &crate::driver::Database, method: &str, args: ::std::vec::Vec<crate::driver::Value>) -> crate::driver::Outcome {
                let repo = #repo::new(db);
                match method {
                    #(#arms)*
                    other => ::std::result::Result::Err(format!("{} has no method `{other}`", <#ty as ::squillion::Document>::COLLECTION)),
                }
            }
        });
        dispatch.push(quote! {
            if collection == <#ty as ::squillion::Document>::COLLECTION {
                return ::std::boxed::Box::pin(#f(db, method, args));
            }
        });
    }
    let tokens = quote! {
        /// Every repository method of this module, as the harness sees it.
        pub static METHODS: &[crate::driver::Method] = &[#(#table),*];

        #(#functions)*

        /// Calls the generated repositories of this module.
        pub struct Glue;

        impl crate::driver::Driver for Glue {
            fn methods(&self) -> &'static [crate::driver::Method] {
                METHODS
            }

            fn call<'a>(
                &'a self,
                db: &'a crate::driver::Database,
                collection: &'a str,
                method: &'a str,
                args: ::std::vec::Vec<crate::driver::Value>,
            ) -> crate::driver::Call<'a> {
                #(#dispatch)*
                ::std::boxed::Box::pin(async move {
                    ::std::result::Result::Err(format!("no collection `{collection}`"))
                })
            }
        }
    };
    let file: syn::File = syn::parse2(tokens).map_err(|e| format!("glue: {e}"))?;
    Ok(prettyplease::unparse(&file))
}
