//! Every example, as an editor sees it: its diagnostics, hovers on every relation and field,
//! navigation for every entity, one inlay hint per relation, formatting.

use serde_json::{json, Value};
use squillion_grammar::ast::Item;

use crate::client::{read, uri, Client};
use crate::oracle;

fn examples() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sqn"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    names
}

fn hover(client: &mut Client, uri: &str, text: &str, offset: usize) -> String {
    let result = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": oracle::position(text, offset) }),
    );
    result["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn plan(name: &str, text: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("squillion"))
        .current_dir(dir.path())
        .args(["plan", "--json", name])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_example_as_an_editor_sees_it() {
    let mut client = Client::start();
    for name in examples() {
        let text = read(&format!("examples/{name}"));
        let uri = uri(&name);
        let diagnostics = client.open(&uri, &text);
        assert_eq!(
            oracle::published(&text, &diagnostics),
            oracle::expected(&name, &text),
            "{name}: the server's diagnostics differ from check and plan"
        );
        let plan = plan(&name, &text);
        let schema = squillion_grammar::parse(&text).unwrap();
        relations(&mut client, &uri, &text, &name, &plan);
        fields(&mut client, &uri, &text, &name, &plan, &schema);
        entities(&mut client, &uri, &text, &name, &schema, &plan);
        inlay_hints(&mut client, &uri, &text, &name, &plan);
        formatting(&mut client, &uri, &text, &name);
    }
    assert!(client.shutdown().success());
}

/// Hovering a relation's `<->` shows its decision: layout, because, every rule and rejection.
fn relations(client: &mut Client, uri: &str, text: &str, name: &str, plan: &Value) {
    for d in plan["relationships"].as_array().unwrap() {
        let id = d["id"].as_str().unwrap();
        let header = text
            .find(&format!("relation {id}:"))
            .unwrap_or_else(|| panic!("{name}: relation {id}"));
        let arrow = header + text[header..].find("<->").unwrap();
        let shown = hover(client, uri, text, arrow + 1);
        let strategy = d["strategy"].as_str().unwrap();
        assert!(
            shown.contains(&format!("**decision: {strategy}")),
            "{name} {id}:\n{shown}"
        );
        assert!(
            shown.contains(d["because"].as_str().unwrap()),
            "{name} {id}:\n{shown}"
        );
        for r in d["rules"].as_array().unwrap() {
            assert!(
                shown.contains(r["text"].as_str().unwrap()),
                "{name} {id}: rule {r}\n{shown}"
            );
        }
        for r in d["rejected"].as_array().unwrap() {
            assert!(
                shown.contains(r["why"].as_str().unwrap()),
                "{name} {id}: {r}\n{shown}"
            );
        }
    }
}

/// Hovering a field's name shows where it is stored: the collection's path and BSON type.
fn fields(
    client: &mut Client,
    uri: &str,
    text: &str,
    name: &str,
    plan: &Value,
    schema: &squillion_grammar::ast::Schema,
) {
    let mut checked = 0;
    let mut copied = 0;
    for item in &schema.items {
        let Item::Entity(entity) = item else { continue };
        let collection =
            plan["collections"].as_array().unwrap().iter().find(|c| {
                c["entity"] == entity.name.name.as_str() && c["role"]["kind"] == "entity"
            });
        for field in entity
            .fields
            .iter()
            .chain(entity.variants.iter().flat_map(|v| &v.fields))
        {
            let shown = hover(client, uri, text, field.name.span.start);
            let title = format!("**{}.{}**", entity.name.name, field.name.name);
            assert!(shown.contains(&title), "{name}: {title}\n{shown}");
            // Every copy of the field (rule 5) is listed.
            let source = format!("{}.{}", entity.name.name, field.name.name);
            for copy in copies(plan, &source) {
                assert!(
                    shown.contains(&format!("`{copy}`")),
                    "{name}: copy {copy}\n{shown}"
                );
                copied += 1;
            }
            let Some(c) = collection else { continue };
            let stored =
                c["fields"].as_array().unwrap().iter().find(|f| {
                    f["code_name"] == field.name.name.as_str() && f["relation"].is_null()
                });
            let Some(f) = stored else { continue };
            let path = format!(
                "`{}.{}`",
                c["name"].as_str().unwrap(),
                f["path"].as_str().unwrap()
            );
            assert!(shown.contains(&path), "{name}: {title} at {path}\n{shown}");
            assert!(
                shown.contains(f["bson_type"].as_str().unwrap()),
                "{name}: {title}\n{shown}"
            );
            checked += 1;
        }
    }
    assert!(
        checked > 3,
        "{name}: only {checked} fields found in the Plan"
    );
    let all: usize = plan["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| count_copies(&c["fields"]))
        .sum();
    assert_eq!(
        copied, all,
        "{name}: every copy in the Plan is shown on its source's hover"
    );
}

/// `collection.path` of every copy of `source` in the Plan.
fn copies(plan: &Value, source: &str) -> Vec<String> {
    fn walk(fields: &Value, collection: &str, source: &str, out: &mut Vec<String>) {
        for f in fields.as_array().into_iter().flatten() {
            if f["kind"] == "denormalized" && f["source"] == source {
                out.push(format!("{collection}.{}", f["path"].as_str().unwrap()));
            }
            if f["recursive"] != true {
                walk(&f["children"], collection, source, out);
            }
        }
    }
    let mut out = Vec::new();
    for c in plan["collections"].as_array().unwrap() {
        walk(&c["fields"], c["name"].as_str().unwrap(), source, &mut out);
    }
    out
}

fn count_copies(fields: &Value) -> usize {
    fields
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            // Copies of fields (`Entity.field`); a subset copies whole children.
            let field_copy = f["kind"] == "denormalized"
                && f["source"].as_str().is_some_and(|s| s.contains('.'));
            usize::from(field_copy)
                + if f["recursive"] == true {
                    0
                } else {
                    count_copies(&f["children"])
                }
        })
        .sum()
}

/// Every use of an entity's or value type's name leads to its declaration, and its references are
/// every use.
fn entities(
    client: &mut Client,
    uri: &str,
    text: &str,
    name: &str,
    schema: &squillion_grammar::ast::Schema,
    plan: &Value,
) {
    for item in &schema.items {
        let (Item::Entity(entity) | Item::Value(entity)) = item else {
            continue;
        };
        let word = entity.name.name.as_str();
        let declared = oracle::position(text, entity.name.span.start);
        // Hover: an entity's collection(s), or where a value type is embedded.
        let shown = hover(client, uri, text, entity.name.span.start);
        let collections: Vec<&str> = plan["collections"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["entity"] == word)
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for c in &collections {
            assert!(
                shown.contains(&format!("collection `{c}`")),
                "{name}: {word}\n{shown}"
            );
        }
        assert!(
            shown.contains(&format!("entity {word}**"))
                || shown.contains(&format!("value type {word}**")),
            "{name}: {word}\n{shown}"
        );
        let mut expected: Vec<Value> = oracle::word_offsets(text, word)
            .into_iter()
            .map(|o| oracle::position(text, o))
            .collect();
        for at in &expected {
            let found = client.request(
                "textDocument/definition",
                json!({ "textDocument": { "uri": uri }, "position": at }),
            );
            assert_eq!(found["uri"], uri);
            assert_eq!(
                found["range"]["start"], declared,
                "{name}: `{word}` at {at}"
            );
        }
        let refs = client.request(
            "textDocument/references",
            json!({
                "textDocument": { "uri": uri },
                "position": declared,
                "context": { "includeDeclaration": true },
            }),
        );
        let mut starts: Vec<Value> = refs
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["range"]["start"].clone())
            .collect();
        let key = |v: &Value| (v["line"].as_u64(), v["character"].as_u64());
        starts.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(starts, expected, "{name}: references of `{word}`");
    }
}

/// One hint per relation, after its header, naming the Plan's layout.
fn inlay_hints(client: &mut Client, uri: &str, text: &str, name: &str, plan: &Value) {
    let hints = client.request(
        "textDocument/inlayHint",
        json!({
            "textDocument": { "uri": uri },
            "range": { "start": { "line": 0, "character": 0 }, "end": oracle::position(text, text.len()) },
        }),
    );
    let hints = hints.as_array().unwrap();
    let decisions = plan["relationships"].as_array().unwrap();
    assert_eq!(hints.len(), decisions.len(), "{name}");
    for (hint, d) in hints.iter().zip(decisions) {
        let label = hint["label"].as_str().unwrap();
        assert!(
            label.contains(d["strategy"].as_str().unwrap()),
            "{name}: {label} for {d}"
        );
        // After the header: the rest of the line is `{` or nothing.
        let at = oracle::offset(text, &hint["position"]);
        let rest = text[at..].lines().next().unwrap_or("").trim();
        assert!(
            rest.is_empty() || rest.starts_with('{') || rest.starts_with("//"),
            "{name}: hint before `{rest}`"
        );
    }
}

/// Formatting gives `squillion fmt`'s text.
fn formatting(client: &mut Client, uri: &str, text: &str, name: &str) {
    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let formatted = oracle::apply(text, edits.as_array().unwrap());
    assert_eq!(
        formatted,
        squillion_grammar::format(text).unwrap(),
        "{name}"
    );
}
