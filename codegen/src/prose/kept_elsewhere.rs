//! W131 in words: a parent keeps lists or summaries of children that live as elements of another
//! entity's documents, which no generated write keeps. The engine finds the case
//! (`engine::warnings::kept_elsewhere`).

use super::{a, plural};

/// What a parent keeps of children stored inside another entity's documents.
pub(crate) struct KeptElsewhere<'a> {
    /// `Player.goals`.
    pub relation: &'a str,
    pub parent: &'a str,
    pub child: &'a str,
    /// The fields the parent keeps (`goals_count`, `goals` for a latest list).
    pub kept: Vec<String>,
    /// The relationship that stores the children as elements (`Match.goals`), its layout and
    /// the entity whose documents (or buckets) hold them.
    pub holder_relation: &'a str,
    pub holder_layout: &'a str,
    pub holder: &'a str,
}

/// The warning's message.
pub(crate) fn message(k: &KeptElsewhere<'_>) -> String {
    let kept: Vec<String> = k.kept.iter().map(|f| format!("`{f}`")).collect();
    let (last, rest) = kept
        .split_last()
        .map_or((String::new(), &[][..]), |(l, r)| (l.clone(), r));
    let kept = if rest.is_empty() {
        last
    } else {
        format!("{} and {last}", rest.join(", "))
    };
    format!(
        "{} keeps {kept} of its {} ({}), but {} are elements inside {}'s documents ({}, {}): no generated write of one keeps the {}'s fields, which would stay at their initial value",
        a(k.parent),
        plural(k.child),
        k.relation,
        plural(k.child),
        a(k.holder),
        k.holder_relation,
        k.holder_layout,
        k.parent
    )
}

/// What to do instead.
pub(crate) fn help(k: &KeptElsewhere<'_>) -> String {
    format!(
        "declare `standalone {child}` in {rel}: each {child} is then a document of its own, and its writes keep the {parent}'s lists and summaries; or remove the `summary`, `latest` or `top` from {rel} and compute them from the {holders}' elements when reading",
        child = k.child,
        rel = k.relation,
        parent = k.parent,
        holders = plural(k.holder)
    )
}
