//! The layout lock: the stored layout a schema's generated code reads and writes, one line per
//! relationship and per collection, kept beside the schemas by build.rs
//! (`squillion_build::Builder::lock`). A build whose layout differs from the lock's (the
//! schema's facts changed, or squillion's own rules decide differently since an upgrade) stops
//! and names each change, until the stored data is migrated and the change accepted: the code
//! generated from a plan never silently reads documents stored under another.
//!
//! ```text
//! # squillion layout lock ...
//! [schema/library.sqn] 5f0c3a9e12b4d7c1
//! relationship Author.books = child_ref: books.author (id)
//! collection books = _id objectId, author objectId, title string
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::plan::{Plan, PlanField, Shape};

/// The first lines of a lock file.
const HEADER: &str =
    "# squillion layout lock: the stored layout the generated code reads and writes.\n\
# Written by build.rs (squillion_build::Builder::lock); a build whose layout differs stops\n\
# until the change is accepted (SQUILLION_ACCEPT_LAYOUT=1). Commit it with the schemas.\n";

/// One schema's stored layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaLock {
    /// The schema's name as diagnostics show it (`schema/library.sqn`).
    pub schema: String,
    /// A hash of the schema's text (FNV-1a, 64 bits, hex): whether the schema itself changed.
    pub text_hash: String,
    /// `relationship <id>` and `collection <name>`, each with its layout in words.
    pub entries: BTreeMap<String, String>,
}

/// What a lock file holds: the layout of each schema, by name.
pub type Lock = BTreeMap<String, SchemaLock>;

impl SchemaLock {
    /// The layout `plan` stores, for the schema `schema` whose text is `text`.
    pub fn of(schema: &str, text: &[u8], plan: &Plan) -> SchemaLock {
        let mut entries = BTreeMap::new();
        for d in &plan.relationships {
            let mut layout = d.strategy.as_str().to_owned();
            if let Some(b) = &d.bucket {
                let _ = write!(layout, "({})", b.size);
            }
            let places: Vec<String> = d
                .placement
                .iter()
                .map(|p| format!("{}.{} ({})", p.collection, p.path, shape(p.shape)))
                .collect();
            if !places.is_empty() {
                let _ = write!(layout, ": {}", places.join(", "));
            }
            entries.insert(format!("relationship {}", d.id), layout);
        }
        for c in &plan.collections {
            let mut fields = Vec::new();
            stored(&c.fields, &mut fields);
            // A set: the order fields are declared in does not change what is stored.
            fields.sort();
            entries.insert(format!("collection {}", c.name), fields.join(", "));
        }
        SchemaLock {
            schema: schema.to_owned(),
            text_hash: format!("{:016x}", fnv1a(text)),
            entries,
        }
    }
}

/// The stored fields, depth first: `path type`, an array's elements as `path[]`.
fn stored(fields: &[PlanField], out: &mut Vec<String>) {
    for f in fields {
        out.push(format!(
            "{}{} {}",
            f.path,
            "[]".repeat(usize::from(f.array_depth)),
            f.bson_type
        ));
        stored(&f.children, out);
    }
}

fn shape(s: Shape) -> &'static str {
    match s {
        Shape::Subdocument => "embedded",
        Shape::ArrayOfSubdocuments => "embedded array",
        Shape::Id => "id",
        Shape::ArrayOfIds => "ids",
        Shape::ArrayOfExtendedRefs => "extended references",
        Shape::ExtendedRef => "extended reference",
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The text of a lock file holding `lock`.
pub fn render(lock: &Lock) -> String {
    let mut out = HEADER.to_owned();
    for s in lock.values() {
        let _ = writeln!(out, "\n[{}] {}", s.schema, s.text_hash);
        for (k, v) in &s.entries {
            let _ = writeln!(out, "{k} = {v}");
        }
    }
    out
}

/// A lock file that does not read: the line (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Reads a lock file's text.
pub fn parse(text: &str) -> Result<Lock, LockError> {
    let mut lock = Lock::new();
    let mut current: Option<SchemaLock> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: &str| LockError {
            line: n + 1,
            message: message.to_owned(),
        };
        if let Some(rest) = line.strip_prefix('[') {
            let (schema, hash) = rest
                .split_once(']')
                .ok_or_else(|| bad("a schema line is `[name] hash`"))?;
            if let Some(done) = current.take() {
                lock.insert(done.schema.clone(), done);
            }
            current = Some(SchemaLock {
                schema: schema.to_owned(),
                text_hash: hash.trim().to_owned(),
                entries: BTreeMap::new(),
            });
        } else {
            let (key, value) = line.split_once(" = ").ok_or_else(|| {
                bad("an entry is `relationship <id> = ...` or `collection <name> = ...`")
            })?;
            let s = current
                .as_mut()
                .ok_or_else(|| bad("an entry before any `[schema] hash` line"))?;
            s.entries.insert(key.to_owned(), value.to_owned());
        }
    }
    if let Some(done) = current {
        lock.insert(done.schema.clone(), done);
    }
    Ok(lock)
}

/// Each difference of the stored layout from `old` to `new`, in words, in key order.
pub fn changes(old: &SchemaLock, new: &SchemaLock) -> Vec<String> {
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<&String> =
        old.entries.keys().chain(new.entries.keys()).collect();
    for k in keys {
        match (old.entries.get(k), new.entries.get(k)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), None) => out.push(format!("{k}: removed (was {a})")),
            (None, Some(b)) => out.push(format!("{k}: added ({b})")),
            (Some(a), Some(b)) if k.starts_with("collection ") => {
                let (a, b): (Vec<&str>, Vec<&str>) =
                    (a.split(", ").collect(), b.split(", ").collect());
                let added: Vec<&str> = b.iter().filter(|f| !a.contains(f)).copied().collect();
                let removed: Vec<&str> = a.iter().filter(|f| !b.contains(f)).copied().collect();
                let mut said = Vec::new();
                if !added.is_empty() {
                    said.push(format!("stores {}", added.join(", ")));
                }
                if !removed.is_empty() {
                    said.push(format!("no longer stores {}", removed.join(", ")));
                }
                if said.is_empty() {
                    said.push("a field is stored twice".to_owned());
                }
                out.push(format!("{k}: {}", said.join("; ")));
            }
            (Some(a), Some(b)) => out.push(format!("{k}: {a} -> {b}")),
            (None, None) => {}
        }
    }
    out
}
