//! The words of a migration: each step's name and each refused change's message and help.

use super::{Action, Check, Children, Keep, Source, Unsupported};

/// The code of a change `squillion migrate` cannot make yet (documented in
/// `docs/migrations.md`).
pub const UNSUPPORTED_CODE: &str = "M0001";

/// The code of stored data that does not fit the new layout (a parent over the new bound, a
/// dangling id, a child in two parents' arrays or in none): found by a check before anything is
/// written (documented in `docs/migrations.md`).
pub const DATA_CODE: &str = "M0002";

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
        Action::Check { check } => check_name(check),
        Action::AssignIds { collection, array } => {
            format!("give each element of {collection}.{array} an _id")
        }
        Action::SplitOut {
            relation,
            parent_collection,
            array,
            child_collection,
            reference,
            ..
        } => format!(
            "move the {relation} children in {parent_collection}.{array} out into {child_collection}{}",
            reference
                .as_ref()
                .map(|r| format!(" (each with its parent in {})", r.path))
                .unwrap_or_default()
        ),
        Action::KeepIds {
            collection,
            from,
            to,
        } => {
            if from == to {
                format!("keep only the children's ids in {collection}.{to}")
            } else {
                format!("keep the children's ids of {collection}.{from} in {to}")
            }
        }
        Action::Gather {
            relation,
            parent_collection,
            child_collection,
            source,
            array,
            keep,
            ..
        } => format!(
            "gather the {relation} children of {child_collection} ({}) into {parent_collection}.{array} ({})",
            match source {
                Source::ChildRef { key } => format!("by {key}"),
                Source::ParentIds { array } => format!("by the ids in {array}"),
            },
            match keep {
                Keep::Embedded { .. } => "embedded",
                Keep::Ids => "their ids",
            }
        ),
        Action::ReferToParent {
            relation,
            parent_collection,
            array,
            child_collection,
            reference,
        } => format!(
            "give each {relation} child in {child_collection} its parent in {} (from {parent_collection}.{array})",
            reference.path
        ),
        Action::Summarise {
            relation,
            parent_collection,
            children,
            summaries,
            lists,
            ..
        } => {
            let paths: Vec<&str> = summaries
                .iter()
                .map(|s| s.path.as_str())
                .chain(lists.iter().map(|l| l.path.as_str()))
                .collect();
            format!(
                "compute {} of {parent_collection} from its {relation} children ({})",
                paths.join(", "),
                match children {
                    Children::Embedded { array } => format!("embedded in {array}"),
                    Children::Referenced {
                        collection,
                        source: Source::ChildRef { key },
                    } => format!("in {collection}, by {key}"),
                    Children::Referenced {
                        collection,
                        source: Source::ParentIds { array },
                    } => format!("in {collection}, by the ids in {array}"),
                }
            )
        }
        Action::DropCollection { collection } => format!("drop collection {collection}"),
    }
}

/// A check's step name.
fn check_name(c: &Check) -> String {
    match c {
        Check::Bound {
            relation,
            parent_collection,
            child_collection,
            bound,
            ..
        } => format!(
            "check that no parent in {parent_collection} has more than {bound} {relation} children in {child_collection}"
        ),
        Check::Dangling {
            relation,
            parent_collection,
            array,
            child_collection,
        } => format!(
            "check that every id in {parent_collection}.{array} names a {relation} child in {child_collection}"
        ),
        Check::Shared {
            relation,
            parent_collection,
            array,
            child_collection,
        } => format!(
            "check that no {relation} child of {child_collection} is in two {parent_collection}.{array} arrays"
        ),
        Check::Orphan {
            relation,
            parent_collection,
            array,
            child_collection,
        } => format!(
            "check that every {relation} child of {child_collection} is in a {parent_collection}.{array} array"
        ),
    }
}

impl Check {
    /// What the first offender does wrong, with `{id}` for its `_id` and `{n}` for its count
    /// (the CLI and the mongosh script put them in).
    pub fn failure(&self) -> String {
        match self {
            Check::Bound {
                relation,
                parent_collection,
                child_collection,
                source,
                bound,
            } => match source {
                Source::ChildRef { key } => format!(
                    "relationship {relation}: the parent {{id}} of {parent_collection} has {{n}} children in {child_collection} (by {key}), over the new layout's bound of {bound}"
                ),
                Source::ParentIds { array } => format!(
                    "relationship {relation}: the parent {{id}} of {parent_collection} holds {{n}} children's ids in {array}, over the new layout's bound of {bound}"
                ),
            },
            Check::Dangling {
                relation,
                parent_collection,
                array,
                child_collection,
            } => format!(
                "relationship {relation}: {{n}} of the ids in {array} of the parent {{id}} of {parent_collection} name no document of {child_collection}"
            ),
            Check::Shared {
                relation,
                parent_collection,
                array,
                child_collection,
            } => format!(
                "relationship {relation}: the child {{id}} of {child_collection} is in the {array} arrays of {{n}} parents in {parent_collection}; the new layout gives each child one parent"
            ),
            Check::Orphan {
                relation,
                parent_collection,
                array,
                child_collection,
            } => format!(
                "relationship {relation}: the child {{id}} of {child_collection} is in no {array} array of {parent_collection}, and the new layout requires its parent"
            ),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> String {
        match self {
            Check::Bound { bound, .. } => format!(
                "the new layout keeps at most {bound} children in one parent's array: move or delete that parent's extra children, or raise the bound in the new schema (`many(N)`), then run migrate again; nothing was written"
            ),
            Check::Dangling { array, .. } => format!(
                "remove the dangling ids from {array} (or restore their documents), then run migrate again; nothing was written"
            ),
            Check::Shared { array, .. } => format!(
                "keep the child's id in one parent's {array} only, then run migrate again; nothing was written"
            ),
            Check::Orphan { array, .. } => format!(
                "put the child's id in a parent's {array} or delete the child, or make the reference optional (`one?`) in the new schema, then run migrate again; nothing was written"
            ),
        }
    }

    /// The error for the first offender (its `_id` and count as text).
    pub fn error(&self, id: &str, n: &str) -> String {
        format!(
            "error[{DATA_CODE}]: {}\n  help: {}",
            self.failure().replace("{id}", id).replace("{n}", n),
            self.help()
        )
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
            Unsupported::ListWithoutIds {
                relation,
                collection,
                path,
            } => format!(
                "relationship {relation}: the top-N list {collection}.{path} is new, and its copies need the _id of children that are embedded without one"
            ),
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
            Unsupported::ListWithoutIds { path, .. } => format!(
                "under `embed` the new code fills `{path}` only from what the application offers (`offer_{path}`), never from the children: fill it by hand, or keep the children in their own collection (`force child_ref`) so that migrate computes it from them"
            ),
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
