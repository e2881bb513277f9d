//! Diagnostics as the protocol carries them: the same code, place, message and help as
//! `squillion check` prints (the help on a line of its own, as `help: ...`), the secondary labels
//! as related information.

use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri};
use squillion_grammar::{Diagnostic, Severity};

use crate::text::Text;

/// The `source` of every diagnostic the server publishes.
pub const SOURCE: &str = "squillion";

/// `d` for the client.
pub fn to_lsp(d: &Diagnostic, text: &Text, uri: &Uri) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), text.range(label.span)),
            message: label.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range: text.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_owned())),
        code_description: None,
        source: Some(SOURCE.to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
