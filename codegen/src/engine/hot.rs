//! W122, hot fields: a field declared updated often (`@updates`) in a large document that is read
//! often. Every update rewrites the whole document, and its readers load it whole; seed 002 lists
//! "storing seldom used data fields with frequently used data fields" among the anti-patterns and
//! asks "does the embedded info change often?".
//!
//! All three facts must be declared or estimated, never defaulted, and all three must pass their
//! threshold (documented in `docs/diagnostics.md`, W122):
//! - updated often: `@updates` of at least [`HOT_UPDATES_PER_DAY`] (once a minute per document);
//! - large: an average document of at least [`LARGE_DOCUMENT_BYTES`], the size at which the
//!   engine already keeps a seldom-read one-to-one side out of a hot document;
//! - read often: the `rate`s of the queries on the documents' entity add up to at least
//!   [`OFTEN_READS_PER_DAY`] (once a minute); without declared rates nothing is assumed.

use crate::plan::{Collection, CollectionRole, RuleId, Severity};
use crate::prose::hot::{sentences, HotField};

use super::collections::SpanIndex;
use super::warnings::{codes, Emit};

/// Updates per document per day from which a field is hot: once a minute.
pub(crate) const HOT_UPDATES_PER_DAY: f64 = 24.0 * 60.0;
/// Average document size from which a document is large for a hot field.
pub(crate) const LARGE_DOCUMENT_BYTES: u64 = 4 * 1024;
/// Reads per day (declared query rates) from which a document is read often: once a minute.
pub(crate) const OFTEN_READS_PER_DAY: f64 = 24.0 * 60.0;

/// The hot fields of `c`, top level, in the order of its fields.
pub(crate) fn find(e: &Emit<'_, '_>, c: &Collection) -> Vec<HotField> {
    if c.role != CollectionRole::Entity || c.size.average < LARGE_DOCUMENT_BYTES {
        return Vec::new();
    }
    let Some(entity) = e.ctx.entity(&c.entity) else {
        return Vec::new();
    };
    let reads_per_day: f64 = e
        .ctx
        .queries_on(&c.entity)
        .iter()
        .filter_map(|q| q.rate_per_second)
        .map(|r| r * 86_400.0)
        .sum();
    if reads_per_day < OFTEN_READS_PER_DAY {
        return Vec::new();
    }
    c.fields
        .iter()
        .filter_map(|f| {
            let declared = entity.fields.iter().find(|m| m.bson_name == f.name)?;
            let updates = declared.facts.updates_per_day?;
            (updates >= HOT_UPDATES_PER_DAY).then(|| HotField {
                collection: c.name.clone(),
                path: f.path.clone(),
                updates_per_day: updates,
                document_bytes: c.size.average,
                reads_per_day,
                counter: f.flags.counter,
            })
        })
        .collect()
}

/// W122 for every hot field of every collection.
pub(crate) fn warn(e: &mut Emit<'_, '_>, collections: &[Collection], spans: &SpanIndex) {
    for c in collections {
        for h in find(e, c) {
            let span = spans
                .get(&(c.name.clone(), h.path.clone()))
                .copied()
                .unwrap_or_default();
            let (message, help) = sentences(&h);
            e.warn(
                codes::HOT_FIELD,
                Severity::Warning,
                RuleId::DocumentShape,
                span,
                message,
                Some(help),
                Some(&c.name),
                None,
            );
        }
    }
}
