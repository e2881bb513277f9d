//! The namespace of entities and value types, collection names, and "did you mean".

use std::collections::BTreeMap;

use squillion_grammar::ast::{Item, Schema, TypeDecl};
use squillion_grammar::{Diagnostic, Span};

use super::Resolver;
use crate::codes;
use crate::model::{BsonType, Entity};

/// What a declared type name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeclKind {
    /// `entity Name`.
    Entity,
    /// `value Name`.
    Value,
}

impl DeclKind {
    fn word(self) -> &'static str {
        match self {
            DeclKind::Entity => "entity",
            DeclKind::Value => "value type",
        }
    }
}

/// Entities and value types by name: one namespace. The first declaration of a name wins.
#[derive(Debug, Default)]
pub(super) struct Scope<'a> {
    types: BTreeMap<&'a str, (DeclKind, &'a TypeDecl)>,
}

impl<'a> Scope<'a> {
    /// Collects the declarations of `schema`, reporting names declared twice and names that are
    /// BSON types.
    pub(super) fn collect(diagnostics: &mut Vec<Diagnostic>, schema: &'a Schema) -> Scope<'a> {
        let mut scope = Scope::default();
        for item in &schema.items {
            let (kind, decl) = match item {
                Item::Entity(decl) => (DeclKind::Entity, decl),
                Item::Value(decl) => (DeclKind::Value, decl),
                _ => continue,
            };
            let name = decl.name.name.as_str();
            if let Some(bson) = BsonType::from_sqn(name) {
                diagnostics.push(
                    Diagnostic::error(
                        codes::RESERVED_TYPE_NAME,
                        decl.name.span,
                        format!("`{name}` is a BSON type and cannot name {}", a(kind)),
                    )
                    .with_label("a BSON type name")
                    .with_help(format!(
                        "choose another name; `{}` always means the BSON type",
                        bson.sqn_name()
                    )),
                );
                continue;
            }
            if let Some((first_kind, first)) = scope.types.get(name) {
                diagnostics.push(
                    Diagnostic::error(
                        codes::DUPLICATE_NAME,
                        decl.name.span,
                        format!("`{name}` is declared twice"),
                    )
                    .with_label(format!("declared again as {}", a(kind)))
                    .with_related(
                        first.name.span,
                        format!("first declared here as {}", a(*first_kind)),
                    )
                    .with_help("entities and value types share one namespace: rename one of them"),
                );
                continue;
            }
            scope.types.insert(name, (kind, decl));
        }
        scope
    }

    /// What `name` is declared as.
    pub(super) fn kind(&self, name: &str) -> Option<DeclKind> {
        self.types.get(name).map(|(kind, _)| *kind)
    }

    /// The declaration `name` refers to.
    pub(super) fn decl(&self, name: &str) -> Option<&'a TypeDecl> {
        self.types.get(name).map(|(_, decl)| *decl)
    }

    /// The names declared as `kind`.
    pub(super) fn names(&self, kind: DeclKind) -> impl Iterator<Item = &'a str> + '_ {
        self.types
            .iter()
            .filter(move |(_, (k, _))| *k == kind)
            .map(|(name, _)| *name)
    }
}

fn a(kind: DeclKind) -> String {
    match kind {
        DeclKind::Entity => "an entity".to_owned(),
        DeclKind::Value => format!("a {}", kind.word()),
    }
}

/// The diagnostic for a name that should be an entity: unknown, or a value type.
pub(super) fn not_an_entity(r: &Resolver<'_>, name: &str, span: Span, role: &str) -> Diagnostic {
    match r.scope.kind(name) {
        Some(DeclKind::Value) => {
            let mut d = Diagnostic::error(
                codes::NOT_AN_ENTITY,
                span,
                format!("`{name}` is a value type, not an entity"),
            )
            .with_label(format!("{role} must be an entity"))
            .with_help(
                "value types are always embedded; relations join entities and queries read \
                 entities: declare it with `entity` if it has an identity of its own",
            );
            if let Some(decl) = r.scope.decl(name) {
                d = d.with_related(decl.name.span, "declared as a value type here");
            }
            d
        }
        _ => {
            let d = Diagnostic::error(
                codes::UNKNOWN_ENTITY,
                span,
                format!("unknown entity `{name}`"),
            )
            .with_label(format!("{role}: no entity of this name"));
            match closest(name, r.scope.names(DeclKind::Entity)) {
                Some(close) => suggest(d, span, close),
                None => d.with_help(format!("declare it: `entity {name} {{ ... }}`")),
            }
        }
    }
}

/// Reports entities that share a collection and collection names MongoDB rejects.
pub(super) fn check_collections(r: &mut Resolver<'_>, entities: &[Entity]) {
    let mut seen: BTreeMap<&str, &Entity> = BTreeMap::new();
    let mut names = std::collections::BTreeSet::new();
    for entity in entities {
        // A second declaration of a name is already an error of its own.
        if !names.insert(entity.name.as_str()) {
            continue;
        }
        if let Some(first) = seen.get(entity.collection.as_str()) {
            let how = if entity.collection_declared {
                "named with `@collection`"
            } else {
                "the plural of its name"
            };
            r.report(
                Diagnostic::error(
                    codes::DUPLICATE_COLLECTION,
                    entity.span,
                    format!(
                        "entities `{}` and `{}` are both stored in collection `{}`",
                        first.name, entity.name, entity.collection
                    ),
                )
                .with_label(format!("collection `{}`, {how}", entity.collection))
                .with_related(
                    first.span,
                    format!("`{}` is stored there first", first.name),
                )
                .with_help("give one of them another collection with `@collection(\"name\")`"),
            );
        } else {
            seen.insert(&entity.collection, entity);
        }
    }
}

/// Why MongoDB rejects a collection name, if it does.
pub(super) fn collection_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a collection name cannot be empty")
    } else if name.contains('$') {
        Some("a collection name cannot contain `$`")
    } else if name.contains('\0') {
        Some("a collection name cannot contain the NUL character")
    } else if name.starts_with("system.") {
        Some("names starting with `system.` are reserved by MongoDB")
    } else if name.starts_with('.') || name.ends_with('.') {
        Some("a collection name cannot start or end with `.`")
    } else if name.len() > 120 {
        Some("a collection name this long does not fit MongoDB's namespace limit")
    } else {
        None
    }
}

/// The default collection of an entity: the snake_case plural of its name
/// (`Book` -> `books`, `Category` -> `categories`, `LogMessage` -> `log_messages`).
pub(super) fn collection_name(entity: &str) -> String {
    crate::prose::plural(&snake_case(entity))
}

/// `LogMessage` -> `log_message`, `HTTPRequest` -> `http_request`, `already_snake` unchanged.
pub(super) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Suggestions

/// `d` with the help `did you mean `close`?` and the edit that writes `close` at `span`.
pub(super) fn suggest(d: Diagnostic, span: Span, close: &str) -> Diagnostic {
    d.with_help(format!("did you mean `{close}`?"))
        .with_fix(span, close)
}

/// The candidate closest to `name`: equal ignoring case, else within an edit distance of about
/// a third of the name's length.
pub(super) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate == name {
            continue;
        }
        let other = candidate.to_lowercase();
        let distance = if other == lower {
            0
        } else if lower.len() >= 3 && (other.starts_with(&lower) || lower.starts_with(&other)) {
            // A word cut short or run on: `doc_warn` for `doc_warn_size`.
            1
        } else {
            edit_distance(&lower, &other)
        };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Edit distance counting characters, where swapping two neighbours is one edit (optimal string
/// alignment): `titel` is one edit from `title`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance between a[..i] and b[..j].
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

pub(super) use crate::prose::article;

/// `` `a`, `b` or `c` ``.
pub(super) fn one_of<'s>(names: impl IntoIterator<Item = &'s str>) -> String {
    joined(names, "or")
}

/// `` `a`, `b` and `c` ``.
pub(super) fn all_of<'s>(names: impl IntoIterator<Item = &'s str>) -> String {
    joined(names, "and")
}

fn joined<'s>(names: impl IntoIterator<Item = &'s str>, word: &str) -> String {
    let quoted: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_are_snake_case_plurals() {
        for (entity, collection) in [
            ("Book", "books"),
            ("Category", "categories"),
            ("Address", "addresses"),
            ("LogMessage", "log_messages"),
            ("AuthorBio", "author_bios"),
            ("Day", "days"),
            ("Box", "boxes"),
            ("Match", "matches"),
            ("HTTPRequest", "http_requests"),
            ("log_entry", "log_entries"),
            ("Sensor2Reading", "sensor2_readings"),
            ("Y", "ys"),
            ("Events", "events"),
            ("Status", "statuses"),
            ("Analysis", "analyses"),
            ("Person", "people"),
            ("SalesPerson", "sales_people"),
        ] {
            assert_eq!(collection_name(entity), collection, "{entity}");
        }
    }

    #[test]
    fn suggestions_are_close_or_case_insensitive() {
        let types = ["string", "objectId", "int32", "date"];
        assert_eq!(closest("strin", types), Some("string"));
        assert_eq!(closest("objectid", types), Some("objectId"));
        assert_eq!(closest("int3", types), Some("int32"));
        assert_eq!(closest("blob", types), None);
        assert_eq!(
            closest("doc_warn", ["doc_warn_size", "doc_max_size"]),
            Some("doc_warn_size")
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("titel", "title"), 1);
        assert_eq!(closest("titel", ["title", "_id"]), Some("title"));
        assert_eq!(article("int32"), "an");
        assert_eq!(article("string"), "a");
        assert_eq!(one_of(["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
