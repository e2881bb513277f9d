//! The words of a migration: each step's name and each refused change's message and help.

use super::{Action, Unsupported};

/// The code of a change `squillion migrate` cannot make yet (documented in
/// `docs/migrations.md`).
pub const UNSUPPORTED_CODE: &str = "M0001";

/// What a step does, in a few words (the step's name after its phase).
pub(super) fn action(a: &Action) -> String {
    match a {
        Action::CreateCollection { collection, .. } => {
            format!("create collection {collection} with its validator")
        }
        Action::CreateIndex { collection, index } => {
            format!("create index {collection}.{}", index.name)
        }
        Action::RelaxValidator { collection, .. } => {
            format!("relax the validator of {collection} to old or new (moderate)")
        }
        Action::Rename {
            collection,
            from,
            to,
        } => format!("rename {collection}.{from} to {to}"),
        Action::WrapReference {
            collection,
            path,
            id_name,
            ..
        } => format!("turn {collection}.{path} into {{{id_name}: {path}}}"),
        Action::Backfill {
            source_collection,
            source_path,
            fan_out,
        } => format!(
            "copy {source_collection}.{source_path} into {}.{}",
            fan_out.collection, fan_out.set_path
        ),
        Action::SetVersion {
            collection,
            version,
        } => format!("set schema_version {version} in {collection}"),
        Action::Unset { collection, path } => format!("unset {collection}.{path}"),
        Action::DropIndex { collection, name } => format!("drop index {collection}.{name}"),
        Action::TightenValidator { collection, .. } => {
            format!("set the new validator of {collection} (strict)")
        }
    }
}

impl Unsupported {
    /// What the change is and why this version of `migrate` cannot make it.
    pub fn message(&self) -> String {
        let or_none = |s: &Option<String>| s.clone().unwrap_or_else(|| "(none)".to_owned());
        match self {
            Unsupported::Decision {
                relation,
                old,
                new,
                patterns,
            } => match (old, new) {
                (Some(o), Some(_)) if *patterns => format!(
                    "relationship {relation}: its subset, buckets, summaries or outlier changed ({o} kept)"
                ),
                (Some(_), Some(_)) => format!(
                    "relationship {relation}: layout {} -> {}",
                    or_none(old),
                    or_none(new)
                ),
                (None, _) => format!("relationship {relation} is new"),
                (_, None) => format!("relationship {relation} was removed"),
            },
            Unsupported::Collection { entity, old, new } => match (old, new) {
                (Some(o), Some(n)) => format!("collection {o} of {entity} renamed to {n}"),
                (Some(o), None) => format!("collection {o} of {entity} removed"),
                (None, _) => format!("collection {} of {entity} added by a layout", or_none(new)),
            },
            Unsupported::FieldType {
                collection,
                path,
                old,
                new,
            } => format!("field {collection}.{path}: stored as {old}, now {new}"),
            Unsupported::NowRequired { collection, path } => {
                format!("field {collection}.{path} was optional and is now required")
            }
            Unsupported::RequiredWithoutSource { collection, path } => {
                format!("field {collection}.{path} is new and required, with no value to fill it from")
            }
            Unsupported::InsideArray { collection, path } => {
                format!("field {collection}.{path} is renamed or removed inside an array")
            }
            Unsupported::IndexRedefined { collection, name } => {
                format!("index {collection}.{name}: its keys or options changed")
            }
            Unsupported::IdChanged { collection } => {
                format!("the _id of {collection} changed (a natural key added, removed or moved)")
            }
        }
    }

    /// What to do instead.
    pub fn help(&self) -> String {
        match self {
            Unsupported::Decision { .. } | Unsupported::Collection { .. } => {
                "moving data between layouts is not implemented yet (docs/migrations.md lists the steps); migrate this change by hand, or keep the old layout with `force` and migrate the rest first".to_owned()
            }
            Unsupported::FieldType { .. } => {
                "converting stored values is not implemented yet; convert them by hand ($convert in a pipeline update), or keep the old type".to_owned()
            }
            Unsupported::NowRequired { path, .. } => format!(
                "stored documents may lack `{path}`: fill it by hand, or keep it optional in this version and make it required in the next"
            ),
            Unsupported::RequiredWithoutSource { path, .. } => format!(
                "make `{path}` optional (`?`) in this version, fill it, then make it required; only copies (`show`) are filled by migrate"
            ),
            Unsupported::InsideArray { .. } => {
                "renaming inside arrays needs a pipeline update with $map, not implemented yet; do it by hand".to_owned()
            }
            Unsupported::IdChanged { .. } => {
                "changing _id means copying every document under its new _id and rewriting every reference to it, not implemented yet; keep the old key in this version".to_owned()
            }
            Unsupported::IndexRedefined { name, .. } => format!(
                "give the new index another name (the old one is dropped after the move), or drop `{name}` by hand and run `squillion indexes --apply`"
            ),
        }
    }
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "error[{UNSUPPORTED_CODE}]: cannot migrate {}\n  help: {}",
            self.message(),
            self.help()
        )
    }
}
