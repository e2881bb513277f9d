//! From the layout, its counts and the observed access to the draft: cardinalities from the
//! counts, `standalone` where the data shows it, queries from the indexes in place, rates from
//! index uses, and a comment with the measurement on every fact.

use mongodb::bson::{DateTime, Document};
use mongodb::options::IndexOptions;

use super::counts::{card, Counted};
use super::draft::{Attr, Card, Draft, End, Fact, FactKind, QueryDecl, RelationDecl};
use super::layout::{Layout, LinkKind, Measure};
use super::names::{field_name, plural, singular, snake, Namer};
use super::path::Loc;
use super::sample::Sampled;
use super::stats::Access;
use super::words;

/// A relation as inferred, for tests and reports: where each entity lives and the classes.
#[derive(Debug, Clone, PartialEq)]
pub struct Inferred {
    /// The layout it had.
    pub kind: LinkKind,
    /// The left entity's place (`books`, `book_notes.notes[]`) and end.
    pub left: (String, String),
    /// The right entity's place and end.
    pub right: (String, String),
    /// The class of the left end (how many of the right one left has).
    pub left_class: &'static str,
    /// The class of the right end.
    pub right_class: &'static str,
}

/// What the draft is made from.
pub struct Inputs<'a> {
    /// The database's name.
    pub database: &'a str,
    /// Documents sampled per collection (at most).
    pub sample: u64,
    /// The sampled collections.
    pub samples: &'a [Sampled],
    /// The layout read from them.
    pub layout: Layout,
    /// Per link: the counts of its left and right measure.
    pub counted: Vec<(Option<Counted>, Option<Counted>)>,
    /// Per collection: observed access.
    pub access: &'a [Access],
    /// Notes about the server.
    pub notes: &'a [String],
    /// Collections not read, with why.
    pub skipped: &'a [String],
    /// Now, for index use rates.
    pub now: DateTime,
}

/// The draft and the relations it states.
pub fn draft(i: Inputs<'_>) -> (Draft, Vec<Inferred>) {
    let mut d = Draft::default();
    let sampled: u64 = i.samples.iter().map(|s| s.sampled).sum();
    d.header.push(format!(
        "Inferred by `squillion infer` from database `{}`: {}, {} documents sampled (up to {} per collection).",
        i.database,
        words::count(i.samples.len() as u64, "collection", "collections"),
        words::n(sampled),
        words::n(i.sample)
    ));
    d.header.push(
        "Each `measured:` comment says what the data showed. The data cannot say what is read on its own, what is read together or how often a field changes: check every fact, add what only you know, then run `squillion plan`."
            .to_owned(),
    );
    let profiled = i.access.iter().any(|a| a.profiled.is_some());
    if !profiled {
        d.header.push(
            "The profiler recorded nothing: state how often queries run (`rate`) and how often copied fields change (`ratio` or `@updates`) yourself."
                .to_owned(),
        );
    }
    for n in i.notes {
        d.header.push(format!("Note: {n}"));
    }
    for s in i.skipped {
        d.header.push(format!("Not read: {s}"));
    }

    let layout = &i.layout;
    let mut entities: Vec<_> = layout.entities.iter().map(|e| e.decl.clone()).collect();
    for (e, ent) in layout.entities.iter().enumerate() {
        if !ent.place.is_root() {
            continue;
        }
        let s = &i.samples[ent.coll];
        let mut lines = vec![format!(
            "measured: `{}` holds about {} (the server's estimate), {} sampled",
            s.name,
            words::count(s.estimated, "document", "documents"),
            words::n(s.sampled)
        )];
        lines.extend(access_lines(&i.access[ent.coll]));
        lines.append(&mut entities[e].comments);
        entities[e].comments = lines;
    }

    let mut queries = Vec::new();
    let mut query_names = Namer::default();
    let mut with_queries = std::collections::BTreeSet::new();
    for (e, ent) in layout.entities.iter().enumerate() {
        if !ent.place.is_root() {
            continue;
        }
        let s = &i.samples[ent.coll];
        for (keys, options) in &s.indexes {
            let uses = i.access[ent.coll].indexes.as_ref().map(|u| {
                u.iter()
                    .find(|u| Some(&u.name) == options.name.as_ref())
                    .cloned()
            });
            match index(layout, e, keys, options) {
                Indexed::Attr(field, attrs, why) => {
                    if let Some(f) = entities[e].fields.iter_mut().find(|f| f.name == field) {
                        for a in attrs {
                            if !f.attrs.contains(&a) {
                                f.attrs.push(a);
                            }
                        }
                        f.comments.push(why);
                    }
                }
                Indexed::Query(conditions, why) => {
                    let entity = &entities[e].name;
                    let wanted = format!(
                        "{}_by_{}",
                        snake(entity),
                        conditions
                            .iter()
                            .map(|(p, _)| snake(p))
                            .collect::<Vec<_>>()
                            .join("_and_")
                    );
                    let mut comments = vec![why];
                    let rate = match uses {
                        None => {
                            comments.push(
                                "state its rate: the server keeps no index statistics".to_owned(),
                            );
                            None
                        }
                        Some(None) => None,
                        Some(Some(u)) if u.ops == 0 => {
                            comments.push(
                                "measured: not used since the server started counting".to_owned(),
                            );
                            None
                        }
                        Some(Some(u)) => {
                            let secs = u.since.map_or(0.0, |since| {
                                (i.now.timestamp_millis() - since.timestamp_millis()) as f64
                                    / 1000.0
                            });
                            comments.push(format!(
                                "measured: used {} times in {} ($indexStats)",
                                words::n(u.ops),
                                duration(secs)
                            ));
                            Some(u.ops as f64 / secs.max(1.0))
                        }
                    };
                    with_queries.insert(e);
                    queries.push(QueryDecl {
                        name: query_names.unique(&wanted),
                        on: entity.clone(),
                        comments,
                        conditions,
                        rate_per_second: rate,
                    });
                }
                Indexed::Skip(why) => {
                    if let Some(why) = why {
                        entities[e].comments.push(why);
                    }
                }
            }
        }
    }

    // Entities referenced from more than one place are read through more than one parent.
    let mut referenced: std::collections::BTreeMap<usize, usize> = Default::default();
    for l in &layout.links {
        if matches!(l.kind, LinkKind::ChildRef | LinkKind::ParentRefs) {
            *referenced.entry(l.right.0).or_default() += 1;
        }
    }

    let mut inferred = Vec::new();
    for (l, (lc, rc)) in layout.links.iter().zip(&i.counted) {
        let left = &layout.entities[l.left.0];
        let right = &layout.entities[l.right.0];
        let left_card = side_card(&l.left_measure, lc.as_ref(), false);
        let right_card = side_card(&l.right_measure, rc.as_ref(), true);
        let mut comments = l.comments.clone();
        if let Some(c) = lc {
            comments.push(sentence(c, &right.decl.name, &left.decl.name));
        }
        if let Some(c) = rc {
            comments.push(sentence(c, &left.decl.name, &right.decl.name));
        }
        if l.kind == LinkKind::Bucket {
            comments.push(
                "bucketed: the layout expects no bound on the children, so the class is squillions whatever the count".to_owned(),
            );
        }
        let uncounted = |c: &Option<Counted>, m: &Measure| c.is_none() && *m != Measure::One;
        if uncounted(lc, &l.left_measure) || uncounted(rc, &l.right_measure) {
            comments.push("not counted (see the notes at the top): state how many".to_owned());
        }
        let mut facts = l.facts.clone();
        if let (LinkKind::ChildRef | LinkKind::ParentRefs, true) = (l.kind, right.place.is_root()) {
            let child = &right.decl.name;
            let coll = &i.samples[right.coll].name;
            if with_queries.contains(&l.right.0)
                || referenced.get(&l.right.0).copied().unwrap_or(0) > 1
            {
                let why = if with_queries.contains(&l.right.0) {
                    format!("measured: {coll} has indexes of its own (see its queries)")
                } else {
                    format!("measured: {child} is referenced from more than one place")
                };
                facts.insert(
                    0,
                    Fact {
                        comments: vec![why],
                        kind: FactKind::Standalone(child.clone()),
                    },
                );
            } else {
                comments.push(format!(
                    "{child} has a collection of its own ({coll}): add `standalone {child}` if it is read on its own, not only through its {}",
                    left.decl.name
                ));
            }
        }
        for f in &mut facts {
            ratio(f, layout, l.left.0, l.right.0, i.access);
        }
        inferred.push(Inferred {
            kind: l.kind,
            left: (left.decl.place.clone(), l.left.1.clone()),
            right: (right.decl.place.clone(), l.right.1.clone()),
            left_class: left_card.class(),
            right_class: right_card.class(),
        });
        d.relations.push(RelationDecl {
            comments,
            left: End {
                entity: left.decl.name.clone(),
                field: l.left.1.clone(),
                card: left_card,
            },
            right: End {
                entity: right.decl.name.clone(),
                field: l.right.1.clone(),
                card: right_card,
            },
            facts,
        });
    }
    d.values = layout.values.clone();
    d.entities = entities;
    d.queries = queries;
    (d, inferred)
}

fn side_card(m: &Measure, c: Option<&Counted>, one_side: bool) -> Card {
    match (m, c) {
        (Measure::One, _) => Card::One,
        (Measure::BucketSums { .. }, _) => Card::Squillions,
        (Measure::HoldersPerTarget { .. }, Some(c)) => card(&c.histogram, one_side),
        (_, Some(c)) => card(&c.histogram, false),
        (_, None) => Card::Many {
            max: None,
            typical: None,
        },
    }
}

/// `measured: Books per Author: p50 3, p99 41, max 287 (all 1,000 authors counted)`.
fn sentence(c: &Counted, of: &str, per: &str) -> String {
    format!(
        "measured: {} per {per}: {} ({}; {} with none)",
        plural(&snake(of)),
        words::spread(&c.histogram),
        c.how,
        words::n(c.histogram.total() - c.histogram.nonzero()),
    )
}

fn duration(secs: f64) -> String {
    if secs >= 86_400.0 {
        format!("{:.1} days", secs / 86_400.0)
    } else if secs >= 3_600.0 {
        format!("{:.1} hours", secs / 3_600.0)
    } else if secs >= 60.0 {
        format!("{:.0} minutes", secs / 60.0)
    } else {
        format!("{:.0} seconds", secs.max(1.0))
    }
}

fn access_lines(a: &Access) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = &a.profiled {
        out.push(format!(
            "measured by the profiler over {}: {} reads, {} inserts, {} updates, {} removes",
            duration(p.seconds),
            words::n(p.reads),
            words::n(p.inserts),
            words::n(p.updates),
            words::n(p.removes)
        ));
    }
    if let Some((r, w)) = a.latency {
        if r + w > 0 {
            out.push(format!(
                "measured by $collStats: {} reads and {} writes since the server started",
                words::n(r),
                words::n(w)
            ));
        }
    }
    out
}

/// A `show` fact gets the ratio of reads of the holder to updates of the source, when the
/// profiler saw both.
fn ratio(f: &mut Fact, layout: &Layout, a: usize, b: usize, access: &[Access]) {
    let FactKind::Show { on, ratio, .. } = &mut f.kind else {
        return;
    };
    let (holder, source) = if layout.entities[a].decl.name == *on {
        (a, b)
    } else {
        (b, a)
    };
    let coll = |e: usize| layout.entities[e].coll;
    let reads = access[coll(holder)]
        .profiled
        .as_ref()
        .map_or(0, |p| p.reads);
    let updates = access[coll(source)]
        .profiled
        .as_ref()
        .map_or(0, |p| p.updates);
    if reads > 0 && updates > 0 {
        *ratio = Some(((reads / updates).max(1), 1));
        f.comments.push(format!(
            "measured by the profiler: {} reads of {} per update of {}",
            words::n(reads / updates),
            on,
            layout.entities[source].decl.name
        ));
    } else {
        f.comments.push(
            "state how often the copied fields change (`ratio R:W`): without it the engine does not copy them"
                .to_owned(),
        );
    }
}

/// What an index in place becomes.
enum Indexed {
    /// Attributes on a field (name, attributes, why).
    Attr(String, Vec<Attr>, String),
    /// A query (equality conditions, why).
    Query(Vec<(String, bool)>, String),
    /// Nothing (the reason, when it is worth a comment).
    Skip(Option<String>),
}

fn index(layout: &Layout, e: usize, keys: &Document, options: &IndexOptions) -> Indexed {
    let name = options.name.clone().unwrap_or_default();
    let spec = keys.to_string();
    let ignore_case = options
        .collation
        .as_ref()
        .and_then(|c| c.strength)
        .is_some_and(|s| {
            matches!(
                s,
                mongodb::options::CollationStrength::Primary
                    | mongodb::options::CollationStrength::Secondary
            )
        });
    let plain = keys.values().all(|v| super::shape::number(v).is_some());
    if !plain {
        return Indexed::Skip(Some(format!(
            "measured: index {name} {spec} is not a plain index; the language does not state it"
        )));
    }
    let paths: Vec<Option<String>> = keys.keys().map(|k| path(layout, e, k)).collect();
    if paths.iter().any(Option::is_none) {
        return Indexed::Skip(Some(format!(
            "measured: index {name} {spec} is on fields the draft does not declare here (patterns or references)"
        )));
    }
    let paths: Vec<String> = paths.into_iter().flatten().collect();
    let ent = &layout.entities[e];
    let is_field = |p: &str| ent.decl.fields.iter().any(|f| f.name == p);
    if paths.len() == 1 && is_field(&paths[0]) {
        let mut attrs = Vec::new();
        if options.unique == Some(true) {
            attrs.push(Attr::Unique);
        }
        if let Some(ttl) = options.expire_after {
            attrs.push(Attr::Expires(ttl.as_secs()));
        }
        if !attrs.is_empty() {
            if ignore_case {
                attrs.push(Attr::IgnoreCase);
            }
            return Indexed::Attr(
                paths[0].clone(),
                attrs,
                format!("measured: index {name} {spec}"),
            );
        }
    }
    if paths.len() == 1
        && ent
            .names
            .get(keys.keys().next().map(String::as_str).unwrap_or(""))
            .is_some_and(|n| !is_field(n))
    {
        return Indexed::Skip(None);
    }
    let mut why = format!("measured: index {name} {spec}");
    if options.unique == Some(true) {
        why.push_str(" is unique; the language states uniqueness of one field only");
    }
    Indexed::Query(paths.into_iter().map(|p| (p, ignore_case)).collect(), why)
}

/// The draft's path for an indexed BSON path at entity `e`'s documents, if the draft declares
/// it: field names for keys, relation ends for references (an extended reference's `id` is the
/// end itself), fields of embedded entities and value types below.
fn path(layout: &Layout, e: usize, key: &str) -> Option<String> {
    let ent = &layout.entities[e];
    let mut out: Vec<String> = Vec::new();
    let mut place: Option<Loc> = Some(ent.place.clone());
    let segments: Vec<&str> = key.split('.').collect();
    for (n, seg) in segments.iter().enumerate() {
        let here = place.as_ref().and_then(|p| {
            layout
                .entities
                .iter()
                .find(|x| x.coll == ent.coll && x.place == *p)
        });
        match here {
            Some(x) => {
                let name = x.names.get(*seg)?;
                // Keys inside a map are data: its index is the attribute pattern's.
                let is_map = x
                    .decl
                    .fields
                    .iter()
                    .any(|f| f.name == *name && matches!(f.ty, super::draft::TypeExpr::Map(_)));
                if is_map {
                    return None;
                }
                out.push(name.clone());
                let p = place.take()?;
                place = [true, false]
                    .into_iter()
                    .map(|each| p.child(seg, each))
                    .find(|c| {
                        layout
                            .entities
                            .iter()
                            .any(|x| x.coll == ent.coll && x.place == *c)
                    });
                if place.is_none()
                    && n + 2 == segments.len()
                    && matches!(segments[n + 1], "id" | "_id")
                {
                    return Some(out.join("."));
                }
            }
            None => out.push(field_name(seg)),
        }
    }
    Some(out.join("."))
}

/// The singular of a collection's name, for sentences.
pub fn one_of(collection: &str) -> String {
    singular(collection)
}
