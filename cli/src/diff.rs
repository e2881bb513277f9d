//! `squillion diff OLD NEW` and `squillion diff FILE --base REV`: what changed between two
//! versions of a schema (facts, decisions, collections, fields, indexes, validators, schema
//! versions), with the data each change moves.
//!
//! Exit codes, like `git diff --exit-code` and `squillion indexes` (drift): 0 the plans are the
//! same, 1 they differ, 2 a file could not be read or checked, or git could not give the base.

use std::path::{Path, PathBuf};
use std::process::Command;

use squillion_codegen::diff::{self, render, PlanDiff};
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

use crate::input::{read_schema, stderr_color, Unread};
use crate::Exit;

/// Output formats of `squillion diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// For people, in a terminal.
    Text,
    /// GitHub-flavoured Markdown (a pull request comment).
    Md,
    /// For tools: the diff's data, every change with its old and new state.
    Json,
}

/// Arguments of `squillion diff`.
#[derive(Debug, Clone, clap::Args)]
pub struct DiffArgs {
    /// The old schema file; with --base, the schema file to compare with its earlier version.
    pub old: PathBuf,
    /// The new schema file.
    #[arg(required_unless_present = "base")]
    pub new: Option<PathBuf>,
    /// Compare FILE with its version at this git revision (`HEAD`, `main`, a commit).
    #[arg(long, value_name = "REV", conflicts_with = "new")]
    pub base: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: DiffFormat,
}

/// Runs `squillion diff`.
pub fn run(args: &DiffArgs) -> Exit {
    let (old, new) = match (&args.new, &args.base) {
        (Some(new), _) => (plan_of_file(&args.old), plan_of_file(new)),
        (None, Some(rev)) => (plan_at(&args.old, rev), plan_of_file(&args.old)),
        (None, None) => {
            errln!("error: give the new schema file, or --base REV to compare with git");
            return Exit::Usage;
        }
    };
    // Both files are checked before giving up, so every problem is reported at once.
    let (old, new) = match (old, new) {
        (Ok(o), Ok(n)) => (o, n),
        _ => return Exit::Usage,
    };
    let d = diff::diff(&old, &new);
    let printed = match args.format {
        DiffFormat::Text => out!("{}", render::text(&d)),
        DiffFormat::Md => out!("{}", render::markdown(&d, 2)),
        DiffFormat::Json => outln!("{}", d.to_json()),
    };
    if let Err(exit) = printed {
        return exit;
    }
    exit_of(&d)
}

/// 0 when nothing changed, 1 when something did.
pub fn exit_of(d: &PlanDiff) -> Exit {
    if d.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// The Plan of a schema file; its diagnostics are printed when it has errors.
pub(crate) fn plan_of_file(path: &Path) -> Result<Plan, ()> {
    match read_schema(path) {
        Ok(source) => plan_of(&source),
        Err(Unread::Unreadable(message)) => {
            errln!("error: {message}");
            Err(())
        }
        Err(Unread::NotText(e)) => {
            err!(
                "{}",
                e.source
                    .render(std::slice::from_ref(&e.diagnostic), stderr_color())
            );
            Err(())
        }
    }
}

/// The Plan of the schema at `path` as it was at git revision `rev`.
pub(crate) fn plan_at(path: &Path, rev: &str) -> Result<Plan, ()> {
    match base_source(path, rev) {
        Ok(source) => plan_of(&source),
        Err(e) => {
            errln!("{e}");
            Err(())
        }
    }
}

fn plan_of(source: &SourceFile) -> Result<Plan, ()> {
    match squillion_codegen::load(source) {
        Ok(checked) => Ok(squillion_codegen::engine::plan(&checked.model, source)),
        Err(diagnostics) => {
            err!("{}", source.render(&diagnostics, stderr_color()));
            Err(())
        }
    }
}

/// Why git could not give the earlier version of a schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseError {
    /// `git` could not be run.
    NoGit {
        /// The operating system's reason.
        reason: String,
    },
    /// The file is not inside a git work tree.
    NotARepository {
        /// The file.
        file: String,
    },
    /// The revision names no commit.
    UnknownRevision {
        /// The revision.
        rev: String,
        /// The file.
        file: String,
    },
    /// The file did not exist at that revision.
    AbsentAtRevision {
        /// The revision.
        rev: String,
        /// The file.
        file: String,
    },
    /// The file at that revision is not UTF-8 text: its diagnostic (E0106), rendered.
    NotText {
        /// The rendered diagnostic.
        rendered: String,
    },
}

impl BaseError {
    /// The stable code (documented in `docs/diff.md`).
    pub fn code(&self) -> &'static str {
        match self {
            BaseError::NoGit { .. } => "G0001",
            BaseError::NotARepository { .. } => "G0002",
            BaseError::UnknownRevision { .. } => "G0003",
            BaseError::AbsentAtRevision { .. } => "G0004",
            BaseError::NotText { .. } => "E0106",
        }
    }

    fn help(&self) -> String {
        match self {
            BaseError::NoGit { .. } => {
                "install git, or compare two files: `squillion diff OLD.sqn NEW.sqn`".to_owned()
            }
            BaseError::NotARepository { .. } => {
                "--base reads the file from git; outside a repository, compare two files: `squillion diff OLD.sqn NEW.sqn`".to_owned()
            }
            BaseError::UnknownRevision { file, .. } => format!(
                "name a commit, branch or tag git knows; `git log --oneline -- {file}` lists the commits that changed the file"
            ),
            BaseError::AbsentAtRevision { file, .. } => format!(
                "the file was added after that revision; `git log --oneline --follow -- {file}` shows when (and under which name it was before)"
            ),
            BaseError::NotText { .. } => String::new(),
        }
    }
}

impl std::fmt::Display for BaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let message = match self {
            BaseError::NoGit { reason } => format!("cannot run git: {reason}"),
            BaseError::NotARepository { file } => {
                format!("`{file}` is not in a git repository")
            }
            BaseError::UnknownRevision { rev, file } => {
                format!("unknown revision `{rev}` in the git repository of `{file}`")
            }
            BaseError::AbsentAtRevision { rev, file } => {
                format!("`{file}` does not exist at revision `{rev}`")
            }
            BaseError::NotText { rendered } => return f.write_str(rendered.trim_end()),
        };
        write!(
            f,
            "error[{}]: {message}\n  help: {}",
            self.code(),
            self.help()
        )
    }
}

impl std::error::Error for BaseError {}

/// The text of `path` at git revision `rev` (`git show REV:./name`, run in the file's folder),
/// named `path@REV` in diagnostics and outputs.
pub fn base_source(path: &Path, rev: &str) -> Result<SourceFile, BaseError> {
    let file = crate::input::display(path);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()
            .map_err(|e| BaseError::NoGit {
                reason: e.to_string(),
            })
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() || String::from_utf8_lossy(&inside.stdout).trim() != "true" {
        return Err(BaseError::NotARepository { file });
    }
    // `--end-of-options` keeps a revision starting with `-` from being read as an option.
    let commit = format!("{rev}^{{commit}}");
    let known = git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        &commit,
    ])?;
    if !known.status.success() {
        return Err(BaseError::UnknownRevision {
            rev: rev.to_owned(),
            file,
        });
    }
    let object = format!("{rev}:./{name}");
    let shown = git(&["show", "--end-of-options", &object])?;
    if !shown.status.success() {
        return Err(BaseError::AbsentAtRevision {
            rev: rev.to_owned(),
            file,
        });
    }
    SourceFile::from_bytes(format!("{file}@{rev}"), shown.stdout).map_err(|e| {
        // Not UTF-8 at that revision: said like any other file's.
        BaseError::NotText {
            rendered: e
                .source
                .render(std::slice::from_ref(&e.diagnostic), stderr_color()),
        }
    })
}
