//! A language client for the tests: spawns `squillion lsp` and speaks JSON-RPC to it over its
//! standard input and output, as an editor does.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// Debug builds on a shared machine are slow; nothing the server does should take this long.
const PATIENCE: Duration = Duration::from_secs(120);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet looked at.
    pending: Vec<Value>,
}

impl Client {
    /// Starts the server and initializes it.
    pub fn start() -> Client {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("squillion"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("squillion lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 0,
            pending: Vec::new(),
        };
        let init = client.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        assert_eq!(init["capabilities"]["positionEncoding"], "utf-16", "{init}");
        assert_eq!(init["serverInfo"]["name"], "squillion");
        client.notify("initialized", json!({}));
        client
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its result; an error response fails the test.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Sends a request and returns the whole response.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive(&format!("the answer to {method}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            self.pending.push(message);
        }
    }

    /// Opens a document (version 1) and returns the diagnostics published for it.
    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "sqn", "version": 1, "text": text } }),
        );
        self.diagnostics(uri, 1)
    }

    /// Waits for the diagnostics of `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let matches = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        };
        if let Some(at) = self.pending.iter().rposition(matches) {
            let found = self.pending.remove(at);
            return found["params"]["diagnostics"].as_array().unwrap().clone();
        }
        loop {
            let message = self.receive(&format!("diagnostics of {uri} version {version}"));
            if matches(&message) {
                return message["params"]["diagnostics"].as_array().unwrap().clone();
            }
            self.pending.push(message);
        }
    }

    /// Waits for diagnostics of `uri` published without a version (those of a closed document).
    pub fn diagnostics_unversioned(&mut self, uri: &str) -> Vec<Value> {
        loop {
            let message = self.receive(&format!("diagnostics of {uri}"));
            if message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
                && message["params"].get("version").is_none_or(Value::is_null)
            {
                return message["params"]["diagnostics"].as_array().unwrap().clone();
            }
            self.pending.push(message);
        }
    }

    /// Sends `shutdown` and `exit`; returns how the server ended.
    pub fn shutdown(mut self) -> ExitStatus {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null);
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self, waiting_for: &str) -> Value {
        match self.incoming.recv_timeout(PATIENCE) {
            Ok(message) => message,
            Err(e) => panic!("no message from the server while waiting for {waiting_for}: {e}"),
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A test that failed midway must not leave a server behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A `file://` URI for a name (the server names the document after its last segment).
pub fn uri(name: &str) -> String {
    format!("file:///work/schemas/{name}")
}

/// The text of `path` relative to the repository root.
pub fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap()
}
