//! The `#[squillion(...)]` attributes that tell the derive how each collection is laid out: per
//! field, the relationship layout the Plan chose (embed, parent_refs, child_ref, two_way, subset,
//! top, bucket, outlier), the summaries it keeps and the copies it fans out to; per struct, the
//! schema version, the entity pattern and the Plan's indexes. The derive then writes the
//! repository operations that keep that layout correct (`docs/derive.md`).

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::{Layout, SummaryFn};
use crate::plan::{
    Collection, CollectionRole, ComputedFn, Decision, FieldKind, Plan, RelationshipUse, Shape,
};

use super::kept::{bucket_kept, kept_by, kept_lists, subset, summarised_array};
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
    /// Top-level arrays whose elements have an identity, with the element field holding it: the
    /// repository changes their numbers one element at a time ([`super::elements`]).
    pub keyed: BTreeMap<String, String>,
}

impl CollectionAttrs {
    pub(super) fn field(&mut self, path: &str, attr: TokenStream) {
        self.fields.entry(path.to_owned()).or_default().push(attr);
    }
}

pub(super) fn lit(n: u64) -> Literal {
    Literal::u64_unsuffixed(n)
}

/// A number of the Plan as a Rust literal, exact for integers (`-5`, `2.5`).
pub(super) fn number_lit(n: &serde_json::Number) -> TokenStream {
    let lit = match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => Literal::i64_unsuffixed(i),
        (None, Some(v)) => Literal::f64_unsuffixed(v),
        (None, None) => Literal::u64_unsuffixed(n.as_u64().unwrap_or(0)),
    };
    quote!(#lit)
}

/// The Plan looked up by collection and entity, built once per generated file: which decisions
/// touch each collection, and the Rust type of each collection and of each entity's documents.
pub(super) struct PlanIndex<'a> {
    plan: &'a Plan,
    /// Decisions (by position) placing, subsetting, bucketing or computing something in a
    /// collection.
    touching: BTreeMap<&'a str, Vec<usize>>,
    /// Decisions (by position) copying a field of an entity elsewhere.
    copying: BTreeMap<&'a str, Vec<usize>>,
    /// The Rust type of the documents of the collection holding each entity.
    documents: BTreeMap<&'a str, proc_macro2::Ident>,
    /// The Rust type of each collection's documents.
    collections: BTreeMap<&'a str, proc_macro2::Ident>,
    /// The collections by name.
    by_name: crate::plan::CollectionsByName<'a>,
    /// The collection holding each entity's documents.
    homes: BTreeMap<&'a str, &'a Collection>,
    /// The copies kept in each collection (by the collection their fan-out updates), in the
    /// Plan's order.
    copies_in: BTreeMap<&'a str, Vec<&'a crate::plan::Denormalized>>,
}

impl<'a> PlanIndex<'a> {
    pub(super) fn new(plan: &'a Plan, types: &super::names::TypeNames) -> Self {
        let mut touching: BTreeMap<&'a str, Vec<usize>> = BTreeMap::new();
        let mut copying: BTreeMap<&'a str, Vec<usize>> = BTreeMap::new();
        for (i, d) in plan.relationships.iter().enumerate() {
            let names = d
                .placement
                .iter()
                .map(|p| p.collection.as_str())
                .chain(d.subset.iter().map(|s| s.collection.as_str()))
                .chain(d.bucket.iter().map(|b| b.collection.as_str()))
                .chain(d.computed.iter().map(|x| x.collection.as_str()));
            for name in names {
                let list = touching.entry(name).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
            for x in &d.denormalized {
                if let Some((entity, _)) = x.source.split_once('.') {
                    let list = copying.entry(entity).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        let mut documents = BTreeMap::new();
        let mut collections = BTreeMap::new();
        let mut homes = BTreeMap::new();
        let mut copies_in: BTreeMap<&'a str, Vec<_>> = BTreeMap::new();
        for x in plan.relationships.iter().flat_map(|d| &d.denormalized) {
            copies_in
                .entry(x.fan_out.collection.as_str())
                .or_default()
                .push(x);
        }
        for c in &plan.collections {
            let ty = || {
                types
                    .collection(&c.name)
                    .unwrap_or_else(|| type_ident(&super::collection_type_name(c)))
            };
            if c.role == CollectionRole::Entity {
                documents.entry(c.entity.as_str()).or_insert_with(ty);
                homes.entry(c.entity.as_str()).or_insert(c);
            }
            collections.entry(c.name.as_str()).or_insert_with(ty);
        }
        PlanIndex {
            plan,
            touching,
            copying,
            documents,
            collections,
            by_name: crate::plan::CollectionsByName::new(&plan.collections),
            homes,
            copies_in,
        }
    }

    /// The collection holding `entity`'s documents, if it has one of its own.
    pub(super) fn home(&self, entity: &str) -> Option<&'a Collection> {
        self.homes.get(entity).copied()
    }

    /// The copies kept in collection `name`, in the Plan's order.
    pub(super) fn copies_in(&self, name: &str) -> &[&'a crate::plan::Denormalized] {
        self.copies_in.get(name).map_or(&[], Vec::as_slice)
    }

    /// The collections by name.
    pub(super) fn by_name(&self) -> &crate::plan::CollectionsByName<'a> {
        &self.by_name
    }

    /// The Plan indexed.
    pub(super) fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// The Rust type of the documents of the collection holding `entity`, if it has one.
    pub(super) fn document_type(&self, entity: &str) -> Option<proc_macro2::Ident> {
        self.documents.get(entity).cloned()
    }

    /// The Rust type of the documents of collection `name`, if it exists.
    pub(super) fn collection_type(&self, name: &str) -> Option<proc_macro2::Ident> {
        self.collections.get(name).cloned()
    }

    /// The decisions that may put an attribute on `c`, in the Plan's order.
    fn decisions_for(&self, c: &Collection) -> impl Iterator<Item = &'a Decision> + '_ {
        let mut at: Vec<usize> = self
            .touching
            .get(c.name.as_str())
            .into_iter()
            .chain(self.copying.get(c.entity.as_str()))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        let plan = self.plan;
        at.into_iter()
            .filter_map(move |i| plan.relationships.get(i))
    }
}

/// The name inside a `#[squillion(...)]` attribute: `embed` of `embed(max = 10)`.
pub(super) fn attr_name(tokens: &TokenStream) -> Option<String> {
    match tokens.clone().into_iter().next()? {
        proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
        _ => None,
    }
}

/// Whether an attribute (`parent_refs(to = T, max = 3, find_by)`) holds the bare option `flag`
/// among its arguments.
pub(super) fn has_flag(tokens: &TokenStream, flag: &str) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Group(g) => g
            .stream()
            .into_iter()
            .any(|x| matches!(&x, proc_macro2::TokenTree::Ident(i) if i == flag)),
        _ => false,
    })
}

/// The Rust identifier of the top-level field stored as `bson`.
fn ident_of(c: &Collection, bson: &str) -> Option<proc_macro2::Ident> {
    c.field(bson).map(|f| field_ident(&f.code_name))
}

pub(super) fn top_level(path: &str) -> bool {
    !path.contains('.')
}

/// `upgrade(from = N, rename(from = "old", to = "new"), wrap(path = "author", id = "id"))`: how
/// the collection's documents of the old version are read while the migration runs.
pub(super) fn upgrade_attr(u: &crate::migration::online::CollectionUpgrade) -> TokenStream {
    let from = lit(u64::from(u.from));
    let renames = u
        .renames
        .iter()
        .map(|(from, to)| quote!(rename(from = #from, to = #to)));
    let wraps = u
        .wraps
        .iter()
        .map(|(path, id)| quote!(wrap(path = #path, id = #id)));
    quote!(upgrade(from = #from #(, #renames)* #(, #wraps)*))
}

/// Everything the derive needs to know about `c`.
pub(super) fn collection_attrs(lookup: &PlanIndex<'_>, c: &Collection) -> CollectionAttrs {
    let mut out = CollectionAttrs::default();
    if let Some(v) = c.schema_version {
        let v = lit(u64::from(v));
        out.container.push(quote!(schema_version = #v));
    }
    patterns(lookup.plan, c, &mut out);
    // Only the decisions touching `c`: both functions ignore every other one.
    for d in lookup.decisions_for(c) {
        relationship(lookup, c, d, &mut out);
        copies(lookup, c, d, &mut out);
    }
    for d in lookup.decisions_for(c) {
        list_copies(lookup, c, d, &mut out);
    }
    out.container.extend(super::copies::copy_of(lookup, c));
    // Arrays of value-type documents with unique fields: the push guards them too.
    for f in &c.fields {
        if f.relation.is_some() || out.fields.contains_key(&f.name) {
            continue;
        }
        let unique = super::elements::unique_in_elements(f);
        if let (false, Some(m)) = (unique.is_empty(), f.max_items) {
            let m = lit(m);
            out.field(&f.name, quote!(embed(max = #m, unique(#(#unique),*))));
        }
    }
    super::field_attrs::counters(c, &mut out);
    super::field_attrs::immutables(c, &mut out);
    super::field_attrs::bounded_maps(c, &mut out);
    // Fields the repository writes itself (summaries, copies, a pattern's fields) get no setter
    // the application could break them with; most already carry the attribute that says so.
    for f in c
        .fields
        .iter()
        .filter(|f| f.variant.is_none() && f.name != "_id")
    {
        let written = matches!(
            f.kind,
            FieldKind::Computed | FieldKind::Pattern | FieldKind::Denormalized
        );
        let plain = out.fields.get(&f.name).is_none_or(|attrs| {
            attrs
                .iter()
                .filter_map(attr_name)
                .all(|n| squillion_derive_impl::names::PLAIN_FIELD_ATTRS.contains(&n.as_str()))
        });
        // Preallocated counters (the histogram pattern): the derive's `inc_<f>` adds to a slot.
        let counters = f.is_counters();
        // An `@attributes` map gets `attributes(value = V)` from the emitter instead: the
        // repository writes it one entry at a time.
        if written && plain && f.attributes_value().is_none() {
            out.field(
                &f.name,
                if counters {
                    quote!(counters)
                } else {
                    quote!(maintained)
                },
            );
        }
    }
    for i in &c.indexes {
        out.container.push(index(i));
    }
    out
}

fn patterns(plan: &Plan, c: &Collection, out: &mut CollectionAttrs) {
    if matches!(c.role, CollectionRole::History) {
        // Earlier versions do not change: their repository writes whole documents only.
        out.container.push(quote!(archive));
    }
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
            // The current version here, every earlier one in the history collection.
            "document_versioning" => {
                let history = plan
                    .collections
                    .iter()
                    .find(|h| h.entity == c.entity && matches!(h.role, CollectionRole::History));
                if let Some(h) = history {
                    let to = type_ident(&super::collection_type_name(h));
                    out.container.push(quote!(history(to = #to)));
                }
            }
            _ => {}
        }
    }
}

/// The layout attributes a relationship puts on fields of `c`.
fn relationship(lookup: &PlanIndex<'_>, c: &Collection, d: &Decision, out: &mut CollectionAttrs) {
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
                    let ty = lookup.document_type(&p.target)?;
                    Some(quote!(#field = #ty))
                })
                .collect();
            if ends.len() == 2 {
                out.container.push(quote!(link(#(#ends),*)));
            }
            return;
        }
    }
    for p in &here {
        let max = p.max_items.map(lit);
        let attr = match (d.strategy, p.shape) {
            (Layout::Embed, Shape::ArrayOfSubdocuments) => match &d.outlier {
                Some(o) if o.collection == c.name && o.path == p.path => {
                    out.unbounded.push(p.path.clone());
                    let (Some(flag), m) = (ident_of(c, &o.flag_path), lit(o.embedded_max)) else {
                        continue;
                    };
                    let overflow = &o.overflow_collection;
                    let lists = kept_lists(d);
                    quote!(outlier(max = #m, flag = #flag, overflow = #overflow #(, #lists)*))
                }
                _ => match max {
                    Some(m) => {
                        let unique = c
                            .field(&p.path)
                            .map(super::elements::unique_in_elements)
                            .unwrap_or_default();
                        if let Some(k) = c.field(&p.path).and_then(super::elements::key_of_child) {
                            out.keyed.insert(p.path.clone(), k);
                        }
                        // The parent's top N of the elements: every write of the array keeps it.
                        let lists = kept_lists(d);
                        if unique.is_empty() {
                            quote!(embed(max = #m #(, #lists)*))
                        } else {
                            quote!(embed(max = #m, unique(#(#unique),*) #(, #lists)*))
                        }
                    }
                    None => continue,
                },
            },
            (Layout::Embed, Shape::Subdocument) => quote!(embed),
            // Both sides hold references, ids or extended references (`{id, name}`): the derive
            // links them from each side with an array, copies and all; an entity related to
            // itself holds both arrays, each linked (a plain array's `push_` would write one
            // side behind the other's back).
            (Layout::TwoWay, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs) => {
                match super::two_way::two_way(lookup, c, d, p) {
                    Some(attr) => attr,
                    None => continue,
                }
            }
            // An array of references with copies or relationship fields (`[{id, since}]`):
            // each referenced document appears once (a relationship is a set of pairs), so the
            // push refuses a second element naming it.
            (Layout::ParentRefs | Layout::OneWay, Shape::ArrayOfExtendedRefs) => {
                let Some(m) = max else {
                    continue;
                };
                let key = c.field(&p.path).and_then(super::elements::key_of_reference);
                if let Some(k) = &key {
                    out.keyed.insert(p.path.clone(), k.clone());
                }
                // Where the Plan indexes the elements' reference for the other direction (a
                // one-way many-to-many with fields), the repository lists the holders of one.
                let find_by = key.as_ref().and_then(|k| {
                    let to = lookup.document_type(&p.target)?;
                    super::elements::indexed_for(c, d, &format!("{}.{k}", p.path))
                        .then(|| quote!(, find_by(to = #to, id = #k)))
                });
                let mut unique: Vec<String> = c
                    .field(&p.path)
                    .and_then(|f| f.children.iter().find(|x| x.kind == FieldKind::Ref))
                    .map(|id| vec![id.name.clone()])
                    .unwrap_or_default();
                for u in c
                    .field(&p.path)
                    .map(super::elements::unique_in_elements)
                    .unwrap_or_default()
                {
                    if !unique.contains(&u) {
                        unique.push(u);
                    }
                }
                if unique.is_empty() {
                    quote!(embed(max = #m #find_by))
                } else {
                    quote!(embed(max = #m, unique(#(#unique),*) #find_by))
                }
            }
            (Layout::ParentRefs | Layout::OneWay, Shape::ArrayOfIds) => {
                let (Some(to), Some(m)) = (lookup.document_type(&p.target), max) else {
                    continue;
                };
                // Where the Plan indexes the array for the other direction (one_way, or
                // parent_refs read from the child), the repository lists the holders of an id.
                if super::elements::indexed_for(c, d, &p.path) {
                    quote!(parent_refs(to = #to, max = #m, find_by))
                } else {
                    quote!(parent_refs(to = #to, max = #m))
                }
            }
            (Layout::ChildRef, Shape::Id | Shape::ExtendedRef) => {
                let Some(to) = lookup.document_type(&p.target) else {
                    continue;
                };
                // `find_by_<f>` pages in the order the relation declares (`page N by f desc`),
                // the keys the Plan's index puts after the reference.
                let order: Vec<TokenStream> = c
                    .indexes
                    .iter()
                    .find(|i| i.serves_relationship(&d.id, RelationshipUse::Children))
                    .map(|i| {
                        i.keys
                            .iter()
                            .skip(1)
                            .take_while(|k| k.path != "_id")
                            .map(|k| {
                                let (path, dir) = (&k.path, Literal::i32_unsuffixed(k.direction));
                                quote!(#path = #dir)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let order = if order.is_empty() {
                    quote!()
                } else {
                    quote!(, order(#(#order),*))
                };
                if p.shape == Shape::ExtendedRef {
                    quote!(child_ref(to = #to, id = "id" #order))
                } else {
                    quote!(child_ref(to = #to #order))
                }
            }
            _ => continue,
        };
        out.field(&p.path, attr);
    }
    subset(lookup, c, d, out);
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
        if let Some(by) = &b.order_by {
            args.push(quote!(sort = #by));
        }
        if b.newest_first {
            args.push(quote!(desc));
        }
        let unique = c
            .field(&b.items_path)
            .map(super::elements::unique_in_elements)
            .unwrap_or_default();
        if !unique.is_empty() {
            args.push(quote!(unique(#(#unique),*)));
        }
        args.extend(bucket_kept(lookup, d, c.field(&b.parent_path)));
        out.field(&b.items_path, quote!(bucket(#(#args),*)));
    }
    let of = summarised_array(d, c);
    // The children in their own collection, when the summaries have no array beside them: the
    // children's repository keeps them (`kept_by` on the children's struct).
    let children = of
        .is_none()
        .then(|| d.children_in(&lookup.by_name))
        .flatten()
        .and_then(|ch| Some((lookup.collection_type(&ch.collection)?, ch.parent_key)));
    kept_by(lookup, c, d, out);
    for x in d.computed.iter().filter(|x| x.collection == c.name) {
        if !top_level(&x.path) || bucket.is_some_and(|b| b.count_path == x.path) {
            continue;
        }
        let attr = match &x.function {
            ComputedFn::TopN {
                n,
                sort_by,
                descending,
                keep,
                children,
                ..
            } => {
                let n = lit(*n);
                let desc = if *descending {
                    quote!(, desc)
                } else {
                    quote!()
                };
                match (children, lookup.document_type(&d.child)) {
                    // Bucketed or embedded children (outliers included): the appends and the
                    // array's writes keep the copies.
                    _ if d.copies_kept_by_layout() => quote!(maintained),
                    (Some(ch), Some(to)) => {
                        let key = &ch.parent_key;
                        quote!(top(to = #to, n = #n, sort = #sort_by #desc, keep(#(#keep),*), key = #key))
                    }
                    _ => quote!(top(n = #n, sort = #sort_by #desc)),
                }
            }
            ComputedFn::Summary { summary } => {
                let of = match (of.as_deref().and_then(|o| ident_of(c, o)), &children) {
                    (Some(of), _) => quote!(of = #of),
                    (None, Some((to, key))) => quote!(to = #to, key = #key),
                    // The count of an array of ids in this collection (a user's `following`):
                    // its writes recompute it.
                    (None, None) => match ids_counted(c, d, summary) {
                        Some(of) => quote!(of = #of),
                        None => continue,
                    },
                };
                let field = x.field.as_deref().unwrap_or_default();
                match summary {
                    SummaryFn::Count => quote!(computed(count, #of)),
                    SummaryFn::Total => quote!(computed(sum = #field, #of)),
                    SummaryFn::Max => quote!(computed(max = #field, #of)),
                    SummaryFn::Min => quote!(computed(min = #field, #of)),
                    // Never stored: an accessor divides the total by the count.
                    SummaryFn::Avg => continue,
                }
            }
            ComputedFn::Average { .. } => continue,
        };
        out.field(&x.path, attr);
    }
}

/// `fan_out` on the source fields of `c`'s entity whose copies live elsewhere.
fn copies(lookup: &PlanIndex<'_>, c: &Collection, d: &Decision, out: &mut CollectionAttrs) {
    if c.role != CollectionRole::Entity {
        return;
    }
    // An immutable source's copies never change: no fan-out (and no setter).
    for x in d.denormalized.iter().filter(|x| !x.immutable) {
        let Some((entity, field)) = x.source.split_once('.') else {
            continue;
        };
        if entity != c.entity || c.field(field).is_none() {
            continue;
        }
        let Some(to) = lookup.collection_type(&x.fan_out.collection) else {
            continue;
        };
        // `lines[].product.id` and `lines[].product.name`: the derive puts one filtered
        // positional operator on each array marked `[]`.
        let (by, copy) = x.fan_out.marked_paths();
        let attr = quote!(fan_out(to = #to, by = #by, copy = #copy));
        out.field(field, attr);
    }
}

/// A field of `c`'s entity that fans out to copies elsewhere (`set_<f>`) also fans out to its
/// copies in the subsets and top-N lists refilled from `c` (`items[]._id` finds them). The field
/// that orders a list is left to the list's own writes: a new value may reorder it.
fn list_copies(lookup: &PlanIndex<'_>, c: &Collection, d: &Decision, out: &mut CollectionAttrs) {
    if c.role != CollectionRole::Entity {
        return;
    }
    let mut lists: Vec<(&str, &str, &str, &[String])> = Vec::new();
    if let Some(s) = &d.subset {
        if s.children
            .as_ref()
            .is_some_and(|ch| ch.collection == c.name)
        {
            lists.push((&s.collection, &s.path, &s.sort_by, &s.keep));
        }
    }
    for x in &d.computed {
        if let ComputedFn::TopN {
            sort_by,
            keep,
            children: Some(ch),
            ..
        } = &x.function
        {
            if ch.collection == c.name {
                lists.push((&x.collection, &x.path, sort_by, keep));
            }
        }
    }
    for (holder, path, sort_by, keep) in lists {
        let Some(to) = lookup.collection_type(holder) else {
            continue;
        };
        for k in keep.iter().filter(|k| *k != sort_by) {
            let Some(f) = c
                .field(k)
                .filter(|f| f.array_depth == 0 && !f.flags.immutable)
            else {
                continue;
            };
            // The source's name as the copies elsewhere give it (their `fan_out` sits on it).
            let source = lookup.plan.relationships.iter().find_map(|o| {
                o.denormalized.iter().find_map(|x| {
                    let (e, name) = x.source.split_once('.')?;
                    (e == c.entity && c.field(name).is_some_and(|s| s.name == f.name))
                        .then(|| name.to_owned())
                })
            });
            let Some(source) = source else {
                continue;
            };
            let by = format!("{path}[]._id");
            let copy = format!("{path}[].{k}");
            out.field(&source, quote!(fan_out(to = #to, by = #by, copy = #copy)));
        }
    }
}

/// A Plan index as the derive's `index(...)` container attribute.
fn index(i: &crate::plan::Index) -> TokenStream {
    let keys = i.keys.iter().map(|k| {
        let path = &k.path;
        if k.sphere {
            return quote!(#path = "2dsphere");
        }
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

/// The array of ids of `d` in `c` whose length a `count` summary is (a user's `following`): the
/// repository's `add_<f>` and `remove_<f>` recompute it.
fn ids_counted(c: &Collection, d: &Decision, summary: &SummaryFn) -> Option<proc_macro2::Ident> {
    // `parent_refs(..)` arrays only: a `two_way` array's links write both sides in a transaction
    // that keeps no summary yet.
    if *summary != SummaryFn::Count || !matches!(d.strategy, Layout::ParentRefs | Layout::OneWay) {
        return None;
    }
    d.placement
        .iter()
        .find(|p| p.collection == c.name && top_level(&p.path) && p.shape == Shape::ArrayOfIds)
        .and_then(|p| ident_of(c, &p.path))
}
