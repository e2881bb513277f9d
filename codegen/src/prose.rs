//! Small pieces of English shared by every stage that writes sentences for people: diagnostics,
//! the engine's reasons and the printouts. [`decision`] renders the engine's decisions (facts,
//! reasons, rejected alternatives, obligations) from the data the engine records.

pub mod cost;
pub(crate) mod counters;
pub(crate) mod decision;
pub mod diff;
pub(crate) mod facts;
pub(crate) mod hot;
pub(crate) mod kept_elsewhere;
mod obligations;
pub(crate) mod rejections;

/// A clause as a sentence of its own: its first letter upper-case and a full stop at its end
/// ("up to 5 Menus per Restaurant ... (rule 1)" becomes "Up to 5 Menus per Restaurant ...
/// (rule 1)."). A clause that starts with code (a backtick) or a digit keeps it as written.
pub fn sentence(clause: &str) -> String {
    let clause = clause.trim();
    let mut chars = clause.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// What a collection holds, for its heading in the review and in `plan --explain`: "documents
/// of Agent", "one document per pair of Agent.teams", "buckets of Comment (Post.comments)".
pub fn collection_role(c: &crate::plan::Collection) -> String {
    use crate::plan::CollectionRole;
    match &c.role {
        CollectionRole::Entity => format!("documents of {}", c.entity),
        CollectionRole::Bucket { relation } => {
            format!("buckets of {} ({relation})", c.entity)
        }
        CollectionRole::Link { relation } => format!("one document per pair of {relation}"),
        CollectionRole::Overflow { relation } => {
            format!("overflow documents of {relation}")
        }
        CollectionRole::History => format!("past versions of {}", c.entity),
    }
}

/// `a` or `an` before a word as written (`an Address`, `a string`, `an int32`).
pub fn article(word: &str) -> &'static str {
    match word.trim_start_matches('`').chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'A' | 'E' | 'I' | 'O') => "an",
        _ => "a",
    }
}

/// `word` with its article: `an Address`.
pub fn a(word: &str) -> String {
    format!("{} {word}", article(word))
}

/// `text` with `a` turned into `an` before a capitalised name that starts with a vowel sound the
/// engine can tell from its first letter (`a Author` -> `an Author`; `a User` stays). Entity names
/// are interpolated into the engine's sentences after a fixed `a`; this puts the article right
/// once, where the sentences enter the Plan.
pub fn articles(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut boundary = true;
    while let Some(c) = rest.chars().next() {
        if boundary && (rest.starts_with("a ") || rest.starts_with("A ")) {
            let after = rest[2..].trim_start_matches('`');
            if after.starts_with(['A', 'E', 'I', 'O']) {
                out.push(c);
                out.push('n');
                rest = &rest[1..];
                boundary = false;
                continue;
            }
        }
        out.push(c);
        boundary = !(c.is_alphanumeric() || c == '_' || c == '\'');
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// What a number's `@range` says, for the generated Rust docs and the review: `each` when it
/// bounds every element of an array or map.
pub fn range(range: &crate::model::NumberRange, each: bool) -> String {
    let (min, max) = (&range.min, &range.max);
    let whom = if each {
        "Each value is between"
    } else {
        "Between"
    };
    format!(
        "{whom} {min} and {max}, both included (`@range({min}, {max})`): the collection's \
         validator refuses any other value."
    )
}

/// `n thing` or `n things`, with the plural given.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Nouns whose plural is the singular (Mongoose's pluralize leaves them as they are too).
const UNCOUNTABLE: [&str; 14] = [
    "sheep",
    "fish",
    "deer",
    "moose",
    "series",
    "species",
    "equipment",
    "information",
    "money",
    "rice",
    "news",
    "media",
    "advice",
    "aircraft",
];

/// Plurals that do not follow the rules (Mongoose's pluralize knows these too).
pub const IRREGULAR: [(&str, &str); 8] = [
    ("person", "people"),
    ("child", "children"),
    ("man", "men"),
    ("woman", "women"),
    ("mouse", "mice"),
    ("goose", "geese"),
    ("criterion", "criteria"),
    ("datum", "data"),
];

/// The English plural of a name's last word, for `snake_case` and `CamelCase` names alike:
/// `log_message` -> `log_messages`, `Category` -> `Categories`, `SalesPerson` -> `SalesPeople`,
/// `Address` -> `Addresses`, `Analysis` -> `Analyses`. A word already ending in `s` (`Events`,
/// `News`) is taken as plural, except `-ss`, `-us` and `-is`.
pub fn plural(word: &str) -> String {
    let last_start = word
        .char_indices()
        .rev()
        .find(|(i, c)| *c == '_' || (c.is_uppercase() && *i > 0))
        .map(|(i, c)| if c == '_' { i + 1 } else { i })
        .unwrap_or(0);
    let (head, last) = word.split_at(last_start);
    let lower = last.to_lowercase();
    if let Some((_, plural)) = IRREGULAR.iter().find(|(one, _)| *one == lower) {
        let capital = last.chars().next().is_some_and(char::is_uppercase);
        let mut out = head.to_owned();
        if capital {
            let mut cs = plural.chars();
            if let Some(first) = cs.next() {
                out.extend(first.to_uppercase());
                out.push_str(cs.as_str());
            }
        } else {
            out.push_str(plural);
        }
        return out;
    }
    if UNCOUNTABLE.contains(&lower.as_str()) {
        return word.to_owned();
    }
    // `Quiz` -> `Quizzes`, `Shelf` -> `Shelves`, `Knife` -> `Knives`, `Hero` -> `Heroes`.
    if ["quiz", "whiz", "fez"].contains(&lower.as_str()) {
        return format!("{word}zes");
    }
    let f_stays = ["golf", "gulf", "surf", "serf"]
        .iter()
        .any(|w| lower.ends_with(w));
    if (lower.ends_with("lf") || lower.ends_with("rf")) && !f_stays {
        return format!("{}ves", &word[..word.len() - 1]);
    }
    if ["knife", "wife", "life"].iter().any(|w| lower.ends_with(w)) {
        return format!("{}ves", &word[..word.len() - 2]);
    }
    if [
        "hero", "echo", "potato", "tomato", "buffalo", "veto", "torpedo",
    ]
    .iter()
    .any(|w| lower.ends_with(w))
    {
        return format!("{word}es");
    }
    let consonant_y = lower.ends_with('y')
        && lower.len() > 1
        && !lower
            .chars()
            .rev()
            .nth(1)
            .is_some_and(|c| "aeiou".contains(c));
    if consonant_y {
        format!("{}ies", &word[..word.len() - 1])
    } else if lower.ends_with("is") && lower.len() > 2 {
        format!("{}es", &word[..word.len() - 2])
    } else if ["ss", "us", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        format!("{word}es")
    } else if lower.ends_with('s') {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// `n` of a noun, the noun agreeing: `1 Comment`, `3 Comments`, `1,000 Comments`.
pub fn n_of(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {}", thousands(n), plural(noun))
    }
}

/// A maximum of a noun: `up to 1,000 Comments`, `up to 1 Comment`, `an unbounded number of
/// Comments`.
pub fn up_to(max: Option<u64>, noun: &str) -> String {
    match max {
        Some(n) => format!("up to {}", n_of(n, noun)),
        None => format!("an unbounded number of {}", plural(noun)),
    }
}

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in bytes as people read it (`312 B`, `4.2 KB`, `16 MB`, `3 TB`). Estimates beyond a
/// petabyte only come from multiplying bounds (and saturate at `u64::MAX`): no document or
/// collection is that large, so they read "more than 1 PB" instead of a 17-digit number.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut scaled = n as f64;
    for unit in UNITS {
        scaled /= 1024.0;
        // 1023.95 and above would print as "1024": the next unit reads better.
        if scaled < 1023.95 {
            return trim_unit(scaled, unit);
        }
    }
    "more than 1 PB".to_owned()
}

fn trim_unit(v: f64, unit: &str) -> String {
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {unit}")
}

/// What a placement's field holds, in words. An extended reference (an array's element, or one
/// reference) names what it holds beside the id, read off the collection's field, since the
/// same shape holds copies of the target's fields (`{id, name}`), the relationship's own fields
/// (an order line's `{id, qty}`) or both: ``an array of Product references `{id, qty, price}` ``.
pub fn holds(collections: &[crate::plan::Collection], p: &crate::plan::Placement) -> String {
    use crate::plan::Shape;
    let inner = || -> Option<String> {
        let field = collections
            .iter()
            .find(|c| c.name == p.collection)?
            .field_at(&p.path)?;
        let names: Vec<&str> = field.children.iter().map(|f| f.name.as_str()).collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    match (p.shape, inner()) {
        (Shape::ArrayOfExtendedRefs, Some(fields)) => {
            format!("an array of {} references `{{{fields}}}`", p.target)
        }
        (Shape::ExtendedRef, Some(fields)) => {
            format!("a reference to {} `{{{fields}}}`", a(&p.target))
        }
        (shape, _) => shape.describe(&p.target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_of_names() {
        for (one, many) in [
            ("Comment", "Comments"),
            ("Category", "Categories"),
            ("Day", "Days"),
            ("Address", "Addresses"),
            ("Box", "Boxes"),
            ("Analysis", "Analyses"),
            ("Status", "Statuses"),
            ("Person", "People"),
            ("SalesPerson", "SalesPeople"),
            ("Child", "Children"),
            ("News", "News"),
            ("LogMessage", "LogMessages"),
            ("log_message", "log_messages"),
            ("sales_person", "sales_people"),
            ("IoTReading", "IoTReadings"),
            ("Quiz", "Quizzes"),
            ("PopQuiz", "PopQuizzes"),
            ("Shelf", "Shelves"),
            ("book_shelf", "book_shelves"),
            ("Wolf", "Wolves"),
            ("Scarf", "Scarves"),
            ("Knife", "Knives"),
            ("Life", "Lives"),
            ("Hero", "Heroes"),
            ("Potato", "Potatoes"),
            ("Photo", "Photos"),
            ("Video", "Videos"),
            ("Roof", "Roofs"),
            ("Chief", "Chiefs"),
            ("Sheep", "Sheep"),
            ("Fish", "Fish"),
            ("Species", "Species"),
            ("Equipment", "Equipment"),
            ("Waltz", "Waltzes"),
            ("Buzz", "Buzzes"),
            ("Golf", "Golfs"),
            ("Surf", "Surfs"),
        ] {
            assert_eq!(plural(one), many, "{one}");
        }
        assert_eq!(n_of(1, "Comment"), "1 Comment");
        assert_eq!(n_of(2, "Comment"), "2 Comments");
        assert_eq!(n_of(1000, "Person"), "1,000 People");
        assert_eq!(up_to(Some(1), "Note"), "up to 1 Note");
        assert_eq!(up_to(None, "Note"), "an unbounded number of Notes");
        assert_eq!(bytes(3071), "3 KB");
        assert_eq!(bytes(500), "500 B");
        assert_eq!(bytes(3 * 1024 * 1024 + 512 * 1024), "3.5 MB");
    }

    /// The value a `bytes` text stands for, in bytes (`None` for "more than 1 PB").
    fn read_bytes(text: &str) -> Option<f64> {
        let (number, unit) = text.split_once(' ')?;
        let power = ["B", "KB", "MB", "GB", "TB"]
            .iter()
            .position(|u| *u == unit)?;
        Some(number.parse::<f64>().ok()? * 1024f64.powi(power as i32))
    }

    proptest::proptest! {
        /// Every size reads as at most four significant digits and a unit, within 5% of the
        /// value, never as a 17-digit number; sizes beyond a petabyte say so.
        #[test]
        fn sizes_read_as_people_write_them(n in proptest::prelude::any::<u64>(), shift in 0u32..64) {
            let n = n >> shift;
            let text = bytes(n);
            match read_bytes(&text) {
                Some(value) => {
                    let number = text.split(' ').next().unwrap_or_default();
                    proptest::prop_assert!(number.len() <= 6, "{n}: {text}");
                    proptest::prop_assert!(!number.starts_with("1024"), "{n}: {text}");
                    let error = (value - n as f64).abs() / (n as f64).max(1.0);
                    proptest::prop_assert!(error < 0.05, "{n}: {text}");
                }
                None => {
                    proptest::prop_assert_eq!(text.as_str(), "more than 1 PB");
                    proptest::prop_assert!(n as f64 >= 1023.95 * 1024f64.powi(4), "{}: {}", n, text);
                }
            }
        }
    }

    #[test]
    fn articles_follow_the_first_letter() {
        assert_eq!(a("Address"), "an Address");
        assert_eq!(a("`int32`"), "an `int32`");
        assert_eq!(a("Part"), "a Part");
        assert_eq!(counted(1, "warning", "warnings"), "1 warning");
        assert_eq!(counted(0, "warning", "warnings"), "0 warnings");
    }

    #[test]
    fn articles_are_corrected_before_names_only() {
        assert_eq!(
            articles("a Author has a Book; A Invoice, a `Effort`"),
            "an Author has a Book; An Invoice, an `Effort`"
        );
        assert_eq!(
            articles("a User, a UTC date, a array"),
            "a User, a UTC date, a array"
        );
        assert_eq!(
            articles("data Author, la Ecole, é a Item"),
            "data Author, la Ecole, é an Item"
        );
        assert_eq!(articles(""), "");
        assert_eq!(articles("a"), "a");
    }
}
