//! Hostile but valid schemas (`hostile/schemas/*.sqn`): names like Rust's prelude, keywords and
//! the generated items; doc comments rustc refuses (bare carriage returns, direction-changing
//! characters) or rustdoc would run (code fences, indented code); strings that break literals,
//! Markdown and HTML. Each checks, generates code equal to its golden (`hostile/src/<name>.rs`,
//! compiled by the `squillion-hostile-generated` crate with `deny(warnings)`, clippy and doctests)
//! that defines no name twice once the derive is expanded, and a review in Markdown and HTML that
//! shows every hostile string without acting on it. `SQUILLION_BLESS=1` rewrites the goldens.

use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag};
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::{Plan, PlanField};
use squillion_codegen::review::{self, Format};
use squillion_grammar::{escape_invisible, is_invisible, SourceFile};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `(name, source)` of every hostile schema.
fn schemas() -> Vec<(String, SourceFile)> {
    let dir = root().join("hostile/schemas");
    let mut out: Vec<(String, SourceFile)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            (
                name.clone(),
                SourceFile::new(format!("hostile/schemas/{name}.sqn"), text),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 3, "the hostile schemas are missing: {dir:?}");
    out
}

fn generated(source: &SourceFile) -> (Plan, String) {
    match compile(source, &GenerateSettings::default()) {
        Ok(g) => (g.plan, g.rust),
        Err(d) => panic!("{}", source.render(&d, false)),
    }
}

#[test]
fn every_hostile_schema_generates_its_golden() {
    let bless = std::env::var_os("SQUILLION_BLESS").is_some();
    let dir = root().join("hostile/src");
    let lib = std::fs::read_to_string(dir.join("lib.rs")).unwrap();
    let mut differ = Vec::new();
    for (name, source) in schemas() {
        let (_, rust) = generated(&source);
        assert_eq!(rust, generated(&source).1, "{name}: deterministic");
        let path = dir.join(format!("{name}.rs"));
        if bless {
            std::fs::write(&path, &rust).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(rust.as_str()) {
            differ.push(path.display().to_string());
        }
        assert!(
            lib.contains(&format!("pub mod {name};")),
            "hostile/src/lib.rs does not compile the golden of {name}"
        );
        assert!(
            !rust.chars().any(|c| is_invisible(c) || c == '\r'),
            "{name}: invisible characters reach the generated code"
        );
    }
    assert!(
        differ.is_empty(),
        "generated code changed ({}); review the change and bless it with SQUILLION_BLESS=1",
        differ.join(", ")
    );
}

/// Every hostile schema and every example: the generated module, with every derive expanded,
/// defines each name once in its namespace.
#[test]
fn generated_code_defines_every_name_once() {
    let mut sources: Vec<(String, SourceFile)> = schemas();
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "sqn") {
            let text = std::fs::read_to_string(&path).unwrap();
            sources.push((path.display().to_string(), SourceFile::new("x.sqn", text)));
        }
    }
    for (name, source) in sources {
        let (_, rust) = generated(&source);
        let duplicates = squillion_codegen::rust::verify::duplicate_definitions(&rust)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(duplicates.is_empty(), "{name}: {duplicates:#?}");
    }
}

/// The clashes `check` finds on the Plan are exactly the duplicate definitions of the code: over
/// squillion-schemagen's schemas (every layout family), the examples, the hostile corpus and
/// schemas that clash on purpose, the Plan has a clash if and only if the generated module (with
/// every derive expanded) defines a name twice.
#[test]
fn clashes_on_the_plan_are_the_duplicates_of_the_code() {
    let mut texts: Vec<(String, String)> =
        squillion_schemagen::batch(14, 120, squillion_schemagen::Config::default())
            .into_iter()
            .enumerate()
            .map(|(i, (_, schema))| {
                (
                    format!("schemagen {i}"),
                    squillion_schemagen::render(&schema),
                )
            })
            .collect();
    for (name, source) in schemas() {
        texts.push((name, source.text().to_owned()));
    }
    let clashing = [
        "entity Book { id: string  title: string }",
        "entity A { userName: string\n user_name: string }",
        "entity A { tags: [string; 5] }\nquery push_tags on A { where tags == ? }",
        "entity A { n: string }\nquery byN on A { where n == ? }\nquery by_n on A { where n == ? }",
        "entity Book { title: string }\nquery find on Book { where title == ? }",
        "entity A { n: string }\nentity B { n: string }\nentity C { n: string }\n\
         relation A.x: many(100) <-> B.a: one { standalone B }\n\
         relation A.x_projected: many(100) <-> C.a: one { standalone C }",
        "entity S @polymorphic { n: string  variant: string\n variant V { m: string } }",
        "value V { aB: string  a_b: string }\nentity A { v: V }",
        // An `@attributes` map's `set_specs_entry` beside the setter of `specs_entry`, and its
        // `remove_specs_entry` beside a query of that name.
        "entity A { specs: map<string; 5> @attributes\n specs_entry: string }",
        "entity A { specs: map<int32> @attributes }\n\
         query remove_specs_entry on A { where specs has (k == ?, v == ?) }",
    ];
    for (i, text) in clashing.iter().enumerate() {
        texts.push((format!("clashing {i}"), (*text).to_owned()));
    }
    let mut clashes_seen = 0;
    for (name, text) in texts {
        let source = SourceFile::new("x.sqn", text);
        let Ok(checked) = squillion_codegen::load(&source) else {
            panic!("{name} does not resolve")
        };
        let plan = squillion_codegen::engine::plan(&checked.model, &source);
        let clashes = squillion_codegen::rust::clashes::clashes(&plan);
        let rust = squillion_codegen::rust::generate(&plan, &GenerateSettings::default());
        let duplicates = squillion_codegen::rust::verify::duplicate_definitions(&rust)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            clashes.is_empty(),
            duplicates.is_empty(),
            "{name}:\n{}\nclashes {clashes:#?}\nduplicates {duplicates:#?}",
            source.text()
        );
        clashes_seen += usize::from(!clashes.is_empty());
    }
    assert_eq!(
        clashes_seen,
        clashing.len(),
        "every clashing schema clashes"
    );
}

/// The names and documentation a schema gives its collections and fields, as the review shows
/// them (invisible characters written out).
fn hostile_strings(plan: &Plan) -> Vec<String> {
    fn fields(fs: &[PlanField], out: &mut Vec<String>) {
        for f in fs {
            out.push(f.name.clone());
            fields(&f.children, out);
        }
    }
    let mut out = Vec::new();
    for c in &plan.collections {
        out.push(c.name.clone());
        fields(&c.fields, &mut out);
    }
    out.retain(|s| !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    out.iter()
        .map(|s| escape_invisible(s).into_owned())
        .collect()
}

#[test]
fn markdown_reviews_show_every_hostile_string_and_obey_none() {
    for (name, source) in schemas() {
        let (plan, _) = generated(&source);
        let md = review::render(&plan, Format::Markdown).unwrap();
        let svg = &md.files[0].content;
        for text in [&md.main, svg] {
            assert!(
                !text.chars().any(|c| is_invisible(c) || c == '\r'),
                "{name}: invisible characters reach the review"
            );
        }
        assert!(
            !svg.to_lowercase().contains("<script"),
            "{name}: the diagram"
        );
        let mut code = String::new();
        let mut in_code_block = false;
        for event in Parser::new_ext(&md.main, Options::ENABLE_TABLES) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => {
                    // Only the template's anchors: `<a id="..."></a>`.
                    let h = h.trim();
                    let anchor = h == "</a>"
                        || h.strip_prefix("<a id=\"")
                            .and_then(|rest| {
                                rest.strip_suffix("\">").or(rest.strip_suffix("\"></a>"))
                            })
                            .is_some_and(|id| {
                                id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                            });
                    assert!(anchor, "{name}: raw HTML in the Markdown review: {h}");
                }
                Event::Start(Tag::Link { dest_url, .. }) => {
                    let file = format!("{}.erd.svg", name);
                    assert!(
                        dest_url.starts_with('#') || *dest_url == *file,
                        "{name}: a link to {dest_url}"
                    );
                }
                Event::Start(Tag::Image { dest_url, .. }) => {
                    assert_eq!(&*dest_url, format!("{name}.erd.svg"), "{name}");
                }
                Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
                Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_code_block = false,
                Event::Code(c) => {
                    code.push_str(&c);
                    code.push('\n');
                }
                Event::Text(t) if in_code_block => code.push_str(&t),
                _ => {}
            }
        }
        for s in hostile_strings(&plan) {
            assert!(
                code.contains(&s),
                "{name}: `{s}` is not shown whole in any code span or block"
            );
        }
    }
}

#[test]
fn html_and_text_reviews_escape_every_hostile_string() {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    for (name, source) in schemas() {
        let (plan, _) = generated(&source);
        let html = review::render(&plan, Format::Html).unwrap().main;
        assert!(
            !html.to_lowercase().contains("<script") && !html.contains("<img"),
            "{name}: markup from the schema in the HTML review"
        );
        let text = review::render(&plan, Format::Text { color: false })
            .unwrap()
            .main;
        for out in [&html, &text] {
            assert!(
                !out.chars().any(|c| is_invisible(c) || c == '\r'),
                "{name}: invisible characters reach the review"
            );
        }
        // minijinja also escapes `'` and `/`; compare on what both leave.
        let html = html.replace("&#x27;", "'").replace("&#x2f;", "/");
        for s in hostile_strings(&plan) {
            assert!(
                html.contains(&escape(&s)) || html.contains(&escape(&s).replace('"', "&#34;")),
                "{name}: `{s}` is not shown escaped in the HTML review"
            );
        }
    }
}
