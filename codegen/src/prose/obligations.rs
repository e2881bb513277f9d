//! The writes a layout obliges the application to make, in words, with the names of the final
//! placement (`Obligation`). Part of a decision's prose (`super::decision`).

use crate::engine::basis::Obligation;
use crate::plan::{Decision, Shape};

use super::decision::ratio;
use super::{a, n_of, plural, thousands};

/// Where a decision stores a shape, with its final collection and path: `notes.user`.
fn stored(d: &Decision, shapes: &[Shape]) -> Option<String> {
    d.placement
        .iter()
        .find(|p| shapes.contains(&p.shape))
        .map(|p| {
            let id = if matches!(p.shape, Shape::ExtendedRef | Shape::ArrayOfExtendedRefs) {
                ".id"
            } else {
                ""
            };
            format!("{}.{}{id}", p.collection, p.path)
        })
}

/// An obligation, with the names of the final placement.
pub(crate) fn obligation(o: &Obligation, d: &Decision) -> String {
    match o {
        Obligation::ListByIndex { parent, child, field } => {
            // A relation of an entity with itself names the children by the parent's end:
            // "an Employee's `reports`", not "an Employee's Employees".
            let children = if parent == child {
                format!("`{field}`")
            } else {
                plural(child)
            };
            match stored(d, &[Shape::Id, Shape::ExtendedRef]) {
                Some(at) => format!(
                    "listing {}'s {children} is one query on the index of {at}",
                    a(parent)
                ),
                None => format!(
                    "listing {}'s {children} is one query on the index of their reference",
                    a(parent)
                ),
            }
        }
        Obligation::AddToArray { parent, child, cap } => {
            let placed = d
                .placement
                .iter()
                .find(|p| matches!(p.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs));
            let (at, field) = match placed {
                Some(p) => (
                    format!("{}.{}", p.collection, p.path),
                    p.path.rsplit('.').next().unwrap_or(&p.path).to_owned(),
                ),
                None => ("its array".to_owned(), "list".to_owned()),
            };
            format!(
                "adding {} to {}'s `{field}` is `$addToSet` on {at} guarded by its bound ({}); loading them is one `$in` query with a projection",
                a(child),
                a(parent),
                cap.map(thousands).unwrap_or_else(|| "none".to_owned())
            )
        }
        Obligation::LinkBoth { parent, child } => format!(
            "linking or unlinking {} and {} updates both documents: one transaction keeps them in agreement",
            a(parent),
            a(child)
        ),
        Obligation::Overflow { parent, child, cap, overflow } => format!(
            "adding {} to a full {parent} ({} already) sets the flag and appends to `{overflow}`; reads of flagged {} also read their overflow",
            a(child),
            n_of(*cap, child),
            plural(parent)
        ),
        Obligation::BucketAppend { child, collection, key, size } => format!(
            "appending {} is one upsert on `{collection}` filtered on {{{key}, count < {size}}} with $push and $inc (a new bucket is created when the last is full)",
            a(child)
        ),
        Obligation::LinkInsert { collection } => format!(
            "linking is one insert into `{collection}` (idempotent under the unique index on the pair); listing either side's partners is one indexed query, then one `$in` query"
        ),
        Obligation::LatestEmbedded {
            n,
            child,
            cap: None,
        } => format!(
            "the latest {} are already embedded with the rest: no subset copy needed",
            n_of(*n, child)
        ),
        Obligation::LatestEmbedded {
            n,
            child,
            cap: Some(cap),
        } => format!(
            "the latest {} are embedded with the rest while {} holds fewer than {}; beyond that the newest are in the overflow, which reading the {} with its overflow merges (no subset copy is kept)",
            n_of(*n, child),
            a(&d.parent),
            thousands(*cap),
            d.parent
        ),
        Obligation::SubsetPush { child, path, by, n } => format!(
            "adding {} also pushes a copy into the {}'s `{path}` with $each, $sort by {by} and $slice -{n} (the oldest fall out)",
            a(child),
            d.parent
        ),
        Obligation::TopPush { child, path, by, n, same_write } => format!(
            "recording {} also updates the {}'s `{path}`: $push with $each, $sort by {by} and $slice {n}, {}",
            a(child),
            d.parent,
            if *same_write {
                "in the same write"
            } else {
                "in a second write, in one transaction with the child's"
            }
        ),
        Obligation::SummaryUpdate {
            child,
            path,
            same_write,
        } if d.strategy == crate::model::Layout::Bucket => format!(
            "appending {} raises the {}'s `{path}` in a second write, in one transaction with the bucket's upsert",
            a(child),
            d.parent,
        ),
        // A many-to-many's summary: the count of an array of ids is recomputed after each change
        // of it (`add_`, `remove_`); the others are not kept (warning W129).
        Obligation::SummaryUpdate { child, path, .. }
            if matches!(
                d.strategy,
                crate::model::Layout::OneWay
                    | crate::model::Layout::TwoWay
                    | crate::model::Layout::LinkCollection
            ) && d.kind == crate::model::RelationKind::ManyToMany =>
        {
            let ids = matches!(d.strategy, crate::model::Layout::OneWay)
                && path.ends_with("_count")
                && d.placement
                    .iter()
                    .any(|p| p.shape == crate::plan::Shape::ArrayOfIds);
            if ids {
                format!(
                    "adding or removing {} recomputes the {}'s `{path}` from its array, in a guarded write after the array's",
                    a(child),
                    d.parent
                )
            } else {
                format!(
                    "the {}'s `{path}` is not kept by the generated repository (warning W129)",
                    d.parent
                )
            }
        }
        Obligation::SummaryUpdate {
            child,
            path,
            same_write,
        } => format!(
            "adding or removing {} updates the {}'s `{path}` {}",
            a(child),
            d.parent,
            if *same_write {
                "in the same write"
            } else {
                "in a second write, in one transaction with the child's"
            }
        ),
        Obligation::FanOut(i) => match d.denormalized.get(*i) {
            Some(x) => match x.reads_per_update {
                _ if x.immutable => format!(
                    "{} is immutable: its copies in `{}` never need updating",
                    x.source, x.collection
                ),
                r => format!(
                    "updating {} fans out to every copy: updateMany on `{}` where {} is the {}'s id, setting {}{}",
                    x.source,
                    x.fan_out.collection,
                    x.fan_out.match_path,
                    x.source.split('.').next().unwrap_or(&x.source),
                    x.fan_out.set_path,
                    match r {
                        Some(1.0) => " (about 1 update per read)".to_owned(),
                        Some(r) => format!(" (about 1 update per {} reads)", ratio(r)),
                        None => String::new(),
                    }
                ),
            },
            None => String::new(),
        },
    }
}
