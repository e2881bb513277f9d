//! The words of a migration: each step's name and each refused change's message and help.

use super::{
    Action, BucketLayout, BucketLimit, Check, Children, Keep, LinkLimit, Source, Unsupported,
};

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
            source_words(source),
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
                    Children::Referenced { collection, source } => {
                        format!("in {collection}, {}", source_words(source))
                    }
                }
            )
        }
        Action::FillBuckets {
            relation,
            parent_collection,
            children,
            buckets,
        } => format!(
            "put the {relation} children ({}) into buckets of {} in {} ({})",
            match children {
                Children::Embedded { array } => format!("embedded in {parent_collection}.{array}"),
                Children::Referenced {
                    collection,
                    source: Source::ParentIds { array },
                } => format!("in {collection}, by the ids in {parent_collection}.{array}"),
                Children::Referenced { collection, source } => {
                    format!("in {collection}, {}", source_words(source))
                }
            },
            buckets.size,
            buckets.collection,
            bucket_order(buckets)
        ),
        Action::SplitBuckets {
            relation,
            buckets,
            child_collection,
            reference,
            ..
        } => format!(
            "move the {relation} children out of the buckets in {}.{} into {child_collection} (each with its parent in {})",
            buckets.collection, buckets.items, reference.path
        ),
        Action::GatherBuckets {
            relation,
            parent_collection,
            buckets,
            array,
            ..
        } => format!(
            "gather the {relation} children of the buckets in {} (by {}) into {parent_collection}.{array} (embedded, in bucket order)",
            buckets.collection,
            buckets.parent.key()
        ),
        Action::LinkPairs {
            relation,
            holder_collection,
            array,
            link_collection,
            ..
        } => format!(
            "link each {relation} pair of {holder_collection}.{array} in {link_collection} (one document per pair)"
        ),
        Action::DropCollection { collection } => format!("drop collection {collection}"),
    }
}

/// How a gather finds a parent's children (or partners).
fn source_words(source: &Source) -> String {
    match source {
        Source::ChildRef { key } => format!("by {key}"),
        Source::ParentIds { array } => format!("by the ids in {array}"),
        Source::Partners { array } => format!("by their {array} arrays"),
        Source::Links { key, .. } => format!("by the links' {key}"),
    }
}

/// The order children are put into buckets in.
fn bucket_order(b: &BucketLayout) -> String {
    match &b.order_by {
        Some(f) => format!("ordered by {f}, then _id"),
        None => "in the order they were added".to_owned(),
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
        Check::OneSided {
            relation,
            collection,
            array,
            other_collection,
            other_array,
        } => format!(
            "check that every {relation} id in {collection}.{array} names a document of {other_collection} that lists it back in {other_array}"
        ),
        Check::Unparented {
            relation,
            parent_collection,
            collection,
            key,
        } => format!(
            "check that every {relation} document of {collection} refers by {key} to a parent in {parent_collection}"
        ),
        Check::BucketBound {
            relation,
            parent_collection,
            buckets,
            bound,
        } => format!(
            "check that no parent in {parent_collection} has more than {bound} {relation} children in the buckets of {}",
            buckets.collection
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
                Source::Partners { array } => format!(
                    "relationship {relation}: the document {{id}} of {parent_collection} is in the {array} arrays of {{n}} documents of {child_collection}, over the new layout's bound of {bound}"
                ),
                Source::Links { key, .. } => format!(
                    "relationship {relation}: the document {{id}} of {parent_collection} has {{n}} links in {child_collection} (by {key}), over the new layout's bound of {bound}"
                ),
            },
            Check::OneSided {
                relation,
                collection,
                array,
                other_collection,
                other_array,
            } => format!(
                "relationship {relation}: the document {{id}} of {collection} lists {{n}} ids in {array} whose documents of {other_collection} are missing or do not list it back in {other_array}"
            ),
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
            Check::Unparented {
                relation,
                parent_collection,
                collection,
                key,
            } => format!(
                "relationship {relation}: the document {{id}} of {collection} refers by {key} to no parent in {parent_collection}, and the new layout keeps children only under their parent"
            ),
            Check::BucketBound {
                relation,
                parent_collection,
                buckets,
                bound,
            } => format!(
                "relationship {relation}: the parent {{id}} of {parent_collection} has {{n}} children in the buckets of {} (by {}), over the new layout's bound of {bound}",
                buckets.collection,
                buckets.parent.key()
            ),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> String {
        match self {
            Check::Bound { bound, .. } | Check::BucketBound { bound, .. } => format!(
                "the new layout keeps at most {bound} children in one parent's array: move or delete that parent's extra children, or raise the bound in the new schema (`many(N)`), then run migrate again; nothing was written"
            ),
            Check::Dangling { array, .. } => format!(
                "remove the dangling ids from {array} (or restore their documents), then run migrate again; nothing was written"
            ),
            Check::Shared { array, .. } => format!(
                "keep the child's id in one parent's {array} only, then run migrate again; nothing was written"
            ),
            Check::Unparented { collection, key, .. } => format!(
                "give that document of {collection} its parent's id in {key}, or delete it, then run migrate again; nothing was written"
            ),
            Check::OneSided {
                array, other_array, ..
            } => format!(
                "a two-way pair must be on both sides: add the missing id to {other_array} (or remove it from {array}, or remove the dangling id), then run migrate again; nothing was written"
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
            Unsupported::Buckets {
                relation,
                old,
                new,
                why,
            } => format!(
                "relationship {relation}: layout {old} -> {new}: {}",
                bucket_limit(why)
            ),
            Unsupported::Links {
                relation,
                old,
                new,
                why,
            } => format!(
                "relationship {relation}: layout {old} -> {new}: {}",
                match why {
                    LinkLimit::Fields => "the relationship's own fields (or copies) are stored beside each pair, and pairs with fields are not moved between layouts",
                    LinkLimit::SameEntity => "both ends are the same entity, and links between documents of one collection are not moved between layouts",
                    LinkLimit::Patterns => "an outlier cap, summaries or kept lists go with the layout, and they are not moved with it",
                }
            ),
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
            Unsupported::Buckets { why, .. } => bucket_help(why),
            Unsupported::Links { why, .. } => match why {
                LinkLimit::Fields => "move the pairs and their fields by hand, or keep the old layout with `force` for this relationship; many-to-many moves carry plain pairs of ids only".to_owned(),
                LinkLimit::SameEntity => "move the pairs by hand, or keep the old layout with `force` for this relationship".to_owned(),
                LinkLimit::Patterns => "migrate in two steps: first drop the outlier cap, summaries or lists under the old layout (OLD -> MID), then change the layout (MID -> NEW)".to_owned(),
            },
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

/// What stops a move to or from buckets.
fn bucket_limit(why: &BucketLimit) -> String {
    match why {
        BucketLimit::Rebucketed => {
            "the buckets' size, order, time range or summaries changed, and stored buckets are not cut again in place".to_owned()
        }
        BucketLimit::OtherLayout => {
            "only one-to-many moves between buckets and `child_ref` or `embed` are made".to_owned()
        }
        BucketLimit::ParentKeeps => {
            "the parent keeps summaries, a subset, a top-N list or an outlier's overflow beside the layout that moves".to_owned()
        }
        BucketLimit::ChildIds { bson_type } => format!(
            "the children's _id is a {bson_type}, and the buckets' ids are taken from the children's ObjectIds"
        ),
        BucketLimit::Field { path } => {
            format!("the bucket field {path} is not one migrate computes (a count, summary or time range)")
        }
        BucketLimit::CopiedReference { path } => {
            format!("the children's new reference {path} copies fields of the parent")
        }
        BucketLimit::ChildCollectionStays { collection } => {
            format!("the children keep their collection {collection} beside the buckets")
        }
    }
}

/// What to do instead of a refused move to or from buckets.
fn bucket_help(why: &BucketLimit) -> String {
    match why {
        BucketLimit::Rebucketed => {
            "migrate in two steps through plain documents: first to a schema with `force child_ref` on this relationship (OLD -> MID), then to the new buckets (MID -> NEW)".to_owned()
        }
        BucketLimit::OtherLayout => {
            "migrate in two steps: first to `force child_ref` on this relationship, then to the new layout".to_owned()
        }
        BucketLimit::ParentKeeps => {
            "migrate the layout and what the parent keeps in separate versions: remove the parent's summaries and lists first (or add them after the move), then run migrate for each step".to_owned()
        }
        BucketLimit::ChildIds { .. } => {
            "keep ObjectId `_id`s on the children in this version (drop the natural key), or move the children into buckets by hand".to_owned()
        }
        BucketLimit::Field { .. } => "fill the buckets by hand, or drop that field from the new schema for this version".to_owned(),
        BucketLimit::CopiedReference { .. } => {
            "move the children out with a plain reference in this version, then add the copies (`show`) in the next: migrate backfills them".to_owned()
        }
        BucketLimit::ChildCollectionStays { .. } => {
            "migrate this change by hand, or keep the old layout with `force`".to_owned()
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

/// Why a step of this kind is there and why it is safe to run again, in a sentence (the doc
/// comment of its function in the generated module).
pub(super) fn why(a: &Action) -> &'static str {
    match a {
        Action::Check { .. } => "Reads only: the stored data must fit the new layout before anything is written, so a migration the data does not fit stops here with nothing changed.",
        Action::CreateCollection { .. } => "The new layout stores documents here; created before any data moves, while the old code still runs (nothing if it exists).",
        Action::CreateIndex { .. } => "The new code's queries need it; created before the switch so that they never scan (the server does nothing if it exists).",
        Action::RelaxValidator { .. } => "Documents of both versions are stored while the data moves: the validator accepts either (the new shape also before its copies and computed values are filled), and does not check old documents on update.",
        Action::Rename { .. } => "The new schema stores the field under another name; only documents still holding the old name are updated, and a value already under the new name (written by the new code) is kept.",
        Action::WrapReference { .. } => "A copy was added beside the reference, which becomes an object holding the id; only references still plain are wrapped.",
        Action::Backfill { .. } => "The new layout keeps a copy of the source's value; each source is read in `_id` order and its value set where it is copied (only where the copy is still absent: a copy the new code wrote is newer, and a replay changes nothing); then each source is read again, and copies still holding a value that changed during the walk get the current one.",
        Action::SetVersion { .. } => "The stored shape changed: documents below the new version (or without one) are marked with it, so that the new code knows what it reads.",
        Action::Unset { .. } => "Only the old code read this field; removed once the data has moved.",
        Action::DropIndex { .. } => "Only the old code's queries used it; dropped after the switch (nothing if it is gone).",
        Action::TightenValidator { .. } => "Every document now has the new shape: the new validator checks every insert and update.",
        Action::SplitOut { .. } => "The children get their own collection: in each batch of parents, the children without an `_id` first get a fixed one (made here, the server has no generator; written into the parent before any child is, so a resumed run splits out the same children), then the batch is unwound and merged on `_id`, keeping children already there.",
        Action::KeepIds { .. } => "The parent keeps only its children's ids now that they have their own documents; only arrays still holding children are rewritten.",
        Action::Gather { .. } | Action::GatherBuckets { .. } => "The parent holds its children in its own document now: each batch of parents reads its children and merges the array in, parents already gathered left alone.",
        Action::ReferToParent { .. } => "Each child refers to its parent now: the parent's array of ids tells which, merged into the children that lack the reference.",
        Action::Summarise { .. } => "The parent keeps values computed from its children (summaries, subsets, top-N lists), as the new code keeps them on write.",
        Action::FillBuckets { .. } => "The children move into bucket documents: each parent's children cut into buckets of the new size under fixed ids (embedded children lacking an `_id` given one in their batch first), so a replay writes nothing twice.",
        Action::SplitBuckets { .. } => "The children leave their buckets for documents of their own: in each batch of buckets, the items without an `_id` first get a fixed one (written into the bucket before any child is), then they are merged on `_id` keeping those already there.",
        Action::LinkPairs { .. } => "Each pair gets a link document, merged on the pair's unique index keeping links already there.",
        Action::DropCollection { .. } => "The new layout no longer stores documents here: dropped once its data has moved.",
    }
}
