//! Field attributes stating a field's own facts, for the derive's update methods: counters
//! (`counter`, with the range), bounded maps (`map(max = N)`) and `@attributes` maps
//! (`attributes(value = V)`).

use proc_macro2::TokenStream;
use quote::quote;

use super::layout::{number_lit, CollectionAttrs};
use super::Generator;
use crate::plan::{Collection, PlanField};

/// Counters: the derive writes their guarded `dec_<f>` beside `set_<f>` and `inc_<f>`, which
/// never goes below the range's smallest value (0 without a range).
pub(super) fn counters(c: &Collection, out: &mut CollectionAttrs) {
    for f in c
        .fields
        .iter()
        .filter(|f| f.flags.counter && f.variant.is_none())
    {
        match &f.range {
            Some(range) => {
                let (min, max) = (number_lit(&range.min), number_lit(&range.max));
                out.field(&f.name, quote!(counter, minimum = #min, maximum = #max));
            }
            None => out.field(&f.name, quote!(counter)),
        }
    }
}

/// Immutable fields (`@immutable`, every field of a `@static` entity): set at insert, never
/// after, so the derive writes no `set_<f>` or `inc_<f>` for them (their copies elsewhere are
/// never updated either).
pub(super) fn immutables(c: &Collection, out: &mut CollectionAttrs) {
    for f in c
        .fields
        .iter()
        .filter(|f| f.flags.immutable && f.name != "_id" && f.variant.is_none())
    {
        out.field(&f.name, quote!(immutable));
    }
}

/// Bounded maps (`map<T; N>`, stored as a document): the derive's `set_<f>_entry` adds a new key
/// only while the map holds fewer than N entries, and `set_<f>` refuses a map of more. (Every
/// map gets its entry methods; an unbounded one needs no attribute. An `@attributes` map is an
/// array of `{k, v}` maintained by its pattern.)
pub(super) fn bounded_maps(c: &Collection, out: &mut CollectionAttrs) {
    for f in c
        .fields
        .iter()
        .filter(|f| f.is_map() && f.variant.is_none())
    {
        if let Some(n) = f.max_entries {
            let n = proc_macro2::Literal::u64_unsuffixed(n);
            out.field(&f.name, quote!(map(max = #n)));
        }
    }
}

impl Generator<'_> {
    /// `attributes(value = V)` for an `@attributes` map `f` of struct `owner`: the derive writes
    /// its `set_<f>_entry` and `remove_<f>_entry`, taking values of `V` (the elements' `v`).
    /// Registers the element's type first, as the field itself would.
    pub(super) fn attributes_attr(&mut self, f: &PlanField, owner: &str) -> Option<TokenStream> {
        let v = f.attributes_value()?;
        let elem = self.object_type(f, owner).to_string();
        let ty = self.rust_type(v, &elem);
        Some(quote!(attributes(value = #ty)))
    }
}

/// The doc of an `@attributes` map `f` without one of its own: how it is stored, its bound, and
/// the repository's entry methods.
pub(super) fn attributes_doc(f: &PlanField) -> String {
    let bound = match f.max_items {
        Some(n) => format!(", at most {n} entries"),
        None => String::new(),
    };
    format!(
        "`{}`: an `@attributes` map stored as `[{{k, v}}]` (attribute pattern){bound}; its \
         document's repository writes one entry at a time (`set_{}_entry`, `remove_{}_entry`).",
        f.name, f.code_name, f.code_name
    )
}
