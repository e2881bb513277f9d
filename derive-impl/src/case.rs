//! serde's `rename_all` rules, applied to field names to find their BSON names.

/// The field name `name` under serde's `rename_all = rule`; `None` for an unknown rule.
pub fn rename(rule: &str, name: &str) -> Option<String> {
    let words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        match c.next() {
            Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
            None => String::new(),
        }
    };
    Some(match rule {
        "lowercase" => name.to_lowercase(),
        "UPPERCASE" => name.to_uppercase(),
        "snake_case" => name.to_owned(),
        "SCREAMING_SNAKE_CASE" => name.to_uppercase(),
        "kebab-case" => name.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => name.to_uppercase().replace('_', "-"),
        "PascalCase" => words.iter().map(|w| cap(w)).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(|w| cap(w)).collect();
            let mut c = pascal.chars();
            match c.next() {
                Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn camel_and_pascal() {
        assert_eq!(
            super::rename("camelCase", "note_count").as_deref(),
            Some("noteCount")
        );
        assert_eq!(
            super::rename("PascalCase", "note_count").as_deref(),
            Some("NoteCount")
        );
        assert_eq!(super::rename("nope", "x"), None);
    }
}
