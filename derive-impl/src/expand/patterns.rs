//! Methods of the entity-level patterns (queue, tree, document versioning, link collection) and of
//! denormalized copies (fan-out of a source field's updates).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{method, rt};
use crate::ast::Item;

fn bson_name(item: &Item<'_>, ident: &syn::Ident) -> String {
    item.field(ident)
        .map_or_else(|| ident.to_string(), |f| f.bson.clone())
}

/// Every pattern's methods.
pub fn methods(item: &Item<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(queue(item));
    out.extend(tree(item));
    out.extend(versioned(item));
    out.extend(link(item));
    out
}

fn queue(item: &Item<'_>) -> TokenStream {
    let Some(q) = &item.attrs.queue else {
        return TokenStream::new();
    };
    let rt = rt();
    let ident = item.ident;
    let id_ty = item.id_field().ty;
    let priority = bson_name(item, &q.priority);
    let in_progress = bson_name(item, &q.in_progress);
    let started = bson_name(item, &q.started);
    let done = match &q.done {
        Some(d) => {
            let d = bson_name(item, d);
            quote!(::core::option::Option::Some(#d))
        }
        None => quote!(::core::option::Option::None),
    };
    let spec = quote! {
        #rt::queue::QueueSpec { priority: #priority, in_progress: #in_progress, started: #started, done: #done }
    };
    let claim_doc = format!(
        "Claims the waiting job of highest priority: `findOneAndUpdate({{{in_progress}: false}}, \
         {{$set: {{{in_progress}: true, {started}: now}}}}, {{sort: {{{priority}: -1, _id: 1}}, returnDocument: \"after\"}})` \
         (seed 001). The server evaluates the filter, so each job is handed out once and only once."
    );
    // Without a done flag a completed job is deleted, as `delete` does: its parents refilled.
    let complete = if q.done.is_some() {
        quote!(#rt::queue::complete(self.core.raw(), &spec, #rt::to_bson(id)?).await)
    } else {
        quote!(self.core.delete_matching(#rt::queue::claimed(&spec, #rt::to_bson(id)?)).await)
    };
    quote! {
        /// Adds a job to the queue (`insertOne`), waiting to be claimed; parents keeping lists
        /// or summaries of jobs are refilled.
        pub async fn enqueue(&self, job: &#ident) -> ::squillion::Result<()> {
            let spec = #spec;
            self.core.insert_encoded(spec.prepare(self.core.encode_filled(job).await?)).await
        }

        #[doc = #claim_doc]
        pub async fn claim_next(&self) -> ::squillion::Result<::core::option::Option<#ident>> {
            let spec = #spec;
            match #rt::queue::claim_next(self.core.raw(), &spec).await? {
                ::core::option::Option::Some(d) => self.core.decode_one(d).await.map(::core::option::Option::Some),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }

        /// Completes a claimed job (sets the done flag, or deletes the job when the queue has
        /// none); false if no claimed job has this id.
        pub async fn complete(&self, id: &#id_ty) -> ::squillion::Result<bool> {
            let spec = #spec;
            #complete
        }

        /// Puts a claimed job back in the queue.
        pub async fn release(&self, id: &#id_ty) -> ::squillion::Result<bool> {
            let spec = #spec;
            #rt::queue::release(self.core.raw(), &spec, #rt::to_bson(id)?).await
        }

        /// How many jobs wait to be claimed.
        pub async fn count_waiting(&self) -> ::squillion::Result<u64> {
            let spec = #spec;
            self.core.count(spec.waiting()).await
        }

        /// The jobs claimed and not complete.
        pub async fn in_progress(&self) -> ::squillion::Result<#rt::Vec<#ident>> {
            let spec = #spec;
            self.core.find(spec.running(), ::core::option::Option::Some(spec.order())).await
        }
    }
}

fn tree(item: &Item<'_>) -> TokenStream {
    let Some(t) = &item.attrs.tree else {
        return TokenStream::new();
    };
    let rt = rt();
    let ident = item.ident;
    let id_ty = item.id_field().ty;
    let parent = bson_name(item, &t.parent);
    let ancestors = bson_name(item, &t.ancestors);
    let spec = quote!(#rt::tree::TreeSpec { parent: #parent, ancestors: #ancestors });
    quote! {
        /// Inserts `node` under `parent` (a root when `None`), writing its `parent` and its
        /// `ancestors` (the parent's ancestors, then the parent: seed 000/001's array of
        /// ancestors). Returns the node as stored.
        pub async fn insert_under(&self, parent: ::core::option::Option<&#id_ty>, node: &#ident) -> ::squillion::Result<#ident> {
            let spec = #spec;
            let parent = match parent {
                ::core::option::Option::Some(p) => ::core::option::Option::Some(#rt::to_bson(p)?),
                ::core::option::Option::None => ::core::option::Option::None,
            };
            let stored = #rt::tree::insert_under(&self.core, &spec, parent, self.core.encode_filled(node).await?).await?;
            self.core.decode(stored)
        }

        /// The direct children (`find({parent: id})`, indexed).
        pub async fn children(&self, id: &#id_ty) -> ::squillion::Result<#rt::Vec<#ident>> {
            self.core.find(#rt::bson::doc! { #parent: #rt::to_bson(id)? }, ::core::option::Option::Some(#rt::bson::doc! { "_id": 1 })).await
        }

        /// Every descendant (`find({ancestors: id})`, one indexed query).
        pub async fn descendants(&self, id: &#id_ty) -> ::squillion::Result<#rt::Vec<#ident>> {
            self.core.find(#rt::bson::doc! { #ancestors: #rt::to_bson(id)? }, ::core::option::Option::Some(#rt::bson::doc! { "_id": 1 })).await
        }

        /// The ancestors, root first (`find({_id: {$in: node.ancestors}})`).
        pub async fn ancestors(&self, id: &#id_ty) -> ::squillion::Result<#rt::Vec<#ident>> {
            let spec = #spec;
            let docs = #rt::tree::ancestors(&self.core, &spec, #rt::to_bson(id)?).await?;
            self.core.decode_all(docs).await
        }
    }
}

fn versioned(item: &Item<'_>) -> TokenStream {
    let Some(v) = &item.attrs.versioned else {
        return TokenStream::new();
    };
    let rt = rt();
    let ident = item.ident;
    let (Some(key_f), Some(from_f)) = (item.field(&v.key), item.field(&v.valid_from)) else {
        return TokenStream::new();
    };
    let key_ty = key_f.ty;
    let time_ty = crate::types::option_inner(from_f.ty).unwrap_or(from_f.ty);
    let key = &key_f.bson;
    let version = bson_name(item, &v.version);
    let valid_from = &from_f.bson;
    let valid_to = bson_name(item, &v.valid_to);
    let spec = quote! {
        #rt::versioning::VersionSpec { key: #key, version: #version, valid_from: #valid_from, valid_to: #valid_to }
    };
    let current_doc = format!(
        "The version current at `at`: `find({{{key}, {valid_from}: {{$lte: at}}, $or: [{{{valid_to}: {{$gt: at}}}}, {{{valid_to}: null}}]}})\
         .sort({{{valid_from}: -1}}).limit(1)` (seed 002's document versioning)."
    );
    quote! {
        /// Stores `doc` as the next version of its document: numbers it after the latest one,
        /// and closes the version it supersedes (its `valid_to` becomes `doc`'s `valid_from`),
        /// in one transaction where the deployment runs them. Returns the version as stored.
        pub async fn new_version(&self, doc: &#ident) -> ::squillion::Result<#ident> {
            let spec = #spec;
            let stored = #rt::versioning::new_version(&self.core, &spec, self.core.encode_filled(doc).await?).await?;
            self.core.decode(stored)
        }

        #[doc = #current_doc]
        pub async fn current_at(&self, key: &#key_ty, at: &#time_ty) -> ::squillion::Result<::core::option::Option<#ident>> {
            let spec = #spec;
            match #rt::versioning::current_at(self.core.raw(), &spec, #rt::to_bson(key)?, #rt::to_bson(at)?).await? {
                ::core::option::Option::Some(d) => self.core.decode_one(d).await.map(::core::option::Option::Some),
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }

        /// Every version of a document, oldest first.
        pub async fn versions(&self, key: &#key_ty) -> ::squillion::Result<#rt::Vec<#ident>> {
            self.core.find(#rt::bson::doc! { #key: #rt::to_bson(key)? }, ::core::option::Option::Some(#rt::bson::doc! { #version: 1 })).await
        }
    }
}

fn link(item: &Item<'_>) -> TokenStream {
    let Some(l) = &item.attrs.link else {
        return TokenStream::new();
    };
    let [(a, a_to), (b, b_to)] = l.ends.as_slice() else {
        return TokenStream::new();
    };
    let (Some(af), Some(bf)) = (item.field(a), item.field(b)) else {
        return TokenStream::new();
    };
    let rt = rt();
    let ident = item.ident;
    let (a_ty, b_ty) = (af.ty, bf.ty);
    let (a_name, b_name) = (&af.bson, &bf.bson);
    let by_a = format_ident!("by_{}", a);
    let by_b = format_ident!("by_{}", b);
    let partners_a = format_ident!("{}s_of_{}", b, a);
    let partners_b = format_ident!("{}s_of_{}", a, b);
    let _ = method;
    quote! {
        /// Links the pair (`updateOne({a, b}, {$set: link fields, $setOnInsert: {_id}}, {upsert: true})`);
        /// the unique index on the pair makes it idempotent. True if the pair was new.
        pub async fn link(&self, link: &#ident) -> ::squillion::Result<bool> {
            #rt::links::link(self.core.raw(), #a_name, #b_name, self.core.encode_filled(link).await?).await
        }

        /// Unlinks the pair (`deleteOne({a, b})`); true if it was linked.
        pub async fn unlink(&self, #a: &#a_ty, #b: &#b_ty) -> ::squillion::Result<bool> {
            let r = #rt::Context::during(self.core.raw().delete_one(#rt::bson::doc! { #a_name: #rt::to_bson(#a)?, #b_name: #rt::to_bson(#b)? }).await, "delete", self.core.name())?;
            ::core::result::Result::Ok(r.deleted_count == 1)
        }

        /// The link of the pair, if linked.
        pub async fn get_link(&self, #a: &#a_ty, #b: &#b_ty) -> ::squillion::Result<::core::option::Option<#ident>> {
            let mut found = self.core.find(#rt::bson::doc! { #a_name: #rt::to_bson(#a)?, #b_name: #rt::to_bson(#b)? }, ::core::option::Option::None).await?;
            ::core::result::Result::Ok(found.pop())
        }

        /// One page of the links of one end (indexed by the pair index).
        pub async fn #by_a(&self, #a: &#a_ty, page: ::squillion::PageRequest) -> ::squillion::Result<::squillion::Page<#ident>> {
            self.core.find_page(#rt::bson::doc! { #a_name: #rt::to_bson(#a)? }, #rt::bson::doc! { #b_name: 1 }, page).await
        }

        /// One page of the links of the other end (indexed by the reverse pair index).
        pub async fn #by_b(&self, #b: &#b_ty, page: ::squillion::PageRequest) -> ::squillion::Result<::squillion::Page<#ident>> {
            self.core.find_page(#rt::bson::doc! { #b_name: #rt::to_bson(#b)? }, #rt::bson::doc! { #a_name: 1 }, page).await
        }

        /// One page of partners with the link's own fields: the links, then one `$in` query for
        /// the partner documents.
        pub async fn #partners_a(&self, #a: &#a_ty, page: ::squillion::PageRequest) -> ::squillion::Result<::squillion::Page<(#ident, #b_to)>> {
            let links = self.#by_a(#a, page).await?;
            #rt::links::with_partners::<#ident, #b_to>(self.core.database(), links, #b_name).await
        }

        /// One page of partners of the other end, with the link's own fields.
        pub async fn #partners_b(&self, #b: &#b_ty, page: ::squillion::PageRequest) -> ::squillion::Result<::squillion::Page<(#ident, #a_to)>> {
            let links = self.#by_b(#b, page).await?;
            #rt::links::with_partners::<#ident, #a_to>(self.core.database(), links, #a_name).await
        }
    }
}

/// How one copy is updated, in words: `` `T.lines.$[e0].product.name` (matched on
/// `lines.product.id`, arrayFilters `e0.product.id`) `` for `by = "lines[].product.id"`,
/// `copy = "lines[].product.name"` (the runtime's `fanout::copy_update` writes the same).
fn copy_target(to: &str, by: &str, copy: &str) -> String {
    let by_parts: Vec<&str> = by.split("[]").collect();
    let copy_parts: Vec<&str> = copy.split("[]").collect();
    let mut set = String::new();
    let mut filters = Vec::new();
    for (level, part) in copy_parts.iter().enumerate() {
        set.push_str(part);
        if level + 1 < copy_parts.len() {
            set.push_str(&format!(".$[e{level}]"));
            let rest = by_parts
                .get(level + 1..)
                .map(<[&str]>::concat)
                .unwrap_or_default();
            filters.push(format!("`e{level}{rest}`"));
        }
    }
    let matched = by_parts.concat();
    if filters.is_empty() {
        format!("`{to}.{set}` (matched on `{matched}`)")
    } else {
        format!(
            "`{to}.{set}` (matched on `{matched}`, arrayFilters {})",
            filters.join(", ")
        )
    }
}

/// `set_<field>` for fields whose copies live in other collections.
pub fn fan_out_methods(item: &Item<'_>) -> TokenStream {
    let rt = rt();
    let id_ty = item.id_field().ty;
    let mut out = TokenStream::new();
    for f in &item.fields {
        if f.attrs.fan_out.is_empty() {
            continue;
        }
        let ty = f.ty;
        let path = &f.bson;
        let set = method("set", f, "");
        let copies = f.attrs.fan_out.iter().map(|c| {
            let to = &c.to;
            let (by, copy, array) = (&c.by, &c.copy, &c.array);
            let array = match array {
                Some(a) => quote!(::core::option::Option::Some(#a)),
                None => quote!(::core::option::Option::None),
            };
            quote! {
                #rt::fanout::Copy {
                    collection: <#to as ::squillion::Document>::COLLECTION,
                    by: #by,
                    copy: #copy,
                    array: #array,
                }
            }
        });
        let targets: Vec<String> = f
            .attrs
            .fan_out
            .iter()
            .map(|c| {
                let to = &c.to;
                let to = quote!(#to).to_string().replace(' ', "");
                let (by, copy) = match &c.array {
                    Some(a) => (format!("{a}[].{}", c.by), format!("{a}[].{}", c.copy)),
                    None => (c.by.clone(), c.copy.clone()),
                };
                copy_target(&to, &by, &copy)
            })
            .collect();
        let doc = format!(
            "Sets `{path}` and fans the new value out to every copy: {} with `updateMany`, in the same \
             transaction as the source update where the deployment runs transactions (rule of thumb 5: \
             a denormalized field is no longer updated in one place).",
            targets.join(", ")
        );
        let param = crate::types::value_param(ty);
        out.extend(quote! {
            #[doc = #doc]
            pub async fn #set(&self, id: &#id_ty, value: #param) -> ::squillion::Result<#rt::fanout::FanOutReport> {
                let copies = [#(#copies),*];
                #rt::fanout::set_and_fan_out(&self.core, #rt::to_bson(id)?, #path, #rt::to_bson(value)?, &copies).await
            }
        });
    }
    out
}
