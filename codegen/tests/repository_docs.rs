//! Issue 12 (method names were guessed): each collection struct's doc comment names the methods
//! of its repository, and names them right. For the examples and a batch of squillion-schemagen's
//! schemas, every struct with a repository lists exactly the public methods the derive's
//! expansion of that struct writes, and exactly the query methods the file defines on the
//! repository, each name once.

use std::collections::BTreeSet;

use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

/// The doc line starting with `start`, if the doc has one.
fn line<'d>(docs: &'d [String], start: &str) -> Option<&'d str> {
    docs.iter()
        .map(|l| l.trim_start())
        .find(|l| l.starts_with(start))
}

/// The names in backticks of `text`.
fn names(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The public methods of the inherent impls of `ty` among `items`.
fn methods_of(items: &[syn::Item], ty: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in items {
        let syn::Item::Impl(i) = item else { continue };
        let syn::Type::Path(p) = &*i.self_ty else {
            continue;
        };
        if i.trait_.is_some()
            || p.path.segments.last().map(|s| s.ident.to_string()) != Some(ty.to_owned())
        {
            continue;
        }
        for item in &i.items {
            if let syn::ImplItem::Fn(f) = item {
                if matches!(f.vis, syn::Visibility::Public(_)) {
                    out.push(f.sig.ident.to_string());
                }
            }
        }
    }
    out
}

fn check(name: &str, text: &str) -> usize {
    let source = SourceFile::new(format!("{name}.sqn"), text.to_owned());
    let Ok(generated) = compile(&source, &GenerateSettings::default()) else {
        return 0;
    };
    let file: syn::File = syn::parse_str(&generated.rust).expect("the generated file parses");
    let mut checked = 0;
    for item in &file.items {
        let syn::Item::Struct(s) = item else { continue };
        let docs = doc_lines(&s.attrs);
        // "Layout of `Menu.items`: embed. Up to 80 MenuItems per Menu, ... (rule 1)." reads as
        // sentences: the reason after the layout starts one (never "embed. up to 80") and ends
        // with a full stop.
        for layout in docs
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with("Layout of `"))
        {
            let reason = layout
                .split_once("`: ")
                .and_then(|(_, rest)| rest.split_once(". "))
                .map(|(_, reason)| reason)
                .unwrap_or_else(|| panic!("{name}: {}: `{layout}`", s.ident));
            let first = reason.chars().next().unwrap_or(' ');
            assert!(
                !first.is_lowercase() && reason.ends_with('.'),
                "{name}: {}: the layout's reason is not a sentence: `{layout}`",
                s.ident
            );
        }
        let Some(repository) = line(&docs, "Repository: `") else {
            continue;
        };
        let (first, methods) = repository
            .split_once(", with ")
            .unwrap_or_else(|| panic!("{name}: {}: {repository}", s.ident));
        let repo = names(first)[0]
            .strip_suffix("::new(&db)")
            .unwrap_or_else(|| panic!("{name}: {}: {first}", s.ident))
            .to_owned();
        let derived = names(methods);
        assert_eq!(repo, format!("{}Repo", s.ident), "{name}");
        // What the derive writes: its expansion of the struct, as the compiler runs it.
        let expanded = squillion_derive_impl::derive_document(quote::quote!(#s))
            .unwrap_or_else(|e| panic!("{name}: {}: the derive refuses it: {e}", s.ident));
        let expanded: syn::File = syn::parse2(expanded).expect("the expansion parses");
        assert_eq!(
            derived,
            methods_of(&expanded.items, &repo),
            "{name}: {}'s doc names the derive's methods",
            s.ident
        );
        let queries = line(&docs, "Its declared queries (below): ")
            .map(names)
            .unwrap_or_default();
        assert_eq!(
            queries,
            methods_of(&file.items, &repo),
            "{name}: {}'s doc names the query methods the file defines",
            s.ident
        );
        let all: BTreeSet<&String> = derived.iter().chain(&queries).collect();
        assert_eq!(
            all.len(),
            derived.len() + queries.len(),
            "{name}: a name twice"
        );
        checked += 1;
    }
    checked
}

#[test]
fn every_repository_doc_names_exactly_its_methods() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&examples).expect("examples/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|x| x == "sqn") {
            let text = std::fs::read_to_string(&path).expect("read");
            checked += check(&path.display().to_string(), &text);
        }
    }
    for (k, (_, schema)) in
        squillion_schemagen::batch(12, 40, squillion_schemagen::Config::default())
            .into_iter()
            .enumerate()
    {
        checked += check(&format!("gen_{k}"), &squillion_schemagen::render(&schema));
    }
    assert!(checked > 60, "only {checked} repositories checked");
}

/// The methods a repository may not have for a field the repository keeps itself
/// (`#[squillion(maintained)]`: a summary, a subset the bucket appends keep, a pattern's field):
/// writing it directly would break what keeps it (`Issue.comments`, the latest 3 comments kept by
/// the comments' bucket appends, had `push_comments`, `set_comments`, `pull_comments`).
fn direct_writers(field: &str) -> [String; 6] {
    ["set", "push", "remove", "pull", "inc", "dec"].map(|verb| format!("{verb}_{field}"))
}

fn maintained_fields_unwritten(name: &str, text: &str) -> usize {
    let source = SourceFile::new(format!("{name}.sqn"), text.to_owned());
    let Ok(generated) = compile(&source, &GenerateSettings::default()) else {
        return 0;
    };
    let file: syn::File = syn::parse_str(&generated.rust).expect("the generated file parses");
    let mut checked = 0;
    for item in &file.items {
        let syn::Item::Struct(s) = item else { continue };
        let Ok(expanded) = squillion_derive_impl::derive_document(quote::quote!(#s)) else {
            continue;
        };
        let expanded: syn::File = syn::parse2(expanded).expect("the expansion parses");
        let methods = methods_of(&expanded.items, &format!("{}Repo", s.ident));
        for f in &s.fields {
            let maintained = f.attrs.iter().any(|a| {
                a.path().is_ident("squillion")
                    && a.meta
                        .require_list()
                        .is_ok_and(|l| l.tokens.to_string() == "maintained")
            });
            let Some(ident) = f.ident.as_ref().filter(|_| maintained) else {
                continue;
            };
            let field = ident.to_string();
            let field = field.trim_start_matches("r#");
            for writer in direct_writers(field) {
                assert!(
                    !methods.contains(&writer),
                    "{name}: {}.{field} is maintained, but the repository has `{writer}`",
                    s.ident
                );
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn a_maintained_field_has_no_direct_writer() {
    let mut checked = 0;
    for (k, (_, schema)) in
        squillion_schemagen::batch(31, 60, squillion_schemagen::Config::default())
            .into_iter()
            .enumerate()
    {
        checked +=
            maintained_fields_unwritten(&format!("gen_{k}"), &squillion_schemagen::render(&schema));
    }
    // Subsets of bucketed children, kept by the bucket's appends (the shape that had writers).
    for n in [3, 10] {
        let text = format!(
            "entity Issue {{ title: string }}\nentity Comment {{ text: string posted: date }}\n\
             relation Issue.comments: many(5000, typical 8) <-> Comment.issue: one {{\n\
             page 20 by posted asc\n latest {n} by posted desc keep text, posted\n summary count\n}}\n"
        );
        checked += maintained_fields_unwritten(&format!("bucketed_{n}"), &text);
    }
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for dir in [examples.clone(), examples.join("generated/schemas")] {
        for entry in std::fs::read_dir(&dir).expect("examples/") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|x| x == "sqn") {
                let text = std::fs::read_to_string(&path).expect("read");
                checked += maintained_fields_unwritten(&path.display().to_string(), &text);
            }
        }
    }
    assert!(checked > 40, "only {checked} maintained fields checked");
}

/// A `@versioned` entity (history kept in another collection) with the fields and relations
/// chosen by the bits of `k`: each kind of field the derive would otherwise write one at a time.
fn versioned_schema(k: u32) -> String {
    let parts: [(&str, &str); 7] = [
        ("amount: int32", ""),
        ("note: string?", ""),
        ("stage: one_of(\"draft\", \"signed\")", ""),
        ("tags: [string; 8]", ""),
        (
            "",
            "entity Clause { title: string }\nrelation Contract.clauses: few(10) <-> Clause.contract: one\n",
        ),
        (
            "",
            "entity Client { name: string }\nrelation Client.contracts: many(300) <-> Contract.client: one { show Client.name on Contract ratio 50 }\n",
        ),
        (
            "",
            "entity Party { name: string }\nrelation Contract.parties: few(4) <-> Party.contracts: many(1000) { navigate both }\n",
        ),
    ];
    let mut fields = String::from("terms: string ");
    let mut rest = String::new();
    for (bit, (field, relation)) in parts.iter().enumerate() {
        if k & (1 << bit) != 0 {
            fields.push_str(field);
            fields.push(' ');
            rest.push_str(relation);
        }
    }
    format!("entity Contract @versioned {{ {fields}}}\n{rest}")
}

/// Earlier versions are records of the past: the repository of a history collection (struct
/// `<Entity>Version`, `#[squillion(archive)]`) reads and writes whole documents only. It used to
/// offer `set_terms`, `inc_amount`, `push_clauses`... on the archived versions, each changing the
/// record of a version in place.
#[test]
fn archived_versions_have_no_field_writers() {
    let mut checked = 0;
    for k in 0..(1 << 7) {
        let text = versioned_schema(k);
        let source = SourceFile::new(format!("versioned_{k}.sqn"), text.clone());
        let generated = compile(&source, &GenerateSettings::default())
            .unwrap_or_else(|e| panic!("versioned_{k} does not compile: {e:?}\n{text}"));
        let file: syn::File = syn::parse_str(&generated.rust).expect("the generated file parses");
        let history = file.items.iter().find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == "ContractVersion" => Some(s),
            _ => None,
        });
        let s = history.unwrap_or_else(|| panic!("versioned_{k}: no ContractVersion\n{text}"));
        let expanded = squillion_derive_impl::derive_document(quote::quote!(#s))
            .unwrap_or_else(|e| panic!("versioned_{k}: the derive refuses it: {e}"));
        let expanded: syn::File = syn::parse2(expanded).expect("the expansion parses");
        let methods = methods_of(&expanded.items, "ContractVersionRepo");
        let writers: Vec<&String> = methods
            .iter()
            .filter(|m| !squillion_derive_impl::names::REPOSITORY_METHODS.contains(&m.as_str()))
            .filter(|m| !m.starts_with("find_by_") && !m.starts_with("count_by_"))
            .collect();
        assert!(
            writers.is_empty(),
            "versioned_{k}: the archive's repository writes fields of a past version: {writers:?}\n{text}"
        );
        checked += 1;
    }
    assert_eq!(checked, 128);
}
