//! Inlay hints: the chosen layout after each relation's header, as the review's headline
//! (`child_ref + denormalized + subset`), with the decision's `because` as the tooltip.

use lsp_types::{InlayHint, InlayHintLabel, InlayHintTooltip, Range};
use squillion_codegen::review::view::Review;

use crate::analysis::Analysis;
use crate::text::Text;

/// The hints of the relations whose header ends inside `range`.
pub fn hints(analysis: &Analysis, text: &Text, range: Range) -> Vec<InlayHint> {
    let Some(plan) = &analysis.plan else {
        return Vec::new();
    };
    let span = text.span(range);
    let review = Review::new(plan, "", "");
    analysis
        .symbols
        .relations
        .iter()
        .filter(|r| span.start <= r.span.end && r.span.end <= span.end)
        .filter_map(|r| {
            let d = review.relationships.iter().find(|d| d.id == r.id)?;
            Some(InlayHint {
                position: text.position(r.span.end),
                label: InlayHintLabel::String(format!("\u{21d2} {}", d.headline)),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::String(d.because.clone())),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
        })
        .collect()
}
