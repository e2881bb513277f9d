//! The field attributes: layouts, summaries, indexes, copies, counters, inner fields, facts.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use crate::ctxt::Ctxt;

use super::values::*;
use super::*;

const FIELD_KEYS: &str = "id, embed, parent_refs, child_ref, two_way, subset, top, bucket, outlier, computed, index, unique, fan_out, denormalized, counter, counters, map, attributes, maintained, immutable, inner, inner_array, element, minimum, maximum, min_length, max_length, pattern, one_of";

fn set_layout(slot: &mut Option<(Layout, Span)>, cx: &Ctxt, span: Span, layout: Layout) {
    if let Some((prev, prev_span)) = slot {
        let mut e = syn::Error::new(
            span,
            format!(
                "conflicting layouts: `{}` and `{}` on one field; a relationship has one layout",
                prev.name(),
                layout.name()
            ),
        );
        e.combine(syn::Error::new(
            *prev_span,
            format!("`{}` declared here", prev.name()),
        ));
        cx.syn_error(e);
    } else {
        *slot = Some((layout, span));
    }
}

fn relation_max(m: &ParseNestedMeta<'_>, cx: &Ctxt) -> syn::Result<(u64, Span)> {
    let v = lit_u64(m)?;
    if v.0 == 0 {
        cx.error_at(v.1, "a bound is at least 1");
    }
    Ok(v)
}

/// Reads one field's attributes.
pub fn field(cx: &Ctxt, field: &syn::Field) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in &field.attrs {
        if attr.path().is_ident("serde") {
            let _ = attr.parse_nested_meta(|m| {
                match key_name(&m).as_str() {
                    "rename" => {
                        if m.input.peek(Token![=]) {
                            if let Ok(s) = lit_str(&m) {
                                out.serde_rename = Some(s.value());
                            }
                        } else {
                            // rename(serialize = "...", deserialize = "...")
                            let _ = m.parse_nested_meta(|r| {
                                if r.path.is_ident("serialize") {
                                    if let Ok(s) = lit_str(&r) {
                                        out.serde_rename = Some(s.value());
                                    }
                                } else {
                                    let _ = skip_value(&r);
                                }
                                Ok(())
                            });
                        }
                    }
                    "default" => {
                        out.serde_default = true;
                        let _ = skip_value(&m);
                    }
                    "skip" | "skip_serializing" => out.serde_skip = true,
                    "flatten" => out.serde_flatten = true,
                    "skip_serializing_if" => {
                        out.serde_skip_if = true;
                        let _ = skip_value(&m);
                    }
                    _ => {
                        let _ = skip_value(&m);
                    }
                }
                Ok(())
            });
            continue;
        }
        if !attr.path().is_ident("squillion") {
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let key = key_name(&meta);
            let span = meta.path.span();
            match key.as_str() {
                "id" => out.id = Some(span),
                "embed" => {
                    let mut max = None;
                    let mut unique = Vec::new();
                    let mut unique_span = None;
                    let mut lists = Vec::new();
                    let mut find_by = None;
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "max" => max = Some(relation_max(&m, cx)?),
                                "unique" => {
                                    unique_span = Some(m.path.span());
                                    unique = name_list(&m)?;
                                }
                                kind @ ("latest" | "top") => kept_list(&m, cx, kind, &mut lists)?,
                                "find_by" => find_by = find_by_of(&m, cx)?,
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown embed option `{other}`; expected max, unique, latest, top, find_by"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    set_layout(&mut out.layout, cx, span, Layout::Embed { max, unique, unique_span, lists, find_by });
                }
                "parent_refs" | "child_ref" | "two_way" | "subset" => {
                    let mut to = None;
                    let mut max = None;
                    let mut fields = Vec::new();
                    let mut inverse = None;
                    let mut inverse_max = None;
                    let mut inverse_required = false;
                    let mut inverse_id = None;
                    let mut n = None;
                    let mut sort = None;
                    let mut desc = false;
                    let mut order = Vec::new();
                    let mut id = None;
                    let mut key_path = None;
                    let mut find_by = false;
                    let allowed: &[&str] = match key.as_str() {
                        "parent_refs" => &["to", "max", "fields", "find_by"],
                        "child_ref" => &["to", "order", "id"],
                        "two_way" => &["to", "max", "inverse", "inverse_max", "inverse_required", "id", "inverse_id"],
                        _ => &["to", "n", "sort", "desc", "asc", "keep", "key"],
                    };
                    meta.parse_nested_meta(|m| {
                        let k = key_name(&m);
                        if !allowed.contains(&k.as_str()) {
                            cx.error_spanned_by(&m.path, format!("unknown {key} option `{k}`; expected {}", allowed.join(", ")));
                            return skip_value(&m);
                        }
                        match k.as_str() {
                            "to" => to = Some(path_value(&m)?),
                            "max" => max = Some(relation_max(&m, cx)?),
                            "fields" | "keep" => fields = name_list(&m)?,
                            "inverse" => inverse = Some(name_value(&m)?),
                            "inverse_max" => inverse_max = Some(relation_max(&m, cx)?.0),
                            "inverse_required" => inverse_required = true,
                            "find_by" => find_by = true,
                            "inverse_id" => inverse_id = Some(name_value(&m)?),
                            "n" => n = Some(relation_max(&m, cx)?.0),
                            "sort" => sort = Some(name_value(&m)?),
                            "order" => order = index_keys(&m)?,
                            "id" => id = Some(name_value(&m)?),
                            "desc" => desc = true,
                            "key" => key_path = Some(name_value(&m)?),
                            _ => desc = false,
                        }
                        Ok(())
                    })?;
                    let Some(to) = to else {
                        cx.error_at(span, format!("`{key}` needs the related type: `{key}(to = Type, ...)`"));
                        return Ok(());
                    };
                    match key.as_str() {
                        "parent_refs" => set_layout(&mut out.layout, cx, span, Layout::ParentRefs { to, max, fields, find_by }),
                        "child_ref" => {
                            if order.iter().any(|(_, k)| !matches!(k, KeyKind::Asc | KeyKind::Desc)) {
                                cx.error_at(span, "`child_ref(order(...))` sorts children: each key is 1 or -1");
                            }
                            set_layout(&mut out.layout, cx, span, Layout::ChildRef { to, order, id })
                        }
                        "two_way" => match inverse {
                            Some(inverse) => set_layout(&mut out.layout, cx, span, Layout::TwoWay { to, max, inverse, inverse_max, inverse_required, id, inverse_id }),
                            None => cx.error_at(span, "`two_way` needs the field of the other side: `inverse = field`"),
                        },
                        _ => match (n, sort) {
                            (Some(n), Some(sort)) => set_layout(&mut out.layout, cx, span, Layout::Subset { to, n, sort, desc, keep: fields, key: key_path }),
                            _ => cx.error_at(span, "`subset` needs `n = N` (how many are kept) and `sort = field`"),
                        },
                    }
                }
                "top" => {
                    let mut n = None;
                    let mut sort = None;
                    let mut desc = false;
                    let mut to = None;
                    let mut keep = Vec::new();
                    let mut key_path = None;
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "n" => n = Some(relation_max(&m, cx)?.0),
                            "sort" => sort = Some(name_value(&m)?),
                            "desc" => desc = true,
                            "asc" => desc = false,
                            "to" => to = Some(path_value(&m)?),
                            "keep" => keep = name_list(&m)?,
                            "key" => key_path = Some(name_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown top option `{other}`; expected n, sort, desc, asc, to, keep, key"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    if to.is_some() != key_path.is_some() {
                        cx.error_at(span, "`top` refilled from the children needs both `to = Type` (the children) and `key = \"path\"` (each child's field holding its parent's id)");
                    }
                    match (n, sort) {
                        (Some(n), Some(sort)) => set_layout(&mut out.layout, cx, span, Layout::Top { n, sort, desc, to, keep, key: key_path }),
                        _ => cx.error_at(span, "`top` needs `n = N` and `sort = field`"),
                    }
                }
                "bucket" => {
                    let mut size = None;
                    let mut keys = Vec::new();
                    let mut count = None;
                    let mut start = None;
                    let mut end = None;
                    let mut desc = false;
                    let mut sort = None;
                    let mut unique = Vec::new();
                    let mut owner = None;
                    let mut owner_id = None;
                    let mut lists = Vec::new();
                    let mut summaries = Vec::new();
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "owner" => owner = Some(path_value(&m)?),
                            "owner_id" => owner_id = Some(name_value(&m)?),
                            kind @ ("latest" | "top") => kept_list(&m, cx, kind, &mut lists)?,
                            "summary" => owner_summary(&m, cx, &mut summaries)?,
                            "size" => size = Some(relation_max(&m, cx)?.0),
                            "sort" => sort = Some(name_value(&m)?),
                            "unique" => unique = name_list(&m)?,
                            "key" => keys.push(ident_value(&m)?),
                            "count" => count = Some(ident_value(&m)?),
                            "start" => start = Some(ident_value(&m)?),
                            "end" => end = Some(ident_value(&m)?),
                            "desc" => desc = true,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown bucket option `{other}`; expected size, key, count, start, end, sort, desc, unique, owner, owner_id, latest, top, summary"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    let keeps = !lists.is_empty() || !summaries.is_empty();
                    if keeps && (owner.is_none() || keys.len() != 1) {
                        cx.error_at(span, "`bucket(latest(..))`, `bucket(top(..))` and `bucket(summary(..))` need `owner = Type` and one `key`: the owner whose lists and summaries every append keeps");
                    }
                    let kept = owner.filter(|_| keeps).map(|owner| super::BucketKept { owner, owner_id, lists, summaries });
                    match size {
                        Some(size) if !keys.is_empty() => set_layout(&mut out.layout, cx, span, Layout::Bucket { size, keys, count, start, end, sort, desc, unique, kept }),
                        _ => cx.error_at(span, "`bucket` needs `size = N` (children per bucket) and `key = field` (the owner's reference)"),
                    }
                }
                "outlier" => {
                    let mut max = None;
                    let mut flag = None;
                    let mut overflow = None;
                    let mut chunk = 500;
                    let mut lists = Vec::new();
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "max" => max = Some(relation_max(&m, cx)?.0),
                            "flag" => flag = Some(ident_value(&m)?),
                            "overflow" => overflow = Some(lit_str(&m)?.value()),
                            "chunk" => chunk = relation_max(&m, cx)?.0,
                            kind @ ("latest" | "top") => kept_list(&m, cx, kind, &mut lists)?,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown outlier option `{other}`; expected max, flag, overflow, chunk, latest, top"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (max, flag, overflow) {
                        (Some(max), Some(flag), Some(overflow)) => set_layout(&mut out.layout, cx, span, Layout::Outlier { max, flag, overflow, chunk, lists }),
                        _ => cx.error_at(span, "`outlier` needs `max = N`, `flag = field` and `overflow = \"collection\"`"),
                    }
                }
                "computed" => {
                    let mut summary = None;
                    let mut of = None;
                    let (mut to, mut key) = (None, None);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "count" => summary = Some(SummaryDecl::Count),
                            "sum" => summary = Some(SummaryDecl::Sum(name_value(&m)?)),
                            "max" => summary = Some(SummaryDecl::Max(name_value(&m)?)),
                            "min" => summary = Some(SummaryDecl::Min(name_value(&m)?)),
                            "of" => of = Some(ident_value(&m)?),
                            "to" => to = Some(path_value(&m)?),
                            "key" => key = Some(name_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown computed option `{other}`; expected count, sum, max, min, of, to, key"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    let children = match (to, key, &of) {
                        (Some(to), Some(key), None) => Some((to, key)),
                        (None, None, _) => None,
                        _ => {
                            cx.error_at(span, "a summary of children in their own collection names their type and their reference to this document (`to = Comment, key = \"post\"`), and no `of`");
                            None
                        }
                    };
                    match summary {
                        Some(summary) => out.computed = Some(ComputedDecl { span, summary, of, children }),
                        None => cx.error_at(span, "`computed` needs its function: count, sum = \"field\", max = \"field\" or min = \"field\""),
                    }
                }
                "index" => out.index = Some((index_decl(&meta, cx, false)?, span)),
                "unique" => {
                    let mut d = out.index.take().map(|(d, _)| d).unwrap_or_default();
                    d.unique = true;
                    out.index = Some((d, span));
                }
                "fan_out" => {
                    let mut to = None;
                    let mut by = None;
                    let mut copy = None;
                    let mut array = None;
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "to" => to = Some(path_value(&m)?),
                            "by" => by = Some(name_value(&m)?),
                            "copy" => copy = Some(name_value(&m)?),
                            "array" => array = Some(name_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown fan_out option `{other}`; expected to, by, copy, array"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (to, by, copy) {
                        (Some(to), Some(by), Some(copy)) => out.fan_out.push(FanOutDecl { span, to, by, copy, array }),
                        _ => cx.error_at(span, "`fan_out` needs `to = Type`, `by = \"path of the source id in the copy\"` and `copy = \"path of the copy\"`"),
                    }
                }
                "denormalized" => {
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "from" => {
                                let s = lit_str(&m)?;
                                if !s.value().contains('.') {
                                    cx.error_spanned_by(&s, "`from` names the source as \"Entity.field\"");
                                }
                                out.denormalized_from = Some(s.value());
                            }
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown denormalized option `{other}`; expected from"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                }
                "counter" => out.counter = Some(span),
                "counters" => out.counters = Some(span),
                "map" => {
                    let mut max = None;
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "max" => max = Some(relation_max(&m, cx)?.0),
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown map option `{other}`; expected max"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    out.map = Some((span, max));
                }
                "attributes" => {
                    let mut value = None;
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "value" => value = Some(m.value()?.parse::<syn::Type>()?),
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown attributes option `{other}`; expected value"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    match value {
                        Some(value) => out.attributes = Some((span, value)),
                        None => cx.error_at(span, "`attributes` needs the type of the values: `attributes(value = Type)` (the map is stored as `[{k, v}]`, `v` of that type)"),
                    }
                }
                "maintained" => out.maintained = Some(span),
                "immutable" => out.immutable = Some(span),
                "inner" => {
                    let (mut path, mut name, mut ty, mut counter) = (None, None, None, false);
                    let mut minimum = None;
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "path" => path = Some(name_value(&m)?),
                            "name" => name = Some(name_value(&m)?),
                            "ty" => ty = Some(m.value()?.parse::<syn::Type>()?),
                            "counter" => counter = true,
                            "minimum" => minimum = Some(lit_f64(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown inner option `{other}`; expected path, name, ty, counter, minimum"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (path, name, ty) {
                        (Some(path), Some(name), Some(ty)) => out.inner.push(InnerDecl { path, name, ty, counter, minimum }),
                        _ => cx.error_at(span, "`inner` needs `path = \"path below the field\"`, `name = method_suffix` and `ty = Type`"),
                    }
                }
                "element" => {
                    let (mut path, mut name, mut ty, mut counter) = (None, None, None, false);
                    let (mut key, mut key_ty, mut minimum) = (None, None, None);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "path" => path = Some(name_value(&m)?),
                            "name" => name = Some(name_value(&m)?),
                            "ty" => ty = Some(m.value()?.parse::<syn::Type>()?),
                            "key" => key = Some(name_value(&m)?),
                            "key_ty" => key_ty = Some(m.value()?.parse::<syn::Type>()?),
                            "counter" => counter = true,
                            "minimum" => minimum = Some(lit_f64(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown element option `{other}`; expected path, name, ty, key, key_ty, counter, minimum"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (path, name, ty, key, key_ty) {
                        (Some(path), Some(name), Some(ty), Some(key), Some(key_ty)) => out.elements.push(ElementDecl { path, name, ty, key, key_ty, counter, minimum, span }),
                        _ => cx.error_at(span, "`element` needs `path = \"field of the element\"`, `name = method_suffix`, `ty = Type`, `key = \"field that identifies an element\"` and `key_ty = Type`"),
                    }
                }
                "inner_array" => {
                    let (mut path, mut name, mut elem, mut max) = (None, None, None, None);
                    let (mut key, mut key_ty) = (None, None);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "path" => path = Some(name_value(&m)?),
                            "name" => name = Some(name_value(&m)?),
                            "elem" => elem = Some(m.value()?.parse::<syn::Type>()?),
                            "max" => max = Some(relation_max(&m, cx)?.0),
                            "key" => key = Some(name_value(&m)?),
                            "key_ty" => key_ty = Some(m.value()?.parse::<syn::Type>()?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown inner_array option `{other}`; expected path, name, elem, max, key, key_ty"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    let key = match (key, key_ty) {
                        (Some(k), Some(t)) => Some((k, t)),
                        (None, None) => None,
                        _ => {
                            cx.error_at(span, "`inner_array` takes `key = \"field\"` and `key_ty = Type` together");
                            None
                        }
                    };
                    match (path, name, elem, max) {
                        (Some(path), Some(name), Some(elem), Some(max)) => out.inner_arrays.push(InnerArrayDecl { path, name, elem, max, key }),
                        _ => cx.error_at(span, "`inner_array` needs `path = \"path below the field\"`, `name = method_suffix`, `elem = Type` and `max = N` (rule of thumb 3: arrays must not grow without bound)"),
                    }
                }
                "minimum" => out.facts.minimum = Some(lit_f64(&meta)?),
                "maximum" => out.facts.maximum = Some(lit_f64(&meta)?),
                "min_length" => out.facts.min_length = Some(lit_u64(&meta)?.0),
                "max_length" => out.facts.max_length = Some(lit_u64(&meta)?.0),
                "pattern" => {
                    let s = lit_str(&meta)?;
                    out.facts.pattern = Some(s.value());
                }
                "one_of" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let values = content.parse_terminated(|i: ParseStream<'_>| i.parse::<LitStr>(), Token![,])?;
                    out.facts.one_of = values.into_iter().map(|s| s.value()).collect();
                }
                other => {
                    cx.error_spanned_by(&meta.path, format!("unknown squillion field attribute `{other}`; expected one of: {FIELD_KEYS}"));
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

/// `summary(path = "comments_count", count)` (or `sum = "field"`, `max = "field"`, `min =
/// "field"`) in a `bucket`: a summary of all the owner's children the owner keeps, raised by
/// every append.
fn owner_summary(
    m: &syn::meta::ParseNestedMeta<'_>,
    cx: &Ctxt,
    summaries: &mut Vec<(String, super::SummaryDecl)>,
) -> syn::Result<()> {
    use super::SummaryDecl;
    let (mut path, mut summary) = (None, None);
    m.parse_nested_meta(|l| {
        match key_name(&l).as_str() {
            "path" => path = Some(name_value(&l)?),
            "count" => summary = Some(SummaryDecl::Count),
            "sum" => summary = Some(SummaryDecl::Sum(name_value(&l)?)),
            "max" => summary = Some(SummaryDecl::Max(name_value(&l)?)),
            "min" => summary = Some(SummaryDecl::Min(name_value(&l)?)),
            other => {
                cx.error_spanned_by(
                    &l.path,
                    format!(
                        "unknown `summary` option `{other}`; expected path, count, sum, max, min"
                    ),
                );
                skip_value(&l)?;
            }
        }
        Ok(())
    })?;
    match (path, summary) {
        (Some(path), Some(summary)) => summaries.push((path, summary)),
        _ => cx.error_spanned_by(&m.path, "`summary` needs `path = \"field\"` (the owner's field) and its function: count, sum = \"field\", max = \"field\" or min = \"field\""),
    }
    Ok(())
}

/// `latest(path = "recent", n = 5, sort = "at", desc, keep("at", "kind"))` or `top(...)`: a list
/// of copies of the children the owner keeps, pushed by every write of a child.
fn kept_list(
    m: &syn::meta::ParseNestedMeta<'_>,
    cx: &Ctxt,
    kind: &str,
    lists: &mut Vec<super::KeptList>,
) -> syn::Result<()> {
    let latest = kind == "latest";
    let (mut path, mut n, mut sort, mut desc, mut keep) = (None, None, None, false, Vec::new());
    m.parse_nested_meta(|l| {
        match key_name(&l).as_str() {
            "path" => path = Some(name_value(&l)?),
            "n" => n = Some(relation_max(&l, cx)?.0),
            "sort" => sort = Some(name_value(&l)?),
            "desc" => desc = true,
            "keep" => keep = name_list(&l)?,
            other => {
                cx.error_spanned_by(
                    &l.path,
                    format!(
                        "unknown `{kind}` option `{other}`; expected path, n, sort, desc, keep"
                    ),
                );
                skip_value(&l)?;
            }
        }
        Ok(())
    })?;
    match (path, n, sort) {
        (Some(path), Some(n), Some(sort)) => lists.push(super::KeptList { path, n, sort, desc, latest, keep }),
        _ => cx.error_spanned_by(&m.path, format!("`{kind}` needs `path = \"field\"` (the owner's array), `n = N` and `sort = \"field\"`")),
    }
    Ok(())
}

/// `find_by(to = Course, id = "id")` in `embed(...)`: the elements reference a `Course` through
/// their field `id`, and the repository lists the documents whose array references one.
fn find_by_of(m: &ParseNestedMeta<'_>, cx: &Ctxt) -> syn::Result<Option<(syn::Path, String)>> {
    let (mut to, mut id) = (None, None);
    m.parse_nested_meta(|l| {
        match key_name(&l).as_str() {
            "to" => to = Some(path_value(&l)?),
            "id" => id = Some(name_value(&l)?),
            other => {
                cx.error_spanned_by(
                    &l.path,
                    format!("unknown `find_by` option `{other}`; expected to, id"),
                );
                skip_value(&l)?;
            }
        }
        Ok(())
    })?;
    match (to, id) {
        (Some(to), Some(id)) => Ok(Some((to, id))),
        _ => {
            cx.error_spanned_by(
                &m.path,
                "`find_by` needs `to = Type` (the referenced document) and `id = \"field\"` (its id in each element)",
            );
            Ok(None)
        }
    }
}
