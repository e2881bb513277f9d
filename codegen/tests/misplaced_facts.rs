//! A `show` written in the wrong relation: the entity it names is not an end of that relation,
//! but another relation connects it with the entity it is shown on. The error names that
//! relation, wherever it is declared (before or after), in either direction; without one the
//! help lists the ends as before.

use squillion_grammar::SourceFile;

fn diagnostics(src: &str) -> Vec<(String, String, String)> {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(_) => Vec::new(),
        Err(diags) => diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                (
                    d.code.to_string(),
                    d.message.clone(),
                    d.help.clone().unwrap_or_default(),
                )
            })
            .collect(),
    }
}

#[test]
fn a_show_in_the_wrong_relation_points_to_the_right_one() {
    let names = [("User", "Post", "Comment"), ("Author", "Book", "Review")];
    for (a, b, c) in names {
        let (al, bl, cl) = (a.to_lowercase(), b.to_lowercase(), c.to_lowercase());
        let misplaced = format!(
            "relation {b}.{cl}s: squillions <-> {c}.{bl}: one {{\n  show {a}.name on {c} ratio 500:1\n}}\n"
        );
        for other_first in [false, true] {
            for reversed in [false, true] {
                let other = if reversed {
                    format!("relation {c}.{al}: one <-> {a}.{cl}s: squillions\n")
                } else {
                    format!("relation {a}.{cl}s: squillions <-> {c}.{al}: one\n")
                };
                let other_id = if reversed {
                    format!("{c}.{al}")
                } else {
                    format!("{a}.{cl}s")
                };
                let entities = format!(
                    "entity {a} {{ name: string }}\nentity {b} {{ title: string }}\nentity {c} {{ text: string }}\n"
                );
                let src = if other_first {
                    format!("{entities}{other}{misplaced}")
                } else {
                    format!("{entities}{misplaced}{other}")
                };
                let d = diagnostics(&src);
                assert_eq!(d.len(), 1, "{d:?}\n{src}");
                let (code, message, help) = &d[0];
                assert_eq!(code, "E0406", "{src}");
                assert!(message.contains(&format!("`{b}.{cl}s`")), "{message}");
                assert!(
                    help.contains(&format!("relation `{other_id}`"))
                        && help.contains("state this `show`"),
                    "{help}\n{src}"
                );
            }
        }
        // No relation between the two: the ends are listed.
        let src = format!(
            "entity {a} {{ name: string }}\nentity {b} {{ title: string }}\nentity {c} {{ text: string }}\n{misplaced}"
        );
        let d = diagnostics(&src);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].2.contains(&format!("`{b}`")) && d[0].2.contains(&format!("`{c}`")),
            "{:?}",
            d[0]
        );
    }
}
