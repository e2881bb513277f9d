//! A Plan diff in words: every sentence of `squillion diff` and of the review's "Changes since"
//! section is made here, from the data of [`crate::diff::PlanDiff`]. Names and paths are written
//! as code spans (`` `posts.comments` ``); the renderers turn them into what their format shows.

use serde::Serialize;

use crate::diff::{
    CollectionChange, DecisionChange, DecisionState, FactChange, FieldChange, FieldState,
    IndexChange, IndexState, Moved, PlanDiff, PropertyChange, ValidatorChange, VersionChange,
};

use super::{bytes, counted, plural, thousands};
use crate::plan::ContainerKind;

/// A titled group of changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    /// Its title.
    pub title: &'static str,
    /// One entry per change.
    pub items: Vec<Item>,
}

/// One change: a headline and its details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// What changed.
    pub text: String,
    /// The reasons, the data moved, what to do.
    pub details: Vec<String>,
}

fn item(text: String, details: Vec<String>) -> Item {
    Item { text, details }
}

/// One line saying how much changed.
pub fn summary(d: &PlanDiff) -> String {
    if d.is_empty() {
        return format!(
            "No changes: `{}` and `{}` have the same plan.",
            d.old_source, d.new_source
        );
    }
    let mut parts = Vec::new();
    let mut count = |n: usize, one: &str, many: &str| {
        if n > 0 {
            parts.push(counted(n, one, many));
        }
    };
    count(d.facts.len(), "fact", "facts");
    count(d.decisions.len(), "decision", "decisions");
    count(d.collections.len(), "collection", "collections");
    count(d.fields.len(), "field", "fields");
    count(d.indexes.len(), "index", "indexes");
    count(d.validators.len(), "validator", "validators");
    let bumps = d.versions.iter().filter(|v| v.must_bump).count();
    let mut line = format!(
        "Changes from `{}` to `{}`: {} changed.",
        d.old_source,
        d.new_source,
        parts.join(", ")
    );
    if bumps > 0 {
        line.push_str(&format!(
            " {} must bump `schema_version`.",
            counted(bumps, "collection", "collections")
        ));
    }
    line
}

/// The changes, grouped, in the order a reviewer reads them: what the engine decided
/// differently first, then the facts behind it, then what it does to the stored data.
pub fn sections(d: &PlanDiff) -> Vec<Section> {
    let groups = [
        ("Decisions", d.decisions.iter().map(decision).collect()),
        ("Facts", d.facts.iter().map(fact).collect()),
        (
            "Collections",
            d.collections.iter().map(collection).collect(),
        ),
        ("Fields", d.fields.iter().map(field).collect()),
        ("Indexes", d.indexes.iter().map(index).collect()),
        ("Validators", d.validators.iter().map(validator).collect()),
        ("Schema versions", d.versions.iter().map(version).collect()),
    ];
    groups
        .into_iter()
        .filter(|(_, items): &(_, Vec<Item>)| !items.is_empty())
        .map(|(title, items)| Section { title, items })
        .collect()
}

fn layout(s: &DecisionState) -> String {
    let mut modifiers = Vec::new();
    if !s.copies.is_empty() {
        modifiers.push(format!("copies of {}", codes(&s.copies)));
    }
    if let Some(n) = s.subset {
        modifiers.push(format!("latest {} in the parent", thousands(n)));
    }
    if let Some(n) = s.bucket {
        modifiers.push(format!("{} per bucket", thousands(n)));
    }
    if !s.computed.is_empty() {
        modifiers.push(format!("computed {}", codes(&s.computed)));
    }
    if let Some(n) = s.outlier {
        modifiers.push(format!("outlier past {}", thousands(n)));
    }
    let forced = if s.forced { " (forced)" } else { "" };
    if modifiers.is_empty() {
        format!("`{}`{forced}", s.layout)
    } else {
        format!("`{}`{forced} with {}", s.layout, modifiers.join(", "))
    }
}

fn codes(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn because(when: &str, s: &DecisionState) -> String {
    let rules = if s.rules.is_empty() {
        String::new()
    } else {
        format!(" Rules: {}.", s.rules.join("; "))
    };
    format!("{when}: {}.{rules}", s.because.trim_end_matches('.'))
}

/// `Data moved: the Books stored, about 300 (45 KB) per Author document.`
fn moved_children(c: &DecisionChange, child: &str, parent: &str) -> Option<String> {
    let m = c.moved;
    // Among the many-to-many layouts (ids on one side, on both, or a link per pair) what moves
    // is the pairs' references, wherever the new layout keeps them; elsewhere, a reference is
    // written in each child (or the children themselves move).
    let pairs = |s: &crate::diff::DecisionState| {
        matches!(s.layout.as_str(), "one_way" | "two_way" | "link_collection")
    };
    let what = match &c.old {
        Some(o) if pairs(o) && c.new.as_ref().is_some_and(pairs) => "the references to",
        Some(o) if !crate::diff::relocates_children(o, c.new.as_ref()) => "a reference in each of",
        _ => "",
    };
    (m.documents > 0 || m.bytes > 0).then(|| {
        format!(
            "Data moved: {what}{}the {} stored, about {} ({}) per `{parent}` document.",
            if what.is_empty() { "" } else { " " },
            plural(child),
            thousands(m.documents),
            bytes(m.bytes)
        )
    })
}

fn decision(c: &DecisionChange) -> Item {
    let r = &c.relation;
    match (&c.old, &c.new) {
        (Some(o), Some(n)) if layout(o) == layout(n) => {
            // Same layout, another place: the document holding it moved (its parent's layout
            // changed), or a forced layout's placement did.
            let mut details = Vec::new();
            if o.because != n.because {
                details.push(because("Before", o));
                details.push(because("Now", n));
            }
            item(
                format!(
                    "`{r}` stays {}, stored at {} (was {}).",
                    layout(n),
                    codes(&n.placement),
                    codes(&o.placement)
                ),
                details,
            )
        }
        (Some(o), Some(n)) => {
            let mut details = vec![because("Before", o), because("Now", n)];
            if o.placement != n.placement {
                details.push(format!(
                    "Stored at {} (was {}).",
                    codes(&n.placement),
                    codes(&o.placement)
                ));
            }
            details.extend(moved_children(c, &n.child, &n.parent));
            item(
                format!("`{r}`: {} becomes {}.", layout(o), layout(n)),
                details,
            )
        }
        (None, Some(n)) => item(
            format!("`{r}` is new: {}.", layout(n)),
            vec![because("Because", n)],
        ),
        (Some(o), None) => item(
            format!("`{r}` is gone (it was {}).", layout(o)),
            moved_children(c, &o.child, &o.parent).into_iter().collect(),
        ),
        (None, None) => item(format!("`{r}`: unchanged."), Vec::new()),
    }
}

fn maybe<T>(v: &Option<T>, show: impl Fn(&T) -> String) -> String {
    v.as_ref().map(show).unwrap_or_else(|| "none".to_owned())
}

fn fact(f: &FactChange) -> Item {
    match f {
        FactChange::Cardinality {
            relation,
            counted: what,
            per,
            old,
            new,
            ..
        } => {
            let card = |c: &crate::diff::Cardinality| match c.max {
                Some(m) => format!("`{}` (up to {})", c.written, thousands(m)),
                None => format!("`{}` (unbounded)", c.written),
            };
            item(
                format!(
                    "`{relation}`: {} per `{per}`: {} becomes {}.",
                    plural(what),
                    maybe(old, card),
                    maybe(new, card)
                ),
                Vec::new(),
            )
        }
        FactChange::Stated { relation, old, new } => match (old, new) {
            (Some(o), None) => item(format!("`{relation}` no longer: {o}."), Vec::new()),
            (_, Some(n)) => item(format!("`{relation}` now: {n}."), Vec::new()),
            (None, None) => item(format!("`{relation}`: a fact unchanged."), Vec::new()),
        },
        FactChange::Query { name, old, new } => match (old, new) {
            (None, Some(n)) => item(
                format!("Query `{name}` on `{}` is new.", n.collection),
                vec![format!(
                    "Served by {}.",
                    maybe(&n.index, |i| format!("`{i}`"))
                )],
            ),
            (Some(o), None) => item(
                format!("Query `{name}` on `{}` is gone.", o.collection),
                Vec::new(),
            ),
            (Some(o), Some(n)) => {
                let mut details = Vec::new();
                let rate = |r: &f64| format!("{}/s", super::decision::ratio(*r));
                if o.rate_per_second != n.rate_per_second {
                    details.push(format!(
                        "Rate: {} becomes {}.",
                        maybe(&o.rate_per_second, rate),
                        maybe(&n.rate_per_second, rate)
                    ));
                }
                if o.conditions != n.conditions || o.sort != n.sort || o.limit != n.limit {
                    details.push(format!(
                        "Filters on {} sorted by {} (was {} sorted by {}).",
                        list(&n.conditions),
                        list(&n.sort),
                        list(&o.conditions),
                        list(&o.sort)
                    ));
                }
                if o.index != n.index {
                    details.push(format!(
                        "Served by {} (was {}).",
                        maybe(&n.index, |i| format!("`{i}`")),
                        maybe(&o.index, |i| format!("`{i}`"))
                    ));
                }
                if o.collection != n.collection {
                    details.push(format!(
                        "Runs on `{}` (was `{}`).",
                        n.collection, o.collection
                    ));
                }
                item(format!("Query `{name}` changed."), details)
            }
            (None, None) => item(format!("Query `{name}` unchanged."), Vec::new()),
        },
        FactChange::Setting { name, old, new } => item(
            format!(
                "Setting `{name}`: {} becomes {}.",
                maybe(old, |v| v.to_string()),
                maybe(new, |v| v.to_string())
            ),
            Vec::new(),
        ),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".to_owned()
    } else {
        codes(items)
    }
}

fn collection(c: &CollectionChange) -> Item {
    match (&c.old, &c.new) {
        (Some(o), Some(n)) => item(
            format!("`{}` is renamed `{}`.", o.name, n.name),
            vec![format!(
                "Every document moves: `renameCollection` keeps them and their indexes (about {} each).",
                bytes(n.average_bytes)
            )],
        ),
        (None, Some(n)) => item(
            format!(
                "`{}` is new: {}, {}, about {} per document.",
                n.name,
                counted(n.fields, "top-level field", "top-level fields"),
                counted(n.indexes, "secondary index", "secondary indexes"),
                bytes(n.average_bytes)
            ),
            Vec::new(),
        ),
        (Some(o), None) => item(
            format!(
                "`{}` is gone (about {} per document).",
                o.name,
                bytes(o.average_bytes)
            ),
            Vec::new(),
        ),
        (None, None) => item("A collection unchanged.".to_owned(), Vec::new()),
    }
}

/// The field's kind and type, its container levels with their nullable elements (the bounds are
/// said apart).
fn shape(f: &FieldState) -> String {
    let mut t = f.bson_type.clone();
    if f.containers.is_empty() {
        // A diff written before containers were recorded.
        for _ in 0..f.array_depth {
            t = format!("[{t}]");
        }
        if f.map {
            t = format!("map<{t}>");
        }
    }
    for level in f.containers.iter().rev() {
        let q = if level.nullable { "?" } else { "" };
        t = match level.kind {
            ContainerKind::Array => format!("[{t}{q}]"),
            ContainerKind::Map => format!("map<{t}{q}>"),
        };
    }
    let optional = if f.optional { ", optional" } else { "" };
    format!("{} `{t}`{optional}", f.kind)
}

fn rewritten(m: Moved) -> String {
    format!(
        "Data moved: every document rewritten, about {} each.",
        bytes(m.bytes)
    )
}

fn field(c: &FieldChange) -> Item {
    match (&c.old, &c.new) {
        (None, Some(n)) => item(
            format!("`{}.{}` is new: {}.", n.collection, n.path, shape(n)),
            vec![rewritten(c.moved)],
        ),
        (Some(o), None) => item(
            format!(
                "`{}.{}` is gone (it was {}).",
                o.collection,
                o.path,
                shape(o)
            ),
            vec![rewritten(c.moved)],
        ),
        (Some(o), Some(n)) => {
            let mut details = Vec::new();
            if o.path != n.path {
                details.push(format!("Stored as `{}` (was `{}`).", n.path, o.path));
            }
            if shape(o) != shape(n) {
                details.push(format!("Now {} (was {}).", shape(n), shape(o)));
            }
            if o.max_items != n.max_items {
                let bound = |m: &u64| thousands(*m);
                details.push(format!(
                    "At most {} elements (was {}).",
                    maybe(&n.max_items, bound),
                    maybe(&o.max_items, bound)
                ));
            }
            let inner = |f: &FieldState| -> Vec<Option<u64>> {
                f.containers.iter().skip(1).map(|c| c.bound).collect()
            };
            if inner(o) != inner(n) && shape(o) == shape(n) {
                let said = |bounds: Vec<Option<u64>>| -> String {
                    let words: Vec<String> = bounds
                        .iter()
                        .map(|b| b.map_or_else(|| "unbounded".to_owned(), thousands))
                        .collect();
                    words.join(" \u{00d7} ")
                };
                details.push(format!(
                    "Inner levels hold at most {} (was {}).",
                    said(inner(n)),
                    said(inner(o))
                ));
            }
            match (o.max_entries, n.max_entries) {
                (Some(was), Some(now)) if was != now => details.push(format!(
                    "At most {} entries (was {}).",
                    thousands(now),
                    thousands(was)
                )),
                (None, Some(now)) => details.push(format!(
                    "At most {} entries (was unbounded).",
                    thousands(now)
                )),
                (Some(was), None) => details.push(format!(
                    "Unbounded (was at most {} entries).",
                    thousands(was)
                )),
                _ => {}
            }
            if o.enum_values != n.enum_values {
                details.push(format!(
                    "Values {} (was {}).",
                    list(&n.enum_values),
                    list(&o.enum_values)
                ));
            }
            if o.source != n.source {
                details.push(format!(
                    "Holds {} (was {}).",
                    maybe(&n.source, |s| format!("`{s}`")),
                    maybe(&o.source, |s| format!("`{s}`"))
                ));
            }
            if c.changes_stored_shape() {
                details.push(rewritten(c.moved));
            }
            item(format!("`{}.{}` changed.", n.collection, n.path), details)
        }
        (None, None) => item(format!("`{}` unchanged.", c.code_path), Vec::new()),
    }
}

fn index_spec(i: &IndexState) -> String {
    let mut options = Vec::new();
    if i.unique {
        options.push("unique".to_owned());
    }
    if i.sparse {
        options.push("sparse".to_owned());
    }
    if i.partial_filter.is_some() {
        options.push("partial".to_owned());
    }
    if let Some(s) = i.collation_strength {
        options.push(format!("collation strength {s}"));
    }
    if let Some(t) = i.expire_after_seconds {
        options.push(format!("expires after {}s", thousands(t)));
    }
    let keys = codes(&i.keys);
    if options.is_empty() {
        keys
    } else {
        format!("{keys}, {}", options.join(", "))
    }
}

fn index(c: &IndexChange) -> Item {
    let entries = |verb: &str| {
        format!(
            "{verb} one entry per document, about {} each.",
            bytes(c.moved.bytes)
        )
    };
    let reasons = |i: &IndexState| -> Vec<String> {
        i.reasons.iter().map(|r| format!("Why: {r}.")).collect()
    };
    match (&c.old, &c.new) {
        (None, Some(n)) => {
            let mut details = reasons(n);
            details.push(entries("Building it writes"));
            item(
                format!(
                    "`{}`: index `{}` is created ({}).",
                    n.collection,
                    c.name,
                    index_spec(n)
                ),
                details,
            )
        }
        (Some(o), None) => item(
            format!(
                "`{}`: index `{}` is dropped ({}).",
                o.collection,
                c.name,
                index_spec(o)
            ),
            vec![entries("Dropping it frees")],
        ),
        (Some(o), Some(n)) => {
            let mut details = vec![format!("Was {}.", index_spec(o))];
            details.extend(reasons(n));
            details.push(entries("Rebuilding it writes"));
            item(
                format!(
                    "`{}`: index `{}` is redefined ({}).",
                    n.collection,
                    c.name,
                    index_spec(n)
                ),
                details,
            )
        }
        (None, None) => item(format!("Index `{}` unchanged.", c.name), Vec::new()),
    }
}

fn rule(p: &PropertyChange) -> String {
    let text = |v: &serde_json::Value| format!("`{v}`");
    match (&p.old, &p.new) {
        (None, Some(n)) => format!("`{}` gains the rule {}.", p.path, text(n)),
        (Some(o), None) => format!("`{}` loses the rule {}.", p.path, text(o)),
        (Some(o), Some(n)) => format!("`{}`: {} becomes {}.", p.path, text(o), text(n)),
        (None, None) => format!("`{}`: unchanged.", p.path),
    }
}

fn validator(c: &ValidatorChange) -> Item {
    item(
        format!(
            "`{}`: the validator changes for {}.",
            c.new_collection,
            counted(c.properties.len(), "property", "properties")
        ),
        c.properties.iter().map(rule).collect(),
    )
}

fn version(v: &VersionChange) -> Item {
    let show = |n: &u32| n.to_string();
    let versions = format!(
        "`schema_version` {} becomes {}",
        maybe(&v.old, show),
        maybe(&v.new, show)
    );
    // The version to declare: above both sides' (u64: no overflow past u32::MAX).
    let next = u64::from(v.old.unwrap_or(0).max(v.new.unwrap_or(0))) + 1;
    let text = match (v.shape_changed, v.must_bump, v.new) {
        (true, true, Some(n)) => {
            let now = if v.old == Some(n) {
                format!("stays {n}")
            } else {
                format!("goes from {} to {n}", maybe(&v.old, show))
            };
            format!(
                "`{}`: the stored shape changed but `schema_version` {now}: raise it to {next} (`@schema_version({next})`) so readers can tell old documents from new ones.",
                v.new_collection
            )
        }
        (true, true, None) => format!(
            "`{}`: the stored shape changed and the collection is not versioned: declare `@schema_version({next})` so readers can tell old documents from new ones.",
            v.new_collection
        ),
        (true, false, _) => format!(
            "`{}`: the stored shape changed and {versions}.",
            v.new_collection
        ),
        (false, _, _) => format!(
            "`{}`: {versions}, with no change of the stored shape.",
            v.new_collection
        ),
    };
    item(text, Vec::new())
}
