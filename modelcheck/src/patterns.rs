//! The entity patterns with their own write path, which plain inserts would break: trees
//! (`insert_under`, then `children`, `descendants`, `ancestors`), queues (`enqueue`,
//! `claim_next`, `complete`, `release`, `count_waiting`, `in_progress`) and document versioning
//! (`new_version`, `current_at`, `versions`). The reference applies each method's documented
//! meaning; the server's validator checks every document they write.

use std::cmp::Ordering;

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, PlanField};

use crate::checks::compare;
use crate::documents::{new_document, zero};
use crate::model::Reference;
use crate::ops::{Expect, Kind, Op, Schema};
use crate::unique::collides;
use crate::values::{self, Rng};

/// Which pattern a collection follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    Tree,
    Queue,
    Versioned,
}

fn pattern_of(c: &Collection) -> Option<Pattern> {
    c.patterns.iter().find_map(|p| match p.name.as_str() {
        "tree" => Some(Pattern::Tree),
        "queue" => Some(Pattern::Queue),
        "document_versioning" if c.field("valid_from").is_some() => Some(Pattern::Versioned),
        _ => None,
    })
}

/// The BSON name of the field of `c` the derive knows as `code` (its default names).
fn name(c: &Collection, code: &str) -> String {
    c.fields
        .iter()
        .find(|f| f.code_name == code)
        .map_or_else(|| code.to_owned(), |f| f.name.clone())
}

fn field<'a>(c: &'a Collection, code: &str) -> Option<&'a PlanField> {
    c.fields.iter().find(|f| f.code_name == code)
}

/// The queue's priority: the second key of its claim index `{in_progress, <priority>, _id}`.
fn priority(c: &Collection) -> String {
    c.indexes
        .iter()
        .find(|i| i.keys.len() >= 2 && i.keys[0].path == "in_progress")
        .map_or_else(|| name(c, "priority"), |i| i.keys[1].path.clone())
}

fn by_id(a: &&Document, b: &&Document) -> Ordering {
    match (a.get("_id"), b.get("_id")) {
        (Some(x), Some(y)) => compare(x, y),
        _ => Ordering::Equal,
    }
}

fn docs_value(docs: Vec<&Document>) -> Bson {
    Bson::Array(docs.into_iter().cloned().map(Bson::Document).collect())
}

/// Draws a call of a pattern's methods, when the schema has a collection following one.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    let all: Vec<(&Collection, Pattern)> = s
        .plan
        .collections
        .iter()
        .filter_map(|c| Some((c, pattern_of(c)?)))
        .collect();
    let (c, p) = *rng.pick(&all)?;
    // Children of a list refilled from them are written through their parent, which a
    // pattern's own write path does not do.
    if crate::subsets::is_children(s.plan, c) {
        return None;
    }
    let kind = Kind::Pattern {
        collection: c.name.clone(),
    };
    let docs = r.docs(&c.name);
    let some_id = |rng: &mut Rng| rng.pick(docs).and_then(|d| d.get("_id")).cloned();
    let (method, args): (&str, Vec<Bson>) = match p {
        Pattern::Tree => match rng.below(6) {
            0..=2 => {
                let mut node = new_document(c, s, r, rng)?;
                node.insert(name(c, "parent"), Bson::Null);
                node.insert(name(c, "ancestors"), Bson::Array(vec![]));
                let parent = if rng.below(3) == 0 {
                    None
                } else {
                    some_id(rng)
                };
                (
                    "insert_under",
                    vec![parent.unwrap_or(Bson::Null), Bson::Document(node)],
                )
            }
            3 => ("children", vec![some_id(rng)?]),
            4 => ("descendants", vec![some_id(rng)?]),
            _ => ("ancestors", vec![some_id(rng)?]),
        },
        Pattern::Queue => match rng.below(8) {
            0..=2 => {
                let mut job = new_document(c, s, r, rng)?;
                job.insert(name(c, "in_progress"), false);
                if let Some(f) = field(c, "started").filter(|f| !f.optional) {
                    job.insert(f.name.clone(), values::scalar(&f.bson_type, rng));
                }
                ("enqueue", vec![Bson::Document(job)])
            }
            3 | 4 => ("claim_next", vec![]),
            5 => ("complete", vec![some_id(rng)?]),
            6 => ("release", vec![some_id(rng)?]),
            _ if rng.below(2) == 0 => ("count_waiting", vec![]),
            _ => ("in_progress", vec![]),
        },
        Pattern::Versioned => {
            let key_name = name(c, "document_id");
            let from_name = name(c, "valid_from");
            let key = match rng.pick(docs) {
                Some(d) if rng.below(2) == 0 => d.get(&key_name).cloned(),
                _ => None,
            };
            match rng.below(4) {
                0 | 1 => {
                    let mut doc = new_document(c, s, r, rng)?;
                    let key = match key {
                        Some(k) => k,
                        None => values::scalar(&field(c, "document_id")?.bson_type, rng),
                    };
                    // Each version starts after the latest one of its document.
                    let latest = docs
                        .iter()
                        .filter(|d| d.get(&key_name) == Some(&key))
                        .filter_map(|d| d.get_datetime(&from_name).ok())
                        .map(|t| t.timestamp_millis())
                        .max();
                    let from = match latest {
                        Some(ms) => bson::DateTime::from_millis(
                            ms + 86_400_000 * (1 + i64::try_from(rng.below(3)).unwrap_or(0)),
                        ),
                        None => values::scalar("date", rng).as_datetime()?.to_owned(),
                    };
                    doc.insert(key_name, key);
                    doc.insert(from_name, from);
                    // Open: null, or where the type wants a date, one far ahead (2100).
                    let open = match field(c, "valid_to") {
                        Some(f) if !f.optional => {
                            Bson::DateTime(bson::DateTime::from_millis(4_102_444_800_000))
                        }
                        _ => Bson::Null,
                    };
                    doc.insert(name(c, "valid_to"), open);
                    let version = field(c, "version")?;
                    doc.insert(version.name.clone(), zero(&version.bson_type));
                    ("new_version", vec![Bson::Document(doc)])
                }
                2 => {
                    let d = rng.pick(docs)?;
                    let at = d.get(&from_name)?.as_datetime()?.timestamp_millis()
                        + 3_600_000 * (i64::try_from(rng.below(60)).unwrap_or(0) - 12);
                    (
                        "current_at",
                        vec![
                            d.get(&key_name)?.clone(),
                            Bson::DateTime(bson::DateTime::from_millis(at)),
                        ],
                    )
                }
                _ => (
                    "versions",
                    vec![key.or_else(|| rng.pick(docs).and_then(|d| d.get(&key_name)).cloned())?],
                ),
            }
        }
    };
    if !s.has(&c.name, method) {
        return None;
    }
    // A new document that is a child of a two-way relationship is linked from its parent too.
    let written = match method {
        "insert_under" => args.get(1),
        "enqueue" | "new_version" => args.first(),
        _ => None,
    };
    let then = match written.and_then(Bson::as_document) {
        Some(doc) => crate::draw::links_of_new_child(s, r, c, doc, false)?,
        None => Vec::new(),
    };
    let mut op = Op::new(&c.name, method.to_owned(), args, kind);
    op.then = then;
    Some(op)
}

/// Applies a call of a pattern's method to the reference.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op) -> Option<Expect> {
    let c = s.plan.collection(&op.collection)?;
    let args = op.bson_args();
    let docs = r.docs(&c.name);
    match op.method.as_str() {
        "insert_under" => {
            let (parent, node) = (args.first()?, args.get(1)?.as_document()?);
            let (p, a) = (name(c, "parent"), name(c, "ancestors"));
            let mut node = crate::apply::stamped(c, node.clone());
            if *parent == Bson::Null {
                // The typed document leaves an optional `None` out.
                if field(c, "parent").is_some_and(|f| f.optional) {
                    node.remove(&p);
                } else {
                    node.insert(p, Bson::Null);
                }
                node.insert(a, Bson::Array(vec![]));
            } else {
                let mut ancestors = r.get(&c.name, parent)?.get_array(&a).ok()?.clone();
                ancestors.push(parent.clone());
                node.insert(p, parent.clone());
                node.insert(a, ancestors);
            }
            if r.get(&c.name, node.get("_id")?).is_some() || collides(c, docs, &node) {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(&c.name).push(node.clone());
            Some(Expect::Value(Bson::Document(node)))
        }
        "children" | "descendants" => {
            let id = args.first()?;
            let (path, through) = if op.method == "children" {
                (name(c, "parent"), false)
            } else {
                (name(c, "ancestors"), true)
            };
            let mut found: Vec<&Document> = docs
                .iter()
                .filter(|d| match d.get(&path) {
                    Some(Bson::Array(a)) if through => a.contains(id),
                    v => !through && v == Some(id),
                })
                .collect();
            found.sort_by(by_id);
            Some(Expect::Value(docs_value(found)))
        }
        "ancestors" => {
            let node = r.get(&c.name, args.first()?)?;
            let found: Vec<&Document> = node
                .get_array(name(c, "ancestors"))
                .ok()?
                .iter()
                .filter_map(|id| r.get(&c.name, id))
                .collect();
            Some(Expect::Value(docs_value(found)))
        }
        "enqueue" => {
            let job = crate::apply::stamped(c, args.first()?.as_document()?.clone());
            if r.get(&c.name, job.get("_id")?).is_some() || collides(c, docs, &job) {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(&c.name).push(job);
            Some(Expect::Ok)
        }
        "claim_next" => {
            let (flag, pri) = (name(c, "in_progress"), priority(c));
            let next = docs
                .iter()
                .filter(|d| d.get(&flag) == Some(&Bson::Boolean(false)))
                .min_by(|a, b| {
                    let by_priority = match (a.get(&pri), b.get(&pri)) {
                        (Some(x), Some(y)) => compare(y, x),
                        (Some(_), None) => Ordering::Less,
                        (None, Some(_)) => Ordering::Greater,
                        (None, None) => Ordering::Equal,
                    };
                    by_priority.then_with(|| by_id(a, b))
                })
                .and_then(|d| d.get("_id"))
                .cloned();
            let Some(id) = next else {
                return Some(Expect::Value(Bson::Null));
            };
            let d = r.get_mut(&c.name, &id)?;
            d.insert(flag, true);
            Some(Expect::Claimed {
                job: d.clone(),
                started: name(c, "started"),
            })
        }
        "complete" | "release" => {
            let flag = name(c, "in_progress");
            let id = args.first()?;
            let running = r.get(&c.name, id)?.get(&flag) == Some(&Bson::Boolean(true));
            if running {
                if op.method == "complete" {
                    // The queue keeps no done flag: the job is deleted, whatever names it.
                    r.remove(&c.name, id);
                    if r.mentions(id) {
                        r.deleted.push((c.name.clone(), id.clone()));
                    }
                } else {
                    r.get_mut(&c.name, id)?.insert(flag, false);
                }
            }
            Some(Expect::Value(Bson::Boolean(running)))
        }
        "count_waiting" | "in_progress" => {
            let (flag, pri) = (name(c, "in_progress"), priority(c));
            let waiting = op.method == "count_waiting";
            let mut found: Vec<&Document> = docs
                .iter()
                .filter(|d| d.get(&flag) == Some(&Bson::Boolean(!waiting)))
                .collect();
            if waiting {
                return Some(Expect::Value(Bson::Int64(
                    i64::try_from(found.len()).unwrap_or(0),
                )));
            }
            found.sort_by(|a, b| {
                match (a.get(&pri), b.get(&pri)) {
                    (Some(x), Some(y)) => compare(y, x),
                    _ => Ordering::Equal,
                }
                .then_with(|| by_id(a, b))
            });
            Some(Expect::Value(docs_value(found)))
        }
        "new_version" => {
            let (key, version, from, to) = (
                name(c, "document_id"),
                name(c, "version"),
                name(c, "valid_from"),
                name(c, "valid_to"),
            );
            let mut doc = crate::apply::stamped(c, args.first()?.as_document()?.clone());
            let k = doc.get(&key)?.clone();
            let latest = docs
                .iter()
                .filter(|d| d.get(&key) == Some(&k))
                .max_by(|a, b| match (a.get(&version), b.get(&version)) {
                    (Some(x), Some(y)) => compare(x, y),
                    _ => Ordering::Equal,
                })
                .cloned();
            let next = latest
                .as_ref()
                .and_then(|d| match d.get(&version)? {
                    Bson::Int32(n) => Some(i64::from(*n)),
                    Bson::Int64(n) => Some(*n),
                    _ => None,
                })
                .map_or(1, |v| v + 1);
            // Numbered in the type the Plan's validator gives the version.
            let typed = match field(c, "version")?.bson_type.as_str() {
                "long" => Bson::Int64(next),
                _ => Bson::Int32(i32::try_from(next).unwrap_or(i32::MAX)),
            };
            doc.insert(version, typed);
            if r.get(&c.name, doc.get("_id")?).is_some() || collides(c, docs, &doc) {
                return Some(Expect::Duplicate);
            }
            if let (Some(latest), Some(f)) = (latest, doc.get(&from).cloned()) {
                let open = match latest.get(&to) {
                    None | Some(Bson::Null) => true,
                    Some(t) => compare(t, &f) == Ordering::Greater,
                };
                if open {
                    r.get_mut(&c.name, latest.get("_id")?)?.insert(to, f);
                }
            }
            r.docs_mut(&c.name).push(doc.clone());
            Some(Expect::Value(Bson::Document(doc)))
        }
        "current_at" => {
            let (key, from, to) = (
                name(c, "document_id"),
                name(c, "valid_from"),
                name(c, "valid_to"),
            );
            let (k, at) = (args.first()?, args.get(1)?);
            let current = docs
                .iter()
                .filter(|d| d.get(&key) == Some(k))
                .filter(|d| {
                    d.get(&from)
                        .is_some_and(|f| compare(f, at) != Ordering::Greater)
                })
                .filter(|d| match d.get(&to) {
                    None | Some(Bson::Null) => true,
                    Some(t) => compare(t, at) == Ordering::Greater,
                })
                .max_by(|a, b| match (a.get(&from), b.get(&from)) {
                    (Some(x), Some(y)) => compare(x, y),
                    _ => Ordering::Equal,
                });
            Some(Expect::Value(
                current.cloned().map_or(Bson::Null, Bson::Document),
            ))
        }
        "versions" => {
            let (key, version) = (name(c, "document_id"), name(c, "version"));
            let k = args.first()?;
            let mut found: Vec<&Document> =
                docs.iter().filter(|d| d.get(&key) == Some(k)).collect();
            found.sort_by(|a, b| match (a.get(&version), b.get(&version)) {
                (Some(x), Some(y)) => compare(x, y),
                _ => Ordering::Equal,
            });
            Some(Expect::Value(docs_value(found)))
        }
        _ => None,
    }
}
