//! What the server offers: aggregation stages and commands `infer` uses are tried once, and when
//! one is missing (or not allowed) `infer` does without it and the draft says so.

use std::collections::BTreeSet;

use mongodb::bson::Document;
use mongodb::error::{Error, ErrorKind};
use mongodb::{Collection, Cursor};

/// The stages and commands `infer` can do without.
pub const OPTIONAL: [&str; 5] = [
    "$sample",
    "$collStats",
    "$indexStats",
    "$unionWith",
    "profiler",
];

/// The server's abilities as found so far, and the notes about missing ones.
#[derive(Debug, Clone, Default)]
pub struct Server {
    /// Stages to treat as missing without asking (tests of the fallbacks use this).
    disabled: BTreeSet<String>,
    /// Stages found missing.
    missing: BTreeSet<String>,
    /// One line per missing stage: what it is, why, what was done instead.
    pub notes: Vec<String>,
}

/// Whether an error is the server refusing a stage or command (unknown, unsupported, not
/// allowed), rather than the connection failing.
pub fn is_refusal(e: &Error) -> bool {
    matches!(*e.kind, ErrorKind::Command(_))
}

fn reason(e: &Error) -> String {
    match &*e.kind {
        ErrorKind::Command(c) => c.message.clone(),
        _ => crate::database::describe(e),
    }
}

impl Server {
    /// A server on which the `disabled` stages are treated as missing.
    pub fn new(disabled: impl IntoIterator<Item = String>) -> Server {
        Server {
            disabled: disabled.into_iter().collect(),
            ..Server::default()
        }
    }

    /// Whether `stage` is worth trying.
    pub fn offers(&self, stage: &str) -> bool {
        !self.disabled.contains(stage) && !self.missing.contains(stage)
    }

    /// Records that `stage` is missing (once), with what was done instead.
    pub fn lacks(&mut self, stage: &str, why: Option<&Error>, instead: &str) {
        if self.missing.insert(stage.to_owned()) {
            let why = match why {
                Some(e) => format!("the server refused it ({})", reason(e)),
                None => "it was turned off with --without".to_owned(),
            };
            self.notes
                .push(format!("`{stage}` is not available: {why}; {instead}."));
        }
    }

    /// Records that collection `name` was sampled in `_id` windows.
    pub fn windowed(&mut self, name: &str, estimated: u64, sampled: u64) {
        self.notes.push(format!(
            "`{name}` (about {} documents) was sampled in up to {} windows of consecutive `_id`s from random points of its `_id` range ({} documents), not with `$sample`, which reads the whole collection: the sample is uniform over the `_id` range (for ObjectIds, insertion time) rather than over documents; counts are over all documents.",
            super::words::n(estimated),
            super::windows::WINDOWS,
            super::words::n(sampled)
        ));
    }

    /// Runs `pipeline` on `coll` when `stage` (the one it depends on) is offered: `Ok(None)` when
    /// it is not, or the server refuses it (recorded with `instead`).
    pub async fn aggregate(
        &mut self,
        coll: &Collection<Document>,
        pipeline: Vec<Document>,
        stage: &str,
        instead: &str,
    ) -> mongodb::error::Result<Option<Cursor<Document>>> {
        if !self.offers(stage) {
            if self.disabled.contains(stage) {
                self.lacks(stage, None, instead);
            }
            return Ok(None);
        }
        match coll.aggregate(pipeline).await {
            Ok(c) => Ok(Some(c)),
            Err(e) if is_refusal(&e) => {
                self.lacks(stage, Some(&e), instead);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}
