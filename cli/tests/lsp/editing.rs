//! Editing: keystrokes sent as incremental changes, in UTF-16 positions after non-ASCII text; the
//! diagnostics follow the text; requests about unknown documents or methods get a clear answer.

use serde_json::{json, Value};

use crate::client::{read, uri, Client};
use crate::oracle;

/// Types `typed` at byte `at` of `text`, one character per change, each change a new version
/// sent without waiting; returns the text and the last version.
fn type_in(
    client: &mut Client,
    uri: &str,
    text: &mut String,
    at: usize,
    typed: &str,
    version: &mut i64,
) {
    let mut at = at;
    for c in typed.chars() {
        *version += 1;
        let position = oracle::position(text, at);
        client.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": *version },
                "contentChanges": [{ "range": { "start": position, "end": position }, "text": c.to_string() }],
            }),
        );
        text.insert(at, c);
        at += c.len_utf8();
    }
}

#[test]
fn diagnostics_follow_keystrokes() {
    let mut client = Client::start();
    let uri = uri("blog.sqn");
    let mut text = read("examples/blog.sqn");
    assert_eq!(client.open(&uri, &text), Vec::<Value>::new());
    let mut version = 1;
    // A comment with characters of one and two UTF-16 units, then a field with a typo, typed in
    // the first entity's body.
    let body = text.find("entity User {").unwrap() + "entity User {".len();
    type_in(
        &mut client,
        &uri,
        &mut text,
        body,
        "\n  // é😀 naïve 日本\n  nickname: strin",
        &mut version,
    );
    let found = client.diagnostics(&uri, version);
    assert_eq!(
        oracle::published(&text, &found),
        oracle::expected("blog.sqn", &text)
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "E0301");
    let strin = text.find("strin\n").unwrap();
    assert_eq!(found[0]["range"]["start"], oracle::position(&text, strin));
    // The fix, typed.
    type_in(
        &mut client,
        &uri,
        &mut text,
        strin + "strin".len(),
        "g",
        &mut version,
    );
    assert_eq!(client.diagnostics(&uri, version), Vec::<Value>::new());
    // Hover on the new field, after the comment's wide characters on the line above.
    let at = text.find("nickname").unwrap();
    let shown = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": oracle::position(&text, at + 2) }),
    );
    let shown = shown["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("**User.nickname**") && shown.contains("`users.nickname`"),
        "{shown}"
    );
    // Deleting a brace breaks the syntax; putting it back repairs it.
    let brace = text.find("entity User {").unwrap() + "entity User ".len();
    version += 1;
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{ "range": { "start": oracle::position(&text, brace), "end": oracle::position(&text, brace + 1) }, "text": "" }],
        }),
    );
    text.remove(brace);
    let found = client.diagnostics(&uri, version);
    assert_eq!(
        oracle::published(&text, &found),
        oracle::expected("blog.sqn", &text)
    );
    assert!(found.iter().all(|d| d["code"] == "E0101"), "{found:?}");
    type_in(&mut client, &uri, &mut text, brace, "{", &mut version);
    assert_eq!(client.diagnostics(&uri, version), Vec::<Value>::new());
    assert!(client.shutdown().success());
}

#[test]
fn unknown_documents_and_methods() {
    let mut client = Client::start();
    let nowhere = json!({ "textDocument": { "uri": uri("never-opened.sqn") }, "position": { "line": 0, "character": 0 } });
    assert_eq!(
        client.request("textDocument/hover", nowhere.clone()),
        Value::Null
    );
    assert_eq!(
        client.request("textDocument/definition", nowhere),
        Value::Null
    );
    let answer = client.request_raw(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri("a.sqn") } }),
    );
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("semanticTokens"));
    let answer = client.request_raw("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // Closing a document clears its diagnostics.
    let uri = uri("bad.sqn");
    assert_eq!(client.open(&uri, "entity {").len(), 1);
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(client.diagnostics_unversioned(&uri), Vec::<Value>::new());
    assert!(client.shutdown().success());
}

fn labels(client: &mut Client, uri: &str, text: &str, at: usize) -> Vec<String> {
    let items = client.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": oracle::position(text, at) }),
    );
    let items = items.as_array().unwrap();
    for item in items {
        // Every item replaces the word being typed, up to the cursor.
        assert_eq!(
            item["textEdit"]["range"]["end"],
            oracle::position(text, at),
            "{item}"
        );
    }
    let mut labels: Vec<String> = items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_owned())
        .collect();
    labels.sort();
    labels
}

fn sorted(words: impl IntoIterator<Item = impl ToString>) -> Vec<String> {
    let mut v: Vec<String> = words.into_iter().map(|w| w.to_string()).collect();
    v.sort();
    v
}

#[test]
fn completion_while_typing() {
    use squillion_codegen::resolve::vocabulary as words;
    let mut client = Client::start();
    let uri = uri("blog.sqn");
    let mut text = read("examples/blog.sqn");
    client.open(&uri, &text);
    let mut version = 1;
    // A field's attribute, in a file that no longer parses while it is typed.
    let body = text.find("entity User {").unwrap() + "entity User {".len();
    type_in(
        &mut client,
        &uri,
        &mut text,
        body,
        "\n  nick: string @",
        &mut version,
    );
    let at = body + "\n  nick: string @".len();
    let fields = words::field_attributes().iter().map(|(n, _)| n);
    assert_eq!(labels(&mut client, &uri, &text, at), sorted(fields));
    // Its type, after `:`; value types and keywords of types included.
    type_in(
        &mut client,
        &uri,
        &mut text,
        at,
        "index\n  other: ",
        &mut version,
    );
    let at = at + "index\n  other: ".len();
    let mut types = words::bson_types();
    types.extend(["map", "counters", "one_of"]);
    assert_eq!(labels(&mut client, &uri, &text, at), sorted(types));
    // A layout to force, in a relation's body.
    let rel = text.find("relation BlogPost.comments").unwrap();
    let open = rel + text[rel..].find('{').unwrap() + 1;
    type_in(
        &mut client,
        &uri,
        &mut text,
        open,
        "\n  force ",
        &mut version,
    );
    assert_eq!(
        labels(&mut client, &uri, &text, open + "\n  force ".len()),
        sorted(words::layouts())
    );
    // The queried entity's fields and relation ends, after `where`.
    let query =
        text.find("query book_by_title on Book {").unwrap() + "query book_by_title on Book {".len();
    type_in(
        &mut client,
        &uri,
        &mut text,
        query,
        "\n  where ",
        &mut version,
    );
    let offered = labels(&mut client, &uri, &text, query + "\n  where ".len());
    for name in ["title", "authors", "categories"] {
        assert!(offered.contains(&name.to_owned()), "{name} in {offered:?}");
    }
    assert!(client.shutdown().success());
}
