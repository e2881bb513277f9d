//! One repository method per declared query: the filter on the stored paths the Plan resolved,
//! the sort, the limit, and the collation of a case-insensitive index, so the query is served by
//! the index the Plan made for it.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::plan::{ChildrenPlan, Plan, QueryCondition, QueryOp, QueryPlan};

use super::names::field_ident;

/// The queries of collection `collection` that get methods: those that need no join and use
/// only paths the layout stores there.
pub(super) fn with_methods<'p>(
    plan: &'p Plan,
    collection: &'p str,
) -> impl Iterator<Item = &'p QueryPlan> + 'p {
    plan.queries
        .iter()
        .filter(move |q| q.collection == collection && q.join.is_none() && q.unstored.is_empty())
}

/// The Rust types the query methods of one collection use, made by the struct's generator.
pub(super) struct Types<'a> {
    /// The Rust type of each array of children (by its stored path) that a query on a parent's
    /// children returns the elements of.
    pub(super) elements: &'a BTreeMap<String, Ident>,
    /// The projection struct of each query with `returns`, by query name.
    pub(super) projections: &'a [(String, Ident)],
    /// The generated enum of each compared enumeration field (`one_of`), by stored path: its
    /// parameters take the enum, not a string.
    pub(super) enums: &'a BTreeMap<String, Ident>,
    /// Whether the collection's documents may be stored at an older version the repository
    /// upgrades (the online mode): its queries then read through `__private::online_reads`.
    pub(super) online: bool,
    /// Whether the collection's documents carry a schema version (`@schema_version`): its
    /// queries then read through `__private::checked_reads`, which check it as `get` does.
    pub(super) versioned: bool,
}

/// `impl <Type>Repo { ... }` with the query methods of collection `collection`, if it has any.
pub(super) fn methods(plan: &Plan, collection: &str, ty: &Ident, types: &Types<'_>) -> TokenStream {
    let methods: Vec<TokenStream> = with_methods(plan, collection)
        .filter_map(|q| {
            let returned = match q.children.as_ref().and_then(|c| c.array.as_ref()) {
                Some(array) => types.elements.get(array)?,
                None => ty,
            };
            let projected = types.projections.iter().find(|(n, _)| *n == q.name);
            Some(method(
                plan,
                q,
                returned,
                projected.map(|(_, p)| p),
                types.enums,
                types.online,
                types.versioned.then_some(ty),
            ))
        })
        .collect();
    if methods.is_empty() {
        return TokenStream::new();
    }
    let repo = format_ident!("{}Repo", ty);
    quote! {
        impl #repo {
            #(#methods)*
        }
    }
}

/// The clauses of a filter document, those comparing a path another clause compares too joined
/// in one `$and` (in the first one's place): a document holds a key once, so `at >= ? and at < ?`
/// written as two `at` keys would keep only the last (`{at: {$lt}}`), dropping the other bound.
fn conjoined(paths: &[String], clauses: Vec<TokenStream>) -> Vec<TokenStream> {
    let repeated = |p: &String| paths.iter().filter(|x| *x == p).count() > 1;
    let mut out = Vec::with_capacity(clauses.len());
    let mut joined: Vec<TokenStream> = Vec::new();
    let mut at = None;
    for (path, clause) in paths.iter().zip(clauses) {
        if repeated(path) {
            at.get_or_insert(out.len());
            joined.push(quote!({ #clause }));
        } else {
            out.push(clause);
        }
    }
    if let Some(i) = at {
        out.insert(i, quote!("$and": [#(#joined),*]));
    }
    out
}

fn method(
    plan: &Plan,
    q: &QueryPlan,
    doc_ty: &Ident,
    projected: Option<&Ident>,
    enums: &BTreeMap<String, Ident>,
    online: bool,
    versioned: Option<&Ident>,
) -> TokenStream {
    let name = field_ident(&q.name);
    let ty = projected.unwrap_or(doc_ty);
    // The collection read as the projection struct, and the projection sent with the find.
    let (collection, projection) = match projected {
        Some(p) => {
            let fields = q.returns.iter();
            (
                quote!(self.collection().clone_with_type::<#p>()),
                quote!(::std::option::Option::Some(
                    ::squillion::bson::doc! { "_id": 1 #(, #fields: 1)* }
                )),
            )
        }
        None => (
            quote!(self.collection().clone()),
            quote!(::std::option::Option::None),
        ),
    };
    let borrowed = match projected {
        Some(_) => quote!(&#collection),
        None => quote!(self.collection()),
    };
    let mut params = Vec::new();
    let mut clauses = Vec::new();
    // The count's conditions: the same, but `near` as the circle (`countDocuments` refuses `$near`).
    let mut count_clauses = Vec::new();
    // The stored path each clause compares, in step with `clauses`.
    let mut paths: Vec<String> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    // A query on a parent's children takes the parent's id first.
    let parent = q.children.as_ref().map(|ch| {
        let p = field_ident(&ch.parent_param);
        used.push(ch.parent_param.clone());
        let t = id_param_type(&ch.parent_id_type);
        params.push(quote!(#p: #t));
        let path = &ch.parent_path;
        let v = scalar_value(&ch.parent_id_type, &p);
        quote!(#path: #v)
    });
    let mut ignore_case = false;
    let mut nearest: Option<Ident> = None;
    // `has` conditions, by the stored path of their map: one `$elemMatch` each.
    let mut attributes: Vec<(String, Vec<TokenStream>)> = Vec::new();
    for c in &q.conditions {
        ignore_case |= c.ignore_case;
        // An attribute's key comes first; its value's parameters are named `<map>_value...`.
        let key = c.attribute.then(|| {
            let mut n = format!("{}_key", c.written.replace('.', "_"));
            while used.contains(&n) {
                n.push('_');
            }
            used.push(n.clone());
            let p = field_ident(&n);
            params.push(quote!(#p: &str));
            p
        });
        let base = match c.attribute {
            true => format!("{}_value", c.written.replace('.', "_")),
            false => c.written.replace('.', "_"),
        };
        let mut param = |suffix: &str| {
            let mut n = if suffix.is_empty() {
                base.clone()
            } else {
                format!("{base}_{suffix}")
            };
            while used.contains(&n) {
                n.push('_');
            }
            used.push(n.clone());
            field_ident(&n)
        };
        // An attribute's value is `v` in the element `$elemMatch` finds.
        let path = if c.attribute { "v" } else { c.path.as_str() };
        let enumeration = enums.get(&c.path).filter(|_| !c.attribute);
        let ty = match enumeration {
            Some(e) if c.op == QueryOp::In => quote!(#e),
            Some(e) => quote!(&#e),
            None => param_type(c),
        };
        // An enumeration is compared as the text it is stored as.
        let value = |c: &QueryCondition, p: &Ident| match enumeration {
            Some(_) => quote!(#p.as_str()),
            None => value(c, p),
        };
        let mut count_clause: Option<TokenStream> = None;
        let clause = match c.op {
            QueryOp::Eq => {
                let p = param("");
                params.push(quote!(#p: #ty));
                let v = value(c, &p);
                quote!(#path: #v)
            }
            QueryOp::In => {
                let p = param("in");
                params.push(quote!(#p: &[#ty]));
                quote!(#path: { "$in": #p.to_vec() })
            }
            QueryOp::StartsWith => {
                let p = param("prefix");
                params.push(quote!(#p: &str));
                if c.ignore_case {
                    quote!(#path: ::squillion::__private::query::prefix_ignore_case(#p))
                } else {
                    quote!(#path: ::squillion::__private::query::prefix(#p))
                }
            }
            QueryOp::Near => {
                let (near, within) = (param("near"), param("max_meters"));
                params.push(quote!(#near: &::squillion::GeoPoint));
                params.push(quote!(#within: f64));
                nearest = Some(within.clone());
                count_clause =
                    Some(quote!(#path: ::squillion::__private::query::near_count(#near, #within)));
                quote!(#path: ::squillion::__private::query::near(#near, #within))
            }
            QueryOp::Within => {
                let p = param("within");
                params.push(quote!(#p: &::squillion::GeoShape));
                quote!(#path: ::squillion::__private::query::within(#p))
            }
            QueryOp::Between => {
                let (from, to) = (param("from"), param("to"));
                params.push(quote!(#from: #ty));
                params.push(quote!(#to: #ty));
                let (from, to) = (value(c, &from), value(c, &to));
                quote!(#path: { "$gte": #from, "$lte": #to })
            }
            op => {
                let (suffix, operator) = match op {
                    QueryOp::Ne => ("not", "$ne"),
                    QueryOp::Lt => ("below", "$lt"),
                    QueryOp::Le => ("at_most", "$lte"),
                    QueryOp::Gt => ("above", "$gt"),
                    _ => ("at_least", "$gte"),
                };
                let p = param(suffix);
                params.push(quote!(#p: #ty));
                let v = value(c, &p);
                quote!(#path: { #operator: #v })
            }
        };
        if let Some(key) = key {
            let matched = quote!({ "$elemMatch": { "k": #key, #clause } });
            match attributes.iter_mut().find(|(p, _)| *p == c.path) {
                Some((_, all)) => all.push(matched),
                None => attributes.push((c.path.clone(), vec![matched])),
            }
            continue;
        }
        count_clauses.push(count_clause.unwrap_or_else(|| clause.clone()));
        clauses.push(clause);
        paths.push(c.path.clone());
    }
    // Two attributes of one map: two elements, both present (`$all` of two `$elemMatch`).
    for (path, matched) in &attributes {
        let clause = match &matched[..] {
            [one] => quote!(#path: #one),
            all => quote!(#path: { "$all": [#(#all),*] }),
        };
        count_clauses.push(clause.clone());
        clauses.push(clause);
        paths.push(path.clone());
    }
    let clauses = conjoined(&paths, clauses);
    let count_clauses = conjoined(&paths, count_clauses);
    let sort = if q.sort.is_empty() {
        quote!(::std::option::Option::None)
    } else {
        let keys = q.sort.iter().map(|k| {
            let path = &k.path;
            let dir = Literal::i32_unsuffixed(k.direction);
            quote!(#path: #dir)
        });
        quote!(::std::option::Option::Some(
            ::squillion::bson::doc! { #(#keys),* }
        ))
    };
    let limit = match q.limit {
        Some(n) => {
            let n = Literal::i64_unsuffixed(i64::try_from(n).unwrap_or(i64::MAX));
            quote!(::std::option::Option::Some(#n))
        }
        None => quote!(::std::option::Option::None),
    };
    let locale = plan
        .collection(&q.collection)
        .and_then(|c| c.indexes.iter().find(|i| Some(&i.name) == q.index.as_ref()))
        .and_then(|i| i.collation.as_ref())
        .map(|c| c.locale.clone())
        .unwrap_or_else(|| "en".to_owned());
    let collation = if ignore_case {
        quote!(::std::option::Option::Some(::squillion::__private::query::case_insensitive(#locale)))
    } else {
        quote!(::std::option::Option::None)
    };
    let mut lines: Vec<String> = Vec::new();
    if !q.docs.is_empty() {
        lines.push(String::new());
    }
    lines.push(format!(
        "Query `{}` on `{}`{}.",
        q.name,
        q.collection,
        match &q.index {
            Some(i) => format!(", served by the index `{i}`"),
            None if q.conditions.iter().all(|c| c.path == "_id") => ", served by `_id`".to_owned(),
            None => String::new(),
        }
    ));
    for (path, matched) in &attributes {
        lines.push(attribute_words(path, matched.len()));
    }
    let online = online && q.children.as_ref().and_then(|c| c.array.as_ref()).is_none();
    if projected.is_some() {
        let fields: Vec<String> = q.returns.iter().map(|f| format!("`{f}`")).collect();
        lines.push(if online {
            format!(
                "Returns only {} and `_id` (while documents of the old version may be stored, \
                 whole documents are read, upgraded, then projected).",
                fields.join(", ")
            )
        } else {
            format!(
                "Reads only {} and `_id` (a projection: the rest of each document stays on the server).",
                fields.join(", ")
            )
        });
    }
    let versioned = versioned
        .filter(|_| !online && q.children.as_ref().and_then(|c| c.array.as_ref()).is_none());
    if versioned.is_some() {
        lines.push(
            "Each document's `schema_version` is checked as `get` checks it: one this code does \
             not read is `Error::SchemaVersion`."
                .to_owned(),
        );
    }
    if online {
        lines.push(
            "Online mode: documents stored at the old version are found by their old field names \
             and plain references too, and are returned upgraded, their copies taken from their \
             sources (`squillion::__private::online_reads`)."
                .to_owned(),
        );
    }
    if ignore_case {
        lines.push(
            "Compares case-insensitively, with the index's collation (strength 2).".to_owned(),
        );
    }
    if let Some(max) = &nearest {
        let order = if q.sort.is_empty() {
            "nearest first"
        } else {
            "in the declared sort order"
        };
        lines.push(format!(
            "Points at most `{max}` meters away (`$near`), {order}."
        ));
    }
    if nearest.is_none() && !q.sort.is_empty() {
        let which = match q.limit {
            Some(1) => "the first match".to_owned(),
            Some(n) => format!("the first {n} matches"),
            None => "the matches".to_owned(),
        };
        lines.push(format!("Returns {which} {}.", order_words(q, false)));
    }
    if let Some(ch) = &q.children {
        lines.push(children_words(q, ch));
    }
    let doc = super::docs_of(&q.docs, &lines);
    let names = method_names(q);
    let args: Vec<TokenStream> = params.clone();
    let (filter, run) = match (&parent, q.children.as_ref().and_then(|c| c.array.as_ref())) {
        (Some(parent), Some(array)) => (
            quote!(::squillion::bson::doc! { #(#clauses),* }),
            quote!(::squillion::__private::query::children(self.collection(), ::squillion::bson::doc! { #parent }, #array, filter, #sort, #limit, #collation).await),
        ),
        (parent, _) => {
            let parent = parent.iter();
            (
                quote!(::squillion::bson::doc! { #(#parent,)* #(#clauses),* }),
                if online {
                    quote!(::squillion::__private::online_reads::run(self.core(), filter, #sort, #limit, #collation).await)
                } else if let Some(d) = versioned {
                    quote!(::squillion::__private::checked_reads::run::<#d, _>(self.collection(), filter, #sort, #limit, #collation, #projection).await)
                } else {
                    quote!(::squillion::__private::query::run(#borrowed, filter, #sort, #limit, #collation, #projection).await)
                },
            )
        }
    };
    let count_run = match (&parent, q.children.as_ref().and_then(|c| c.array.as_ref())) {
        (Some(parent), Some(array)) => quote! {
            let filter = ::squillion::bson::doc! { #(#count_clauses),* };
            ::squillion::__private::query::count_children(self.collection(), ::squillion::bson::doc! { #parent }, #array, filter, #collation).await
        },
        (parent, _) => {
            let parent = parent.iter();
            let count = if online {
                quote!(::squillion::__private::online_reads::count(self.core(), filter, #collation).await)
            } else {
                quote!(::squillion::__private::query::count(self.collection(), filter, #collation).await)
            };
            quote! {
                let filter = ::squillion::bson::doc! { #(#parent,)* #(#count_clauses),* };
                #count
            }
        }
    };
    let main = if q.limit == Some(1) {
        quote! {
            #doc
            pub async fn #name(&self, #(#args),*) -> ::squillion::Result<::std::option::Option<#ty>> {
                let filter = #filter;
                ::std::result::Result::Ok(#run?.into_iter().next())
            }
        }
    } else {
        quote! {
            #doc
            pub async fn #name(&self, #(#args),*) -> ::squillion::Result<::std::vec::Vec<#ty>> {
                let filter = #filter;
                #run
            }
        }
    };
    let mut out = vec![main];
    let (paged, streamed) = (order_words(q, true), order_words(q, false));
    let count_name = count_name(q);
    for extra in &names[1..] {
        let method = field_ident(extra);
        if *extra == count_name {
            let doc = super::docs_of(&[], &[count_words(q)]);
            out.push(quote! {
                #doc
                pub async fn #method(&self, #(#args),*) -> ::squillion::Result<u64> {
                    #count_run
                }
            });
        } else if extra.ends_with("_page") {
            let after = free_param("after", &used);
            let per_page = free_param("per_page", &used);
            let doc = super::docs_of(
                &[],
                &[
                    format!(
                        "Query `{}`, one page at a time: at most `{per_page}` documents {paged}, \
                         starting after `{after}` (`None`: the first page). Keyset paging (each page \
                         starts after the last document of the one before, never skipping), so \
                         every page costs the same and no document is repeated or dropped when \
                         others come or go; the page's `next` is the cursor of the page after it, \
                         `None` on the last.",
                        q.name
                    ),
                ],
            );
            let (after, per_page) = (field_ident(&after), field_ident(&per_page));
            let read = if online {
                quote!(::squillion::__private::online_reads::page(self.core(), filter, #sort, #collation, #after, #per_page).await)
            } else if let Some(d) = versioned {
                quote!(::squillion::__private::checked_reads::page::<#d, _>(self.collection(), filter, #sort, #collation, #after, #per_page, #projection).await)
            } else {
                quote!(::squillion::__private::paging::page(#borrowed, filter, #sort, #collation, #after, #per_page, #projection).await)
            };
            out.push(quote! {
                #doc
                pub async fn #method(
                    &self,
                    #(#args,)*
                    #after: ::std::option::Option<&::squillion::PageCursor>,
                    #per_page: u32,
                ) -> ::squillion::Result<::squillion::CursorPage<#ty>> {
                    let filter = #filter;
                    #read
                }
            });
        } else {
            let doc = super::docs_of(
                &[],
                &[format!(
                    "Query `{}` as a stream: the documents {streamed}, read from one server cursor \
                     as they are consumed (for results too large to collect).",
                    q.name
                )],
            );
            let read = if online {
                quote!(::squillion::__private::online_reads::stream(self.core().clone(), filter, #sort, #limit, #collation))
            } else if let Some(d) = versioned {
                quote!(::squillion::__private::checked_reads::stream::<#d, _>(self.collection().clone(), filter, #sort, #limit, #collation, #projection))
            } else {
                quote!(::squillion::__private::paging::stream(#collection, filter, #sort, #limit, #collation, #projection))
            };
            out.push(quote! {
                #doc
                pub fn #method(
                    &self,
                    #(#args),*
                ) -> impl ::squillion::__private::futures::Stream<Item = ::squillion::Result<#ty>> + ::std::marker::Send + 'static {
                    let filter = #filter;
                    #read
                }
            });
        }
    }
    quote!(#(#out)*)
}

/// The repository methods query `q` becomes: its own name; `<name>_page` (keyset pages) and
/// `<name>_stream` when it has no limit; `<name>_stream` when its limit is above 1 (a `limit 1`
/// query returns an `Option`); always `count_<name>` last ([`count_name`]). The clash check
/// (`clashes.rs`) knows them by this function.
pub(crate) fn method_names(q: &QueryPlan) -> Vec<String> {
    let (name, stem) = name_and_stem(q);
    let mut names = match q.limit {
        // A query on a parent's children reads one parent's: a list, whatever the layout.
        _ if q.children.is_some() => vec![name.clone()],
        Some(1) => vec![name.clone()],
        Some(_) => vec![name.clone(), format!("{stem}_stream")],
        None => vec![
            name.clone(),
            format!("{stem}_page"),
            format!("{stem}_stream"),
        ],
    };
    names.push(count_name(q));
    names
}

/// `count_<name>`: how many documents (or children) query `q` matches.
fn count_name(q: &QueryPlan) -> String {
    format!("count_{}", name_and_stem(q).1)
}

/// The query's method name (without `r#`) and the stem its other methods are named from:
/// `self_` (a query named `self`) pages as `self_page`, not `self__page`.
fn name_and_stem(q: &QueryPlan) -> (String, String) {
    let name = field_ident(&q.name).to_string();
    let name = name.trim_start_matches("r#").to_owned();
    let stem = match name.trim_end_matches('_') {
        "" => name.clone(),
        s => s.to_owned(),
    };
    (name, stem)
}

/// What `count_<name>` counts: the query's filter on the server, its `limit` (if any) left out.
fn count_words(q: &QueryPlan) -> String {
    let mut words = match &q.children {
        Some(ch) => match &ch.array {
            Some(array) => format!(
                "How many of the `{array}` of the one `{}` given by `{}` query `{}` matches (an aggregation ending in `$count`)",
                ch.parent, ch.parent_param, q.name
            ),
            None => format!(
                "How many documents of `{}` whose `{}` is the one `{}` given by `{}` query `{}` matches (`countDocuments` with its filter)",
                q.collection, ch.parent_path, ch.parent, ch.parent_param, q.name
            ),
        },
        None => format!(
            "How many documents of `{}` query `{}` matches (`countDocuments` with its filter)",
            q.collection, q.name
        ),
    };
    if let Some(n) = q.limit {
        words.push_str(&format!(
            ", all of them: its `limit {n}` is left out, so this is the total the first {n} are out of"
        ));
    }
    if q.conditions.iter().any(|c| c.op == QueryOp::Near) {
        words.push_str(
            "; `near` counts the points within the distance (`$geoWithin` a circle on the sphere: `$near` cannot be counted)",
        );
    }
    words.push('.');
    words
}

/// "in the query's order (`price` descending, then `_id`)", from the Plan's sort keys (a sorted
/// query's end with `_id`, which breaks ties); `by_id`: pages, which read an unsorted query by
/// `_id` too.
fn order_words(q: &QueryPlan, by_id: bool) -> String {
    let mut keys: Vec<String> = q
        .sort
        .iter()
        .map(|k| {
            let dir = if k.direction < 0 {
                "descending"
            } else {
                "ascending"
            };
            format!("`{}` {dir}", k.path)
        })
        .collect();
    if by_id && !q.sort.iter().any(|k| k.path == "_id") {
        keys.push("`_id`".to_owned());
    }
    if keys.is_empty() {
        return "in the server's order (the query declares no sort)".to_owned();
    }
    format!("in the query's order ({})", keys.join(", then "))
}

/// `name`, or `name_`, `name__`, ... when a condition's parameter already has it.
fn free_param(name: &str, used: &[String]) -> String {
    let mut n = name.to_owned();
    while used.contains(&n) {
        n.push('_');
    }
    n
}

/// The parameter as a value `doc!` converts: strings as they are, `Copy` types dereferenced,
/// others cloned.
fn value(c: &QueryCondition, p: &Ident) -> TokenStream {
    match c.bson_type.as_str() {
        "string" => quote!(#p),
        "int" | "long" | "double" | "bool" | "objectId" | "date" | "timestamp" | "decimal" => {
            quote!(*#p)
        }
        _ => quote!(#p.clone()),
    }
}

/// How `has` conditions on the `@attributes` map stored at `path` are sent.
fn attribute_words(path: &str, count: usize) -> String {
    if count == 1 {
        format!(
            "Finds the documents with an attribute in `{path}` (stored as `[{{k, v}}]`) whose key \
             and value match, with `$elemMatch`: the key and the value are compared in one element."
        )
    } else {
        format!(
            "Finds the documents with {count} attributes in `{path}` (stored as `[{{k, v}}]`), \
             each key and value matched in one element (`$all` of {count} `$elemMatch`)."
        )
    }
}

/// "The `comments` of one `Post` (given by `post`), read from the array `comments` of its
/// document." - where a query on a parent's children finds them.
fn children_words(q: &QueryPlan, ch: &ChildrenPlan) -> String {
    let whose = format!(
        "Reads `{}` of the one `{}` whose id is `{}`",
        ch.relation, ch.parent, ch.parent_param
    );
    match &ch.array {
        Some(array) if ch.parent_path == "_id" => format!(
            "{whose}: the elements of its document's `{array}` that match (an aggregation on its `_id`)."
        ),
        Some(array) => format!(
            "{whose}: the elements of `{array}` that match, in its buckets in `{}` (an aggregation on `{}`).",
            q.collection, ch.parent_path
        ),
        None => format!(
            "{whose}: the documents of `{}` that match and whose `{}` references it.",
            q.collection, ch.parent_path
        ),
    }
}

/// The value of an id parameter `p` of BSON type `bson` as `doc!` converts it.
fn scalar_value(bson: &str, p: &Ident) -> TokenStream {
    match bson {
        "string" => quote!(#p),
        "int" | "long" | "double" | "bool" | "objectId" | "date" | "timestamp" | "decimal" => {
            quote!(*#p)
        }
        _ => quote!(#p.clone()),
    }
}

/// The parameter type of an id of BSON type `bson`: `&str` for strings, `&T` otherwise.
fn id_param_type(bson: &str) -> TokenStream {
    match bson {
        "string" => quote!(&str),
        other => {
            let t = super::scalar_type(other);
            quote!(&#t)
        }
    }
}

/// The parameter type for a compared value: `&str` for strings, `&T` otherwise.
fn param_type(c: &QueryCondition) -> TokenStream {
    match c.bson_type.as_str() {
        "string" if c.op != QueryOp::In => quote!(&str),
        other => {
            let t = super::scalar_type(other);
            if c.op == QueryOp::In {
                t
            } else {
                quote!(&#t)
            }
        }
    }
}
