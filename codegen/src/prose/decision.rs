//! The engine's decisions in words: every sentence of a relationship's decision (its reason, the
//! facts, the rejected alternatives, the rules a forced layout breaks, declined copies and the
//! writes a layout obliges) is made here, from the data the engine records
//! (`crate::engine::basis`). Nothing here decides anything.

use crate::engine::basis::{
    Against, Alone, Broken, Declined, Fact, Growth, LinkWhy, Obligation, Ratio, Reason, Through,
};
use crate::plan::{Decision, Shape};

use super::{a, n_of, plural, thousands, up_to};

/// `ids` of an id array's bound: `up to 5,000 ids`.
fn ids(max: Option<u64>) -> String {
    match max {
        Some(n) => format!("up to {}", n_of(n, "id")),
        None => "an unbounded number of ids".to_owned(),
    }
}

fn list(names: &[String]) -> String {
    names.join(", ")
}

fn ratio(r: f64) -> String {
    if r.fract() == 0.0 && r.abs() < 1e15 {
        thousands(r as u64)
    } else {
        format!("{r:.2}")
    }
}

/// `1 read per update`, `1,000 reads per update`.
fn reads_per_update(r: f64) -> String {
    if r == 1.0 {
        "1 read per update".to_owned()
    } else {
        format!("{} reads per update", ratio(r))
    }
}

fn growth(g: Growth) -> &'static str {
    match (g.append_heavy, g.unbounded) {
        (true, true) => "are added often and without bound",
        (true, false) => "are added often (append-heavy)",
        _ => "grow without bound",
    }
}

/// `A embeds B embeds A`, or `A embeds itself`.
fn chain(names: &[String]) -> String {
    match names {
        [one] => format!("{one} embeds itself"),
        _ => {
            let mut chain = names.join(" embeds ");
            chain.push_str(&format!(" embeds {}", names[0]));
            chain
        }
    }
}

/// A fact as a sentence.
pub(crate) fn fact(f: &Fact) -> String {
    match f {
        Fact::Bound {
            parent,
            child,
            end,
            written,
            max,
        } => format!("each {parent} has {} ({end}: {written})", up_to(*max, child)),
        Fact::Typical { parent, child, n } => {
            format!("{} usually has {}", a(parent), n_of(*n, child))
        }
        Fact::OneEach {
            owner,
            other,
            optional,
        } => {
            if *optional {
                format!(
                    "{} has at most one {other} (it may have none) and each {other} one {owner}",
                    a(owner)
                )
            } else {
                format!("each {owner} has one {other} and each {other} one {owner}")
            }
        }
        Fact::ReadAlone { entity, why } => match why {
            Alone::Declared => format!("{entity} is read on its own (declared standalone)"),
            Alone::Query(q) => format!("{entity} is read on its own (query `{q}` reads it directly)"),
            Alone::Pattern => format!("{entity} is read on its own (its pattern needs a collection)"),
            Alone::Expires { field, ttl } => format!(
                "{entity} has a lifecycle of its own: its documents expire {} after `{field}` (@expires), so it keeps a collection whose documents can expire alone (rule 2)",
                crate::engine::duration_words(*ttl)
            ),
        },
        Fact::ReadThrough {
            child,
            parent,
            through,
        } => match through {
            Through::Parent => format!("{} are only read through their {parent}", plural(child)),
            Through::Node { end } => format!(
                "{} are only read through the {parent} they belong to ({end})",
                plural(child)
            ),
            Through::NotAlone => format!(
                "{} are not read on their own (no `standalone`, query or pattern says so), but other relationships reach them too",
                plural(child)
            ),
            Through::Partners => format!(
                "{} are only read through the {} that list them",
                plural(child),
                plural(parent)
            ),
        },
        Fact::ReadTogether { owner, other } => {
            format!("{other} is read together with its {owner}")
        }
        Fact::LargeSeldom { entity, bytes } => format!(
            "{entity} holds about {} of seldom-read data",
            super::bytes(*bytes)
        ),
        Fact::Growth {
            child,
            append_heavy,
            unbounded,
        } => {
            let mut parts = Vec::new();
            if *append_heavy {
                parts.push(format!("{} are added often (append-heavy)", plural(child)));
            }
            if *unbounded {
                parts.push(format!("{} grow without bound", plural(child)));
            }
            parts.join("; ")
        }
        Fact::Fixed { child } => format!(
            "{} are loaded once with their parent and never added or removed (static)",
            plural(child)
        ),
        Fact::AtomicMove { child, parent } => {
            format!("{} must move between {} atomically", a(child), plural(parent))
        }
        Fact::NavigateBoth => "both directions are read often".to_owned(),
        Fact::NavigateFrom { entity } => format!("the relationship is read from {entity}"),
        Fact::Page {
            child,
            size,
            by,
            newest_first,
        } => match by {
            Some(by) => format!(
                "{} are read {} per page, by {by}{}",
                plural(child),
                thousands(*size),
                if *newest_first { ", newest first" } else { "" }
            ),
            None => format!("{} are read {} per page", plural(child), thousands(*size)),
        },
        Fact::TimeRange { child, field } => {
            format!("{} are queried by time range on {field}", plural(child))
        }
        Fact::Summaries { names } => format!("summaries wanted: {}", list(names)),
        Fact::Latest {
            parent,
            child,
            n,
            by,
        } => format!("{} shows its latest {} by {by}", a(parent), n_of(*n, child)),
        Fact::Top {
            parent,
            child,
            n,
            by,
        } => format!("{} keeps its top {} by {by}", a(parent), n_of(*n, child)),
        Fact::RelationFields { names } => format!(
            "the relationship carries fields of its own: {}",
            list(names)
        ),
        Fact::Forced { layout, agrees } => {
            if *agrees {
                format!(
                    "the layout is forced to {} (the engine agrees)",
                    layout.as_str()
                )
            } else {
                format!("the layout is forced to {}", layout.as_str())
            }
        }
        Fact::EmbedCycle { names } => match names.as_slice() {
            [one] => format!("{}: no {one} would be stored in a collection", chain(names)),
            _ => format!(
                "{}: with each inside another, none would be stored in a collection",
                chain(names)
            ),
        },
        Fact::SharedDocument { sources, on } => format!(
            "{} {} read with {on} without a copy: they share a document",
            list(sources),
            if sources.len() == 1 { "is" } else { "are" }
        ),
        Fact::Shown {
            sources,
            on,
            ratio: r,
            query,
        } => {
            let rw = match r {
                Ratio::Immutable => "never updated: immutable".to_owned(),
                Ratio::Reads(r) => reads_per_update(*r),
                Ratio::Unknown => "no read/write ratio given".to_owned(),
            };
            match query {
                Some(q) => format!("query `{q}` on {on} filters on {} ({rw})", list(sources)),
                None => format!(
                    "{} {} shown with every {on} ({rw})",
                    list(sources),
                    if sources.len() == 1 { "is" } else { "are" }
                ),
            }
        }
    }
}

/// The decision's reason.
pub(crate) fn reason(r: &Reason) -> String {
    match r {
        Reason::LargeSide { owner, other, bytes } => format!(
            "{other} is large ({}) and seldom read, so it stays out of the hot {owner} document: it lives in its own collection and holds its {owner}'s id (seed 002: embedding is less efficient even for one-to-one when the other side is large and seldom used)",
            super::bytes(*bytes)
        ),
        Reason::OneToOneBothWays { other } => format!(
            "{other} is read on its own and both directions are read often, so each side stores the other's id"
        ),
        Reason::OneToOneAlone { owner, other } => format!(
            "{other} is read on its own, so it keeps its own collection and stores its {owner}'s id (rule 2)"
        ),
        Reason::OneToOneEmbed { owner, other } => format!(
            "one {other} per {owner}, read together with it, so it is embedded as a subdocument: one read returns both (rule 1; seed 003: embedding is preferred for one-to-one)"
        ),
        Reason::Pages { parent, child, size } => format!(
            "{} are {}, {} at a time, so they are grouped in buckets of {}: one read returns a page (seed 003 comment pages; seed 000 bookNotes)",
            plural(child),
            read_through(parent, child),
            thousands(*size),
            thousands(*size)
        ),
        Reason::Series { parent, child, max, size, summaries } => format!(
            "{} arrive as a series ({} per {parent}) and are read by time range{}, so they are grouped in buckets of {}{} (seed 002 IoT readings: bucket{})",
            plural(child),
            up_to(*max, child),
            if *summaries { " with summaries" } else { "" },
            thousands(*size),
            if *summaries {
                " with the summaries computed on write"
            } else {
                ", each holding the first and last time it covers"
            },
            if *summaries { " + computed" } else { "" }
        ),
        Reason::Outlier { parent, child, typical, max, cap } => format!(
            "{} usually has {} but rare ones have {}: the usual case is embedded (up to {}) and the rare overflow goes to extra documents flagged in the {parent} (seed 002 outlier pattern)",
            a(parent),
            n_of(*typical, child),
            up_to(*max, child),
            thousands(*cap)
        ),
        Reason::EmbedStatic { parent, child, max, limit } => format!(
            "{} per {parent}, {} and never added once loaded (static), so they are embedded as an array even beyond the {} a growing array should hold: rule 3's concern is arrays that grow, and this one does not (rule 1; the document-size limits still apply)",
            up_to(*max, child),
            read_through(parent, child),
            thousands(*limit)
        ),
        Reason::EmbedFew { parent, child, max } => format!(
            "{} per {parent}, {}, so they are embedded as an array: one read returns the {parent} with its {} (rule 1; seed 004 one-to-few)",
            up_to(*max, child),
            read_through(parent, child),
            plural(child)
        ),
        Reason::TooManyForIds { parent, child, max } => format!(
            "{} has {}, too many even for an array of ids (rule 3), so each {child} stores its {parent}'s id, indexed (seed 004 one-to-squillions)",
            a(parent),
            up_to(*max, child)
        ),
        Reason::AtomicMove { parent, child } => format!(
            "{} must move between {} atomically, which only one field in the {child} allows: each {child} stores its {parent}'s id, and moving it is one update",
            a(child),
            plural(parent)
        ),
        Reason::Growing { parent, child, growth: g } => format!(
            "{} {}, so no array in the {parent} holds them: each {child} stores its {parent}'s id, indexed, and {}'s {} are one indexed query (rule 3; seed 000: continually growing documents)",
            plural(child),
            growth(*g),
            a(parent),
            plural(child)
        ),
        Reason::Expiring { parent, child, field } => format!(
            "{} expire on their own schedule (@expires on `{field}`), so no array in the {parent} lists them: each {child} stores its {parent}'s id, indexed, and an expired {child} leaves no reference behind (rules 2 and 4)",
            plural(child)
        ),
        Reason::FoundByQuery { parent, child, query } => format!(
            "the application finds {} by their {parent} (query `{query}`), so each {child} stores its {parent}'s id, indexed: one query answers it (rule 6; seed 000 books by author)",
            plural(child)
        ),
        Reason::ReadFromChild { parent, child } => format!(
            "the application reads from {} to its {parent} (navigate {child}), not from {} through an array: each {child} stores its {parent}'s id (rules 4 and 6)",
            a(child),
            a(parent)
        ),
        Reason::BothWays { parent, child, max } => format!(
            "both directions are read often and {} per {parent} fit an id array: the {parent} holds its {child} ids and each {child} holds its {parent}'s id (seed 004 two-way referencing)",
            up_to(*max, child)
        ),
        Reason::ParentList { parent, child, max, alone } => format!(
            "{} and {} has {}: the {parent} holds an array of their ids and loads them in one `$in` query (rule 4; seed 004 one-to-many)",
            if *alone {
                format!("{} are read on their own", plural(child))
            } else {
                format!("{} are too many to embed", plural(child))
            },
            a(parent),
            up_to(*max, child)
        ),
        Reason::LinesOnOneSide { holder, field, other, max, fields } => format!(
            "the relationship carries fields of its own ({}) and is read from {holder}, which holds {}: each {holder} keeps an array of {{{other} id, {}}} in {holder}.{field}, and the other direction is one query on its multikey index (order lines; seed 003 one-way embedding)",
            list(fields),
            up_to(*max, other),
            list(fields)
        ),
        Reason::LinkForFields { left, right, fields, why } => format!(
            "the relationship carries fields of its own ({}), which belong to neither {left} nor {right}, and {}: one document per pair in a collection of its own, indexed from both ends",
            list(fields),
            match why {
                LinkWhy::BothRead => "both directions are read",
                LinkWhy::NeitherBounded => "neither side can hold a list of them (rule 3)",
                LinkWhy::NoSideNamed => "both sides are read (no `navigate` names one)",
            }
        ),
        Reason::OutlierIds { holder, other, typical, max, cap } => format!(
            "{} usually has {} but rare ones have {}: the usual ids are kept in the {holder} (up to {}), the rest overflow into extra documents flagged in the {holder} (seed 002 outlier pattern)",
            a(holder),
            n_of(*typical, other),
            up_to(*max, other),
            thousands(*cap)
        ),
        Reason::ReadFromOneSide { entity, max } => format!(
            "the relationship is only read from {entity}, so only {entity} holds the ids ({} per {entity})",
            ids(*max)
        ),
        Reason::OtherWayByQuery { holder, holder_max, other, query } => format!(
            "each {holder} holds its {other} ids ({} per {holder}); the application finds the {} of {} by a query on that array (query `{query}`), answered by its multikey index, so no second array is kept in {} (rules 4 and 6)",
            up_to(*holder_max, other),
            plural(holder),
            a(other),
            plural(other)
        ),
        Reason::BothSmall { left, left_max, right, right_max } => format!(
            "both sides are small ({} per {left}, {} per {right}), so each holds the other's ids: either direction is one `$in` query (seed 003 two-way embedding)",
            up_to(*left_max, right),
            up_to(*right_max, left)
        ),
        Reason::SmallSide { holder, holder_field, holder_max, other, other_field, other_max } => format!(
            "{holder}.{holder_field} holds {} but {other}.{other_field} would hold {}: only the small side, {holder}.{holder_field}, holds the ids, with a multikey index to read the other direction (seed 003 one-way embedding)",
            up_to(*holder_max, other),
            up_to(*other_max, holder)
        ),
        Reason::NeitherSide { left, left_max, right, right_max } => format!(
            "neither side can hold an id array ({} per {left}, {} per {right}: rule 3), so each pair is a document in a collection of its own, indexed from both ends",
            up_to(*left_max, right),
            up_to(*right_max, left)
        ),
        Reason::TreeRoots { base, child } => format!(
            "{}. Nothing else holds {}, so the {} at the top of each tree are documents of a collection of their own",
            reason(base),
            a(child),
            plural(child)
        ),
        Reason::SelfOneToOne { child } => format!(
            "{} related to another {child} one-to-one cannot hold it embedded (its partner would hold it in turn, without end): each {child} is a document of its own collection and the partner stores its id (rule 4)",
            a(child)
        ),
        Reason::CycleBroken { names, parent, child } => format!(
            "{}, so embedding here too would leave them without a collection: the cycle is broken with a reference, {} keep a collection of their own and each {parent} holds their ids (rule 4: an application-level join is cheap)",
            chain(names),
            plural(child)
        ),
        Reason::Forced { layout, engine } => format!(
            "forced to {} by the schema (the engine would choose {})",
            layout.as_str(),
            engine.as_str()
        ),
        Reason::Cheaper {
            layout,
            engine,
            percent,
            base,
        } => format!(
            "the rules accept {} and {}, and under the declared workload {} is estimated at {percent}% of {}'s cost (rule 6); the rules' own case for {}: {}",
            layout.as_str(),
            engine.as_str(),
            layout.as_str(),
            engine.as_str(),
            engine.as_str(),
            reason(base)
        ),
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
            "the rules accept it, but under the declared workload it is estimated at {percent}% of {}'s cost",
            chosen.as_str()
        ),
        Against::LoadsLargeSide { owner, other, bytes } => format!(
            "embedding would load {} of seldom-read {other} data into every read of {}",
            super::bytes(*bytes),
            a(owner)
        ),
        Against::ReadAlone { entity } => format!("{entity} is read on its own (rule 2)"),
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
        Against::ListNeedsIndex { parent, child } => format!(
            "listing {}'s {} would need a query on an index instead of reading its array",
            a(parent),
            plural(child)
        ),
        Against::ArrayServesParent { parent, child, max } => format!(
            "with {} per {parent}, an id array in the {parent} serves its reads without an index on {child}",
            up_to(*max, child)
        ),
        Against::LinkForBoundedList { holder, other } => format!(
            "a document per pair costs a second collection and a join for every read of {}'s {}, which one bounded array serves",
            a(holder),
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
    }
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
        Obligation::ListByIndex { parent, child } => match stored(d, &[Shape::Id, Shape::ExtendedRef]) {
            Some(at) => format!(
                "listing {}'s {} is one query on the index of {at}",
                a(parent),
                plural(child)
            ),
            None => format!(
                "listing {}'s {} is one query on the index of their reference",
                a(parent),
                plural(child)
            ),
        },
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
        Obligation::LatestEmbedded { n, child } => format!(
            "the latest {} are already embedded with the rest: no subset copy needed",
            n_of(*n, child)
        ),
        Obligation::SubsetPush { child, path, by, n } => format!(
            "adding {} also pushes a copy into the {}'s `{path}` with $each, $sort by {by} and $slice -{n} (the oldest fall out)",
            a(child),
            d.parent
        ),
        Obligation::TopPush { child, path, by, n } => format!(
            "recording {} also updates the {}'s `{path}`: $push with $each, $sort by {by} and $slice {n} (upsert)",
            a(child),
            d.parent
        ),
        Obligation::SummaryUpdate { child, path } => format!(
            "adding or removing {} updates the {}'s `{path}` in the same write",
            a(child),
            d.parent
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

/// Words a decision: its reason (with the copies and subset it carries), facts, rejected
/// alternatives and obligations, from what the engine recorded. Runs once every collection and
/// path is final, so the sentences name only what exists.
pub(crate) fn render(d: &mut Decision, basis: &crate::engine::Basis) {
    let mut because = reason(&basis.reason);
    if !basis.copied.is_empty() {
        let immutable = d.denormalized.iter().filter(|x| x.immutable).count();
        let why = if immutable == d.denormalized.len() {
            "they are immutable, never updated"
        } else if immutable == 0 {
            "read far more often than updated"
        } else {
            "immutable, or read far more often than updated"
        };
        because.push_str(&format!(
            ". Copies of {} travel with the references (rule 5: {why})",
            list(&basis.copied)
        ));
    }
    if let Some(n) = basis.subset {
        because.push_str(&format!(
            ". The {} also keeps its latest {} (subset pattern)",
            d.parent,
            n_of(n, &d.child)
        ));
    }
    d.because = because;
    d.facts = basis
        .facts
        .iter()
        .map(fact)
        .filter(|f| !f.is_empty())
        .collect();
    d.rejected = basis
        .rejected
        .iter()
        .map(|r| crate::plan::Rejected {
            strategy: r
                .strategy
                .map(|l| l.as_str())
                .unwrap_or("denormalized")
                .to_owned(),
            why: against(&r.against),
            rules: r.rules.clone(),
        })
        .collect();
    let obligations: Vec<String> = basis
        .obligations
        .iter()
        .map(|o| obligation(o, d))
        .filter(|o| !o.is_empty())
        .collect();
    d.obligations = obligations;
}

/// How children reach the reader: "only read through their Author"; a tree of an entity's own
/// kind is not read through "its" node as if it were another entity, but nested in the one that
/// holds it.
fn read_through(parent: &str, child: &str) -> String {
    if parent == child {
        format!("nested in the {parent} that holds them and never read on their own")
    } else {
        format!("only read through their {parent}")
    }
}
