//! Every syntax error says what to do: a help line, specific for the mistakes people make (a
//! unit written apart from its number, SQL's `order by`, a literal where a query takes `?`) and
//! otherwise what the construct being written looks like. Tested over the mistakes themselves,
//! spelled several ways, and over random damage to every example schema.

use proptest::prelude::*;
use squillion_grammar::{parse, Diagnostic};

fn errors(src: &str) -> Vec<Diagnostic> {
    match parse(src) {
        Ok(_) => Vec::new(),
        Err(d) => d,
    }
}

fn help_of(src: &str) -> String {
    let d = errors(src);
    let first = d
        .first()
        .unwrap_or_else(|| panic!("parses, but should not: {src}"));
    first
        .help
        .clone()
        .unwrap_or_else(|| panic!("{} has no help: {}\n{src}", first.code, first.message))
}

#[test]
fn a_unit_written_apart_or_spelled_out_is_shown_joined() {
    let cases = [
        ("@expires(90 days)", "`90d`"),
        ("@expires(90 day)", "`90d`"),
        ("@expires(12 hours)", "`12h`"),
        ("@expires(30 minutes)", "`30min`"),
        ("@expires(30 seconds)", "`30s`"),
        ("@expires(30 d)", "`30d`"),
        ("@large(20 KB)", "`20KB`"),
        ("@large(20 mb)", "`20MB`"),
        ("@size(200 bytes)", "`200B`"),
    ];
    for (attr, shown) in cases {
        let src = format!("entity A {{ at: date {attr} }}\n");
        let help = help_of(&src);
        assert!(help.contains(shown), "{attr}: {help}");
        assert!(help.contains("without a space"), "{attr}: {help}");
    }
    // A word that is no unit at all still gets the list of units.
    let help = help_of("entity A { at: date @expires(3 fortnights) }\n");
    assert!(help.contains("`s`, `min`, `h` or `d`"), "{help}");
}

/// The help's suggestion is checked by parsing it: it once said `sort by`, which queries did not
/// accept (they do now, as the relation facts order `by` a field).
#[test]
fn sql_order_by_points_to_sort_by() {
    for tail in ["order by a", "order by a desc", "where a == ? order by a"] {
        let src = format!("entity A {{ a: int32 }}\nquery q on A {{ {tail} }}\n");
        assert!(help_of(&src).contains("`sort`"), "{tail}");
        // What the help says parses, and so does the facts' `by` after it.
        for meant in ["sort", "sort by"] {
            let fixed = src.replace("order by", meant);
            assert!(parse(&fixed).is_ok(), "{fixed}");
        }
    }
}

#[test]
fn a_literal_in_a_condition_points_to_the_parameter() {
    for cond in [
        "a == 5",
        "a == -1",
        "a == \"x\"",
        "a == true",
        "a != null",
        "a in [1, 2]",
        "a >= 3.5",
    ] {
        let src = format!("entity A {{ a: int32 }}\nquery q on A {{ where {cond} }}\n");
        let help = help_of(&src);
        assert!(help.contains("parameter `?`"), "{cond}: {help}");
    }
}

/// Operators from SQL and C in a condition, at its start, in its middle and between two
/// conditions: each gets the squillion spelling, never the help of another construct (a single
/// `=` used to get "a relation end is `Entity.field: cardinality`").
#[test]
fn operators_from_other_languages_point_to_ours() {
    let cases = [
        ("a = ?", "`==`"),
        ("a => ?", "`>=`"),
        ("a =< ?", "`<=`"),
        ("a <> ?", "`!=`"),
        ("a == ? && b == ?", "`and`"),
        ("a == ? || b == ?", "`in`"),
        ("a == ? or b == ?", "`in`"),
        ("a == ? OR b == ?", "`in`"),
        ("a like ?", "`starts_with`"),
        ("a contains ?", "`starts_with`"),
        ("not a == ?", "`!=`"),
        ("b == ? and a = ?", "`==`"),
    ];
    for (cond, shown) in cases {
        for tail in ["", " limit 5", "\n  sort a"] {
            let src = format!(
                "entity A {{ a: int32 b: string }}\nquery q on A {{ where {cond}{tail} }}\n"
            );
            let help = help_of(&src);
            assert!(help.contains(shown), "{cond}{tail}: {help}");
            assert!(!help.contains("relation end"), "{cond}{tail}: {help}");
        }
    }
}

/// A misspelt declaration keyword (a letter changed, added, dropped or swapped, any case) is
/// named; a word that is no near miss gets the list of declarations only.
/// Types written as Rust, SQL, TypeScript or Java write them, in every place a field's type goes
/// (an entity, a value type, a variant, a relation's own fields, an array's element): each gets
/// the squillion spelling of what it means, never the generic help of an entity's body.
#[test]
fn types_from_other_languages_point_to_ours() {
    let cases = [
        ("Vec<string>", "`[type]`"),
        ("List<int32>", "`[type]`"),
        ("Set<string>", "`[type]`"),
        ("array<string>", "`[type]`"),
        ("Option<string>", "`?` after its type"),
        ("Optional<date>", "`?` after its type"),
        ("HashMap<string, int32>", "`map<type>`"),
        ("Dict<string>", "`map<type>`"),
        ("map<string, int32>", "keys are always strings"),
        ("Foo<bar>", "no `<...>`"),
        ("enum { open, closed }", "one_of("),
        ("enum(\"open\", \"closed\")", "one_of("),
        ("string(50)", "takes no length"),
        ("varchar(255)", "takes no length"),
        ("decimal(10, 2)", "takes no arguments"),
        ("Address { city: string }", "`value` type"),
        ("string | null", "`?`"),
        ("int32 | string", "`@polymorphic`"),
        ("one_of('a', 'b')", "double quotes"),
    ];
    let places: [fn(&str) -> String; 5] = [
        |t| format!("entity A {{ x: {t} }}\n"),
        |t| format!("value V {{\n  y: int32\n  x: {t}\n}}\n"),
        |t| format!("entity S @polymorphic(discriminator: \"t\") {{ variant c {{ x: {t} }} }}\n"),
        |t| {
            format!(
                "entity A {{ a: int32 }}\nentity B {{ b: int32 }}\n\
                 relation A.bs: many <-> B.as: many {{ fields {{ x: {t} }} }}\n"
            )
        },
        |t| format!("entity A {{ x: [{t}] }}\n"),
    ];
    for (ty, shown) in cases {
        for place in places {
            let src = place(ty);
            // An array's element may not be followed by `|` or `{` in a way the parser reaches.
            let Err(d) = parse(&src) else {
                panic!("parses, but should not:\n{src}");
            };
            let help = d[0].help.clone().unwrap_or_default();
            assert!(help.contains(shown), "{ty}: {help}\n{src}");
            assert!(
                !help.contains("an entity's body holds"),
                "{ty}: {help}\n{src}"
            );
        }
    }
}

#[test]
fn a_misspelt_declaration_keyword_is_named() {
    let cases = [
        ("entitiy", "entity"),
        ("Entity", "entity"),
        ("enity", "entity"),
        ("etnity", "entity"),
        ("relaton", "relation"),
        ("RELATION", "relation"),
        ("quer", "query"),
        ("vlaue", "value"),
        ("setings", "settings"),
    ];
    for (typo, meant) in cases {
        for before in ["", "entity Z { n: string }\n"] {
            let src = format!("{before}{typo} A {{ n: string }}\n");
            let help = help_of(&src);
            assert!(
                help.contains(&format!("did you mean `{meant}`?")),
                "{typo}: {help}"
            );
        }
    }
    let help = help_of("table A { n: string }\n");
    assert!(!help.contains("did you mean"), "{help}");
    assert!(help.contains("`entity`"), "{help}");
}

/// Tokens that damage a schema when put in the wrong place.
const NOISE: [&str; 16] = [
    "", "{", "}", "(", ")", ":", "=", "?", "@", "<->", ";", "42", "\"s\"", "few", "where", "x y",
];

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    out.sort();
    assert!(out.len() >= 5);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, .. ProptestConfig::default() })]

    /// Replace a random word of an example by noise: whatever error that makes has a help line.
    #[test]
    fn every_syntax_error_of_a_damaged_example_has_help(
        which in 0usize..5,
        at in 0usize..100_000,
        noise in 0usize..NOISE.len(),
    ) {
        let text = &examples()[which];
        let words: Vec<(usize, &str)> = text
            .split_inclusive(char::is_whitespace)
            .scan(0usize, |pos, w| { let start = *pos; *pos += w.len(); Some((start, w)) })
            .collect();
        let (start, word) = words[at % words.len()];
        let damaged = format!("{}{} {}", &text[..start], NOISE[noise], &text[start + word.len()..]);
        for d in errors(&damaged) {
            prop_assert!(
                d.help.as_deref().is_some_and(|h| !h.trim().is_empty()),
                "{} without help: {}\n{}", d.code, d.message, damaged
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    /// The same damage with a character of several bytes written just before it or just after
    /// it (a byte order mark, accented letters, an emoji, Unicode line separators): no panic, a
    /// help line on every error, and every span starts and ends on a character boundary, so the
    /// rendered snippet (also drawn here) and an editor can cut the text there. The fuzzer found
    /// a byte order mark before a number whose error help sliced inside it.
    #[test]
    fn damage_beside_multibyte_characters_is_answered_on_character_boundaries(
        which in 0usize..5,
        at in 0usize..100_000,
        noise in 0usize..NOISE.len(),
        wide in 0usize..WIDE.len(),
        after in any::<bool>(),
    ) {
        let text = &examples()[which];
        let words: Vec<(usize, &str)> = text
            .split_inclusive(char::is_whitespace)
            .scan(0usize, |pos, w| { let start = *pos; *pos += w.len(); Some((start, w)) })
            .collect();
        let (start, word) = words[at % words.len()];
        let (a, b) = if after { (NOISE[noise], WIDE[wide]) } else { (WIDE[wide], NOISE[noise]) };
        let damaged = format!("{}{a}{b} {}", &text[..start], &text[start + word.len()..]);
        let found = errors(&damaged);
        for d in &found {
            prop_assert!(
                d.help.as_deref().is_some_and(|h| !h.trim().is_empty()),
                "{} without help: {}\n{}", d.code, d.message, damaged
            );
            prop_assert!(
                damaged.is_char_boundary(d.span.start) && damaged.is_char_boundary(d.span.end),
                "{} at {:?} cuts a character: {}\n{}", d.code, d.span, d.message, damaged
            );
        }
        let _ = squillion_grammar::SourceFile::new("damaged.sqn", damaged.as_str()).render(&found, false);
    }
}

/// Characters of two to four bytes, and `\u{FEFF}`, which the grammar reads as white space.
const WIDE: &[&str] = &[
    "\u{FEFF}",
    "é",
    "€",
    "😀",
    "\u{2028}",
    "\u{85}",
    "ß",
    "\u{FEFF}7",
];

/// Every number of every example followed by a wide character and a word (where a unit may be
/// written apart: `few(8)\u{FEFF} Tag`, `30€ days`): the help that shows the number joined to its
/// unit cuts the text before the word on a character boundary, never inside the character.
#[test]
fn a_wide_character_after_any_number_is_cut_on_a_boundary() {
    let mut tried = 0;
    for text in examples() {
        let ends: Vec<usize> = text
            .char_indices()
            .filter(|&(i, c)| {
                c.is_ascii_digit() && !text[i + 1..].starts_with(|d: char| d.is_ascii_digit())
            })
            .map(|(i, _)| i + 1)
            .collect();
        for end in ends {
            let close = end + usize::from(text[end..].starts_with(')'));
            for at in [end, close] {
                for wide in ["\u{FEFF}", "é", "😀"] {
                    let damaged = format!("{}{wide} days {}", &text[..at], &text[at..]);
                    for d in errors(&damaged) {
                        assert!(
                            damaged.is_char_boundary(d.span.start)
                                && damaged.is_char_boundary(d.span.end),
                            "{} at {:?} cuts a character: {}",
                            d.code,
                            d.span,
                            d.message
                        );
                        assert!(d.help.as_deref().is_some_and(|h| !h.trim().is_empty()));
                    }
                    tried += 1;
                }
            }
        }
    }
    assert!(tried > 1_000, "only {tried} damaged files");
}

/// A declaration takes one name: a word from another language between the keyword and the name
/// (`value type LineItem`, `entity class Book`) or a name in two words gets a help that writes
/// the declaration as meant, for every filler, both keywords and names drawn at random.
mod two_names {
    use super::*;

    const FILLERS: &[&str] = &[
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

    proptest! {
        #[test]
        fn a_filler_before_the_name_is_dropped_in_the_help(
            keyword in prop::sample::select(vec!["value", "entity"]),
            filler in prop::sample::select(FILLERS.to_vec()),
            name in "[A-Z][a-z]{1,8}(_[a-z]{1,5})?",
        ) {
            let src = format!("{keyword} {filler} {name} {{\n  quantity: int32\n}}\n");
            let help = help_of(&src);
            prop_assert_eq!(
                help,
                format!("`{keyword}` takes one name, then its body in braces: `{keyword} {name} {{ ... }}`"),
                "{}", src
            );
            // The error points at the second name, where the body should have begun.
            let d = errors(&src);
            let at = src.find(&format!(" {name} ")).unwrap() + 1;
            prop_assert_eq!(d[0].span.start, at, "{}", src);
        }

        #[test]
        fn a_name_in_two_words_keeps_the_first(
            keyword in prop::sample::select(vec!["value", "entity"]),
            first in "[A-Z][a-z]{1,8}",
            second in "[A-Z][a-z]{1,8}",
        ) {
            prop_assume!(!FILLERS.contains(&first.as_str()));
            let src = format!("{keyword} {first} {second} {{ quantity: int32 }}\n");
            prop_assert_eq!(
                help_of(&src),
                format!("`{keyword}` takes one name, then its body in braces: `{keyword} {first} {{ ... }}`"),
                "{}", src
            );
        }
    }
}

/// The sort keys of every query of a file, as (path, direction) in order.
fn sort_keys(src: &str) -> Vec<Vec<(String, String)>> {
    let file = parse(src).unwrap_or_else(|d| panic!("{}: {}", d[0].code, d[0].message));
    file.items
        .iter()
        .filter_map(|item| match item {
            squillion_grammar::ast::Item::Query(q) => Some(
                q.sort
                    .iter()
                    .map(|k| (k.path.dotted(), format!("{:?}", k.direction)))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// `sort by f` reads as `sort f` in every query of every example, whatever the keys and
/// directions (relation facts order `by` a field, and people carry the word over).
#[test]
fn sort_by_reads_as_sort_in_every_example_query() {
    let mut seen = 0;
    let corpus = [
        "../examples/generated/schemas",
        "../codegen/tests/decisions/real_world",
    ]
    .iter()
    .flat_map(|dir| {
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
    })
    .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
    .map(|p| std::fs::read_to_string(p).unwrap());
    for text in examples().into_iter().chain(corpus) {
        let with_by = text.replace(" sort ", " sort by ");
        let (plain, by) = (sort_keys(&text), sort_keys(&with_by));
        seen += plain.iter().filter(|k| !k.is_empty()).count();
        assert_eq!(plain, by);
    }
    assert!(seen >= 10, "only {seen} sorted queries in the examples");
}

/// Facts and clauses written another way, in each relation or query they may appear in: the
/// help says the squillion form, never "close every `{`" or the help of another construct.
#[test]
fn facts_written_another_way_point_to_ours() {
    let relation = |body: &str| {
        format!(
            "entity A {{ n: string }}\nentity B {{ t: string p: int32 }}\n\
             relation A.bs: many <-> B.a: one {{\n  standalone B\n  {body}\n}}\n"
        )
    };
    let cases = [
        ("summary count(*)", "takes no field"),
        ("summary count(*), total(p)", "takes no field"),
        ("navigate A, B", "`navigate both`"),
        ("navigate B, A", "`navigate both`"),
        ("standalone A, B", "one fact per entity"),
        ("standalone B, A", "one fact per entity"),
        ("show A.n on B ratio 10/1", "`reads:updates`"),
        ("show A.n on B ratio 100/3", "`reads:updates`"),
        ("show A.n on B ratio 10:1:1", "`reads:updates`"),
        ("latest 3 by t desc desc", "one direction"),
        ("page 20 by t asc desc", "one direction"),
    ];
    for (body, shown) in cases {
        let src = relation(body);
        let help = help_of(&src);
        assert!(help.contains(shown), "{body}: {help}");
        assert!(!help.contains("close every"), "{body}: {help}");
    }
    for sort in ["sort t desc desc", "sort t asc asc", "sort t, p desc asc"] {
        let src =
            format!("entity B {{ t: string p: int32 }}\nquery q on B {{ where t == ? {sort} }}\n");
        let help = help_of(&src);
        assert!(help.contains("one direction"), "{sort}: {help}");
    }
    for (left, right) in [("*", "1"), ("0..*", "one"), ("many", "1"), ("1", "*")] {
        let src = format!(
            "entity A {{ n: string }}\nentity B {{ t: string }}\nrelation A.bs: {left} <-> B.a: {right}\n"
        );
        let help = help_of(&src);
        assert!(
            help.contains("a cardinality is"),
            "{left} / {right}: {help}"
        );
    }
}

/// Every keyword of a relation's body and of a query's body, misspelt by one letter (dropped,
/// added, changed or swapped): the help names the keyword meant, and what the body holds,
/// never "close every `{`".
#[test]
fn a_misspelt_fact_or_clause_keyword_is_named() {
    fn misspellings(kw: &str) -> Vec<String> {
        let c: Vec<char> = kw.chars().collect();
        let mut out = Vec::new();
        for i in 0..c.len() {
            let mut d = c.clone();
            d.remove(i);
            out.push(d.iter().collect());
            if i + 1 < c.len() && c[i] != c[i + 1] {
                let mut s = c.clone();
                s.swap(i, i + 1);
                out.push(s.iter().collect());
            }
        }
        out.push(format!("{kw}x"));
        out.retain(|w: &String| w != kw && w.chars().next().is_some_and(|f| f.is_alphabetic()));
        out
    }
    let facts = [
        ("standalone", "standalone B"),
        ("navigate", "navigate both"),
        ("latest", "latest 3 by t desc"),
        ("summary", "summary count"),
        ("time_range", "time_range by t"),
        ("growth", "growth append_heavy"),
        ("atomic_move", "atomic_move"),
        ("fields", "fields { x: int32 }"),
        ("force", "force embed"),
        ("page", "page 20 by t"),
    ];
    let mut checked = 0;
    for (kw, fact) in facts {
        for typo in misspellings(kw) {
            let src = format!(
                "entity A {{ n: string }}\nentity B {{ t: string }}\n\
                 relation A.bs: many <-> B.a: one {{\n  {}\n}}\n",
                fact.replacen(kw, &typo, 1)
            );
            let help = help_of(&src);
            // Another keyword may be one letter from the typo too (`page` and `pages`...): the
            // help must name a keyword, the meant one whenever it is the only near miss.
            assert!(help.starts_with("did you mean `"), "{typo}: {help}");
            assert!(
                help.contains("a relation's body holds facts"),
                "{typo}: {help}"
            );
            assert!(!help.contains("close every"), "{typo}: {help}");
            // The fix writes the keyword the help names over the whole misspelt word (pest
            // stops inside `standalonex`), and the relation parses.
            let d = &errors(&src)[0];
            let fix = d.fix.as_ref().unwrap_or_else(|| panic!("{typo}: no fix"));
            assert!(
                help.contains(&format!("`{}`?", fix.replacement)),
                "{typo}: {help}"
            );
            let mut fixed = src.clone();
            fixed.replace_range(fix.span.start..fix.span.end, &fix.replacement);
            assert!(parse(&fixed).is_ok(), "{typo}: {fixed}");
            checked += 1;
        }
    }
    for (kw, clause) in [
        ("where", "where t == ?"),
        ("sort", "sort t desc"),
        ("limit", "limit 5"),
        ("returns", "returns t"),
    ] {
        for typo in misspellings(kw) {
            let src = format!(
                "entity B {{ t: string }}\nquery q on B {{ {} }}\n",
                clause.replacen(kw, &typo, 1)
            );
            let help = help_of(&src);
            assert!(
                help.contains(&format!("did you mean `{kw}`?")),
                "{typo}: {help}"
            );
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

/// SQL's `between ? and ?` and a path in a `keep` list: the help says our form.
#[test]
fn between_with_two_parameters_and_keep_paths_point_to_ours() {
    for cond in [
        "at between ? and ?",
        "n == ? and at between ? and ?",
        "at between ?  and  ? and n == ?",
    ] {
        let src = format!("entity B {{ n: string  at: date }}\nquery q on B {{ where {cond} }}\n");
        let help = help_of(&src);
        assert!(help.contains("`between ?` takes one `?`"), "{cond}: {help}");
    }
    for fact in ["latest 3 by t desc keep a.n", "top 3 by t desc keep t, a.n"] {
        let src = format!(
            "entity A {{ n: string }}\nentity B {{ t: int32 }}\n\
             relation A.bs: many <-> B.a: one {{\n  {fact}\n}}\n"
        );
        let help = help_of(&src);
        assert!(
            help.contains("`keep` names the child's own fields"),
            "{fact}: {help}"
        );
    }
}

/// The declarations a body may be left open in, each with the line its `{` is on (counted from
/// its first line) and its text without the closing `}`.
const OPEN_BODIES: &[(&str, usize)] = &[
    ("entity Show {\n  title: string\n  // a comment with a { brace\n", 1),
    ("value Money {\n  amount: decimal128\n  note: string @stored(\"n{\")\n", 1),
    ("/// Episodes of a show.\nrelation Show.episodes: many <-> Episode.show: one {\n  standalone Episode\n", 2),
    ("query by_title on Show {\n  where title == ?\n  sort title\n", 1),
    ("settings {\n  embed_array_max = 50\n", 1),
];

const NEXT_DECLARATIONS: &[(&str, &str)] = &[
    ("entity", "entity Episode { title: string }\n"),
    ("value", "value Tag { label: string }\n"),
    (
        "relation",
        "relation Episode.tags: few <-> Tag.episode: one\n",
    ),
    ("query", "query recent on Episode { where title == ? }\n"),
    ("settings", "settings { bucket_size = 5 }\n"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, .. ProptestConfig::default() })]

    /// A body left without its `}` before the next declaration: the help names the declaration
    /// that starts, the line of the `{` left open, and the `}` to add, whatever the body (entity,
    /// value, relation facts, query clauses, settings; braces in comments and strings) and
    /// whatever comes before and between.
    #[test]
    fn a_body_left_open_is_named_with_its_line(
        open in 0..OPEN_BODIES.len(),
        next in 0..NEXT_DECLARATIONS.len(),
        before in 0usize..3,
        blank in 0usize..3,
    ) {
        let (body, brace_line) = OPEN_BODIES[open];
        let (keyword, decl) = NEXT_DECLARATIONS[next];
        let prefix = "entity Before { x: int32 }\n\n".repeat(before);
        let src = format!("{prefix}{body}{}{decl}", "\n".repeat(blank));
        let help = help_of(&src);
        let line = before * 2 + brace_line;
        prop_assert!(
            help.contains(&format!("the `{{` on line {line} is not closed"))
                && help.contains(&format!("add `}}` before `{keyword}`")),
            "{help}\n{src}"
        );
        // The fix the help names parses.
        let fixed = format!("{prefix}{body}}}\n{}{decl}", "\n".repeat(blank));
        prop_assert!(errors(&fixed).is_empty(), "the fix does not parse:\n{fixed}");
    }
}

/// Declaration keywords stay usable as names: a field or setting called `entity` is no open body.
#[test]
fn a_field_named_like_a_keyword_is_no_open_body() {
    let src = "entity A {\n  entity: string\n  query: int32\n}\nentity B { value: string }\n";
    assert!(errors(src).is_empty(), "{:?}", errors(src));
    // A mistake after such a field gets the field's help, not the open body's.
    let help = help_of("entity A {\n  entity string\n}\n");
    assert!(!help.contains("not closed"), "{help}");
}

/// A relation fact written among an entity's fields or a query's clauses (a newcomer's
/// `entity Post { text: string  standalone Post }`, `query q on Post { where a == ? page 20 }`)
/// is named as a relation fact, with where it goes; every fact keyword, in entities and value
/// types of several names, and in queries.
#[test]
fn a_relation_fact_in_an_entity_or_a_query_says_where_it_belongs() {
    let facts = [
        ("standalone", "B"),
        ("show", "A.x on B ratio 10:1"),
        ("navigate", "both"),
        ("growth", "append_heavy"),
        ("page", "20 by x"),
        ("latest", "5 by x desc"),
        ("top", "5 by x desc"),
        ("summary", "count"),
        ("time_range", "by x"),
        ("force", "embed"),
    ];
    for (kw, args) in facts {
        for (decl, name) in [
            ("entity", "Post"),
            ("value", "Address"),
            ("entity", "LogMessage"),
        ] {
            let src = format!("{decl} {name} {{\n  x: string\n  {kw} {args}\n}}\n");
            let help = help_of(&src);
            assert!(
                help.contains(&format!("`{kw}` is a relation fact")),
                "{src}\n{help}"
            );
            assert!(help.contains(&format!("`{kw}: type`")), "{src}\n{help}");
        }
        let src = format!(
            "entity Post {{ x: string }}\nquery q on Post {{ where x == ? {kw} {args} }}\n"
        );
        let help = help_of(&src);
        assert!(
            help.contains(&format!("`{kw}` is a relation fact, not a query clause")),
            "{src}\n{help}"
        );
    }
    // `page` says how a query is read in pages instead.
    let help = help_of("entity A { x: int32 }\nquery q on A { where x == ? page 20 }\n");
    assert!(help.contains("`_page`"), "{help}");
    // A field named like a fact, written properly, parses.
    assert!(errors("entity A { show: string  page: int32 }\n").is_empty());
}

/// An arrow other than `<->` between two relation ends (`->`, `<-`, `--`, `=>`) is corrected to
/// `<->`, whichever ends and cardinalities surround it, and the corrected file parses.
#[test]
fn another_arrow_between_relation_ends_points_to_the_double_arrow() {
    for arrow in ["->", "<-", "--", "=>", "<=>"] {
        for (left, right) in [("many", "one"), ("few(3)", "one?"), ("squillions", "one")] {
            let src = format!(
                "entity A {{ x: string }}\nentity B {{ y: string }}\n\
                 relation A.bs: {left} {arrow} B.a: {right}\n"
            );
            let help = help_of(&src);
            assert!(help.starts_with("did you mean `<->`?"), "{src}\n{help}");
            assert!(errors(&src.replace(arrow, "<->")).is_empty(), "{src}");
            // The quick fix (the editor's "did you mean") replaces exactly the arrow.
            let d = errors(&src);
            let fix = d[0].fix.as_ref().unwrap_or_else(|| panic!("no fix: {src}"));
            let mut fixed = src.clone();
            fixed.replace_range(fix.span.start..fix.span.end, &fix.replacement);
            assert!(errors(&fixed).is_empty(), "{src}\n{fixed}");
        }
    }
}

/// A condition whose operator is followed by nothing (the `?` left out, before `}`, `and` or the
/// next clause) is told to add `?` with the condition as written, not that it wrote a literal;
/// over operators, fields and what follows.
#[test]
fn a_condition_without_its_parameter_is_shown_with_it() {
    for op in ["==", "!=", "<", ">=", "between", "in", "starts_with"] {
        for field in ["x", "price", "created_at"] {
            for tail in ["}", "and y == ? }", "sort y }", "limit 5 }"] {
                let src = format!(
                    "entity A {{ x: int32 price: int32 created_at: int32 y: int32 }}\n\
                     query q on A {{ where {field} {op} {tail}\n"
                );
                let help = help_of(&src);
                assert!(help.contains(&format!("`{field} {op} ?`")), "{src}\n{help}");
                assert!(!help.contains("literal"), "{src}\n{help}");
                let fixed = src.replace(&format!("{field} {op} "), &format!("{field} {op} ? "));
                assert!(errors(&fixed).is_empty(), "{fixed}");
            }
        }
    }
    // A literal still hears that conditions take `?`.
    let help = help_of("entity A { x: int32 }\nquery q on A { where x == 3 }\n");
    assert!(help.contains("never a literal"), "{help}");
}

/// Round 21: `sort created descending` was reported at `ending` (the parser had read `desc`'s
/// letters before finding the word goes on), with the generic help. An error never points into
/// the middle of a word: for every keyword the grammar reads, followed by more letters, wherever
/// the keyword is expected (a declaration, a fact, a clause, a direction, a cardinality), the
/// error's span starts where the word starts.
#[test]
fn an_error_points_at_the_whole_word_not_its_tail() {
    let places: [(&str, &str); 8] = [
        ("", " A { n: string }\n"),
        ("entity A { n: string }\nquery q on A { sort n ", " }\n"),
        ("entity A { n: string }\nquery q on A { ", " n }\n"),
        (
            "entity A { n: string }\nentity B { m: date }\nrelation A.bs: squillions <-> B.a: one {\n  ",
            " 20 by m\n}\n",
        ),
        (
            "entity A { n: string }\nentity B { m: date }\nrelation A.bs: squillions <-> B.a: one {\n  page 20 by m ",
            "\n}\n",
        ),
        (
            "entity A { n: string }\nentity B { m: date }\nrelation A.bs: squillions <-> B.a: one {\n  latest 3 by m ",
            "\n}\n",
        ),
        ("entity A { n: string }\nentity B { m: date }\nrelation A.bs: ", " <-> B.a: one\n"),
        ("entity A { n: string }\nquery q on A { ", " n == ? }\n"),
    ];
    let words = [
        "descending",
        "ascending",
        "descx",
        "ascs",
        "entitys",
        "relations",
        "pages",
        "latests",
        "sorting",
        "wherever",
        "standalones",
        "manyy",
        "squillionss",
    ];
    let mut failures = Vec::new();
    let mut reached = 0;
    for (head, tail) in places {
        for word in words {
            let src = format!("{head}{word}{tail}");
            let Some(d) = errors(&src).into_iter().next() else {
                continue;
            };
            let start = head.len();
            if d.span.start > start && d.span.start < start + word.len() {
                failures.push(format!(
                    "{word:?} after {head:?}: points at {:?}",
                    &src[d.span.start..d.span.end]
                ));
            }
            reached += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(reached > 50, "only {reached} errors");
    let help = help_of("entity A { n: date }\nquery q on A { sort n descending }\n");
    assert!(help.contains("did you mean `desc`?"), "{help}");
    let help = help_of("entity A { n: date }\nentity B { m: date }\nrelation A.bs: squillions <-> B.a: one { page 5 by m ascending }\n");
    assert!(help.contains("did you mean `asc`?"), "{help}");
}

/// Other tools' ways of writing an array type and a declaration get help in squillion's words.
#[test]
fn other_tools_arrays_and_declarations_are_translated() {
    for ty in ["string[]", "int32[]", "Tag[]"] {
        let src = format!("value Tag {{ n: string }}\nentity A {{ tags: {ty} }}\n");
        let help = help_of(&src);
        assert!(help.contains("`[type]`"), "{ty}: {help}");
    }
    for word in ["model", "struct", "class", "collection", "Table"] {
        let src = format!("{word} A {{ n: string }}\n");
        let help = help_of(&src);
        assert!(
            help.contains(&format!("`{word}` is another language's word")),
            "{word}: {help}"
        );
        assert!(help.contains("`entity`"), "{word}: {help}");
    }
}
