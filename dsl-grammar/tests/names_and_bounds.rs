//! Two families of syntax errors that the grammar alone reported as something else (newcomer
//! round 22):
//! - a name with a letter outside ASCII (`entity Café`, `prénom: string`, `Hotel.chambres_réservées`,
//!   `query liste_réservée`): the grammar read `Caf` and stopped at `é`, so the error said
//!   "expected `{`" and the help "a declaration's body is in braces" or "a field is written
//!   `name: type`";
//! - a cardinality's bound in other brackets (`many[300]`, `few<10>`, `many{300}`): the help
//!   explained array types, type arguments or value types.
//!
//! Each is tested in every place a name (or a bound) is written, and the suggested spelling is
//! checked by parsing the file with it.

use squillion_grammar::parse;

mod support;
use support::first_error;

/// Every place a name is written, with `{}` where the name goes; the rest of the file is valid.
const PLACES: [&str; 9] = [
    "entity {} { x: string }",
    "entity A { {}: string }",
    "value {} { x: string }\nentity A { v: {} }",
    "entity A { x: string }\nquery {} on A { where x == ? }",
    "entity A { x: string }\nentity B { y: string }\nrelation A.{}: many <-> B.a: one",
    "entity A { x: string }\nentity B { y: string }\nrelation A.bs: many <-> B.{}: one",
    "entity A @polymorphic(discriminator: \"type\") { x: string variant {} { r: double } }",
    "entity A { x: string }\nentity B { y: string }\nrelation A.bs: many(10) <-> B.a: one { fields { {}: int32 } }",
    "entity A { x: string }\nquery q on A { where x == ? returns {} }",
];

/// Names with non-ASCII letters, and the ASCII spelling the help suggests (none when the letters
/// are not Latin letters with accents).
const NAMES: [(&str, Option<&str>); 7] = [
    ("Café", Some("Cafe")),
    ("prénom", Some("prenom")),
    ("Straße", Some("Strasse")),
    ("naïve_2", Some("naive_2")),
    ("Ökonom", Some("Okonom")),
    ("名前", None),
    ("größe_κ", None),
];

#[test]
fn a_name_with_a_letter_outside_ascii_says_so_wherever_it_is_written() {
    for place in PLACES {
        for (name, ascii) in NAMES {
            let src = format!("{}\n", place.replace("{}", name));
            let d = first_error(&src);
            assert_eq!(d.code, "E0101", "{src}");
            assert!(
                d.message.contains(&format!("`{name}` is not a name")),
                "{}\n{src}",
                d.message
            );
            // The error points at the whole name.
            let at = src.find(name).unwrap_or_default();
            assert_eq!((d.span.start, d.span.end), (at, at + name.len()), "{src}");
            assert!(d.message.contains("ASCII"), "{}\n{src}", d.message);
            let help = d.help.clone().unwrap_or_default();
            assert!(help.contains("Rust identifiers"), "{help}\n{src}");
            if let Some(ascii) = ascii {
                assert!(help.contains(&format!("write `{ascii}`")), "{help}\n{src}");
                // What the help says to write parses.
                let fixed = src.replace(name, ascii);
                assert!(
                    parse(&fixed).is_ok(),
                    "the suggestion does not parse:\n{fixed}"
                );
            }
        }
    }
}

#[test]
fn a_bound_in_other_brackets_is_shown_in_parentheses() {
    let opens = [("[", "]"), ("<", ">"), ("{", "}"), (": ", ""), ("=", "")];
    for class in ["few", "many"] {
        for n in ["3", "300", "5_000"] {
            for (open, close) in opens {
                for side in [false, true] {
                    let bound = format!("{class}{open}{n}{close}");
                    let ends = if side {
                        format!("A.bs: {bound} <-> B.a: one")
                    } else {
                        format!("A.bs: many <-> B.as: {bound}")
                    };
                    let src = format!(
                        "entity A {{ x: string }}\nentity B {{ y: string }}\nrelation {ends}\n"
                    );
                    let d = first_error(&src);
                    let help = d.help.clone().unwrap_or_default();
                    let meant = format!("`{class}({n})`");
                    assert!(help.contains(&meant), "{bound}: {help}\n{src}");
                    let fixed = src.replace(&bound, &format!("{class}({n})"));
                    assert!(parse(&fixed).is_ok(), "does not parse:\n{fixed}");
                }
            }
        }
    }
}
