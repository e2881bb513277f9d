//! Methods of the relationship layouts declared on fields.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{method, rt};
use crate::ast::{Field, Item};
use crate::attr::{KeyKind, Layout, SummaryDecl};

/// `&[ComputedField { .. }]` of the computed fields that summarise array `bson`.
fn computed_for(item: &Item<'_>, bson: &str) -> TokenStream {
    let rt = rt();
    let entries = item
        .fields
        .iter()
        .filter(|f| f.computed_of.as_deref() == Some(bson))
        .filter_map(|f| {
            let path = &f.bson;
            let summary = match &f.attrs.computed.as_ref()?.summary {
                SummaryDecl::Count => quote!(#rt::arrays::Summary::Count),
                SummaryDecl::Sum(s) => quote!(#rt::arrays::Summary::Sum(#s)),
                SummaryDecl::Max(s) => quote!(#rt::arrays::Summary::Max(#s)),
                SummaryDecl::Min(s) => quote!(#rt::arrays::Summary::Min(#s)),
            };
            Some(quote!(#rt::arrays::ComputedField { path: #path, summary: #summary }))
        });
    quote!(&[#(#entries),*])
}

/// Every layout's methods.
pub fn methods(item: &Item<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    for f in &item.fields {
        let Some((layout, _)) = &f.attrs.layout else {
            // A bounded array without a declared layout is embedded.
            if f.bound.is_some() {
                out.extend(embed_array(item, f, &[]));
            }
            continue;
        };
        out.extend(match layout {
            Layout::Embed { unique, .. } => {
                if f.bound.is_some() {
                    embed_array(item, f, unique)
                } else {
                    embed_one(item, f)
                }
            }
            Layout::ParentRefs { to, fields, .. } => parent_refs(item, f, to, fields),
            Layout::ChildRef { to, order, id } => child_ref(item, f, to, order, id.as_deref()),
            Layout::TwoWay {
                to,
                inverse,
                inverse_max,
                ..
            } => two_way(item, f, to, inverse, *inverse_max),
            Layout::Subset { key: Some(_), .. }
            | Layout::Top {
                key: Some(_),
                to: Some(_),
                ..
            } => match refilled_of(f) {
                Some(r) => refilled(item, f, &r),
                None => TokenStream::new(),
            },
            Layout::Subset {
                to,
                n,
                sort,
                desc,
                keep,
                key: None,
            } => subset(item, f, to, *n, sort, *desc, keep),
            Layout::Top { n, sort, desc, .. } => top(item, f, *n, sort, *desc),
            Layout::Bucket {
                keys,
                count,
                start,
                end,
                desc,
                unique,
                ..
            } => bucket(
                item,
                f,
                keys,
                BucketFields {
                    count: count.as_ref(),
                    start: start.as_ref(),
                    end: end.as_ref(),
                },
                *desc,
                unique,
            ),
            Layout::Outlier {
                flag,
                overflow,
                chunk,
                ..
            } => outlier(item, f, flag, overflow, *chunk),
        });
        for fan in &f.attrs.fan_out {
            let _ = fan;
        }
    }
    out.extend(super::patterns::fan_out_methods(item));
    out
}

/// Extra `ensure_index_specs` calls for collections a layout adds (outlier overflow); none with
/// `implied_indexes = false`, where the overflow collection's own struct declares its indexes.
pub fn extra_index_calls(item: &Item<'_>) -> Vec<TokenStream> {
    let rt = rt();
    if !item.attrs.implied_indexes {
        return Vec::new();
    }
    item.fields
        .iter()
        .filter_map(|f| match &f.attrs.layout {
            Some((Layout::Outlier { overflow, .. }, _)) => Some(quote! {
                #rt::indexes::ensure_index_specs(
                    self.core.database(),
                    #overflow,
                    &[::squillion::IndexSpec {
                        name: ::core::option::Option::None,
                        keys: &[(#rt::outlier::OWNER, ::squillion::IndexKind::Asc), (#rt::outlier::COUNT, ::squillion::IndexKind::Asc)],
                        unique: false,
                        sparse: false,
                        expire_after_seconds: ::core::option::Option::None,
                        partial_filter: ::core::option::Option::None,
                        collation: ::core::option::Option::None,
                    }],
                ).await?;
            }),
            _ => None,
        })
        .collect()
}

fn embed_array(item: &Item<'_>, f: &Field<'_>, unique: &[String]) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let Some((bound, _)) = &f.bound else {
        return TokenStream::new();
    };
    let path = &f.bson;
    let computed = computed_for(item, path);
    let push = method("push", f, "");
    let remove = method("remove", f, "");
    let pull = method("pull", f, "");
    let set = method("set", f, "");
    let mut push_doc = format!(
        "Appends `item` to `{path}` unless it already holds its bound: \
         `updateOne({{_id, \"{path}.<max-1>\": {{$exists: false}}}}, {{$push: {{{path}: item}}}})`. \
         The bound is checked by the update itself, so racing appends cannot overfill the array; \
         a full array gives [`squillion::Error::BoundExceeded`] and writes nothing."
    );
    if !unique.is_empty() {
        let guards: Vec<String> = unique
            .iter()
            .map(|u| format!("`\"{path}.{u}\": {{$ne: item.{u}}}`"))
            .collect();
        push_doc.push_str(&format!(
            " The filter also holds {}: an element repeating a unique value gives \
             [`squillion::Error::DuplicateElement`] and writes nothing (the unique index covers \
             the other documents).",
            guards.join(", ")
        ));
    }
    let summarised: Vec<String> = item
        .fields
        .iter()
        .filter(|x| x.computed_of.as_deref() == Some(path.as_str()))
        .map(|x| format!("`{}`", x.bson))
        .collect();
    let resync = if summarised.is_empty() {
        String::new()
    } else {
        format!(
            " Then sets the summaries {} to those of the array as it now is (read, then written \
             with the array as read in the filter, so a concurrent change is never summarised \
             wrongly).",
            summarised.join(", ")
        )
    };
    let remove_doc = format!(
        "Removes every element of `{path}` equal to `item` (`$pull`); true if one was removed.{resync}"
    );
    let pull_doc = format!("Removes the elements of `{path}` matching `condition` (`$pull` with a query on the elements).{resync}");
    let set_doc = format!("Sets `{path}` to `items` (`$set`), refused over the bound.{resync}");
    quote! {
        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
            #rt::arrays::push_bounded(self.core.raw(), #rt::to_bson(id)?, #path, #bound, #rt::to_bson(item)?, #computed, &[#(#unique),*]).await
        }

        #[doc = #remove_doc]
        pub async fn #remove(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<bool> {
            let id = #rt::to_bson(id)?;
            let removed = #rt::arrays::pull(self.core.raw(), id.clone(), #path, #rt::to_bson(item)?).await?;
            #rt::summaries::resync(self.core.raw(), id, #path, #computed).await?;
            ::core::result::Result::Ok(removed)
        }

        #[doc = #pull_doc]
        pub async fn #pull(&self, id: &#id_ty, condition: #rt::bson::Document) -> ::squillion::Result<bool> {
            let id = #rt::to_bson(id)?;
            let removed = #rt::arrays::pull(self.core.raw(), id.clone(), #path, #rt::bson::Bson::Document(condition)).await?;
            #rt::summaries::resync(self.core.raw(), id, #path, #computed).await?;
            ::core::result::Result::Ok(removed)
        }

        #[doc = #set_doc]
        pub async fn #set(&self, id: &#id_ty, items: &[#elem]) -> ::squillion::Result<()> {
            let id = #rt::to_bson(id)?;
            let items = items.iter().map(|i| #rt::to_bson(i)).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            #rt::arrays::set_bounded(self.core.raw(), id.clone(), #path, #bound, items, &[#(#unique),*]).await?;
            #rt::summaries::resync(self.core.raw(), id, #path, #computed).await
        }
    }
}

fn embed_one(item: &Item<'_>, f: &Field<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let ty = f.ty;
    let path = &f.bson;
    let set = method("set", f, "");
    let doc =
        format!("Sets the embedded `{path}` (`updateOne({{_id}}, {{$set: {{{path}: value}}}})`).");
    quote! {
        #[doc = #doc]
        pub async fn #set(&self, id: &#id_ty, value: &#ty) -> ::squillion::Result<()> {
            #rt::arrays::set_field(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(value)?).await
        }
    }
}

fn parent_refs(item: &Item<'_>, f: &Field<'_>, to: &syn::Path, fields: &[String]) -> TokenStream {
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
    let field_ident = f.ident;
    let add = method("add", f, "");
    let remove = method("remove", f, "");
    let load = method("load", f, "");
    let load_projected = method("load", f, "projected");
    let add_doc = format!(
        "Adds a reference to `{path}` (`$addToSet`), unless the array already holds its bound and \
         not this reference: the filter `{{_id, $or: [{{\"{path}.<max-1>\": {{$exists: false}}}}, {{{path}: ref}}]}}` \
         is checked by the update. True if the array changed."
    );
    let load_doc = format!(
        "The referenced documents, in the order of `{path}`: one `find({{_id: {{$in: ids}}}})` per 1000 ids \
         (an application-level join, rule of thumb 4)."
    );
    let projected_doc = format!(
        "Like the full load, with the projection of the declared fields ({}) (rule of thumb 4), read as `P`.",
        if fields.is_empty() { "all fields".to_owned() } else { fields.join(", ") }
    );
    quote! {
        #[doc = #add_doc]
        pub async fn #add(&self, id: &#id_ty, reference: &#elem) -> ::squillion::Result<bool> {
            #rt::arrays::add_ref_bounded(self.core.raw(), #rt::to_bson(id)?, #path, #bound, #rt::to_bson(reference)?).await
        }

        /// Removes a reference (`$pull`); true if it was there.
        pub async fn #remove(&self, id: &#id_ty, reference: &#elem) -> ::squillion::Result<bool> {
            #rt::arrays::pull(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(reference)?).await
        }

        #[doc = #load_doc]
        pub async fn #load(&self, owner: &#ident) -> ::squillion::Result<#rt::Vec<#to>> {
            let ids = owner.#field_ident.iter().map(|r| #rt::to_bson(r)).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            let target = #rt::RepoCore::<#to>::new(self.core.database());
            let docs = #rt::arrays::load_by_ids(target.raw(), &ids, ::core::option::Option::None).await?;
            docs.into_iter().map(|d| target.decode(d)).collect()
        }

        #[doc = #projected_doc]
        pub async fn #load_projected<P: #rt::serde::de::DeserializeOwned>(&self, owner: &#ident) -> ::squillion::Result<#rt::Vec<P>> {
            let ids = owner.#field_ident.iter().map(|r| #rt::to_bson(r)).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            let coll = self.core.database().collection::<#rt::bson::Document>(<#to as ::squillion::Document>::COLLECTION);
            let docs = #rt::arrays::load_by_ids(&coll, &ids, #rt::arrays::projection(&[#(#fields),*])).await?;
            docs.into_iter().map(|d| #rt::bson::from_document(d).map_err(::squillion::Error::from)).collect()
        }
    }
}

fn child_ref(
    item: &Item<'_>,
    f: &Field<'_>,
    to: &syn::Path,
    order: &[(String, KeyKind)],
    id: Option<&str>,
) -> TokenStream {
    let rt = rt();
    let ident = item.ident;
    let path = match id {
        Some(id) => format!("{}.{id}", f.bson),
        None => f.bson.clone(),
    };
    let parent_ty = match id {
        Some(_) => quote!(<#to as ::squillion::Document>::Id),
        None => {
            let ty = crate::types::option_inner(f.ty).unwrap_or(f.ty);
            quote!(#ty)
        }
    };
    let find = method("find_by", f, "");
    let count = method("count_by", f, "");
    let to_name = quote!(#to).to_string().replace(' ', "");
    let keys: Vec<TokenStream> = order
        .iter()
        .map(|(k, kind)| {
            let dir = if matches!(kind, KeyKind::Desc) {
                -1i32
            } else {
                1
            };
            quote!(#k: #dir)
        })
        .collect();
    let words: Vec<String> = order
        .iter()
        .map(|(k, kind)| {
            let dir = if matches!(kind, KeyKind::Desc) {
                "descending"
            } else {
                "ascending"
            };
            format!("`{k}` {dir}, then ")
        })
        .collect();
    let sort = if keys.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#rt::bson::doc! { #(#keys),* }))
    };
    let find_doc = format!(
        "One page of the documents whose `{path}` references this {to_name}, in order ({}`_id`): \
         at most `per_page`, starting after `after` (`None`: the first page). Keyset paging (each \
         page starts after the last document of the one before, never skipping), served by the \
         index on `{path}`; the page's `next` is the cursor of the page after it.",
        words.concat()
    );
    let count_doc = format!(
        "How many documents reference this {to_name} (`countDocuments({{{path}: parent}})`)."
    );
    quote! {
        #[doc = #find_doc]
        pub async fn #find(
            &self,
            parent: &#parent_ty,
            after: ::core::option::Option<&::squillion::PageCursor>,
            per_page: u32,
        ) -> ::squillion::Result<::squillion::CursorPage<#ident>> {
            #rt::paging::page(
                self.core.collection(),
                #rt::bson::doc! { #path: #rt::to_bson(parent)? },
                #sort,
                ::core::option::Option::None,
                after,
                per_page,
                ::core::option::Option::None,
            )
            .await
        }

        #[doc = #count_doc]
        pub async fn #count(&self, parent: &#parent_ty) -> ::squillion::Result<u64> {
            self.core.count(#rt::bson::doc! { #path: #rt::to_bson(parent)? }).await
        }
    }
}

fn two_way(
    item: &Item<'_>,
    f: &Field<'_>,
    to: &syn::Path,
    inverse: &str,
    inverse_max: Option<u64>,
) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let Some((bound, _)) = &f.bound else {
        return TokenStream::new();
    };
    let path = &f.bson;
    let link = method("link", f, "");
    let unlink = method("unlink", f, "");
    let inverse_mode = match inverse_max {
        Some(m) => quote!(#rt::two_way::Inverse::Many { max: #m as usize }),
        None => quote!(#rt::two_way::Inverse::One),
    };
    let link_doc = format!(
        "Links this document and `other` on both sides in one transaction: `$addToSet` on `{path}` \
         (bound checked by the update) and on the other side's `{inverse}` ({}). Fails with \
         [`squillion::Error::TransactionsUnsupported`] on a deployment without transactions, \
         before writing anything.",
        if inverse_max.is_some() { "`$addToSet`, bounded" } else { "`$set`, after `$pull` from its previous owner" }
    );
    let unlink_doc = format!("Unlinks both sides in one transaction (`$pull` on `{path}`, and `$pull`/`$unset` of `{inverse}`).");
    quote! {
        #[doc = #link_doc]
        pub async fn #link(&self, id: &#id_ty, other: &#elem) -> ::squillion::Result<()> {
            self.core.require_transactions().await?;
            let side = #rt::two_way::Side {
                this: self.core.raw(),
                this_path: #path,
                this_max: #bound,
                other: &self.core.database().collection(<#to as ::squillion::Document>::COLLECTION),
                other_path: #inverse,
                inverse: #inverse_mode,
            };
            #rt::two_way::link(&side, #rt::to_bson(id)?, #rt::to_bson(other)?).await
        }

        #[doc = #unlink_doc]
        pub async fn #unlink(&self, id: &#id_ty, other: &#elem) -> ::squillion::Result<()> {
            self.core.require_transactions().await?;
            let side = #rt::two_way::Side {
                this: self.core.raw(),
                this_path: #path,
                this_max: #bound,
                other: &self.core.database().collection(<#to as ::squillion::Document>::COLLECTION),
                other_path: #inverse,
                inverse: #inverse_mode,
            };
            #rt::two_way::unlink(&side, #rt::to_bson(id)?, #rt::to_bson(other)?).await
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn subset(
    item: &Item<'_>,
    f: &Field<'_>,
    to: &syn::Path,
    n: u64,
    sort: &str,
    desc: bool,
    keep: &[String],
) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let path = &f.bson;
    let computed = computed_for(item, path);
    let push = method("push", f, "");
    let n = n as i64;
    let doc = format!(
        "Inserts `child` into its own collection, then keeps the {n} latest by `{sort}` in `{path}`: \
         `$push: {{{path}: {{$each: [child], $sort: {{{sort}: {}}}, $slice: {}}}}}` (seed 004's last N log messages).",
        if desc { -1 } else { 1 },
        if desc { n } else { -n },
    );
    quote! {
        #[doc = #doc]
        pub async fn #push(&self, id: &#id_ty, child: &#to) -> ::squillion::Result<()> {
            let children = #rt::RepoCore::<#to>::new(self.core.database());
            children.insert(child).await?;
            let whole = #rt::to_document(child)?;
            let copy = #rt::arrays::keep_fields(whole.clone(), &[#(#keep),*]);
            #rt::arrays::push_subset(self.core.raw(), #rt::to_bson(id)?, #path, #rt::bson::Bson::Document(copy), #sort, #desc, #n, #computed, &#rt::bson::Bson::Document(whole)).await
        }
    }
}

/// A subset (`latest`) or top-N list whose children live in their own collection, each holding
/// its parent's id at `key`: kept in step by every write of a child.
struct Refilled<'a> {
    to: &'a syn::Path,
    n: u64,
    sort: &'a str,
    desc: bool,
    keep: &'a [String],
    key: &'a str,
    latest: bool,
}

/// The refilled lists of field `f` (a subset or top-N list with `key`).
fn refilled_of<'a>(f: &'a Field<'_>) -> Option<Refilled<'a>> {
    match &f.attrs.layout {
        Some((
            Layout::Subset {
                to,
                n,
                sort,
                desc,
                keep,
                key: Some(key),
            },
            _,
        )) => Some(Refilled {
            to,
            n: *n,
            sort,
            desc: *desc,
            keep,
            key,
            latest: true,
        }),
        Some((
            Layout::Top {
                n,
                sort,
                desc,
                to: Some(to),
                keep,
                key: Some(key),
            },
            _,
        )) => Some(Refilled {
            to,
            n: *n,
            sort,
            desc: *desc,
            keep,
            key,
            latest: false,
        }),
        _ => None,
    }
}

fn refilled(item: &Item<'_>, f: &Field<'_>, r: &Refilled<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let (spec, push, replace, remove, refill) = (
        method("subset_of", f, ""),
        method("push", f, ""),
        method("replace", f, ""),
        method("remove", f, ""),
        method("refill", f, ""),
    );
    let Refilled { to, key, .. } = *r;
    // Every list of the same children (a subset and a top-N list of one relationship) is kept
    // by each write of a child, with the summaries of any of them.
    let same = |o: &Refilled<'_>| {
        o.key == key
            && quote!(#to).to_string() == {
                let t = o.to;
                quote!(#t).to_string()
            }
    };
    let group: Vec<(&Field<'_>, Refilled<'_>)> = item
        .fields
        .iter()
        .filter_map(|x| refilled_of(x).map(|o| (x, o)))
        .filter(|(_, o)| same(o))
        .collect();
    let lists = group.iter().map(|(x, o)| {
        let (p, sort, desc, latest, keep) = (&x.bson, o.sort, o.desc, o.latest, o.keep);
        let n = o.n as i64;
        quote! {
            #rt::subsets::List { path: #p, sort_by: #sort, descending: #desc, n: #n, latest: #latest, keep: &[#(#keep),*] }
        }
    });
    let computed: Vec<TokenStream> = group
        .iter()
        .filter_map(|(x, _)| {
            item.fields
                .iter()
                .filter(|c| c.computed_of.as_deref() == Some(x.bson.as_str()))
                .map(|c| {
                    let cp = &c.bson;
                    let summary = match &c.attrs.computed.as_ref()?.summary {
                        SummaryDecl::Count => quote!(#rt::arrays::Summary::Count),
                        SummaryDecl::Sum(s) => quote!(#rt::arrays::Summary::Sum(#s)),
                        SummaryDecl::Max(s) => quote!(#rt::arrays::Summary::Max(#s)),
                        SummaryDecl::Min(s) => quote!(#rt::arrays::Summary::Min(#s)),
                    };
                    Some(quote!(#rt::arrays::ComputedField { path: #cp, summary: #summary }))
                })
                .collect::<Option<Vec<_>>>()
        })
        .flatten()
        .collect();
    let what: Vec<String> = group
        .iter()
        .map(|(x, o)| {
            let n = o.n;
            if o.latest {
                format!("`{}` (the {n} latest by `{}`)", x.bson, o.sort)
            } else {
                format!(
                    "`{}` (the {n} {} by `{}`)",
                    x.bson,
                    if o.desc { "largest" } else { "smallest" },
                    o.sort
                )
            }
        })
        .collect();
    let what = what.join(", ");
    let summaries: Vec<String> = group
        .iter()
        .flat_map(|(x, _)| {
            item.fields
                .iter()
                .filter(|c| c.computed_of.as_deref() == Some(x.bson.as_str()))
                .map(|c| format!("`{}`", c.bson))
        })
        .collect();
    let and_summaries = if summaries.is_empty() {
        String::new()
    } else {
        format!(" and the summaries {}", summaries.join(", "))
    };
    let txn = "in one transaction where the deployment runs them";
    let push_doc = format!(
        "Inserts `child` (whose `{key}` must be `id`) into its own collection and keeps {what}{and_summaries}: \
         `$push` with `$each`, `$sort` and `$slice`, {txn}. Each copy holds the child's `_id`."
    );
    let replace_doc = format!(
        "Replaces the child with `child`'s `_id` in its own collection, then refills {what}{and_summaries} \
         of its parent (and of its former parent when `{key}` changed) from the children, {txn}. \
         False if there is no such child."
    );
    let remove_doc = format!(
        "Deletes the child `child_id` from its own collection, then refills {what} (the next one takes \
         its place){and_summaries} of its parent from the children, {txn}. False if there is no such child."
    );
    let refill_doc = format!(
        "Sets {what}{and_summaries} of document `id` to those of its children, read from the children's \
         collection (after writes made behind the repository's back)."
    );
    quote! {
        fn #spec() -> #rt::subsets::Subset {
            #rt::subsets::Subset {
                lists: &[#(#lists),*],
                children: <#to as ::squillion::Document>::COLLECTION,
                key: #key,
                computed: &[#(#computed),*],
            }
        }

        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, child: &#to) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            let child = #rt::RepoCore::<#to>::new(self.core.database()).encode(child)?;
            #rt::subsets::push(self.core.raw(), transactions, #rt::to_bson(id)?, &Self::#spec(), child).await
        }

        #[doc = #replace_doc]
        pub async fn #replace(&self, child: &#to) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            let child = #rt::RepoCore::<#to>::new(self.core.database()).encode(child)?;
            #rt::subsets::replace(self.core.raw(), transactions, &Self::#spec(), child).await
        }

        #[doc = #remove_doc]
        pub async fn #remove(&self, child_id: &<#to as ::squillion::Document>::Id) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            #rt::subsets::remove(self.core.raw(), transactions, &Self::#spec(), #rt::to_bson(child_id)?).await
        }

        #[doc = #refill_doc]
        pub async fn #refill(&self, id: &#id_ty) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            #rt::subsets::refill(self.core.raw(), transactions, &Self::#spec(), #rt::to_bson(id)?).await
        }
    }
}

fn top(item: &Item<'_>, f: &Field<'_>, n: u64, sort: &str, desc: bool) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let path = &f.bson;
    let offer = method("offer", f, "");
    let n = n as i64;
    let doc = format!(
        "Offers `item` to the top {n} in `{path}` (created when missing): \
         `updateOne({{_id}}, {{$push: {{{path}: {{$each: [item], $sort: {{{sort}: {}}}, $slice: {n}}}}}}}, {{upsert: true}})` \
         (seed 002's best times): the {} {n} by `{sort}` are kept.",
        if desc { -1 } else { 1 },
        if desc { "largest" } else { "smallest" },
    );
    let version = match item.schema_version() {
        Some((v, _)) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[doc = #doc]
        pub async fn #offer(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
            #rt::arrays::push_top(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(item)?, #sort, #desc, #n, #version).await
        }
    }
}

/// The bucket struct's fields a bucket layout names.
struct BucketFields<'a> {
    count: Option<&'a syn::Ident>,
    start: Option<&'a syn::Ident>,
    end: Option<&'a syn::Ident>,
}

fn bucket(
    item: &Item<'_>,
    f: &Field<'_>,
    keys: &[syn::Ident],
    fields: BucketFields<'_>,
    newest_first: bool,
    unique: &[String],
) -> TokenStream {
    let BucketFields { count, start, end } = fields;
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
    let spec = quote! {
        #rt::bucket::BucketSpec {
            items: #items,
            count: #count_name,
            size: #size,
            computed: #computed,
            start: #start_name,
            end: #end_name,
            newest_first: #newest_first,
            unique: &[#(#unique),*],
        }
    };
    let append = method("append", f, "");
    let (page_doc, pages_doc) = if newest_first {
        (
            "The owner's bucket number `number` (0-based, newest first), its children newest first: one page of children in one read.",
            "A page of the owner's buckets, newest first, each with its children newest first.",
        )
    } else {
        (
            "The owner's bucket number `number` (0-based, oldest first): one page of children in one read.",
            "A page of the owner's buckets, oldest first.",
        )
    };
    let page = method("", f, "bucket");
    let pages = method("", f, "buckets");
    let between = method("", f, "between");
    let append_doc = format!(
        "Appends `item` to the owner's bucket with room, or to a new one: \
         `updateOne({{key, {count_name}: {{$lt: {size}}}}}, {{$push: {{{items}: item}}, $inc: {{{count_name}: 1, ..}}, $max: .., $min: ..}}, {{upsert: true}})` \
         (seed 002). No bucket ever holds more than {size} children, however many appends race."
    );
    let range = match (
        start.and_then(|s| item.field(s)),
        end.and_then(|e| item.field(e)),
    ) {
        (Some(s), Some(e)) => {
            let s_ty = crate::types::option_inner(s.ty).unwrap_or(s.ty);
            let (sb, eb) = (&s.bson, &e.bson);
            let doc = format!(
                "The owner's buckets whose children's times overlap `[from, to]`: \
                 `find({{key, {eb}: {{$gte: from}}, {sb}: {{$lte: to}}}}).sort({{{sb}: 1}})`."
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
            #rt::bucket::append(self.core.raw(), #key_doc, &spec, #rt::to_bson(item)?).await
        }

        #[doc = #page_doc]
        pub async fn #page(&self, #(#key_params,)* number: u64) -> ::squillion::Result<::core::option::Option<#ident>> {
            let spec = #spec;
            match #rt::bucket::page(self.core.raw(), #key_doc, &spec, number).await? {
                ::core::option::Option::Some(d) => self.core.decode(d).map(::core::option::Option::Some),
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

fn outlier(
    item: &Item<'_>,
    f: &Field<'_>,
    flag: &syn::Ident,
    overflow: &str,
    chunk: u64,
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
    let flag_name = item
        .field(flag)
        .map_or_else(|| flag.to_string(), |x| x.bson.clone());
    let chunk = chunk as i64;
    let push = method("push", f, "");
    let all = method("all", f, "");
    let get_full = format_ident!("get_with_{}", f.ident.to_string().trim_start_matches("r#"));
    let spec = quote! {
        #rt::outlier::OutlierSpec {
            path: #path,
            max: #bound,
            flag: #flag_name,
            overflow: #overflow,
            chunk: #chunk,
        }
    };
    let push_doc = format!(
        "Appends `item`: into `{path}` while it holds fewer than its bound (checked by the update), \
         otherwise into an overflow document of `{overflow}` (a bucket of {chunk}), setting `{flag_name}: true` \
         on the owner (seed 002's outlier pattern). In one transaction where the deployment runs them."
    );
    quote! {
        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
            let spec = #spec;
            #rt::outlier::push(&self.core, &spec, #rt::to_bson(id)?, #rt::to_bson(item)?).await
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
                ::core::option::Option::Some(d) => self.core.decode(d).map(::core::option::Option::Some),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }
    }
}
