//! What a parent keeps of children that live in their own collection (subsets and top-N lists
//! refilled from the children, summaries of all the children), and the children's writes that
//! keep it: the parent's `KEEPS` (one `Subset` per kind of child and reference to the parent), and,
//! on a struct declared `kept_by`, the insert, replace, delete and field updates that keep every
//! parent in step in the same transaction.

use proc_macro2::TokenStream;
use quote::quote;

use super::lists::refilled_of;
use super::rt;
use crate::ast::{Field, Item};
use crate::attr::SummaryDecl;

fn same_path(a: &syn::Path, b: &syn::Path) -> bool {
    quote!(#a).to_string() == quote!(#b).to_string()
}

/// `ComputedField { .. }` of computed field `c`.
fn computed_field(c: &Field<'_>) -> Option<TokenStream> {
    Some(computed_literal(
        &c.bson,
        &c.attrs.computed.as_ref()?.summary,
    ))
}

/// `ComputedField { path, summary }`: the summary `s` stored at `path`.
pub(super) fn computed_literal(path: &str, s: &SummaryDecl) -> TokenStream {
    let rt = rt();
    let summary = match s {
        SummaryDecl::Count => quote!(#rt::arrays::Summary::Count),
        SummaryDecl::Sum(f) => quote!(#rt::arrays::Summary::Sum(#f)),
        SummaryDecl::Max(f) => quote!(#rt::arrays::Summary::Max(#f)),
        SummaryDecl::Min(f) => quote!(#rt::arrays::Summary::Min(#f)),
    };
    quote!(#rt::arrays::ComputedField { path: #path, summary: #summary })
}

/// What `item` keeps of the children of type `to` naming it at `key`.
pub(super) struct Group<'i, 'a> {
    /// The refilled lists (subsets, top-N lists).
    pub lists: Vec<&'i Field<'a>>,
    /// The summaries: of the lists' children, or declared with `to` and `key`.
    pub summaries: Vec<&'i Field<'a>>,
}

/// The lists and summaries `item` keeps of the children of type `to` naming it at `key`.
pub(super) fn group<'i, 'a>(item: &'i Item<'a>, to: &syn::Path, key: &str) -> Group<'i, 'a> {
    let lists: Vec<&Field<'_>> = item
        .fields
        .iter()
        .filter(|x| refilled_of(x).is_some_and(|o| o.key == key && same_path(o.to, to)))
        .collect();
    let summaries = item
        .fields
        .iter()
        .filter(|c| {
            let of_list = c
                .computed_of
                .as_deref()
                .is_some_and(|of| lists.iter().any(|l| l.bson == of));
            let declared = c
                .attrs
                .computed
                .as_ref()
                .and_then(|d| d.children.as_ref())
                .is_some_and(|(t, k)| k == key && same_path(t, to));
            of_list || declared
        })
        .collect();
    Group { lists, summaries }
}

/// The `Subset` literal of a group.
pub(super) fn spec(item: &Item<'_>, to: &syn::Path, key: &str) -> TokenStream {
    let rt = rt();
    let g = group(item, to, key);
    let lists = g.lists.iter().filter_map(|x| {
        let o = refilled_of(x)?;
        let (p, sort, desc, latest, keep) = (&x.bson, o.sort, o.desc, o.latest, o.keep);
        let n = o.n as i64;
        Some(quote! {
            #rt::subsets::List { path: #p, sort_by: #sort, descending: #desc, n: #n, latest: #latest, keep: &[#(#keep),*] }
        })
    });
    let computed = g.summaries.iter().filter_map(|c| computed_field(c));
    quote! {
        #rt::subsets::Subset {
            lists: &[#(#lists),*],
            children: <#to as ::squillion::Document>::COLLECTION,
            key: #key,
            computed: &[#(#computed),*],
        }
    }
}

/// Every `(to, key)` of children `item` keeps something of, in field order.
fn kinds<'i>(item: &'i Item<'_>) -> Vec<(&'i syn::Path, &'i str)> {
    let mut out: Vec<(&syn::Path, &str)> = Vec::new();
    for f in &item.fields {
        let found = refilled_of(f).map(|o| (o.to, o.key)).or_else(|| {
            f.attrs
                .computed
                .as_ref()
                .and_then(|d| d.children.as_ref())
                .map(|(t, k)| (t, k.as_str()))
        });
        if let Some((to, key)) = found {
            if !out.iter().any(|(t, k)| *k == key && same_path(t, to)) {
                out.push((to, key));
            }
        }
    }
    out
}

/// `const KEEPS: ...` of the `Document` impl, when `item` keeps anything of children in their own
/// collection.
pub fn keeps_const(item: &Item<'_>) -> TokenStream {
    let rt = rt();
    let specs: Vec<TokenStream> = kinds(item)
        .into_iter()
        .map(|(to, key)| spec(item, to, key))
        .collect();
    if specs.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const KEEPS: &'static [#rt::subsets::Subset] = &[#(#specs),*];
    }
}

/// The sentence the inserts of a struct keeping lists or summaries of its children add to their
/// documentation; empty when it keeps none.
pub fn fills_sentence(item: &Item<'_>) -> String {
    if kinds(item).is_empty() {
        return String::new();
    }
    " The lists and summaries it keeps of its children in their own collection are filled from \
     the children already stored (a parent may be inserted after its children), not taken from \
     `doc`, in the same transaction (where the deployment runs them)."
        .to_owned()
}

/// The sentence the child's write methods add to their documentation.
fn keeps_sentence(item: &Item<'_>) -> String {
    let parents: Vec<String> = item
        .attrs
        .kept_by
        .iter()
        .map(|k| {
            let to = &k.to;
            format!(
                "`{}` (by `{}`)",
                quote!(#to).to_string().replace(' ', ""),
                k.key
            )
        })
        .collect();
    format!(
        " The parents that keep lists or summaries of these documents ({}) are kept in step in \
         the same transaction (where the deployment runs them): an insert is added to them \
         (`$push` with `$sort`/`$slice`, `$inc`, `$max`, `$min`); a replace, a delete or an update \
         of a field they read makes each parent before and after recompute them from this \
         collection (`$group`).",
        parents.join(", ")
    )
}

/// `fn keepers()` of the `Document` impl of a struct declared `kept_by`: every parent keeping
/// lists or summaries of it, with what it keeps (empty, the trait's default, otherwise).
pub fn keepers_fn(item: &Item<'_>) -> TokenStream {
    if item.attrs.kept_by.is_empty() {
        return TokenStream::new();
    }
    let rt = rt();
    let ident = item.ident;
    let finds = item.attrs.kept_by.iter().map(|k| {
        let (to, key) = (&k.to, &k.key);
        quote! {
            #rt::kept::keepers(
                <#to as ::squillion::Document>::COLLECTION,
                <#to as ::squillion::Document>::KEEPS,
                <#ident as ::squillion::Document>::COLLECTION,
                #key,
                &mut out,
            );
        }
    });
    quote! {
        fn keepers() -> #rt::Vec<#rt::kept::Keeper> {
            let mut out = #rt::Vec::new();
            #(#finds)*
            out
        }
    }
}

/// The insert, insert_many, replace and delete of a struct declared `kept_by`, and the
/// `keepers()` they use; `None` when the struct is kept by no parent.
pub fn writes(item: &Item<'_>) -> Option<TokenStream> {
    if item.attrs.kept_by.is_empty() {
        return None;
    }
    let rt = rt();
    let ident = item.ident;
    let id_ty = item.id_field().ty;
    let also = keeps_sentence(item);
    let fills = fills_sentence(item);
    let insert_doc = format!(
        "Inserts `doc` (`insertOne`), stamping the schema version when one is declared.{fills}{also}"
    );
    let many_doc = format!("Inserts every document (`insertMany`).{fills}{also}");
    let replace_doc = format!("Replaces the stored document with `doc` (`replaceOne({{_id}})`); false if none was stored.{also}");
    let delete_doc = format!("Deletes the document with this `_id` (`deleteOne({{_id}})`); false if there was none.{also}");
    Some(quote! {
        /// The parents keeping lists or summaries of these documents.
        fn keepers() -> #rt::Vec<#rt::kept::Keeper> {
            <#ident as ::squillion::Document>::keepers()
        }

        #[doc = #insert_doc]
        pub async fn insert(&self, doc: &#ident) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            #rt::kept::insert(self.core.raw(), transactions, &Self::keepers(), <#ident as ::squillion::Document>::KEEPS, ::std::vec![self.core.encode_filled(doc).await?]).await
        }

        #[doc = #many_doc]
        pub async fn insert_many(&self, docs: &[#ident]) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            let docs = self.core.encode_all_filled(docs).await?;
            #rt::kept::insert(self.core.raw(), transactions, &Self::keepers(), <#ident as ::squillion::Document>::KEEPS, docs).await
        }

        #[doc = #replace_doc]
        pub async fn replace(&self, doc: &#ident) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            #rt::kept::replace(self.core.raw(), transactions, &Self::keepers(), <#ident as ::squillion::Document>::KEEPS, self.core.encode_filled(doc).await?).await
        }

        #[doc = #delete_doc]
        pub async fn delete(&self, id: &#id_ty) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            #rt::kept::delete(self.core.raw(), transactions, &Self::keepers(), #rt::to_bson(id)?).await
        }
    })
}

/// An update of field `bson` of a struct declared `kept_by`: `kept` (the runtime's `kept::` write,
/// which refills the parents) when a parent reads the field, `plain` otherwise; `plain` alone for
/// a struct kept by no parent.
pub fn update(item: &Item<'_>, bson: &str, kept: TokenStream, plain: TokenStream) -> TokenStream {
    if item.attrs.kept_by.is_empty() {
        return plain;
    }
    let rt = rt();
    let top = bson.split('.').next().unwrap_or(bson);
    quote! {
        let keepers = Self::keepers();
        if #rt::kept::read_by(&keepers, #top) {
            let transactions = self.core.transactions_supported().await?;
            #kept
        } else {
            #plain
        }
    }
}
