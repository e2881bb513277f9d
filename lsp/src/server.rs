//! The server: capabilities, the message loop, and one handler per request. Documents are analysed
//! when the client pauses (no message waiting) or asks about them, so a burst of keystrokes is
//! planned once.

use lsp_server::{Connection, ExtractError, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, Formatting, GotoDefinition, HoverRequest, InlayHintRequest,
    References, Request as _,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    GotoDefinitionResponse, Hover, HoverContents, HoverProviderCapability, Location, MarkupContent,
    MarkupKind, MessageType, OneOf, PositionEncodingKind, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, ShowMessageParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextEdit, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::documents::{Document, Documents};
use crate::{actions, completion, diagnostics, hover, inlay};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// What the server offers: incremental sync, UTF-16 positions, and every feature it answers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(completion::TRIGGERS.iter().map(|c| c.to_string()).collect()),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        document_formatting_provider: Some(OneOf::Left(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// Initializes the connection and serves it until the client sends `shutdown` and `exit`.
pub fn run(connection: &Connection) -> Result<(), Failure> {
    let initialize = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "squillion".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        },
    });
    let (id, _params) = connection.initialize_start()?;
    connection.initialize_finish(id, initialize)?;
    let mut server = Server::default();
    for message in &connection.receiver {
        let replies = match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                server.request(request)
            }
            Message::Notification(notification) => server.notification(notification),
            Message::Response(_) => Vec::new(),
        };
        for reply in replies {
            connection.sender.send(reply)?;
        }
        if connection.receiver.is_empty() {
            for reply in server.analyse_stale() {
                connection.sender.send(reply)?;
            }
        }
    }
    Ok(())
}

/// The state of one session: the open documents.
#[derive(Debug, Default)]
pub struct Server {
    documents: Documents,
}

impl Server {
    /// Handles a notification; returns the messages to send (diagnostics of closed documents).
    pub fn notification(&mut self, n: Notification) -> Vec<Message> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = params::<lsp_types::DidOpenTextDocumentParams>(n.params) {
                    let doc = p.text_document;
                    self.documents.open(doc.uri, doc.version, doc.text);
                }
                Vec::new()
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = params::<lsp_types::DidChangeTextDocumentParams>(n.params) {
                    let doc = p.text_document;
                    self.documents
                        .change(&doc.uri, doc.version, p.content_changes);
                }
                Vec::new()
            }
            DidCloseTextDocument::METHOD => {
                match params::<lsp_types::DidCloseTextDocumentParams>(n.params) {
                    Ok(p) => match self.documents.close(&p.text_document.uri) {
                        // Its diagnostics go with it.
                        Some(doc) => vec![publish(&doc.uri, Vec::new(), None)],
                        None => Vec::new(),
                    },
                    Err(_) => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// Analyses every document changed since its last analysis; returns their diagnostics.
    pub fn analyse_stale(&mut self) -> Vec<Message> {
        let mut out = Vec::new();
        for uri in self.documents.stale() {
            if let Some((doc, true)) = self.documents.analysed(&uri) {
                out.extend(diagnostics_of(doc));
            }
        }
        out
    }

    /// Handles a request; returns its response, after the diagnostics of the document it is
    /// about when they were out of date.
    pub fn request(&mut self, r: Request) -> Vec<Message> {
        let id = r.id.clone();
        let method = r.method.clone();
        let mut out = Vec::new();
        let result = match method.as_str() {
            HoverRequest::METHOD => self.on::<HoverRequest, _>(r, &mut out, |doc, p| {
                let position = p.text_document_position_params.position;
                let analysis = doc.analysis.as_ref()?;
                let markdown = hover::hover(analysis, doc.text.offset(position))?;
                Some(Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: markdown,
                    }),
                    range: None,
                })
            }),
            GotoDefinition::METHOD => self.on::<GotoDefinition, _>(r, &mut out, |doc, p| {
                let position = p.text_document_position_params.position;
                let analysis = doc.analysis.as_ref()?;
                let symbols = &analysis.symbols;
                let found = symbols.at(doc.text.offset(position))?;
                let span = symbols.symbols[found.symbol].name_span;
                Some(GotoDefinitionResponse::Scalar(Location::new(
                    doc.uri.clone(),
                    doc.text.range(span),
                )))
            }),
            References::METHOD => self.on::<References, _>(r, &mut out, |doc, p| {
                let position = p.text_document_position.position;
                let analysis = doc.analysis.as_ref()?;
                let symbols = &analysis.symbols;
                let found = symbols.at(doc.text.offset(position))?;
                let locations: Vec<Location> = symbols
                    .occurrences_of(found.symbol)
                    .into_iter()
                    .filter(|o| p.context.include_declaration || !o.declaration)
                    .map(|o| Location::new(doc.uri.clone(), doc.text.range(o.span)))
                    .collect();
                Some(locations)
            }),
            Completion::METHOD => self.on::<Completion, _>(r, &mut out, |doc, p| {
                let position = p.text_document_position.position;
                let items = completion::complete(&doc.names, &doc.text, doc.text.offset(position));
                Some(lsp_types::CompletionResponse::Array(items))
            }),
            CodeActionRequest::METHOD => self.on::<CodeActionRequest, _>(r, &mut out, |doc, p| {
                let analysis = doc.analysis.as_ref()?;
                Some(actions::quick_fixes(analysis, doc, p.range))
            }),
            Formatting::METHOD => self.on::<Formatting, _>(r, &mut out, |doc, _| {
                let text = doc.text.as_str();
                // A file with syntax errors is left as it is (its errors are on screen).
                let formatted = squillion_grammar::format(text).ok()?;
                if formatted == text {
                    return Some(Vec::new());
                }
                let whole = doc.text.range(squillion_grammar::Span::new(0, text.len()));
                Some(vec![TextEdit::new(whole, formatted)])
            }),
            InlayHintRequest::METHOD => self.on::<InlayHintRequest, _>(r, &mut out, |doc, p| {
                let analysis = doc.analysis.as_ref()?;
                Some(inlay::hints(analysis, &doc.text, p.range))
            }),
            _ => Response::new_err(
                id.clone(),
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("squillion does not answer `{method}`"),
            ),
        };
        out.push(Message::Response(result));
        out
    }

    /// Runs `answer` on the request's document, analysed (every answer of these requests may be
    /// `null`, which a document the client did not open gets).
    fn on<R, F>(&mut self, request: Request, out: &mut Vec<Message>, answer: F) -> Response
    where
        R: lsp_types::request::Request,
        R::Params: DeserializeOwned + HasUri,
        F: FnOnce(&Document, R::Params) -> R::Result,
        R::Result: serde::Serialize,
    {
        let id: RequestId = request.id.clone();
        let p: R::Params = match request.extract(R::METHOD) {
            Ok((_, p)) => p,
            Err(ExtractError::JsonError { error, .. }) => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::InvalidParams as i32,
                    format!("invalid parameters for `{}`: {error}", R::METHOD),
                )
            }
            Err(ExtractError::MethodMismatch(r)) => {
                return Response::new_err(
                    r.id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("unexpected method `{}`", r.method),
                )
            }
        };
        let uri = p.uri().clone();
        let answer = match self.documents.analysed(&uri) {
            Some((doc, fresh)) => {
                if fresh {
                    out.extend(diagnostics_of(doc));
                }
                serde_json::to_value(answer(doc, p)).unwrap_or(Value::Null)
            }
            None => Value::Null,
        };
        Response::new_ok(id, answer)
    }
}

/// The URI of the document a request is about.
pub trait HasUri {
    /// The document's URI.
    fn uri(&self) -> &Uri;
}

macro_rules! has_uri {
    ($($t:ty => |$p:ident| $e:expr),* $(,)?) => {
        $(impl HasUri for $t {
            fn uri(&self) -> &Uri {
                let $p = self;
                &$e
            }
        })*
    };
}

has_uri! {
    lsp_types::HoverParams => |p| p.text_document_position_params.text_document.uri,
    lsp_types::GotoDefinitionParams => |p| p.text_document_position_params.text_document.uri,
    lsp_types::ReferenceParams => |p| p.text_document_position.text_document.uri,
    lsp_types::CompletionParams => |p| p.text_document_position.text_document.uri,
    lsp_types::CodeActionParams => |p| p.text_document.uri,
    lsp_types::DocumentFormattingParams => |p| p.text_document.uri,
    lsp_types::InlayHintParams => |p| p.text_document.uri,
}

fn params<P: DeserializeOwned>(value: Value) -> Result<P, serde_json::Error> {
    serde_json::from_value(value)
}

/// `textDocument/publishDiagnostics` for an analysed document; and a message to the user when
/// the engine failed on it (a defect: the file is valid but has no Plan).
fn diagnostics_of(doc: &Document) -> Vec<Message> {
    let Some(analysis) = &doc.analysis else {
        return vec![publish(&doc.uri, Vec::new(), Some(doc.version))];
    };
    let found = analysis
        .diagnostics
        .iter()
        .map(|d| diagnostics::to_lsp(d, &doc.text, &doc.uri))
        .collect();
    let mut out = vec![publish(&doc.uri, found, Some(doc.version))];
    if analysis.engine_failed {
        out.push(Message::Notification(Notification::new(
            ShowMessage::METHOD.to_owned(),
            ShowMessageParams {
                typ: MessageType::ERROR,
                message: format!(
                    "squillion: the decision engine failed on {}; please report it with the file \
                     (`squillion plan` shows the same failure)",
                    doc.name()
                ),
            },
        )));
    }
    out
}

fn publish(uri: &Uri, found: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_owned(),
        PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: found,
            version,
        },
    ))
}
