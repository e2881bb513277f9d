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

pub mod literal;
mod moves;
mod ops;
mod run;

pub use ops::{Backfill, Batched, Check, Index, Op, Update, ValidationLevel, Walk};
pub use run::{Changed, Migration, MigrationError, Progress, Run, Summary};

/// Documents read per batch when a step walks a collection in `_id` order.
pub const BATCH: u32 = 1_000;

/// The collection holding one checkpoint document per migration:
/// `{_id: "<old plan hash>..<new plan hash>", from, to, done: [step names]}`.
pub const CHECKPOINTS: &str = "squillion_migrations";
