//! The sentence of each fact a decision rests on ([`Fact`]), made from the fact's data.

use crate::engine::basis::{Alone, Fact, OrderKind, PageOrder, Ratio, Through};

use super::decision::{chain, list, parents, reads_per_update};
use super::{a, n_of, plural, thousands, up_to};

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
            Alone::NoParent { end, parent, homed: false } => format!(
                "{entity} may have no {parent} (`{end}` is `one?`): one without it has no {parent} to be embedded in, so {} keep documents of their own",
                plural(entity)
            ),
            Alone::NoParent { end, parent, homed: true } => format!(
                "{entity} may have no {parent} (`{end}` is `one?`): one without it would have no {parent} to be embedded in, so no {parent} holds {}",
                plural(entity)
            ),
            Alone::Referenced { relation, layout } => format!(
                "{entity} is a document of its own: {relation} ({}) refers to each {entity} by its id, which only a top-level document has (rule 2)",
                layout.as_str()
            ),
            Alone::Shared { parents: p } => format!(
                "each {entity} belongs to {}, and each of them would embed it: embedded in both, every {entity} would be stored twice with nothing keeping the two alike, so {} are documents of their own (rule 2)",
                parents(p),
                plural(entity)
            ),
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
            // Layout-neutral: which side lists the other is the decision's, not a fact.
            Through::Partners => format!(
                "{} are not read on their own, only with the {} they are linked to",
                plural(child),
                plural(parent)
            ),
            Through::PartnersNavigated => format!(
                "{} are not read on their own (no `standalone`, query or pattern says so), but the application goes from {} to its {} too (`navigate`)",
                plural(child),
                a(child),
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
        Fact::Page { child, size, by } => match by {
            Some(order) => format!(
                "{} are read {} per page, by {}{}",
                plural(child),
                thousands(*size),
                order.field,
                first_in_order(order)
            ),
            None => format!("{} are read {} per page", plural(child), thousands(*size)),
        },
        Fact::TimeRange {
            child,
            field,
            window,
        } => match window {
            Some(n) => format!(
                "{} are queried by time range on {field}, about {} per read",
                plural(child),
                thousands(*n)
            ),
            None => format!("{} are queried by time range on {field}", plural(child)),
        },
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
        Fact::KeyInReference { sources, on } => format!(
            "{} {} shown with every {on} without a copy: {} the key its reference holds",
            list(sources),
            if sources.len() == 1 { "is" } else { "are" },
            if sources.len() == 1 { "it is" } else { "they are" },
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
                Some(q) => format!(
                    "query `{}` on {on} {} {} ({rw})",
                    q.name,
                    match (q.filters, q.sorts) {
                        (true, true) => "filters and sorts on",
                        (false, true) => "sorts by",
                        _ => "filters on",
                    },
                    list(sources)
                ),
                None => format!(
                    "{} {} shown with every {on} ({rw})",
                    list(sources),
                    if sources.len() == 1 { "is" } else { "are" }
                ),
            }
        }
    }
}

/// What comes first in a page's order, after its field: ", newest first" for a date read
/// descending, ", highest first" for a number, nothing for ascending strings (alphabetical is what
/// "by name" says).
pub(super) fn first_in_order(order: &PageOrder) -> &'static str {
    match (order.kind, order.descending) {
        (OrderKind::Time, true) => ", newest first",
        (OrderKind::Time, false) => ", oldest first",
        (OrderKind::Number, true) => ", highest first",
        (OrderKind::Number, false) => ", lowest first",
        (OrderKind::Other, true) => ", in reverse order",
        (OrderKind::Other, false) => "",
    }
}
