//! The `#[squillion(...)]` attributes that tell the derive how each collection is laid out: per
//! field, the relationship layout the Plan chose (embed, parent_refs, child_ref, two_way, subset,
//! top, bucket, outlier), the summaries it keeps and the copies it fans out to; per struct, the
//! schema version, the entity pattern and the Plan's indexes. The derive then writes the
//! repository operations that keep that layout correct (`docs/derive.md`).

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::{Layout, SummaryFn};
use crate::plan::{Collection, CollectionRole, ComputedFn, Decision, Plan, Shape};

use super::names::{field_ident, type_ident};

/// The attributes of one collection struct.
#[derive(Default)]
pub(super) struct CollectionAttrs {
    /// Container attributes (inside `#[squillion(...)]`, after `collection = ...`).
    pub container: Vec<TokenStream>,
    /// Field attributes by top-level BSON name.
    pub fields: BTreeMap<String, Vec<TokenStream>>,
    /// Top-level fields that overflow by design (outlier): stored as `Vec`, not `BoundedVec`.
    pub unbounded: Vec<String>,
}

impl CollectionAttrs {
    fn field(&mut self, path: &str, attr: TokenStream) {
        self.fields.entry(path.to_owned()).or_default().push(attr);
    }
}

fn lit(n: u64) -> Literal {
    Literal::u64_unsuffixed(n)
}

/// The Rust type of the documents of the collection holding `entity`, if it has one.
fn document_type(plan: &Plan, entity: &str) -> Option<proc_macro2::Ident> {
    plan.collections
        .iter()
        .find(|c| c.entity == entity && c.role == CollectionRole::Entity)
        .map(|c| type_ident(&super::collection_type_name(c)))
}

/// The Rust identifier of the top-level field stored as `bson`.
fn ident_of(c: &Collection, bson: &str) -> Option<proc_macro2::Ident> {
    c.field(bson).map(|f| field_ident(&f.code_name))
}

fn top_level(path: &str) -> bool {
    !path.contains('.')
}

/// Everything the derive needs to know about `c`.
pub(super) fn collection_attrs(plan: &Plan, c: &Collection) -> CollectionAttrs {
    let mut out = CollectionAttrs::default();
    if let Some(v) = c.schema_version {
        let v = lit(u64::from(v));
        out.container.push(quote!(schema_version = #v));
    }
    patterns(c, &mut out);
    for d in &plan.relationships {
        relationship(plan, c, d, &mut out);
        copies(plan, c, d, &mut out);
    }
    for i in &c.indexes {
        out.container.push(index(i));
    }
    out
}

fn patterns(c: &Collection, out: &mut CollectionAttrs) {
    for p in &c.patterns {
        match p.name.as_str() {
            "queue" => {
                // The claim index is {in_progress: 1, <priority>: -1, _id: 1}.
                let priority = c
                    .indexes
                    .iter()
                    .find(|i| i.keys.len() >= 2 && i.keys[0].path == "in_progress")
                    .and_then(|i| ident_of(c, &i.keys[1].path));
                match priority {
                    Some(p) => out.container.push(quote!(queue(priority = #p))),
                    None => out.container.push(quote!(queue)),
                }
            }
            "tree" => out.container.push(quote!(tree)),
            "document_versioning" if c.field("valid_from").is_some() => {
                out.container.push(quote!(versioned))
            }
            _ => {}
        }
    }
}

/// The layout attributes a relationship puts on fields of `c`.
fn relationship(plan: &Plan, c: &Collection, d: &Decision, out: &mut CollectionAttrs) {
    let here: Vec<_> = d
        .placement
        .iter()
        .filter(|p| p.collection == c.name && top_level(&p.path))
        .collect();
    if let CollectionRole::Link { relation } = &c.role {
        if *relation == d.id {
            let ends: Vec<TokenStream> = here
                .iter()
                .filter(|p| p.shape == Shape::Id)
                .filter_map(|p| {
                    let field = ident_of(c, &p.path)?;
                    let ty = document_type(plan, &p.target)?;
                    Some(quote!(#field = #ty))
                })
                .collect();
            if ends.len() == 2 {
                out.container.push(quote!(link(#(#ends),*)));
            }
            return;
        }
    }
    for (i, p) in here.iter().enumerate() {
        let max = p.max_items.map(lit);
        let attr = match (d.strategy, p.shape) {
            (Layout::Embed, Shape::ArrayOfSubdocuments) => match &d.outlier {
                Some(o) if o.collection == c.name && o.path == p.path => {
                    out.unbounded.push(p.path.clone());
                    let (Some(flag), m) = (ident_of(c, &o.flag_path), lit(o.embedded_max)) else {
                        continue;
                    };
                    let overflow = &o.overflow_collection;
                    quote!(outlier(max = #m, flag = #flag, overflow = #overflow))
                }
                _ => match max {
                    Some(m) => quote!(embed(max = #m)),
                    None => continue,
                },
            },
            (Layout::Embed, Shape::Subdocument) => quote!(embed),
            (Layout::ParentRefs | Layout::OneWay, Shape::ArrayOfIds) => {
                let (Some(to), Some(m)) = (document_type(plan, &p.target), max) else {
                    continue;
                };
                quote!(parent_refs(to = #to, max = #m))
            }
            (Layout::ChildRef, Shape::Id) => {
                let Some(to) = document_type(plan, &p.target) else {
                    continue;
                };
                quote!(child_ref(to = #to))
            }
            // Both sides hold references: the derive links them from the side with the array.
            (Layout::TwoWay, Shape::ArrayOfIds) if i == 0 => {
                let Some(other) = d
                    .placement
                    .iter()
                    .find(|o| o.collection != c.name || o.path != p.path)
                else {
                    continue;
                };
                let (Some(to), Some(m)) = (document_type(plan, &p.target), max) else {
                    continue;
                };
                let inverse = &other.path;
                match (other.shape, other.max_items) {
                    (Shape::ArrayOfIds, Some(im)) => {
                        let im = lit(im);
                        quote!(two_way(to = #to, max = #m, inverse = #inverse, inverse_max = #im))
                    }
                    (Shape::Id, _) => quote!(two_way(to = #to, max = #m, inverse = #inverse)),
                    _ => continue,
                }
            }
            _ => continue,
        };
        out.field(&p.path, attr);
    }
    if let Some(s) = &d.subset {
        if s.collection == c.name && top_level(&s.path) {
            if let Some(to) = document_type(plan, &d.child) {
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
                out.field(
                    &s.path,
                    quote!(subset(to = #to, n = #n, sort = #sort #desc #keep)),
                );
            }
        }
    }
    let bucket = d.bucket.as_ref().filter(|b| b.collection == c.name);
    if let Some(b) = bucket {
        let size = lit(b.size);
        let mut args = vec![quote!(size = #size)];
        if let Some(key) = ident_of(c, &b.parent_path) {
            args.push(quote!(key = #key));
        }
        if let Some(count) = ident_of(c, &b.count_path) {
            args.push(quote!(count = #count));
        }
        if let Some(t) = &b.time_range {
            if let (Some(start), Some(end)) = (ident_of(c, &t.start_path), ident_of(c, &t.end_path))
            {
                args.push(quote!(start = #start, end = #end));
                let field = &t.field;
                out.field(&t.start_path, quote!(computed(min = #field)));
                out.field(&t.end_path, quote!(computed(max = #field)));
            }
        }
        out.field(&b.items_path, quote!(bucket(#(#args),*)));
    }
    // The array the relationship keeps in `c`, which summaries summarise.
    let of = bucket.map(|b| b.items_path.clone()).or_else(|| {
        here.iter()
            .find(|p| p.shape == Shape::ArrayOfSubdocuments)
            .map(|p| p.path.clone())
    });
    for x in d.computed.iter().filter(|x| x.collection == c.name) {
        if !top_level(&x.path) || bucket.is_some_and(|b| b.count_path == x.path) {
            continue;
        }
        let attr = match &x.function {
            ComputedFn::TopN {
                n,
                sort_by,
                descending,
                ..
            } => {
                let n = lit(*n);
                let desc = if *descending {
                    quote!(, desc)
                } else {
                    quote!()
                };
                quote!(top(n = #n, sort = #sort_by #desc))
            }
            ComputedFn::Summary { summary } => {
                let Some(of) = of.as_deref().and_then(|o| ident_of(c, o)) else {
                    continue;
                };
                let field = x.field.as_deref().unwrap_or_default();
                match summary {
                    SummaryFn::Count => quote!(computed(count, of = #of)),
                    SummaryFn::Total => quote!(computed(sum = #field, of = #of)),
                    SummaryFn::Max => quote!(computed(max = #field, of = #of)),
                    SummaryFn::Min => quote!(computed(min = #field, of = #of)),
                }
            }
        };
        out.field(&x.path, attr);
    }
}

/// `fan_out` on the source fields of `c`'s entity whose copies live elsewhere.
fn copies(plan: &Plan, c: &Collection, d: &Decision, out: &mut CollectionAttrs) {
    if c.role != CollectionRole::Entity {
        return;
    }
    for x in &d.denormalized {
        let Some((entity, field)) = x.source.split_once('.') else {
            continue;
        };
        if entity != c.entity || c.field(field).is_none() {
            continue;
        }
        let Some(to) = plan
            .collection(&x.fan_out.collection)
            .map(|t| type_ident(&super::collection_type_name(t)))
        else {
            continue;
        };
        let f = &x.fan_out;
        let attr = match &f.array_filter {
            // `parts.$[elem].name` with filter `elem.id`: array `parts`, by `id`, copy `name`.
            Some(filter) => {
                let Some((array, rest)) = f.set_path.split_once(".$[") else {
                    continue;
                };
                let Some((_, copy)) = rest.split_once("].") else {
                    continue;
                };
                let Some((_, by)) = filter.split_once('.') else {
                    continue;
                };
                quote!(fan_out(to = #to, by = #by, copy = #copy, array = #array))
            }
            None => {
                let (by, copy) = (&f.match_path, &f.set_path);
                quote!(fan_out(to = #to, by = #by, copy = #copy))
            }
        };
        out.field(field, attr);
    }
}

/// A Plan index as the derive's `index(...)` container attribute.
fn index(i: &crate::plan::Index) -> TokenStream {
    let keys = i.keys.iter().map(|k| {
        let path = &k.path;
        let dir = Literal::i32_unsuffixed(k.direction);
        quote!(#path = #dir)
    });
    let name = &i.name;
    let mut args = vec![quote!(keys(#(#keys),*)), quote!(name = #name)];
    if i.unique {
        args.push(quote!(unique));
    }
    if i.sparse {
        args.push(quote!(sparse));
    }
    if let Some(t) = i.expire_after_seconds {
        let t = lit(t);
        args.push(quote!(ttl = #t));
    }
    if let Some(p) = &i.partial_filter {
        let json = p.to_string();
        args.push(quote!(partial = #json));
    }
    if let Some(col) = &i.collation {
        let locale = &col.locale;
        let strength = Literal::u8_unsuffixed(col.strength);
        args.push(quote!(collation(locale = #locale, strength = #strength)));
    }
    quote!(index(#(#args),*))
}
