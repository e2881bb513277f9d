//! The engine's decisions in words: every sentence of a relationship's decision (its reason, the
//! facts, the rejected alternatives, the rules a forced layout breaks, declined copies and the
//! writes a layout obliges) is made here, from the data the engine records
//! (`crate::engine::basis`). Nothing here decides anything.

use crate::engine::basis::{Alone, Growth, LinkWhy, Reason};
use crate::plan::Decision;

use super::{a, n_of, plural, thousands, up_to};

pub(crate) use super::obligations::obligation;
pub(crate) use super::rejections::{against, broken, declined};

/// `ids` of an id array's bound: `up to 5,000 ids`.
pub(super) fn ids(max: Option<u64>) -> String {
    match max {
        Some(n) => format!("up to {}", n_of(n, "id")),
        None => "an unbounded number of ids".to_owned(),
    }
}

pub(super) fn list(names: &[String]) -> String {
    names.join(", ")
}

/// `a Season (Season.standings) and a Team (Team.standings)`: the parents that would each embed
/// one child (`Alone::Shared`).
pub(super) fn parents(parents: &[(String, String)]) -> String {
    let each: Vec<String> = parents
        .iter()
        .map(|(relation, parent)| format!("{} ({relation})", a(parent)))
        .collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => each.join(""),
    }
}

pub(super) fn ratio(r: f64) -> String {
    if r.fract() == 0.0 && r.abs() < 1e15 {
        thousands(r as u64)
    } else {
        format!("{r:.2}")
    }
}

/// `1 read per update`, `1,000 reads per update`.
pub(super) fn reads_per_update(r: f64) -> String {
    if r == 1.0 {
        "1 read per update".to_owned()
    } else {
        format!("{} reads per update", ratio(r))
    }
}

pub(super) fn growth(g: Growth) -> &'static str {
    match (g.append_heavy, g.unbounded) {
        (true, true) => "are added often and without bound",
        (true, false) => "are added often (append-heavy)",
        _ => "grow without bound",
    }
}

/// `A embeds B embeds A`, or `A embeds itself`.
pub(super) fn chain(names: &[String]) -> String {
    match names {
        [one] => format!("{one} embeds itself"),
        _ => {
            let mut chain = names.join(" embeds ");
            chain.push_str(&format!(" embeds {}", names[0]));
            chain
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
        Reason::OneToOneBothWays { other, why } => format!(
            "{} and both directions are read often, so each side stores the other's id",
            match why {
                Alone::NoParent { end, parent, .. } => {
                    format!("{} may have no {parent} (`{end}` is `one?`)", a(other))
                }
                Alone::Referenced { relation, .. } => {
                    format!("{other} is a document of its own ({relation} refers to it by id)")
                }
                Alone::Shared { parents: p } => format!(
                    "{other} is a document of its own (it belongs to {}: embedded in both it would be stored twice)",
                    parents(p)
                ),
                Alone::Expires { field, .. } => {
                    format!("{other}'s documents expire on their own (`{field}` is @expires)")
                }
                Alone::Declared | Alone::Query(_) | Alone::Pattern => {
                    format!("{other} is read on its own")
                }
            }
        ),
        Reason::OneToOneAlone { owner, other, why } => {
            let role = role_as(owner, other, "owning");
            match why {
            Alone::NoParent { end, homed: true, .. } => format!(
                "{} may have no {owner} (`{end}` is `one?`), so no {owner} holds it: each {other} stores its {role}'s id where it lives",
                a(other)
            ),
            Alone::NoParent { end, homed: false, .. } => format!(
                "{} may have no {owner} (`{end}` is `one?`), so it keeps its own collection and stores its {role}'s id",
                a(other)
            ),
            Alone::Referenced { relation, .. } => format!(
                "{other} is a document of its own ({relation} refers to it by id), so it stores its {role}'s id (rule 2)"
            ),
            Alone::Shared { parents: p } => format!(
                "{} belongs to {}: embedded in both it would be stored twice, so it keeps its own collection and stores its {role}'s id (rule 2)",
                a(other),
                parents(p)
            ),
            Alone::Expires { field, .. } => format!(
                "{other}'s documents expire on their own (`{field}` is @expires), so it keeps its own collection and stores its {role}'s id (rule 2)"
            ),
            Alone::Declared | Alone::Query(_) | Alone::Pattern => format!(
                "{other} is read on its own, so it keeps its own collection and stores its {role}'s id (rule 2)"
            ),
        }
        }
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
        Reason::EmbedFew {
            parent,
            child,
            max,
            appended,
        } => {
            let appended = match (appended, max) {
                (true, Some(n)) => format!(
                    ". They are added often, but never beyond {}, and rule 3 (arrays should not grow without bound) asks no more: an array capped at its bound and appended to is seed 002's bucket",
                    thousands(*n)
                ),
                _ => String::new(),
            };
            format!(
                "{} per {parent}, {}, so they are embedded as an array: one read returns the {parent} with its {} (rule 1; seed 004 one-to-few){appended}",
                up_to(*max, child),
                read_through(parent, child),
                plural(child)
            )
        }
        Reason::TooManyForIds { parent, child, max } => {
            let role = role(parent, child);
            format!(
                "{} has {}, too many even for an array of ids (rule 3), so each {child} stores its {role}'s id, indexed (seed 004 one-to-squillions)",
                a(parent),
                up_to(*max, child)
            )
        }
        Reason::AtomicMove { parent, child } => {
            let role = role(parent, child);
            format!(
                "{} must move between {} atomically, which only one field in the {child} allows: each {child} stores its {role}'s id, and moving it is one update",
                a(child),
                plural(parent)
            )
        }
        Reason::Growing { parent, child, growth: g } => {
            let role = role(parent, child);
            format!(
                "{} {}, so no array in the {parent} holds them: each {child} stores its {role}'s id, indexed, and listing them is one indexed query (rule 3; seed 000: continually growing documents)",
                plural(child),
                growth(*g),
            )
        }
        Reason::Expiring { parent, child, field } => {
            let role = role(parent, child);
            format!(
                "{} expire on their own schedule (@expires on `{field}`), so no array in the {parent} lists them: each {child} stores its {role}'s id, indexed, and an expired {child} leaves no reference behind (rules 2 and 4)",
                plural(child)
            )
        }
        Reason::FoundByQuery { parent, child, query } => {
            let role = role(parent, child);
            format!(
                "the application finds {} by their {parent} (query `{query}`), so each {child} stores its {role}'s id, indexed: one query answers it (rule 6; seed 000 books by author)",
                plural(child)
            )
        }
        Reason::ReadFromChild { parent, child } => {
            let role = role(parent, child);
            format!(
                "the application reads from {} to its {parent} (navigate {child}), not from {} through an array: each {child} stores its {role}'s id (rules 4 and 6)",
                a(child),
                a(parent)
            )
        }
        Reason::CarriesParentCopies { parent, child, sources } => format!(
            "each {child} shows {}, kept in step by updates that find the copies through the {child}'s reference to its {parent}, indexed; that index also lists {}'s {}, so no id array in the {parent} repeats it (rules 4 and 5; seed 004 denormalizing from one to many)",
            list(sources),
            a(parent),
            plural(child)
        ),
        Reason::KeepsOfChildren { parent, child, kept } => {
            let role = role(parent, child);
            format!(
                "the {parent} keeps {} of its {}, which every write of {} keeps in step through its reference to its {parent}, indexed: each {child} stores its {role}'s id (computed pattern; rule 4)",
                list(kept),
                plural(child),
                a(child)
            )
        }
        Reason::BothWays { parent, child, max } => {
            let role = role(parent, child);
            format!(
                "both directions are read often and {} per {parent} fit an id array: the {parent} holds its {child} ids and each {child} holds its {role}'s id (seed 004 two-way referencing)",
                up_to(*max, child)
            )
        }
        Reason::ParentList { parent, child, max, alone } => format!(
            "{} and {} has {}: the {parent} holds an array of their ids and loads them in one `$in` query (rule 4; seed 004 one-to-many)",
            match alone {
                Some(Alone::NoParent { end, .. }) => {
                    format!("{} keep documents of their own (`{end}` is `one?`)", plural(child))
                }
                Some(Alone::Referenced { relation, .. }) => format!(
                    "{} are documents of their own ({relation} refers to them by id)",
                    plural(child)
                ),
                Some(Alone::Shared { parents: p }) => format!(
                    "{} are documents of their own (each belongs to {}: embedded in both it would be stored twice)",
                    plural(child),
                    parents(p)
                ),
                Some(Alone::Expires { field, .. }) => format!(
                    "{} expire on their own (`{field}` is @expires)",
                    plural(child)
                ),
                Some(_) => format!("{} are read on their own", plural(child)),
                None => format!("{} are too many to embed", plural(child)),
            },
            a(parent),
            up_to(*max, child)
        ),
        Reason::LinesOnOneSide { holder, field, other, max, fields, other_max } => format!(
            "the relationship carries fields of its own ({}) and {}: each {holder} keeps an array of {{{other} id, {}}} in {holder}.{field}, and the other direction is one query on its multikey index (order lines; seed 003 one-way embedding)",
            list(fields),
            match other_max {
                Some(o) => format!(
                    "only {holder} can hold a list of them ({} per {holder}; {} has {}, too many for an array, rule 3)",
                    up_to(*max, other),
                    a(other),
                    up_to(*o, holder)
                ),
                None => format!("is read from {holder}, which holds {}", up_to(*max, other)),
            },
            list(fields)
        ),
        Reason::LinesOnSmallSide { holder, field, holder_max, other, other_field, other_max, fields } => format!(
            "the relationship carries fields of its own ({}) and its sides are unbalanced ({holder}.{field} holds {}, {other}.{other_field} would hold {}): only the small side keeps the list, each {holder} an array of {{{other} id, {}}} in {holder}.{field}, and the {} of {} are found by one query on its multikey index (seed 003 relationship balance: one-way embedding)",
            list(fields),
            up_to(*holder_max, other),
            up_to(*other_max, holder),
            list(fields),
            plural(holder),
            a(other)
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
        Reason::Unbalanced { holder, holder_field, holder_max, other, other_field, other_max } => format!(
            "{holder}.{holder_field} holds {} and {other}.{other_field} would hold {}: the sides are unbalanced, so only the small side, {holder}.{holder_field}, holds the ids, and the {} of {} are found by a query on that array's multikey index (seed 003 relationship balance: one-way embedding)",
            up_to(*holder_max, other),
            up_to(*other_max, holder),
            plural(holder),
            a(other)
        ),
        Reason::NeitherSide { left, left_max, right, right_max } => format!(
            "neither side can hold an id array ({} per {left}, {} per {right}: rule 3), so each pair is a document in a collection of its own, indexed from both ends",
            up_to(*left_max, right),
            up_to(*right_max, left)
        ),
        Reason::TooLarge {
            layout,
            engine,
            document,
            base,
        } => format!(
            "{} is chosen: with {}, {} (document size); the rules alone would choose {}: \"{}\"",
            layout.as_str(),
            engine.as_str(),
            super::rejections::oversized(document),
            engine.as_str(),
            reason(base)
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
            "the rules accept {} and {}, and under the declared workload {} is estimated at {} {}'s cost (rule 6); the rules alone would choose {}: \"{}\"",
            layout.as_str(),
            engine.as_str(),
            layout.as_str(),
            super::rejections::share(*percent),
            engine.as_str(),
            engine.as_str(),
            reason(base)
        ),
    }
}

/// Why the copies were made, from what each copy records: its source is immutable, a `show`
/// ratio says it is read far more often than updated, or (no ratio) a declared query filters or
/// sorts on it, which rule 6 answers with a copy (language.md: "books by their author's first
/// name ... the engine answers it with a copy of the name on the book (rules 5 and 6)").
fn why_copied(copies: &[crate::plan::Denormalized]) -> String {
    let immutable = copies.iter().any(|x| x.immutable);
    let by_ratio = copies
        .iter()
        .any(|x| !x.immutable && x.reads_per_update.is_some());
    let by_query = copies
        .iter()
        .any(|x| !x.immutable && x.reads_per_update.is_none());
    let rule5 = match (immutable, by_ratio) {
        (true, false) if !by_query => Some("they are immutable, never updated"),
        (true, false) => Some("immutable"),
        (false, true) => Some("read far more often than updated"),
        (true, true) => Some("immutable, or read far more often than updated"),
        (false, false) => None,
    };
    match (rule5, by_query) {
        (Some(why), false) => format!("rule 5: {why}"),
        (Some(why), true) => format!(
            "rule 5: {why}; rules 5 and 6 for the others: a declared query filters or sorts on them"
        ),
        (None, _) => "rules 5 and 6: a declared query filters or sorts on them".to_owned(),
    }
}

/// Words a decision: its reason (with the copies and subset it carries), facts, rejected
/// alternatives and obligations, from what the engine recorded. Runs once every collection and
/// path is final, so the sentences name only what exists.
pub(crate) fn render(d: &mut Decision, basis: &crate::engine::Basis) {
    let mut because = reason(&basis.reason);
    if !basis.copied.is_empty() {
        because.push_str(&format!(
            ". Copies of {} travel with the references ({})",
            list(&basis.copied),
            why_copied(&d.denormalized)
        ));
    }
    if let Some(n) = basis.subset {
        because.push_str(&format!(
            ". The {} also keeps its latest {} (subset pattern)",
            d.parent,
            n_of(n, &d.child)
        ));
    }
    // What the parent computes of its children, unless the reason is that already.
    if !matches!(basis.reason, Reason::KeepsOfChildren { .. }) {
        let top = basis
            .top
            .as_ref()
            .map(|(n, field)| format!("its top {} by {field}", n_of(*n, &d.child)));
        let summaries = (!basis.summaries.is_empty()).then(|| {
            format!(
                "summaries of all its {}: {}",
                plural(&d.child),
                list(&basis.summaries)
            )
        });
        let kept: Vec<String> = top.into_iter().chain(summaries).collect();
        if !kept.is_empty() {
            because.push_str(&format!(
                ". The {} also keeps {} (computed pattern)",
                d.parent,
                kept.join(", and ")
            ));
        }
    }
    d.because = because;
    d.facts = basis
        .facts
        .iter()
        .map(super::facts::fact)
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
/// How a child names its parent in "each {child} stores its {role}'s id": the parent's entity,
/// or "parent X" when both are X (a comment's replies: "each Comment stores its parent
/// Comment's id", not "its Comment's").
pub(super) fn role(parent: &str, child: &str) -> String {
    role_as(parent, child, "parent")
}

/// `parent`, or "`word` parent" when the relation is `parent`'s own kind.
fn role_as(parent: &str, child: &str, word: &str) -> String {
    if parent == child {
        format!("{word} {parent}")
    } else {
        parent.to_owned()
    }
}

pub(super) fn read_through(parent: &str, child: &str) -> String {
    if parent == child {
        format!("nested in the {parent} that holds them and never read on their own")
    } else {
        format!("only read through their {parent}")
    }
}
