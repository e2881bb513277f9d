//! Files with errors: the server publishes what `squillion check` reports (same codes, places and
//! help; columns counted in UTF-16 after non-ASCII text), offers the "did you mean" fixes as code
//! actions, and applying one removes its diagnostic.

use serde_json::{json, Value};

use crate::client::{uri, Client};
use crate::oracle;

const BOOKS: &str =
    "entity Author {\n  name: string\n}\n\nentity Book {\n  title: string\n  time: date\n}\n";

/// Broken files, each with a mistake after non-ASCII text somewhere on its line or above it.
fn broken() -> Vec<(&'static str, String)> {
    vec![
        ("type.sqn", format!("/// Bücher 📚\n{BOOKS}entity Note {{ text: strin }}\n")),
        (
            "attribute.sqn",
            "entity Book @collection(\"bücher😀\") @tre {\n  title: string\n}\n".to_owned(),
        ),
        (
            "cardinality.sqn",
            format!("{BOOKS}relation Author.books: mny <-> Book.author: one // « »\n"),
        ),
        (
            "unit.sqn",
            "entity Scan {\n  /// 20 kilobytes, « about »\n  exif: binary @large(20kb)\n}\n".to_owned(),
        ),
        (
            "setting.sqn",
            format!("/// Réglages ✓\nsettings {{ embed_aray_max = 300 }}\n{BOOKS}"),
        ),
        (
            "query.sqn",
            format!("{BOOKS}query by_title on Book {{ where titel == ? }} // ☕\n"),
        ),
        (
            "fact.sqn",
            format!("{BOOKS}relation Author.books: many <-> Book.author: one {{\n  standalone Bok\n  latest 5 by tme\n}}\n"),
        ),
        (
            "end.sqn",
            format!("{BOOKS}relation Autor.books: many <-> Book.author: one\n"),
        ),
        (
            "layout.sqn",
            format!("{BOOKS}relation Author.books: many <-> Book.author: one {{ force embd growth apend_heavy }}\n"),
        ),
        (
            "stored.sqn",
            "entity Book {\n  title: string @stored(\"tïtle😀\") @indx\n}\n".to_owned(),
        ),
        ("syntax.sqn", "/// Ünïcödé 😀\nentity Book { title: string @index(ä) }\n".to_owned()),
        ("syntax_utf16.sqn", "entity Book { \"😀\" }\n".to_owned()),
        (
            "warnings.sqn",
            format!("{BOOKS}relation Author.books: squillions <-> Book.author: one {{ force embed }}\n"),
        ),
    ]
}

#[test]
fn files_with_errors_get_checks_diagnostics_and_their_fixes() {
    let mut client = Client::start();
    let mut fixed = 0;
    let mut wide = 0;
    for (name, text) in broken() {
        let uri = uri(name);
        let diagnostics = client.open(&uri, &text);
        let expected = oracle::expected(name, &text);
        assert!(!expected.is_empty(), "{name}: nothing to report?\n{text}");
        assert_eq!(oracle::published(&text, &diagnostics), expected, "{name}");
        // Some columns count differently in UTF-16 than in characters: the conversion is tested.
        wide += diagnostics
            .iter()
            .filter(|d| {
                let start = &d["range"]["start"];
                let utf16 = start["character"].as_u64().unwrap();
                oracle::char_column(&text, start["line"].as_u64().unwrap(), utf16) != utf16
            })
            .count();
        for d in &diagnostics {
            let message = d["message"].as_str().unwrap();
            let actions = client.request(
                "textDocument/codeAction",
                json!({
                    "textDocument": { "uri": uri },
                    "range": d["range"],
                    "context": { "diagnostics": [d] },
                }),
            );
            let actions = actions.as_array().unwrap();
            // A suggestion: "did you mean `x`?", or the spelling to write instead ("write `a`").
            if !message.contains("did you mean") && !message.contains("help: write `") {
                assert!(
                    actions.is_empty(),
                    "{name}: a fix without a suggestion: {actions:?}"
                );
                continue;
            }
            assert_eq!(actions.len(), 1, "{name}: {message}: {actions:?}");
            let action = &actions[0];
            assert_eq!(action["kind"], "quickfix");
            assert_eq!(action["diagnostics"][0]["code"], d["code"]);
            let edits = action["edit"]["changes"][uri.as_str()].as_array().unwrap();
            let replacement = edits[0]["newText"].as_str().unwrap();
            assert!(
                message.contains(&format!("did you mean `{replacement}"))
                    || message.contains(&format!("{replacement}`?"))
                    || message.contains(&format!("help: write `{replacement}`")),
                "{name}: the fix `{replacement}` is not the one suggested: {message}"
            );
            let repaired = oracle::apply(&text, edits);
            let at = (d["range"]["start"].clone(), d["code"].clone());
            // The editor applies the fix and sends the change: the diagnostic goes away.
            let now = change(&mut client, &uri, &text, edits, 2 + fixed);
            assert!(
                !now.iter()
                    .any(|n| (n["range"]["start"].clone(), n["code"].clone()) == at),
                "{name}: still there after the fix:\n{repaired}\n{now:?}"
            );
            assert_eq!(
                oracle::published(&repaired, &now),
                oracle::expected(name, &repaired)
            );
            // Back to the broken text for the next diagnostic.
            change_all(&mut client, &uri, &text, 100 + fixed);
            fixed += 1;
        }
        client.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": uri } }),
        );
    }
    assert!(fixed >= 10, "only {fixed} fixes applied");
    assert!(
        wide >= 2,
        "only {wide} diagnostics after characters of two UTF-16 units"
    );
    assert!(client.shutdown().success());
}

/// Sends `edits` as incremental changes (in reverse order, so earlier ranges stay valid) and
/// returns the diagnostics of the new version.
fn change(
    client: &mut Client,
    uri: &str,
    _text: &str,
    edits: &[Value],
    version: i64,
) -> Vec<Value> {
    let mut changes: Vec<&Value> = edits.iter().collect();
    changes.sort_by_key(|e| {
        let s = &e["range"]["start"];
        std::cmp::Reverse((s["line"].as_u64(), s["character"].as_u64()))
    });
    let changes: Vec<Value> = changes
        .into_iter()
        .map(|e| json!({ "range": e["range"], "text": e["newText"] }))
        .collect();
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
    );
    client.diagnostics(uri, version)
}

fn change_all(client: &mut Client, uri: &str, text: &str, version: i64) {
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
    );
    client.diagnostics(uri, version);
}
