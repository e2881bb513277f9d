//! A forced layout that puts whole children inside documents of the other side (`embed`,
//! `bucket`) of a many-to-many relationship copies each child into every document of each of its
//! parents: rule 5's cost, warned as W110 (a forced layout breaks a rule). `force bucket` on a
//! many-to-many passed without a warning before. In a one-to-many relationship each child has
//! one parent, so neither layout copies it.

use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Option<Plan> {
    let source = SourceFile::new("test.sqn", src);
    let checked = squillion_codegen::load(&source).ok()?;
    Some(squillion_codegen::engine::plan(&checked.model, &source))
}

fn copies_warned(p: &Plan) -> bool {
    p.warnings
        .iter()
        .any(|w| w.code == "W110" && w.message.contains("copied into every"))
}

#[test]
fn forced_whole_children_of_several_parents_are_warned() {
    let ends = [
        ("few(5)", "few(5)", true),
        ("many(50)", "many(50)", true),
        ("few(3)", "squillions", true),
        ("squillions", "many(40)", true),
        ("few(5)", "one", false),
        ("many(300)", "one", false),
        ("squillions", "one", false),
    ];
    let mut planned = 0;
    for (left, right, many_to_many) in ends {
        for force in ["force embed", "force bucket(10)", "force bucket(50)"] {
            for extra in ["", "page 10 by at", "navigate A"] {
                let src = format!(
                    "entity A {{ n: string }}\nentity B {{ at: date }}\n\
                     relation A.bs: {left} <-> B.a: {right} {{\n  {force}\n  {extra}\n}}\n"
                );
                let Some(p) = plan(&src) else { continue };
                planned += 1;
                assert_eq!(
                    copies_warned(&p),
                    many_to_many,
                    "{src}\n{:#?}",
                    p.warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
                );
            }
        }
    }
    assert!(planned >= 40, "only {planned} schemas planned");
}
