//! Completion (filled in later).

use lsp_types::CompletionItem;

use crate::analysis::Analysis;
use crate::text::Text;

/// Characters that open a completion by themselves.
pub const TRIGGERS: &[char] = &['@', '.', ':'];

/// The items to offer at byte `offset`.
pub fn complete(_analysis: &Analysis, _text: &Text, _offset: usize) -> Vec<CompletionItem> {
    Vec::new()
}
