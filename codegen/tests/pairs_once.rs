//! An array of references that carry copies or relationship fields (`[{id, since}]`: order
//! lines, enrolments with their progress, a parent's children with their names) holds each
//! referenced document once. A relationship is a set of pairs; before, the generated push
//! accepted the same course twice in a student's enrolments. Every such array of the generator's
//! schemas is declared `embed(max = N, unique("<id>"))`, whose push refuses a second element
//! naming the same document (the server test: `examples/generated/tests/helpdesk.rs`,
//! `Agent.following`). A two-way array is declared `two_way(..., id = "<id>")` instead: it is
//! written by `link_<f>`, which rewrites the element naming a document rather than adding a
//! second one (`examples/generated/tests/two_way.rs`).

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{Collection, Shape};
use squillion_grammar::SourceFile;

/// The attributes right above `pub <field>:` in the struct of `c`, as one string without
/// whitespace (prettyplease spreads a long attribute over several lines).
fn attributes_of(rust: &str, c: &Collection, field: &str) -> String {
    let marker = format!("collection = \"{}\"", c.name);
    let Some(start) = rust.find(&marker) else {
        return String::new();
    };
    let body = &rust[start..];
    let end = body.find("\n}\n").unwrap_or(body.len());
    let lines: Vec<&str> = body[..end].lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("pub {field}:")))
    else {
        return String::new();
    };
    let mut above: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| {
            let l = l.trim_start();
            !l.starts_with("///") && !l.starts_with("pub ") && !l.ends_with('{')
        })
        .copied()
        .collect();
    above.reverse();
    above.concat().split_whitespace().collect()
}

#[test]
fn every_array_of_references_with_fields_holds_each_reference_once() {
    use squillion_codegen::pipeline::{compile, GenerateSettings};
    let mut arrays = 0;
    for (_, s) in squillion_schemagen::batch(11, 200, squillion_schemagen::Config::default()) {
        let text = squillion_schemagen::render(&s);
        let source = SourceFile::new("gen.sqn", text.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(_) => panic!("a generated schema does not compile:\n{text}"),
        };
        let plan = &generated.plan;
        for d in &plan.relationships {
            for p in d
                .placement
                .iter()
                .filter(|p| p.shape == Shape::ArrayOfExtendedRefs && !p.path.contains('.'))
            {
                let Some(c) = plan.collection(&p.collection) else {
                    continue;
                };
                let Some(f) = c.field(&p.path) else {
                    continue;
                };
                let Some(id) = f
                    .children
                    .iter()
                    .find(|x| x.kind == squillion_codegen::plan::FieldKind::Ref)
                else {
                    continue;
                };
                arrays += 1;
                let attrs = attributes_of(&generated.rust, c, &f.code_name);
                // A two-way array is linked, never pushed: `link_<f>` rewrites the element
                // naming the document instead of adding a second one.
                let linked =
                    attrs.contains("two_way(") && attrs.contains(&format!(",id=\"{}\"", id.name));
                let unique =
                    attrs.contains("embed(") && attrs.contains(&format!("unique(\"{}\"", id.name));
                assert!(
                    if d.strategy == Layout::TwoWay {
                        linked
                    } else {
                        unique
                    },
                    "{}.{} ({}): {attrs}\n{text}",
                    c.name,
                    p.path,
                    d.id
                );
            }
        }
    }
    assert!(arrays > 20, "only {arrays} arrays of references drawn");
}
