//! Methods of the relationship layouts declared on fields.

use proc_macro2::TokenStream;
use quote::quote;

use super::buckets::{bucket, outlier, BucketFields};
use super::lists::{refilled, refilled_of, subset, top};
use super::{method, rt};
use crate::ast::{Field, Item};
use crate::attr::{KeyKind, Layout, SummaryDecl};

/// `&[ComputedField { .. }]` of the computed fields that summarise array `bson`.
pub(super) fn computed_for(item: &Item<'_>, bson: &str) -> TokenStream {
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
        if f.attrs.counters.is_some() {
            out.extend(super::counters::increment(item, f));
            continue;
        }
        let Some((layout, _)) = &f.attrs.layout else {
            // A bounded array without a declared layout is embedded, unless the repository's
            // other operations keep it (`maintained`: a subset the bucket appends keep) or it is
            // an `@attributes` map, an array of `{k, v}` with its entry methods instead.
            if f.bound.is_some() && f.attrs.maintained.is_none() && f.attrs.attributes.is_none() {
                out.extend(embed_array(item, f, &[], &[]));
            }
            continue;
        };
        out.extend(match layout {
            Layout::Embed {
                unique,
                lists,
                find_by,
                ..
            } => {
                if f.bound.is_some() {
                    let mut out = embed_array(item, f, unique, lists);
                    if let Some((to, id)) = find_by {
                        out.extend(referenced_by(item, f, to, id));
                    }
                    out
                } else {
                    embed_one(item, f)
                }
            }
            Layout::ParentRefs {
                to,
                fields,
                find_by,
                ..
            } => parent_refs(item, f, to, fields, *find_by),
            Layout::ChildRef { to, order, id } => child_ref(item, f, to, order, id.as_deref()),
            Layout::TwoWay {
                to,
                inverse,
                inverse_max,
                inverse_required,
                id,
                inverse_id,
                ..
            } => two_way(
                item,
                f,
                (to, inverse),
                (*inverse_max, *inverse_required),
                (id.as_deref(), inverse_id.as_deref()),
            ),
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
                sort,
                desc,
                unique,
                kept,
                ..
            } => bucket(
                item,
                f,
                keys,
                BucketFields {
                    count: count.as_ref(),
                    start: start.as_ref(),
                    end: end.as_ref(),
                    sort: sort.as_deref(),
                    kept: kept.as_ref(),
                },
                *desc,
                unique,
            ),
            Layout::Outlier {
                flag,
                overflow,
                chunk,
                lists,
                ..
            } => outlier(item, f, flag, overflow, *chunk, lists),
        });
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

fn embed_array(
    item: &Item<'_>,
    f: &Field<'_>,
    unique: &[String],
    lists: &[crate::attr::KeptList],
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
    let each = format!("{path}[]");
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
    let kept: Vec<String> = lists.iter().map(|l| format!("`{}`", l.path)).collect();
    let summarised: Vec<String> = summarised.into_iter().chain(kept.iter().cloned()).collect();
    let resync = if summarised.is_empty() {
        String::new()
    } else {
        format!(
            " Then sets the summaries and lists {} to those of the array as it now is (read, then \
             written with the array as read in the filter, so a concurrent change is never \
             summarised wrongly).",
            summarised.join(", ")
        )
    };
    if !kept.is_empty() {
        push_doc.push_str(&format!(
            " The item's copy is pushed into {} in the same write (`$push` with `$each`, `$sort`, \
             `$slice`).",
            kept.join(" and ")
        ));
    }
    let lists = super::buckets::list_specs(lists);
    let lists = quote!(&[#(#lists),*]);
    let remove_doc = format!(
        "Removes every element of `{path}` equal to `item` (`$pull`); true if one was removed.{resync}"
    );
    let pull_doc = format!("Removes the elements of `{path}` matching `condition` (`$pull` with a query on the elements).{resync}");
    let set_doc = format!("Sets `{path}` to `items` (`$set`), refused over the bound.{resync}");
    quote! {
        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<()> {
            #rt::arrays::push_bounded_kept(self.core.raw(), #rt::to_bson(id)?, #path, #bound, self.core.with_copies(#each, #rt::to_bson(item)?).await?, #computed, &[#(#unique),*], #lists).await
        }

        #[doc = #remove_doc]
        pub async fn #remove(&self, id: &#id_ty, item: &#elem) -> ::squillion::Result<bool> {
            let id = #rt::to_bson(id)?;
            let removed = #rt::arrays::pull(self.core.raw(), id.clone(), #path, #rt::to_bson(item)?).await?;
            #rt::summaries::resync_kept(self.core.raw(), id, #path, #computed, #lists).await?;
            ::core::result::Result::Ok(removed)
        }

        #[doc = #pull_doc]
        pub async fn #pull(&self, id: &#id_ty, condition: #rt::bson::Document) -> ::squillion::Result<bool> {
            let id = #rt::to_bson(id)?;
            let removed = #rt::arrays::pull(self.core.raw(), id.clone(), #path, #rt::bson::Bson::Document(condition)).await?;
            #rt::summaries::resync_kept(self.core.raw(), id, #path, #computed, #lists).await?;
            ::core::result::Result::Ok(removed)
        }

        #[doc = #set_doc]
        pub async fn #set(&self, id: &#id_ty, items: &[#elem]) -> ::squillion::Result<()> {
            let id = #rt::to_bson(id)?;
            let items = items.iter().map(|i| #rt::to_bson(i)).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            let items = self.core.with_copies_all(#each, items).await?;
            #rt::arrays::set_bounded(self.core.raw(), id.clone(), #path, #bound, items, &[#(#unique),*]).await?;
            #rt::summaries::resync_kept(self.core.raw(), id, #path, #computed, #lists).await
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
    let param = crate::types::value_param(ty);
    quote! {
        #[doc = #doc]
        pub async fn #set(&self, id: &#id_ty, value: #param) -> ::squillion::Result<()> {
            #rt::arrays::set_field(self.core.raw(), #rt::to_bson(id)?, #path, self.core.with_copies(#path, #rt::to_bson(value)?).await?).await
        }
    }
}

fn parent_refs(
    item: &Item<'_>,
    f: &Field<'_>,
    to: &syn::Path,
    fields: &[String],
    find_by: bool,
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
    let each = format!("{path}[]");
    let add = method("add", f, "");
    let remove = method("remove", f, "");
    let add_doc = format!(
        "Adds a reference to `{path}` (`$addToSet`), unless the array already holds its bound and \
         not this reference: the filter `{{_id, $or: [{{\"{path}.<max-1>\": {{$exists: false}}}}, {{{path}: ref}}]}}` \
         is checked by the update. True if the array changed."
    );
    let loads = loads(item, f, to, fields, None);
    // Summaries of the array (`computed(count, of = <f>)`: a user's `following_count`).
    let computed = computed_for(item, path);
    // The other direction of a one-way many-to-many: the documents whose array holds an id,
    // through the array's multikey index, as a child's reference lists its siblings.
    let listing = if find_by {
        let to_name = quote!(#to).to_string().replace(' ', "");
        let find_doc = format!(
            "One page of the documents whose `{path}` holds this {to_name}'s id, in `_id` order: at \
             most `per_page`, starting after `after` (`None`: the first page). Keyset paging (each \
             page starts after the last document of the one before, never skipping), served by the \
             multikey index on `{path}`; the page's `next` is the cursor of the page after it."
        );
        let count_doc = format!(
            "How many documents hold this {to_name}'s id in `{path}` (`countDocuments({{{path}: id}})`)."
        );
        listing(item, f, path, (quote!(#elem), find_doc, count_doc), &[])
    } else {
        TokenStream::new()
    };
    quote! {
        #listing

        #[doc = #add_doc]
        pub async fn #add(&self, id: &#id_ty, reference: &#elem) -> ::squillion::Result<bool> {
            let changed = #rt::arrays::add_ref_bounded(self.core.raw(), #rt::to_bson(id)?, #path, #bound, self.core.with_copies(#each, #rt::to_bson(reference)?).await?).await?;
            if changed {
                #rt::summaries::resync(self.core.raw(), #rt::to_bson(id)?, #path, #computed).await?;
            }
            ::core::result::Result::Ok(changed)
        }

        /// Removes a reference (`$pull`); true if it was there. The array's summaries
        /// (`computed(count, of = <f>)`) are recomputed from it after a change.
        pub async fn #remove(&self, id: &#id_ty, reference: &#elem) -> ::squillion::Result<bool> {
            let changed = #rt::arrays::pull(self.core.raw(), #rt::to_bson(id)?, #path, #rt::to_bson(reference)?).await?;
            if changed {
                #rt::summaries::resync(self.core.raw(), #rt::to_bson(id)?, #path, #computed).await?;
            }
            ::core::result::Result::Ok(changed)
        }

        #loads
    }
}

/// The docs of `load_<f>_projected`.
fn projected_doc(declared: &[String]) -> String {
    let otherwise = if declared.is_empty() {
        "whole documents".to_owned()
    } else {
        format!("the declared fields ({})", declared.join(", "))
    };
    format!(
        "Like the full load, read as `P`, with a projection of the fields `P` reads (its \
         `Deserialize` names them, `rename`s applied): the rest of each document stays on the \
         server (rule of thumb 4). A `P` that does not name its fields (a map, a flattened \
         struct) gets {otherwise}."
    )
}

/// `load_<f>` and `load_<f>_projected` of an array of ids of `T` in `item`'s documents: the
/// referenced documents in the array's order, by `$in`.
fn loads(
    item: &Item<'_>,
    f: &Field<'_>,
    to: &syn::Path,
    fields: &[String],
    id: Option<&str>,
) -> TokenStream {
    let rt = rt();
    let ident = item.ident;
    let path = &f.bson;
    let field_ident = f.ident;
    let load = method("load", f, "");
    let load_projected = method("load", f, "projected");
    let load_doc = format!(
        "The referenced documents, in the order of `{path}`: one `find({{_id: {{$in: ids}}}})` per 1000 ids \
         (an application-level join, rule of thumb 4); ids that find nothing are skipped."
    );
    let projected_doc = projected_doc(fields);
    // An extended reference holds the id at its field `id`.
    let id_of = match id {
        Some(k) => quote! {
            #rt::to_bson(r).map(|b| #rt::two_way::reference_id(b, ::core::option::Option::Some(#k)))
        },
        None => quote!(#rt::to_bson(r)),
    };
    quote! {
        #[doc = #load_doc]
        pub async fn #load(&self, owner: &#ident) -> ::squillion::Result<#rt::Vec<#to>> {
            let ids = owner.#field_ident.iter().map(|r| #id_of).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            let target = #rt::RepoCore::<#to>::new(self.core.database());
            let docs = #rt::arrays::load_by_ids(target.raw(), &ids, ::core::option::Option::None).await?;
            target.decode_all(docs).await
        }

        #[doc = #projected_doc]
        pub async fn #load_projected<P: #rt::serde::de::DeserializeOwned>(&self, owner: &#ident) -> ::squillion::Result<#rt::Vec<P>> {
            let ids = owner.#field_ident.iter().map(|r| #id_of).collect::<::squillion::Result<#rt::Vec<_>>>()?;
            let coll = self.core.database().collection::<#rt::bson::Document>(<#to as ::squillion::Document>::COLLECTION);
            let docs = #rt::arrays::load_by_ids(&coll, &ids, #rt::shape::projection_of::<P>(&[#(#fields),*])).await?;
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
    let to_name = quote!(#to).to_string().replace(' ', "");
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
    listing(item, f, &path, (parent_ty, find_doc, count_doc), order)
}

/// The other direction of a one-way many-to-many with fields (`[{id, since}]`): the documents
/// whose array holds an element referencing one `to`, through the multikey index on `<f>.<id>`.
fn referenced_by(item: &Item<'_>, f: &Field<'_>, to: &syn::Path, id: &str) -> TokenStream {
    let path = format!("{}.{id}", f.bson);
    let to_name = quote!(#to).to_string().replace(' ', "");
    let find_doc = format!(
        "One page of the documents whose `{}` holds an element referencing this {to_name} (by \
         `{path}`), in `_id` order: at most `per_page`, starting after `after` (`None`: the first \
         page). Keyset paging (each page starts after the last document of the one before, never \
         skipping), served by the multikey index on `{path}`; the page's `next` is the cursor of \
         the page after it.",
        f.bson
    );
    let count_doc = format!(
        "How many documents hold an element referencing this {to_name} in `{}` \
         (`countDocuments({{\"{path}\": id}})`).",
        f.bson
    );
    let parent_ty = quote!(<#to as ::squillion::Document>::Id);
    listing(item, f, &path, (parent_ty, find_doc, count_doc), &[])
}

/// `find_by_<f>` (keyset pages of the documents whose `path` holds a value, in `order` then
/// `_id`) and `count_by_<f>`, taking the value as `parent_ty`, with their docs.
fn listing(
    item: &Item<'_>,
    f: &Field<'_>,
    path: &str,
    (parent_ty, find_doc, count_doc): (TokenStream, String, String),
    order: &[(String, KeyKind)],
) -> TokenStream {
    let rt = rt();
    let ident = item.ident;
    let find = method("find_by", f, "");
    let count = method("count_by", f, "");
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
    let sort = if keys.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#rt::bson::doc! { #(#keys),* }))
    };
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
    (to, inverse): (&syn::Path, &str),
    (inverse_max, inverse_required): (Option<u64>, bool),
    (id, inverse_id): (Option<&str>, Option<&str>),
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
    // Extended references name the other document by its id, not by the element.
    let other_ty = match id {
        Some(_) => quote!(<#to as ::squillion::Document>::Id),
        None => quote!(#elem),
    };
    let path = &f.bson;
    let link = method("link", f, "");
    let unlink = method("unlink", f, "");
    let inverse_mode = match inverse_max {
        Some(m) => quote!(#rt::two_way::Inverse::Many { max: #m as usize }),
        None => quote!(#rt::two_way::Inverse::One),
    };
    let option = |k: Option<&str>| match k {
        Some(k) => quote!(::core::option::Option::Some(#k)),
        None => quote!(::core::option::Option::None),
    };
    let (this_key, other_key) = (option(id), option(inverse_id));
    let copies_doc = if id.is_some() || inverse_id.is_some() {
        " Each extended reference written takes its copies from the document it names, as \
         stored in the transaction."
    } else {
        ""
    };
    let link_doc = format!(
        "Links this document and `other` on both sides in one transaction: `{path}` (bound \
         checked by the update) and the other side's `{inverse}` ({}).{copies_doc} Fails with \
         [`squillion::Error::TransactionsUnsupported`] on a deployment without transactions, \
         before writing anything.",
        if inverse_max.is_some() {
            "bounded"
        } else {
            "`$set`, after `$pull` from its previous owner"
        }
    );
    let unlink_doc = format!("Unlinks both sides in one transaction (`$pull` on `{path}`, and `$pull`/`$unset` of `{inverse}`).");
    let loads = loads(item, f, to, &[], id);
    let side = quote! {
        #rt::two_way::Side {
            this: self.core.raw(),
            this_path: #path,
            this_max: #bound,
            other: &self.core.database().collection(<#to as ::squillion::Document>::COLLECTION),
            other_path: #inverse,
            inverse: #inverse_mode,
            keeps: <#ident as ::squillion::Document>::KEEPS,
            this_id: #this_key,
            other_id: #other_key,
            this_copies: <#ident as ::squillion::Document>::COPIES,
            other_copies: <#to as ::squillion::Document>::COPIES,
        }
    };
    let link_fn = quote! {
        #loads

        #[doc = #link_doc]
        pub async fn #link(&self, id: &#id_ty, other: &#other_ty) -> ::squillion::Result<()> {
            self.core.require_transactions().await?;
            let side = #side;
            #rt::two_way::link(&side, #rt::to_bson(id)?, #rt::to_bson(other)?).await
        }
    };
    // A required reference on the other side cannot be taken away (`$unset` would leave the
    // child without it: the validator refuses it, code 121): the child moves by `link_<f>` on
    // its new parent, or is deleted.
    if inverse_required {
        return link_fn;
    }
    quote! {
        #link_fn

        #[doc = #unlink_doc]
        pub async fn #unlink(&self, id: &#id_ty, other: &#other_ty) -> ::squillion::Result<()> {
            self.core.require_transactions().await?;
            let side = #side;
            #rt::two_way::unlink(&side, #rt::to_bson(id)?, #rt::to_bson(other)?).await
        }
    }
}
