//! Writing the tokens: the `squillion::Document` impl, `<Name>Repo` with its CRUD, index and
//! validator methods, and one group of methods per layout.

mod attributes;
mod buckets;
mod counters;
mod elements;
mod fields;
mod history;
mod indexes;
mod inner;
mod kept;
mod layouts;
mod lists;
mod maps;
mod online;
mod patterns;
mod schema;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{Field, Item};

/// `::squillion::__private`.
pub(crate) fn rt() -> TokenStream {
    quote!(::squillion::__private)
}

/// `const COPIES: ...` of the `Document` impl: the copies the documents hold (`copy_of`).
fn copies_const(item: &Item<'_>) -> TokenStream {
    if item.attrs.copy_of.is_empty() {
        return TokenStream::new();
    }
    let rt = rt();
    let copies = item.attrs.copy_of.iter().map(|c| {
        let (from, source, by, copy) = (&c.from, &c.source, &c.by, &c.copy);
        quote! {
            #rt::copies::CopyOf {
                from: <#from as ::squillion::Document>::COLLECTION,
                source: #source,
                by: #by,
                copy: #copy,
            }
        }
    });
    quote! {
        const COPIES: &'static [#rt::copies::CopyOf] = &[#(#copies),*];
    }
}

/// `const UPGRADES: ...` of the `Document` impl: how older versions are read (`upgrade(...)`).
fn upgrades_const(item: &Item<'_>) -> TokenStream {
    if item.attrs.upgrades.is_empty() {
        return TokenStream::new();
    }
    let rt = rt();
    let upgrades = item.attrs.upgrades.iter().filter_map(|u| {
        let (from, _) = u.from?;
        let renames = u.renames.iter().map(|(a, b)| quote!((#a, #b)));
        let wraps = u.wraps.iter().map(|(a, b)| quote!((#a, #b)));
        Some(quote! {
            #rt::online::Upgrade {
                from: #from,
                renames: &[#(#renames),*],
                wraps: &[#(#wraps),*],
            }
        })
    });
    quote! {
        const UPGRADES: &'static [#rt::online::Upgrade] = &[#(#upgrades),*];
    }
}

/// Whether `ty` is a number `$inc` adds to (`i32`, `i64`, `f64`).
pub(crate) fn numeric_type(ty: &syn::Type) -> bool {
    fields::numeric(ty)
}

/// The method name `prefix_field` (raw identifiers lose their `r#`).
pub(crate) fn method(prefix: &str, f: &Field<'_>, suffix: &str) -> Ident {
    let s = crate::names::field_method(prefix, &f.ident.to_string(), suffix);
    format_ident!("{}", s, span = f.ident.span())
}

/// The whole expansion.
pub fn expand(item: &Item<'_>) -> TokenStream {
    let rt = rt();
    let ident = item.ident;
    let vis = item.vis;
    let repo = &item.repo;
    let collection = &item.collection;
    let id = item.id_field();
    let id_ident = id.ident;
    let id_ty = id.ty;

    let schema_version = match item.schema_version() {
        Some((current, min)) => quote! {
            ::core::option::Option::Some(::squillion::SchemaVersion { current: #current, min_accepted: #min })
        },
        None => quote!(::core::option::Option::None),
    };
    let index_list = indexes::collect(item);
    let index_specs = index_list.iter().map(|i| indexes::spec_tokens(&i.decl));
    let validator = match &item.attrs.validator {
        crate::attr::ValidatorDecl::Derived => {
            let json = schema::derived_validator(item);
            quote! {
                #rt::json::document(#json, "derived $jsonSchema validator").map(::core::option::Option::Some)
            }
        }
        crate::attr::ValidatorDecl::Custom(path) => quote! {
            ::core::result::Result::Ok(::core::option::Option::Some(#path()))
        },
        crate::attr::ValidatorDecl::Off => {
            quote!(::core::result::Result::Ok(::core::option::Option::None))
        }
    };

    let keeps = kept::keeps_const(item);
    let keepers = kept::keepers_fn(item);
    let copies = copies_const(item);
    let upgrades = upgrades_const(item);
    let kept_writes = kept::writes(item);
    let mut layout_methods = layouts::methods(item);
    let mut pattern_methods = patterns::methods(item);
    pattern_methods.extend(history::methods(item));
    let mut field_methods = TokenStream::new();
    if item.attrs.history.is_some() || item.attrs.archive.is_some() {
        // A document versioned with a history changes its own fields by `new_version` only, and
        // an archived version does not change.
        layout_methods = history::without(layout_methods, &history::unversioned_writes(item));
    } else {
        field_methods.extend(fields::methods(item));
        field_methods.extend(inner::methods(item));
        field_methods.extend(elements::methods(item));
    }
    let extra_index_calls = layouts::extra_index_calls(item);
    let layout_methods = online::upgrading(item, layout_methods);
    let pattern_methods = online::upgrading(item, pattern_methods);
    let field_methods = online::upgrading(item, field_methods);

    // A struct whose parents keep lists or summaries of it writes through the keepers.
    let fills = kept::fills_sentence(item);
    let insert_doc = format!(
        "Inserts `doc` (`insertOne`), stamping the schema version when one is declared.{fills}"
    );
    let many_doc = format!("Inserts every document (`insertMany`).{fills}");
    let (inserts, replaces) = match kept_writes {
        Some(writes) => (writes, TokenStream::new()),
        None => (
            quote! {
                #[doc = #insert_doc]
                pub async fn insert(&self, doc: &#ident) -> ::squillion::Result<()> {
                    self.core.insert(doc).await
                }

                #[doc = #many_doc]
                pub async fn insert_many(&self, docs: &[#ident]) -> ::squillion::Result<()> {
                    self.core.insert_many(docs).await
                }
            },
            quote! {
                /// Replaces the stored document with `doc` (`replaceOne({_id})`); false if none was stored.
                pub async fn replace(&self, doc: &#ident) -> ::squillion::Result<bool> {
                    self.core.replace(doc).await
                }

                /// Deletes the document with this `_id` (`deleteOne({_id})`); false if there was none.
                pub async fn delete(&self, id: &#id_ty) -> ::squillion::Result<bool> {
                    self.core.delete(id).await
                }
            },
        ),
    };

    let repo_doc = format!(
        "The repository of [`{ident}`] (collection `{collection}`): CRUD, `ensure_indexes`, \
         `ensure_validator`, and the operations that keep each declared layout correct. \
         Written by `#[derive(squillion::Document)]`."
    );

    quote! {
        #[automatically_derived]
        impl ::squillion::Document for #ident {
            type Id = #id_ty;
            const COLLECTION: &'static str = #collection;
            const SCHEMA_VERSION: ::core::option::Option<::squillion::SchemaVersion> = #schema_version;
            const INDEXES: &'static [::squillion::IndexSpec] = &[#(#index_specs),*];
            #keeps
            #keepers
            #copies
            #upgrades
            fn id(&self) -> &Self::Id {
                &self.#id_ident
            }
            fn validator() -> ::squillion::Result<::core::option::Option<#rt::bson::Document>> {
                #validator
            }
        }

        #[doc = #repo_doc]
        #[derive(Clone, Debug)]
        #vis struct #repo {
            core: #rt::RepoCore<#ident>,
        }

        #[automatically_derived]
        #[allow(dead_code, non_snake_case, clippy::needless_lifetimes, clippy::too_many_arguments)]
        impl #repo {
            /// The repository of the collection in `db`.
            pub fn new(db: &#rt::mongodb::Database) -> Self {
                #repo { core: #rt::RepoCore::new(db) }
            }

            /// The repository of the same type stored in collection `name` of `db`.
            pub fn with_collection(db: &#rt::mongodb::Database, name: &str) -> Self {
                #repo { core: #rt::RepoCore::with_collection(db, name) }
            }

            /// The shared runtime handles (database, typed and raw collections).
            pub fn core(&self) -> &#rt::RepoCore<#ident> {
                &self.core
            }

            /// The typed collection, for queries the repository does not offer.
            pub fn collection(&self) -> &#rt::mongodb::Collection<#ident> {
                self.core.collection()
            }

            #inserts

            /// The document with this `_id` (`findOne({_id})`), its schema version checked.
            pub async fn get(&self, id: &#id_ty) -> ::squillion::Result<::core::option::Option<#ident>> {
                self.core.get(id).await
            }

            #replaces

            /// The documents matching `filter` (`find`).
            pub async fn find(&self, filter: #rt::bson::Document) -> ::squillion::Result<#rt::Vec<#ident>> {
                self.core.find(filter, ::core::option::Option::None).await
            }

            /// How many documents match `filter` (`countDocuments`).
            pub async fn count(&self, filter: #rt::bson::Document) -> ::squillion::Result<u64> {
                self.core.count(filter).await
            }

            /// Creates the declared and layout-implied indexes that are missing, replaces those
            /// whose definition changed, and leaves every other index alone. Idempotent.
            pub async fn ensure_indexes(&self) -> ::squillion::Result<::squillion::IndexReport> {
                let report = #rt::indexes::ensure_indexes(&self.core).await?;
                #(#extra_index_calls)*
                ::core::result::Result::Ok(report)
            }

            /// Sets the collection's validator (`collMod`, or `create` when the collection does
            /// not exist yet). Idempotent.
            pub async fn ensure_validator(&self) -> ::squillion::Result<::squillion::ValidatorReport> {
                #rt::indexes::ensure_validator(&self.core).await
            }

            #layout_methods
            #pattern_methods
            #field_methods
        }
    }
}
