//! Completion: keywords where a statement starts, attributes after `@`, types after a field's
//! `:`, cardinalities after a relation end's `:`, units after a number, and the names of the
//! file's entities, value types and fields where a fact or a query names them. The words come
//! from the grammar ([`squillion_grammar::keywords`]) and the resolver
//! ([`squillion_codegen::resolve::vocabulary`]); the names from the last text that parsed.

use lsp_types::{CompletionItem, CompletionItemKind, CompletionTextEdit, TextEdit};
use squillion_codegen::resolve::vocabulary as words;
use squillion_grammar::Span;

use crate::context::{self, Block, Context, Token};
use crate::symbols::{Kind, Symbols};
use crate::text::Text;

/// Characters that open a completion by themselves (not space: a list after every space of a
/// body would be noise; clients ask anyway as a word is typed).
pub const TRIGGERS: &[char] = &['@', '.', ':'];

/// Keywords that start a top-level declaration.
pub const DECLARATIONS: &[&str] = &["settings", "value", "entity", "relation", "query"];
/// Keywords of a relation's body: the facts, and the words inside them.
pub const FACTS: &[&str] = &[
    "standalone",
    "show",
    "navigate",
    "growth",
    "atomic_move",
    "page",
    "latest",
    "top",
    "summary",
    "time_range",
    "force",
    "fields",
    "on",
    "ratio",
    "by",
    "keep",
    "window",
    "asc",
    "desc",
];
/// Keywords of a query's body: the clauses, and the words inside them.
pub const CLAUSES: &[&str] = &[
    "where",
    "and",
    "sort",
    "limit",
    "rate",
    "returns",
    "asc",
    "desc",
    "starts_with",
    "between",
    "in",
    "near",
    "within",
    "ignore_case",
    "has",
];
/// Keywords of types.
pub const TYPE_KEYWORDS: &[&str] = &["map", "counters", "one_of"];
/// Keywords inside an entity's body.
pub const ENTITY_BODY: &[&str] = &["variant"];

/// One offer: the word and what it is.
struct Offer {
    label: String,
    kind: CompletionItemKind,
    detail: Option<String>,
}

fn offer(label: &str, kind: CompletionItemKind, detail: Option<&str>) -> Offer {
    Offer {
        label: label.to_owned(),
        kind,
        detail: detail.map(str::to_owned),
    }
}

/// The items to offer at byte `offset` of `text`; names come from `symbols`.
pub fn complete(symbols: &Symbols, text: &Text, offset: usize) -> Vec<CompletionItem> {
    let cx = context::at(text.as_str(), offset);
    let replace = text.range(Span::new(cx.word_start, offset.max(cx.word_start)));
    offers(&cx, symbols)
        .into_iter()
        .map(|o| CompletionItem {
            label: o.label.clone(),
            kind: Some(o.kind),
            detail: o.detail,
            filter_text: Some(o.label.clone()),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(replace, o.label))),
            ..CompletionItem::default()
        })
        .collect()
}

fn keywords(list: &[&str]) -> Vec<Offer> {
    list.iter()
        .map(|k| offer(k, CompletionItemKind::KEYWORD, None))
        .collect()
}

fn plain(list: &[&str], kind: CompletionItemKind) -> Vec<Offer> {
    list.iter().map(|w| offer(w, kind, None)).collect()
}

fn offers(cx: &Context, symbols: &Symbols) -> Vec<Offer> {
    if cx.after_number {
        return units(cx);
    }
    if cx.last() == Some(&Token::Punct("@")) {
        return attributes(cx);
    }
    let block = cx.block().cloned();
    if cx.last() == Some(&Token::Punct(".")) {
        return members_after_dot(cx, symbols, block.as_ref());
    }
    if cx.last() == Some(&Token::Punct(":")) {
        return match block {
            None => plain(&words::cardinalities(), CompletionItemKind::ENUM_MEMBER),
            Some(Block::Relation(_)) | Some(Block::Query(_)) | Some(Block::Settings) => Vec::new(),
            Some(_) => types(symbols),
        };
    }
    if cx.last() == Some(&Token::Punct("<->")) {
        return entities(symbols);
    }
    if cx.group().is_some() {
        return in_group(cx, symbols);
    }
    match block {
        None => top_level(cx, symbols),
        Some(Block::Settings) => words::settings()
            .into_iter()
            .map(|(name, meaning)| offer(name, CompletionItemKind::PROPERTY, Some(meaning)))
            .collect(),
        Some(Block::Entity(_) | Block::Value(_) | Block::Variant | Block::Fields) => {
            keywords(ENTITY_BODY)
        }
        Some(Block::Relation(ends)) => relation_body(cx, symbols, &ends),
        Some(Block::Query(on)) => query_body(cx, symbols, on.as_deref()),
        Some(Block::Group(_)) => Vec::new(),
    }
}

fn top_level(cx: &Context, symbols: &Symbols) -> Vec<Offer> {
    match cx.list_head() {
        Some("relation") => entities(symbols),
        Some("on") if cx.tokens.iter().any(|t| *t == Token::Word("query".into())) => {
            entities(symbols)
        }
        Some("entity" | "value" | "query") => Vec::new(),
        _ if cx.tokens.is_empty() || matches!(cx.last(), Some(Token::Punct("}"))) => {
            keywords(DECLARATIONS)
        }
        _ => {
            let mut all = keywords(DECLARATIONS);
            all.extend(keywords(&["on"]));
            all
        }
    }
}

fn relation_body(cx: &Context, symbols: &Symbols, ends: &[String]) -> Vec<Offer> {
    let ends: Vec<&str> = ends.iter().map(String::as_str).collect();
    match cx.list_head() {
        Some("standalone" | "on" | "show") => entities_of(&ends),
        Some("navigate") => {
            let mut all = entities_of(&ends);
            all.push(offer("both", CompletionItemKind::ENUM_MEMBER, None));
            all
        }
        Some("force") => plain(&words::layouts(), CompletionItemKind::ENUM_MEMBER),
        Some("growth") => {
            let mut all = plain(words::growth_kinds(), CompletionItemKind::ENUM_MEMBER);
            // `growth rate 200/s`; after a comma only another kind.
            if cx.last() != Some(&crate::context::Token::Punct(",")) {
                all.extend(keywords(&["rate"]));
            }
            all
        }
        Some("summary") => plain(&words::summary_functions(), CompletionItemKind::FUNCTION),
        // `summary count, max(v) per bucket`.
        Some("per") => keywords(&["bucket"]),
        Some("time_range") => keywords(&["by"]),
        Some("by" | "keep") => {
            let mut all = Vec::new();
            for end in ends.iter().rev() {
                all.extend(members(symbols, end));
            }
            all
        }
        _ if after_summary_list(cx) => {
            let mut all = keywords(FACTS);
            all.extend(keywords(&["per"]));
            all
        }
        _ => keywords(FACTS),
    }
}

/// Whether the word being typed follows a whole `summary` list (`summary count, max(v) |`),
/// where `per bucket` may come (or the next fact).
fn after_summary_list(cx: &Context) -> bool {
    use crate::context::Token;
    if matches!(cx.last(), None | Some(Token::Punct(","))) {
        return false;
    }
    let mut probe = cx.clone();
    probe.tokens.push(Token::Punct(","));
    probe.list_head() == Some("summary")
}

fn query_body(cx: &Context, symbols: &Symbols, on: Option<&str>) -> Vec<Offer> {
    match cx.list_head() {
        Some("where" | "and" | "sort" | "returns") => {
            on.map(|e| members(symbols, e)).unwrap_or_default()
        }
        _ => keywords(CLAUSES),
    }
}

/// Inside parentheses: a cardinality's `max` and `typical`, a summary function's field, a queue's
/// priority field.
fn in_group(cx: &Context, symbols: &Symbols) -> Vec<Offer> {
    let word = cx.group().cloned().flatten();
    match (cx.block(), word.as_deref()) {
        (None, Some(class)) if words::cardinalities().contains(&class) => {
            plain(words::cardinality_arguments(), CompletionItemKind::KEYWORD)
        }
        (Some(Block::Relation(ends)), Some(f)) if words::summary_functions().contains(&f) => ends
            .iter()
            .rev()
            .flat_map(|e| members(symbols, e))
            .collect(),
        (None, Some("counters")) | (Some(_), Some("counters")) => {
            plain(&words::counter_periods(), CompletionItemKind::ENUM_MEMBER)
        }
        (_, Some("map" | "[")) => types(symbols),
        _ => Vec::new(),
    }
}

fn members_after_dot(cx: &Context, symbols: &Symbols, block: Option<&Block>) -> Vec<Offer> {
    // The path before the dot: `Author.` or `author.home.`.
    let mut path = Vec::new();
    for t in cx.tokens.iter().rev().skip(1).step_by(2) {
        match t {
            Token::Word(w) => path.push(w.as_str()),
            _ => break,
        }
        if path.len() > 8 {
            break;
        }
    }
    path.reverse();
    let Some((first, rest)) = path.split_first() else {
        return Vec::new();
    };
    let start = match block {
        // A relation's end names a new field: nothing to offer.
        None => return Vec::new(),
        Some(Block::Query(Some(on))) => {
            let mut owner = on.clone();
            for segment in &path {
                match symbols
                    .member(&owner, segment)
                    .and_then(|i| symbols.symbols[i].target.clone())
                {
                    Some(next) => owner = next,
                    None => return Vec::new(),
                }
            }
            return members(symbols, &owner);
        }
        Some(_) => first.to_string(),
    };
    let mut owner = start;
    for segment in rest {
        match symbols
            .member(&owner, segment)
            .and_then(|i| symbols.symbols[i].target.clone())
        {
            Some(next) => owner = next,
            None => return Vec::new(),
        }
    }
    members(symbols, &owner)
}

fn members(symbols: &Symbols, owner: &str) -> Vec<Offer> {
    symbols
        .members(owner)
        .map(|s| {
            let (kind, detail) = match s.kind {
                Kind::RelationEnd => (
                    CompletionItemKind::REFERENCE,
                    s.target.as_ref().map(|t| format!("{owner} \u{2192} {t}")),
                ),
                _ => (CompletionItemKind::FIELD, Some(format!("field of {owner}"))),
            };
            Offer {
                label: s.name.clone(),
                kind,
                detail,
            }
        })
        .collect()
}

fn entities(symbols: &Symbols) -> Vec<Offer> {
    symbols
        .names(Kind::Entity)
        .into_iter()
        .map(|n| offer(n, CompletionItemKind::CLASS, Some("entity")))
        .collect()
}

fn entities_of(ends: &[&str]) -> Vec<Offer> {
    let mut seen: Vec<&str> = Vec::new();
    for e in ends {
        if !e.is_empty() && !seen.contains(e) {
            seen.push(e);
        }
    }
    seen.into_iter()
        .map(|n| offer(n, CompletionItemKind::CLASS, Some("entity")))
        .collect()
}

fn types(symbols: &Symbols) -> Vec<Offer> {
    let mut all = plain(&words::bson_types(), CompletionItemKind::TYPE_PARAMETER);
    all.extend(
        symbols
            .names(Kind::Value)
            .into_iter()
            .map(|n| offer(n, CompletionItemKind::STRUCT, Some("value type"))),
    );
    all.extend(keywords(TYPE_KEYWORDS));
    all
}

fn attributes(cx: &Context) -> Vec<Offer> {
    let field = words::field_attributes();
    let entity = words::entity_attributes();
    let table: Vec<&(&str, &str)> = match cx.block() {
        // After an entity's name, before its `{`.
        None => entity.iter().collect(),
        Some(Block::Entity(_) | Block::Value(_) | Block::Variant | Block::Fields) => {
            field.iter().collect()
        }
        Some(_) => field.iter().chain(entity).collect(),
    };
    table
        .into_iter()
        .map(|(name, form)| offer(name, CompletionItemKind::PROPERTY, Some(form)))
        .collect()
}

/// The units that fit where the number is: `@large(`, `@size(` take sizes, `@updates(` and
/// `rate` rates, `@expires(` durations; anywhere else, every unit.
fn units(cx: &Context) -> Vec<Offer> {
    let group = cx.group().cloned().flatten();
    let head = cx.tokens.iter().rev().find_map(|t| match t {
        Token::Word(w) => Some(w.as_str()),
        _ => None,
    });
    let list = match (group.as_deref(), head) {
        (Some("large" | "size"), _) => words::size_units(),
        (Some("updates"), _) | (_, Some("rate")) => words::rate_units(),
        (Some("expires"), _) => words::duration_units(),
        (_, Some("doc_warn_size" | "doc_max_size")) => words::size_units(),
        _ => {
            let mut all = words::size_units();
            all.extend(words::rate_units());
            all.extend(words::duration_units());
            all
        }
    };
    plain(&list, CompletionItemKind::UNIT)
}

#[cfg(test)]
mod tests;
