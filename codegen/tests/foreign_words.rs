//! Type and attribute names from other languages and tools.
//!
//! Type names from other languages (Rust's `u64`, SQL's `varchar`, TypeScript's `number`, Java's
//! `UUID`), in every place a type goes: each is E0301 with the squillion type it means and a fix
//! that writes it (and the fixed file checks), or, where no single type is meant (`uuid`, `json`,
//! `enum`), a help saying what to write instead, never a near miss by spelling (`object` is not
//! `objectId`).

use squillion_grammar::{Diagnostic, SourceFile};

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    match squillion_codegen::load(&SourceFile::new("t.sqn", text)) {
        Ok(checked) => checked.warnings,
        Err(all) => all,
    }
}

/// The first diagnostic of `text` with `code`, and its help.
fn first_of(code: &str, text: &str) -> (Diagnostic, String) {
    let d = diagnostics(text)
        .into_iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code}:\n{text}"));
    let help = d.help.clone().unwrap_or_default();
    (d, help)
}

/// `text` with the fix of `d` applied.
fn fixed(text: &str, d: &Diagnostic) -> String {
    let fix = d
        .fix
        .as_ref()
        .unwrap_or_else(|| panic!("{} has no fix", d.code));
    let mut out = text.to_owned();
    out.replace_range(fix.span.start..fix.span.end, &fix.replacement);
    out
}

/// Every place a type name goes, with `T` where it is written.
const PLACES: [&str; 6] = [
    "entity A { x: T }",
    "entity A { x: T? }",
    "entity A { x: [T; 5] }",
    "entity A { x: map<T> }",
    "value V { x: T }\nentity A { v: V }",
    "entity A { a: int32 }\nentity B { b: int32 }\nrelation A.bs: many <-> B.as: many { fields { x: T } }",
];

#[test]
fn a_type_name_from_another_language_is_fixed_to_ours() {
    let meant = [
        ("u64", "int64"),
        ("U32", "int64"),
        ("usize", "int64"),
        ("i16", "int32"),
        ("short", "int32"),
        ("Integer", "int32"),
        ("Long", "int64"),
        ("bigint", "int64"),
        ("f32", "double"),
        ("number", "double"),
        ("real", "double"),
        ("Boolean", "bool"),
        ("DateTime", "date"),
        ("time", "date"),
        ("String", "string"),
        ("varchar", "string"),
        ("char", "string"),
        ("money", "decimal128"),
        ("Decimal", "decimal128"),
        ("bytes", "binary"),
        ("ObjectID", "objectId"),
        ("oid", "objectId"),
    ];
    for (word, ty) in meant {
        for place in PLACES {
            let text = place.replace('T', word);
            let (d, help) = first_of("E0301", &text);
            assert_eq!(help, format!("did you mean `{ty}`?"), "{word}:\n{text}");
            let fixed = fixed(&text, &d);
            assert!(
                diagnostics(&fixed).iter().all(|d| d.code != "E0301"),
                "`{word}` fixed to `{ty}` still fails:\n{fixed}"
            );
        }
    }
}

#[test]
fn a_type_with_no_single_equivalent_gets_what_to_write() {
    let cases = [
        ("uuid", "`binary`"),
        ("UUID", "`string`"),
        ("guid", "no UUID type"),
        ("json", "`value` type"),
        ("object", "`value` type"),
        ("Object", "`map<type>`"),
        ("any", "`value` type"),
        ("dict", "`map<type>`"),
        ("enum", "one_of("),
        ("list", "`[type]`"),
        ("Vec", "`[type]`"),
        ("set", "`[type]`"),
        ("map", "`map<type>`"),
        ("HashMap", "`map<type>`"),
    ];
    for (word, shown) in cases {
        for place in PLACES {
            let text = place.replace('T', word);
            let (d, help) = first_of("E0301", &text);
            assert!(help.contains(shown), "{word}: {help}\n{text}");
            assert!(!help.contains("did you mean"), "{word}: {help}");
            assert!(d.fix.is_none(), "{word} has a fix: {help}");
        }
    }
}

/// Every place a field attribute goes, with `@A` where it is written.
const FIELD_PLACES: [&str; 4] = [
    "entity E { x: string @A }",
    "value V { x: string @A }\nentity E { v: V }",
    "entity E @polymorphic(discriminator: \"t\") { variant c { x: string @A } }",
    "entity E { a: int32 }\nentity B { b: int32 }\nrelation E.bs: many <-> B.es: many { fields { x: string @A } }",
];

/// The first E0310 of `text`, with its help.
fn unknown_attribute(text: &str) -> (Diagnostic, String) {
    first_of("E0310", text)
}

/// ORM, SQL and serde names of field and entity attributes: each gets the attribute it means,
/// with a fix that writes it and makes the error go away.
#[test]
fn an_attribute_name_from_another_tool_is_fixed_to_ours() {
    let field = [
        ("case_insensitive", "ignore_case"),
        ("CaseInsensitive", "ignore_case"),
        ("collation", "ignore_case"),
        ("primary_key", "key"),
        ("pk", "key"),
        ("indexed", "index"),
        ("readonly", "immutable"),
        ("final", "immutable"),
        ("secret", "sensitive"),
        ("pii", "sensitive"),
        ("ttl(30d)", "expires"),
        ("rename(\"n\")", "stored"),
        ("column(\"n\")", "stored"),
        ("increment", "counter"),
    ];
    for (attr, meant) in field {
        for place in FIELD_PLACES {
            let text = place.replace("@A", &format!("@{attr}"));
            let (d, help) = unknown_attribute(&text);
            assert_eq!(help, format!("did you mean `@{meant}`?"), "{attr}:\n{text}");
            let fixed = fixed(&text, &d);
            assert!(
                diagnostics(&fixed).iter().all(|d| d.code != "E0310"),
                "`@{attr}` fixed to `@{meant}` still unknown:\n{fixed}"
            );
        }
    }
    let entity = [
        ("table(\"t\")", "collection"),
        ("history", "versioned"),
        ("audit", "versioned"),
        ("readonly", "static"),
        ("inheritance(discriminator: \"t\")", "polymorphic"),
        ("hierarchy", "tree"),
    ];
    for (attr, meant) in entity {
        let text = format!("entity E @{attr} {{\n  x: string\n}}\n");
        let (d, help) = unknown_attribute(&text);
        assert_eq!(help, format!("did you mean `@{meant}`?"), "{attr}");
        assert!(d.fix.is_some(), "{attr}");
    }
}

/// Attributes other tools have and squillion says another way (`@required`, `@default(0)`,
/// `@max(5)`, `@length(50)`, `@fk`): the help says how, and no near miss by spelling is offered
/// (`@max` is not `@large`, `@default` not `@index`).
#[test]
fn an_attribute_said_another_way_gets_how() {
    let cases = [
        ("required", "`?`"),
        ("not_null", "`?`"),
        ("optional", "`?` after its type"),
        ("nullable", "`?` after its type"),
        ("default(0)", "no default"),
        ("max(5)", "`@range(min, max)`"),
        ("min(0)", "`@range(min, max)`"),
        ("length(50)", "no length limit"),
        ("max_length(50)", "no length limit"),
        ("regex(\"a\")", "format"),
        ("fk", "`relation`"),
        ("references(\"User\")", "`relation`"),
        ("auto_increment", "ObjectId"),
    ];
    for (attr, shown) in cases {
        for place in FIELD_PLACES {
            let text = place.replace("@A", &format!("@{attr}"));
            let (d, help) = unknown_attribute(&text);
            assert!(help.contains(shown), "{attr}: {help}\n{text}");
            assert!(!help.contains("did you mean"), "{attr}: {help}");
            assert!(d.fix.is_none(), "{attr}: {help}");
        }
    }
}

/// Other names of summary functions, growth kinds, layouts and `navigate both`, in a relation:
/// each is fixed to ours, and the fixed file has no error at that place.
#[test]
fn a_fact_word_from_another_tool_is_fixed_to_ours() {
    let cases = [
        ("summary sum(p)", "total"),
        ("summary average(p)", "avg"),
        ("summary mean(p)", "avg"),
        ("summary maximum(p)", "max"),
        ("summary smallest(p)", "min"),
        ("growth fast", "append_heavy"),
        ("growth frequent, infinite", "append_heavy"),
        ("growth endless", "unbounded"),
        ("growth readonly", "static"),
        ("force embedded", "embed"),
        ("force join_table", "link_collection"),
        ("force buckets", "bucket"),
        ("force foreign_key", "child_ref"),
        ("navigate bidirectional", "both"),
        ("navigate all", "both"),
    ];
    for (fact, meant) in cases {
        let text = format!(
            "entity A {{ n: string }}\nentity B {{ t: string p: int32 }}\n\
             relation A.bs: many <-> B.a: one {{\n  {fact}\n}}\n"
        );
        let found = diagnostics(&text);
        let d = found
            .iter()
            .find(|d| d.fix.is_some())
            .unwrap_or_else(|| panic!("no fix for `{fact}`: {found:?}"));
        let help = d.help.clone().unwrap_or_default();
        assert!(
            help.starts_with(&format!("did you mean `{meant}`?")),
            "{fact}: {help}"
        );
        let fixed = fixed(&text, d);
        assert!(
            !diagnostics(&fixed)
                .iter()
                .any(|a| a.code == d.code && a.span.start == d.span.start),
            "`{fact}` fixed to `{meant}` still fails:\n{fixed}"
        );
    }
}
