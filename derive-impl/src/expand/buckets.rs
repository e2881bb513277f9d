//! Children stored in chunks: a bucket layout's documents, and an outlier's overflow documents.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::layouts::computed_for;
use super::{method, rt};
use crate::ast::{Field, Item};

/// The bucket struct's fields a bucket layout names.
pub(super) struct BucketFields<'a> {
    pub(super) count: Option<&'a syn::Ident>,
    pub(super) start: Option<&'a syn::Ident>,
    pub(super) end: Option<&'a syn::Ident>,
    /// Path, in each child, of the key each bucket keeps its children sorted by.
    pub(super) sort: Option<&'a str>,
    /// The owner's lists of copies every append keeps.
    pub(super) kept: Option<&'a crate::attr::BucketKept>,
}

pub(super) fn bucket(
    item: &Item<'_>,
    f: &Field<'_>,
    keys: &[syn::Ident],
    fields: BucketFields<'_>,
    newest_first: bool,
    unique: &[String],
) -> TokenStream {
    let BucketFields {
        count,
        start,
        end,
        sort,
        kept,
    } = fields;
    let rt = rt();
    let ident = item.ident;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let Some((_, Some(size))) = &f.bound else {
        return TokenStream::new();
    };
    let size = *size as i64;
    let items = &f.bson;
    let each = format!("{items}[]");
    let key_fields: Vec<&Field<'_>> = keys.iter().filter_map(|k| item.field(k)).collect();
    let key_params: Vec<TokenStream> = key_fields
        .iter()
        .map(|k| {
            let name = k.ident;
            let ty = k.ty;
            quote!(#name: &#ty)
        })
        .collect();
    let key_doc = {
        let entries = key_fields.iter().map(|k| {
            let name = k.ident;
            let bson = &k.bson;
            quote!(key.insert(#bson, #rt::to_bson(#name)?);)
        });
        quote! {{
            let mut key = #rt::bson::Document::new();
            #(#entries)*
            key
        }}
    };
    let count_name = match count {
        Some(c) => item
            .field(c)
            .map_or_else(|| "count".to_owned(), |x| x.bson.clone()),
        None => item
            .fields
            .iter()
            .find(|x| x.ident == "count")
            .map_or_else(|| "count".to_owned(), |x| x.bson.clone()),
    };
    let opt_name = |o: Option<&syn::Ident>| match o.and_then(|i| item.field(i)) {
        Some(x) => {
            let b = &x.bson;
            quote!(::core::option::Option::Some(#b))
        }
        None => quote!(::core::option::Option::None),
    };
    let start_name = opt_name(start);
    let end_name = opt_name(end);
    let computed = computed_for(item, items);
    let sort_name = match sort {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let spec = quote! {
        #rt::bucket::BucketSpec {
            items: #items,
            count: #count_name,
            size: #size,
            computed: #computed,
            start: #start_name,
            end: #end_name,
            sort: #sort_name,
            newest_first: #newest_first,
            unique: &[#(#unique),*],
        }
    };
    let append = method("append", f, "");
    let page = method("", f, "bucket");
    let docs = order_docs(
        sort,
        start.and_then(|s| item.field(s)).map(|s| s.bson.as_str()),
        newest_first,
        size,
    );
    let page_doc = format!(
        "The owner's bucket number `number` (0-based): one page of children in one read. {docs}"
    );
    let pages_doc = format!("A page of the owner's buckets, in the order of `{page}`. {docs}");
    let pages = method("", f, "buckets");
    let between = method("", f, "between");
    let push = match sort {
        Some(s) => format!("{{$each: [item], $sort: {{{s}: 1, _id: 1}}}}"),
        None => "item".to_owned(),
    };
    let append_doc = format!(
        "Appends `item` to the owner's bucket with room, or to a new one: \
         `updateOne({{key, {count_name}: {{$lt: {size}}}}}, {{$push: {{{items}: {push}}}, $inc: {{{count_name}: 1, ..}}, $max: .., $min: ..}}, {{upsert: true}})` \
         (seed 002). No bucket ever holds more than {size} children, however many appends race."
    );
    let (append_body, append_doc) = match (kept, key_fields.first()) {
        (Some(kept), Some(key)) => {
            let owner = &kept.owner;
            let key_bson = &key.bson;
            let key_id = match &kept.owner_id {
                Some(id) => quote!(::core::option::Option::Some(#id)),
                None => quote!(::core::option::Option::None),
            };
            let lists = list_specs(&kept.lists);
            let summaries = kept
                .summaries
                .iter()
                .map(|(path, s)| super::kept::computed_literal(path, s));
            let named: Vec<String> = kept.lists.iter().map(|l| format!("`{}`", l.path)).collect();
            let summarised: Vec<String> = kept
                .summaries
                .iter()
                .map(|(p, _)| format!("`{p}`"))
                .collect();
            (
                quote! {
                    const KEPT: #rt::bucket::Kept = #rt::bucket::Kept {
                        owners: <#owner as ::squillion::Document>::COLLECTION,
                        key: #key_bson,
                        key_id: #key_id,
                        lists: &[#(#lists),*],
                        summaries: &[#(#summaries),*],
                    };
                    let transactions = self.core.transactions_supported().await?;
                    #rt::bucket::append_kept(self.core.raw(), transactions, key, &spec, &KEPT, self.core.with_copies(#each, #rt::to_bson(item)?).await?).await
                },
                kept_doc(&append_doc, &named, &summarised),
            )
        }
        _ => (
            quote!(#rt::bucket::append(self.core.raw(), key, &spec, self.core.with_copies(#each, #rt::to_bson(item)?).await?).await),
            append_doc,
        ),
    };
    let range = match (
        start.and_then(|s| item.field(s)),
        end.and_then(|e| item.field(e)),
    ) {
        (Some(s), Some(e)) => {
            let s_ty = crate::types::option_inner(s.ty).unwrap_or(s.ty);
            let (sb, eb) = (&s.bson, &e.bson);
            let dir = if newest_first { -1 } else { 1 };
            let doc = format!(
                "The owner's buckets whose children's times overlap `[from, to]`: \
                 `find({{key, {eb}: {{$gte: from}}, {sb}: {{$lte: to}}}}).sort({{{sb}: {dir}, _id: {dir}}})`."
            );
            quote! {
                #[doc = #doc]
                pub async fn #between(&self, #(#key_params,)* from: &#s_ty, to: &#s_ty) -> ::squillion::Result<#rt::Vec<#ident>> {
                    let spec = #spec;
                    let filter = #rt::bucket::range_filter(#key_doc, #sb, #eb, #rt::to_bson(from)?, #rt::to_bson(to)?);
                    self.core.find(filter, ::core::option::Option::Some(#rt::bucket::order(&spec))).await
                }
            }
        }
        _ => TokenStream::new(),
    };
    quote! {
        #[doc = #append_doc]
        pub async fn #append(&self, #(#key_params,)* item: &#elem) -> ::squillion::Result<::squillion::BucketAppend> {
            let spec = #spec;
            let key = self.core.fill_document(#key_doc).await?;
            #append_body
        }

        #[doc = #page_doc]
        pub async fn #page(&self, #(#key_params,)* number: u64) -> ::squillion::Result<::core::option::Option<#ident>> {
            let spec = #spec;
            match #rt::bucket::page(self.core.raw(), #key_doc, &spec, number).await? {
                ::core::option::Option::Some(d) => self.core.decode_one(d).await.map(::core::option::Option::Some),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }

        #[doc = #pages_doc]
        pub async fn #pages(&self, #(#key_params,)* page: ::squillion::PageRequest) -> ::squillion::Result<::squillion::Page<#ident>> {
            let spec = #spec;
            #rt::bucket::pages(&self.core, #key_doc, &spec, page).await
        }

        #range
    }
}

/// What order a bucket's pages promise: the children sorted inside each bucket, the buckets in
/// `start` or creation order; a bucket fills in arrival order, so nothing is promised across
/// buckets for children appended out of order.
/// The append's documentation when the owner keeps lists or summaries of the children.
fn kept_doc(append_doc: &str, lists: &[String], summaries: &[String]) -> String {
    let mut writes = Vec::new();
    if !lists.is_empty() {
        writes.push(format!(
            "pushes the item's copy into the owner's {} (`$push` with `$each`, `$sort`, `$slice`)",
            lists.join(" and ")
        ));
    }
    if !summaries.is_empty() {
        writes.push(format!(
            "raises the owner's {} (`$inc`, `$max`, `$min`)",
            summaries.join(", ")
        ));
    }
    format!(
        "{append_doc} Then {}, in the same transaction where the deployment runs them.",
        writes.join(" and ")
    )
}

fn order_docs(sort: Option<&str>, start: Option<&str>, newest_first: bool, size: i64) -> String {
    let (first, dir) = if newest_first {
        ("newest", "descending")
    } else {
        ("oldest", "ascending")
    };
    let buckets = match start {
        Some(s) => format!("by `{s}` {dir}, then creation"),
        None => format!("{first} bucket first (creation order)"),
    };
    let within = match sort {
        Some(k) => format!(
            "Each bucket's children come sorted by `{k}` {dir} (kept sorted by every append, whatever order they arrive in)"
        ),
        None if newest_first => "Each bucket's children come newest appended first".to_owned(),
        None => "Each bucket's children come in the order they were appended".to_owned(),
    };
    let tail = if newest_first {
        format!(
            " Page 0 is usually the bucket appends are filling, so it may hold fewer than {size}."
        )
    } else {
        String::new()
    };
    format!(
        "{within}; the buckets come {buckets}. A bucket fills in arrival order: a child appended \
         after a bucket filled lands in a newer bucket even when its key sorts before that bucket's.{tail}"
    )
}

/// The runtime's descriptions of an owner's lists of copies.
pub(super) fn list_specs(lists: &[crate::attr::KeptList]) -> Vec<TokenStream> {
    let rt = rt();
    lists
        .iter()
        .map(|l| {
            let (path, n, sort, desc, latest) = (&l.path, l.n as i64, &l.sort, l.desc, l.latest);
            let keep = &l.keep;
            quote!(#rt::subsets::List { path: #path, sort_by: #sort, descending: #desc, n: #n, latest: #latest, keep: &[#(#keep),*] })
        })
        .collect()
}

pub(super) fn outlier(
    item: &Item<'_>,
    f: &Field<'_>,
    flag: &syn::Ident,
    overflow: &str,
    chunk: u64,
    lists: &[crate::attr::KeptList],
) -> TokenStream {
    let rt = rt();
    let ident = item.ident;
    let id_ty = item.id_field().ty;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let Some((bound, _)) = &f.bound else {
        return TokenStream::new();
    };
    let path = &f.bson;
    let each = format!("{path}[]");
    let flag_name = item
        .field(flag)
        .map_or_else(|| flag.to_string(), |x| x.bson.clone());
    let chunk = chunk as i64;
    let computed = computed_for(item, path);
    let push = method("push", f, "");
    let all = method("all", f, "");
    let get_full = format_ident!("get_with_{}", f.ident.to_string().trim_start_matches("r#"));
    let list_specs = list_specs(lists);
    let spec = quote! {
        #rt::outlier::OutlierSpec {
            path: #path,
            max: #bound,
            flag: #flag_name,
            overflow: #overflow,
            chunk: #chunk,
            computed: #computed,
            lists: &[#(#list_specs),*],
        }
    };
    let mut push_doc = format!(
        "Appends `item`: into `{path}` while it holds fewer than its bound (checked by the update), \
         otherwise into an overflow document of `{overflow}` (a bucket of {chunk}), setting `{flag_name}: true` \
         on the owner (seed 002's outlier pattern). In one transaction where the deployment runs them."
    );
    if !lists.is_empty() {
        let named: Vec<String> = lists.iter().map(|l| format!("`{}`", l.path)).collect();
        push_doc.push_str(&format!(
            " Either way the item's copy is pushed into the owner's {} (`$push` with `$each`, \
             `$sort`, `$slice`) in the owner's update.",
            named.join(" and ")
        ));
    }
    quote! {
        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
            let spec = #spec;
            #rt::outlier::push(&self.core, &spec, #rt::to_bson(id)?, self.core.with_copies(#each, #rt::to_bson(item)?).await?).await
        }

        /// Every element: the embedded ones, then the overflow (read only when the flag is set).
        pub async fn #all(&self, id: &#id_ty) -> ::squillion::Result<#rt::Vec<#elem>> {
            let spec = #spec;
            let items = #rt::outlier::all(&self.core, &spec, #rt::to_bson(id)?).await?;
            items.into_iter().map(|b| #rt::bson::from_bson(b).map_err(::squillion::Error::from)).collect()
        }

        /// The document with the overflow merged into its array, read transparently.
        pub async fn #get_full(&self, id: &#id_ty) -> ::squillion::Result<::core::option::Option<#ident>> {
            let spec = #spec;
            match #rt::outlier::merged(&self.core, &spec, #rt::to_bson(id)?).await? {
                ::core::option::Option::Some(d) => self.core.decode_one(d).await.map(::core::option::Option::Some),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }
    }
}
