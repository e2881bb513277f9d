//! What a parent keeps of its children, as attributes: the owner's lists and summaries a bucket's
//! appends keep (`bucket(owner = P, latest(..), top(..), summary(..))`), the lists of the layouts
//! whose own writes push the copies, the subsets of children stored as documents (`subset(..)`),
//! the array a collection's summaries summarise, and `kept_by` on children whose writes keep
//! their parents in step.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::SummaryFn;
use crate::plan::{Collection, ComputedFn, Decision, FieldKind, Shape};

use super::layout::{lit, top_level, CollectionAttrs, PlanIndex};

/// `owner = P, latest(..), top(..), summary(..)` on a bucket's children: the owner's lists of
/// copies (`latest N`, `top N`) and summaries of all its children, which every append keeps.
pub(super) fn bucket_kept(
    lookup: &PlanIndex<'_>,
    d: &Decision,
    key: Option<&crate::plan::PlanField>,
) -> Vec<TokenStream> {
    let Some(owner) = lookup.document_type(&d.parent) else {
        return Vec::new();
    };
    let mut lists = kept_lists(d);
    lists.extend(owner_summaries(d));
    if lists.is_empty() {
        return Vec::new();
    }
    let mut out = vec![quote!(owner = #owner)];
    // An extended reference holds the owner's `_id` inside (`{id, name}`).
    let id = key
        .filter(|k| !k.children.is_empty())
        .and_then(|k| k.children.iter().find(|f| f.kind == FieldKind::Ref));
    if let Some(id) = id {
        let name = &id.name;
        out.push(quote!(owner_id = #name));
    }
    out.extend(lists);
    out
}

/// The parent's summaries of all its bucketed children (`summary(path = "comments_count",
/// count)`), stored on the parent's collection: the appends raise them.
fn owner_summaries(d: &Decision) -> Vec<TokenStream> {
    let Some(b) = &d.bucket else {
        return Vec::new();
    };
    d.computed
        .iter()
        .filter(|x| x.collection != b.collection && top_level(&x.path))
        .filter_map(|x| {
            let ComputedFn::Summary { summary } = &x.function else {
                return None;
            };
            let path = &x.path;
            let field = x.field.as_deref().unwrap_or_default();
            let f = match summary {
                SummaryFn::Count => quote!(count),
                SummaryFn::Total => quote!(sum = #field),
                SummaryFn::Max => quote!(max = #field),
                SummaryFn::Min => quote!(min = #field),
                SummaryFn::Avg => return None,
            };
            Some(quote!(summary(path = #path, #f)))
        })
        .collect()
}

/// The parent's lists of copies of its children (`latest(...)`, `top(...)`), for the layouts
/// whose own writes push the copies (a bucket's appends, an outlier's pushes).
pub(super) fn kept_lists(d: &Decision) -> Vec<TokenStream> {
    let list = |kind: &str, path: &str, n: u64, sort: &str, desc: bool, keep: &[String]| {
        let kind = quote::format_ident!("{kind}");
        let n = lit(n);
        let desc = if desc { quote!(, desc) } else { quote!() };
        quote!(#kind(path = #path, n = #n, sort = #sort #desc, keep(#(#keep),*)))
    };
    let mut lists: Vec<TokenStream> = d
        .subset
        .iter()
        .map(|s| list("latest", &s.path, s.n, &s.sort_by, s.descending, &s.keep))
        .collect();
    for x in &d.computed {
        if let ComputedFn::TopN {
            n,
            sort_by,
            descending,
            keep,
            ..
        } = &x.function
        {
            lists.push(list("top", &x.path, *n, sort_by, *descending, keep));
        }
    }
    lists
}

/// `subset(to = T, n, sort, desc, keep(..), key)` on the parent's list of the latest N children
/// stored as documents of their own collection: the parent's `push_<f>` inserts one there (and,
/// with `key`, the children's writes refill the list). A subset of bucketed or embedded children
/// (`Decision::copies_kept_by_layout`) is kept by the layout's writes instead (the bucket's
/// appends, the array's pushes: [`kept_lists`]) and its field is `maintained`, even when the
/// children's entity has a collection of its own: a `push_<f>` would insert the child there,
/// outside the relationship, and copy an `_id` the Plan's copies do not hold.
pub(super) fn subset(
    lookup: &PlanIndex<'_>,
    c: &Collection,
    d: &Decision,
    out: &mut CollectionAttrs,
) {
    let Some(s) = d.subset.as_ref().filter(|_| !d.copies_kept_by_layout()) else {
        return;
    };
    if s.collection != c.name || !top_level(&s.path) {
        return;
    }
    let Some(to) = lookup.document_type(&d.child) else {
        return;
    };
    let n = lit(s.n);
    let sort = &s.sort_by;
    let desc = if s.descending {
        quote!(, desc)
    } else {
        quote!()
    };
    let keep = &s.keep;
    let keep = if keep.is_empty() {
        quote!()
    } else {
        quote!(, keep(#(#keep),*))
    };
    let key = match &s.children {
        Some(ch) => {
            let k = &ch.parent_key;
            quote!(, key = #k)
        }
        None => quote!(),
    };
    out.field(
        &s.path,
        quote!(subset(to = #to, n = #n, sort = #sort #desc #keep #key)),
    );
}

/// The array in `c` the summaries `d` keeps in `c` summarise: a bucket's children, an embedded
/// array, or a subset (`latest N`) or top-N list refilled from the children (whose summaries are
/// of all the children); `None` when they summarise the children in their own collection.
pub(super) fn summarised_array(d: &Decision, c: &Collection) -> Option<String> {
    let bucket = d.bucket.as_ref().filter(|b| b.collection == c.name);
    let top_refilled = d.computed.iter().find_map(|x| match &x.function {
        ComputedFn::TopN {
            children: Some(_), ..
        } if x.collection == c.name => Some(x.path.clone()),
        _ => None,
    });
    bucket
        .map(|b| b.items_path.clone())
        .or_else(|| {
            d.placement
                .iter()
                .filter(|p| p.collection == c.name && top_level(&p.path))
                .find(|p| p.shape == Shape::ArrayOfSubdocuments)
                .map(|p| p.path.clone())
        })
        .or_else(|| {
            d.subset
                .as_ref()
                .filter(|s| s.collection == c.name)
                .map(|s| s.path.clone())
        })
        .or(top_refilled)
}

/// `kept_by(to = Parent, key = "path")` on the children's collection `c` when the parent keeps
/// something the children's writes must keep in step: a subset or top-N list refilled from them,
/// or summaries of all of them.
pub(super) fn kept_by(
    lookup: &PlanIndex<'_>,
    c: &Collection,
    d: &Decision,
    out: &mut CollectionAttrs,
) {
    let Some(ch) = d.children_in(lookup.by_name()) else {
        return;
    };
    if ch.collection != c.name {
        return;
    }
    let lists = d
        .subset
        .iter()
        .map(|s| s.collection.as_str())
        .chain(d.computed.iter().filter_map(|x| match &x.function {
            ComputedFn::TopN { .. } => Some(x.collection.as_str()),
            _ => None,
        }));
    let summaries = d.computed.iter().filter_map(|x| {
        let stored =
            matches!(&x.function, ComputedFn::Summary { summary } if *summary != SummaryFn::Avg);
        let holder = lookup
            .plan()
            .collections
            .iter()
            .find(|h| h.name == x.collection)?;
        (stored && top_level(&x.path) && summarised_array(d, holder).is_none())
            .then_some(x.collection.as_str())
    });
    let mut holders: Vec<&str> = lists.chain(summaries).collect();
    holders.sort_unstable();
    holders.dedup();
    let key = &ch.parent_key;
    for h in holders {
        if let Some(to) = lookup.collection_type(h) {
            out.container.push(quote!(kept_by(to = #to, key = #key)));
        }
    }
}
