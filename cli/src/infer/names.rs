//! Names for what the data does not name: entities from collections and array fields, relation
//! ends, and field names for BSON keys that are not identifiers.

use std::collections::BTreeSet;

/// Whether `s` is an identifier of the language: a letter or `_`, then letters, digits and `_`.
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why a BSON key cannot be declared as a field, if it cannot: MongoDB's rules for field names
/// (no `$` first, no `.`), and the language's strings hold no control characters.
pub fn unstorable(key: &str) -> Option<&'static str> {
    squillion_codegen::resolve::forbidden_field_name(key).or_else(|| {
        key.chars()
            .any(char::is_control)
            .then_some("a key with control characters")
    })
}

/// The words of a name: split at `_`, `-`, spaces, other punctuation and lower-to-upper case
/// changes, lowercased; non-ASCII characters dropped.
fn words(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        } else {
            prev_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// `blog_posts` -> `BlogPosts`; a name starting with a digit gets a leading `N`; a name with no
/// usable character is `Unnamed`.
pub fn pascal(raw: &str) -> String {
    let mut out: String = words(raw)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if out.is_empty() {
        out = "Unnamed".to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'N');
    }
    out
}

/// `firstName` -> `first_name`, `first name` -> `first_name`; a name starting with a digit gets
/// a leading `f_`; a name with no usable character is `field`.
pub fn snake(raw: &str) -> String {
    let mut out = words(raw).join("_");
    if out.is_empty() {
        out = "field".to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "f_");
    }
    out
}

/// The field name for a BSON key: the key itself when it is an identifier, else its snake_case
/// form (the key is then kept with `@stored`).
pub fn field_name(key: &str) -> String {
    if is_ident(key) {
        key.to_owned()
    } else {
        snake(key)
    }
}

/// The singular of the last word of a snake_case name: `categories` -> `category`,
/// `addresses` -> `address`, `people` -> `person`; words that do not look plural stay.
pub fn singular(name: &str) -> String {
    let start = name.rfind('_').map_or(0, |i| i + 1);
    let (head, last) = name.split_at(start);
    let irregular = squillion_codegen::resolve::IRREGULAR_PLURALS;
    if let Some((one, _)) = irregular.iter().find(|(_, many)| *many == last) {
        return format!("{head}{one}");
    }
    /// Words ending in `-ie` whose plural `-ies` is not a `-y` word's.
    const IE: [&str; 10] = [
        "movies", "cookies", "pies", "ties", "lies", "calories", "rookies", "selfies", "zombies",
        "hippies",
    ];
    let one = if IE.contains(&last) {
        last[..last.len() - 1].to_owned()
    } else if last.len() > 3 && last.ends_with("ies") {
        format!("{}y", &last[..last.len() - 3])
    } else if ["sses", "xes", "ches", "shes", "zzes"]
        .iter()
        .any(|e| last.ends_with(e))
    {
        last[..last.len() - 2].to_owned()
    } else if last.len() > 1
        && last.ends_with('s')
        && !["ss", "us", "is"].iter().any(|e| last.ends_with(e))
    {
        last[..last.len() - 1].to_owned()
    } else {
        last.to_owned()
    };
    format!("{head}{one}")
}

/// The plural of the last word of a snake_case name, as the engine makes collection names:
/// `book` -> `books`, `category` -> `categories`, `address` -> `addresses`.
pub fn plural(name: &str) -> String {
    squillion_codegen::resolve::plural(name)
}

/// The snake_case of a PascalCase entity name: `LogMessage` -> `log_message`.
pub fn entity_snake(entity: &str) -> String {
    snake(entity)
}

/// `an Author`, `a Book`, `a User`: the engine's own rule.
pub fn a(name: &str) -> String {
    squillion_codegen::prose::a(name)
}

/// Hands out names that are unique in one namespace, adding `2`, `3`... to a taken one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Namer {
    taken: BTreeSet<String>,
}

impl Namer {
    /// A namer with these names already taken.
    pub fn with_taken<'a>(taken: impl IntoIterator<Item = &'a str>) -> Namer {
        Namer {
            taken: taken.into_iter().map(str::to_owned).collect(),
        }
    }

    /// `wanted` if free, else the first free `wanted2`, `wanted3`...; the name is then taken.
    pub fn unique(&mut self, wanted: &str) -> String {
        let mut name = wanted.to_owned();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{wanted}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Whether `name` is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn collections_and_fields_become_names() {
        assert_eq!(pascal(&singular("blog_posts")), "BlogPost");
        assert_eq!(pascal(&singular("categories")), "Category");
        assert_eq!(pascal(&singular("addresses")), "Address");
        assert_eq!(pascal(&singular("people")), "Person");
        assert_eq!(pascal(&singular("logmsg")), "Logmsg");
        assert_eq!(pascal(&singular("status")), "Status");
        assert_eq!(singular("movies"), "movie");
        assert_eq!(singular("best_times"), "best_time");
        assert_eq!(pascal("2024-logs"), "N2024Logs");
        assert_eq!(pascal("ünï"), "N");
        assert_eq!(pascal("!!"), "Unnamed");
        assert_eq!(plural("book"), "books");
        assert_eq!(plural("category"), "categories");
        assert_eq!(plural("log_message"), "log_messages");
        assert_eq!(plural("address"), "addresses");
        assert_eq!(snake("firstName"), "first_name");
        assert_eq!(snake("first name"), "first_name");
        assert_eq!(field_name("1st"), "f_1st");
        assert!(unstorable("a.b").is_some() && unstorable("$x").is_some());
        assert_eq!(unstorable(""), Some("a field name cannot be empty"));
        assert!(unstorable("a\nb").is_some() && unstorable("").is_some());
        assert!(unstorable("first name").is_none());
        let mut n = Namer::with_taken(["Book"]);
        assert_eq!(n.unique("Book"), "Book2");
        assert_eq!(n.unique("Book"), "Book3");
    }

    proptest! {
        /// Whatever the key, the names made from it are identifiers.
        #[test]
        fn names_are_always_identifiers(raw in "\\PC{0,20}") {
            prop_assert!(is_ident(&pascal(&raw)));
            prop_assert!(is_ident(&snake(&raw)));
            prop_assert!(is_ident(&field_name(&raw)));
            prop_assert!(is_ident(&plural(&snake(&raw))));
            prop_assert!(is_ident(&singular(&snake(&raw))));
        }
    }
}
