//! The lists of children a parent keeps: a subset (`latest N`), a top-N list, and the subsets and
//! top-N lists refilled from the children's own collection.

use proc_macro2::TokenStream;
use quote::quote;

use super::layouts::computed_for;
use super::{method, rt};
use crate::ast::{Field, Item};
use crate::attr::Layout;

#[allow(clippy::too_many_arguments)]
pub(super) fn subset(
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
            // The copy is made of the child as stored: its own copies taken from their sources.
            let whole = children.encode_filled(child).await?;
            let copy = #rt::arrays::keep_fields(whole.clone(), &[#(#keep),*]);
            #rt::arrays::push_subset(self.core.raw(), #rt::to_bson(id)?, #path, #rt::bson::Bson::Document(copy), #sort, #desc, #n, #computed, &#rt::bson::Bson::Document(whole)).await
        }
    }
}

/// A subset (`latest`) or top-N list whose children live in their own collection, each holding
/// its parent's id at `key`: kept in step by every write of a child.
pub(super) struct Refilled<'a> {
    pub(super) to: &'a syn::Path,
    pub(super) n: u64,
    pub(super) sort: &'a str,
    pub(super) desc: bool,
    pub(super) keep: &'a [String],
    pub(super) key: &'a str,
    pub(super) latest: bool,
}

/// The refilled lists of field `f` (a subset or top-N list with `key`).
pub(super) fn refilled_of<'a>(f: &'a Field<'_>) -> Option<Refilled<'a>> {
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

pub(super) fn refilled(item: &Item<'_>, f: &Field<'_>, r: &Refilled<'_>) -> TokenStream {
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
    let subset_spec = super::kept::spec(item, to, key);
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
    let summaries: Vec<String> = super::kept::group(item, to, key)
        .summaries
        .iter()
        .map(|c| format!("`{}`", c.bson))
        .collect();
    let and_summaries = if summaries.is_empty() {
        String::new()
    } else {
        format!(" and the summaries {}", summaries.join(", "))
    };
    let txn = "in one transaction where the deployment runs them";
    let push_doc = format!(
        "Inserts `child` (whose `{key}` must be `id`) into its own collection and keeps {what}{and_summaries}: \
         `$push` with `$each`, `$sort` and `$slice`, {txn}. Each copy holds the child's `_id`. \
         Every other parent keeping lists or summaries of the child (its `kept_by`) is kept in step too."
    );
    let replace_doc = format!(
        "Replaces the child with `child`'s `_id` in its own collection, then refills {what}{and_summaries} \
         of its parent (and of its former parent when `{key}` changed) from the children, and what \
         every other parent keeping it keeps, {txn}. False if there is no such child."
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
            #subset_spec
        }

        #[doc = #push_doc]
        pub async fn #push(&self, id: &#id_ty, child: &#to) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            let child = #rt::RepoCore::<#to>::new(self.core.database()).encode_filled(child).await?;
            let others = <#to as ::squillion::Document>::keepers();
            #rt::subsets::push(self.core.raw(), transactions, #rt::to_bson(id)?, &Self::#spec(), &others, child).await
        }

        #[doc = #replace_doc]
        pub async fn #replace(&self, child: &#to) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            let child = #rt::RepoCore::<#to>::new(self.core.database()).encode_filled(child).await?;
            let others = <#to as ::squillion::Document>::keepers();
            #rt::subsets::replace(self.core.raw(), transactions, &Self::#spec(), &others, child).await
        }

        #[doc = #remove_doc]
        pub async fn #remove(&self, child_id: &<#to as ::squillion::Document>::Id) -> ::squillion::Result<bool> {
            let transactions = self.core.transactions_supported().await?;
            let others = <#to as ::squillion::Document>::keepers();
            #rt::subsets::remove(self.core.raw(), transactions, &Self::#spec(), &others, #rt::to_bson(child_id)?).await
        }

        #[doc = #refill_doc]
        pub async fn #refill(&self, id: &#id_ty) -> ::squillion::Result<()> {
            let transactions = self.core.transactions_supported().await?;
            #rt::subsets::refill(self.core.raw(), transactions, &Self::#spec(), #rt::to_bson(id)?).await
        }
    }
}

pub(super) fn top(item: &Item<'_>, f: &Field<'_>, n: u64, sort: &str, desc: bool) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let Some(elem) = f.elem() else {
        return TokenStream::new();
    };
    let path = &f.bson;
    let each = format!("{path}[]");
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
            #rt::arrays::push_top(self.core.raw(), #rt::to_bson(id)?, #path, self.core.with_copies(#each, #rt::to_bson(item)?).await?, #sort, #desc, #n, #version).await
        }
    }
}
