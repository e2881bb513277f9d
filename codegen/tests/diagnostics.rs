//! Every diagnostic code, syntax and semantic: a minimal failing input for each, with the code, the
//! line and column and the message it must produce; the codes' documentation in
//! `docs/diagnostics.md`; several errors reported together; and the Model of valid files.

use std::collections::BTreeSet;
use std::path::PathBuf;

use squillion_codegen::model::{
    BsonType, CardinalityClass, FieldType, Identity, Layout, Navigate, RelationKind, Side,
    SummaryFn, Versioning,
};
use squillion_codegen::resolve::Checked;
use squillion_grammar::{Diagnostic, Severity, SourceFile};

/// A failing input and the first diagnostic it must produce.
struct Case {
    code: &'static str,
    source: Vec<u8>,
    line: usize,
    column: usize,
    message: &'static str,
}

fn case(code: &'static str, source: &str, at: (usize, usize), message: &'static str) -> Case {
    Case {
        code,
        source: source.as_bytes().to_vec(),
        line: at.0,
        column: at.1,
        message,
    }
}

/// Two entities for the relation cases: `A { x: string }` and `B { ... }`.
fn two(b_fields: &str, relation: &str) -> String {
    format!("entity A {{ x: string }}\nentity B {{ {b_fields} }}\n{relation}")
}

/// `entity A { v: V0 }` and `levels` value types, each holding the next `width` times.
fn nested_values(levels: usize, width: usize) -> String {
    let mut text = String::from("entity A { v: V0 }\n");
    for i in 0..levels {
        let fields: String = (0..width)
            .map(|f| {
                if i + 1 == levels {
                    format!(" f{f}: string")
                } else {
                    format!(" f{f}: V{}", i + 1)
                }
            })
            .collect();
        text.push_str(&format!("value V{i} {{{fields} }}\n"));
    }
    text
}

fn cases() -> Vec<Case> {
    let nested = format!(
        "entity A {{ f: {}string{} }}",
        "[".repeat(70),
        "]".repeat(70)
    );
    let huge = "/".repeat(squillion_grammar::MAX_SOURCE_BYTES + 1);
    vec![
        // Syntax.
        case(
            "E0101",
            "entity Book { title string }",
            (1, 21),
            "unexpected `string`: expected `:`",
        ),
        case(
            "E0102",
            &nested,
            (1, 78),
            "brackets are nested more than 64 deep",
        ),
        Case {
            code: "E0103",
            source: huge.into_bytes(),
            line: 1,
            column: 1,
            message: "more than the 67108864 bytes",
        },
        Case {
            code: "E0106",
            source: b"entity A {\n  t: str\xE9ing\n}\n".to_vec(),
            line: 2,
            column: 9,
            message: "byte 0xE9 is not part of any character",
        },
        case(
            "E0104",
            "entity A {\n  f: string\n  /// dangling\n}",
            (3, 3),
            "doc comment with nothing to document",
        ),
        case(
            "E0105",
            "entity \"Book {\n}",
            (1, 8),
            "string literal is not closed on its line",
        ),
        // Names and declarations.
        case(
            "E0201",
            "entity Book { t: string }\nvalue Book { t: string }",
            (2, 7),
            "`Book` is declared twice",
        ),
        case(
            "E0202",
            "entity Book { t: string }\nentity Tome @collection(\"books\") { t: string }",
            (2, 8),
            "entities `Book` and `Tome` are both stored in collection `books`",
        ),
        case(
            "E0203",
            "entity A { t: string }\nquery q on A { }\nquery q on A { }",
            (3, 7),
            "query `q` is declared twice",
        ),
        case(
            "E0204",
            "query q on Missing { }",
            (1, 12),
            "unknown entity `Missing`",
        ),
        case(
            "E0205",
            "value V { t: string }\nquery q on V { }",
            (2, 12),
            "`V` is a value type, not an entity",
        ),
        case(
            "E0206",
            "entity Book @collection(\"system.books\") { t: string }",
            (1, 25),
            "names starting with `system.` are reserved",
        ),
        case(
            "E0207",
            "entity date { t: string }",
            (1, 8),
            "`date` is a BSON type and cannot name an entity",
        ),
        case(
            "E0208",
            "entity UserAccount { a: string }\nentity user_account @collection(\"ua\") { b: string }",
            (2, 8),
            "the generated Rust type `UserAccount` would be both the type of entity `UserAccount` and the type of entity `user_account`",
        ),
        // Fields, types, attributes, units.
        case(
            "E0301",
            "entity A { t: strin }",
            (1, 15),
            "unknown type `strin`",
        ),
        case(
            "E0302",
            "entity A { t: string }\nentity B { a: A }",
            (2, 15),
            "`A` is an entity and cannot be a field's type",
        ),
        case(
            "E0303",
            "entity A { c: counters(minute_of_hour) }",
            (1, 24),
            "unknown counters period `minute_of_hour`",
        ),
        case(
            "E0304",
            "value V { w: W }\nvalue W { v: [V] }",
            (1, 11),
            "value type `V` contains itself: V.w -> W.v -> V",
        ),
        case(
            "E0305",
            "entity A { t: string\n  t: int32 }",
            (2, 3),
            "field `t` is declared twice in entity `A`",
        ),
        case(
            "E0306",
            "entity A { t: string\n  u: int32 @stored(\"t\") }",
            (2, 3),
            "fields `t` and `u` of entity `A` are both stored as `t`",
        ),
        case(
            "E0307",
            "entity A { t: string @stored(\"$t\") }",
            (1, 30),
            "a field name cannot start with `$`",
        ),
        case(
            "E0308",
            "entity A { a: string @key\n  b: string @key }",
            (2, 3),
            "`_id` declared twice: entity `A` has two `@key` fields",
        ),
        case(
            "E0309",
            "entity A { a: string? @key }",
            (1, 23),
            "key `a` is optional",
        ),
        case(
            "E0310",
            "entity A { a: string @indx }",
            (1, 23),
            "unknown field attribute `@indx`",
        ),
        case(
            "E0311",
            "entity A { a: string @stored(1) }",
            (1, 30),
            "`@stored` takes a string in double quotes",
        ),
        case(
            "E0312",
            "entity A { a: binary @large(2TB) }",
            (1, 30),
            "unknown unit `TB` in `@large`: expected a size",
        ),
        case(
            "E0313",
            "entity A { a: string @updates(5) }",
            (1, 31),
            "`@updates` is a rate and needs a unit: `5` per what?",
        ),
        case(
            "E0314",
            "entity A { a: [string; 0] }",
            (1, 24),
            "the array bound must be at least 1, not 0",
        ),
        case(
            "E0315",
            "entity A { a: string @payload @index }",
            (1, 31),
            "field `a` cannot be both `@payload` and `@index`",
        ),
        case(
            "E0316",
            "entity A { a: int32 @ignore_case }",
            (1, 21),
            "`@ignore_case` does not fit field `a` of type `int32`",
        ),
        case(
            "E0317",
            "entity A { a: string\n  variant b { c: int32 } }",
            (2, 11),
            "entity `A` has variants but is not `@polymorphic`",
        ),
        case(
            "E0318",
            "entity Job @queue(priority: prio) { p: int32 }",
            (1, 29),
            "entity `Job` has no field `prio` to order its queue by",
        ),
        case(
            "E0319",
            "entity Node @tree { parent: string }",
            (1, 21),
            "field `parent` of entity `Node` clashes with `parent`, which @tree adds",
        ),
        case(
            "E0320",
            &nested_values(33, 1),
            (1, 12),
            "field `v` of entity `A` nests value types 33 deep (`V0` -> `V1` -> `V2`",
        ),
        case(
            "E0321",
            &nested_values(14, 2),
            (1, 8),
            "the documents of entity `A` would hold 32,767 fields once its value types are expanded",
        ),
        case(
            "E0322",
            "entity Book { id: string  title: string }",
            (1, 15),
            "the field that holds the document's `_id` and field `id` would both be the Rust field `id` of `Book`",
        ),
        case(
            "E0323",
            "entity A { n: string }\nentity B { n: string }\nentity C { n: string }\nrelation A.x: many(100) <-> B.a: one { standalone B }\nrelation A.x_projected: many(100) <-> C.a: one { standalone C }",
            (5, 10),
            "`ARepo` would have two methods `load_x_projected`: a method of the `parent_refs` layout of `x` and a method of the `parent_refs` layout of `x_projected`",
        ),
        case(
            "E0323",
            "entity A { specs: map<string; 5> @attributes\n  specs_entry: string }",
            (2, 3),
            "`ARepo` would have two methods `set_specs_entry`: an update method of field `specs` and an update method of field `specs_entry`",
        ),
        case(
            "E0324",
            "entity Order { status: one_of() }",
            (1, 24),
            "`one_of()` lists no values",
        ),
        case(
            "E0324",
            "entity Order { status: one_of(\"new\", paid) }",
            (1, 38),
            "the values of `one_of` are strings: `paid` is a name",
        ),
        case(
            "E0324",
            "entity Order { rating: [one_of(\"1\", 2)] }",
            (1, 37),
            "the values of `one_of` are strings: `2` is a number",
        ),
        case(
            "E0324",
            "entity Order { status: one_of(\"new\", \"paid\", \"new\") }",
            (1, 46),
            "`one_of` lists \"new\" twice",
        ),
        case(
            "E0324",
            "entity Order { stock: map<one_of(\"in-stock\", \"in_stock\")> }",
            (1, 46),
            "\"in-stock\" and \"in_stock\" would both be the variant `InStock` of the generated Rust enum",
        ),
        case(
            "E0325",
            "entity Review { stars: int32 @range(5, 1) }",
            (1, 30),
            "`@range(5, 1)` of field `stars` starts above its end: the smallest value comes first",
        ),
        case(
            "E0325",
            "entity Review { stars: int32 @range(0, 3000000000) }",
            (1, 40),
            "the largest value of `@range`, `3000000000`, does not fit an `int32`",
        ),
        case(
            "E0325",
            "entity Review { stars: int64 @range(0.5, 5) }",
            (1, 37),
            "the smallest value of `@range` on an `int64` must be a whole number, not `0.5`",
        ),
        case(
            "E0325",
            "entity Shelf { stock: int32 @counter @range(-5, 10) }",
            (1, 45),
            "`@range` lets counter `stock` go down to -5, below 0, the floor of `@counter`",
        ),
        case(
            "E0316",
            "entity Review { title: string @range(1, 5) }",
            (1, 31),
            "`@range` does not fit field `title` of type `string`: only numbers have a range",
        ),
        // Relations.
        case(
            "E0401",
            "entity A { b: string }\nentity B { x: string }\nrelation A.b: one <-> B.a: one",
            (3, 12),
            "relation end `A.b` clashes: entity `A` already has a field `b`",
        ),
        case(
            "E0402",
            &two(
                "y: string",
                "relation A.bs: few <-> B.a: one\nrelation B.a: one <-> A.bs: few",
            ),
            (4, 10),
            "relationship declared twice",
        ),
        case(
            "E0403",
            &two("y: string", "relation A.bs: lots <-> B.a: one"),
            (3, 16),
            "unknown cardinality `lots`",
        ),
        case(
            "E0404",
            &two(
                "y: string",
                "relation A.bs: many(100, typical 500) <-> B.a: one",
            ),
            (3, 26),
            "the typical count 500 is larger than the bound 100",
        ),
        case(
            "E0405",
            &two("y: string", "relation A.bs: few(100000) <-> B.a: one"),
            (3, 20),
            "`few(100000)`: 100000 is more than `few` can mean",
        ),
        case(
            "E0406",
            &two(
                "y: string",
                "relation A.bs: few <-> B.a: one { standalone C }",
            ),
            (3, 46),
            "`standalone` names `C`, which is not an end of relation `A.bs`",
        ),
        case(
            "E0407",
            &two(
                "y: string",
                "relation A.bs: many <-> B.a: one { page 10 by created }",
            ),
            (3, 47),
            "`page` names `created`, which is not a field of `B`",
        ),
        case(
            "E0408",
            &two(
                "y: string",
                "relation A.bs: many <-> B.a: one { growth exponential }",
            ),
            (3, 43),
            "unknown growth kind `exponential`",
        ),
        case(
            "E0409",
            &two(
                "y: string",
                "relation A.bs: many <-> B.as: many { atomic_move }",
            ),
            (3, 38),
            "`atomic_move` in many-to-many relation `A.bs`",
        ),
        case(
            "E0410",
            &two(
                "y: date",
                "relation A.b: one <-> B.a: one { latest 5 by y }",
            ),
            (3, 34),
            "`latest` in one-to-one relation `A.b`",
        ),
        case(
            "E0411",
            &two(
                "n: int32",
                "relation A.bs: many <-> B.a: one { summary average(n) }",
            ),
            (3, 44),
            "unknown summary function `average`",
        ),
        case(
            "E0412",
            &two(
                "name: string",
                "relation A.bs: many <-> B.a: one { time_range by name }",
            ),
            (3, 50),
            "`time_range` reads children by a range of a date or number",
        ),
        case(
            "E0413",
            &two(
                "y: string",
                "relation A.bs: many <-> B.a: one { force embedded }",
            ),
            (3, 42),
            "unknown layout `embedded`",
        ),
        case(
            "E0414",
            &two(
                "y: string",
                "relation A.bs: many <-> B.a: one { force embed(3) }",
            ),
            (3, 48),
            "layout `embed` takes no size",
        ),
        case(
            "E0415",
            &two(
                "y: string",
                "relation A.bs: many <-> B.a: one {\n  navigate both\n  navigate A\n}",
            ),
            (5, 3),
            "`navigate` is stated twice in relation `A.bs`",
        ),
        case(
            "E0416",
            &two(
                "y: string",
                "relation A.bs: many(300) <-> B.a: one { growth unbounded }",
            ),
            (3, 48),
            "`growth unbounded` contradicts the bound of `A.bs: many(300)` in relation `A.bs`",
        ),
        case(
            "E0417",
            &two(
                "y: string",
                "relation A.bs: squillions <-> B.a: one { growth static, append_heavy }",
            ),
            (3, 49),
            "`growth static` contradicts `append_heavy` in relation `A.bs`",
        ),
        case(
            "E0418",
            &two("y: string", "relation A.bs: few(4) <-> B.a: one? { force embed }"),
            (3, 45),
            "`force embed` keeps each B inside its A, but `B.a: one?` says a B may have none",
        ),
        case(
            "E0419",
            &two(
                "at: date",
                "relation A.bs: many(100) <-> B.a: one { time_range by at window 500 }",
            ),
            (3, 65),
            "the time range's window of 500 children is more than `A.bs: many(100)` allows",
        ),
        // Queries.
        case(
            "E0501",
            "entity A { title: string }\nquery q on A { where titel == ? }",
            (2, 22),
            "entity `A` has no field `titel`",
        ),
        case(
            "E0501",
            "entity A { n: int32 }\nentity B { t: string }\nentity C { s: string }\n\
             relation C.bs: many(40) <-> B.c: one\n\
             relation B.as: few(9) <-> A.b: one\n\
             query q on A { where b.c == ? }",
            (6, 24),
            "`b.c` goes through two relations (A to B, then B to C): a path reaches fields of the \
             entity one relation away only",
        ),
        case(
            "E0502",
            "entity A { n: int32 }\nquery q on A { where n starts_with ? }",
            (2, 22),
            "`starts_with` matches strings, but `n` is an `int32`",
        ),
        case(
            "E0502",
            "entity A { n: string }\nquery q on A { where n near ? }",
            (2, 22),
            "`near` finds geospatial points, but `n` is a `string`",
        ),
        case(
            "E0502",
            "entity A { p: point }\nquery q on A { where p < ? }",
            (2, 22),
            "`<` compares ordered values, but `p` is a `point`",
        ),
        case(
            "E0507",
            "entity A { p: point }\nquery q on A { where p near ? and p within ? }",
            (2, 35),
            "query `q` has a second geospatial condition",
        ),
        case(
            "E0508",
            "entity P { t: string }\nentity C { v: int32 }\nrelation P.cs: few <-> C.p: one\nquery q on P.c { where v > ? }",
            (4, 14),
            "`P` has no relation end `c`",
        ),
        case(
            "E0509",
            "entity P { t: string }\nentity C { v: int32 }\nrelation P.cs: few <-> C.p: one\nquery q on C.p { where t == ? }",
            (4, 14),
            "`C.p` reaches one `P`, not children",
        ),
        case(
            "E0509",
            "entity P { t: string }\nentity C { v: int32 }\nrelation P.cs: few <-> C.ps: many\nquery q on P.cs { where v > ? }",
            (4, 14),
            "`P.cs` is an end of a many-to-many relation",
        ),
        case(
            "E0510",
            "entity P { t: string }\nentity U { n: string }\nentity C { v: int32 }\nrelation P.cs: few <-> C.p: one\nrelation U.cs: many <-> C.u: one\nquery q on P.cs { where u.n == ? }",
            (6, 25),
            "query `q` reads children of `P`, but `u.n` goes through `u` to `U`",
        ),
        case(
            "E0511",
            "entity A { t: string }\nquery q on A { where t == ? returns t, t }",
            (2, 40),
            "query `q` returns `t` twice",
        ),
        case(
            "E0512",
            "entity P { m: map<string> }\nquery q on P { where m has (k == ?, v == ?) }",
            (2, 22),
            "`has` finds an attribute of an `@attributes` map, but `m` is not one",
        ),
        case(
            "E0513",
            "entity P { m: map<string> @attributes }\nquery q on P { where m has (k != ?, v == ?) }",
            (2, 29),
            "`has` names one attribute by its key, but the key is compared with `!=`",
        ),
        case(
            "E0502",
            "entity P { m: map<bool> @attributes }\nquery q on P { where m has (k == ?, v < ?) }",
            (2, 22),
            "`<` compares ordered values, but the values of `m` are a `bool`",
        ),
        case(
            "E0501",
            "entity A { title: string }\nquery q on A { where title == ? returns titel }",
            (2, 41),
            "entity `A` has no field `titel`",
        ),
        case(
            "E0503",
            "entity A { t: string }\nquery q on A { where t.x == ? }",
            (2, 24),
            "`t` is a `string`, which has no field `x`",
        ),
        case(
            "E0504",
            "entity A { t: string }\nquery q on A { limit 1 limit 2 }",
            (2, 24),
            "query `q` has a clause written twice",
        ),
        case(
            "E0505",
            "entity Message { to: string  body: binary @payload }\nquery by_body on Message { where body == ? }",
            (2, 34),
            "a query cannot use `body`: it is a `@payload` field",
        ),
        case(
            "E0506",
            "entity Book { title: string }\nquery find on Book { where title == ? }",
            (2, 7),
            "query `find` would be the method `find` of `BookRepo`, which is already a method every repository has",
        ),
        // Settings.
        case(
            "E0601",
            "settings { embed_max = 3 }",
            (1, 12),
            "unknown setting `embed_max`",
        ),
        case(
            "E0602",
            "settings {\n  bucket_size = 3\n  bucket_size = 4\n}",
            (3, 3),
            "setting `bucket_size` is set twice",
        ),
        case(
            "E0603",
            "settings { bucket_size = \"big\" }",
            (1, 26),
            "setting `bucket_size` takes a whole number",
        ),
        case(
            "E0604",
            "settings { embed_array_max = 10000 }",
            (1, 12),
            "`embed_array_max` (10000) is larger than `id_array_max` (5000)",
        ),
        // Warnings.
        case(
            "W0301",
            "entity A { t: string @index @index }",
            (1, 29),
            "`@index` is written twice",
        ),
        case(
            "W0302",
            "entity A { t: string @key @unique }",
            (1, 27),
            "`@unique` is already implied by `@key`",
        ),
        case(
            "W0401",
            &two("y: string", "relation A.bs: many(5) <-> B.a: one"),
            (3, 21),
            "`many(5)` is a small bound",
        ),
        case(
            "W0402",
            "entity Ticket { s: string }\nentity Comment { b: string }\nrelation Ticket.comments: one <-> Comment.ticket: squillions",
            (3, 27),
            "`Ticket.comments: one` says each Ticket has one Comment, and `Comment.ticket: squillions` that each Comment has `squillions` Tickets: the cardinalities look swapped",
        ),
        case(
            "W0501",
            "entity T { p: one_of(\"low\", \"high\") }\nquery q on T { sort p desc }",
            (2, 21),
            "`p` is an enumeration: the server sorts it by its stored text (\"high\", \"low\")",
        ),
    ]
}

/// Everything `squillion check` reports for `text`: the errors, or the warnings of a valid file.
fn diagnostics(text: &str) -> (SourceFile, Vec<Diagnostic>) {
    diagnostics_of_bytes(text.as_bytes().to_vec())
}

/// Everything reading and `load` report for the bytes of a file.
fn diagnostics_of_bytes(bytes: Vec<u8>) -> (SourceFile, Vec<Diagnostic>) {
    let source = match SourceFile::from_bytes("test.sqn", bytes) {
        Ok(source) => source,
        Err(e) => return (e.source, vec![e.diagnostic]),
    };
    let diagnostics = match squillion_codegen::pipeline::check(&source) {
        Ok(valid) => valid.checked.warnings,
        Err(diagnostics) => diagnostics,
    };
    (source, diagnostics)
}

fn all_codes() -> BTreeSet<&'static str> {
    squillion_grammar::codes::ALL
        .iter()
        .chain(squillion_codegen::codes::ALL)
        .map(|(code, _)| *code)
        .collect()
}

#[test]
fn every_case_reports_its_code_where_and_what_it_says() {
    let mut failures = Vec::new();
    for case in cases() {
        let (source, found) = diagnostics_of_bytes(case.source.clone());
        let shown = || {
            let mut s = source.render(&found, false);
            s.truncate(4000);
            s
        };
        let Some(first) = found.first() else {
            failures.push(format!("{}: nothing reported", case.code));
            continue;
        };
        let others: Vec<&str> = found
            .iter()
            .map(|d| d.code)
            .filter(|c| *c != case.code)
            .collect();
        if !others.is_empty() {
            failures.push(format!(
                "{}: also reported {others:?}\n{}",
                case.code,
                shown()
            ));
            continue;
        }
        let at = source.locate(first);
        if (at.line, at.column) != (case.line, case.column) || !first.message.contains(case.message)
        {
            failures.push(format!(
                "{}: expected {}:{} \"{}\", got {}:{} \"{}\"",
                case.code, case.line, case.column, case.message, at.line, at.column, first.message
            ));
        }
        let warning = case.code.starts_with('W');
        if warning != (first.severity == Severity::Warning) {
            failures.push(format!(
                "{}: wrong severity {:?}",
                case.code, first.severity
            ));
        }
        if warning && squillion_codegen::load(&source).is_err() {
            failures.push(format!(
                "{}: a warning alone must not fail the file",
                case.code
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_cases_cover_every_code() {
    let covered: BTreeSet<&str> = cases().iter().map(|c| c.code).collect();
    let all = all_codes();
    let missing: Vec<&&str> = all.difference(&covered).collect();
    let unknown: Vec<&&str> = covered.difference(&all).collect();
    assert!(
        missing.is_empty(),
        "codes without a failing case: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "cases for codes missing from the ALL tables: {unknown:?}"
    );
}

fn docs() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first fenced block of `language` in a section.
fn fenced<'a>(body: &'a str, language: &str) -> Option<&'a str> {
    body.split(&format!("```{language}\n"))
        .nth(1)
        .and_then(|b| b.split("\n```").next())
}

/// The sections of docs/diagnostics.md, by the code in their heading (`### E0301: ...`).
fn doc_sections(docs: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for chunk in docs.split("\n### ").skip(1) {
        let code: String = chunk
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let body = chunk.split("\n## ").next().unwrap_or(chunk).to_owned();
        out.push((code, body));
    }
    out
}

#[test]
fn every_code_is_documented_with_a_failing_example() {
    let docs = docs();
    let sections: Vec<(String, String)> = doc_sections(&docs)
        .into_iter()
        .filter(|(code, _)| !plan_codes().contains(code.as_str()))
        .collect();
    let documented: BTreeSet<&str> = sections.iter().map(|(c, _)| c.as_str()).collect();
    let all = all_codes();
    let missing: Vec<&&str> = all.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "codes missing from docs/diagnostics.md: {missing:?}"
    );
    let mut failures = Vec::new();
    for (code, body) in &sections {
        if !all.contains(code.as_str()) {
            failures.push(format!("{code} is documented but not in any ALL table"));
            continue;
        }
        let severity = if code.starts_with('W') {
            "**Warning.**"
        } else {
            "**Error.**"
        };
        if !body.contains(severity) {
            failures.push(format!("{code}: the section does not say {severity}"));
        }
        if !body.contains("**Fix:**") {
            failures.push(format!("{code}: the section has no **Fix:**"));
        }
        // The file-size limit and bytes that are not UTF-8 cannot be shown in a code block; the
        // nesting and width limits need more value types than a page shows (the cases above
        // generate them).
        if ["E0103", "E0106", "E0320", "E0321"].contains(&code.as_str()) {
            continue;
        }
        let Some(example) = fenced(body, "sqn") else {
            failures.push(format!("{code}: no ```sqn example"));
            continue;
        };
        let (_, found) = diagnostics(example);
        if !found.iter().any(|d| d.code == code) {
            let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
            failures.push(format!("{code}: the example reports {codes:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn plan_codes() -> BTreeSet<&'static str> {
    squillion_codegen::engine::codes::ALL
        .iter()
        .map(|(code, _)| *code)
        .collect()
}

fn plan_of(text: &str) -> squillion_codegen::plan::Plan {
    let source = SourceFile::new("example.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("does not check:\n{}", source.render(&diags, false)),
    }
}

/// The plan warnings (`W1xx`) of docs/diagnostics.md: every code of the engine has a section with
/// its severity and fix, and the section's example, planned, reports that code with that severity.
#[test]
fn every_plan_warning_is_documented_with_an_example_that_reports_it() {
    use squillion_codegen::plan::Severity as PlanSeverity;
    let docs = docs();
    let sections: Vec<(String, String)> = doc_sections(&docs)
        .into_iter()
        .filter(|(code, _)| plan_codes().contains(code.as_str()))
        .collect();
    let documented: BTreeSet<&str> = sections.iter().map(|(c, _)| c.as_str()).collect();
    let codes = plan_codes();
    let missing: Vec<&str> = codes.difference(&documented).copied().collect();
    assert!(
        missing.is_empty(),
        "plan codes missing from docs/diagnostics.md: {missing:?}"
    );
    let mut failures = Vec::new();
    for (code, body) in &sections {
        let severity = ["**Error.**", "**Warning.**", "**Note.**"]
            .into_iter()
            .find(|s| body.contains(s));
        let Some(severity) = severity else {
            failures.push(format!("{code}: the section states no severity"));
            continue;
        };
        if !body.contains("**Fix:**") {
            failures.push(format!("{code}: the section has no **Fix:**"));
        }
        // The depth limit needs a 42-entity chain: it has its own test below.
        if code == "W118" {
            continue;
        }
        let Some(example) = fenced(body, "sqn") else {
            failures.push(format!("{code}: no ```sqn example"));
            continue;
        };
        let plan = plan_of(example);
        let Some(w) = plan.warnings.iter().find(|w| w.code == *code) else {
            let codes: Vec<&str> = plan.warnings.iter().map(|w| w.code.as_str()).collect();
            failures.push(format!("{code}: the example reports {codes:?}"));
            continue;
        };
        let expected = match w.severity {
            PlanSeverity::Error => "**Error.**",
            PlanSeverity::Warning => "**Warning.**",
            PlanSeverity::Info => "**Note.**",
        };
        if expected != severity {
            failures.push(format!(
                "{code}: documented as {severity}, reported as {expected}"
            ));
        }
        let text = fenced(body, "text").unwrap_or_default();
        let at = format!("example.sqn:{}:{}", w.position.line, w.position.column);
        if !text.contains(&w.message) || !text.contains(&at) {
            failures.push(format!(
                "{code}: the documented output does not show `{at}` and `{}`",
                w.message
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Chains of one-to-one and of one-to-few embedding (whose size estimates multiply up to
/// saturation) deeper than the limit are cut with W118, and only W118 speaks of the cut: no
/// W103 calling the chain recursive, no size printed as a 17-digit number.
#[test]
fn an_embedding_chain_deeper_than_the_limit_is_cut_with_w118() {
    for (depth, parent_end) in [(41, "one"), (41, "few(10)"), (60, "few(50)")] {
        let mut text = String::new();
        for i in 0..=depth {
            text.push_str(&format!("entity E{i} {{ name: string }}\n"));
        }
        for i in 0..depth {
            text.push_str(&format!(
                "relation E{i}.e{}: {parent_end} <-> E{}.up{i}: one\n",
                i + 1,
                i + 1
            ));
        }
        let plan = plan_of(&text);
        let w = plan
            .warnings
            .iter()
            .find(|w| w.code == "W118")
            .expect("the chain is cut with W118");
        assert!(
            w.message.contains("more than 40 levels deep"),
            "{}",
            w.message
        );
        assert!(plan.has_errors());
        for w in &plan.warnings {
            assert!(
                !w.message.contains("of its own kind"),
                "{parent_end}: a cut chain is not recursive: {}",
                w.message
            );
            let long_number = w
                .message
                .split(|c: char| !c.is_ascii_digit())
                .any(|digits| digits.len() > 6);
            assert!(!long_number, "{parent_end}: {}", w.message);
        }
    }
}

/// `squillion check` (`pipeline::check`) fails on everything `plan` and `generate` fail on, at a
/// place in the file: values and counters larger than a document, settings outside MongoDB's
/// limits, queries on payloads (resolution), documents whose worst case is over 16 MB and
/// embedding chains too deep (the plan's errors). And a file it accepts generates.
#[test]
fn check_fails_on_everything_plan_and_generate_fail_on() {
    let mut chain = String::new();
    for i in 0..42 {
        chain.push_str(&format!("entity E{i} {{ name: string }}\n"));
    }
    for i in 0..41 {
        chain.push_str(&format!(
            "relation E{i}.e{}: one <-> E{}.up{i}: one\n",
            i + 1,
            i + 1
        ));
    }
    let window = |w: &str| {
        format!(
            "entity A {{ x: string }}\nentity B {{ at: date }}\n\
             relation A.bs: squillions <-> B.a: one {{ time_range by at window {w} }}"
        )
    };
    let windows = [
        (window("0"), "E0314"),
        (window("2.5"), "E0314"),
        (window("1h"), "E0312"),
        (window("-3"), "E0314"),
    ];
    for (src, code) in &windows {
        let source = SourceFile::new("window.sqn", src.as_str());
        let codes: Vec<String> = match squillion_codegen::load(&source) {
            Ok(_) => Vec::new(),
            Err(d) => d.iter().map(|x| x.code.to_string()).collect(),
        };
        assert!(
            codes.iter().any(|c| c == code),
            "{src}: {codes:?}, wanted {code}"
        );
    }
    let failing = [
        ("entity A { x: binary @large(100GB) }", "E0314"),
        ("entity A { x: string @size(17MB) }", "E0314"),
        (
            "settings { doc_max_size = 10MB }\nentity A { x: binary @large(12MB) }",
            "E0314",
        ),
        ("entity A { c: counters(100000 x 100000) }", "E0303"),
        ("entity A { c: counters(3000 x 1000) }", "E0303"),
        ("settings { doc_max_size = 100MB }", "E0314"),
        ("settings { doc_warn_size = 3B }", "E0314"),
        ("settings { max_indexes = 1000 }", "E0314"),
        (
            "entity A { x: binary @payload }\nquery q on A { where x == ? }",
            "E0505",
        ),
        (
            "value P { b: binary }\nentity A { p: P @payload }\nquery q on A { sort p.b }",
            "E0505",
        ),
        // Only the plan knows: the worst case of 100,000 strings of up to 1 KB.
        ("entity A { xs: [string; 100000] }", "W104"),
        ("entity A { c: counters(1000 x 1500) }", "W104"),
        (chain.as_str(), "W118"),
    ];
    for (text, code) in failing {
        let source = SourceFile::new("check.sqn", text);
        let errors = match squillion_codegen::pipeline::check(&source) {
            Ok(_) => panic!("check accepts:\n{text}"),
            Err(errors) => errors,
        };
        assert!(
            errors.iter().any(|d| d.code == code && d.is_error()),
            "{code} expected for\n{text}\n{}",
            source.render(&errors, false)
        );
        let settings = squillion_codegen::pipeline::GenerateSettings::default();
        assert!(squillion_codegen::pipeline::compile(&source, &settings).is_err());
    }
    for passing in [
        "entity A { x: binary @large(15MB) }",
        "entity A { c: counters(24 x 60) }",
        "settings { doc_max_size = 16MB doc_warn_size = 1KB max_indexes = 64 }",
        "entity A { x: binary @payload y: string }\nquery q on A { where y == ? }",
    ] {
        let source = SourceFile::new("check.sqn", passing);
        if let Err(errors) = squillion_codegen::pipeline::check(&source) {
            panic!("{passing}\n{}", source.render(&errors, false));
        }
    }
}

#[test]
fn every_error_of_a_file_is_reported_together_in_source_order() {
    let (source, found) = diagnostics(
        "settings { bucket_sise = 10 }
         entity Book {
           title: strin
           pages: int32 @ignore_case
           author: Author
         }
         entity Author { name: string }
         relation Author.books: few(100000) <-> Book.writer: one { force embedded }
         query q on Book { where titel == ? rate 5 }",
    );
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        ["E0601", "E0301", "E0316", "E0302", "E0405", "E0413", "E0501", "E0313"],
        "{}",
        source.render(&found, false)
    );
    let starts: Vec<usize> = found.iter().map(|d| d.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    assert_eq!(starts, sorted);
    // Warnings come after the errors.
    let (_, found) = diagnostics(
        "entity A { t: string @index @index }
         entity B { u: strin }",
    );
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0301", "W0301"]);
}

#[test]
fn a_name_declared_twice_is_one_error() {
    let (source, found) = diagnostics(
        "entity Book { t: string }
         entity Book { t: string }
         relation Book.next: one <-> Book.previous: one
         query q on Book { where t == ? }",
    );
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0201"], "{}", source.render(&found, false));
}

#[test]
fn one_unknown_type_is_one_error_not_a_cascade() {
    let (source, found) = diagnostics(
        "entity A { t: strng @ignore_case @index }
         entity B { n: int32 }
         relation A.bs: many <-> B.a: one
         query q on A { where t starts_with ? ignore_case sort t }",
    );
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0301"], "{}", source.render(&found, false));
    assert_eq!(found[0].help.as_deref(), Some("did you mean `string`?"));
}

#[test]
fn diagnostics_name_the_place_and_the_fix() {
    let (source, found) = diagnostics("entity Book { t: string }\nvalue Book { t: string }");
    let d = &found[0];
    assert_eq!(d.related.len(), 1, "points at the first declaration too");
    assert_eq!(
        source
            .locate(&Diagnostic {
                span: d.related[0].span,
                ..d.clone()
            })
            .line,
        1
    );
    let out = source.render(&found, false);
    assert!(
        out.contains("error[E0201]: `Book` is declared twice"),
        "{out}"
    );
    assert!(out.contains("test.sqn:2:7"), "{out}");
    assert!(out.contains("first declared here as an entity"), "{out}");
    assert!(out.contains("share one namespace"), "{out}");
}

#[test]
fn attributes_in_the_wrong_place_are_named() {
    let (_, found) =
        diagnostics("entity A @index { t: string @tree }\nvalue V @tree { t: string }");
    let messages: Vec<(&str, &str, Option<&str>)> = found
        .iter()
        .map(|d| (d.code, d.message.as_str(), d.help.as_deref()))
        .collect();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert!(messages[0]
        .1
        .contains("`@index` is a field attribute, not an entity attribute"));
    assert!(messages[1]
        .1
        .contains("`@tree` is an entity attribute, not a field attribute"));
    assert!(messages[2].1.contains("value types take no attributes"));
    assert!(messages.iter().all(|m| m.0 == "E0310"));
}

#[test]
fn entity_field_types_and_relation_value_types_get_specific_help() {
    let (_, found) = diagnostics(
        "value Address { street: string }
         entity User { home: Address }
         entity Book { owner: [User] }
         relation User.addresses: few <-> Address.user: one",
    );
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0302", "E0205"]);
    assert!(found[0]
        .help
        .as_deref()
        .unwrap()
        .contains("declare a `relation`"));
    assert!(found[1]
        .help
        .as_deref()
        .unwrap()
        .contains("value types are always embedded"));
}

#[test]
fn contradicting_bounds_and_cardinality_arguments() {
    for (relation, code, message) in [
        (
            "A.bs: squillions(50) <-> B.a: one",
            "E0405",
            "too few for `squillions`",
        ),
        (
            "A.bs: few(typical 500) <-> B.a: one",
            "E0405",
            "more than `few` allows (200)",
        ),
        ("A.bs: many(0) <-> B.a: one", "E0314", "must be at least 1"),
        (
            "A.bs: many <-> B.a: one(2)",
            "E0404",
            "`one` means exactly one, not 2",
        ),
        (
            "A.bs: many(10, 20) <-> B.a: one",
            "E0404",
            "given a bound twice",
        ),
        (
            "A.bs: many(average 10) <-> B.a: one",
            "E0404",
            "has no argument `average`",
        ),
        (
            "A.bs: many <-> A.bs: one",
            "E0401",
            "both ends of relation `A.bs` are named `bs`",
        ),
    ] {
        let (source, found) = diagnostics(&two("y: string", &format!("relation {relation}")));
        assert!(
            found
                .iter()
                .any(|d| d.code == code && d.message.contains(message)),
            "{relation}: {}",
            source.render(&found, false)
        );
    }
}

#[test]
fn keys_that_cannot_be_keys() {
    for (entity, message) in [
        ("a: [string] @key", "key `a` is an array"),
        ("a: string @key @updates(1/day)", "key `a` is updated"),
        (
            "a: string @key @stored(\"k\")",
            "stored as `_id`, not as \"k\"",
        ),
        (
            "a: string\n  _id: string",
            "field `_id` of entity `A` is stored as `_id`",
        ),
        (
            "a: string @key\n  b: string @stored(\"_id\")",
            "`_id` declared twice",
        ),
        (
            "a: string @seldom_read @key",
            "cannot be both `@seldom_read` and `@key`",
        ),
    ] {
        let (source, found) = diagnostics(&format!("entity A {{\n  {entity}\n}}"));
        assert!(
            found.iter().any(|d| d.message.contains(message)),
            "{entity}: {}",
            source.render(&found, false)
        );
    }
    let (_, found) = diagnostics("value V { k: string @key }");
    assert_eq!(found[0].code, "E0309");
    assert!(found[0].message.contains("has no identity"));
}

#[test]
fn query_paths_and_comparisons() {
    let base = "value Publisher { city: string }
                entity Book { title: string pages: int32 publisher: Publisher tags: map<string> }
                entity Author { name: string born: bool }
                relation Author.books: many <-> Book.author: one\n";
    for (query, code, message) in [
        (
            "where publisher.town == ?",
            "E0501",
            "value type `Publisher` has no field `town`",
        ),
        (
            "where author.nam == ?",
            "E0501",
            "entity `Author` has no field `nam`",
        ),
        (
            "where author.born between ?",
            "E0502",
            "`between` compares ordered values",
        ),
        (
            "where pages == ? ignore_case",
            "E0502",
            "`ignore_case` compares strings",
        ),
        ("where tags.red == ?", "E0503", "its keys are data"),
        ("where title.x == ?", "E0503", "has no field `x`"),
        ("limit 0", "E0314", "`limit` must be at least 1"),
        ("rate 5/fortnight", "E0312", "unknown unit `/fortnight`"),
    ] {
        let (source, found) = diagnostics(&format!("{base}query q on Book {{ {query} }}"));
        assert!(
            found.len() == 1 && found[0].code == code && found[0].message.contains(message),
            "{query}: {}",
            source.render(&found, false)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Valid files: the Model

fn checked(text: &str) -> Checked {
    let source = SourceFile::new("valid.sqn", text);
    squillion_codegen::load(&source)
        .unwrap_or_else(|d| panic!("does not check:\n{}", source.render(&d, false)))
}

#[test]
fn a_natural_key_is_the_identity_stored_as_id() {
    let model = checked("entity User { username: string @key password: string @sensitive }").model;
    let user = model.entity("User").unwrap();
    assert_eq!(
        user.identity,
        Identity::Natural {
            field: "username".into(),
            bson_type: BsonType::String
        }
    );
    let key = user.field("username").unwrap();
    assert_eq!(key.bson_name, "_id");
    assert!(key.facts.key && key.facts.unique && key.facts.immutable);
    assert!(user.field("password").unwrap().facts.sensitive);
    assert_eq!(user.collection, "users");
    assert!(!user.collection_declared);
}

#[test]
fn relation_kinds_parents_and_children() {
    let model = checked(
        "entity Author { name: string }
         entity Book { title: string }
         entity Category { name: string }
         entity User { name: string }
         entity Address { city: string }
         relation Author.books: many(300) <-> Book.author: one { standalone Book navigate both }
         relation Book.categories: few(3) <-> Category.books: many(500000, typical 20)
         relation User.address: one <-> Address.user: one
         relation Book.reviewer: one <-> User.reviewed: squillions",
    )
    .model;
    let books = &model.relations[0];
    assert_eq!(books.id, "Author.books");
    assert_eq!(books.kind, RelationKind::OneToMany);
    assert_eq!(books.parent_side(), Side::Left);
    assert_eq!(books.child().entity, "Book");
    assert_eq!(books.left.cardinality.bound, Some(300));
    assert_eq!(books.facts.standalone, ["Book"]);
    assert_eq!(books.facts.navigate, Navigate::Both);
    let categories = &model.relations[1];
    assert_eq!(categories.kind, RelationKind::ManyToMany);
    assert_eq!(categories.right.cardinality.class, CardinalityClass::Many);
    assert_eq!(categories.right.cardinality.typical, Some(20));
    assert_eq!(model.relations[2].kind, RelationKind::OneToOne);
    assert_eq!(model.relations[2].parent().entity, "User");
    // The `one` end written first: the other end is the parent.
    let reviewer = &model.relations[3];
    assert_eq!(reviewer.kind, RelationKind::OneToMany);
    assert_eq!(reviewer.parent().entity, "User");
    assert_eq!(reviewer.child().entity, "Book");
}

#[test]
fn counters_shapes() {
    let model = checked(
        "entity E {
           a: counters(minute_of_day)
           b: counters(hour_of_week)
           c: counters(hour_of_day)
           d: counters(day_of_year)
           e: counters(24 x 60)
           f: counters(1440)
         }",
    )
    .model;
    let dims = |name: &str| match &model.entity("E").unwrap().field(name).unwrap().ty {
        FieldType::Counters { dims } => dims.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(dims("a"), [24, 60]);
    assert_eq!(dims("b"), [7, 24]);
    assert_eq!(dims("c"), [24]);
    assert_eq!(dims("d"), [366]);
    assert_eq!(dims("e"), [24, 60]);
    assert_eq!(dims("f"), [1440]);
}

#[test]
fn units_are_converted() {
    let model = checked(
        "settings { doc_warn_size = 4MB denormalize_min_ratio = 50:2 embed_array_max = 300 }
         entity Upload {
           created: date @expires(30d)
           caption: string @size(200B)
           exif: binary @large(20KB) @seldom_read
           title: string @updates(5/day)
           views: int64 @updates(2/h)
         }
         query recent on Upload { sort created desc limit 20 rate 120/min }",
    )
    .model;
    let upload = model.entity("Upload").unwrap();
    let facts = |name: &str| upload.field(name).unwrap().facts.clone();
    assert_eq!(facts("created").expires_after_seconds, Some(30 * 86_400));
    assert_eq!(facts("caption").size_bytes, Some(200));
    assert_eq!(facts("exif").large_bytes, Some(20 * 1024));
    assert_eq!(facts("title").updates_per_day, Some(5.0));
    assert_eq!(facts("views").updates_per_day, Some(48.0));
    assert_eq!(model.queries[0].rate_per_second, Some(2.0));
    assert_eq!(model.queries[0].limit, Some(20));
    assert!(model.queries[0].sort[0].descending);
    assert_eq!(model.settings.doc_warn_size, 4 * 1024 * 1024);
    assert_eq!(model.settings.denormalize_min_ratio, 25.0);
    assert_eq!(model.settings.embed_array_max, 300);
    assert_eq!(model.settings.id_array_max, 5_000);
}

#[test]
fn query_paths_are_resolved_through_values_variants_and_relations() {
    let model = checked(
        "value Publisher { city: string @stored(\"c\") }
         entity Author { first_name: string }
         entity Book { title: string publisher: Publisher tags: [string; 10] }
         entity Shape @polymorphic { area: double variant circle { radius: double } }
         relation Author.books: many(300) <-> Book.author: one
         query q on Book {
           where author.first_name starts_with ? ignore_case and publisher.city == ?
             and tags == ? and author == ? and _id in ?
         }
         query r on Shape { where radius > ? }",
    )
    .model;
    let q = &model.queries[0];
    let through = q.conditions[0].path.through.as_ref().unwrap();
    assert_eq!(
        (
            through.relation.as_str(),
            through.entity.as_str(),
            through.field.as_str()
        ),
        ("Author.books", "Author", "first_name")
    );
    assert!(q.conditions[0].ignore_case);
    assert_eq!(q.conditions[1].path.dotted(), "publisher.city");
    assert_eq!(q.conditions[1].path.bson_type, Some(BsonType::String));
    assert_eq!(q.conditions[2].path.bson_type, Some(BsonType::String));
    // A relation end compared as a whole is the reference itself.
    assert!(q.conditions[3].path.through.is_none());
    assert_eq!(q.conditions[3].path.bson_type, Some(BsonType::ObjectId));
    assert_eq!(q.conditions[4].path.bson_type, Some(BsonType::ObjectId));
    assert_eq!(
        model.queries[1].conditions[0].path.bson_type,
        Some(BsonType::Double)
    );
}

#[test]
fn relation_facts_are_resolved() {
    let model = checked(
        "entity Sensor { number: int32 @key }
         entity Reading { time: date @stored(\"ts\") value: double name: string }
         /// Readings of a sensor.
         relation Reading.sensor: one <-> Sensor.readings: squillions {
           growth append_heavy, unbounded
           time_range by time
           summary count, total(value), max(value), min(time)
           latest 10 by time desc keep time, value
           top 3 by value
           page 50 by time
           show Sensor.number on Reading ratio 1000:1
           show Reading.name on Sensor ratio 3
           atomic_move
           force bucket(100)
           fields { note: string? }
         }",
    )
    .model;
    let rel = &model.relations[0];
    assert_eq!(rel.docs, ["Readings of a sensor."]);
    assert_eq!(rel.child().entity, "Reading");
    let f = &rel.facts;
    assert!(f.append_heavy && f.unbounded && f.atomic_move);
    assert_eq!(f.time_range.as_deref(), Some("time"));
    let summary: Vec<(SummaryFn, Option<&str>)> = f
        .summary
        .iter()
        .map(|s| (s.function, s.field.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (SummaryFn::Count, None),
            (SummaryFn::Total, Some("value")),
            (SummaryFn::Max, Some("value")),
            (SummaryFn::Min, Some("time"))
        ]
    );
    let latest = f.latest.as_ref().unwrap();
    assert_eq!(
        (latest.n, latest.by.descending, latest.keep.len()),
        (10, true, 2)
    );
    assert!(!f.top.as_ref().unwrap().by.descending);
    assert_eq!(f.page.as_ref().unwrap().size, 50);
    assert_eq!(f.shows[0].from, "Sensor");
    assert_eq!(f.shows[0].ratio, Some(1000.0));
    assert_eq!(f.shows[1].ratio, Some(3.0));
    let force = f.force.unwrap();
    assert_eq!((force.layout, force.size), (Layout::Bucket, Some(100)));
    assert_eq!(rel.fields[0].name, "note");
    assert!(rel.fields[0].optional);
}

#[test]
fn entity_patterns_collections_and_docs() {
    let model = checked(
        "/// A shape.
         /// Two lines.
         entity Shape @polymorphic @collection(\"shapes2\") { area: double variant circle { r: double } }
         entity Doc @versioned(future) @schema_version(3) { body: string }
         entity Contract @versioned { terms: string }
         entity Job @queue(priority) { priority: int32 }
         entity Category @tree { name: string }
         entity LogMessage { m: string }",
    )
    .model;
    let shape = model.entity("Shape").unwrap();
    assert_eq!(shape.docs, ["A shape.", "Two lines."]);
    assert_eq!(shape.patterns.polymorphic.as_deref(), Some("type"));
    assert_eq!(
        (shape.collection.as_str(), shape.collection_declared),
        ("shapes2", true)
    );
    assert_eq!(shape.variants[0].fields[0].name, "r");
    let doc = model.entity("Doc").unwrap();
    assert_eq!(doc.patterns.versioned, Some(Versioning::ValidRange));
    assert_eq!(doc.patterns.schema_version, Some(3));
    assert_eq!(
        model.entity("Contract").unwrap().patterns.versioned,
        Some(Versioning::CurrentAndHistory)
    );
    assert_eq!(
        model.entity("Job").unwrap().patterns.queue.as_deref(),
        Some("priority")
    );
    assert!(model.entity("Category").unwrap().patterns.tree);
    assert_eq!(model.entity("Category").unwrap().collection, "categories");
    assert_eq!(
        model.entity("LogMessage").unwrap().collection,
        "log_messages"
    );
}

#[test]
fn warnings_leave_the_file_valid() {
    let checked = checked("entity A { t: string @unique @index }");
    assert_eq!(checked.warnings.len(), 1);
    assert_eq!(checked.warnings[0].code, "W0302");
    assert!(
        checked
            .model
            .entity("A")
            .unwrap()
            .field("t")
            .unwrap()
            .facts
            .unique
    );
}

#[test]
fn every_example_resolves() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("sqn") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let source = SourceFile::new(path.display().to_string(), text);
        match squillion_codegen::load(&source) {
            Ok(checked) => assert!(
                checked.warnings.is_empty(),
                "{}",
                source.render(&checked.warnings, false)
            ),
            Err(d) => panic!("{}", source.render(&d, false)),
        }
        seen += 1;
    }
    assert!(
        seen >= 5,
        "expected the seed examples in examples/, found {seen}"
    );
}

#[test]
fn every_example_of_the_language_reference_resolves() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/language.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut failures = Vec::new();
    let blocks: Vec<&str> = text
        .split("```sqn\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .collect();
    assert!(blocks.len() > 20, "docs/language.md has its examples");
    for block in blocks {
        let (source, found) = diagnostics(block);
        if !found.is_empty() {
            failures.push(source.render(&found, false));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

mod never_panics {
    use proptest::prelude::*;
    use squillion_grammar::SourceFile;

    /// Every example and the failing cases, cut and spliced anywhere: resolving never panics.
    fn corpus() -> Vec<String> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        out.extend(
            super::cases()
                .into_iter()
                .filter(|c| c.code != "E0103")
                .map(|c| String::from_utf8_lossy(&c.source).into_owned()),
        );
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, .. ProptestConfig::default() })]

        #[test]
        fn splices_of_valid_and_invalid_files(a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>(),
                                              cut in any::<prop::sample::Index>(), at in any::<prop::sample::Index>()) {
            let corpus = corpus();
            let first = &corpus[a.index(corpus.len())];
            let second = &corpus[b.index(corpus.len())];
            let cut = floor(second, cut.index(second.len() + 1));
            let at = floor(first, at.index(first.len() + 1));
            let text = format!("{}{}{}", &first[..at], &second[cut..], &first[at..]);
            let source = SourceFile::new("splice.sqn", text);
            let _ = squillion_codegen::load(&source);
        }
    }

    fn floor(s: &str, mut i: usize) -> usize {
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

/// `near` and `within` accept points only: on a field of every other type, top-level, in an
/// array or in a value type, they are error E0502 naming the operator and the type; on a point
/// (optional, in an array, in a value type) they are accepted.
#[test]
fn geospatial_operators_fit_points_only() {
    use squillion_codegen::model::BsonType;
    for ty in BsonType::ALL {
        for op in ["near", "within"] {
            for (field, path) in [
                (format!("f: {}", ty.sqn_name()), "f"),
                (format!("f: {}?", ty.sqn_name()), "f"),
                (format!("f: [{}; 3]", ty.sqn_name()), "f"),
                ("v: V".to_owned(), "v.f"),
            ] {
                let text = format!(
                    "value V {{ f: {} }}\nentity A {{ {field} }}\nquery q on A {{ where {path} {op} ? }}",
                    ty.sqn_name()
                );
                let (source, found) = diagnostics(&text);
                if ty == BsonType::Point {
                    assert!(found.is_empty(), "{text}: {}", source.render(&found, false));
                } else {
                    assert!(
                        found.len() == 1
                            && found[0].code == "E0502"
                            && found[0]
                                .message
                                .contains(&format!("`{op}` finds geospatial points"))
                            && found[0].message.contains(ty.sqn_name()),
                        "{text}: {}",
                        source.render(&found, false)
                    );
                }
            }
        }
    }
}
