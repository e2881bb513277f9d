//! From the layout, its counts and the observed access to the draft: cardinalities from the
//! counts, `standalone` where the data shows it, queries from the indexes in place, rates from
//! index uses, and a comment with the measurement on every fact.

use mongodb::bson::DateTime;

use super::counts::{card, Counted};
use super::draft::{Card, Draft, End, Fact, FactKind, RelationDecl};
use super::layout::{Layout, LinkKind, Measure};
use super::names::{plural, snake};
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

    let queries = super::queries::queries(layout, i.samples, i.access, i.now);
    for (e, field, attrs, why) in &queries.attrs {
        if let Some(f) = entities[*e].fields.iter_mut().find(|f| f.name == *field) {
            for a in attrs {
                if !f.attrs.contains(a) {
                    f.attrs.push(a.clone());
                }
            }
            f.comments.push(why.clone());
        }
    }
    for (e, why) in &queries.notes {
        entities[*e].comments.push(why.clone());
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
            // A query through the reference reads the children of a parent, not a child alone.
            let own = queries.decls.iter().find(|q| {
                q.on == *child && !(q.conditions.len() == 1 && q.conditions[0].0 == l.right.1)
            });
            if own.is_some() || referenced.get(&l.right.0).copied().unwrap_or(0) > 1 {
                let why = match own {
                    Some(q) => format!(
                        "measured: {coll} is queried on its own (query `{}`)",
                        q.name
                    ),
                    None => format!("measured: {child} is referenced from more than one place"),
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
    d.queries = queries.decls;
    (d, inferred)
}

fn side_card(m: &Measure, c: Option<&Counted>, one_side: bool) -> Card {
    match (m, c) {
        (Measure::One, _) => Card::One,
        (Measure::BucketSums { .. }, _) => Card::Squillions,
        (Measure::HoldersPerTarget { .. }, Some(c)) => card(&c.histogram, one_side),
        // A reference in each child, no parent referred to twice: one to one.
        (Measure::PerTarget { .. }, Some(c)) => card(&c.histogram, true),
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

fn access_lines(a: &Access) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = &a.profiled {
        out.push(format!(
            "measured by the profiler over {}: {} reads, {} inserts, {} updates, {} removes",
            words::duration(p.seconds),
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
