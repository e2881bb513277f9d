//! A query whose path the chosen layout keeps in another collection gets W119 and no method;
//! its help says what to do for that layout. Before, it always said "remove the `force` that
//! moved it", also where nothing was forced (a many-to-many kept in a link collection, a
//! reference kept on the other side). Every relation shape × force × direction below: the help
//! names `force` exactly when the relationship is forced, and every `collection.path` it names is
//! stored in the Plan.

use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("test.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("schema does not check:\n{}", source.render(&diags, false)),
    }
}

/// Every `collection.path` between backticks in `help`.
fn named_paths(help: &str) -> Vec<(String, String)> {
    help.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|s| {
            let (c, p) = s.split_once('.')?;
            Some((c.to_owned(), p.to_owned()))
        })
        .collect()
}

#[test]
fn every_w119_help_fits_its_layout() {
    let ends = [
        ("few(5)", "one"),
        ("many(300)", "one"),
        ("squillions", "one"),
        ("many(50)", "many(50)"),
        ("many(50)", "squillions"),
        ("few(5)", "many(5000)"),
    ];
    let forces = [
        "",
        "force embed",
        "force parent_refs",
        "force child_ref",
        "force two_way",
        "force one_way",
        "force link_collection",
    ];
    let extras = ["", "navigate A", "fields { since: date }"];
    let (mut seen, mut unforced) = (0, 0);
    for (left, right) in ends {
        for force in forces {
            for extra in extras {
                let src = format!(
                    "entity A {{ name: string }}\nentity B {{ title: string }}\n\
                     relation A.bs: {left} <-> B.a: {right} {{\n  standalone B\n  {extra}\n  {force}\n}}\n\
                     query a_by_b on A {{ where bs == ? }}\nquery b_by_a on B {{ where a == ? }}\n"
                );
                let source = SourceFile::new("test.sqn", &src);
                // Some forces do not fit some shapes (E0xxx): those are not this test's concern.
                if squillion_codegen::load(&source).is_err() {
                    continue;
                }
                let p = plan(&src);
                let forced = p.relationship("A.bs").is_some_and(|d| d.forced);
                for w in p.warnings.iter().filter(|w| w.code == "W119") {
                    seen += 1;
                    unforced += usize::from(!forced);
                    let help = w.help.as_deref().unwrap_or_default();
                    assert_eq!(
                        help.contains("force"),
                        forced,
                        "{src}\nW119 help mentions `force` {}: {help}",
                        if forced {
                            "not"
                        } else {
                            "although nothing is forced"
                        }
                    );
                    for (c, path) in named_paths(help) {
                        let coll = p.collections.iter().find(|x| x.name == c);
                        assert!(coll.is_some(), "{src}\nhelp names collection `{c}`: {help}");
                        let top = path.split('.').next().unwrap_or_default();
                        assert!(
                            coll.is_some_and(|x| x.fields.iter().any(|f| f.name == top)),
                            "{src}\nhelp names `{c}.{path}`, which it does not store: {help}"
                        );
                    }
                }
            }
        }
    }
    assert!(
        seen > 20,
        "only {seen} W119 warnings: the cases no longer exercise it"
    );
    assert!(
        unforced > 3,
        "only {unforced} W119 warnings without a force"
    );
}
