//! The repository's methods, named in the collection struct's doc comment, so that a reader of
//! the generated file (where the derive's expansion is invisible) finds them without guessing.
//! The names come from where the methods are made: the derive's own expansion of the struct
//! (the one the compiler runs) and the query methods' names ([`super::queries::method_names`]).

use proc_macro2::TokenStream;

use crate::plan::Plan;

/// The doc lines naming the methods of the repository of the struct `item` (the struct's
/// tokens, with its `#[derive(Document)]`) of collection `collection`: what the derive writes,
/// then each query's. Empty when the derive refuses the struct (its errors are reported by the
/// compiler, with spans).
pub(super) fn doc_lines(plan: &Plan, collection: &str, item: TokenStream) -> Vec<String> {
    let Ok(expanded) = squillion_derive_impl::derive_document(item) else {
        return Vec::new();
    };
    let Ok(file) = syn::parse2::<syn::File>(expanded) else {
        return Vec::new();
    };
    let mut repository = None;
    let mut derived: Vec<String> = Vec::new();
    for item in file.items {
        let syn::Item::Impl(i) = item else { continue };
        if i.trait_.is_some() {
            continue;
        }
        if let syn::Type::Path(p) = &*i.self_ty {
            repository = p.path.segments.last().map(|s| s.ident.to_string());
        }
        for item in i.items {
            if let syn::ImplItem::Fn(f) = item {
                if matches!(f.vis, syn::Visibility::Public(_)) {
                    derived.push(f.sig.ident.to_string());
                }
            }
        }
    }
    let Some(repository) = repository else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "Repository: `{repository}::new(&db)`, written by `#[derive(squillion::Document)]`, with {}.",
        listed(&derived)
    )];
    let queries: Vec<String> = super::queries::with_methods(plan, collection)
        .flat_map(super::queries::method_names)
        .map(|n| super::names::field_ident(&n).to_string())
        .collect();
    if !queries.is_empty() {
        lines.push(format!(
            "Its declared queries (below): {}.",
            listed(&queries)
        ));
    }
    lines
}

/// "`a`, `b`, `c`".
fn listed(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
