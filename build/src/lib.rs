//! squillion for `build.rs`: generates the Rust of `.sqn` schemas at build time.
//!
//! A build dependency only, as `prost-build` is to `prost`: the parser, the decision engine and
//! the emitters run in the build script, and the application itself depends on `squillion` (the
//! runtime and the derive) alone.
//!
//! ```toml
//! [dependencies]
//! squillion = "0.1"
//!
//! [build-dependencies]
//! squillion-build = "0.1"
//! ```
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), squillion_build::BuildError> {
//!     squillion_build::Builder::new().schema("schema/library.sqn").compile()?;
//!     Ok(())
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs: schema/library.sqn was written to $OUT_DIR/library.rs
//! include!(concat!(env!("OUT_DIR"), "/library.rs"));
//! ```
//!
//! The builder writes `$OUT_DIR/<stem>.rs` for each schema `<stem>.sqn` (`schema/library.sqn`
//! becomes `$OUT_DIR/library.rs`), prints `cargo:rerun-if-changed` for every schema it reads,
//! rewrites a file only when its content changed, and on a bad schema fails with the diagnostics
//! rendered as the CLI prints them (`file:line:col`, the message, the source underlined, a help
//! line). A `BuildError` returned from `main` prints that text, not an escaped debug string.
//! Warnings (of the schema and of its Plan) do not stop the build: each is printed as
//! `cargo:warning=` lines, `file:line:col: warning[W...]: what` and then `  help: what to do`.
//!
//! With [`Builder::lock`], the stored layout of every schema (each relationship's layout and
//! where it keeps its data, each collection's stored fields) is kept in a lock file beside the
//! schemas, written on the first build. A later build whose layout differs, because the
//! schema's facts changed or because a new version of squillion decides differently, fails and
//! names every change: the documents already stored have the old layout, which the new code
//! does not read. Migrate them (`squillion migrate OLD.sqn NEW.sqn`) or keep the old layout
//! (`force <layout>` on the relation), then accept the change with `SQUILLION_ACCEPT_LAYOUT=1`,
//! which rewrites the lock.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), squillion_build::BuildError> {
//!     squillion_build::Builder::new()
//!         .schema("schema/library.sqn")
//!         .lock("schema/squillion.lock")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
#![deny(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};

use squillion_codegen::files::{write_all, Output};
use squillion_codegen::lock::{self, SchemaLock};
use squillion_codegen::pipeline::{compile, display_name};
use squillion_grammar::SourceFile;

mod warnings;

pub use warnings::cargo_warning_lines;

pub use squillion_codegen::pipeline::GenerateSettings;

/// Why code generation failed.
///
/// Its `Debug` is its `Display` (the rendered diagnostics), so `fn main() -> Result<(),
/// BuildError>` (or a `Box<dyn Error>` holding one) fails the build with readable diagnostics.
pub enum BuildError {
    /// A schema could not be read, or the output could not be written.
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A schema has errors; `rendered` shows them with file:line:col and the source underlined.
    Schema {
        /// The schema file.
        path: PathBuf,
        /// The diagnostics, rendered.
        rendered: String,
    },
    /// `OUT_DIR` is not set and no output directory was given.
    NoOutDir,
    /// The lock file does not read.
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Its line (from 1).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The stored layout differs from the lock's; nothing was written.
    LayoutChanged {
        /// The lock file.
        path: PathBuf,
        /// Each schema whose layout changed: its name, whether its text is the one locked, and
        /// each change in words.
        changes: Vec<(String, bool, Vec<String>)>,
    },
}

/// The environment variable that accepts a changed layout (and rewrites the lock).
pub const ACCEPT_LAYOUT: &str = "SQUILLION_ACCEPT_LAYOUT";

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            BuildError::Schema { path, rendered } => {
                write!(f, "squillion: {} has errors:\n{rendered}", path.display())
            }
            BuildError::NoOutDir => f.write_str(
                "squillion: OUT_DIR is not set; call this from build.rs or set Builder::out_dir",
            ),
            BuildError::Lock {
                path,
                line,
                message,
            } => write!(
                f,
                "squillion: {}:{line}: the layout lock does not read: {message}
  help: restore it from version control, or delete it: the next build writes it anew from the schemas",
                path.display()
            ),
            BuildError::LayoutChanged { path, changes } => {
                writeln!(
                    f,
                    "squillion: the stored layout changed since {} was written; nothing was generated",
                    path.display()
                )?;
                for (schema, same_text, list) in changes {
                    if *same_text {
                        writeln!(f, "  {schema} (its text is unchanged: this version of squillion decides differently):")?;
                    } else {
                        writeln!(f, "  {schema}:")?;
                    }
                    for c in list {
                        writeln!(f, "    - {c}")?;
                    }
                }
                write!(
                    f,
                    "  the documents already stored have the old layout, which the new code does not read
  help: migrate them first (`squillion migrate OLD.sqn NEW.sqn`, docs/migrations.md), or keep the old layout with `force <layout>` on the relation; then accept the new layout: `{ACCEPT_LAYOUT}=1 cargo build` rewrites the lock"
                )
            }
        }
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Generates Rust from `.sqn` schemas at build time.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    schemas: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    settings: GenerateSettings,
    emit_rerun: bool,
    lock: Option<PathBuf>,
    accept: Option<bool>,
}

impl Builder {
    /// A builder with default settings.
    pub fn new() -> Self {
        Builder {
            emit_rerun: true,
            ..Builder::default()
        }
    }

    /// Adds a schema file.
    pub fn schema(mut self, path: impl AsRef<Path>) -> Self {
        self.schemas.push(path.as_ref().to_path_buf());
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Uses these generation settings (shared with `squillion generate`).
    pub fn settings(mut self, settings: GenerateSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Keeps the stored layout of the schemas in the lock file `path` (written when absent): a
    /// build whose layout differs from it fails, naming each change, unless
    /// `SQUILLION_ACCEPT_LAYOUT=1` accepts it (the lock is then rewritten). Commit the lock with
    /// the schemas.
    pub fn lock(mut self, path: impl AsRef<Path>) -> Self {
        self.lock = Some(path.as_ref().to_path_buf());
        self
    }

    /// Whether a changed layout is accepted (the lock rewritten) or fails the build; by default,
    /// whether `SQUILLION_ACCEPT_LAYOUT` is set to something other than `0`.
    pub fn accept_layout_changes(mut self, accept: bool) -> Self {
        self.accept = Some(accept);
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (on by default).
    pub fn emit_rerun_if_changed(mut self, emit: bool) -> Self {
        self.emit_rerun = emit;
        self
    }

    /// Generates every schema. Nothing is written unless every schema is valid.
    pub fn compile(self) -> Result<Vec<PathBuf>, BuildError> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        // Schemas are named relative to the package (never by an absolute path) in diagnostics
        // and in what is generated.
        let base = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let mut outputs = Vec::new();
        let mut locked = Vec::new();
        for path in &self.schemas {
            if self.emit_rerun {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            let bytes = std::fs::read(path).map_err(|source| BuildError::Io {
                path: path.clone(),
                source,
            })?;
            let source = SourceFile::from_bytes(display_name(path, &base), bytes).map_err(|e| {
                BuildError::Schema {
                    path: path.clone(),
                    rendered: e.source.render(std::slice::from_ref(&e.diagnostic), false),
                }
            })?;
            let generated =
                compile(&source, &self.settings).map_err(|diags| BuildError::Schema {
                    path: path.clone(),
                    rendered: source.render(&diags, false),
                })?;
            locked.push(SchemaLock::of(
                source.name(),
                source.text().as_bytes(),
                &generated.plan,
            ));
            for w in &generated.warnings {
                for line in cargo_warning_lines(&source, w) {
                    println!("cargo:warning={line}");
                }
            }
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "schema".to_owned());
            outputs.push(Output {
                path: out_dir.join(format!("{stem}.rs")),
                content: generated.rust,
            });
        }
        if let Some(path) = &self.lock {
            outputs.push(self.checked_lock(path, locked)?);
        }
        // All or nothing, each file written only when its content changed (no rebuild cascades);
        // staged beside the targets, so no file of the user's is touched.
        let written: Vec<PathBuf> = outputs.iter().map(|o| o.path.clone()).collect();
        write_all(&outputs).map_err(|e| BuildError::Io {
            path: e.path,
            source: e.source,
        })?;
        Ok(written)
    }

    /// The lock file's new content, after comparing the layouts with the lock at `path` (if
    /// there is one): `Err` if one changed and the change is not accepted.
    fn checked_lock(&self, path: &Path, locked: Vec<SchemaLock>) -> Result<Output, BuildError> {
        if self.emit_rerun {
            println!("cargo:rerun-if-changed={}", path.display());
            println!("cargo:rerun-if-env-changed={ACCEPT_LAYOUT}");
        }
        let old = match std::fs::read_to_string(path) {
            Ok(text) => Some(lock::parse(&text).map_err(|e| BuildError::Lock {
                path: path.to_path_buf(),
                line: e.line,
                message: e.message,
            })?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(BuildError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let mut changes = Vec::new();
        for new in &locked {
            let Some(before) = old.as_ref().and_then(|o| o.get(&new.schema)) else {
                continue;
            };
            let list = lock::changes(before, new);
            if !list.is_empty() {
                changes.push((new.schema.clone(), before.text_hash == new.text_hash, list));
            }
        }
        let accepted = self.accept.unwrap_or_else(|| {
            std::env::var_os(ACCEPT_LAYOUT).is_some_and(|v| !v.is_empty() && v != "0")
        });
        if !changes.is_empty() {
            if !accepted {
                return Err(BuildError::LayoutChanged {
                    path: path.to_path_buf(),
                    changes,
                });
            }
            if self.emit_rerun {
                println!(
                    "cargo:warning=squillion: the changed stored layout was accepted ({ACCEPT_LAYOUT}); {} rewritten",
                    path.display()
                );
            }
        }
        let lock: lock::Lock = locked.into_iter().map(|s| (s.schema.clone(), s)).collect();
        Ok(Output {
            path: path.to_path_buf(),
            content: lock::render(&lock),
        })
    }
}
