//! The TextMate grammar of `editors/vscode`, checked with the engine VS Code runs
//! (`vscode-textmate` and `vscode-oniguruma` under node): every example and every snippet of the
//! language reference is tokenized, and the scope of each keyword, declared name, type, attribute,
//! number, unit, string and comment is compared with what the parser says the text is. Every
//! keyword of the pest grammar, BSON type, attribute and unit the resolver knows is checked too.
//!
//! Needs node and the npm packages of `editors/vscode` (`scripts/ensure-node-packages.sh` installs
//! both); without them the test fails, saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use squillion_codegen::resolve::vocabulary as words;
use squillion_grammar::ast::{FactKind, FieldDecl, Item, Schema, TypeDecl, TypeExpr, TypeExprKind};
use squillion_grammar::Span;
use squillion_lsp::text::Text;

const KEYWORD: &[&str] = &["keyword", "storage.type"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What one file's tokens must be.
struct Expect {
    text: String,
    found: Vec<Value>,
    index: Text,
}

impl Expect {
    fn new(text: &str) -> Expect {
        Expect {
            text: text.to_owned(),
            found: Vec::new(),
            index: Text::new(text.to_owned()),
        }
    }

    fn at(&mut self, span: Span, scopes: &[&str], what: &str) {
        let range = self.index.range(span);
        if range.start.line != range.end.line || span.is_empty() {
            return;
        }
        self.found.push(json!({
            "line": range.start.line,
            "start": range.start.character,
            "end": range.end.character,
            "scopes": scopes,
            "what": what,
        }));
    }

    fn file(self, name: &str) -> Value {
        json!({ "name": name, "text": self.text, "expect": self.found })
    }
}

/// Comments, strings and keywords, found by reading the text as the grammar reads it: `//` to
/// the end of the line outside strings; a keyword is a keyword where no name of the syntax tree is.
fn lexical(e: &mut Expect, names: &[Span]) {
    let keywords = squillion_grammar::keywords();
    let text = e.text.clone();
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let doc = text[i..].starts_with("///") && !text[i..].starts_with("////");
                let (scope, what) = if doc {
                    ("comment.line.documentation", "doc comments")
                } else {
                    ("comment.line.double-slash", "comments")
                };
                e.at(Span::new(i, end), &[scope], what);
                i = end;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                e.at(
                    Span::new(start, i.min(bytes.len())),
                    &["string.quoted.double"],
                    "strings",
                );
            }
            b if is_word(b) && (i == 0 || !is_word(bytes[i - 1])) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                let word = &text[start..i];
                let named = names.iter().any(|n| n.start <= start && i <= n.end);
                if keywords.contains(&word) && !named && !b.is_ascii_digit() {
                    e.at(Span::new(start, i), KEYWORD, "keywords");
                }
            }
            _ => i += 1,
        }
    }
}

/// Every name's span in the syntax tree (its JSON form: `{ "name": "...", "span": {...} }`), and
/// every quantity, ratio and attribute.
fn walk(value: &Value, e: &mut Expect, names: &mut Vec<Span>) {
    let span_of = |v: &Value| {
        Span::new(
            v["start"].as_u64().unwrap_or(0) as usize,
            v["end"].as_u64().unwrap_or(0) as usize,
        )
    };
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(_)), Some(span)) = (map.get("name"), map.get("span")) {
                names.push(span_of(span));
            }
            if let (Some(Value::String(_)), Some(span)) = (map.get("number"), map.get("span")) {
                let whole = span_of(span);
                let unit = map
                    .get("unit")
                    .filter(|u| !u.is_null())
                    .map(|u| span_of(&u["span"]));
                let number_end = unit.map_or(whole.end, |u| u.start);
                e.at(
                    Span::new(whole.start, number_end),
                    &["constant.numeric"],
                    "numbers",
                );
                if let Some(u) = unit {
                    e.at(u, &["keyword.other.unit"], "units");
                }
            }
            if let (Some(Value::Object(name)), Some(_), Some(span)) =
                (map.get("name"), map.get("args"), map.get("span"))
            {
                let name_span = span_of(&name["span"]);
                e.at(
                    Span::new(span_of(span).start, name_span.end),
                    &["entity.other.attribute-name"],
                    "attributes",
                );
            }
            map.values().for_each(|v| walk(v, e, names));
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, e, names)),
        _ => {}
    }
}

fn ty(t: &TypeExpr, e: &mut Expect) {
    match &t.kind {
        TypeExprKind::Named(name) if words::bson_types().contains(&name.name.as_str()) => {
            e.at(name.span, &["support.type"], "BSON types")
        }
        TypeExprKind::Named(name) => e.at(name.span, &["entity.name.type"], "value types used"),
        TypeExprKind::Array { elem, .. } => ty(elem, e),
        TypeExprKind::Map { value, .. } => ty(value, e),
        TypeExprKind::Counters(_) | TypeExprKind::OneOf { .. } => {}
    }
}

fn fields(list: &[FieldDecl], e: &mut Expect) {
    for f in list {
        e.at(f.name.span, &["variable.other.member"], "field names");
        ty(&f.ty, e);
    }
}

fn declaration(d: &TypeDecl, e: &mut Expect) {
    e.at(d.name.span, &["entity.name.type"], "declared names");
    fields(&d.fields, e);
    for v in &d.variants {
        e.at(v.name.span, &["entity.name.type"], "declared names");
        fields(&v.fields, e);
    }
}

/// The expectations of a `.sqn` text that parses.
fn expectations(name: &str, text: &str) -> Value {
    let schema: Schema = squillion_grammar::parse(text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let mut e = Expect::new(text);
    let mut names = Vec::new();
    walk(&serde_json::to_value(&schema).unwrap(), &mut e, &mut names);
    lexical(&mut e, &names);
    for item in &schema.items {
        match item {
            Item::Entity(d) | Item::Value(d) => declaration(d, &mut e),
            Item::Relation(r) => {
                for end in [&r.left, &r.right] {
                    e.at(end.field.span, &["variable.other.member"], "relation ends");
                }
                for fact in &r.facts {
                    if let FactKind::Fields(list) = &fact.kind {
                        fields(list, &mut e);
                    }
                }
            }
            Item::Query(q) => {
                e.at(q.name.span, &["entity.name.function"], "query names");
                e.at(q.entity.span, &["entity.name.type"], "queried entities");
                if let Some(end) = &q.children {
                    e.at(
                        end.span,
                        &["variable.other.member"],
                        "relation ends of children queries",
                    );
                }
            }
            Item::Settings(_) => {}
        }
    }
    e.file(name)
}

/// Every keyword of the grammar, each where the grammar expects it and each on a line of its own.
fn every_keyword() -> Value {
    let mut text = String::new();
    let mut spans = Vec::new();
    for k in squillion_grammar::keywords() {
        text.push_str("  ");
        spans.push(Span::new(text.len(), text.len() + k.len()));
        text.push_str(k);
        text.push_str(" x\n");
    }
    let mut e = Expect::new(&text);
    for s in spans {
        e.at(s, KEYWORD, "keywords of the grammar");
    }
    e.file("every keyword of squillion.pest")
}

/// Every BSON type, attribute and unit the resolver knows, written as a file would.
fn every_word() -> String {
    let mut text = String::from("entity Words @tree {\n");
    for (i, t) in words::bson_types().iter().enumerate() {
        text.push_str(&format!("  t{i}: {t}\n"));
    }
    for (i, p) in words::counter_periods().iter().enumerate() {
        text.push_str(&format!("  c{i}: counters({p})\n"));
    }
    for (i, (name, _)) in words::field_attributes().iter().enumerate() {
        text.push_str(&format!("  a{i}: string @{name}\n"));
    }
    let units = [
        words::size_units(),
        words::rate_units(),
        words::duration_units(),
    ]
    .concat();
    for (i, u) in units.iter().enumerate() {
        text.push_str(&format!("  u{i}: string @size(20{u})\n"));
    }
    text.push_str("}\n");
    for (i, (name, _)) in words::entity_attributes().iter().enumerate() {
        text.push_str(&format!("entity A{i} @{name} {{ x: int32 }}\n"));
    }
    text
}

fn corpus() -> Vec<Value> {
    let mut files = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    paths.sort();
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        let name = format!("examples/{}", p.file_name().unwrap().to_string_lossy());
        files.push(expectations(&name, &text));
    }
    let doc = std::fs::read_to_string(root().join("docs/language.md")).unwrap();
    for (i, block) in doc.split("```sqn\n").skip(1).enumerate() {
        let code = &block[..block.find("```").unwrap()];
        files.push(expectations(
            &format!("docs/language.md snippet {}", i + 1),
            code,
        ));
    }
    files.push(expectations("every word of the resolver", &every_word()));
    files.push(every_keyword());
    files
}

#[test]
fn the_textmate_grammar_scopes_every_token_as_the_parser_reads_it() {
    let vscode = root().join("editors/vscode");
    let setup = "run `scripts/ensure-node-packages.sh` (it installs node and the extension's npm \
                 packages from editors/vscode/package-lock.json)";
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.as_ref().is_ok_and(|o| o.status.success()),
        "node is not installed: {setup}"
    );
    for package in ["vscode-textmate", "vscode-oniguruma"] {
        assert!(
            vscode.join("node_modules").join(package).is_dir(),
            "the npm package {package} is not installed in editors/vscode: {setup}"
        );
    }
    let files = corpus();
    let checks: usize = files
        .iter()
        .map(|f| f["expect"].as_array().unwrap().len())
        .sum();
    assert!(
        files.len() > 50 && checks > 2000,
        "{} files, {checks} checks",
        files.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("expectations.json");
    std::fs::write(&input, json!({ "files": files }).to_string()).unwrap();
    let out = Command::new("node")
        .current_dir(&vscode)
        .arg("test/tokenize.mjs")
        .arg(&input)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("checked {checks} tokens")),
        "{stdout}"
    );
}

/// The extension's manifest points at files that exist, declares `.sqn` files, and its script is
/// valid JavaScript that starts `squillion lsp`.
#[test]
fn the_extension_manifest_holds_together() {
    let vscode = root().join("editors/vscode");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(vscode.join("package.json")).unwrap())
            .unwrap();
    let contributes = &manifest["contributes"];
    assert_eq!(contributes["languages"][0]["extensions"], json!([".sqn"]));
    let grammar = &contributes["grammars"][0];
    assert_eq!(grammar["language"], contributes["languages"][0]["id"]);
    for path in [
        grammar["path"].as_str().unwrap(),
        contributes["languages"][0]["configuration"]
            .as_str()
            .unwrap(),
        manifest["main"].as_str().unwrap(),
    ] {
        assert!(vscode.join(path).is_file(), "{path} is missing");
    }
    let tm: Value = serde_json::from_str(
        &std::fs::read_to_string(vscode.join(grammar["path"].as_str().unwrap())).unwrap(),
    )
    .unwrap();
    assert_eq!(tm["scopeName"], grammar["scopeName"]);
    let script = std::fs::read_to_string(vscode.join("extension.js")).unwrap();
    assert!(
        script.contains(r#"args: ["lsp"]"#),
        "the extension starts `squillion lsp`"
    );
    let check = Command::new("node")
        .current_dir(&vscode)
        .args(["--check", "extension.js"])
        .output()
        .expect("node is installed: run scripts/ensure-node-packages.sh");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
