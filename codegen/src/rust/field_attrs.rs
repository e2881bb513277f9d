//! Field attributes stating a field's own facts, for the derive's update methods: counters
//! (`counter`, with the range) and bounded maps (`map(max = N)`).

use quote::quote;

use super::layout::{number_lit, CollectionAttrs};
use crate::plan::Collection;

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
