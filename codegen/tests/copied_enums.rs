//! A copy of an enumeration field has the enum of the field it copies. Over relation shapes,
//! copying facts and forced layouts: the parent's `kind` shown on the child (an extended
//! reference), the child's `state` shown on the parent, kept in a subset (`latest ... keep`) or a
//! top-N list, every generated module defines one enum per enumeration field of the schema, and
//! every field holding a copy has that enum as its type (a subset's `status` used to be a second
//! enum, `AppointmentAppointmentsStatus`, which the application could not compare with
//! `AppointmentStatus`).

use std::collections::{BTreeMap, BTreeSet};

use squillion_codegen::rust::{generate, RustSettings};
use squillion_grammar::SourceFile;

/// Every enum of a generated module, by name, with its variants.
fn enums(file: &syn::File) -> BTreeMap<String, BTreeSet<String>> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Enum(e) => Some((
                e.ident.to_string(),
                e.variants.iter().map(|v| v.ident.to_string()).collect(),
            )),
            _ => None,
        })
        .collect()
}

/// The type (as written, spaces removed) of every struct field named `name`, by struct.
fn field_types(file: &syn::File, name: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for item in &file.items {
        if let syn::Item::Struct(s) = item {
            for f in &s.fields {
                if f.ident.as_ref().is_some_and(|i| i == name) {
                    let ty = f.ty.clone();
                    let text = quote::quote!(#ty).to_string().replace(' ', "");
                    out.push((s.ident.to_string(), text));
                }
            }
        }
    }
    out
}

#[test]
fn a_copied_enumeration_has_the_enum_of_its_source() {
    let parent_ends = ["few(10)", "many(500)", "many(100000)", "squillions"];
    let child_ends = ["one", "few(5)", "many(300)"];
    let facts = [
        "show Parent.name, Parent.kind on Child ratio 100:1",
        "show Child.state on Parent ratio 100:1",
        "latest 3 by at desc keep at, state",
        "top 3 by at asc keep state",
        "standalone Child",
    ];
    let forces = [
        "",
        "force embed",
        "force child_ref",
        "force parent_refs",
        "force two_way",
        "force one_way",
        "force link_collection",
        "force bucket",
    ];
    let (mut planned, mut copies) = (0, 0);
    for parent_end in parent_ends {
        for child_end in child_ends {
            for mask in 0u32..(1 << facts.len()) {
                for force in forces {
                    let body: Vec<&str> = facts
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << i) != 0)
                        .map(|(_, f)| *f)
                        .chain((!force.is_empty()).then_some(force))
                        .collect();
                    let text = format!(
                        "entity Parent {{\n  name: string\n  kind: one_of(\"pa\", \"pb\")\n}}\n\
                         entity Child {{\n  at: date\n  state: one_of(\"ca\", \"cb\", \"cc\")\n}}\n\
                         relation Parent.children: {parent_end} <-> Child.parents: {child_end} {{\n  {}\n}}\n",
                        body.join("\n  ")
                    );
                    let source = SourceFile::new("copies.sqn", &text);
                    let Ok(checked) = squillion_codegen::load(&source) else {
                        continue;
                    };
                    planned += 1;
                    let plan = squillion_codegen::engine::plan(&checked.model, &source);
                    let code = generate(&plan, &RustSettings::default());
                    let file =
                        syn::parse_file(&code).unwrap_or_else(|e| panic!("{e}\n{text}\n{code}"));
                    let found = enums(&file);
                    for (field, owner, variants) in [
                        ("kind", "ParentKind", ["Pa", "Pb"].as_slice()),
                        ("state", "ChildState", ["Ca", "Cb", "Cc"].as_slice()),
                    ] {
                        let want: BTreeSet<String> =
                            variants.iter().map(|v| v.to_string()).collect();
                        let same: Vec<&String> = found
                            .iter()
                            .filter(|(_, v)| **v == want)
                            .map(|(name, _)| name)
                            .collect();
                        assert_eq!(same, [owner], "one enum for {field}:\n{text}\n{code}");
                        let holders = field_types(&file, field);
                        copies += holders.len().saturating_sub(1);
                        for (holder, ty) in holders {
                            assert!(
                                ty.contains(owner),
                                "{holder}.{field} is `{ty}`, not `{owner}`:\n{text}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(planned >= 300, "only {planned} schemas planned");
    assert!(copies >= 200, "only {copies} copies of an enumeration met");
}
