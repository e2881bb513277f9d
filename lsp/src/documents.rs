//! The open documents: their text as the client last sent it, and its analysis, made again only
//! when the text changed since (a burst of changes is analysed once, when the client pauses or asks
//! for something).

use std::collections::HashMap;

use lsp_types::{TextDocumentContentChangeEvent, Uri};

use crate::analysis::Analysis;
use crate::symbols::Symbols;
use crate::text::Text;

/// One open document.
#[derive(Debug)]
pub struct Document {
    /// Its URI.
    pub uri: Uri,
    /// The client's version of the text.
    pub version: i32,
    /// The text.
    pub text: Text,
    /// The analysis of the text, `None` while it is out of date.
    pub analysis: Option<Analysis>,
    /// The symbols of the last text that parsed: the names completion offers while the text
    /// being typed does not parse.
    pub names: Symbols,
}

impl Document {
    /// The file name the diagnostics and the Plan use: the URI's last path segment.
    pub fn name(&self) -> String {
        let uri = self.uri.as_str();
        let path = uri.split(['?', '#']).next().unwrap_or(uri);
        let last = path.rsplit('/').next().unwrap_or(path);
        percent_decode(last)
    }
}

/// Every open document, by URI.
#[derive(Debug, Default)]
pub struct Documents {
    open: HashMap<String, Document>,
}

impl Documents {
    /// `textDocument/didOpen`.
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        let doc = Document {
            uri: uri.clone(),
            version,
            text: Text::new(text),
            analysis: None,
            names: Symbols::default(),
        };
        self.open.insert(uri.as_str().to_owned(), doc);
    }

    /// `textDocument/didChange`: the changes, in order. Unknown documents are ignored.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        if let Some(doc) = self.open.get_mut(uri.as_str()) {
            for change in changes {
                doc.text.apply(change);
            }
            doc.version = version;
            doc.analysis = None;
        }
    }

    /// `textDocument/didClose`.
    pub fn close(&mut self, uri: &Uri) -> Option<Document> {
        self.open.remove(uri.as_str())
    }

    /// The document, analysed; `fresh` is set when the analysis was made now.
    pub fn analysed(&mut self, uri: &Uri) -> Option<(&Document, bool)> {
        let doc = self.open.get_mut(uri.as_str())?;
        let fresh = doc.analysis.is_none();
        if fresh {
            let analysis = Analysis::new(&doc.name(), doc.text.as_str());
            if analysis.schema.is_some() {
                doc.names = analysis.symbols.clone();
            }
            doc.analysis = Some(analysis);
        }
        Some((doc, fresh))
    }

    /// The URIs of the documents whose analysis is out of date.
    pub fn stale(&self) -> Vec<Uri> {
        self.open
            .values()
            .filter(|d| d.analysis.is_none())
            .map(|d| d.uri.clone())
            .collect()
    }
}

/// `%20` and friends decoded; anything malformed is kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_uri() {
        let mut docs = Documents::default();
        let uri: Uri = "file:///home/a%20b/b%C3%BCcher%C3%A9.sqn?x=1#y"
            .parse()
            .unwrap();
        docs.open(uri.clone(), 1, String::new());
        let (doc, fresh) = docs.analysed(&uri).unwrap();
        assert!(fresh);
        assert_eq!(doc.name(), "bücheré.sqn");
        assert!(!docs.analysed(&uri).unwrap().1, "analysed once");
    }
}
