//! Running a migration between two versions of a schema: the one executor that both
//! `squillion migrate OLD NEW --uri ...` and the Rust module written by
//! `squillion migrate OLD NEW -o DIR` call, so that either can finish what the other started.
//!
//! A migration is a list of named steps ([`Op`]s: plain data, collection names, filters and
//! aggregation stages as BSON), run in order by a [`Run`]. Each step that writes is recorded in
//! one checkpoint document (`_id`: the migration's id) of the collection [`CHECKPOINTS`]; a step
//! already recorded is skipped, and every step is idempotent (its guard selects only the
//! documents it has not done), so a run killed halfway and started again, by the CLI or by the
//! generated code, does nothing twice.
//!
//! ```no_run
//! # async fn example(db: &squillion::mongodb::Database) -> Result<(), squillion::migrate::MigrationError> {
//! use squillion::migrate::{Migration, Op, Progress, Run};
//!
//! let migration = Migration {
//!     id: "0123456789abcdef..fedcba9876543210",
//!     from: "v1.sqn",
//!     to: "v2.sqn",
//!     steps: &["contract: drop index posts.by_title"],
//! };
//! let mut progress = |p: &Progress<'_>| eprintln!("{p}");
//! let mut run = Run::open(db, &migration, false, &mut progress).await?;
//! run.step(
//!     "contract: drop index posts.by_title",
//!     Op::DropIndex { collection: "posts".into(), name: "by_title".into() },
//! )
//! .await?;
//! let summary = run.finish();
//! # let _ = summary;
//! # Ok(())
//! # }
//! ```
//!
//! Progress is reported through a callback (`&mut dyn FnMut(&Progress)`), not printed: a library
//! must not write to the terminal of the application that links it, nor make it adopt a logging
//! crate. The callback sees every step start, each batch of a walk, and each step's result, so an
//! application can route them to `tracing`, a progress bar or a health endpoint; [`Progress`]
//! implements `Display` for a plain line.

mod ids;
pub mod literal;
mod moves;
mod ops;
mod run;

pub use ops::{Backfill, Batched, Check, Ids, Index, Op, Update, ValidationLevel, Walk};
pub use run::{Changed, Migration, MigrationError, Progress, Run, Summary};

/// Documents read per batch when a step walks a collection in `_id` order.
pub const BATCH: u32 = 1_000;

/// The collection holding one checkpoint document per migration:
/// `{_id: "<old plan hash>..<new plan hash>", from, to, done: [step names]}`.
pub const CHECKPOINTS: &str = "squillion_migrations";

#[cfg(test)]
mod tests {
    use super::literal::*;
    use super::*;

    /// The mongosh script and the CLI name the same checkpoint collection and batch size.
    #[test]
    fn the_constants_are_the_generators() {
        assert_eq!(CHECKPOINTS, squillion_codegen::migration::CHECKPOINTS);
        assert_eq!(BATCH, squillion_codegen::migration::BATCH);
    }

    /// The literals make the BSON the CLI reads from the same JSON (extended JSON rules:
    /// integers that fit 32 bits are `int`).
    #[test]
    fn literals_are_what_the_cli_reads() {
        let json = serde_json::json!({
            "$match": { "n": { "$gt": 3, "$lt": 5_000_000_000_i64 }, "x": [1.5, -2, null, true, "s"] },
        });
        let read = match Bson::try_from(json) {
            Ok(Bson::Document(d)) => d,
            other => panic!("{other:?}"),
        };
        let written = doc([(
            "$match",
            obj([
                ("n", obj([("$gt", int(3)), ("$lt", long(5_000_000_000))])),
                (
                    "x",
                    arr([double(1.5), int(-2), null(), boolean(true), text("s")]),
                ),
            ]),
        )]);
        assert_eq!(read, written);
        assert_eq!(docs([doc([])]), vec![Document::new()]);
        assert_eq!(texts(["a.b"]), vec!["a.b".to_owned()]);
    }

    /// The CLI's lines.
    #[test]
    fn progress_reads_as_the_cli_prints() {
        let p = Progress::Done {
            step: "move: x",
            changed: Changed::Documents(1),
        };
        assert_eq!(p.to_string(), "done: move: x (1 document)");
        let walked = Changed::Walked {
            count: 3,
            walk: Walk::Parents,
        };
        assert_eq!(walked.to_string(), " (3 parents walked)");
        assert_eq!(
            Progress::AlreadyDone { step: "a" }.to_string(),
            "already done: a"
        );
        assert_eq!(Progress::Would { step: "a" }.to_string(), "would a");
    }
}
