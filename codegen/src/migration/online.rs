//! The online mode of a migration (`squillion generate NEW --from OLD`): what the new code needs
//! to read documents the background migration has not moved yet, per collection, or why it
//! cannot. Only changes made in place (same collection, same document) are read online: stored
//! fields renamed, plain references wrapped into extended ones, copies added (filled from their
//! sources on read), fields added (optional, or copies) and removed. A layout move (children
//! moved between documents or collections), a kept list or summary computed from children, and a
//! renamed subdocument are refused: the new code would read those documents wrongly, or a write
//! through it would be undone by the move.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::plan::Plan;

use super::{Action, Unsupported};

/// The code of a change the online mode cannot read (documented in `docs/migrations.md`).
pub const ONLINE_CODE: &str = "M0005";

/// How the new code of one collection reads documents of the old version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CollectionUpgrade {
    /// The old version (0: the old documents have no `schema_version`).
    pub from: u32,
    /// Stored fields renamed, `(old path, new path)`, in the migration's order.
    pub renames: Vec<(String, String)>,
    /// Plain references wrapped into extended ones, `(path, id name)`.
    pub wraps: Vec<(String, String)>,
}

/// What the new code reads online, by (new) collection name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Online {
    /// The collections whose documents change version.
    pub collections: BTreeMap<String, CollectionUpgrade>,
}

/// A change the online mode cannot read.
#[derive(Debug, Clone, PartialEq)]
pub enum OnlineRefusal {
    /// `migrate` itself cannot make the change.
    Migration(Unsupported),
    /// A step moving data between documents or collections (or computing it from children).
    Move {
        /// The step's name.
        step: String,
    },
    /// A summary or kept list computed from the children.
    Computed {
        /// The step's name.
        step: String,
    },
    /// A subdocument renamed: a write of one of its fields through the new code before the move
    /// would hide the others.
    RenamedSubdocument {
        /// The collection.
        collection: String,
        /// The old path.
        from: String,
        /// The new path.
        to: String,
    },
    /// The stored shape changed and `schema_version` was not raised.
    VersionNotRaised {
        /// The collection.
        collection: String,
        /// The old version.
        old: Option<u32>,
    },
}

impl OnlineRefusal {
    /// What cannot be read online.
    pub fn message(&self) -> String {
        match self {
            OnlineRefusal::Migration(u) => format!("cannot migrate {}", u.message()),
            OnlineRefusal::Move { step } => format!(
                "the online mode cannot read documents the step `{step}` has not moved yet: it moves data between documents or collections"
            ),
            OnlineRefusal::Computed { step } => format!(
                "the online mode cannot read documents the step `{step}` has not reached yet: it computes what they keep from their children, which the new code would read as absent and keep from the wrong start"
            ),
            OnlineRefusal::RenamedSubdocument {
                collection,
                from,
                to,
            } => format!(
                "the online mode cannot rename the subdocument {collection}.{from} to {to}: a write of one of its fields through the new code before the move would hide the others"
            ),
            OnlineRefusal::VersionNotRaised { collection, old } => format!(
                "the stored shape of {collection} changes but its `schema_version` stays {}: the new code cannot tell old documents from new ones",
                old.map_or_else(|| "absent".to_owned(), |v| v.to_string())
            ),
        }
    }

    /// What to do instead.
    pub fn help(&self) -> String {
        match self {
            OnlineRefusal::Migration(u) => u.help(),
            OnlineRefusal::VersionNotRaised { old, .. } => format!(
                "raise it: `@schema_version({})` on the entity",
                old.unwrap_or(0) + 1
            ),
            _ => "stop the writers, run `squillion migrate`, then deploy code generated without `--from`".to_owned(),
        }
    }
}

impl std::fmt::Display for OnlineRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "error[{ONLINE_CODE}]: {}\n  help: {}",
            self.message(),
            self.help()
        )
    }
}

/// What the code generated from `new` needs to read the documents of `old` while the migration
/// from `old` to `new` runs, or every change it cannot read.
pub fn online(old: &Plan, new: &Plan) -> Result<Online, Vec<OnlineRefusal>> {
    let diff = crate::diff::diff(old, new);
    let migration = super::plan(old, new, &diff).map_err(|refused| {
        refused
            .into_iter()
            .map(OnlineRefusal::Migration)
            .collect::<Vec<_>>()
    })?;
    let mut refused = Vec::new();
    let mut out = Online::default();
    for v in &diff.versions {
        match v.new {
            Some(n) if !v.must_bump && v.old.is_none_or(|o| o < n) => {
                out.collections.insert(
                    v.new_collection.clone(),
                    CollectionUpgrade {
                        from: v.old.unwrap_or(0),
                        ..CollectionUpgrade::default()
                    },
                );
            }
            _ if v.shape_changed => refused.push(OnlineRefusal::VersionNotRaised {
                collection: v.new_collection.clone(),
                old: v.old,
            }),
            _ => {}
        }
    }
    for step in &migration.steps {
        match &step.action {
            Action::CreateCollection { .. }
            | Action::CreateIndex { .. }
            | Action::RelaxValidator { .. }
            | Action::TightenValidator { .. }
            | Action::DropIndex { .. }
            | Action::Unset { .. }
            | Action::SetVersion { .. }
            | Action::Backfill { .. } => {}
            Action::Rename {
                collection,
                from,
                to,
            } => {
                let subdocument = new
                    .collection(collection)
                    .and_then(|c| c.field_at(to))
                    .is_some_and(|f| !f.children.is_empty());
                if subdocument {
                    refused.push(OnlineRefusal::RenamedSubdocument {
                        collection: collection.clone(),
                        from: from.clone(),
                        to: to.clone(),
                    });
                } else if let Some(c) = out.collections.get_mut(collection) {
                    c.renames.push((from.clone(), to.clone()));
                }
            }
            Action::WrapReference {
                collection,
                path,
                id_name,
                ..
            } => {
                if let Some(c) = out.collections.get_mut(collection) {
                    c.wraps.push((path.clone(), id_name.clone()));
                }
            }
            Action::Summarise { .. } => {
                refused.push(OnlineRefusal::Computed { step: step.name() });
            }
            _ => refused.push(OnlineRefusal::Move { step: step.name() }),
        }
    }
    if refused.is_empty() {
        Ok(out)
    } else {
        Err(refused)
    }
}
