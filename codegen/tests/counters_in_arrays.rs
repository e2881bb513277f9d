//! A `@counter` promises `inc_<f>` and a guarded `dec_<f>` (racing decrements never go below the
//! floor). The derive writes them for a field of a document and of a one-to-one subdocument, and
//! (issue 13) for a number of one element of an embedded array whose elements have an identity:
//! `inc_<array>_<f>` and the guarded `dec_<array>_<f>` for a relationship's own fields beside
//! references (order lines, found by the referenced `id`) and for embedded children with a
//! required `@unique` field (found by it). Wherever the layout keeps a counter's values in array
//! elements and the repository has no such method (embedded children with nothing identifying
//! them, outliers, buckets), the Plan says so with W126 at the field, and nowhere else: the
//! methods exist exactly where W126 does not fire.

use proptest::prelude::*;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::FieldKind;
use squillion_grammar::SourceFile;

/// How the relation places the child holding the counter.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Placed {
    /// `few(n)`, nothing read alone: an embedded array, elements with no identity.
    Embedded,
    /// `few(n)`, the child with a required `@unique` field: an embedded array keyed by it.
    EmbeddedKeyed,
    /// `many(20000, typical 50)`: embedded, overflowing into extra documents.
    Outlier,
    /// An outlier whose child has a required `@unique` field.
    OutlierKeyed,
    /// `squillions` with `time_range`: buckets.
    TimeBuckets,
    /// `squillions` with `page`: buckets.
    PageBuckets,
    /// `few(n)` with `standalone`: documents of their own.
    Standalone,
    /// `one`: a one-to-one subdocument.
    OneToOne,
    /// A `few(n) <-> squillions` relationship whose own `fields` hold the counter, beside
    /// references in an array (one_way, order lines).
    RelationFields,
    /// A `few(n) <-> few(150)` relationship with fields (sides alike, none read alone): a link
    /// collection, each link a document.
    RelationLink,
}

impl Placed {
    /// The per-element methods exist.
    fn per_element(self) -> bool {
        matches!(self, Placed::EmbeddedKeyed | Placed::RelationFields)
    }

    /// The counter's values are in array elements without per-element methods: W126.
    fn warned(self) -> bool {
        matches!(
            self,
            Placed::Embedded
                | Placed::Outlier
                | Placed::OutlierKeyed
                | Placed::TimeBuckets
                | Placed::PageBuckets
        )
    }
}

fn placed() -> impl Strategy<Value = Placed> {
    prop::sample::select(vec![
        Placed::Embedded,
        Placed::EmbeddedKeyed,
        Placed::Outlier,
        Placed::OutlierKeyed,
        Placed::TimeBuckets,
        Placed::PageBuckets,
        Placed::Standalone,
        Placed::OneToOne,
        Placed::RelationFields,
        Placed::RelationLink,
    ])
}

const PAIRS: &[(&str, &str)] = &[
    ("RoomType", "Night"),
    ("Product", "Variant"),
    ("Event", "Seat"),
    ("Warehouse", "Bin"),
    ("Player", "Stack"),
];

const NUMBERS: &[&str] = &["int32", "int64", "double"];

/// The schema of one case, and the line of the counter.
fn schema(
    (parent, child): (&str, &str),
    counter: &str,
    ty: &str,
    other_ty: &str,
    n: u64,
    placed: Placed,
) -> String {
    let end = child.to_lowercase() + "s";
    let back = parent.to_lowercase();
    let (child_fields, rel) = match placed {
        Placed::RelationFields | Placed::RelationLink => {
            let other_end = if placed == Placed::RelationLink {
                "few(150)"
            } else {
                "squillions"
            };
            (
                "label: string".to_owned(),
                format!(
                    "relation {parent}.{end}: few({n}) <-> {child}.{back}s: {other_end} {{\n  fields {{\n    {counter}: {ty} @counter\n    amount: {other_ty}\n    note: string\n  }}\n}}\n"
                ),
            )
        }
        _ => {
            let (card, body) = match placed {
                Placed::Embedded | Placed::EmbeddedKeyed => (format!("few({n})"), String::new()),
                Placed::Outlier | Placed::OutlierKeyed => {
                    ("many(20000, typical 50)".to_owned(), String::new())
                }
                Placed::TimeBuckets => ("squillions".to_owned(), "time_range by at".to_owned()),
                Placed::PageBuckets => ("squillions".to_owned(), "page 20 by at".to_owned()),
                Placed::Standalone => (format!("few({n})"), format!("standalone {child}")),
                _ => ("one".to_owned(), String::new()),
            };
            let key = if matches!(placed, Placed::EmbeddedKeyed | Placed::OutlierKeyed) {
                "\n  code: string @unique"
            } else {
                ""
            };
            (
                format!("at: date{key}\n  {counter}: {ty} @counter\n  amount: {other_ty}"),
                format!(
                    "relation {parent}.{end}: {card} <-> {child}.{back}: one {{\n  {body}\n}}\n"
                ),
            )
        }
    };
    format!("entity {parent} {{\n  name: string\n}}\n\nentity {child} {{\n  {child_fields}\n}}\n\n{rel}")
}

/// The methods the derive writes on the repositories of `rust`, as listed in their docs.
fn listed(rust: &str, method: &str) -> bool {
    let quoted = format!("`{method}`");
    rust.lines()
        .any(|l| l.contains("Repository:") && l.contains(&quoted))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn the_per_element_methods_exist_exactly_where_w126_does_not_fire(
        pair in prop::sample::select(PAIRS.to_vec()),
        counter in prop::sample::select(vec!["stock", "rooms_left", "seats", "quota"]),
        ty in prop::sample::select(NUMBERS.to_vec()),
        other_ty in prop::sample::select(NUMBERS.to_vec()),
        n in 2u64..150,
        placed in placed(),
    ) {
        let src = schema(pair, counter, ty, other_ty, n, placed);
        let end = pair.1.to_lowercase() + "s";
        let source = SourceFile::new("gen.sqn", src.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(d) => panic!("{}\n{src}", source.render(&d, false)),
        };
        let rust = &generated.rust;
        let w126: Vec<_> = generated.plan.warnings.iter().filter(|w| w.code == "W126").collect();
        let line = src.lines().position(|l| l.trim_start().starts_with(&format!("{counter}:"))).unwrap() + 1;
        let (inc, dec) = (format!("inc_{end}_{counter}"), format!("dec_{end}_{counter}"));
        // The invariant, whatever the case: W126 at the counter exactly when no method counts
        // one of its elements down.
        prop_assert_eq!(w126.is_empty(), !placed.warned(), "{:?}: {:?}\n{}", placed, w126, src);
        // (A one-to-one subdocument's own methods have these names: not an element's.)
        if placed != Placed::OneToOne {
            prop_assert_eq!(listed(rust, &dec), placed.per_element(), "{:?} {}\n{}\n{}", placed, dec, src, rust);
            prop_assert_eq!(listed(rust, &inc), placed.per_element(), "{:?} {}\n{}", placed, inc, src);
        }
        if placed.warned() {
            prop_assert_eq!(w126.len(), 1, "{:?}\n{}", placed, src);
            let w = w126[0];
            prop_assert_eq!(w.position.line, line);
            prop_assert!(w.message.contains(&format!("`{counter}`")) && w.message.contains("@counter"), "{}", w.message);
            prop_assert!(w.message.contains(&format!("`{dec}`")), "{}", w.message);
            prop_assert!(w.help.as_deref().is_some_and(|h| !h.is_empty()));
        }
        if placed.per_element() {
            // A number that is not a counter is added to, never guarded-decremented; the key
            // and text fields get nothing.
            prop_assert!(listed(rust, &format!("inc_{end}_amount")), "{}", rust);
            prop_assert!(!listed(rust, &format!("dec_{end}_amount")), "{}", rust);
            for text in ["note", "code", "id", "label"] {
                let m = format!("inc_{end}_{text}");
                prop_assert!(!listed(rust, &m), "{}", m);
            }
        } else if !placed.warned() {
            // Documents of their own, a one-to-one subdocument, a link: the document's methods.
            let dec = match placed {
                Placed::OneToOne => format!("dec_{end}_{counter}"),
                _ => format!("dec_{counter}"),
            };
            prop_assert!(listed(rust, &dec), "no {} in\n{}", dec, rust);
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

/// Embedded children with nothing identifying them: the help asks for a required `@unique`
/// field, and with one the parent's repository counts one child down by it.
#[test]
fn a_unique_field_gives_embedded_children_their_per_element_methods() {
    let src = "entity Shelf { name: string }\n\
               entity Bin { label: string  stock: int32 @counter }\n\
               relation Shelf.bins: few(20) <-> Bin.shelf: one\n";
    let before = compile(
        &SourceFile::new("shelf.sqn", src),
        &GenerateSettings::default(),
    )
    .unwrap();
    let w = before
        .plan
        .warnings
        .iter()
        .find(|w| w.code == "W126")
        .expect("W126");
    assert!(
        w.message.contains("nothing identifies one Bin"),
        "{}",
        w.message
    );
    assert!(w.help.as_deref().unwrap().contains("@unique"));
    assert!(!listed(&before.rust, "dec_bins_stock"));
    let fixed = src.replace("label: string", "code: string @unique");
    let after = compile(
        &SourceFile::new("shelf.sqn", fixed),
        &GenerateSettings::default(),
    )
    .unwrap();
    assert!(after.plan.warnings.iter().all(|w| w.code != "W126"));
    assert!(listed(&after.rust, "inc_bins_stock"));
    assert!(listed(&after.rust, "dec_bins_stock"));
    assert!(after.rust.contains("key = \"code\""));
}

/// Every example of W126 in docs/diagnostics.md (one per case it documents, not only the first)
/// reports the message and the position its output shows, and the help.
#[test]
fn every_documented_example_of_w126_reports_what_it_shows() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diagnostics.md"
    ))
    .expect("docs/diagnostics.md");
    let section = docs
        .split("\n### W126\n")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .expect("a W126 section");
    let mut seen = 0;
    for (i, block) in section.split("```sqn\n").skip(1).enumerate() {
        let (example, rest) = block.split_once("\n```").expect("a closed sqn block");
        let text = rest
            .split("```text\n")
            .nth(1)
            .and_then(|t| t.split("\n```").next())
            .expect("the example's output");
        let source = SourceFile::new("example.sqn", example);
        let generated = compile(&source, &GenerateSettings::default()).unwrap();
        let w = generated
            .plan
            .warnings
            .iter()
            .find(|w| w.code == "W126")
            .unwrap_or_else(|| panic!("example {i} reports no W126"));
        let at = format!("example.sqn:{}:{}", w.position.line, w.position.column);
        assert!(
            text.contains(&format!("warning[W126]: {}", w.message)),
            "example {i}: {}",
            w.message
        );
        assert!(text.contains(&at), "example {i}: {at}");
        assert!(
            text.contains(&format!("help: {}", w.help.as_deref().unwrap_or_default())),
            "example {i}"
        );
        seen += 1;
    }
    assert!(seen >= 2, "{seen} examples");
}

/// Over the example schemas and a batch of squillion-schemagen's: in every collection struct, a
/// counter in the elements of an array has the guarded `dec_<array>_<f>` exactly when no W126
/// names it, and a method written for it is never contradicted by a W126 on the same field.
#[test]
fn over_generated_schemas_a_counter_in_elements_has_its_method_or_w126() {
    let mut schemas: Vec<(String, String)> = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in ["examples", "examples/generated/schemas"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
            .collect();
        files.sort();
        for p in files {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            schemas.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
    // Every layout keeping counters in elements, with a method or without.
    schemas.push((
        "layouts".to_owned(),
        "entity Hotel { name: string }\n\
         entity Night { day: date  rooms_left: int32 @counter }\n\
         relation Hotel.nights: many(800) <-> Night.hotel: one {\n  time_range by day\n}\n\
         entity Shelf { name: string }\n\
         entity Bin { label: string  stock: int32 @counter }\n\
         relation Shelf.bins: few(20) <-> Bin.shelf: one\n\
         entity Rack { name: string }\n\
         entity Slot { code: string @unique  stock: int64 @counter }\n\
         relation Rack.slots: few(20) <-> Slot.rack: one\n\
         entity Post { title: string }\n\
         entity Reply { at: date  votes: int32 @counter }\n\
         relation Post.replies: many(5000, typical 3, embed 4) <-> Reply.post: one\n\
         entity Agent { name: string }\n\
         entity Ticket { title: string }\n\
         relation Agent.following: few(20) <-> Ticket.followers: squillions {\n  fields { weight: int32 @counter }\n}\n"
            .to_owned(),
    ));
    let batch = squillion_schemagen::batch(13, 40, squillion_schemagen::Config::default());
    for (k, (_, schema)) in batch.into_iter().enumerate() {
        schemas.push((format!("gen_{k}"), squillion_schemagen::render(&schema)));
    }
    let (mut with_method, mut warned) = (0, 0);
    for (name, sqn) in schemas {
        let source = SourceFile::new(format!("{name}.sqn"), sqn);
        let Ok(generated) = compile(&source, &GenerateSettings::default()) else {
            assert!(name.starts_with("gen_"), "{name} does not compile");
            continue;
        };
        let w126: Vec<_> = generated
            .plan
            .warnings
            .iter()
            .filter(|w| w.code == "W126")
            .collect();
        for c in &generated.plan.collections {
            let ty = squillion_codegen::rust::collection_type_name(c);
            for f in c.fields.iter().filter(|f| {
                f.array_depth == 1
                    && f.bson_type == "object"
                    && matches!(f.kind, FieldKind::Embedded | FieldKind::RefArray)
            }) {
                for e in f
                    .children
                    .iter()
                    .filter(|e| e.flags.counter && e.array_depth == 0)
                {
                    let dec = format!("`dec_{}_{}`", f.code_name, e.code_name);
                    let has = generated.rust.lines().any(|l| {
                        l.contains(&format!("Repository: `{ty}Repo::new")) && l.contains(&dec)
                    });
                    let named = w126
                        .iter()
                        .any(|w| w.message.starts_with(&format!("`{}` of ", e.name)));
                    let at = w126.iter().any(|w| {
                        w.message.starts_with(&format!("`{}` of ", e.name))
                            && w.message.contains(&format!("`{}.{}`", c.name, f.name))
                    });
                    assert!(
                        has != at || (!has && named),
                        "{name}: {}.{}.{}: method {has}, W126 {at}",
                        c.name,
                        f.name,
                        e.name
                    );
                    assert!(
                        has || named,
                        "{name}: {}.{}.{}: neither a method nor W126",
                        c.name,
                        f.name,
                        e.name
                    );
                    if has {
                        with_method += 1;
                    } else {
                        warned += 1;
                    }
                }
            }
        }
    }
    assert!(
        with_method >= 2 && warned >= 2,
        "{with_method} with a method, {warned} warned"
    );
}
