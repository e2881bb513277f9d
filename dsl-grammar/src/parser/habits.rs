//! Help for habits from other languages: SQL's and C's operators, generic and nullable types,
//! fillers between a declaration's keyword and its name, units written apart from their number.

/// The help for an operator from another language where a query's condition compares: SQL's
/// `=` and `<>`, C's `&&` and `||`, SQL's `or`, `like`, `not`.
pub(super) fn operator_help(rest: &str, before: &str) -> Option<&'static str> {
    let word = rest
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    // `<>`: the parser took `<` as the comparison and stops at `>`.
    let ne = rest.starts_with("<>") || (rest.starts_with('>') && before.ends_with('<'));
    Some(if ne {
        "write `!=` for \"not equal\": `where status != ?`"
    } else if rest.starts_with("=>") || rest.starts_with("=<") {
        "write `>=` or `<=`: `where price >= ?`"
    } else if rest.starts_with('=') {
        "compare with `==` (one `=` assigns): `where title == ?`"
    } else if rest.starts_with("&&") {
        "conditions are joined with `and`: `where status == ? and price < ?`"
    } else if rest.starts_with("||") || word == "or" {
        "a query's conditions must all hold (`and`); for one of several values use `in`: \
         `where status in ?`, or declare one query per alternative"
    } else if word == "like" || word == "contains" {
        "match a prefix with `starts_with` (`where name starts_with ? ignore_case`); MongoDB \
         serves only prefixes from an index"
    } else if word == "not"
        || before
            .split_whitespace()
            .last()
            .is_some_and(|w| w.eq_ignore_ascii_case("not"))
        || rest.starts_with('!') && !rest.starts_with("!=")
    {
        "negate a comparison with `!=`: `where status != ?`"
    } else {
        return None;
    })
}

/// The help for a type written as another language writes it, where the error follows a field's
/// type: `Vec<string>`, `Option<string>`, `enum { a, b }`, `varchar(50)`, `string | null`,
/// `map<string, int32>`.
pub(super) fn type_syntax_help(rest: &str, before: &str) -> Option<&'static str> {
    let trimmed = before.trim_end();
    let start = trimmed
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = trimmed[start..].to_ascii_lowercase();
    let ahead = trimmed[..start].trim_end();
    if word.is_empty() {
        return None;
    }
    if ahead.ends_with("map<") && rest.starts_with(',') {
        return Some(
            "a map's keys are always strings: write only the type of its values, `map<int32>`",
        );
    }
    if !(ahead.ends_with(':') || ahead.ends_with('[')) {
        return None;
    }
    let is = |words: &[&str]| words.contains(&word.as_str());
    let first = rest.chars().next()?;
    Some(match first {
        '<' if is(&[
            "vec", "list", "array", "set", "hashset", "btreeset", "seq", "sequence",
        ]) =>
        {
            "an array is written `[type]`, or `[type; N]` with at most N elements: `tags: [string]`"
        }
        '<' if is(&["option", "optional", "maybe", "nullable"]) => {
            "an optional field takes `?` after its type: `nickname: string?`"
        }
        '<' if is(&[
            "hashmap",
            "btreemap",
            "dict",
            "dictionary",
            "record",
            "object",
        ]) =>
        {
            "a map is written `map<type>` (the keys are always strings): `scores: map<int32>`"
        }
        '<' => {
            "types take no `<...>` arguments, except `map<type>`: an array is `[type]`, an \
             optional field `type?`"
        }
        '(' | '{' if is(&["enum", "enumeration"]) => {
            "an enumeration is a string that takes one of listed values: `status: one_of(\"open\", \
             \"closed\")`"
        }
        '(' if is(&["string", "varchar", "char", "text", "str"]) => {
            "a string takes no length: write `string`; `@size(200B)` states its average size"
        }
        '(' => "a type takes no arguments, except `one_of(...)` and `counters(...)`",
        '{' => {
            "a field with fields inside is a `value` type declared apart: `value Address { city: \
             string }`, then `address: Address`"
        }
        '[' => {
            "an array is written `[type]`, or `[type; N]` with at most N elements: `tags: [string]`"
        }
        '|' => {
            "a field has one type; `?` after it lets it be absent or null (`nickname: string?`); \
             documents of several shapes are the variants of a `@polymorphic` entity"
        }
        _ => return None,
    })
}

/// Words people put between a declaration's keyword and its name, from other languages
/// (`value type LineItem`, `entity class Book`).
pub(super) const FILLERS: &[&str] = &[
    "type",
    "struct",
    "class",
    "model",
    "object",
    "document",
    "collection",
    "record",
    "table",
];

/// A second name where a declaration's body should begin (`value type LineItem {`, `entity
/// Order Item {`): a declaration takes one name. The help writes the declaration with the name
/// meant: the second word after a filler like `type`, else the first.
pub(super) fn two_names_help(before: &str, word: &str) -> Option<String> {
    let mut words = before.split_whitespace().rev();
    let name = words.next()?;
    let keyword = words.next()?;
    if !matches!(keyword, "value" | "entity") {
        return None;
    }
    let meant = if FILLERS.contains(&name) { word } else { name };
    Some(format!(
        "`{keyword}` takes one name, then its body in braces: `{keyword} {meant} {{ ... }}`"
    ))
}

/// The number `before` ends with (spaces aside), or `1`.
pub(super) fn last_number(before: &str) -> &str {
    let trimmed = before.trim_end();
    // The character before the number may take several bytes (a byte order mark, `é`).
    let start = trimmed
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    match &trimmed[start..] {
        "" => "1",
        n => n,
    }
}

/// A unit written after a space, or spelled out (`90 days`): units follow their number directly.
pub(super) fn unit_apart_help(number: &str, word: &str) -> String {
    let unit = match word.to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => Some("s"),
        "m" | "min" | "mins" | "minute" | "minutes" => Some("min"),
        "h" | "hr" | "hrs" | "hour" | "hours" => Some("h"),
        "d" | "day" | "days" => Some("d"),
        "b" | "byte" | "bytes" => Some("B"),
        _ => None,
    };
    match unit {
        Some(u) => format!(
            "write the unit right after the number, without a space: `{number}{u}`; durations take `s`, `min`, `h` or `d`, sizes `B`, `KB`, `MB` or `GB`"
        ),
        None if matches!(word.to_ascii_uppercase().as_str(), "KB" | "MB" | "GB") => format!(
            "write the unit right after the number, without a space: `{number}{}`",
            word.to_ascii_uppercase()
        ),
        None => "a unit follows its number without a space: durations take `s`, `min`, `h` or `d` (`30d`), sizes `B`, `KB`, `MB` or `GB` (`20KB`), rates `/s` to `/year` (`5/day`)".into(),
    }
}

/// The help for facts and clauses written another way: `count(*)`, `navigate A, B`, a ratio
/// `10/1` or `10:1:1`, a cardinality `*`, `1` or `0..n`, a sort key's direction twice.
pub(super) fn fact_syntax_help(rest: &str, before: &str) -> Option<&'static str> {
    let trimmed = before.trim_end();
    let mut words = trimmed.split_whitespace().rev();
    let (last, second) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let line = trimmed.rsplit('\n').next().unwrap_or("").trim_start();
    let first = rest.chars().next()?;
    if trimmed.ends_with("count(") {
        return Some(
            "`count` counts the children and takes no field: `summary count, total(price)`",
        );
    }
    if first == ',' && second == "navigate" {
        return Some(
            "`navigate` names one end, the side the application reads from, or `both`: \
             `navigate both`",
        );
    }
    if first == ',' && second == "standalone" {
        return Some(
            "`standalone` names one entity read on its own: write one fact per entity, each on a \
             line of its own (`standalone Book`, then `standalone Author`)",
        );
    }
    let ratio_number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '_');
    if (first == '/' && second == "ratio" && ratio_number(last))
        || (first == ':' && second == "ratio" && last.contains(':'))
        || (second == "ratio" && last.ends_with('/'))
    {
        return Some(
            "a ratio is reads per update, `reads:updates` or one number: `ratio 10:1`, `ratio 10`",
        );
    }
    let relation = line.starts_with("relation") || line.contains("<->");
    if relation
        && trimmed.ends_with(':')
        && (first == '*' || first.is_ascii_digit() || first == 'n' || first == 'N')
    {
        return Some(
            "a cardinality is `one`, `few`, `many` or `squillions`, with a bound in parentheses \
             where known: `Author.books: many(300) <-> Book.author: one` (`one?`: at most one)",
        );
    }
    let direction = |w: &str| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "asc" | "desc" | "ascending" | "descending"
        )
    };
    // SQL's `BETWEEN a AND b`: ours takes one `?` for both ends.
    if first == '?' && last == "and" && second == "?" && {
        let mut w = trimmed.split_whitespace().rev();
        w.nth(2) == Some("between")
    } {
        return Some(
            "`between ?` takes one `?` for both ends: the generated method takes two arguments \
             (`<field>_from`, `<field>_to`), and `and` starts the next condition: \
             `where check_in between ? and guest == ?`",
        );
    }
    // A path in a `keep` list (`keep guest.name`).
    if first == '.'
        && (line.starts_with("latest ") || line.starts_with("top "))
        && line.contains(" keep ")
    {
        return Some(
            "`keep` names the child's own fields, `id`, or a relation end through which the child \
             holds one other entity (`keep guest`: the reference as the child stores it, with the \
             fields copied into it), never a path",
        );
    }
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
    if direction(last) && direction(&word) {
        return Some("a sort key takes one direction: `sort created desc`, then `, title asc` for the next key");
    }
    None
}

/// The help for a file (or declaration) written in another schema language, by how it starts:
/// SQL's `CREATE TABLE`, JavaScript's `const UserSchema = new Schema(...)` (Mongoose), a
/// TypeScript decorator (`@Entity()`, TypeORM), JSON or JSON Schema (`{`, `[`), protobuf's
/// `message`, TypeScript's or GraphQL's `interface`, and `enum`.
pub(super) fn foreign_declaration_help(rest: &str, word: &str) -> Option<String> {
    const ENTITY: &str = "a thing with identity and a collection is an `entity` with its fields \
                          (`entity User { name: string, email: string @unique }`), and a link \
                          between two of them a `relation` (`relation User.orders: many <-> \
                          Order.user: one`)";
    let lower = word.to_ascii_lowercase();
    let language = match lower.as_str() {
        "create" | "alter" | "drop" | "insert" | "select" => "SQL",
        "const" | "let" | "var" | "import" | "export" | "module" | "require" | "function" => {
            "JavaScript (a Mongoose schema?)"
        }
        "message" | "syntax" | "package" => "protobuf",
        "interface" | "schema" | "input" => "TypeScript or GraphQL",
        "enum" => {
            return Some(
                "an enumeration is a field's type, not a declaration: `status: one_of(\"new\", \
                 \"paid\", \"shipped\")`"
                    .into(),
            )
        }
        _ if rest.starts_with('@') && rest[1..].starts_with(|c: char| c.is_ascii_uppercase()) => {
            return Some(format!(
                "a `.sqn` file has no decorators (TypeORM's `@Entity()`, `@Column()`): {ENTITY}; \
                 attributes follow what they describe (`entity User @collection(\"users\")`, \
                 `email: string @unique`)"
            ))
        }
        _ if rest.starts_with(['{', '[']) && rest[1..].trim_start().starts_with(['"', '{']) => {
            "JSON (or JSON Schema)"
        }
        _ => return None,
    };
    Some(format!(
        "this looks like {language}, which a `.sqn` file is not: {ENTITY}; see docs/language.md"
    ))
}
