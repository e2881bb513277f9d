//! Code actions: the quick fix each diagnostic carries ("did you mean `string`?" as an edit), for
//! the diagnostics that touch the requested range.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, WorkspaceEdit};

use crate::analysis::Analysis;
use crate::diagnostics;
use crate::documents::Document;

/// The quick fixes of the diagnostics overlapping `range`.
pub fn quick_fixes(analysis: &Analysis, doc: &Document, range: Range) -> Vec<CodeActionOrCommand> {
    let wanted = doc.text.span(range);
    analysis
        .diagnostics
        .iter()
        .filter(|d| d.span.start <= wanted.end && wanted.start <= d.span.end)
        .filter_map(|d| {
            let fix = d.fix.as_ref()?;
            let edit = TextEdit::new(doc.text.range(fix.span), fix.replacement.clone());
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Change to `{}`", fix.replacement),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostics::to_lsp(d, &doc.text, &doc.uri)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(doc.uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect()
}
