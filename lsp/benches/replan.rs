//! Re-planning on change, against the 50 ms budget of issue 16: what `squillion lsp` does between
//! a keystroke and the diagnostics it publishes for it, on every example.
//!
//! - `replan/<example>`: in process, one `textDocument/didChange` (a character typed into, or
//!   removed from, a doc comment, so the text stays valid and is planned in full) handed to the
//!   server, then the analysis the server runs when the client pauses: parse, resolve, plan, the
//!   symbol index, the diagnostics converted to UTF-16 ranges and the `publishDiagnostics`
//!   message.
//! - `roundtrip/<example>`: the same change sent as JSON-RPC through an in-memory connection to
//!   the server's message loop on its own thread, timed until the `publishDiagnostics` answer
//!   arrives (adds serialization, the loop and a thread switch).
//!
//! `cargo bench -p squillion-lsp --bench replan`

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};
use squillion_lsp::Server;

fn examples() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

fn open(uri: &str, text: &str) -> Notification {
    Notification::new(
        "textDocument/didOpen".to_owned(),
        json!({ "textDocument": { "uri": uri, "languageId": "sqn", "version": 0, "text": text } }),
    )
}

/// The `version`-th keystroke: a character typed after the first `///` (odd versions) or removed
/// again (even versions).
fn keystroke(uri: &str, text: &str, version: i32) -> Notification {
    let at = text.find("///").expect("every example has a doc comment") + 3;
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    let (end, typed) = if version % 2 == 1 {
        (column, "x")
    } else {
        (column + 1, "")
    };
    Notification::new(
        "textDocument/didChange".to_owned(),
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{
                "range": { "start": { "line": line, "character": column }, "end": { "line": line, "character": end } },
                "text": typed,
            }],
        }),
    )
}

fn published(messages: &[Message]) -> bool {
    messages.iter().any(
        |m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"),
    )
}

fn replan(c: &mut Criterion) {
    let mut group = c.benchmark_group("replan");
    group.measurement_time(Duration::from_secs(4));
    for (name, text) in examples() {
        let uri = format!("file:///bench/{name}.sqn");
        let mut server = Server::default();
        server.notification(open(&uri, &text));
        assert!(published(&server.analyse_stale()));
        let mut version = 0;
        group.bench_function(&name, |b| {
            b.iter(|| {
                version += 1;
                server.notification(keystroke(&uri, &text, version));
                let out = server.analyse_stale();
                assert!(published(&out));
                out
            })
        });
    }
    group.finish();
}

fn roundtrip(c: &mut Criterion) {
    let mut group = c.benchmark_group("roundtrip");
    group.measurement_time(Duration::from_secs(4));
    for (name, text) in examples() {
        let uri = format!("file:///bench/{name}.sqn");
        let (server_side, client) = Connection::memory();
        let thread = std::thread::spawn(move || squillion_lsp::run(&server_side));
        let init = Request::new(
            RequestId::from(1),
            "initialize".to_owned(),
            json!({ "capabilities": {} }),
        );
        client.sender.send(init.into()).unwrap();
        client.receiver.recv().unwrap();
        client
            .sender
            .send(Notification::new("initialized".to_owned(), json!({})).into())
            .unwrap();
        client.sender.send(open(&uri, &text).into()).unwrap();
        wait_for_diagnostics(&client, 0);
        let mut version = 0;
        group.bench_function(&name, |b| {
            b.iter(|| {
                version += 1;
                client
                    .sender
                    .send(keystroke(&uri, &text, version).into())
                    .unwrap();
                wait_for_diagnostics(&client, version);
            })
        });
        let shutdown = Request::new(RequestId::from(2), "shutdown".to_owned(), Value::Null);
        client.sender.send(shutdown.into()).unwrap();
        while !matches!(client.receiver.recv().unwrap(), Message::Response(_)) {}
        client
            .sender
            .send(Notification::new("exit".to_owned(), Value::Null).into())
            .unwrap();
        thread.join().unwrap().unwrap();
    }
    group.finish();
}

fn wait_for_diagnostics(client: &Connection, version: i32) {
    loop {
        if let Message::Notification(n) = client.receiver.recv().unwrap() {
            if n.method == "textDocument/publishDiagnostics" && n.params["version"] == version {
                return;
            }
        }
    }
}

criterion_group!(benches, replan, roundtrip);
criterion_main!(benches);
