//! The Rust enum of an enumeration field (`status: one_of("new", "paid")`): one unit variant per
//! value, renamed by serde to the exact stored text, with `ALL`, `as_str` and `Display`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::names::{self, enum_variant};
use super::{docs, serde_path, Generator};
use std::collections::BTreeMap;

use crate::plan::{Collection, FieldKind, PlanField};

impl Generator<'_> {
    /// The enum of enumeration field `f` of struct `owner`, generated once per name and values.
    /// A copy of an entity's field (an extended reference's `Customer.tier`, a subset's kept
    /// `status`) has the enum of the field it copies, `CustomerTier`, not one of its own: the
    /// application compares the copy with the original.
    pub(super) fn enum_type(&mut self, f: &PlanField, owner: &str) -> Ident {
        let copied = f
            .source
            .as_deref()
            .and_then(|s| s.split_once('.'))
            .filter(|_| f.kind == FieldKind::Denormalized);
        let base = match (copied, &self.enum_home) {
            (Some((entity, field)), _) => {
                format!("{}{}", names::type_ident(entity), names::pascal(field))
            }
            (None, Some(entity)) => format!("{entity}{}", names::pascal(&f.code_name)),
            (None, None) => format!("{owner}{}", names::pascal(&f.code_name)),
        };
        let signature = format!("enum{:?}", f.enum_values);
        let (ident, new) = self.types.embedded(&base, &signature, false);
        if new {
            self.items.push(definition(&ident, f));
        }
        ident
    }

    /// The enum of every enumeration field a query of collection `c` compares, by its stored
    /// path (fields inside subdocuments and arrays of them too): the query methods take these
    /// types, so a value the enum does not know cannot be asked for.
    pub(super) fn query_enums(&mut self, c: &Collection, owner: &str) -> BTreeMap<String, Ident> {
        let mut out = BTreeMap::new();
        let paths: Vec<String> = super::queries::with_methods(self.plan, &c.name)
            .flat_map(|q| q.conditions.iter().map(|cond| cond.path.clone()))
            .collect();
        for path in paths {
            // Walk to the field, each level's owner being the type of the one before it.
            let mut fields = &c.fields;
            let mut level_owner = owner.to_owned();
            let mut found = None;
            let mut home = None;
            for (i, segment) in path.split('.').enumerate() {
                let Some(f) = fields.iter().find(|f| f.name == segment) else {
                    found = None;
                    break;
                };
                if i > 0 {
                    if let Some(parent) = found {
                        level_owner = self.object_type(parent, &level_owner).to_string();
                        home = home_of_copies(parent);
                    }
                }
                found = Some(f);
                fields = &f.children;
            }
            if let Some(f) = found.filter(|f| !f.enum_values.is_empty()) {
                let outer = std::mem::replace(&mut self.enum_home, home);
                let ident = self.enum_type(f, &level_owner);
                self.enum_home = outer;
                out.insert(path, ident);
            }
        }
        out
    }
}

/// The entity whose documents `f` holds (an embedded entity) or keeps copies of (a subset, a
/// top-N list), as its Rust type's name: the enums of their fields are that entity's.
pub(super) fn home_of_copies(f: &PlanField) -> Option<String> {
    let entity = match f.kind {
        FieldKind::Denormalized | FieldKind::Computed => {
            f.source.as_deref().filter(|s| !s.contains('.'))
        }
        FieldKind::Embedded if f.relation.is_some() => f.type_name.as_deref(),
        _ => None,
    };
    entity.map(|e| names::type_ident(e).to_string())
}

fn definition(ident: &Ident, f: &PlanField) -> TokenStream {
    let variants: Vec<Ident> = f
        .enum_values
        .iter()
        .map(|v| Ident::new(&enum_variant(v), proc_macro2::Span::call_site()))
        .collect();
    let values = &f.enum_values;
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    let doc = docs(&[format!(
        "The values of `{}`: {} (stored as these strings).",
        f.path,
        quoted.join(", ")
    )]);
    let value_docs: Vec<TokenStream> = quoted
        .iter()
        .map(|q| docs(&[format!("Stored as {q}.")]))
        .collect();
    let count = proc_macro2::Literal::usize_unsuffixed(values.len());
    let serde = serde_path();
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, #serde::Serialize, #serde::Deserialize)]
        #[serde(crate = "::squillion::__private::serde")]
        #[allow(clippy::enum_variant_names, clippy::upper_case_acronyms)]
        pub enum #ident {
            #(
                #value_docs
                #[serde(rename = #values)]
                #variants,
            )*
        }

        impl #ident {
            /// Every value, in the order the schema lists them.
            pub const ALL: [Self; #count] = [#(Self::#variants),*];

            /// The string the value is stored as.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
        }

        impl ::std::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::convert::From<#ident> for ::squillion::bson::Bson {
            fn from(value: #ident) -> Self {
                ::squillion::bson::Bson::String(value.as_str().to_owned())
            }
        }
    }
}
