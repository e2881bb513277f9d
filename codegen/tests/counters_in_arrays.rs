//! A `@counter` promises `inc_<f>` and a guarded `dec_<f>` (racing decrements never go below the
//! floor). The derive writes them for a field of a document and of a one-to-one subdocument,
//! never for one element of an array, so wherever the layout keeps the counter's values in array
//! elements (embedded children, outliers, bucketed children, a relationship's own fields beside
//! references) the Plan says so with W126 at the field, and nowhere else. A hotel's nights with
//! `rooms_left @counter`, bucketed by `time_range`, had no way to take a room, and said nothing.

use proptest::prelude::*;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

/// How the relation places the child holding the counter.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Placed {
    /// `few(n)`, nothing read alone: an embedded array.
    Embedded,
    /// `many(20000, typical 50)`: embedded, overflowing into extra documents.
    Outlier,
    /// `squillions` with `time_range`: buckets.
    TimeBuckets,
    /// `squillions` with `page`: buckets.
    PageBuckets,
    /// `few(n)` with `standalone`: documents of their own.
    Standalone,
    /// `one`: a one-to-one subdocument.
    OneToOne,
    /// A many-to-many whose own `fields` hold the counter, beside references in an array.
    RelationFields,
}

impl Placed {
    fn in_array(self) -> bool {
        !matches!(self, Placed::Standalone | Placed::OneToOne)
    }
}

fn placed() -> impl Strategy<Value = Placed> {
    prop::sample::select(vec![
        Placed::Embedded,
        Placed::Outlier,
        Placed::TimeBuckets,
        Placed::PageBuckets,
        Placed::Standalone,
        Placed::OneToOne,
        Placed::RelationFields,
    ])
}

const PAIRS: &[(&str, &str)] = &[
    ("RoomType", "Night"),
    ("Product", "Variant"),
    ("Event", "Seat"),
    ("Warehouse", "Bin"),
    ("Player", "Stack"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn a_counter_kept_in_array_elements_is_said_and_elsewhere_has_its_methods(
        (parent, child) in prop::sample::select(PAIRS.to_vec()),
        counter in prop::sample::select(vec!["stock", "rooms_left", "seats", "quota"]),
        ty in prop::sample::select(vec!["int32", "int64"]),
        n in 2u64..150,
        placed in placed(),
    ) {
        let end = child.to_lowercase() + "s";
        let back = parent.to_lowercase();
        let (child_fields, rel) = match placed {
            Placed::RelationFields => (
                "label: string".to_owned(),
                format!(
                    "relation {parent}.{end}: few({n}) <-> {child}.{back}s: squillions {{\n  fields {{\n    {counter}: {ty} @counter\n  }}\n}}\n"
                ),
            ),
            _ => {
                let (card, body) = match placed {
                    Placed::Embedded => (format!("few({n})"), String::new()),
                    Placed::Outlier => ("many(20000, typical 50)".to_owned(), String::new()),
                    Placed::TimeBuckets => ("squillions".to_owned(), "time_range by at".to_owned()),
                    Placed::PageBuckets => ("squillions".to_owned(), "page 20 by at".to_owned()),
                    Placed::Standalone => (format!("few({n})"), format!("standalone {child}")),
                    _ => ("one".to_owned(), String::new()),
                };
                (
                    format!("at: date\n  {counter}: {ty} @counter"),
                    format!("relation {parent}.{end}: {card} <-> {child}.{back}: one {{\n  {body}\n}}\n"),
                )
            }
        };
        let src = format!(
            "entity {parent} {{\n  name: string\n}}\n\nentity {child} {{\n  {child_fields}\n}}\n\n{rel}"
        );
        let source = SourceFile::new("gen.sqn", src.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(d) => panic!("{}\n{src}", source.render(&d, false)),
        };
        let w126: Vec<_> = generated.plan.warnings.iter().filter(|w| w.code == "W126").collect();
        let line = src.lines().position(|l| l.trim_start().starts_with(&format!("{counter}:"))).unwrap() + 1;
        if placed.in_array() {
            prop_assert_eq!(w126.len(), 1, "{:?}\n{}", placed, src);
            let w = w126[0];
            prop_assert_eq!(w.position.line, line);
            prop_assert!(w.message.contains(&format!("`{counter}`")) && w.message.contains("@counter"), "{}", w.message);
            prop_assert!(w.help.as_deref().is_some_and(|h| !h.is_empty()));
            // What the warning says is true: no method counts one element down.
            let dec = format!("dec_{counter}`");
            prop_assert!(!generated.rust.lines().any(|l| l.contains("Repository:") && l.contains(&dec)), "{}", generated.rust);
        } else {
            prop_assert!(w126.is_empty(), "{:?}: {:?}\n{}", placed, w126, src);
            let dec = match placed {
                Placed::OneToOne => format!("`dec_{end}_{counter}`"),
                _ => format!("`dec_{counter}`"),
            };
            prop_assert!(generated.rust.contains(&dec), "no {} in\n{}", dec, generated.rust);
        }
    }
}

/// The help of a child's counter names the fact that gives it its methods, and following it
/// gives them: `standalone` keeps each child a document whose repository has the guarded
/// decrement, and the warning goes.
#[test]
fn following_the_help_gives_the_counter_its_methods() {
    let src = "entity RoomType { name: string }\n\
               entity Night { day: date  rooms_left: int32 @counter @range(0, 500) }\n\
               relation RoomType.nights: many(800) <-> Night.room_type: one {\n  time_range by day window 14\n}\n";
    let source = SourceFile::new("hotel.sqn", src);
    let before = compile(&source, &GenerateSettings::default()).unwrap();
    let w = before
        .plan
        .warnings
        .iter()
        .find(|w| w.code == "W126")
        .expect("W126");
    assert_eq!((w.position.line, w.position.column), (2, 27));
    assert!(w.help.as_deref().unwrap().contains("`standalone Night`"));
    let fixed = src.replace("window 14\n", "window 14\n  standalone Night\n");
    let after = compile(
        &SourceFile::new("hotel.sqn", fixed),
        &GenerateSettings::default(),
    )
    .unwrap();
    assert!(after.plan.warnings.iter().all(|w| w.code != "W126"));
    assert!(after.rust.contains("`dec_rooms_left`"));
}
