//! The help of a warning about an unbounded array (W101) says how to bound what made the array.
//! An array a relationship puts in a document is bounded on the relationship's end
//! (`few(20)`, `many(500)`) or avoided by referencing the children; it used to get the help of a
//! plain field, "declare a bound, e.g. `[string; 20]`", which no relationship can take. Checked
//! for every layout that can be forced on an unbounded end, both kinds of relationship, and the
//! plain field arrays beside them.

mod planned;

#[test]
fn unbounded_array_help_fits_where_the_array_comes_from() {
    let mut relation_arrays = 0;
    let mut field_arrays = 0;
    for (card, other) in [
        ("squillions", "one"),
        ("many", "one"),
        ("squillions", "many(20)"),
        ("squillions", "squillions"),
    ] {
        for force in ["", "force embed", "force parent_refs", "force two_way"] {
            for field in ["", "tags: [string]", "scores: [int32]"] {
                let src = format!(
                    "entity Host {{ name: string {field} }}\nentity Log {{ msg: string }}\n\
                     relation Host.logs: {card} <-> Log.hosts: {other} {{ {force} }}\n"
                );
                let source = squillion_grammar::SourceFile::new("gen.sqn", src.as_str());
                // Some pairs of layout and cardinality are refused; those say why elsewhere.
                let Ok(checked) = squillion_codegen::load(&source) else {
                    continue;
                };
                let plan = squillion_codegen::engine::plan(&checked.model, &source);
                for w in plan
                    .warnings
                    .iter()
                    .filter(|w| w.code == "W101" && w.message.contains("no bound"))
                {
                    let help = w.help.as_deref().unwrap_or_default();
                    let from_relation = w.relation.is_some();
                    if from_relation {
                        relation_arrays += 1;
                        assert!(
                            help.contains("few(") && !help.contains("; 20]"),
                            "relation array: `{}` gets help `{help}`\n{src}",
                            w.message
                        );
                    } else {
                        field_arrays += 1;
                        assert!(
                            help.contains("; 20]"),
                            "field array: `{}` gets help `{help}`\n{src}",
                            w.message
                        );
                    }
                }
            }
        }
    }
    assert!(
        relation_arrays >= 4 && field_arrays >= 10,
        "{relation_arrays} relation arrays, {field_arrays} field arrays"
    );
}
