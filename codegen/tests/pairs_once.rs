//! An array of references that carry copies or relationship fields (`[{id, since}]`: order
//! lines, enrolments with their progress, a parent's children with their names) holds each
//! referenced document once. A relationship is a set of pairs; before, the generated push
//! accepted the same course twice in a student's enrolments. Every such array of the generator's
//! schemas is declared `embed(max = N, unique("<id>"))`, whose push refuses a second element
//! naming the same document (the server test: `examples/generated/tests/helpdesk.rs`,
//! `Agent.following`).

use squillion_codegen::plan::{Collection, Shape};
use squillion_grammar::SourceFile;

/// The attribute lines right above `pub <field>:` in the struct of `c`.
fn attributes_of<'t>(rust: &'t str, c: &Collection, field: &str) -> Vec<&'t str> {
    let marker = format!("collection = \"{}\"", c.name);
    let Some(start) = rust.find(&marker) else {
        return Vec::new();
    };
    let body = &rust[start..];
    let end = body.find("\n}\n").unwrap_or(body.len());
    let lines: Vec<&str> = body[..end].lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("pub {field}:")))
    else {
        return Vec::new();
    };
    lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.trim_start().starts_with("#[") || l.trim_start().starts_with("///"))
        .filter(|l| l.trim_start().starts_with("#["))
        .copied()
        .collect()
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
                let wanted = format!("unique(\"{}\"", id.name);
                assert!(
                    attrs
                        .iter()
                        .any(|a| a.contains("embed(") && a.contains(&wanted)),
                    "{}.{} ({}): {attrs:?}\n{text}",
                    c.name,
                    p.path,
                    d.id
                );
            }
        }
    }
    assert!(arrays > 20, "only {arrays} arrays of references drawn");
}
