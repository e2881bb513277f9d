//! Every field the application owns gets its update methods, in every generated module (issue
//! 12): the example schemas, a fixed batch of squillion-schemagen's and a family of counters of
//! every numeric type. Each module is generated, each collection struct expanded by the derive,
//! and the repository's methods are compared with what the Plan says of each top-level field:
//!
//! - every declared field (scalar, subdocument, the child's reference to its parent), except the
//!   `_id` and the fields of variants, has a `set_<f>`;
//! - a required number that is not copied elsewhere has `inc_<f>` (a copied one is set through
//!   the fan-out only, so the copies stay in step);
//! - a `@counter` has `dec_<f>`;
//! - every field of a required one-to-one subdocument has `set_<f>_<g>` (and a counter there
//!   `dec_<f>_<g>`);
//! - no other field has `inc_<f>` or `dec_<f>`, and the names the code generator checks for
//!   clashes (`squillion_derive_impl::names`) cover every method the derive writes.

use std::collections::BTreeSet;

use squillion_codegen::model::Layout;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::{Collection, FieldKind, Plan};
use squillion_grammar::SourceFile;

/// Counters of every numeric type, beside numbers that are not counters, in a document, in a
/// one-to-one subdocument and in a child that references its parent.
const COUNTERS: &str = r#"
value Dimensions { width: double height: double }
entity Product {
  name: string
  stock: int32 @counter
  sold: int64 @counter @updates(10/day)
  fuel: double @counter
  rating: double
  views: int64
  weight: int32?
  size: Dimensions
  tags: [string; 5]
  updated: date
  active: bool
  price: decimal128
}
entity Shelf { label: string capacity: int32 @counter }
relation Shelf.products: squillions <-> Product.shelf: one
entity Reviewer { name: string karma: int32 @counter }
relation Product.reviewer: one <-> Reviewer.product: one
"#;

fn schemas() -> Vec<(String, String)> {
    let mut out = vec![("counters".to_owned(), COUNTERS.to_owned())];
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    files.sort();
    for p in files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, std::fs::read_to_string(&p).unwrap()));
    }
    let batch = squillion_schemagen::batch(12, 40, squillion_schemagen::Config::default());
    for (k, (_, schema)) in batch.into_iter().enumerate() {
        out.push((format!("gen_{k}"), squillion_schemagen::render(&schema)));
    }
    out
}

/// The BSON name of a struct field: its `#[serde(rename)]`, else its name.
fn bson_name(f: &syn::Field) -> String {
    let mut name = f
        .ident
        .as_ref()
        .map(|i| i.to_string().trim_start_matches("r#").to_owned())
        .unwrap_or_default();
    for a in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|m| {
            if m.path.is_ident("rename") {
                name = m.value()?.parse::<syn::LitStr>()?.value();
            } else if m.input.peek(syn::Token![=]) {
                let _: syn::Expr = m.value()?.parse()?;
            }
            Ok(())
        });
    }
    name
}

/// The methods of the repository the derive writes for `s`.
fn methods(s: &syn::ItemStruct) -> BTreeSet<String> {
    let out = squillion_derive_impl::derive_document(quote::quote!(#s))
        .unwrap_or_else(|e| panic!("{}: {e}", s.ident));
    let file: syn::File = syn::parse2(out).unwrap();
    let mut names = BTreeSet::new();
    for item in file.items {
        let syn::Item::Impl(i) = item else { continue };
        if i.trait_.is_some() {
            continue;
        }
        for item in i.items {
            if let syn::ImplItem::Fn(f) = item {
                names.insert(f.sig.ident.to_string());
            }
        }
    }
    names
}

/// The BSON names of `c`'s entity fields copied into other documents.
fn copied(plan: &Plan, c: &Collection) -> BTreeSet<String> {
    plan.relationships
        .iter()
        .flat_map(|d| &d.denormalized)
        .filter_map(|x| x.source.split_once('.'))
        .filter(|(entity, _)| *entity == c.entity)
        .map(|(_, field)| field.to_owned())
        .collect()
}

#[test]
fn every_owned_field_has_its_setter_and_every_number_its_increment() {
    let mut checked = [0usize; 5];
    let mut failures = Vec::new();
    for (name, sqn) in schemas() {
        let source = SourceFile::new(format!("{name}.sqn"), sqn);
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            // Schemas that do not compile are other tests' business (hostile.rs).
            Err(_) if name.starts_with("gen_") => continue,
            Err(d) => panic!("{name}: {}", source.render(&d, false)),
        };
        let file: syn::File = syn::parse_str(&generated.rust).unwrap();
        for c in &generated.plan.collections {
            let ty = squillion_codegen::rust::collection_type_name(c);
            let Some(s) = file.items.iter().find_map(|i| match i {
                syn::Item::Struct(s) if s.ident == ty => Some(s),
                _ => None,
            }) else {
                panic!("{name}: no struct {ty}");
            };
            let have = methods(s);
            let copies = copied(&generated.plan, c);
            for f in &s.fields {
                let Some(ident) = f.ident.as_ref() else {
                    continue;
                };
                let rust = ident.to_string().trim_start_matches("r#").to_owned();
                let bson = bson_name(f);
                let Some(pf) = c.field(&bson) else { continue };
                if pf.name == "_id" || pf.variant.is_some() {
                    continue;
                }
                // An embedded relationship is the application's when it is plainly embedded
                // (not bucketed, not an outlier's overflow, not a subset).
                let embedded = pf.relation.as_deref().is_none_or(|r| {
                    generated.plan.relationships.iter().any(|d| {
                        d.id == r
                            && d.strategy == Layout::Embed
                            && d.outlier.is_none()
                            && d.subset.is_none()
                            && d.bucket.is_none()
                    })
                });
                // An `@immutable` field is set at insert only: no setter, no increment.
                let owned = !pf.flags.immutable
                    && match pf.kind {
                        FieldKind::Scalar => true,
                        FieldKind::Embedded => embedded,
                        FieldKind::Ref => pf.array_depth == 0,
                        _ => false,
                    };
                // Inside a required one-to-one subdocument, every plain field has its setter.
                let subdocument = pf.kind == FieldKind::Embedded
                    && pf.bson_type == "object"
                    && pf.array_depth == 0
                    && !pf.optional
                    && !pf.map
                    && !pf.recursive;
                if subdocument {
                    for child in &pf.children {
                        let plain_name = child
                            .code_name
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c == '_');
                        if child.kind != FieldKind::Scalar || child.name == "_id" || !plain_name {
                            continue;
                        }
                        let method = format!("set_{rust}_{}", child.code_name);
                        checked[3] += 1;
                        if !have.contains(&method) {
                            failures.push(format!(
                                "{name}: {ty}.{rust}.{}: `{method}` missing",
                                child.code_name
                            ));
                        }
                        if child.flags.counter
                            && !have.contains(&format!("dec_{rust}_{}", child.code_name))
                        {
                            failures.push(format!(
                                "{name}: {ty}.{rust}.{}: `dec_` missing",
                                child.code_name
                            ));
                        }
                    }
                }
                let numeric = pf.array_depth == 0
                    && !pf.optional
                    && !pf.map
                    && matches!(pf.bson_type.as_str(), "int" | "long" | "double");
                // Preallocated counters (`counters(24 x 60)`) add to one slot: `inc_<f>(&id,
                // [h, m], by)`.
                let slots = pf.is_counters();
                let incremented = (owned && numeric && !copies.contains(&bson)) || slots;
                let expect = [
                    (format!("set_{rust}"), owned, false),
                    (format!("inc_{rust}"), incremented, true),
                    (format!("dec_{rust}"), incremented && pf.flags.counter, true),
                ];
                if pf.flags.immutable && pf.kind == FieldKind::Scalar {
                    checked[4] += 1;
                    for method in [format!("set_{rust}"), format!("inc_{rust}")] {
                        if have.contains(&method) {
                            failures.push(format!(
                                "{name}: {ty}.{rust} is @immutable: `{method}` written"
                            ));
                        }
                    }
                }
                for (k, (method, wanted, exact)) in expect.iter().enumerate() {
                    let has = have.contains(method);
                    if *wanted {
                        checked[k] += 1;
                    }
                    // A setter may come from a layout or a copy too; inc and dec only from here.
                    if *wanted != has && (*exact || *wanted) {
                        failures.push(format!(
                            "{name}: {ty}.{rust} ({:?}, {}): `{method}` {}",
                            pf.kind,
                            pf.bson_type,
                            if has { "written" } else { "missing" }
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The family reached every kind of method many times.
    assert!(
        checked[0] > 200 && checked[1] > 20 && checked[2] >= 4 && checked[3] > 10 && checked[4] > 5,
        "{checked:?}"
    );
}
