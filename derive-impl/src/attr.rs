//! Reading `#[squillion(...)]` (and the `#[serde(...)]` renames that decide BSON names) into plain
//! declarations. Unknown keys and malformed values are recorded in the [`Ctxt`] and reading goes
//! on, so one compile shows every mistake of the item.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Ident, LitInt, LitStr, Token};

use crate::ctxt::Ctxt;

/// Key kinds of an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Asc,
    Desc,
    Text,
    Hashed,
    Sphere2d,
}

/// `index(...)`, on the container or a field.
#[derive(Clone, Debug, Default)]
pub struct IndexDecl {
    pub name: Option<String>,
    pub keys: Vec<(String, KeyKind)>,
    pub unique: bool,
    pub sparse: bool,
    pub ttl: Option<u64>,
    pub partial: Option<String>,
    pub collation: Option<(String, i32)>,
    /// Field-level: descending.
    pub desc: bool,
}

/// `queue(...)`.
pub struct QueueDecl {
    pub priority: Ident,
    pub in_progress: Ident,
    pub started: Ident,
    pub done: Option<Ident>,
}

/// `tree(...)`.
pub struct TreeDecl {
    pub parent: Ident,
    pub ancestors: Ident,
}

/// `versioned(...)`.
pub struct VersionedDecl {
    pub key: Ident,
    pub version: Ident,
    pub valid_from: Ident,
    pub valid_to: Ident,
}

/// `link(left = Type, right = Type)`.
pub struct LinkDecl {
    pub ends: Vec<(Ident, syn::Path)>,
}

/// How the collection's validator is made.
pub enum ValidatorDecl {
    /// `$jsonSchema` derived from the fields (the default).
    Derived,
    /// `validator = path::to::fn` returning the validator document.
    Custom(syn::Path),
    /// `validator = false`.
    Off,
}

/// Container attributes.
pub struct ContainerAttrs {
    pub collection: Option<LitStr>,
    pub schema_version: Option<(i64, Span)>,
    pub min_schema_version: Option<(i64, Span)>,
    pub indexes: Vec<(IndexDecl, Span)>,
    pub validator: ValidatorDecl,
    pub queue: Option<QueueDecl>,
    pub tree: Option<TreeDecl>,
    pub versioned: Option<VersionedDecl>,
    pub link: Option<LinkDecl>,
    /// `implied_indexes = false`: the declared `index(...)` list is the whole list; the layouts
    /// add none (generated code: the Plan's list is the one source of truth).
    pub implied_indexes: bool,
    pub serde_rename_all: Option<String>,
}

/// A relationship layout of a field.
pub enum Layout {
    Embed {
        max: Option<(u64, Span)>,
        /// Paths, in each element, of values no two elements may share (`unique("code")`).
        unique: Vec<String>,
        unique_span: Option<Span>,
    },
    ParentRefs {
        to: syn::Path,
        max: Option<(u64, Span)>,
        fields: Vec<String>,
    },
    ChildRef {
        to: syn::Path,
        /// The order `find_by_<f>` pages in (`order(placed_at = -1)`), before `_id`.
        order: Vec<(String, KeyKind)>,
        /// For an extended reference (a struct holding the id and copies): the id's field in it
        /// (`id = "id"`); `find_by_<f>` then takes the parent's id.
        id: Option<String>,
    },
    TwoWay {
        to: syn::Path,
        max: Option<(u64, Span)>,
        inverse: String,
        inverse_max: Option<u64>,
    },
    Subset {
        to: syn::Path,
        n: u64,
        sort: String,
        desc: bool,
        keep: Vec<String>,
        /// Path, in each child, of its parent's id: the subset is refilled from the children.
        key: Option<String>,
    },
    Top {
        n: u64,
        sort: String,
        desc: bool,
        /// The children's type, whose collection the list is refilled from (with `key`).
        to: Option<syn::Path>,
        keep: Vec<String>,
        /// Path, in each child, of its parent's id.
        key: Option<String>,
    },
    Bucket {
        size: u64,
        keys: Vec<Ident>,
        count: Option<Ident>,
        start: Option<Ident>,
        end: Option<Ident>,
        /// Pages newest first.
        desc: bool,
        /// Paths, in each child, of values no two children of one bucket may share.
        unique: Vec<String>,
    },
    Outlier {
        max: u64,
        flag: Ident,
        overflow: String,
        chunk: u64,
    },
}

impl Layout {
    /// The attribute's name.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Embed { .. } => "embed",
            Layout::ParentRefs { .. } => "parent_refs",
            Layout::ChildRef { .. } => "child_ref",
            Layout::TwoWay { .. } => "two_way",
            Layout::Subset { .. } => "subset",
            Layout::Top { .. } => "top",
            Layout::Bucket { .. } => "bucket",
            Layout::Outlier { .. } => "outlier",
        }
    }
}

/// A summary a field keeps.
#[derive(Clone, Debug)]
pub enum SummaryDecl {
    Count,
    Sum(String),
    Max(String),
    Min(String),
}

/// `computed(...)`.
pub struct ComputedDecl {
    pub span: Span,
    pub summary: SummaryDecl,
    pub of: Option<Ident>,
}

/// `fan_out(to = Type, by = "path", copy = "path", array = "path")`.
pub struct FanOutDecl {
    pub span: Span,
    pub to: syn::Path,
    pub by: String,
    pub copy: String,
    pub array: Option<String>,
}

/// `inner(path = "a.b", name = a_b, ty = Type, counter)`: a field inside an embedded subdocument,
/// set (and, for numbers, incremented) in place.
pub struct InnerDecl {
    /// Its path below the field.
    pub path: String,
    /// The method suffix after the field's name (`set_<field>_<name>`).
    pub name: String,
    pub ty: syn::Type,
    pub counter: bool,
}

/// `inner_array(path = "items", name = items, elem = Type, max = N, key = "sku", key_ty = Type)`:
/// a bounded array inside an embedded subdocument, its elements pushed (bound checked), replaced
/// and removed by their key.
pub struct InnerArrayDecl {
    pub path: String,
    pub name: String,
    pub elem: syn::Type,
    pub max: u64,
    /// The element's key (its path in the element) and the key's type.
    pub key: Option<(String, syn::Type)>,
}

/// Validation facts of a field.
#[derive(Default)]
pub struct Facts {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub one_of: Vec<String>,
}

/// Field attributes.
#[derive(Default)]
pub struct FieldAttrs {
    pub id: Option<Span>,
    pub layout: Option<(Layout, Span)>,
    pub computed: Option<ComputedDecl>,
    pub index: Option<(IndexDecl, Span)>,
    pub facts: Facts,
    pub fan_out: Vec<FanOutDecl>,
    /// `counter`: a number changed by increments and guarded decrements (`dec_<f>`).
    pub counter: Option<Span>,
    /// `maintained`: the repository's other operations write this field (a summary, a copy, a
    /// pattern's field): no setter.
    pub maintained: Option<Span>,
    /// `inner(...)`: fields inside an embedded subdocument.
    pub inner: Vec<InnerDecl>,
    /// `inner_array(...)`: bounded arrays inside an embedded subdocument.
    pub inner_arrays: Vec<InnerArrayDecl>,
    pub denormalized_from: Option<String>,
    pub serde_rename: Option<String>,
    pub serde_default: bool,
    pub serde_skip: bool,
    pub serde_flatten: bool,
    pub serde_skip_if: bool,
}

const CONTAINER_KEYS: &str = "collection, schema_version, min_schema_version, index, implied_indexes, validator, queue, tree, versioned, link";
const FIELD_KEYS: &str = "id, embed, parent_refs, child_ref, two_way, subset, top, bucket, outlier, computed, index, unique, fan_out, denormalized, counter, maintained, inner, inner_array, minimum, maximum, min_length, max_length, pattern, one_of";

/// Skips the value of a key we reported as unknown (`= expr` or `(...)`), so reading goes on.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: proc_macro2::TokenStream = _content.parse()?;
    }
    Ok(())
}

fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        })
}

fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

fn lit_u64(meta: &ParseNestedMeta<'_>) -> syn::Result<(u64, Span)> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

fn lit_i64(meta: &ParseNestedMeta<'_>) -> syn::Result<(i64, Span)> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

fn lit_f64(meta: &ParseNestedMeta<'_>) -> syn::Result<f64> {
    let input = meta.value()?;
    let neg = input.peek(Token![-]);
    if neg {
        let _: Token![-] = input.parse()?;
    }
    let lit: syn::Lit = input.parse()?;
    let v = match &lit {
        syn::Lit::Int(i) => i.base10_parse::<f64>()?,
        syn::Lit::Float(f) => f.base10_parse::<f64>()?,
        other => return Err(syn::Error::new(other.span(), "expected a number")),
    };
    Ok(if neg { -v } else { v })
}

fn path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    meta.value()?.parse()
}

fn ident_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Ident> {
    let input = meta.value()?;
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        return s.parse();
    }
    input.parse()
}

/// A name given as an identifier or a string (`sort = time` or `sort = "time.at"`).
fn name_value(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    let input = meta.value()?;
    name_of(input)
}

fn name_of(input: ParseStream<'_>) -> syn::Result<String> {
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        if s.value().is_empty() {
            return Err(syn::Error::new(
                s.span(),
                "expected a field name, found an empty string",
            ));
        }
        Ok(s.value())
    } else {
        let i: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        Ok(i.to_string())
    }
}

/// `(a, b, "c.d")`: a list of names.
fn name_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let names = content.parse_terminated(name_of, Token![,])?;
    Ok(names.into_iter().collect())
}

/// `keys(a, b = -1, "c.d" = 1, e = "text", f = desc)`.
fn index_keys(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(String, KeyKind)>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let keys = content.parse_terminated(
        |input: ParseStream<'_>| {
            let name = name_of(input)?;
            let mut kind = KeyKind::Asc;
            if input.peek(Token![=]) {
                let _: Token![=] = input.parse()?;
                kind = key_kind(input)?;
            }
            Ok((name, kind))
        },
        Token![,],
    )?;
    Ok(keys.into_iter().collect())
}

fn key_kind(input: ParseStream<'_>) -> syn::Result<KeyKind> {
    if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        let one: LitInt = input.parse()?;
        if one.base10_digits() == "1" {
            return Ok(KeyKind::Desc);
        }
        return Err(syn::Error::new(minus.span, "an index direction is 1 or -1"));
    }
    if input.peek(LitInt) {
        let one: LitInt = input.parse()?;
        if one.base10_digits() == "1" {
            return Ok(KeyKind::Asc);
        }
        return Err(syn::Error::new(one.span(), "an index direction is 1 or -1"));
    }
    let (word, span) = if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        (s.value(), s.span())
    } else {
        let i: Ident = input.parse()?;
        (i.to_string(), i.span())
    };
    match word.as_str() {
        "asc" => Ok(KeyKind::Asc),
        "desc" => Ok(KeyKind::Desc),
        "text" => Ok(KeyKind::Text),
        "hashed" => Ok(KeyKind::Hashed),
        "2dsphere" => Ok(KeyKind::Sphere2d),
        _ => Err(syn::Error::new(
            span,
            format!("unknown index key kind `{word}`; expected 1, -1, asc, desc, \"text\", \"hashed\" or \"2dsphere\""),
        )),
    }
}

/// The options of `index(...)` (container or field level); `keys` only on the container.
fn index_decl(meta: &ParseNestedMeta<'_>, cx: &Ctxt, container: bool) -> syn::Result<IndexDecl> {
    let mut decl = IndexDecl::default();
    if !meta.input.peek(syn::token::Paren) {
        return Ok(decl);
    }
    meta.parse_nested_meta(|m| {
        let key = key_name(&m);
        match key.as_str() {
            "keys" if container => decl.keys = index_keys(&m)?,
            "name" => decl.name = Some(lit_str(&m)?.value()),
            "unique" => decl.unique = true,
            "sparse" => decl.sparse = true,
            "desc" if !container => decl.desc = true,
            "asc" if !container => decl.desc = false,
            "ttl" | "expire_after_seconds" => decl.ttl = Some(lit_u64(&m)?.0),
            "partial" => {
                let s = lit_str(&m)?;
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&s.value())
                    .map_err(|e| e.to_string())
                    .and_then(|v| {
                        if v.is_object() {
                            Ok(())
                        } else {
                            Err("expected a JSON object".to_owned())
                        }
                    })
                {
                    cx.error_spanned_by(
                        &s,
                        format!(
                            "`partial` must be a JSON object (the partial filter expression): {e}"
                        ),
                    );
                }
                decl.partial = Some(s.value());
            }
            "collation" => {
                let mut locale = None;
                let mut strength = None;
                m.parse_nested_meta(|c| {
                    match key_name(&c).as_str() {
                        "locale" => locale = Some(lit_str(&c)?.value()),
                        "strength" => {
                            let (s, span) = lit_i64(&c)?;
                            if !(1..=5).contains(&s) {
                                cx.error_at(
                                    span,
                                    "collation strength is 1 to 5 (2: case-insensitive)",
                                );
                            }
                            strength = Some(s as i32);
                        }
                        other => {
                            cx.error_spanned_by(
                                &c.path,
                                format!(
                                    "unknown collation option `{other}`; expected locale, strength"
                                ),
                            );
                            skip_value(&c)?;
                        }
                    }
                    Ok(())
                })?;
                decl.collation = Some((
                    locale.unwrap_or_else(|| "en".to_owned()),
                    strength.unwrap_or(2),
                ));
            }
            other => {
                let expected = if container {
                    "keys, name, unique, sparse, ttl, partial, collation"
                } else {
                    "name, unique, sparse, asc, desc, ttl, partial, collation"
                };
                cx.error_spanned_by(
                    &m.path,
                    format!("unknown index option `{other}`; expected one of: {expected}"),
                );
                skip_value(&m)?;
            }
        }
        Ok(())
    })?;
    if decl.sparse && decl.partial.is_some() {
        cx.error_spanned_by(&meta.path, "an index cannot be both `sparse` and `partial` (MongoDB refuses the combination); a partial filter like `{\"field\": {\"$exists\": true}}` already skips documents without the field");
    }
    if container && decl.keys.is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "an index needs its keys: `index(keys(field, other = -1))`",
        );
    }
    Ok(decl)
}

/// Reads the container's attributes.
pub fn container(cx: &Ctxt, input: &syn::DeriveInput) -> ContainerAttrs {
    let mut out = ContainerAttrs {
        collection: None,
        schema_version: None,
        min_schema_version: None,
        indexes: Vec::new(),
        validator: ValidatorDecl::Derived,
        queue: None,
        tree: None,
        versioned: None,
        link: None,
        implied_indexes: true,
        serde_rename_all: None,
    };
    for attr in &input.attrs {
        if attr.path().is_ident("serde") {
            let _ = attr.parse_nested_meta(|m| {
                if m.path.is_ident("rename_all") {
                    if let Ok(s) = lit_str(&m) {
                        out.serde_rename_all = Some(s.value());
                    }
                } else {
                    let _ = skip_value(&m);
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
            match key.as_str() {
                "collection" => {
                    let s = lit_str(&meta)?;
                    if s.value().is_empty() || s.value().contains('$') || s.value().contains('\0') {
                        cx.error_spanned_by(&s, "a collection name is non-empty and contains neither `$` nor NUL");
                    }
                    out.collection = Some(s);
                }
                "schema_version" => {
                    let v = lit_i64(&meta)?;
                    if v.0 < 1 {
                        cx.error_at(v.1, "schema_version starts at 1");
                    }
                    out.schema_version = Some(v);
                }
                "min_schema_version" => out.min_schema_version = Some(lit_i64(&meta)?),
                "index" => {
                    let span = meta.path.span();
                    out.indexes.push((index_decl(&meta, cx, true)?, span));
                }
                "implied_indexes" => {
                    let b: syn::LitBool = meta.value()?.parse()?;
                    out.implied_indexes = b.value;
                }
                "validator" => {
                    let input = meta.value()?;
                    if input.peek(syn::LitBool) {
                        let b: syn::LitBool = input.parse()?;
                        out.validator = if b.value { ValidatorDecl::Derived } else { ValidatorDecl::Off };
                    } else {
                        out.validator = ValidatorDecl::Custom(input.parse()?);
                    }
                }
                "queue" => {
                    let span = meta.path.span();
                    let mut d = QueueDecl {
                        priority: Ident::new("priority", span),
                        in_progress: Ident::new("in_progress", span),
                        started: Ident::new("started", span),
                        done: None,
                    };
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "priority" => d.priority = ident_value(&m)?,
                                "in_progress" => d.in_progress = ident_value(&m)?,
                                "started" => d.started = ident_value(&m)?,
                                "done" => d.done = Some(ident_value(&m)?),
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown queue option `{other}`; expected priority, in_progress, started, done"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    out.queue = Some(d);
                }
                "tree" => {
                    let span = meta.path.span();
                    let mut d = TreeDecl {
                        parent: Ident::new("parent", span),
                        ancestors: Ident::new("ancestors", span),
                    };
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "parent" => d.parent = ident_value(&m)?,
                                "ancestors" => d.ancestors = ident_value(&m)?,
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown tree option `{other}`; expected parent, ancestors"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    out.tree = Some(d);
                }
                "versioned" => {
                    let span = meta.path.span();
                    let mut d = VersionedDecl {
                        key: Ident::new("document_id", span),
                        version: Ident::new("version", span),
                        valid_from: Ident::new("valid_from", span),
                        valid_to: Ident::new("valid_to", span),
                    };
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "key" => d.key = ident_value(&m)?,
                                "version" => d.version = ident_value(&m)?,
                                "valid_from" => d.valid_from = ident_value(&m)?,
                                "valid_to" => d.valid_to = ident_value(&m)?,
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown versioned option `{other}`; expected key, version, valid_from, valid_to"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    out.versioned = Some(d);
                }
                "link" => {
                    let span = meta.path.span();
                    let mut ends = Vec::new();
                    meta.parse_nested_meta(|m| {
                        match m.path.get_ident() {
                            Some(field) => ends.push((field.clone(), path_value(&m)?)),
                            None => {
                                cx.error_spanned_by(&m.path, "expected `field = Type`");
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    if ends.len() != 2 {
                        cx.error_at(span, "a link names its two ends: `link(user = User, group = Group)`");
                    }
                    out.link = Some(LinkDecl { ends });
                }
                other => {
                    cx.error_spanned_by(&meta.path, format!("unknown squillion container attribute `{other}`; expected one of: {CONTAINER_KEYS}"));
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
                    if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                            match key_name(&m).as_str() {
                                "max" => max = Some(relation_max(&m, cx)?),
                                "unique" => {
                                    unique_span = Some(m.path.span());
                                    unique = name_list(&m)?;
                                }
                                other => {
                                    cx.error_spanned_by(&m.path, format!("unknown embed option `{other}`; expected max, unique"));
                                    skip_value(&m)?;
                                }
                            }
                            Ok(())
                        })?;
                    }
                    set_layout(&mut out.layout, cx, span, Layout::Embed { max, unique, unique_span });
                }
                "parent_refs" | "child_ref" | "two_way" | "subset" => {
                    let mut to = None;
                    let mut max = None;
                    let mut fields = Vec::new();
                    let mut inverse = None;
                    let mut inverse_max = None;
                    let mut n = None;
                    let mut sort = None;
                    let mut desc = false;
                    let mut order = Vec::new();
                    let mut id = None;
                    let mut key_path = None;
                    let allowed: &[&str] = match key.as_str() {
                        "parent_refs" => &["to", "max", "fields"],
                        "child_ref" => &["to", "order", "id"],
                        "two_way" => &["to", "max", "inverse", "inverse_max"],
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
                        "parent_refs" => set_layout(&mut out.layout, cx, span, Layout::ParentRefs { to, max, fields }),
                        "child_ref" => {
                            if order.iter().any(|(_, k)| !matches!(k, KeyKind::Asc | KeyKind::Desc)) {
                                cx.error_at(span, "`child_ref(order(...))` sorts children: each key is 1 or -1");
                            }
                            set_layout(&mut out.layout, cx, span, Layout::ChildRef { to, order, id })
                        }
                        "two_way" => match inverse {
                            Some(inverse) => set_layout(&mut out.layout, cx, span, Layout::TwoWay { to, max, inverse, inverse_max }),
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
                    let mut unique = Vec::new();
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "size" => size = Some(relation_max(&m, cx)?.0),
                            "unique" => unique = name_list(&m)?,
                            "key" => keys.push(ident_value(&m)?),
                            "count" => count = Some(ident_value(&m)?),
                            "start" => start = Some(ident_value(&m)?),
                            "end" => end = Some(ident_value(&m)?),
                            "desc" => desc = true,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown bucket option `{other}`; expected size, key, count, start, end, desc, unique"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match size {
                        Some(size) if !keys.is_empty() => set_layout(&mut out.layout, cx, span, Layout::Bucket { size, keys, count, start, end, desc, unique }),
                        _ => cx.error_at(span, "`bucket` needs `size = N` (children per bucket) and `key = field` (the owner's reference)"),
                    }
                }
                "outlier" => {
                    let mut max = None;
                    let mut flag = None;
                    let mut overflow = None;
                    let mut chunk = 500;
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "max" => max = Some(relation_max(&m, cx)?.0),
                            "flag" => flag = Some(ident_value(&m)?),
                            "overflow" => overflow = Some(lit_str(&m)?.value()),
                            "chunk" => chunk = relation_max(&m, cx)?.0,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown outlier option `{other}`; expected max, flag, overflow, chunk"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (max, flag, overflow) {
                        (Some(max), Some(flag), Some(overflow)) => set_layout(&mut out.layout, cx, span, Layout::Outlier { max, flag, overflow, chunk }),
                        _ => cx.error_at(span, "`outlier` needs `max = N`, `flag = field` and `overflow = \"collection\"`"),
                    }
                }
                "computed" => {
                    let mut summary = None;
                    let mut of = None;
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "count" => summary = Some(SummaryDecl::Count),
                            "sum" => summary = Some(SummaryDecl::Sum(name_value(&m)?)),
                            "max" => summary = Some(SummaryDecl::Max(name_value(&m)?)),
                            "min" => summary = Some(SummaryDecl::Min(name_value(&m)?)),
                            "of" => of = Some(ident_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown computed option `{other}`; expected count, sum, max, min, of"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match summary {
                        Some(summary) => out.computed = Some(ComputedDecl { span, summary, of }),
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
                "maintained" => out.maintained = Some(span),
                "inner" => {
                    let (mut path, mut name, mut ty, mut counter) = (None, None, None, false);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "path" => path = Some(name_value(&m)?),
                            "name" => name = Some(name_value(&m)?),
                            "ty" => ty = Some(m.value()?.parse::<syn::Type>()?),
                            "counter" => counter = true,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown inner option `{other}`; expected path, name, ty, counter"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (path, name, ty) {
                        (Some(path), Some(name), Some(ty)) => out.inner.push(InnerDecl { path, name, ty, counter }),
                        _ => cx.error_at(span, "`inner` needs `path = \"path below the field\"`, `name = method_suffix` and `ty = Type`"),
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
