//! The squillion command line, as a library: argument parsing and every subcommand, so that
//! behaviour and output are testable; `main.rs` only calls [`main`].
//!
//! - `squillion check FILE...`: validate schemas.
//! - `squillion fmt [--check] FILE...`: format schemas in place (or show what would change).
//! - `squillion plan FILE [--json | --explain]`: the layout of every relationship.
//! - `squillion review FILE --format md|html|text [-o OUT] [--base REV]`: the design-review
//!   document (with the changes since an earlier version).
//! - `squillion diff OLD NEW` / `squillion diff FILE --base REV`: what changed between two
//!   versions of a schema.
//! - `squillion generate FILE -o DIR [--scripts]`: Rust code (and mongosh scripts).
//! - `squillion indexes FILE --uri URI [--apply] [--prune]`: index and validator drift.
//! - `squillion audit FILE --uri URI [--sample N]`: where the data contradicts the design.
//! - `squillion migrate OLD NEW --uri URI [--until PHASE] [--dry-run] [--print mongosh]`: apply the supported
//!   steps from one version of a schema to the next (expand, move, contract); `-o DIR` writes
//!   them as a Rust module (running them through `squillion::migrate`) and a mongosh script.
//! - `squillion lsp`: the language server, for editors.
//! - `squillion infer --uri URI [--sample N] [-o FILE]`: a draft of the facts of an existing database.
#![deny(missing_docs)]

#[macro_use]
mod output;

pub mod audit;
pub mod check;
pub mod database;
pub mod diff;
pub mod fmt;
pub mod generate;
pub mod infer;
mod input;
pub mod lsp;
pub mod migrate;
pub mod plan;
pub mod review;
pub mod sync;

use clap::{Parser, Subcommand};

/// Exit codes: 0 success, 1 the input has problems (or drift), 2 usage or I/O errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Success.
    Ok = 0,
    /// Invalid schema, plan errors, drift, audit findings, or changes (`diff`).
    Failed = 1,
    /// Bad usage, unreadable files, unreachable database.
    Usage = 2,
}

/// MongoDB schema design for Rust: from facts about your data to a layout, and the code that
/// keeps it honest.
#[derive(Debug, Parser)]
#[command(name = "squillion", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate schema files and report every problem with its position.
    Check(check::CheckArgs),
    /// Format schema files in place: one canonical layout, every comment kept.
    Fmt(fmt::FmtArgs),
    /// Decide the layout of every relationship and collection, and explain it.
    Plan(plan::PlanArgs),
    /// Write the design-review document (Markdown, HTML or terminal text).
    Review(review::ReviewArgs),
    /// Show what changed between two versions of a schema (exit 1 when something did).
    Diff(diff::DiffArgs),
    /// Generate the Rust module (and mongosh scripts) for a schema.
    Generate(generate::GenerateArgs),
    /// Compare declared indexes and validators with a live database; apply with --apply.
    Indexes(database::IndexesArgs),
    /// Sample a live database and report where the data contradicts the design.
    Audit(database::AuditArgs),
    /// Migrate a database from one version of a schema to the next (expand, move, contract).
    Migrate(migrate::MigrateArgs),
    /// Run the language server over standard input and output, for editors.
    Lsp(lsp::LspArgs),
    /// Infer the facts of an existing database and write them as a `.sqn` draft.
    Infer(infer::InferArgs),
}

/// Runs the command line with these arguments (including the program name).
pub fn run<I, T>(args: I) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Ok
            };
        }
    };
    match &cli.command {
        Command::Check(a) => check::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Review(a) => {
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            match review::run(a, &mut out, &mut err) {
                Ok(()) => Exit::Ok,
                Err(e @ review::ReviewFailure::Invalid(_)) => {
                    errln!("{e}");
                    Exit::Failed
                }
                Err(review::ReviewFailure::Base) => Exit::Usage,
                Err(e) => {
                    errln!("error: {e}");
                    Exit::Usage
                }
            }
        }
        Command::Diff(a) => diff::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Indexes(a) => database::indexes(a),
        Command::Audit(a) => database::audit(a),
        Command::Migrate(a) => migrate::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Infer(a) => infer::run(a),
    }
}

/// The program: runs with the process's arguments and returns its exit code.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(run(std::env::args_os()) as u8)
}
