//! Link collections (`layout link_collection`): one document per linked pair, written with
//! `link` (an upsert on the pair: true when the pair is new, else the link's own fields are set)
//! and `unlink`, and read from both ends (`get_link`, `by_<a>`, `by_<b>`, and the partners of
//! either end with the link's fields). After every step the checks hold each pair once and both
//! ends to documents that exist; the reads from both ends must list the same pairs.

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, CollectionRole, Decision, Plan, PlanField, Shape};

use crate::checks::compare;
use crate::documents::new_document;
use crate::model::{show, Reference};
use crate::ops::{Expect, Kind, Op, Schema};
use crate::unique::collides;
use crate::values::Rng;

/// One end of a link: its field in the link document and the collection it names.
pub struct End<'a> {
    /// The field.
    pub field: &'a PlanField,
    /// The collection of the documents it names.
    pub target: &'a Collection,
}

/// One link collection, as the harness drives it.
pub struct Linked<'a> {
    /// The relationship.
    pub d: &'a Decision,
    /// The link collection.
    pub c: &'a Collection,
    /// Its two ends, in the order the derive names them (`a`, `b`).
    pub ends: [End<'a>; 2],
}

/// Every link collection of `plan` with two ends it can resolve.
pub fn all(plan: &Plan) -> Vec<Linked<'_>> {
    let mut out = Vec::new();
    for c in &plan.collections {
        let CollectionRole::Link { relation } = &c.role else {
            continue;
        };
        let Some(d) = plan.relationship(relation) else {
            continue;
        };
        let ends: Vec<End<'_>> = d
            .placement
            .iter()
            .filter(|p| p.collection == c.name && p.shape == Shape::Id && !p.path.contains('.'))
            .filter_map(|p| {
                Some(End {
                    field: c.field(&p.path)?,
                    target: plan
                        .collections
                        .iter()
                        .find(|t| t.role == CollectionRole::Entity && t.entity == p.target)?,
                })
            })
            .collect();
        if let Ok(ends) = <[End<'_>; 2]>::try_from(ends) {
            out.push(Linked { d, c, ends });
        }
    }
    out
}

fn find<'a>(plan: &'a Plan, collection: &str) -> Option<Linked<'a>> {
    all(plan).into_iter().find(|x| x.c.name == collection)
}

impl Linked<'_> {
    /// The name of `by_<end>`.
    fn by(&self, end: usize) -> String {
        format!("by_{}", self.ends[end].field.code_name)
    }

    /// The name of the partners of `end` (`<other>s_of_<end>`).
    fn partners(&self, end: usize) -> String {
        format!(
            "{}s_of_{}",
            self.ends[1 - end].field.code_name,
            self.ends[end].field.code_name
        )
    }

    fn pair_of<'d>(&self, d: &'d Document) -> (Option<&'d Bson>, Option<&'d Bson>) {
        (
            d.get(&self.ends[0].field.name),
            d.get(&self.ends[1].field.name),
        )
    }

    /// The links naming `value` at `end`, ordered by the other end.
    fn of<'r>(&self, r: &'r Reference, end: usize, value: &Bson) -> Vec<&'r Document> {
        let (mine, other) = (&self.ends[end].field.name, &self.ends[1 - end].field.name);
        let mut links: Vec<&Document> = r
            .docs(&self.c.name)
            .iter()
            .filter(|d| d.get(mine) == Some(value))
            .collect();
        links.sort_by(|a, b| match (a.get(other), b.get(other)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => std::cmp::Ordering::Equal,
        });
        links
    }
}

/// Draws a link, an unlink or a read from either end, when the schema has a link collection.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    let all: Vec<Linked<'_>> = all(s.plan)
        .into_iter()
        .filter(|x| s.has(&x.c.name, "link"))
        .collect();
    let x = rng.pick(&all)?;
    let kind = Kind::LinkPair {
        collection: x.c.name.clone(),
    };
    let existing = r.docs(&x.c.name);
    match rng.below(8) {
        0..=3 => {
            let mut link = new_document(x.c, s, r, rng)?;
            // Now and then a pair already linked: the link's own fields are set.
            if let (Some(old), true) = (rng.pick(existing), rng.below(3) == 0) {
                for e in &x.ends {
                    link.insert(e.field.name.clone(), old.get(&e.field.name)?.clone());
                }
            }
            Some(Op::new(
                &x.c.name,
                "link".into(),
                vec![Bson::Document(link)],
                kind,
            ))
        }
        4 => {
            // An existing pair, or (now and then) a pair never linked.
            let (a, b) = match rng.pick(existing) {
                Some(d) if rng.below(4) != 0 => {
                    let (a, b) = x.pair_of(d);
                    (a?.clone(), b?.clone())
                }
                _ => (
                    rng.pick(r.docs(&x.ends[0].target.name))?
                        .get("_id")?
                        .clone(),
                    rng.pick(r.docs(&x.ends[1].target.name))?
                        .get("_id")?
                        .clone(),
                ),
            };
            let method = if rng.below(2) == 0 {
                "unlink"
            } else {
                "get_link"
            };
            s.has(&x.c.name, method)
                .then(|| Op::new(&x.c.name, method.into(), vec![a, b], kind))
        }
        _ => {
            let end = usize::from(rng.below(2) == 1);
            let value = rng
                .pick(r.docs(&x.ends[end].target.name))?
                .get("_id")?
                .clone();
            let method = if rng.below(2) == 0 {
                x.by(end)
            } else {
                x.partners(end)
            };
            let per_page = 1 + rng.below(4);
            let count = x.of(r, end, &value).len();
            let request = bson::doc! {
                "page": i64::try_from(rng.below(count / per_page + 1)).unwrap_or(0),
                "per_page": i64::try_from(per_page).unwrap_or(1),
            };
            s.has(&x.c.name, &method).then(|| {
                Op::new(
                    &x.c.name,
                    method,
                    vec![value, Bson::Document(request)],
                    kind,
                )
            })
        }
    }
}

/// Applies a link, an unlink or a read of links to the reference.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op) -> Option<Expect> {
    let x = find(s.plan, &op.collection)?;
    let args = op.bson_args();
    let (a, b) = (&x.ends[0].field.name, &x.ends[1].field.name);
    match op.method.as_str() {
        "link" => {
            let link = args.first()?.as_document()?.clone();
            let (va, vb) = (link.get(a)?.clone(), link.get(b)?.clone());
            // Both ends exist (a replay after shrinking may have dropped their inserts).
            r.get(&x.ends[0].target.name, &va)?;
            r.get(&x.ends[1].target.name, &vb)?;
            let at = r
                .docs(&x.c.name)
                .iter()
                .position(|d| d.get(a) == Some(&va) && d.get(b) == Some(&vb));
            let after = match at {
                Some(i) => {
                    // `$set` of the link's own fields; `_id` and the pair stay.
                    let mut d = r.docs(&x.c.name).get(i)?.clone();
                    for (k, v) in &link {
                        if k != "_id" && k != a && k != b {
                            d.insert(k.clone(), v.clone());
                        }
                    }
                    d
                }
                None => link,
            };
            if collides(x.c, r.docs(&x.c.name), &after) {
                return Some(Expect::Duplicate);
            }
            match at {
                Some(i) => *r.docs_mut(&x.c.name).get_mut(i)? = after,
                None => r.docs_mut(&x.c.name).push(after),
            }
            Some(Expect::Value(Bson::Boolean(at.is_none())))
        }
        "unlink" | "get_link" => {
            let (va, vb) = (args.first()?, args.get(1)?);
            let found = r
                .docs(&x.c.name)
                .iter()
                .find(|d| d.get(a) == Some(va) && d.get(b) == Some(vb))
                .cloned();
            if op.method == "get_link" {
                return Some(Expect::Value(found.map_or(Bson::Null, Bson::Document)));
            }
            if let Some(d) = &found {
                r.remove(&x.c.name, d.get("_id")?);
            }
            Some(Expect::Value(Bson::Boolean(found.is_some())))
        }
        m => {
            let end = (0..2).find(|e| m == x.by(*e) || m == x.partners(*e))?;
            let value = args.first()?;
            let request = args.get(1)?.as_document()?;
            let page = usize::try_from(request.get_i64("page").ok()?).ok()?;
            let per_page = usize::try_from(request.get_i64("per_page").ok()?).ok()?;
            let links: Vec<Document> = x
                .of(r, end, value)
                .into_iter()
                .skip(page * per_page)
                .take(per_page)
                .cloned()
                .collect();
            if m == x.by(end) {
                return Some(Expect::Value(Bson::Array(
                    links.into_iter().map(Bson::Document).collect(),
                )));
            }
            let other = &x.ends[1 - end];
            let pairs = links
                .into_iter()
                .filter_map(|l| {
                    let partner = r.get(&other.target.name, l.get(&other.field.name)?)?;
                    Some(Bson::Array(vec![
                        Bson::Document(l.clone()),
                        Bson::Document(partner.clone()),
                    ]))
                })
                .collect();
            Some(Expect::Value(Bson::Array(pairs)))
        }
    }
}

/// The link collections' invariants on the stored documents: each pair is linked once, and both
/// ends name documents that exist (or were deleted by an operation that leaves what names them:
/// [`Reference::deleted`]).
pub fn invariants(plan: &Plan, stored: &Reference, found: &mut Vec<String>) {
    for x in all(plan) {
        let mut seen: Vec<(Bson, Bson)> = Vec::new();
        for d in stored.docs(&x.c.name) {
            let id = show(d.get("_id").unwrap_or(&Bson::Null));
            let (a, b) = x.pair_of(d);
            let pair = (
                a.cloned().unwrap_or(Bson::Null),
                b.cloned().unwrap_or(Bson::Null),
            );
            if seen.contains(&pair) {
                found.push(format!(
                    "link collection `{}`: the pair ({}, {}) is linked twice",
                    x.c.name,
                    show(&pair.0),
                    show(&pair.1)
                ));
            }
            seen.push(pair);
            for (e, v) in x.ends.iter().zip([a, b]) {
                if v.is_none_or(|v| {
                    stored.get(&e.target.name, v).is_none()
                        && !stored.was_deleted(&e.target.name, v)
                }) {
                    found.push(format!(
                        "link {id} of `{}` names {} at `{}`, which `{}` does not hold",
                        x.c.name,
                        v.map_or("nothing".into(), show),
                        e.field.name,
                        e.target.name
                    ));
                }
            }
        }
    }
}
