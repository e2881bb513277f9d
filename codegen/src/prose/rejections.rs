//! Why the losers lost, in words: a rejected alternative (`Against`), a declined copy
//! (`Declined`) and a rule a forced layout breaks (`Broken`), from the data the engine records.
//! Part of a decision's prose (`super::decision`).

use crate::engine::basis::{Against, Alone, Broken, Declined, Oversized};

use super::decision::{chain, growth, ids, list, parents, ratio, reason};
use super::{a, n_of, plural, thousands, up_to};

/// One estimated cost as a share of another, `percent` of it, before the other's name:
/// `45% of`, `under 1% of`, and as a multiple from ten times up (`519x`).
pub(crate) fn share(percent: u64) -> String {
    match percent {
        0 => "under 1% of".to_owned(),
        p if p >= 1000 => format!("{}x", (p as f64 / 100.0).round() as u64),
        p => format!("{p}% of"),
    }
}

/// Why an alternative lost.
pub(crate) fn against(x: &Against) -> String {
    match x {
        Against::Overridden { forced, reason: r } => format!(
            "the engine's choice, overridden by `force {}`: {}",
            forced.as_str(),
            reason(r)
        ),
        Against::Costlier { chosen, percent } => format!(
            "the rules accept it, but under the declared workload it is estimated at {} {}'s cost",
            share(*percent),
            chosen.as_str()
        ),
        Against::LoadsLargeSide { owner, other, bytes } => format!(
            "embedding would load {} of seldom-read {other} data into every read of {}",
            super::bytes(*bytes),
            a(owner)
        ),
        Against::ReadAlone { entity, why } => match why {
            Alone::NoParent { end, parent, homed: true } => format!(
                "{} may have no {parent} (`{end}` is `one?`): embedded in {}, one without it would have nowhere to be",
                a(entity),
                a(parent)
            ),
            Alone::NoParent { end, parent, homed: false } => format!(
                "{} keep documents of their own: {} may have no {parent} (`{end}` is `one?`), and one without it would have nowhere to be",
                plural(entity),
                a(entity)
            ),
            Alone::Referenced { relation, .. } => format!(
                "{entity} is a document of its own: {relation} refers to each {entity} by its id (rule 2)"
            ),
            Alone::Shared { parents: p } => format!(
                "each {entity} belongs to {}: embedded in both, it would be stored twice (rule 2)",
                parents(p)
            ),
            Alone::Expires { field, .. } => format!(
                "{entity}'s documents expire on their own (`{field}` is @expires) (rule 2)"
            ),
            Alone::Declared | Alone::Query(_) | Alone::Pattern => {
                format!("{entity} is read on its own (rule 2)")
            }
        },
        Against::SecondRead { owner, other } => format!(
            "a separate {other} collection costs a second read for every {owner} and buys nothing: {other} is never read on its own"
        ),
        Against::TooManyToEmbed { parent, child, max, limit } => {
            let bound = match max {
                Some(_) => format!(
                    "{} per {parent} is more than the {} an embedded array should hold (rule 3)",
                    up_to(*max, child),
                    thousands(*limit)
                ),
                None => format!(
                    "{} per {parent} would make an embedded array without bound (rule 3)",
                    up_to(*max, child)
                ),
            };
            bound
        }
        Against::CannotPage { child } => format!(
            "an embedded array cannot be read a page at a time without reading every {child}"
        ),
        Against::DocumentPerChild { child, size } => format!(
            "one document per {child} costs an index entry and a read per {child}; a bucket returns {} in one read",
            thousands(*size)
        ),
        Against::NoDocumentsToReference { child } => format!(
            "{} are never read on their own, so they need no documents of their own to reference",
            plural(child)
        ),
        Against::RareParentHolds { parent, child, max } => format!(
            "embedding every {child} lets the rare {parent} hold {} (rule 3)",
            up_to(*max, child)
        ),
        Against::UsualFewInline { parent, child, typical } => format!(
            "a separate read for the {} of the usual {parent} buys nothing",
            n_of(*typical, child)
        ),
        Against::ReferencesBuyNothing { child } => format!(
            "{} are never read on their own: references would cost a second query and buy nothing",
            plural(child)
        ),
        Against::ChildCollection { parent, child } => format!(
            "{} collection would need an index on the {parent} id and a second read",
            a(child)
        ),
        Against::ParentGrows { parent, child, growth: g } => format!(
            "{} {}: the {parent} document would grow with every new {child} (rule 3; seed 000: continually growing documents)",
            plural(child),
            growth(*g)
        ),
        Against::IdArrayGrows { parent, child } => format!(
            "an id array in the {parent} would grow with every new {child} (rule 3; seed 000: continually growing documents)"
        ),
        Against::KeepsExpiredIds { parent, child } => format!(
            "an id array in the {parent} would keep the ids of expired {}: references to nothing that fill its bound",
            plural(child)
        ),
        Against::TooManyIds { max, limit } => format!(
            "an array of {} exceeds the {} an id array should hold (rule 3)",
            ids(*max),
            thousands(*limit)
        ),
        Against::ParentSideTooMany { parent, max, limit } => format!(
            "the {parent} side would need an array of {}, beyond the {} an id array should hold (rule 3)",
            ids(*max),
            thousands(*limit)
        ),
        Against::NoAtomicMoveTwoWay { parent, child } => format!(
            "with references on both sides, moving {} to another {parent} updates three documents: no single atomic update can do it (seed 004)",
            a(child)
        ),
        Against::NoAtomicMoveArray { parent, child } => format!(
            "moving {} would update the arrays of two {}: not one atomic update",
            a(child),
            plural(parent)
        ),
        Against::QueryThroughArray { parent, child, query } => format!(
            "query `{query}` reads {} through the relationship: an id array in the {parent} cannot answer it without first reading the {parent}",
            plural(child)
        ),
        Against::ParentNotRead { parent, child } => format!(
            "nothing reads from the {parent} side: an id array of {} in the {parent} would only cost writes",
            plural(child)
        ),
        Against::ParentNeedsMultikey { parent, child } => format!(
            "finding {}'s {parent} through an id array in the {parent} needs a multikey index on that array, where the {child}'s own reference is one read",
            a(child)
        ),
        Against::ArrayBesideFanOut { parent, child } => format!(
            "each {child} stores its {parent}'s id for the copies it shows, indexed for their updates: an id array in the {parent} would repeat what that index already lists"
        ),
        Against::ArrayCannotKeep { parent, child, kept } => format!(
            "an id array in the {parent} names its {}, but no {child} names its {parent}: the {} the {parent} keeps could not be kept in step by the {}' own writes",
            plural(child),
            list(kept),
            plural(child)
        ),
        Against::ListNeedsIndex { parent, child } => format!(
            "listing the {} of {} would need a query on an index instead of reading its array",
            plural(child),
            a(&super::decision::role(parent, child))
        ),
        Against::ArrayServesParent { parent, child, max } => format!(
            "with {} per {parent}, an id array in the {parent} serves its reads without an index on {child}",
            up_to(*max, child)
        ),
        Against::LinkForBoundedList { holder, other } => format!(
            "a document per pair costs a second collection and a join for every read of {}'s {}{}, which one bounded array serves",
            a(holder),
            if holder == other { "linked " } else { "" },
            plural(other)
        ),
        Against::FieldsTwice { fields } => format!(
            "arrays on both sides would copy {} twice and keep them in step on every change",
            list(fields)
        ),
        Against::IdsHoldNoFields => "id arrays cannot hold the relationship's own fields without copying them on both sides".to_owned(),
        Against::OneSideOnly => "an array on one side serves only that side's reads; the other side would need a multikey index for every read".to_owned(),
        Against::RareEndTooMany { end, max } => format!(
            "the rare {end} would hold {} (rule 3)",
            ids(*max)
        ),
        Against::LinkForUsual { end, other, typical } => format!(
            "a link document per pair costs a join for the usual {end} of {}",
            n_of(*typical, other)
        ),
        Against::OtherWayQueried { holder, other, query } => format!(
            "query `{query}` already finds the {} of {} through the {holder}'s array: a second array in {} would only cost writes and could drift out of step",
            plural(holder),
            a(other),
            plural(other)
        ),
        Against::OtherDirectionUnread => "the other direction is not read: a second id array would only cost writes".to_owned(),
        Against::NeedsMultikey => "reading the other direction would need a multikey index on the id array".to_owned(),
        Against::JoinTableForSmall => "a link document per pair is the relational join table: a third collection and a join for bounded, small lists".to_owned(),
        Against::LargeSideTooMany { entity, max, limit } => format!(
            "{} would hold {}, beyond the {} an id array should hold (rule 3)",
            a(entity),
            ids(*max),
            thousands(*limit)
        ),
        Against::UnbalancedSecondArray { entity, max, holder } => format!(
            "{} would hold {} of {}, rewritten on every change and read with the {entity} each time, where a query on the {holder} side's array finds the same {}",
            a(entity),
            ids(*max),
            plural(holder),
            plural(holder)
        ),
        Against::SmallSideServesBoth { holder } => format!(
            "the {holder} side's bounded array serves both directions without a join table"
        ),
        Against::BothArraysTooLarge => "both id arrays would be beyond what an id array should hold (rule 3)".to_owned(),
        Against::EitherArrayTooLarge => "either side's id array would be beyond what an id array should hold (rule 3)".to_owned(),
        Against::EmbedCycle { names, reason: r } => format!(
            "{}: embedded both ways, no {} would be stored anywhere ({})",
            chain(names),
            match names.as_slice() {
                [one] => one.clone(),
                _ => names.join(" or "),
            },
            reason(r)
        ),
        Against::Copy { sources, why } => format!("copying {sources}: {}", declined(sources, why)),
        Against::TooLarge { document } => format!(
            "{} (document size: never eligible, whatever the workload)",
            oversized(document)
        ),
    }
}

/// What would outgrow MongoDB's document limit: `a bucket of Readings could reach 18 MB in the
/// worst case, over MongoDB's 16 MB limit`.
pub(crate) fn oversized(d: &Oversized) -> String {
    let what = if d.bucket {
        format!("a bucket of {}", plural(&d.entity))
    } else {
        format!("{} document", a(&d.entity))
    };
    format!(
        "{what} could reach {} in the worst case, over the {} a document may hold (`doc_max_size`{})",
        super::bytes(d.worst),
        super::bytes(d.limit),
        if d.limit == 16 * 1024 * 1024 {
            ": MongoDB's limit"
        } else {
            ""
        }
    )
}

/// Why a copy of `sources` was declined.
pub(crate) fn declined(sources: &str, d: &Declined) -> String {
    match d {
        Declined::UpdatedOften { ratio: r } => format!(
            "{sources} is updated at least as often as it is read (ratio {}): copies would cost more writes than the reads they save (rule 5)",
            ratio(*r)
        ),
        Declined::BelowThreshold { ratio: r, threshold } => format!(
            "{sources} is read {} times per update, below the threshold of {} (rule 5): an application-level join is cheaper (rule 4)",
            ratio(*r),
            ratio(*threshold)
        ),
        Declined::NoRatio => format!(
            "no read/write ratio is given for {sources}: state `ratio` to let rule 5 decide; until then the application joins (rule 4)"
        ),
        Declined::NoReference {
            on,
            from,
            layout,
            needed,
        } => format!(
            "{} holds no reference to {from} in the {} layout: giving it one would take {} that the layout chose not to keep",
            a(on),
            layout.as_str(),
            match needed {
                Some(1) => "a reference".to_owned(),
                n => format!("an array of {}", ids(*n)),
            }
        ),
        Declined::Unknown { what } => format!("{what} is not in the schema"),
    }
}

/// A rule a forced layout breaks.
pub(crate) fn broken(b: &Broken) -> String {
    match b {
        Broken::EmbedsReadAlone { child } => {
            format!("{child} is read on its own but is embedded")
        }
        Broken::EmbedsTooMany {
            parent,
            child,
            max,
            limit,
        } => format!(
            "{} per {parent} would be embedded (more than {})",
            up_to(*max, child),
            thousands(*limit)
        ),
        Broken::CopiesIntoEvery { parent, child } => {
            format!("each {child} would be copied into every {parent} that has it")
        }
        Broken::TooManyIds { holder, max, limit } => format!(
            "{} would hold {} (more than {})",
            a(holder),
            ids(*max),
            thousands(*limit)
        ),
        Broken::NoAtomicMove { child } => format!(
            "{} must move atomically, which two-way references cannot do in one update",
            a(child)
        ),
        Broken::BothTooLarge => "both sides are too large for an id array".to_owned(),
        Broken::BucketsReadAlone { child } => {
            format!("{child} is read on its own but is stored inside buckets")
        }
        Broken::NoSingleParent => {
            "a many-to-many child has no single parent to reference".to_owned()
        }
        Broken::FewNotEmbedded { child } => format!(
            "{} are few and never read on their own: embedding them is favoured",
            plural(child)
        ),
        Broken::NoPages => {
            "children are read a page at a time; this layout cannot return one page per read"
                .to_owned()
        }
    }
}

/// Why a document still exceeds the limit (warning W104), and what to do, from `fit::Cause`.
pub(crate) fn oversize_cause(cause: &crate::engine::fit::Cause) -> (String, String) {
    use crate::engine::fit::Cause;
    let ids = |v: &[String]| {
        v.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match cause {
        Cause::Forced(forced) => (
            format!(
                "the schema forces {}",
                forced
                    .iter()
                    .map(|(id, layout)| format!("`{id}` to {}", layout.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "drop the `force` (the engine never chooses a layout that outgrows the limit) or bound the arrays it fills".to_owned(),
        ),
        Cause::NoLayoutFits(ids_) => (
            format!("no layout of {} keeps it under the limit", ids(ids_)),
            "bound the largest arrays or move them out of the document".to_owned(),
        ),
        Cause::OwnFields => (
            "its own fields reach that, whatever the relationships' layouts".to_owned(),
            "bound the largest arrays or move them out of the document".to_owned(),
        ),
    }
}
