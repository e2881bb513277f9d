//! The `INDEXES` constant: declared indexes, field-level indexes, and the indexes the layouts need.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Item;
use crate::attr::{IndexDecl, KeyKind, Layout};

/// An index to emit.
pub struct IndexOut {
    pub decl: IndexDecl,
}

fn keys(list: &[(&str, KeyKind)]) -> Vec<(String, KeyKind)> {
    list.iter().map(|(k, d)| ((*k).to_owned(), *d)).collect()
}

fn plain(list: &[(&str, KeyKind)], unique: bool) -> IndexOut {
    IndexOut {
        decl: IndexDecl {
            keys: keys(list),
            unique,
            ..IndexDecl::default()
        },
    }
}

fn bson_of<'i>(item: &'i Item<'_>, ident: &syn::Ident) -> &'i str {
    item.field(ident).map_or("", |f| f.bson.as_str())
}

/// Every index of the item, in a stable order: declared, field-level, then implied by layouts
/// (unless `implied_indexes = false`); an implied index whose keys a declared one already has is
/// left out.
pub fn collect(item: &Item<'_>) -> Vec<IndexOut> {
    let mut out: Vec<IndexOut> = item
        .attrs
        .indexes
        .iter()
        .map(|(d, _)| IndexOut { decl: d.clone() })
        .collect();
    for f in &item.fields {
        if let Some((d, _)) = &f.attrs.index {
            let mut d = d.clone();
            d.keys = vec![(
                f.bson.clone(),
                if d.desc { KeyKind::Desc } else { KeyKind::Asc },
            )];
            out.push(IndexOut { decl: d });
        }
    }
    let mut implied: Vec<IndexOut> = Vec::new();
    for f in &item.fields {
        match f.attrs.layout.as_ref().map(|(l, _)| l) {
            Some(Layout::ChildRef { order, id, .. }) => {
                // The reference, then the order `find_by_<f>` pages in, then `_id`: the index
                // serves its keyset pages.
                let path = match id {
                    Some(id) => format!("{}.{id}", f.bson),
                    None => f.bson.clone(),
                };
                let mut k: Vec<(&str, KeyKind)> = vec![(&path, KeyKind::Asc)];
                k.extend(order.iter().map(|(p, d)| (p.as_str(), *d)));
                if !order.iter().any(|(p, _)| p == "_id") {
                    k.push(("_id", KeyKind::Asc));
                }
                implied.push(plain(&k, false));
            }
            // `find_by_<f>` of an array of ids pages the documents holding an id in `_id` order.
            Some(Layout::ParentRefs { find_by: true, .. }) => {
                implied.push(plain(
                    &[(&f.bson, KeyKind::Asc), ("_id", KeyKind::Asc)],
                    false,
                ));
            }
            // `find_by_<f>` of an array of references with fields pages the documents holding
            // an element that references one, in `_id` order.
            Some(Layout::Embed {
                find_by: Some((_, id)),
                ..
            }) => {
                let path = format!("{}.{id}", f.bson);
                implied.push(plain(
                    &[(&path, KeyKind::Asc), ("_id", KeyKind::Asc)],
                    false,
                ));
            }
            Some(Layout::Bucket {
                keys: bucket_keys,
                count,
                start,
                ..
            }) => {
                let mut k: Vec<(&str, KeyKind)> = bucket_keys
                    .iter()
                    .map(|k| (bson_of(item, k), KeyKind::Asc))
                    .collect();
                let count_name = match count {
                    Some(c) => bson_of(item, c),
                    None => item
                        .fields
                        .iter()
                        .find(|x| x.ident == "count")
                        .map_or("count", |x| x.bson.as_str()),
                };
                let mut by_count = k.clone();
                by_count.push((count_name, KeyKind::Asc));
                implied.push(plain(&by_count, false));
                if let Some(s) = start {
                    k.push((bson_of(item, s), KeyKind::Asc));
                    implied.push(plain(&k, false));
                }
            }
            _ => {}
        }
    }
    if let Some(q) = &item.attrs.queue {
        // The claim's filter and its whole sort (`_id` breaks ties), so a claim reads one entry:
        // without `done` and `_id` the server sorts every waiting job, and skips every done one,
        // on each claim.
        let mut k = vec![(bson_of(item, &q.in_progress), KeyKind::Asc)];
        if let Some(done) = &q.done {
            k.push((bson_of(item, done), KeyKind::Asc));
        }
        k.extend([
            (bson_of(item, &q.priority), KeyKind::Desc),
            ("_id", KeyKind::Asc),
        ]);
        implied.push(plain(&k, false));
    }
    if let Some(t) = &item.attrs.tree {
        implied.push(plain(&[(bson_of(item, &t.ancestors), KeyKind::Asc)], false));
        implied.push(plain(&[(bson_of(item, &t.parent), KeyKind::Asc)], false));
    }
    if let Some(v) = &item.attrs.versioned {
        implied.push(plain(
            &[
                (bson_of(item, &v.key), KeyKind::Asc),
                (bson_of(item, &v.valid_to), KeyKind::Asc),
                (bson_of(item, &v.valid_from), KeyKind::Desc),
            ],
            false,
        ));
        implied.push(plain(
            &[
                (bson_of(item, &v.key), KeyKind::Asc),
                (bson_of(item, &v.version), KeyKind::Asc),
            ],
            true,
        ));
    }
    if let Some(l) = &item.attrs.link {
        if let [(a, _), (b, _)] = l.ends.as_slice() {
            let (a, b) = (bson_of(item, a), bson_of(item, b));
            implied.push(plain(&[(a, KeyKind::Asc), (b, KeyKind::Asc)], true));
            implied.push(plain(&[(b, KeyKind::Asc), (a, KeyKind::Asc)], false));
        }
    }
    if !item.attrs.implied_indexes {
        return out;
    }
    for i in implied {
        if !out.iter().any(|o| o.decl.keys == i.decl.keys) {
            out.push(i);
        }
    }
    out
}

/// `::squillion::IndexSpec { ... }` tokens.
pub fn spec_tokens(d: &IndexDecl) -> TokenStream {
    let name = match &d.name {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let keys = d.keys.iter().map(|(path, kind)| {
        let kind = match kind {
            KeyKind::Asc => quote!(Asc),
            KeyKind::Desc => quote!(Desc),
            KeyKind::Text => quote!(Text),
            KeyKind::Hashed => quote!(Hashed),
            KeyKind::Sphere2d => quote!(Sphere2d),
        };
        quote!((#path, ::squillion::IndexKind::#kind))
    });
    let unique = d.unique;
    let sparse = d.sparse;
    let ttl = match d.ttl {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let partial = match &d.partial {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    };
    let collation = match &d.collation {
        Some((locale, strength)) => {
            quote!(::core::option::Option::Some(::squillion::IndexCollation { locale: #locale, strength: #strength }))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        ::squillion::IndexSpec {
            name: #name,
            keys: &[#(#keys),*],
            unique: #unique,
            sparse: #sparse,
            expire_after_seconds: #ttl,
            partial_filter: #partial,
            collation: #collation,
        }
    }
}
