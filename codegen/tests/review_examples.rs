//! The review of every example schema (`examples/*.sqn`), through the real resolver and engine:
//! Markdown and terminal text are snapshots (insta; updating them is opt-in), and every document
//! must explain every decision of its plan.

mod support;

use squillion_codegen::plan::Plan;
use squillion_codegen::review::{render, Format};
use support::{example_plan, words};

fn explains_every_decision(name: &str, plan: &Plan, doc: &str) {
    let doc = words(doc);
    let has = |sentence: &str, what: &str| {
        let probe: String = words(sentence).chars().take(48).collect();
        assert!(doc.contains(&probe), "{name}: {what} {probe:?} missing");
    };
    for d in &plan.relationships {
        has(&d.because, "because");
        d.facts.iter().for_each(|f| has(f, "fact"));
        d.rules.iter().for_each(|r| has(r.text, "rule text"));
        d.rejected.iter().for_each(|r| has(&r.why, "rejection"));
        d.obligations.iter().for_each(|o| has(o, "obligation"));
    }
    for w in &plan.warnings {
        has(
            &format!(
                "{}:{}:{}",
                w.position.file, w.position.line, w.position.column
            ),
            "warning position",
        );
    }
    for c in &plan.collections {
        has(&c.name, "collection");
    }
}

macro_rules! example {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[test]
            fn markdown() {
                let plan = example_plan(stringify!($name));
                let out = render(&plan, Format::Markdown).expect("markdown renders");
                explains_every_decision(stringify!($name), &plan, &out.main);
                assert_eq!(out.files.len(), 1, "the diagram is a side file");
                insta::assert_snapshot!(concat!(stringify!($name), "_md"), out.main);
            }

            #[test]
            fn text() {
                let plan = example_plan(stringify!($name));
                let out = render(&plan, Format::Text { color: false }).expect("text renders");
                explains_every_decision(stringify!($name), &plan, &out.main);
                insta::assert_snapshot!(concat!(stringify!($name), "_text"), out.main);
            }

            #[test]
            fn html() {
                let plan = example_plan(stringify!($name));
                let out = render(&plan, Format::Html).expect("html renders");
                explains_every_decision(stringify!($name), &plan, &out.main);
                assert!(out.main.contains("<svg"));
            }
        }
    )*};
}

example!(blog, catalog, inventory, library, patterns);

#[test]
fn every_example_has_review_snapshots() {
    let listed = ["blog", "catalog", "inventory", "library", "patterns"];
    for name in support::example_names() {
        assert!(
            listed.contains(&name.as_str()),
            "examples/{name}.sqn has no review tests: add it to `example!` in this file"
        );
    }
}
