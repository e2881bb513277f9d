//! Rust identifiers for plan names: escaped in one place, and the module's type names given
//! without a clash.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span};

use crate::plan::{CollectionRole, FieldKind, Plan, PlanField};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// A field identifier: snake_case, keywords raw (`r#type`), invalid characters replaced.
pub(crate) fn field_ident(name: &str) -> Ident {
    let mut s = snake(name);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
        return Ident::new(&s, Span::call_site());
    }
    if KEYWORDS.contains(&s.as_str()) {
        return Ident::new_raw(&s, Span::call_site());
    }
    Ident::new(&s, Span::call_site())
}

/// A type identifier: PascalCase, invalid characters removed.
pub(crate) fn type_ident(name: &str) -> Ident {
    let mut s = pascal(name);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    // PascalCase leaves one keyword: `Self`. `Self_` would make the derive's `Self_Repo`, which
    // is not UpperCamelCase.
    if KEYWORDS.contains(&s.as_str()) {
        s.push_str("Type");
    }
    Ident::new(&s, Span::call_site())
}

/// The Rust variant of an enumeration value (`one_of("in-stock")` is `InStock`): PascalCase of its
/// ASCII letters and digits, each other letter or digit written as `U` and its code point in hex
/// (`"café"` is `CafU00E9`), `Empty` for a value with neither, a `V` before a leading digit, and
/// `SelfValue` for `Self`. Deterministic; two values with one variant are refused by the resolver.
pub(crate) fn enum_variant(value: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in value.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else if c.is_alphanumeric() {
            out.push_str(&format!("U{:04X}", u32::from(c)));
            upper = true;
        } else {
            upper = true;
        }
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push_str("Value");
    }
    out
}

/// The type names of one generated module. Every collection's document type, its `<Name>Repo`
/// (the derive's) and `<Name>Variant` are fixed first; then every embedded type gets its name,
/// or, when that name is taken by another shape, the name with a number (`Address2`). The
/// names the schema declares (entities and value types) go to them: a type squillion makes up
/// (`BookRef`, `TagsAttribute`, a bucket) never takes one, so an entity named `BookRef` keeps
/// its name and the references to `Book` become `BookRef2`; an entity embedded in one place and
/// stored in its own collection elsewhere is `<Name>Embedded` where it is embedded. The resolver reports clashes between
/// declared names themselves (E0208).
pub(super) struct TypeNames {
    /// Names given, with the shape signature of the embedded type (`None` for a collection's
    /// types).
    taken: BTreeMap<String, Option<String>>,
    /// Names of entities and value types.
    declared: BTreeSet<String>,
    /// The document type of each collection.
    collections: BTreeMap<String, Ident>,
}

impl TypeNames {
    pub(super) fn new(plan: &Plan) -> Self {
        let mut declared = BTreeSet::new();
        fn embedded(fields: &[PlanField], out: &mut BTreeSet<String>) {
            for f in fields {
                if let (FieldKind::Embedded, Some(name)) = (f.kind, &f.type_name) {
                    out.insert(type_ident(name).to_string());
                }
                embedded(&f.children, out);
            }
        }
        for c in &plan.collections {
            declared.insert(type_ident(&c.entity).to_string());
            embedded(&c.fields, &mut declared);
        }
        let mut names = TypeNames {
            taken: BTreeMap::new(),
            declared,
            collections: BTreeMap::new(),
        };
        // Entities' own collections first: their types carry the names the schema gave them.
        let (own, made): (Vec<_>, Vec<_>) = plan
            .collections
            .iter()
            .partition(|c| c.role == CollectionRole::Entity);
        for c in own.into_iter().chain(made) {
            let user = c.role == CollectionRole::Entity;
            let base = type_ident(&super::collection_type_name(c)).to_string();
            let name = names.fresh(&base, |names, n| {
                let repo = format!("{n}Repo");
                !names.taken.contains_key(n)
                    && !names.taken.contains_key(&repo)
                    && (user || !names.declared.contains(n) && !names.declared.contains(&repo))
            });
            for reserved in [format!("{name}Repo"), format!("{name}Variant")] {
                names.taken.insert(reserved, None);
            }
            names.taken.insert(name.clone(), None);
            names
                .collections
                .insert(c.name.clone(), Ident::new(&name, Span::call_site()));
        }
        names
    }

    /// The document type of collection `name`.
    pub(super) fn collection(&self, name: &str) -> Option<Ident> {
        self.collections.get(name).cloned()
    }

    /// The name of an embedded type called `base` with shape `signature`, and whether it is new
    /// (to be defined). `declared`: the type is an entity's or a value type's, named by the
    /// schema.
    pub(super) fn embedded(
        &mut self,
        base: &str,
        signature: &str,
        declared: bool,
    ) -> (Ident, bool) {
        let mut base = type_ident(base).to_string();
        // An entity embedded in one place and stored in its own collection elsewhere has two
        // types: the embedded one is `<Name>Embedded`.
        if self.collections.values().any(|c| *c == base) {
            base.push_str("Embedded");
        }
        let mut existing = None;
        let name = self.fresh(&base, |names, n| match names.taken.get(n) {
            Some(Some(sig)) if sig == signature => {
                existing = Some(n.to_owned());
                true
            }
            Some(_) => false,
            None => declared || !names.declared.contains(n),
        });
        let ident = Ident::new(&name, Span::call_site());
        if existing.is_some() {
            return (ident, false);
        }
        self.taken.insert(name, Some(signature.to_owned()));
        (ident, true)
    }

    /// The name of a query's projection struct: `base` (the query's name, in PascalCase), or
    /// `base2`, ... when a collection's, an embedded or a declared type has it.
    pub(super) fn projection(&mut self, base: &str) -> Ident {
        let base = type_ident(base).to_string();
        let name = self.fresh(&base, |names, n| {
            !names.taken.contains_key(n) && !names.declared.contains(n)
        });
        self.taken.insert(name.clone(), None);
        Ident::new(&name, Span::call_site())
    }

    /// `base`, or `base2`, `base3`, ...: the first that `free` accepts.
    fn fresh(&self, base: &str, mut free: impl FnMut(&Self, &str) -> bool) -> String {
        if free(self, base) {
            return base.to_owned();
        }
        (2..)
            .map(|n| format!("{base}{n}"))
            .find(|n| free(self, n))
            .unwrap_or_else(|| base.to_owned())
    }
}

/// `snake_case`, keeping only ASCII letters, digits and `_`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p));
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next_lower)
            }) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() || *c == '_' {
            out.push(*c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// `PascalCase`, keeping only ASCII letters and digits.
pub(crate) fn pascal(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        } else {
            upper = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_raw_and_names_are_cleaned() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("firstName").to_string(), "first_name");
        assert_eq!(field_ident("2fa").to_string(), "_2fa");
        assert_eq!(field_ident("a-b").to_string(), "a_b");
        assert_eq!(type_ident("log_messages").to_string(), "LogMessages");
        assert_eq!(type_ident("Self").to_string(), "SelfType");
    }
}
