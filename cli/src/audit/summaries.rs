//! Summaries: every count, total, largest and smallest value the Plan maintains on write (and the
//! total and count an average divides) equals the aggregate recomputed from what it summarises:
//! the array beside it in the same document (embedded children, a bucket's items, whose first and
//! last times are summaries too), or the children in their own collection, grouped by their
//! reference to the parent (one `$group` per batch of parents).

use std::cmp::Ordering;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::plan::{
    Collection, CollectionRole, ComputedFn, Decision, FieldKind, Plan, PlanField, Shape, SummaryFn,
};

use super::checks::{Finding, FindingKind};
use super::drift::{self, Invariant, Mismatch, Tally};

/// What a summary summarises.
enum Of<'p> {
    /// The array `array` of the document holding the summary; `field` is the element's stored
    /// name of the field read.
    Array {
        array: &'p str,
        field: Option<&'p str>,
    },
    /// The children in `collection` whose `back` (an array when `many`) names the parent;
    /// `field` is their stored name of the field read. With `items`, the documents of
    /// `collection` are buckets and the children are the elements of their array `items`.
    Children {
        collection: &'p str,
        back: String,
        many: bool,
        field: Option<&'p str>,
        items: Option<&'p str>,
    },
    /// The children in `collection` whose ids the parent's array `array` holds (parent
    /// references); `field` is their stored name of the field read.
    Named {
        collection: &'p str,
        array: &'p str,
        field: Option<&'p str>,
    },
}

/// One summary stored in the sampled collection.
struct Summary<'p> {
    decision: &'p Decision,
    /// The summary's path, split: the documents holding it, then its name.
    holders: Vec<&'p str>,
    name: &'p str,
    path: &'p str,
    function: SummaryFn,
    /// The child's field, as the schema names it.
    field: Option<&'p str>,
    of: Of<'p>,
    /// `(document, stored value, ids named)`, for summaries of children in their own
    /// collection.
    seen: Vec<(Bson, Option<Bson>, Vec<Bson>)>,
    tally: Tally,
}

/// The summary check of one collection.
pub struct Check<'p> {
    collection: &'p str,
    summaries: Vec<Summary<'p>>,
}

/// `(path, function, field)` of every summary of `d` kept in `c`: the computed ones, and a
/// bucket's count and time range.
fn kept<'p>(d: &'p Decision, c: &Collection) -> Vec<(&'p str, SummaryFn, Option<&'p str>)> {
    let mut out: Vec<(&str, SummaryFn, Option<&str>)> = d
        .computed
        .iter()
        .filter(|x| x.collection == c.name)
        .filter_map(|x| match &x.function {
            ComputedFn::Summary { summary } if *summary != SummaryFn::Avg => {
                Some((x.path.as_str(), *summary, x.field.as_deref()))
            }
            _ => None,
        })
        .collect();
    if let Some(b) = d.bucket.as_ref().filter(|b| b.collection == c.name) {
        if !out.iter().any(|(p, _, _)| *p == b.count_path) {
            out.push((b.count_path.as_str(), SummaryFn::Count, None));
        }
        if let Some(t) = &b.time_range {
            out.push((
                t.start_path.as_str(),
                SummaryFn::Min,
                Some(t.field.as_str()),
            ));
            out.push((t.end_path.as_str(), SummaryFn::Max, Some(t.field.as_str())));
        }
    }
    out
}

/// The fields of the documents of type `name` laid out in `c`: its own documents' when `c` holds
/// that entity, else those of the first field of that type with its fields given.
fn fields_of_type<'p>(c: &'p Collection, name: &str) -> Option<&'p [PlanField]> {
    fn find<'p>(fs: &'p [PlanField], name: &str) -> Option<&'p [PlanField]> {
        fs.iter().find_map(|f| {
            if f.type_name.as_deref() == Some(name) && !f.recursive && !f.children.is_empty() {
                Some(f.children.as_slice())
            } else {
                find(&f.children, name)
            }
        })
    }
    if c.entity == name {
        Some(&c.fields)
    } else {
        find(&c.fields, name)
    }
}

/// What the summary at `holders` of `c` summarises.
fn of<'p>(
    plan: &'p Plan,
    d: &'p Decision,
    c: &'p Collection,
    holders: &[&str],
    field: Option<&str>,
) -> Option<Of<'p>> {
    let prefix = holders.join(".");
    let beside = |path: &str| match path.rsplit_once('.') {
        Some((p, _)) => p == prefix,
        None => prefix.is_empty(),
    };
    let in_array = |array: &'p str| {
        let element = c.field_at(array)?;
        // An embedding cycle's elements repeat an enclosing type, whose fields the Plan gives
        // where that type is first laid out, not again at the recursive field.
        let fields = if element.recursive {
            element
                .type_name
                .as_deref()
                .and_then(|t| fields_of_type(c, t))?
        } else {
            &element.children
        };
        let field = match field {
            Some(f) => Some(drift::field_named(fields, f)?.name.as_str()),
            None => None,
        };
        Some(Of::Array {
            array: array.rsplit('.').next().unwrap_or(array),
            field,
        })
    };
    if let Some(b) = d.bucket.as_ref().filter(|b| b.collection == c.name) {
        return in_array(&b.items_path);
    }
    let embedded = d.placement.iter().find(|p| {
        p.collection == c.name
            && p.shape == Shape::ArrayOfSubdocuments
            && beside(&p.path)
            && c.field_at(&p.path)
                .is_some_and(|f| f.kind == FieldKind::Embedded)
    });
    if let Some(p) = embedded {
        return in_array(&p.path);
    }
    if !prefix.is_empty() || c.role != CollectionRole::Entity || c.entity != d.parent {
        return None;
    }
    if let Some(b) = &d.bucket {
        return of_buckets(plan, b, field);
    }
    let children = drift::entity_collection(plan, &d.child)?;
    let named = d.placement.iter().find(|p| {
        p.collection == c.name
            && !p.path.contains('.')
            && p.target == d.child
            && matches!(p.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs)
    });
    let child_field = |f: &str| Some(drift::field_named(&children.fields, f)?.name.as_str());
    if let Some(p) = named {
        return Some(Of::Named {
            collection: &children.name,
            array: &p.path,
            field: match field {
                Some(f) => Some(child_field(f)?),
                None => None,
            },
        });
    }
    let back = d
        .placement
        .iter()
        .find(|p| p.collection == children.name && !p.path.contains('.') && p.target == d.parent)?;
    let back_path = match back.shape {
        Shape::Id | Shape::ArrayOfIds => back.path.clone(),
        Shape::ExtendedRef | Shape::ArrayOfExtendedRefs => format!("{}.id", back.path),
        Shape::Subdocument | Shape::ArrayOfSubdocuments => return None,
    };
    let field = match field {
        Some(f) => Some(drift::field_named(&children.fields, f)?.name.as_str()),
        None => None,
    };
    Some(Of::Children {
        collection: &children.name,
        back: back_path,
        many: matches!(back.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs),
        field,
        items: None,
    })
}

/// A parent's summaries of all its bucketed children: the elements of every bucket naming it.
fn of_buckets<'p>(
    plan: &'p Plan,
    b: &'p squillion_codegen::plan::BucketPlan,
    field: Option<&str>,
) -> Option<Of<'p>> {
    let buckets = plan.collection(&b.collection)?;
    let key = buckets.field(&b.parent_path)?;
    // An extended reference holds the parent's `_id` inside (`{id, name}`).
    let back = match key.children.iter().find(|f| f.kind == FieldKind::Ref) {
        Some(id) => format!("{}.{}", b.parent_path, id.name),
        None => b.parent_path.clone(),
    };
    let element = buckets.field_at(&b.items_path)?;
    let field = match field {
        Some(f) => Some(drift::field_named(&element.children, f)?.name.as_str()),
        None => None,
    };
    Some(Of::Children {
        collection: &buckets.name,
        back,
        many: false,
        field,
        items: Some(&b.items_path),
    })
}

/// The aggregate of `values` (a field of each of `count` children).
fn aggregate(f: SummaryFn, count: usize, values: &[&Bson]) -> Option<Bson> {
    let values: Vec<&Bson> = values
        .iter()
        .copied()
        .filter(|v| !matches!(v, Bson::Null))
        .collect();
    let pick = |want: Ordering| {
        values
            .iter()
            .copied()
            .fold(None::<&Bson>, |best, v| match best {
                Some(b) if drift::compare(v, b) != Some(want) => Some(b),
                _ => Some(v),
            })
    };
    match f {
        SummaryFn::Count => Some(Bson::Int64(i64::try_from(count).unwrap_or(i64::MAX))),
        SummaryFn::Total => Some(Bson::Double(
            values
                .iter()
                .filter_map(|v| match v {
                    Bson::Int32(x) => Some(f64::from(*x)),
                    Bson::Int64(x) => Some(*x as f64),
                    Bson::Double(x) => Some(*x),
                    _ => None,
                })
                .sum(),
        )),
        SummaryFn::Max => pick(Ordering::Greater).cloned(),
        SummaryFn::Min => pick(Ordering::Less).cloned(),
        SummaryFn::Avg => None,
    }
}

impl<'p> Check<'p> {
    /// The summaries kept in `c`.
    pub fn new(plan: &'p Plan, c: &'p Collection) -> Check<'p> {
        let mut summaries = Vec::new();
        for d in &plan.relationships {
            for (path, function, field) in kept(d, c) {
                let mut holders: Vec<&str> = path.split('.').collect();
                let Some(name) = holders.pop() else { continue };
                let Some(of) = of(plan, d, c, &holders, field) else {
                    continue;
                };
                summaries.push(Summary {
                    decision: d,
                    holders,
                    name,
                    path,
                    function,
                    field,
                    of,
                    seen: Vec::new(),
                    tally: Tally::default(),
                });
            }
        }
        Check {
            collection: &c.name,
            summaries,
        }
    }

    /// Checks the summaries of arrays in one sampled document; keeps the others for
    /// [`Check::finish`].
    pub fn observe(&mut self, id: &Bson, doc: &Document) {
        for s in &mut self.summaries {
            match &s.of {
                Of::Array { array, field } => {
                    for holder in drift::documents_in(doc, &s.holders) {
                        let items: Vec<&Document> = match holder.get(*array) {
                            Some(Bson::Array(a)) => {
                                a.iter().filter_map(Bson::as_document).collect()
                            }
                            _ => vec![],
                        };
                        let values: Vec<&Bson> = match field {
                            Some(f) => items.iter().filter_map(|i| i.get(*f)).collect(),
                            None => vec![],
                        };
                        let want = aggregate(s.function, items.len(), &values);
                        let have = holder.get(s.name);
                        s.tally.checked += 1;
                        if !drift::same(have, want.as_ref()) {
                            s.tally
                                .add(id, Mismatch::new(id, None, have, want.as_ref(), false));
                        }
                    }
                }
                Of::Children { .. } => {
                    s.seen
                        .push((id.clone(), doc.get(s.name).cloned(), Vec::new()));
                }
                Of::Named { array, .. } => {
                    let named = drift::reference_ids(doc.get(*array))
                        .into_iter()
                        .cloned()
                        .collect();
                    s.seen.push((id.clone(), doc.get(s.name).cloned(), named));
                }
            }
        }
    }

    /// Recomputes the summaries of children in their own collection, one `$group` per batch of
    /// parents, and compares.
    pub async fn finish(self, db: &Database) -> mongodb::error::Result<Vec<Finding>> {
        let mut out = Vec::new();
        for mut s in self.summaries {
            let of = match &s.of {
                Of::Array { array, .. } => {
                    let prefix: Vec<&str> = s.holders.iter().copied().chain([*array]).collect();
                    prefix.join(".")
                }
                Of::Children {
                    collection,
                    back,
                    many,
                    field,
                    items,
                } => {
                    let from = Children {
                        collection,
                        back,
                        many: *many,
                        items: *items,
                    };
                    let found = recompute(db, &from, *field, s.function, &s.seen).await?;
                    s.tally.checked = s.seen.len() as u64;
                    for (id, have, _) in &s.seen {
                        let want = match found.get(&super::id_key(id)) {
                            Some(g) => g.get("value").cloned(),
                            None => aggregate(s.function, 0, &[]),
                        };
                        let want = want.filter(|v| !matches!(v, Bson::Null));
                        if !drift::same(have.as_ref(), want.as_ref()) {
                            s.tally.add(
                                id,
                                Mismatch::new(id, None, have.as_ref(), want.as_ref(), false),
                            );
                        }
                    }
                    format!("{collection}.{}", back.trim_end_matches(".id"))
                }
                Of::Named {
                    collection,
                    array,
                    field,
                } => {
                    let ids: Vec<Bson> = s.seen.iter().flat_map(|x| x.2.clone()).collect();
                    let projection = match field {
                        Some(f) => doc! { *f: 1 },
                        None => doc! { "_id": 1 },
                    };
                    let children = drift::fetch(db, collection, &ids, projection).await?;
                    s.tally.checked = s.seen.len() as u64;
                    for (id, have, named) in &s.seen {
                        let found: Vec<&Document> = named
                            .iter()
                            .filter_map(|n| children.get(&super::id_key(n)))
                            .collect();
                        let values: Vec<&Bson> = match field {
                            Some(f) => found.iter().filter_map(|c| c.get(*f)).collect(),
                            None => vec![],
                        };
                        let want = aggregate(s.function, found.len(), &values);
                        if !drift::same(have.as_ref(), want.as_ref()) {
                            s.tally.add(
                                id,
                                Mismatch::new(id, None, have.as_ref(), want.as_ref(), false),
                            );
                        }
                    }
                    format!("the {collection} named in `{array}`")
                }
            };
            out.extend(s.tally.finding(
                self.collection,
                FindingKind::WrongSummary,
                s.path,
                Invariant::Summary {
                    relation: s.decision.id.clone(),
                    function: s.function.as_str().to_owned(),
                    field: s.field.map(str::to_owned),
                    of,
                },
            ));
        }
        Ok(out)
    }
}

/// `{_id: parent, value}` per parent of `seen` that has children, by [`super::id_key`].
/// Where the children of a summary are: `collection`'s documents (or the elements of their
/// array `items`, buckets) whose `back` names the parent.
struct Children<'a> {
    collection: &'a str,
    back: &'a str,
    many: bool,
    items: Option<&'a str>,
}

async fn recompute(
    db: &Database,
    from: &Children<'_>,
    field: Option<&str>,
    function: SummaryFn,
    seen: &[(Bson, Option<Bson>, Vec<Bson>)],
) -> mongodb::error::Result<std::collections::BTreeMap<String, Document>> {
    let (collection, back, many) = (from.collection, from.back, from.many);
    let field = field.map(|f| match from.items {
        Some(items) => format!("${items}.{f}"),
        None => format!("${f}"),
    });
    let value = match (function, field) {
        (SummaryFn::Count, _) => doc! { "$sum": 1 },
        (SummaryFn::Total, Some(f)) => doc! { "$sum": f },
        (SummaryFn::Max, Some(f)) => doc! { "$max": f },
        (SummaryFn::Min, Some(f)) => doc! { "$min": f },
        _ => return Ok(Default::default()),
    };
    let mut out = std::collections::BTreeMap::new();
    let ids: Vec<Bson> = seen.iter().map(|(id, _, _)| id.clone()).collect();
    for chunk in ids.chunks(super::IDS_PER_QUERY) {
        let matched = doc! { "$match": { back: { "$in": chunk.to_vec() } } };
        let mut pipeline = vec![matched.clone()];
        if many {
            let array = back.trim_end_matches(".id");
            pipeline.push(doc! { "$unwind": format!("${array}") });
            pipeline.push(matched);
        }
        if let Some(items) = from.items {
            pipeline.push(doc! { "$unwind": format!("${items}") });
        }
        pipeline.push(doc! { "$group": { "_id": format!("${back}"), "value": value.clone() } });
        let mut cursor = db
            .collection::<Document>(collection)
            .aggregate(pipeline)
            .await?;
        while let Some(d) = cursor.try_next().await? {
            if let Some(id) = d.get("_id") {
                out.insert(super::id_key(id), d);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every summary kept beside an embedded array of its relationship is recomputed from that
    /// array, the field it reads found in the elements, over the Plans of a generated batch
    /// (embedding cycles among them, whose recursive field the Plan gives without its fields).
    #[test]
    fn every_summary_of_an_embedded_array_reads_its_elements() {
        let (mut checked, mut recursive) = (0, 0);
        for (_, schema) in squillion_schemagen::covering_batch(1, 80, Default::default()) {
            let text = squillion_schemagen::render(&schema);
            let source = squillion_grammar::SourceFile::new("gen.sqn", text.clone());
            let model = match squillion_codegen::load(&source) {
                Ok(c) => c.model,
                Err(d) => panic!("generated schema does not check: {d:?}\n{text}"),
            };
            let plan = squillion_codegen::engine::plan(&model, &source);
            for c in &plan.collections {
                for d in &plan.relationships {
                    for (path, _, field) in kept(d, c) {
                        let mut holders: Vec<&str> = path.split('.').collect();
                        holders.pop();
                        let prefix = holders.join(".");
                        let Some(p) = d.placement.iter().find(|p| {
                            p.collection == c.name
                                && p.shape == Shape::ArrayOfSubdocuments
                                && p.path.rsplit_once('.').map_or("", |(h, _)| h) == prefix
                        }) else {
                            continue;
                        };
                        checked += 1;
                        recursive += usize::from(c.field_at(&p.path).is_some_and(|f| f.recursive));
                        let read = of(&plan, d, c, &holders, field);
                        assert!(
                            matches!(read, Some(Of::Array { field: got, .. }) if got.is_some() == field.is_some()),
                            "{}.{path} ({field:?}) is not recomputed from {}\n{text}",
                            c.name,
                            p.path
                        );
                    }
                }
            }
        }
        assert!(checked > 0, "no summary of an embedded array");
        assert!(recursive > 0, "no summary of an embedding cycle's array");
    }

    #[test]
    fn aggregates_are_recomputed_as_the_server_would() {
        let (a, b, c) = (Bson::Int32(3), Bson::Double(4.5), Bson::Null);
        assert_eq!(aggregate(SummaryFn::Count, 3, &[]), Some(Bson::Int64(3)));
        assert_eq!(
            aggregate(SummaryFn::Total, 3, &[&a, &b, &c]),
            Some(Bson::Double(7.5))
        );
        assert_eq!(aggregate(SummaryFn::Max, 3, &[&a, &b, &c]), Some(b.clone()));
        assert_eq!(aggregate(SummaryFn::Min, 3, &[&a, &b, &c]), Some(a.clone()));
        assert_eq!(aggregate(SummaryFn::Max, 0, &[]), None);
        assert_eq!(aggregate(SummaryFn::Total, 0, &[]), Some(Bson::Double(0.0)));
    }
}
