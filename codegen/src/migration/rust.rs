//! A migration as a Rust module (`squillion migrate OLD NEW -o DIR`): one `async fn` per step,
//! each handing its operation, written as literals, to the runtime's executor
//! (`squillion::migrate::Run::step`, the same one the CLI calls), and `migrate`, which runs them
//! in order under the CLI's checkpoint id and step names. The application's build gains no
//! dependency but `squillion`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use super::ops::{op, BatchedOp, CheckOp, IndexOp, Op};
use super::{words, Migration, Step, CHECKPOINTS};

/// Why a migration cannot be written as Rust.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RustError {
    /// A value is written in MongoDB extended JSON (`{"$date": ...}`), which the module does not
    /// write as a literal.
    #[error("step `{step}` holds the extended JSON value `{key}`, which the generated Rust module cannot write as a literal; apply this migration with `squillion migrate --uri` or the mongosh script")]
    ExtendedJson {
        /// The step.
        step: String,
        /// The extended JSON key.
        key: String,
    },
    /// A step has no operation.
    #[error("step `{step}` has no operation to run; this is a bug in squillion")]
    NoOperation {
        /// The step.
        step: String,
    },
}

/// Keys that make a JSON object an extended JSON value rather than a document.
const EXTENDED_JSON: &[&str] = &[
    "$oid",
    "$symbol",
    "$regularExpression",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$date",
    "$minKey",
    "$maxKey",
    "$dbPointer",
    "$undefined",
];

/// The module's text, formatted by prettyplease (deterministic: same migration, same bytes).
pub fn module(m: &Migration) -> Result<String, RustError> {
    let width = m.steps.len().to_string().len().max(2);
    let names: Vec<String> = m.steps.iter().map(Step::name).collect();
    let count = names.len();
    let mut items = Vec::new();
    let mut calls = Vec::new();
    let mut expand_calls = Vec::new();
    let mut listed = Vec::new();
    for (i, step) in m.steps.iter().enumerate() {
        let name = &names[i];
        let f = format_ident!(
            "step_{:0width$}_{}",
            i + 1,
            slug(&words::action(&step.action))
        );
        let Some(operation) = op(step) else {
            return Err(RustError::NoOperation { step: name.clone() });
        };
        let mut literals = false;
        let body = op_tokens(&operation, &mut literals).map_err(|key| RustError::ExtendedJson {
            step: name.clone(),
            key,
        })?;
        let imports = literals.then(|| {
            quote!(
                use ::squillion::migrate::literal::*;
            )
        });
        let index = Literal::usize_unsuffixed(i);
        let doc = [
            format!(" Step {} of {count}, `{name}`.", i + 1),
            String::new(),
            format!(" {}", words::why(&step.action)),
        ];
        items.push(quote! {
            #(#[doc = #doc])*
            pub async fn #f(
                run: &mut ::squillion::migrate::Run<'_>,
            ) -> ::core::result::Result<(), ::squillion::migrate::MigrationError> {
                #imports
                run.step(STEPS[#index], #body).await
            }
        });
        calls.push(quote!(#f(&mut run).await?;));
        if step.phase == super::Phase::Expand {
            expand_calls.push(quote!(#f(&mut run).await?;));
        }
        listed.push(format!(
            " {}. [`{f}`] ({}): {}.",
            i + 1,
            step.phase.as_str(),
            words::action(&step.action)
        ));
    }
    let (id, from, to) = (&m.id, &m.old_source, &m.new_source);
    let count_lit = Literal::usize_unsuffixed(count);
    let migrate_doc: Vec<String> = [
        format!(" Migrates a database from `{from}` to `{to}`: expand (what the new code needs, while the old code"),
        " still runs), move (the data), contract (what only the old code needed).".to_owned(),
        String::new(),
        format!(" Each step done is recorded in the checkpoint document `{id}` of `{CHECKPOINTS}`, under the"),
        " same names `squillion migrate` uses: steps recorded are skipped, so this function, the CLI and the".to_owned(),
        " mongosh script can each finish what another started, and a second run changes nothing.".to_owned(),
        " `progress` hears each step start, each batch walked and each step done (`|p| eprintln!(\"{p}\")`".to_owned(),
        " prints a line for each).".to_owned(),
        String::new(),
        " The steps, in order:".to_owned(),
        String::new(),
    ]
    .into_iter()
    .chain(listed)
    .collect();
    let expand_doc = [
        format!(" Runs only the expand phase of [`migrate`] ({} of its {count} steps): the checks, the", expand_calls.len()),
        " collections and indexes the new code needs, and the validators relaxed to accept both versions;".to_owned(),
        " no document is changed. Deploy the new code after it (generated with `--from`, it reads both".to_owned(),
        " versions: the online mode), then call [`migrate`], which skips the steps recorded here. An".to_owned(),
        " application that migrates in one go never calls it, hence `allow(dead_code)`.".to_owned(),
    ];
    let migration_doc =
        format!(" The migration from `{from}` to `{to}`: its checkpoint id and its steps' names.");
    let mut file: Vec<TokenStream> = vec![
        quote! {
            #[doc = #migration_doc]
            pub const MIGRATION: ::squillion::migrate::Migration<'static> = ::squillion::migrate::Migration {
                id: #id,
                from: #from,
                to: #to,
                steps: &STEPS,
            };
        },
        quote! {
            /// The steps' names, in the order they run: the checkpoint records steps by name.
            pub const STEPS: [&str; #count_lit] = [#(#names),*];
        },
    ];
    file.extend(items);
    file.push(quote! {
        #(#[doc = #migrate_doc])*
        pub async fn migrate(
            db: &::squillion::mongodb::Database,
            progress: &mut dyn FnMut(&::squillion::migrate::Progress<'_>),
        ) -> ::core::result::Result<::squillion::migrate::Summary, ::squillion::migrate::MigrationError> {
            let mut run = ::squillion::migrate::Run::open(db, &MIGRATION, false, progress).await?;
            #(#calls)*
            Ok(run.finish())
        }
    });
    let open_expand = if expand_calls.is_empty() {
        quote!(let run = ::squillion::migrate::Run::open(db, &MIGRATION, false, progress).await?;)
    } else {
        quote!(let mut run = ::squillion::migrate::Run::open(db, &MIGRATION, false, progress).await?;)
    };
    file.push(quote! {
        #(#[doc = #expand_doc])*
        #[allow(dead_code)]
        pub async fn expand(
            db: &::squillion::mongodb::Database,
            progress: &mut dyn FnMut(&::squillion::migrate::Progress<'_>),
        ) -> ::core::result::Result<::squillion::migrate::Summary, ::squillion::migrate::MigrationError> {
            #open_expand
            #(#expand_calls)*
            Ok(run.finish())
        }
    });
    // Each item formatted on its own and separated by a blank line (prettyplease puts none
    // between items); the tokens are built from literals and escaped identifiers, so parsing
    // fails only on a bug, and then the unformatted tokens still compile.
    let formatted = file
        .into_iter()
        .map(|item| match syn::parse2::<syn::File>(item.clone()) {
            Ok(f) => prettyplease::unparse(&f),
            Err(_) => format!("{item}\n"),
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok(format!(
        "// @generated by squillion migrate: {from} -> {to}. Do not edit: run `squillion migrate -o` again.\n//\n// Bring it in as a module (`#[path = \"...\"] mod migration;`, or `include!` inside a `mod`)\n// and call `migration::migrate(&db, &mut |p| eprintln!(\"{{p}}\")).await?`. The application\n// depends on `squillion` only.\n\n{formatted}"
    ))
}

/// `create collection comments` -> `create_collection_comments`, at most about 48 characters
/// cut at a word.
fn slug(words: &str) -> String {
    let mut out = String::new();
    for part in words
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        if !out.is_empty() && out.len() + part.len() > 48 {
            break;
        }
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(&part.to_ascii_lowercase());
    }
    if out.is_empty() {
        out.push_str("step");
    }
    out
}

fn s(v: &str) -> TokenStream {
    quote!(::std::string::String::from(#v))
}

/// `Err(key)`: an extended JSON value.
type Tokens = Result<TokenStream, String>;

fn op_tokens(o: &Op, literals: &mut bool) -> Tokens {
    let p = quote!(::squillion::migrate);
    *literals = !matches!(o, Op::DropCollection { .. } | Op::DropIndex { .. });
    Ok(match o {
        Op::Check(c) => {
            let c = check_tokens(c)?;
            quote!(#p::Op::Check(#c))
        }
        Op::CreateCollection {
            collection,
            validator,
        } => {
            let (c, v) = (s(collection), document(validator)?);
            quote!(#p::Op::CreateCollection { collection: #c, validator: #v })
        }
        Op::CreateIndex { collection, index } => {
            let (c, i) = (s(collection), index_tokens(index)?);
            quote!(#p::Op::CreateIndex { collection: #c, index: #i })
        }
        Op::CollMod {
            collection,
            validator,
            strict,
        } => {
            let (c, v) = (s(collection), document(validator)?);
            let level = if *strict {
                quote!(#p::ValidationLevel::Strict)
            } else {
                quote!(#p::ValidationLevel::Moderate)
            };
            quote!(#p::Op::CollMod { collection: #c, validator: #v, level: #level })
        }
        Op::UpdateMany {
            collection,
            filter,
            update,
        } => {
            let (c, f) = (s(collection), document(filter)?);
            let u = match update {
                Value::Array(stages) => {
                    let d = documents(stages)?;
                    quote!(#p::Update::Pipeline(#d))
                }
                other => {
                    let d = document(other)?;
                    quote!(#p::Update::Document(#d))
                }
            };
            quote!(#p::Op::UpdateMany { collection: #c, filter: #f, update: #u })
        }
        Op::Batched { batched, buckets } => {
            let b = batched_tokens(batched)?;
            let walk = walk_tokens(*buckets);
            quote!(#p::Op::Batched { batched: #b, walk: #walk })
        }
        Op::SplitOut {
            batched,
            array,
            missing,
            buckets,
        } => {
            let b = batched_tokens(batched)?;
            let (a, m) = (s(array), document(missing)?);
            let walk = walk_tokens(*buckets);
            quote!(#p::Op::SplitOut {
                batched: #b,
                ids: #p::Ids { array: #a, missing: #m },
                walk: #walk,
            })
        }
        Op::Gather { batched, leftover } => {
            let b = batched_tokens(batched)?;
            let l = match leftover {
                Some((guard, c)) => {
                    let (g, c) = (document(guard)?, check_tokens(c)?);
                    quote!(::core::option::Option::Some((#g, #c)))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#p::Op::Gather { batched: #b, leftover: #l })
        }
        Op::Backfill {
            source_collection,
            source_path,
            collection,
            match_path,
            set_path,
            array_filters,
        } => {
            let (sc, sp, c, mp, st) = (
                s(source_collection),
                s(source_path),
                s(collection),
                s(match_path),
                s(set_path),
            );
            quote!(#p::Op::Backfill(#p::Backfill {
                source_collection: #sc,
                source_path: #sp,
                collection: #c,
                match_path: #mp,
                set_path: #st,
                array_filters: texts([#(#array_filters),*]),
            }))
        }
        Op::DropCollection { collection } => {
            let c = s(collection);
            quote!(#p::Op::DropCollection { collection: #c })
        }
        Op::DropIndex { collection, name } => {
            let (c, n) = (s(collection), s(name));
            quote!(#p::Op::DropIndex { collection: #c, name: #n })
        }
    })
}

fn check_tokens(c: &CheckOp) -> Tokens {
    let (collection, pipeline, error) = (s(&c.collection), documents(&c.pipeline)?, &c.error);
    Ok(quote!(::squillion::migrate::Check {
        collection: #collection,
        pipeline: #pipeline,
        error: ::std::string::String::from(#error),
    }))
}

/// What a walked document is, for the progress report.
fn walk_tokens(buckets: bool) -> TokenStream {
    if buckets {
        quote!(::squillion::migrate::Walk::Buckets)
    } else {
        quote!(::squillion::migrate::Walk::Parents)
    }
}

fn batched_tokens(b: &BatchedOp) -> Tokens {
    let (collection, guard, stages) =
        (s(&b.collection), document(&b.guard)?, documents(&b.stages)?);
    Ok(quote!(::squillion::migrate::Batched {
        collection: #collection,
        guard: #guard,
        stages: #stages,
    }))
}

fn index_tokens(i: &IndexOp) -> Tokens {
    let (name, keys) = (s(&i.name), document(&i.keys)?);
    let (unique, sparse) = (i.unique, i.sparse);
    let partial = match &i.partial_filter {
        Some(f) => {
            let f = document(f)?;
            quote!(::core::option::Option::Some(#f))
        }
        None => quote!(::core::option::Option::None),
    };
    let collation = match &i.collation {
        Some((locale, strength)) => {
            let (l, n) = (s(locale), Literal::u32_unsuffixed(*strength));
            quote!(::core::option::Option::Some((#l, #n)))
        }
        None => quote!(::core::option::Option::None),
    };
    let ttl = match i.expire_after_seconds {
        Some(n) => {
            let n = Literal::u64_unsuffixed(n);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    Ok(quote!(::squillion::migrate::Index {
        name: #name,
        keys: #keys,
        unique: #unique,
        sparse: #sparse,
        partial_filter: #partial,
        collation: #collation,
        expire_after_seconds: #ttl,
    }))
}

/// An object's `("key", value)` pairs, refusing extended JSON.
fn pairs(map: &serde_json::Map<String, Value>) -> Result<Vec<TokenStream>, String> {
    extended(map)?;
    map.iter()
        .map(|(k, v)| {
            let v = value(v)?;
            Ok(quote!((#k, #v)))
        })
        .collect()
}

/// A document: `doc([("key", value), ...])`; anything but an object is an empty document (as
/// the CLI reads it).
fn document(v: &Value) -> Tokens {
    match v {
        Value::Object(map) => {
            let pairs = pairs(map)?;
            Ok(quote!(doc([#(#pairs),*])))
        }
        _ => Ok(quote!(doc([]))),
    }
}

fn documents(vs: &[Value]) -> Tokens {
    let items = vs
        .iter()
        .map(document)
        .collect::<Result<Vec<_>, String>>()?;
    Ok(quote!(docs([#(#items),*])))
}

fn extended(map: &serde_json::Map<String, Value>) -> Result<(), String> {
    match EXTENDED_JSON.iter().find(|k| map.contains_key(**k)) {
        Some(k) => Err((*k).to_owned()),
        None => Ok(()),
    }
}

/// A value as BSON, as `bson` reads the same JSON: integers that fit 32 bits are `int`, other
/// integers `long`, other numbers `double`.
fn value(v: &Value) -> Tokens {
    Ok(match v {
        Value::Null => quote!(null()),
        Value::Bool(b) => quote!(boolean(#b)),
        Value::String(t) => quote!(text(#t)),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => match i32::try_from(i) {
                Ok(small) => {
                    let lit = Literal::i64_unsuffixed(i64::from(small).abs());
                    if small < 0 {
                        quote!(int(-#lit))
                    } else {
                        quote!(int(#lit))
                    }
                }
                Err(_) => {
                    let lit = Literal::i128_unsuffixed(i128::from(i).abs());
                    if i < 0 {
                        quote!(long(-#lit))
                    } else {
                        quote!(long(#lit))
                    }
                }
            },
            (None, Some(f)) => {
                let lit = Literal::f64_unsuffixed(f.abs());
                if f < 0.0 {
                    quote!(double(-#lit))
                } else {
                    quote!(double(#lit))
                }
            }
            (None, None) => quote!(null()),
        },
        Value::Array(items) => {
            let items = items
                .iter()
                .map(value)
                .collect::<Result<Vec<_>, String>>()?;
            quote!(arr([#(#items),*]))
        }
        Value::Object(map) => {
            let pairs = pairs(map)?;
            quote!(obj([#(#pairs),*]))
        }
    })
}
