//! Drawing an operation the current state allows: inserts, replacements and deletes, and the
//! layout methods each relationship gives a collection's repository.

use bson::{Bson, Document};
use squillion_codegen::plan::{
    Collection, ComputedFn, FieldKind, Layout, Plan, PlanField, Shape, SummaryFn,
};

use crate::documents::{copy_source, fill, new_document, reference_to};
use crate::model::Reference;
use crate::ops::{writable, Kind, Op, Schema};
use crate::values::{self, Context, Rng};

/// Draws one operation the current state allows, or `None` when none applies.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    for _ in 0..20 {
        if let Some(op) = draw_once(s, r, rng) {
            return Some(op);
        }
    }
    None
}

/// Whether `f` holds documents of the type of its own collection's entity (an embedding cycle:
/// the Plan marks the field `recursive` and leaves its children out, the generated type is the
/// collection's own struct).
fn repeats_its_collection(c: &Collection, f: &PlanField) -> bool {
    f.recursive && f.type_name.as_deref() == Some(c.entity.as_str())
}

fn top_level<'a>(c: &'a Collection, path: &str) -> Option<&'a PlanField> {
    if path.contains('.') {
        None
    } else {
        c.field(path)
    }
}

fn draw_once(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    if rng.chance(3) {
        if let Some(op) = crate::outside::draw(s, r, rng) {
            return Some(op);
        }
    }
    let family = match rng.below(12) {
        0 => crate::queries::draw(s, r, rng),
        1 | 2 => crate::buckets::draw(s, r, rng),
        3 | 4 => crate::links::draw(s, r, rng),
        5 | 6 => crate::patterns::draw(s, r, rng),
        _ => None,
    };
    if family.is_some() {
        return family;
    }
    let writable: Vec<&Collection> = s.plan.collections.iter().filter(|c| writable(c)).collect();
    let c = *rng.pick(&writable)?;
    let docs = r.docs(&c.name);
    // Children of a subset come through the parent's `push_<f>`, which inserts them and keeps
    // the subset; a bare insert would leave the subset stale.
    let subset_child = s
        .plan
        .relationships
        .iter()
        .any(|d| d.subset.is_some() && s.home(&d.child).is_some_and(|h| h.name == c.name));
    // Children of a subset or top-N list refilled from them are written through their parent
    // (`push_<f>`, `replace_<f>`, `remove_<f>`), which keeps every list and summary.
    if crate::subsets::is_children(s.plan, c) {
        return match rng.below(10) {
            0..=7 => crate::subsets::draw(s, r, c, rng),
            _ => layout_op(s, r, c, rng),
        };
    }
    match rng.below(10) {
        0..=2 if subset_child => layout_op(s, r, c, rng),
        0..=2 => {
            let doc = new_document(c, s, r, rng)?;
            let mut op = Op::new(
                &c.name,
                "insert".into(),
                vec![Bson::Document(doc.clone())],
                Kind::Insert,
            );
            op.then = links_of_new_child(s, r, c, &doc, true)?;
            Some(op)
        }
        3 => {
            let old = rng.pick(docs)?.clone();
            let fresh = values::document_of(
                &c.fields,
                rng,
                &Context {
                    collection: Some(c),
                },
            );
            let mut doc = old.clone();
            // Change one declared field that is neither copied nor unique.
            let kept = kept_fields(s.plan, c);
            let candidates: Vec<&String> = fresh
                .keys()
                .filter(|k| {
                    !kept.contains(k) && c.variants.as_ref().is_none_or(|v| &v.discriminator != *k)
                })
                .filter(|k| c.field(k).is_some_and(|f| f.variant.is_none()))
                .collect();
            let key = (*rng.pick(&candidates)?).clone();
            doc.insert(key.clone(), fresh.get(&key)?.clone());
            Some(Op::new(
                &c.name,
                "replace".into(),
                vec![Bson::Document(doc)],
                Kind::Replace,
            ))
        }
        4 => {
            let doc = rng.pick(docs)?;
            let id = doc.get("_id")?.clone();
            if r.mentions(&id) {
                return None;
            }
            Some(Op::new(&c.name, "delete".into(), vec![id], Kind::Delete))
        }
        _ => layout_op(s, r, c, rng),
    }
}

/// The links that complete a new child of a two-way relationship: its reference to the parent
/// was set at insert, the parent's array must list it too (`link_<f>` from the parent).
/// `taken_back`: the write is an `insert`, which the harness takes back when its parent is full
/// (the link is refused); other writes of a new child (a subset's `push_<f>` through a parent,
/// a pattern's `enqueue`, `insert_under`, `new_version`) are not drawn with a full parent
/// (`None`), as an application would not create a child it cannot link.
pub(crate) fn links_of_new_child(
    s: &Schema<'_>,
    r: &Reference,
    c: &Collection,
    doc: &Document,
    taken_back: bool,
) -> Option<Vec<Op>> {
    let mut out = Vec::new();
    for d in s
        .plan
        .relationships
        .iter()
        .filter(|d| d.strategy == Layout::TwoWay)
    {
        let Some(mine) = d
            .placement
            .iter()
            .find(|p| p.collection == c.name && matches!(p.shape, Shape::Id | Shape::ExtendedRef))
        else {
            continue;
        };
        let Some(theirs) = d
            .placement
            .iter()
            .find(|p| matches!(p.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs))
        else {
            continue;
        };
        // The parent's id, beside its copies in an extended reference.
        let parent = match doc.get(&mine.path) {
            Some(Bson::Document(ext)) => ext.get("id").cloned(),
            other => other.cloned(),
        };
        let Some(parent) = parent.filter(|p| *p != Bson::Null) else {
            continue;
        };
        let pc = s.plan.collection(&theirs.collection)?;
        let pf = pc.field(&theirs.path)?;
        let code = &pf.code_name;
        let max = theirs
            .max_items
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        let held = r
            .get(&pc.name, &parent)?
            .get_array(&theirs.path)
            .map_or(0, Vec::len);
        if !taken_back && held >= max {
            return None;
        }
        let linked = s.has(&pc.name, &format!("link_{code}"));
        if theirs.shape == Shape::ArrayOfExtendedRefs && !linked {
            // A hand-written struct may declare the array as a plain embedded array of extended
            // references (no `two_way`): appended with `push_<f>`.
            let mut ext = Document::new();
            for x in &pf.children {
                if x.name == "id" {
                    ext.insert("id", doc.get("_id")?.clone());
                } else if let Some(v) = copy_source(x, c, doc) {
                    ext.insert(x.name.clone(), v);
                }
            }
            out.push(Op::new(
                &pc.name,
                format!("push_{code}"),
                vec![parent, Bson::Document(ext)],
                Kind::Push {
                    path: theirs.path.clone(),
                    max,
                },
            ));
            continue;
        }
        if !linked {
            // No two-way link declared: the parent's id array is a plain bounded array,
            // appended with `push_<f>`.
            out.push(Op::new(
                &pc.name,
                format!("push_{code}"),
                vec![parent, doc.get("_id")?.clone()],
                Kind::Push {
                    path: theirs.path.clone(),
                    max,
                },
            ));
            continue;
        }
        out.push(Op::new(
            &pc.name,
            format!("link_{code}"),
            vec![parent, doc.get("_id")?.clone()],
            Kind::Link {
                path: theirs.path.clone(),
                max,
                other: c.name.clone(),
                inverse: mine.path.clone(),
                inverse_max: None,
            },
        ));
    }
    Some(out)
}

/// The fields of `c` a replacement keeps: those copied elsewhere, and those under a unique
/// index (the test server keeps a replaced document's old key in a unique index: insert u=a,
/// replace with u=b, insert u=a is refused, a server defect docs/testing.md records).
pub fn kept_fields(plan: &Plan, c: &Collection) -> Vec<String> {
    let mut kept = copied_fields(plan, c);
    kept.extend(
        c.indexes
            .iter()
            .filter(|i| i.unique)
            .filter_map(|i| i.keys.first())
            .map(|k| k.path.clone()),
    );
    kept
}

/// The top-level fields of `c` copied elsewhere (their changes must fan out).
pub fn copied_fields(plan: &Plan, c: &Collection) -> Vec<String> {
    plan.relationships
        .iter()
        .flat_map(|d| &d.denormalized)
        .filter_map(|x| x.source.split_once('.'))
        .filter(|(e, _)| *e == c.entity)
        .filter_map(|(_, f)| {
            c.fields
                .iter()
                .find(|x| x.code_name == f || x.name == f)
                .map(|x| x.name.clone())
        })
        .collect()
}

/// `remove_<f>` of one element of `doc`'s array `f`, if it has one.
fn remove_one(
    c: &Collection,
    doc: &Document,
    id: &Bson,
    f: &PlanField,
    rng: &mut Rng,
) -> Option<Op> {
    let Some(Bson::Array(items)) = doc.get(&f.name) else {
        return None;
    };
    let item = rng.pick(items)?.clone();
    Some(Op::new(
        &c.name,
        format!("remove_{}", f.code_name),
        vec![id.clone(), item],
        Kind::Pull {
            path: f.name.clone(),
        },
    ))
}

fn layout_op(s: &Schema<'_>, r: &Reference, c: &Collection, rng: &mut Rng) -> Option<Op> {
    let docs = r.docs(&c.name);
    let doc = rng.pick(docs)?.clone();
    let id = doc.get("_id")?.clone();
    let mut options: Vec<Op> = Vec::new();
    for d in &s.plan.relationships {
        for p in d.placement.iter().filter(|p| p.collection == c.name) {
            let Some(f) = top_level(c, &p.path) else {
                continue;
            };
            let code = &f.code_name;
            let max = p
                .max_items
                .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
            match (d.strategy, p.shape) {
                // A two-way array, of ids or of extended references, is linked (below).
                (Layout::Embed, Shape::ArrayOfSubdocuments) | (_, Shape::ArrayOfExtendedRefs)
                    if d.outlier.is_none()
                        && d.strategy != Layout::TwoWay
                        && s.has(&c.name, &format!("push_{code}")) =>
                {
                    let item = if p.shape == Shape::ArrayOfExtendedRefs
                        || f.kind == FieldKind::RefArray
                    {
                        reference_to(f, s, r, rng)
                    } else if repeats_its_collection(c, f) {
                        // An embedding cycle (`E0.r0` embeds E0s in each E0): the element is a
                        // whole document of the collection's own type, `_id` and references
                        // included; its own array of the same starts empty.
                        new_document(c, s, r, rng).map(Bson::Document)
                    } else {
                        let mut item = values::document_of(&f.children, rng, &Context::default());
                        // Now and then an element with the unique values of one already in the
                        // array: the push must refuse it.
                        let unique = crate::unique::paths_in(c, &f.name);
                        if let (false, 0, Ok(held)) =
                            (unique.is_empty(), rng.below(3), doc.get_array(&f.name))
                        {
                            if let Some(other) = rng.pick(held) {
                                crate::unique::with_values_of(&mut item, other, &unique);
                            }
                        }
                        fill(&f.children, &mut item, s, r, rng).map(|()| Bson::Document(item))
                    };
                    if let Some(item) = item {
                        options.push(Op::new(
                            &c.name,
                            format!("push_{code}"),
                            vec![id.clone(), item],
                            Kind::Push {
                                path: f.name.clone(),
                                max,
                            },
                        ));
                    }
                    // Removing an element: summaries of the array follow (issue 11, defect 3).
                    if s.has(&c.name, &format!("remove_{code}")) {
                        options.extend(remove_one(c, &doc, &id, f, rng));
                    }
                }
                (Layout::ParentRefs | Layout::OneWay, Shape::ArrayOfIds)
                    if s.has(&c.name, &format!("add_{code}")) =>
                {
                    if let Some(target) = reference_to(f, s, r, rng) {
                        options.push(Op::new(
                            &c.name,
                            format!("add_{code}"),
                            vec![id.clone(), target],
                            Kind::AddRef {
                                path: f.name.clone(),
                                max,
                            },
                        ));
                    }
                    options.extend(remove_one(c, &doc, &id, f, rng));
                }
                (Layout::TwoWay, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs)
                    if s.has(&c.name, &format!("link_{code}")) =>
                {
                    let Some(other) = d
                        .placement
                        .iter()
                        .find(|o| o.collection != p.collection || o.path != p.path)
                    else {
                        continue;
                    };
                    // `link_<f>` takes the other document's id, even where the array holds
                    // extended references.
                    let target = reference_to(f, s, r, rng).map(|t| crate::checks::ref_id(&t));
                    if let Some(target) = target {
                        options.push(Op::new(
                            &c.name,
                            format!("link_{code}"),
                            vec![id.clone(), target],
                            Kind::Link {
                                path: f.name.clone(),
                                max,
                                other: other.collection.clone(),
                                inverse: other.path.clone(),
                                inverse_max: matches!(
                                    other.shape,
                                    Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs
                                )
                                .then(|| {
                                    other.max_items.map_or(usize::MAX, |m| {
                                        usize::try_from(m).unwrap_or(usize::MAX)
                                    })
                                }),
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        if let Some(sub) = d.subset.as_ref().filter(|sub| sub.children.is_none()) {
            if sub.collection == c.name && s.has(&c.name, &format!("push_{}", sub.path)) {
                let child = s.home(&d.child).filter(|h| writable(h));
                let keep = c
                    .field(&sub.path)
                    .map(|f| f.children.iter().map(|x| x.name.clone()).collect())
                    .unwrap_or_default();
                if let Some(child) = child {
                    if let Some(mut doc) = new_document(child, s, r, rng) {
                        // The child belongs to this parent: its reference back, if it has one
                        // (not the parent's own array of ids, which a relation of an entity to
                        // itself also places in the child's collection).
                        if let Some(back) = d.placement.iter().find(|p| {
                            p.collection == child.name
                                && !p.path.contains('.')
                                && matches!(p.shape, Shape::Id | Shape::ExtendedRef)
                        }) {
                            let f = child.field(&back.path);
                            let v = match f {
                                Some(f) if f.bson_type == "object" => {
                                    let mut ext = Document::new();
                                    ext.insert("id", id.clone());
                                    for x in &f.children {
                                        if x.name != "id" {
                                            if let Some(v) = copy_source(x, c, r.get(&c.name, &id)?)
                                            {
                                                ext.insert(x.name.clone(), v);
                                            }
                                        }
                                    }
                                    Bson::Document(ext)
                                }
                                _ => id.clone(),
                            };
                            doc.insert(back.path.clone(), v);
                        }
                        // A new child of a two-way relationship is linked from its parent too.
                        let then = links_of_new_child(s, r, child, &doc, false);
                        let mut op = Op::new(
                            &c.name,
                            format!("push_{}", sub.path),
                            vec![id.clone(), Bson::Document(doc)],
                            Kind::Subset {
                                path: sub.path.clone(),
                                child: child.name.clone(),
                                n: usize::try_from(sub.n).unwrap_or(usize::MAX),
                                sort_by: sub.sort_by.clone(),
                                desc: sub.descending,
                                keep,
                            },
                        );
                        if let Some(then) = then {
                            op.then = then;
                            options.push(op);
                        }
                    }
                }
            }
        }
    }
    // A number of one element of a keyed array (order lines, children embedded by a unique key).
    options.extend(crate::elements::draw(s, r, c, &doc, &id, rng));
    for field in copied_fields(s.plan, c) {
        let Some(f) = c.field(&field) else { continue };
        let method = format!("set_{}", f.code_name);
        if s.has(&c.name, &method) {
            let v = values::value(f, rng, &Context::default());
            options.push(Op::new(
                &c.name,
                method,
                vec![id.clone(), v],
                Kind::FanOut { field },
            ));
        }
    }
    let _ = ComputedFn::Summary {
        summary: SummaryFn::Count,
    };
    rng.pick(&options).cloned()
}
