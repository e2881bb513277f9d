//! The design-review printout: snapshots of the Markdown and terminal documents, and the content
//! a reviewer relies on (every decision's facts, rules, rejected alternatives and costs; samples;
//! redaction; warnings with positions; the diagram).

mod support;

use squillion_codegen::plan::Plan;
use squillion_codegen::review::{render, Format, ReviewError};

fn md(plan: &Plan) -> String {
    render(plan, Format::Markdown)
        .expect("markdown renders")
        .main
}

fn text(plan: &Plan) -> String {
    render(plan, Format::Text { color: false })
        .expect("text renders")
        .main
}

fn html(plan: &Plan) -> String {
    render(plan, Format::Html).expect("html renders").main
}

use support::words;

fn assert_mentions(doc: &str, sentence: &str, what: &str) {
    let probe: String = words(sentence).chars().take(48).collect();
    assert!(words(doc).contains(&probe), "{what}: {probe:?} missing");
}

#[test]
fn fixture_markdown_snapshot() {
    insta::assert_snapshot!("fixture_md", md(&support::plan()));
}

#[test]
fn fixture_text_snapshot() {
    insta::assert_snapshot!("fixture_text", text(&support::plan()));
}

#[test]
fn fixture_diagram_snapshot() {
    let rendered = render(&support::plan(), Format::Markdown).unwrap();
    assert_eq!(rendered.files.len(), 1);
    assert_eq!(rendered.files[0].name, "fixture.erd.svg");
    insta::assert_snapshot!("fixture_svg", rendered.files[0].content);
}

#[test]
fn every_decision_is_explained_with_facts_rules_rejections_and_costs() {
    let plan = support::plan();
    for doc in [md(&plan), text(&plan), html(&plan)] {
        for d in &plan.relationships {
            assert_mentions(&doc, &d.id, "relationship");
            assert_mentions(&doc, &d.because, "because");
            for f in &d.facts {
                assert_mentions(&doc, f, "fact");
            }
            for r in &d.rules {
                assert_mentions(&doc, r.text, "rule text");
            }
            for r in &d.rejected {
                assert_mentions(&doc, &r.strategy, "rejected alternative");
                assert_mentions(&doc, &r.why, "why it lost");
            }
            for o in &d.obligations {
                assert_mentions(&doc, o, "obligation");
            }
        }
    }
}

#[test]
fn fan_outs_are_shown_as_the_update_they_require() {
    let doc = md(&support::plan());
    assert!(doc.contains("db.products.updateMany("));
    assert!(doc.contains("\"parts.$[elem].name\""));
    assert!(doc.contains("arrayFilters"));
    assert!(doc.contains("1,000 reads per update"));
}

#[test]
fn samples_use_shell_types_and_redact_sensitive_fields() {
    let plan = support::plan();
    let doc = md(&plan);
    for needle in [
        "ObjectId(\"",
        "ISODate(\"",
        "NumberDecimal(\"",
        "NumberInt(",
        "NumberLong(",
        "ssn: \"<redacted>\"",
        "/* \u{2026} up to 1,000 */",
    ] {
        assert!(doc.contains(needle), "{needle} missing");
    }
    assert!(!doc.contains("ssn: \"ssn"), "a sensitive value leaked");
}

#[test]
fn references_in_samples_match_the_referenced_samples_ids() {
    let plan = support::plan();
    let parts = plan.collection("parts").unwrap();
    let sample = squillion_codegen::review::sample::document(parts);
    let own = squillion_codegen::review::sample::object_id("Part", 1);
    assert!(sample.contains(&own));
    let products =
        squillion_codegen::review::sample::document(plan.collection("products").unwrap());
    assert!(
        products.contains(&own),
        "products.parts[0].id should be the parts sample's _id"
    );
}

#[test]
fn warnings_show_code_severity_and_source_position() {
    let plan = support::plan();
    for doc in [md(&plan), text(&plan), html(&plan)] {
        assert!(doc.contains("W104"));
        assert!(doc.contains("fixture.sqn:98:1"));
        assert!(doc.contains("fixture.sqn:112:3"));
        assert!(doc.contains("lower `latest`") || doc.contains("lower <code>latest</code>"));
    }
}

#[test]
fn thresholds_in_force_are_listed() {
    let doc = md(&support::plan());
    for needle in [
        "`embed_array_max` | 200",
        "`id_array_max` | 5,000",
        "`doc_max_size` | 16 MB",
    ] {
        assert!(doc.contains(needle), "{needle} missing");
    }
}

#[test]
fn validator_summary_comes_from_the_fields() {
    let plan = support::plan();
    let rows = squillion_codegen::review::view::validator_rows(
        &plan.collection("products").unwrap().fields,
    );
    let parts = rows.iter().find(|r| r.path == "parts").unwrap();
    assert_eq!(parts.bson_type, "array of object");
    assert_eq!(parts.max_items, "1,000");
    assert!(parts.required);
    assert!(rows.iter().any(|r| r.path == "parts.name"));
}

#[test]
fn the_diagram_has_every_collection_and_labelled_arrows() {
    let plan = support::plan();
    let svg = &render(&plan, Format::Markdown).unwrap().files[0].content;
    assert!(svg.starts_with("<svg"));
    for c in &plan.collections {
        assert!(
            svg.contains(&format!(">{}", c.name)),
            "{} missing from the diagram",
            c.name
        );
    }
    assert!(svg.contains("parent_refs \u{00b7} many(1000) : one"));
    assert!(svg.contains("child_ref \u{00b7} squillions : one"));
    assert!(svg.contains("subset copies"));
    assert!(
        svg.contains("class=\"nest1\""),
        "embedded documents are nested boxes"
    );
    let doc = html(&plan);
    assert!(doc.contains("<svg"), "the HTML inlines the diagram");
    assert!(
        !doc.contains("<script"),
        "no JavaScript is needed to view it"
    );
}

#[test]
fn markdown_links_the_diagram_file() {
    let doc = md(&support::plan());
    assert!(doc.contains("](fixture.erd.svg)"));
}

#[test]
fn rendering_is_deterministic() {
    let plan = support::plan();
    for format in [Format::Markdown, Format::Html, Format::Text { color: true }] {
        assert_eq!(
            render(&plan, format).unwrap(),
            render(&plan, format).unwrap()
        );
    }
}

#[test]
fn terminal_colour_is_opt_in() {
    let plan = support::plan();
    assert!(!text(&plan).contains('\u{1b}'));
    let colored = render(&plan, Format::Text { color: true }).unwrap().main;
    assert!(colored.contains("\u{1b}["));
}

#[test]
fn html_is_self_contained_and_print_ready() {
    let doc = html(&support::plan());
    assert!(doc.starts_with("<!DOCTYPE html>"));
    assert!(doc.contains("@media print"));
    assert!(doc.contains("break-before: page"));
    assert!(!doc.contains("<link"), "no external stylesheet");
    assert!(!doc.contains("src=\"http"), "no external resource");
    assert!(
        doc.contains("&quot;&lt;redacted&gt;&quot;"),
        "samples are escaped and redacted"
    );
}

#[test]
fn unknown_formats_are_refused() {
    assert!(matches!(
        "pdf".parse::<Format>(),
        Err(ReviewError::UnknownFormat { .. })
    ));
    assert_eq!("md".parse::<Format>().unwrap(), Format::Markdown);
    assert_eq!("html".parse::<Format>().unwrap(), Format::Html);
}

#[test]
fn an_empty_plan_renders() {
    let mut plan = support::plan();
    plan.collections.clear();
    plan.relationships.clear();
    plan.warnings.clear();
    for format in [
        Format::Markdown,
        Format::Html,
        Format::Text { color: false },
    ] {
        let out = render(&plan, format).unwrap();
        assert!(!out.main.is_empty());
    }
}

#[test]
fn the_diagram_copes_with_self_references_two_way_links_and_many_collections() {
    use squillion_codegen::model::Layout;
    use squillion_codegen::plan::{CollectionRole, Placement, Shape};
    let mut plan = support::plan();
    // A tree: parts reference their parent part.
    let mut tree = plan.relationship("Product.parts").unwrap().clone();
    tree.id = "Part.parent".to_owned();
    tree.from = "Part".to_owned();
    tree.to = "Part".to_owned();
    tree.parent = "Part".to_owned();
    tree.child = "Part".to_owned();
    tree.strategy = Layout::ChildRef;
    tree.denormalized.clear();
    tree.placement = vec![Placement {
        holder: "Part".to_owned(),
        collection: "parts".to_owned(),
        path: "parent".to_owned(),
        shape: Shape::Id,
        target: "Part".to_owned(),
        max_items: None,
    }];
    // Two-way: products and hosts reference each other.
    let mut two_way = tree.clone();
    two_way.id = "Product.hosts".to_owned();
    two_way.strategy = Layout::TwoWay;
    two_way.parent = "Product".to_owned();
    two_way.child = "Host".to_owned();
    two_way.placement = vec![
        Placement {
            holder: "Product".to_owned(),
            collection: "products".to_owned(),
            path: "hosts".to_owned(),
            shape: Shape::ArrayOfIds,
            target: "Host".to_owned(),
            max_items: Some(10),
        },
        Placement {
            holder: "Host".to_owned(),
            collection: "hosts".to_owned(),
            path: "product".to_owned(),
            shape: Shape::Id,
            target: "Product".to_owned(),
            max_items: None,
        },
    ];
    // A link collection between people and blog posts.
    let mut link_coll = plan.collection("parts").unwrap().clone();
    link_coll.name = "person_posts".to_owned();
    link_coll.entity = "Person".to_owned();
    link_coll.role = CollectionRole::Link {
        relation: "Person.posts".to_owned(),
    };
    let mut link = tree.clone();
    link.id = "Person.posts".to_owned();
    link.strategy = Layout::LinkCollection;
    link.placement = ["Person", "BlogPost"]
        .iter()
        .map(|t| Placement {
            holder: "person_posts (link)".to_owned(),
            collection: "person_posts".to_owned(),
            path: t.to_lowercase(),
            shape: Shape::Id,
            target: (*t).to_owned(),
            max_items: None,
        })
        .collect();
    plan.collections.push(link_coll);
    plan.relationships.extend([tree, two_way, link]);
    // Many unrelated collections.
    for i in 0..12 {
        let mut c = plan.collection("blog_posts").unwrap().clone();
        c.name = format!("extra_{i}");
        c.entity = format!("Extra{i}");
        plan.collections.push(c);
    }
    let rendered = render(&plan, Format::Markdown).expect("the diagram lays out");
    let svg = &rendered.files[0].content;
    for c in &plan.collections {
        assert!(svg.contains(&format!(">{}", c.name)), "{} missing", c.name);
    }
    assert!(svg.contains("two_way"));
    assert!(svg.contains("link_collection"));
    assert!(render(&plan, Format::Html).is_ok());
}

#[test]
fn names_and_sentences_are_escaped_in_every_format() {
    let mut plan = support::plan();
    plan.source = "<evil>.sqn".to_owned();
    plan.relationships[0].because =
        "a | b <script>alert(1)</script> {{ not_a_variable }}".to_owned();
    plan.relationships[0]
        .facts
        .push("`count < N | x` and *stars*".to_owned());
    plan.collections[0].docs = vec!["</pre><script>x</script>".to_owned()];
    let html = html(&plan);
    assert!(!html.contains("<script>"), "HTML must escape plan text");
    assert!(html.contains("&lt;script&gt;"));
    assert!(
        html.contains("{{ not_a_variable }}"),
        "plan text is data, not template"
    );
    let md = md(&plan);
    assert!(
        md.contains("a \\| b &lt;script&gt;"),
        "Markdown table cells escape pipes and tags"
    );
    assert!(md.contains("`count < N \\| x` and \\*stars\\*"));
    let svg = &render(&plan, Format::Markdown).unwrap().files[0].content;
    assert!(svg.contains("&lt;evil&gt;.sqn"));
}

mod diagram_properties {
    use super::*;
    use proptest::prelude::*;
    use squillion_codegen::model::Layout;
    use squillion_codegen::plan::{CollectionRole, Placement, Shape};

    /// A plan with `n` entity collections and a reference for each `(holder, target, shape)`.
    fn graph(n: usize, refs: &[(usize, usize, u8)]) -> Plan {
        let mut plan = support::plan();
        let template = plan.collection("person").unwrap().clone();
        let decision = plan.relationship("Product.parts").unwrap().clone();
        plan.collections = (0..n)
            .map(|i| {
                let mut c = template.clone();
                c.name = format!("c{i}");
                c.entity = format!("E{i}");
                c.role = CollectionRole::Entity;
                c
            })
            .collect();
        plan.relationships = refs
            .iter()
            .enumerate()
            .map(|(k, &(a, b, shape))| {
                let mut d = decision.clone();
                d.id = format!("E{a}.r{k}");
                d.parent = format!("E{}", if shape % 2 == 0 { a } else { b });
                d.strategy = Layout::ALL[usize::from(shape) % Layout::ALL.len()];
                d.placement = vec![Placement {
                    holder: format!("E{a}"),
                    collection: format!("c{a}"),
                    path: format!("r{k}"),
                    shape: [Shape::Id, Shape::ArrayOfIds, Shape::ExtendedRef]
                        [usize::from(shape) % 3],
                    target: format!("E{b}"),
                    max_items: None,
                }];
                d.subset = None;
                d
            })
            .collect();
        plan.warnings.clear();
        plan
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any graph of references, with cycles, self references and parallel arrows, lays out
        /// (the layout library's internal assertions never reach the user) and shows every
        /// collection.
        #[test]
        fn any_reference_graph_is_drawn(
            n in 1usize..10,
            raw in proptest::collection::vec((0usize..10, 0usize..10, 0u8..12), 0..16),
        ) {
            let refs: Vec<(usize, usize, u8)> =
                raw.into_iter().map(|(a, b, s)| (a % n, b % n, s)).collect();
            let plan = graph(n, &refs);
            let svg = squillion_codegen::review::diagram::svg(&plan)
                .expect("the diagram lays out");
            for c in &plan.collections {
                let needle = format!(">{}<", c.name);
                prop_assert!(svg.contains(&needle));
            }
        }
    }
}
