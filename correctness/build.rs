//! Generates one module per schema of `src/families/mod.rs`, and per schema of a fixed-seed batch of
//! squillion-schemagen's (`gen_NN`): the code squillion generates for it, plus `SQN`,
//! `PLAN_JSON` and `ensure_indexes(db)` (every collection's repository), so the tests can drive
//! the generated repositories of a whole family the same way.

#[path = "src/families/mod.rs"]
mod families;

use std::path::PathBuf;

use quote::{format_ident, quote};
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

/// How many of squillion-schemagen's schemas, and from which seed.
const GENERATED: usize = 12;
const GENERATED_SEED: u64 = 11;

fn main() {
    println!("cargo:rerun-if-changed=src/families");
    println!("cargo:rerun-if-changed=../examples");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        eprintln!("OUT_DIR is not set: run through cargo");
        std::process::exit(2);
    };
    let mut modules = Vec::new();
    let mut failed = Vec::new();
    let mut copying_modules: Vec<String> = Vec::new();
    let generated_schemas = squillion_schemagen::batch(
        GENERATED_SEED,
        GENERATED,
        squillion_schemagen::Config::default(),
    )
    .into_iter()
    .enumerate()
    .map(|(k, (_, schema))| families::Schema {
        name: format!("gen_{k:02}"),
        doc: format!("squillion-schemagen's schema {k} of seed {GENERATED_SEED}."),
        sqn: squillion_schemagen::render(&schema),
    });
    for schema in families::all().into_iter().chain(generated_schemas) {
        let source = SourceFile::new(format!("{}.sqn", schema.name), schema.sqn.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(diags) => {
                failed.push(source.render(&diags, false));
                continue;
            }
        };
        let repos: Vec<_> = generated
            .plan
            .collections
            .iter()
            .map(|c| format_ident!("{}Repo", squillion_codegen::rust::collection_type_name(c)))
            .collect();
        let (sqn, plan) = (schema.sqn.as_str(), generated.plan.to_json());
        // Modules holding copies: every collection's typed writes of whole documents, for
        // `tests/copies_written.rs` (the caller's copy values are never stored).
        let copying = generated
            .plan
            .relationships
            .iter()
            .any(|d| !d.denormalized.is_empty());
        let write_raw = copying.then(|| {
            let names: Vec<&str> = generated
                .plan
                .collections
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            let types: Vec<_> = generated
                .plan
                .collections
                .iter()
                .map(|c| format_ident!("{}", squillion_codegen::rust::collection_type_name(c)))
                .collect();
            quote! {
                /// Writes the raw `docs` of `collection` through its typed repository: `insert`
                /// each, `insert_many` all, or `replace` each (`how`). `None`: no such collection.
                pub async fn write_raw(
                    db: &::squillion::mongodb::Database,
                    collection: &str,
                    how: &str,
                    docs: ::std::vec::Vec<::squillion::bson::Document>,
                ) -> ::core::option::Option<::squillion::Result<()>> {
                    match collection {
                        #( #names => ::core::option::Option::Some(async {
                            let repo = #repos::new(db);
                            let docs = docs
                                .into_iter()
                                .map(::squillion::bson::from_document::<#types>)
                                .collect::<::core::result::Result<::std::vec::Vec<_>, _>>()
                                .map_err(::squillion::Error::from)?;
                            let written: ::squillion::Result<()> = match how {
                                "insert_many" => repo.insert_many(&docs).await,
                                "replace" => {
                                    for d in &docs {
                                        repo.replace(d).await?;
                                    }
                                    Ok(())
                                }
                                _ => {
                                    for d in &docs {
                                        repo.insert(d).await?;
                                    }
                                    Ok(())
                                }
                            };
                            written
                        }.await), )*
                        _ => ::core::option::Option::None,
                    }
                }
            }
        });
        if copying {
            copying_modules.push(schema.name.clone());
        }
        let extra = quote! {
            #write_raw
            /// The schema this module was generated from.
            pub const SQN: &str = #sqn;
            /// Its Plan, as `squillion plan --json` writes it.
            pub const PLAN_JSON: &str = #plan;
            /// `ensure_indexes()` of every collection's repository, in the Plan's order.
            pub async fn ensure_indexes(
                db: &::squillion::mongodb::Database,
            ) -> ::squillion::Result<()> {
                #( #repos::new(db).ensure_indexes().await?; )*
                Ok(())
            }
            /// `ensure_validator()` of every collection's repository, in the Plan's order.
            pub async fn ensure_validators(
                db: &::squillion::mongodb::Database,
            ) -> ::squillion::Result<()> {
                #( #repos::new(db).ensure_validator().await?; )*
                Ok(())
            }
        };
        let extra = match syn::parse2::<syn::File>(extra) {
            Ok(f) => prettyplease::unparse(&f),
            Err(e) => {
                failed.push(format!("{}: {e}", schema.name));
                continue;
            }
        };
        let file = out.join(format!("{}.rs", schema.name));
        let text = format!("{}\n{extra}", generated.rust);
        if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            if let Err(e) = std::fs::write(&file, text) {
                failed.push(format!("{}: {e}", file.display()));
            }
        }
        modules.push((schema.name, schema.doc));
    }
    if !failed.is_empty() {
        eprintln!("{}", failed.join("\n"));
        std::process::exit(1);
    }
    let mods = modules.iter().map(|(name, doc)| {
        let ident = format_ident!("{}", name);
        let path = format!("/{name}.rs");
        quote! {
            #[doc = #doc]
            pub mod #ident {
                include!(concat!(env!("OUT_DIR"), #path));
            }
        }
    });
    let names: Vec<&str> = modules.iter().map(|(name, _)| name.as_str()).collect();
    let idents: Vec<_> = names.iter().map(|n| format_ident!("{}", n)).collect();
    let copying_names: Vec<&str> = copying_modules.iter().map(String::as_str).collect();
    let copying_idents: Vec<_> = copying_names
        .iter()
        .map(|n| format_ident!("{}", n))
        .collect();
    let list = quote! {
        #(#mods)*
        /// Every module's name: `families::all()` in order, then the generated `gen_NN`.
        pub const MODULES: &[&str] = &[#(#names),*];
        /// The schema of module `module`.
        pub fn sqn(module: &str) -> ::core::option::Option<&'static str> {
            match module {
                #( #names => ::core::option::Option::Some(#idents::SQN), )*
                _ => ::core::option::Option::None,
            }
        }
        /// `ensure_validators(db)` of module `module` (`None`: no such module).
        pub async fn ensure_validators(
            module: &str,
            db: &::squillion::mongodb::Database,
        ) -> ::core::option::Option<::squillion::Result<()>> {
            match module {
                #( #names => ::core::option::Option::Some(#idents::ensure_validators(db).await), )*
                _ => ::core::option::Option::None,
            }
        }
        /// The Plan of module `module`, as JSON.
        pub fn plan_json(module: &str) -> ::core::option::Option<&'static str> {
            match module {
                #( #names => ::core::option::Option::Some(#idents::PLAN_JSON), )*
                _ => ::core::option::Option::None,
            }
        }
        /// `write_raw(db, collection, how, docs)` of module `module`, when it holds copies
        /// (`None`: no such module, or it holds none).
        pub async fn write_raw(
            module: &str,
            db: &::squillion::mongodb::Database,
            collection: &str,
            how: &str,
            docs: ::std::vec::Vec<::squillion::bson::Document>,
        ) -> ::core::option::Option<::squillion::Result<()>> {
            match module {
                #( #copying_names => #copying_idents::write_raw(db, collection, how, docs).await, )*
                _ => ::core::option::Option::None,
            }
        }
        /// `ensure_indexes(db)` of module `module` (`None`: no such module).
        pub async fn ensure_indexes(
            module: &str,
            db: &::squillion::mongodb::Database,
        ) -> ::core::option::Option<::squillion::Result<()>> {
            match module {
                #( #names => ::core::option::Option::Some(#idents::ensure_indexes(db).await), )*
                _ => ::core::option::Option::None,
            }
        }
    };
    let text = match syn::parse2::<syn::File>(list) {
        Ok(f) => prettyplease::unparse(&f),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let file = out.join("modules.rs");
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        if let Err(e) = std::fs::write(&file, text) {
            eprintln!("{}: {e}", file.display());
            std::process::exit(1);
        }
    }
}
