//! The checked description of a `#[derive(Document)]` struct: fields with their BSON names, and
//! every layout resolved against the struct's own fields.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Type, Visibility};

use crate::attr::{self, ContainerAttrs, FieldAttrs, Layout};
use crate::ctxt::Ctxt;
use crate::types;

/// One field.
pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// Its name in the stored document.
    pub bson: String,
    pub attrs: FieldAttrs,
    /// Resolved bound of an array layout (tokens of a `usize` expression) and its literal value.
    pub bound: Option<Bound>,
    /// For `computed`: the BSON name of the array it summarises.
    pub computed_of: Option<String>,
}

impl Field<'_> {
    /// The element type of an array field.
    pub fn elem(&self) -> Option<&Type> {
        types::array(self.ty).map(|a| a.elem)
    }
}

/// The whole item.
pub struct Item<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub repo: Ident,
    pub collection: String,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
    pub id: usize,
}

impl<'a> Item<'a> {
    /// The `_id` field.
    pub fn id_field(&self) -> &Field<'a> {
        &self.fields[self.id]
    }

    /// The field named `ident`.
    pub fn field(&self, ident: &Ident) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.ident == ident)
    }

    /// The schema version declaration: (current, oldest accepted).
    pub fn schema_version(&self) -> Option<(i64, i64)> {
        self.attrs
            .schema_version
            .map(|(v, _)| (v, self.attrs.min_schema_version.map_or(v, |(m, _)| m)))
    }

    /// Reads and checks `input`; errors go to `cx`. `None` when the item cannot be described at all.
    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Item<'a>> {
        let attrs = attr::container(cx, input);
        let named = match &input.data {
            syn::Data::Struct(syn::DataStruct {
                fields: syn::Fields::Named(named),
                ..
            }) => Some(named),
            syn::Data::Struct(_) => {
                cx.error_spanned_by(input.ident.clone(), "#[derive(Document)] needs a struct with named fields (a document is a map of named fields)");
                None
            }
            syn::Data::Enum(e) => {
                cx.error_at(e.enum_token.span, "#[derive(Document)] is for structs; store variants of an enum in a struct field or a struct per variant");
                None
            }
            syn::Data::Union(u) => {
                cx.error_at(
                    u.union_token.span,
                    "#[derive(Document)] is for structs, not unions",
                );
                None
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "generic documents are not supported: a collection holds one concrete type",
            );
        }
        let named = named?;

        let mut fields: Vec<Field<'a>> = Vec::new();
        for f in &named.named {
            let Some(ident) = f.ident.as_ref() else {
                continue;
            };
            let fattrs = attr::field(cx, f);
            let name = ident.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
            let bson = match (&fattrs.serde_rename, &attrs.serde_rename_all) {
                (Some(r), _) => r.clone(),
                (None, Some(rule)) => crate::case::rename(rule, &name).unwrap_or(name),
                (None, None) => name,
            };
            fields.push(Field {
                ident,
                ty: &f.ty,
                bson,
                attrs: fattrs,
                bound: None,
                computed_of: None,
            });
        }

        // The id.
        let marked: Vec<usize> = (0..fields.len())
            .filter(|i| fields[*i].attrs.id.is_some())
            .collect();
        let id = match marked.as_slice() {
            [] => match fields.iter().position(|f| f.bson == "_id") {
                Some(i) => Some(i),
                None => {
                    cx.error_spanned_by(input.ident.clone(), "missing id: mark the field stored as `_id` with `#[squillion(id)]` (and `#[serde(rename = \"_id\")]`)");
                    None
                }
            },
            [one] => {
                let f = &fields[*one];
                if f.bson != "_id" {
                    cx.error_spanned_by(f.ident, format!("the id field is stored as `_id`, but `{}` is stored as `{}`: add `#[serde(rename = \"_id\")]`", f.ident, f.bson));
                }
                Some(*one)
            }
            [_, rest @ ..] => {
                for i in rest {
                    cx.error_spanned_by(
                        fields[*i].ident,
                        "a document has one id: `#[squillion(id)]` is already on another field",
                    );
                }
                Some(marked[0])
            }
        };

        let mut item = Item {
            ident: &input.ident,
            vis: &input.vis,
            repo: format_ident!("{}Repo", input.ident),
            collection: attrs
                .collection
                .as_ref()
                .map(|c| c.value())
                .unwrap_or_else(|| default_collection(&input.ident.to_string())),
            attrs,
            fields,
            id: id.unwrap_or(0),
        };
        check_container(cx, &item);
        resolve_fields(cx, &mut item);
        id.map(|_| item)
    }
}

/// `BookNote` -> `book_notes`.
fn default_collection(ident: &str) -> String {
    let mut out = String::new();
    for (i, c) in ident.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    if !out.ends_with('s') {
        out.push('s');
    }
    out
}

fn check_container(cx: &Ctxt, item: &Item<'_>) {
    let a = &item.attrs;
    if let (Some((min, span)), v) = (a.min_schema_version, a.schema_version) {
        match v {
            None => cx.error_at(span, "`min_schema_version` needs `schema_version`"),
            Some((v, _)) if min > v || min < 1 => cx.error_at(
                span,
                format!("`min_schema_version` is between 1 and schema_version ({v})"),
            ),
            _ => {}
        }
    }
    for u in &a.upgrades {
        let (Some((from, span)), Some((v, _))) = (u.from, a.schema_version) else {
            if a.schema_version.is_none() {
                cx.error_at(
                    u.span,
                    "`upgrade` needs `schema_version`: it reads documents of an older version",
                );
            }
            continue;
        };
        let min = a.min_schema_version.map_or(v, |(m, _)| m);
        if from >= min {
            cx.error_at(
                span,
                format!("`upgrade(from = {from})` must name a version older than those read as they are ({min} to {v})"),
            );
        }
    }
    let exists = |ident: &Ident, what: &str| {
        if item.field(ident).is_none() {
            cx.error_spanned_by(
                ident,
                format!("{what} names field `{ident}`, which this struct does not have"),
            );
        }
    };
    if let Some(q) = &a.queue {
        exists(&q.priority, "queue `priority`");
        exists(&q.in_progress, "queue `in_progress`");
        exists(&q.started, "queue `started`");
        if let Some(d) = &q.done {
            exists(d, "queue `done`");
        }
    }
    if let Some(t) = &a.tree {
        exists(&t.parent, "tree `parent`");
        exists(&t.ancestors, "tree `ancestors`");
        if let Some(f) = item.field(&t.ancestors) {
            if types::array(f.ty).is_none() {
                cx.error_spanned_by(f.ty, "tree `ancestors` is an array of ids (Vec<Id>)");
            }
        }
        if let Some(f) = item.field(&t.parent) {
            if types::option_inner(f.ty).is_none() {
                cx.error_spanned_by(f.ty, "tree `parent` is an Option<Id> (roots have none)");
            }
        }
    }
    if let Some(v) = &a.versioned {
        exists(&v.key, "versioned `key`");
        exists(&v.version, "versioned `version`");
        exists(&v.valid_from, "versioned `valid_from`");
        exists(&v.valid_to, "versioned `valid_to`");
    }
    if let Some(h) = &a.history {
        exists(&h.version, "history `version`");
        if let Some(v) = &a.versioned {
            cx.error_spanned_by(
                &v.key,
                "`versioned(...)` keeps every version in this collection and `history(...)` the earlier ones in another: a struct has one of them",
            );
        }
    }
    if let (Some(span), Some(_)) = (a.archive, &a.history) {
        cx.error_at(
            span,
            "`archive` holds the earlier versions another struct's `history(...)` keeps, and `history(...)` keeps this struct's own: a struct has one of them",
        );
    }
    if let Some(l) = &a.link {
        for (end, _) in &l.ends {
            exists(end, "link end");
        }
    }
}

/// A resolved array bound: a `usize` expression and its value when literal.
type Bound = (TokenStream, Option<u64>);

fn resolve_fields(cx: &Ctxt, item: &mut Item<'_>) {
    // The bucket items field, the default `of` of computed fields.
    let bucket_items: Vec<String> = item
        .fields
        .iter()
        .filter(|f| matches!(f.attrs.layout, Some((Layout::Bucket { .. }, _))))
        .map(|f| f.bson.clone())
        .collect();
    let mut updates: Vec<(usize, Option<Bound>, Option<String>)> = Vec::new();
    for (i, f) in item.fields.iter().enumerate() {
        let mut bound = None;
        let mut computed_of = None;
        let array = types::array(f.ty);
        if let Some((layout, span)) = &f.attrs.layout {
            let span = *span;
            let ty = f.ty;
            let need_array = |what: &str| {
                if array.is_none() {
                    cx.error_spanned_by(
                        ty,
                        format!(
                            "`{}` {what}: field `{}` must be a Vec<T> or BoundedVec<T, N>",
                            layout.name(),
                            f.ident
                        ),
                    );
                }
            };
            // A bound from `max` or the BoundedVec's capacity, checked against each other.
            let resolve_bound = |max: Option<(u64, Span)>,
                                 required: bool|
             -> Option<(TokenStream, Option<u64>)> {
                let a = array.as_ref()?;
                match (max, a.capacity) {
                    (Some((m, mspan)), Some(cap)) => {
                        if let Some(c) = types::literal_usize(cap) {
                            if c != m {
                                cx.error_at(mspan, format!("max = {m} disagrees with the field's BoundedVec capacity {c}"));
                            }
                        }
                        Some((quote!(#m as usize), Some(m)))
                    }
                    (Some((m, _)), None) => Some((quote!(#m as usize), Some(m))),
                    (None, Some(cap)) => Some((quote!((#cap) as usize), types::literal_usize(cap))),
                    (None, None) => {
                        if required {
                            cx.error_at(span, format!("unbounded array: `{}` on `{}` needs `max = N` or a BoundedVec<T, N> field (rule of thumb 3: arrays must not grow without bound)", layout.name(), f.ident));
                        }
                        None
                    }
                }
            };
            match layout {
                Layout::Embed {
                    max, unique_span, ..
                } => {
                    if array.is_some() {
                        bound = resolve_bound(*max, true);
                    } else {
                        if let Some((_, mspan)) = max {
                            cx.error_at(*mspan, format!("`max` bounds an array, but `{}` is not a Vec or BoundedVec (embed a single subdocument without `max`)", f.ident));
                        }
                        if let Some(uspan) = unique_span {
                            cx.error_at(*uspan, format!("`unique` keeps the elements of an array distinct, but `{}` is not a Vec or BoundedVec (a unique index covers a single subdocument)", f.ident));
                        }
                    }
                }
                Layout::ParentRefs { max, .. } => {
                    need_array("holds an array of ids");
                    bound = resolve_bound(*max, true);
                }
                Layout::TwoWay { max, .. } => {
                    need_array("holds an array of ids");
                    bound = resolve_bound(*max, true);
                }
                Layout::ChildRef { .. } => {
                    if array.is_some() {
                        cx.error_spanned_by(ty, "`child_ref` is the child's single reference to its parent, not an array (use parent_refs or two_way for arrays of ids)");
                    }
                }
                Layout::Subset { n, .. } | Layout::Top { n, .. } => {
                    need_array("keeps an array");
                    if let Some(a) = &array {
                        if let Some(c) = a.capacity.and_then(types::literal_usize) {
                            if c < *n {
                                cx.error_at(span, format!("n = {n} is larger than the field's BoundedVec capacity {c}"));
                            }
                        }
                    }
                    bound = Some((quote!(#n as usize), Some(*n)));
                }
                Layout::Bucket {
                    size,
                    keys,
                    count,
                    start,
                    end,
                    ..
                } => {
                    need_array("holds the bucket's children");
                    for k in keys.iter().chain(start).chain(end) {
                        if item.field(k).is_none() {
                            cx.error_spanned_by(
                                k,
                                format!(
                                    "bucket names field `{k}`, which this struct does not have"
                                ),
                            );
                        }
                    }
                    match count {
                        Some(c) if item.field(c).is_none() => cx.error_spanned_by(c, format!("bucket `count` names field `{c}`, which this struct does not have")),
                        None if !item.fields.iter().any(|x| x.ident == "count") => cx.error_at(span, "a bucket needs a count field: add a `count` field or name one with `count = field`"),
                        _ => {}
                    }
                    bound = Some((quote!(#size as usize), Some(*size)));
                }
                Layout::Outlier { max, flag, .. } => {
                    need_array("keeps the usual children embedded");
                    if let Some(a) = &array {
                        if a.capacity.is_some() {
                            cx.error_spanned_by(ty, "an outlier array overflows by design: use Vec<T> (the bound `max` applies to the stored document)");
                        }
                    }
                    if item.field(flag).is_none() {
                        cx.error_spanned_by(flag, format!("outlier `flag` names field `{flag}`, which this struct does not have"));
                    }
                    bound = Some((quote!(#max as usize), Some(*max)));
                }
            }
        } else if let Some(a) = &array {
            // A BoundedVec without a layout is still an embedded, bounded array.
            if let Some(cap) = a.capacity {
                bound = Some((quote!((#cap) as usize), types::literal_usize(cap)));
            }
        }
        if let Some(c) = &f.attrs.computed {
            match &c.of {
                Some(of) => match item.field(of) {
                    Some(target) if types::array(target.ty).is_some() => match &target.attrs.layout {
                        // The writes these layouts generate keep the summaries: push, remove, pull
                        // and set of an embedded array, a bucket's append, an outlier's push
                        // (embedded or overflowing), a subset's push, and the push, replace and
                        // remove of a subset or top-N list refilled from its children (`key`).
                        None
                        | Some((
                            Layout::Embed { .. }
                            | Layout::Bucket { .. }
                            | Layout::Outlier { .. }
                            | Layout::Subset { .. }
                            | Layout::Top { key: Some(_), .. },
                            _,
                        )) => {
                            computed_of = Some(target.bson.clone())
                        }
                        // The count of an array of ids: its `add_` and `remove_` recompute it
                        // (a user's `following_count`).
                        Some((Layout::ParentRefs { .. }, _))
                            if matches!(c.summary, crate::attr::SummaryDecl::Count) =>
                        {
                            computed_of = Some(target.bson.clone())
                        }
                        Some((other, _)) => cx.error_spanned_by(
                            of,
                            format!(
                                "computed `of` names `{of}`, a `{}` array: no generated write of it keeps a summary, so the value would go stale; summarise an embedded array, an outlier's children, a bucket's children or a subset (or count an array of ids: `computed(count, of = ids)`)",
                                other.name()
                            ),
                        ),
                    },
                    Some(_) => cx.error_spanned_by(of, format!("computed `of` names `{of}`, which is not an array")),
                    None => cx.error_spanned_by(of, format!("computed `of` names field `{of}`, which this struct does not have")),
                },
                // A summary of the children in their own collection: their repository keeps it.
                None if c.children.is_some() => {}
                None => match bucket_items.as_slice() {
                    [one] => computed_of = Some(one.clone()),
                    _ => cx.error_at(c.span, "`computed` needs the array it summarises: `of = field` (the default is the bucket's children)"),
                },
            }
        }
        if let Some(span) = f.attrs.counter {
            if !crate::expand::numeric_type(f.ty) {
                cx.error_at(span, format!("`counter` needs a number: `{}` must be an i32, i64 or f64 (not optional: `$inc` cannot add to null)", f.ident));
            } else if i == item.id {
                cx.error_at(span, "the id never changes, so it cannot be a counter");
            }
        }
        for e in &f.attrs.elements {
            let embedded = matches!(
                f.attrs.layout,
                None | Some((crate::attr::Layout::Embed { .. }, _))
            );
            if array.is_none() || !embedded {
                cx.error_at(e.span, format!("`element` changes one element of an embedded bounded array, but `{}` is not a BoundedVec with `embed(max = N)`", f.ident));
            } else if !crate::expand::numeric_type(&e.ty) {
                cx.error_at(e.span, format!("`element` adds to a number: `{}` of the elements must be an i32, i64 or f64 (not optional: `$inc` cannot add to null)", e.path));
            }
        }
        if let Some(span) = f.attrs.counters {
            if types::counter_dims(f.ty).is_none() {
                cx.error_at(span, format!("`counters` needs preallocated counters: `{}` must be a `BoundedVec` of `i64` (nested for several dimensions, `BoundedVec<BoundedVec<i64, 60>, 24>`) with literal capacities", f.ident));
            } else if f.attrs.layout.is_some() || f.attrs.maintained.is_some() {
                cx.error_at(span, "`counters` is the field's layout: it takes no other layout and is not `maintained`");
            }
        }
        if let Some((span, _)) = f.attrs.map {
            if types::map(f.ty).is_none() {
                cx.error_at(span, format!("`map` describes a map whose keys are data, but `{}` is not a BTreeMap, HashMap or IndexMap", f.ident));
            } else if i == item.id {
                cx.error_at(span, "the id cannot be a map");
            }
        }
        if let Some((span, _)) = &f.attrs.attributes {
            if array.is_none() {
                cx.error_at(*span, format!("`attributes` is a map stored as an array of `{{k, v}}`, but `{}` is not a Vec<T> or BoundedVec<T, N> of those elements", f.ident));
            } else if i == item.id {
                cx.error_at(*span, "the id cannot be an attributes map");
            } else if let Some((layout, _)) = &f.attrs.layout {
                cx.error_at(*span, format!("`attributes` lays `{}` out as an array of `{{k, v}}`, which `{}` lays out otherwise: keep one of them", f.ident, layout.name()));
            } else if f.attrs.maintained.is_some() || f.attrs.immutable.is_some() {
                cx.error_at(*span, format!("`attributes` gives `{}` its entry setters, which `maintained` and `immutable` refuse: keep one of them", f.ident));
            }
        }
        if !f.attrs.fan_out.is_empty() && i == item.id {
            cx.error_at(
                f.attrs.fan_out[0].span,
                "the id never changes, so it has no copies to fan out to",
            );
        }
        updates.push((i, bound, computed_of));
    }
    for (i, bound, of) in updates {
        item.fields[i].bound = bound;
        item.fields[i].computed_of = of;
    }
}
