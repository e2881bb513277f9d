//! The container attributes: collection, schema version, indexes, validator, patterns, links.

use syn::spanned::Spanned;

use crate::ctxt::Ctxt;

use super::values::*;
use super::*;

const CONTAINER_KEYS: &str = "collection, schema_version, min_schema_version, index, implied_indexes, validator, queue, tree, versioned, history, archive, link, kept_by, copy_of, upgrade";

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
        history: None,
        archive: None,
        link: None,
        kept_by: Vec::new(),
        copy_of: Vec::new(),
        upgrades: Vec::new(),
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
                "history" => {
                    let span = meta.path.span();
                    let mut to = None;
                    let mut version = Ident::new("version", span);
                    let mut key = "document_id".to_owned();
                    let mut archived_at = "archived_at".to_owned();
                    let options = if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "to" => to = Some(path_value(&m)?),
                            "version" => version = ident_value(&m)?,
                            "key" => key = name_value(&m)?,
                            "archived_at" => archived_at = name_value(&m)?,
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown history option `{other}`; expected to, version, key, archived_at"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                        })
                    } else {
                        Ok(())
                    };
                    options?;
                    match to {
                        Some(to) => out.history = Some(HistoryDecl { to, version, key, archived_at }),
                        None => cx.error_at(span, "`history` names the type of the earlier versions: `history(to = ContractVersion)`"),
                    }
                }
                "archive" => out.archive = Some(meta.path.span()),
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
                "kept_by" => {
                    let span = meta.path.span();
                    let (mut to, mut key) = (None, None);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "to" => to = Some(path_value(&m)?),
                            "key" => key = Some(name_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown kept_by option `{other}`; expected to, key"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (to, key) {
                        (Some(to), Some(key)) => out.kept_by.push(KeptByDecl { to, key }),
                        _ => cx.error_at(span, "`kept_by` names the parent type and the reference to it: `kept_by(to = Post, key = \"post\")`"),
                    }
                }
                "copy_of" => {
                    let span = meta.path.span();
                    let (mut from, mut source, mut by, mut copy) = (None, None, None, None);
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "from" => from = Some(path_value(&m)?),
                            "source" => source = Some(name_value(&m)?),
                            "by" => by = Some(name_value(&m)?),
                            "copy" => copy = Some(name_value(&m)?),
                            other => {
                                cx.error_spanned_by(&m.path, format!("unknown copy_of option `{other}`; expected from, source, by, copy"));
                                skip_value(&m)?;
                            }
                        }
                        Ok(())
                    })?;
                    match (from, source, by, copy) {
                        (Some(from), Some(source), Some(by), Some(copy)) => {
                            let parent = |p: &str| p.rsplit_once('.').map(|(head, _)| head.to_owned());
                            if parent(&by).is_none() || parent(&by) != parent(&copy) {
                                cx.error_at(span, "`copy_of`'s `by` and `copy` name the id and the copy side by side in one reference: `by = \"author.id\", copy = \"author.name\"`");
                            } else {
                                out.copy_of.push(CopyOfDecl { from, source, by, copy });
                            }
                        }
                        _ => cx.error_at(span, "`copy_of` names the source type and field and where the reference holds its id and the copy: `copy_of(from = Author, source = \"name\", by = \"author.id\", copy = \"author.name\")`"),
                    }
                }
                "upgrade" => {
                    if let Some(u) = super::upgrade::upgrade(cx, &meta)? {
                        out.upgrades.push(u);
                    }
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
