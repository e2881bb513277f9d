//! Subsets (`latest N`) and top-N lists: the copies a parent keeps are its first N children in
//! the list's order (wrong: a child missing, one too many, out of order), and each copy equals the
//! child it copies on every kept field, the child's `_id` included where the Plan keeps it
//! (stale). The children of a batch of parents are read with one `$lookup` per batch, N + 1 per
//! parent (the one after the N-th tells a tie at the boundary from a wrong child).

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::plan::{
    Collection, CollectionRole, ComputedFn, Decision, Plan, PlanField, Shape,
};

use super::checks::{Finding, FindingKind};
use super::drift::{self, Invariant, Mismatch, Tally};

/// A list of child copies kept in the sampled collection.
struct List<'p> {
    decision: &'p Decision,
    path: &'p str,
    n: u64,
    sort_by: &'p str,
    descending: bool,
    children: &'p str,
    /// The children's reference to the parent, as a path to the id (`None`: the parent names
    /// them in `named`).
    back: Option<String>,
    /// The parent's array of its children's ids (parent references).
    named: Option<&'p str>,
    /// The child's stored name of the field ordering the list, and the copy's.
    sort_child: &'p str,
    sort_copy: &'p str,
    /// `(copy's name, child's name)` of each kept field (empty: the copy's own names).
    fields: Vec<(&'p str, &'p str)>,
    sensitive: bool,
    /// `(parent, its copies, the ids it names)` per sampled parent.
    seen: Vec<(Bson, Vec<Document>, Vec<Bson>)>,
}

/// The subset and top-N check of one collection.
pub struct Check<'p> {
    collection: &'p str,
    lists: Vec<List<'p>>,
}

/// `(path, n, sort_by, descending)` of the lists of `d` kept in `c`.
fn lists<'p>(d: &'p Decision, c: &Collection) -> Vec<(&'p str, u64, &'p str, bool)> {
    let mut out = Vec::new();
    if let Some(s) = d.subset.as_ref().filter(|s| s.collection == c.name) {
        out.push((s.path.as_str(), s.n, s.sort_by.as_str(), s.descending));
    }
    for x in d.computed.iter().filter(|x| x.collection == c.name) {
        if let ComputedFn::TopN {
            n,
            sort_by,
            descending,
            ..
        } = &x.function
        {
            out.push((x.path.as_str(), *n, sort_by.as_str(), *descending));
        }
    }
    out
}

/// The child field a kept field copies.
fn copied<'p>(children: &'p Collection, kept: &'p PlanField) -> Option<&'p str> {
    if kept.name == "_id" {
        return Some("_id");
    }
    drift::field_named(&children.fields, &kept.code_name)
        .or_else(|| drift::field_named(&children.fields, &kept.name))
        .map(|f| f.name.as_str())
}

impl<'p> Check<'p> {
    /// The lists kept at the top level of `c`, when the children have a collection of their own
    /// whose documents name their parent.
    pub fn new(plan: &'p Plan, c: &'p Collection) -> Check<'p> {
        let mut out = Vec::new();
        if c.role != CollectionRole::Entity {
            return Check {
                collection: &c.name,
                lists: out,
            };
        }
        for d in plan.relationships.iter().filter(|d| d.parent == c.entity) {
            for (path, n, sort_by, descending) in lists(d, c) {
                let Some(list) = c.field(path) else { continue };
                let Some(children) = drift::entity_collection(plan, &d.child) else {
                    continue;
                };
                let named = d
                    .placement
                    .iter()
                    .find(|p| {
                        p.collection == c.name
                            && !p.path.contains('.')
                            && p.target == d.child
                            && matches!(p.shape, Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs)
                    })
                    .map(|p| p.path.as_str());
                let back = d.placement.iter().find(|p| {
                    p.collection == children.name && !p.path.contains('.') && p.target == d.parent
                });
                let back = match back.map(|b| (b.shape, &b.path)) {
                    _ if named.is_some() => None,
                    Some((Shape::Id, path)) => Some(path.clone()),
                    Some((Shape::ExtendedRef, path)) => Some(format!("{path}.id")),
                    _ => continue,
                };
                let Some(sort_child) = drift::field_named(&children.fields, sort_by) else {
                    continue;
                };
                let sort_copy = drift::field_named(&list.children, sort_by)
                    .map_or(sort_child.name.as_str(), |f| f.name.as_str());
                let fields: Vec<(&str, &str)> = list
                    .children
                    .iter()
                    .filter_map(|k| Some((k.name.as_str(), copied(children, k)?)))
                    .collect();
                let sensitive = list.children.iter().any(|k| k.flags.sensitive)
                    || children.fields.iter().any(|f| f.flags.sensitive);
                out.push(List {
                    decision: d,
                    path,
                    n,
                    sort_by,
                    descending,
                    children: &children.name,
                    back,
                    named,
                    sort_child: &sort_child.name,
                    sort_copy,
                    fields,
                    sensitive,
                    seen: Vec::new(),
                });
            }
        }
        Check {
            collection: &c.name,
            lists: out,
        }
    }

    /// Takes the copies one sampled parent keeps.
    pub fn observe(&mut self, id: &Bson, doc: &Document) {
        for l in &mut self.lists {
            let copies = match doc.get(l.path) {
                Some(Bson::Array(a)) => a.iter().filter_map(Bson::as_document).cloned().collect(),
                _ => Vec::new(),
            };
            let named = l
                .named
                .map(|a| {
                    drift::reference_ids(doc.get(a))
                        .into_iter()
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            l.seen.push((id.clone(), copies, named));
        }
    }

    /// Reads each parent's first N + 1 children and compares.
    pub async fn finish(self, db: &Database) -> mongodb::error::Result<Vec<Finding>> {
        let mut out = Vec::new();
        for l in self.lists {
            let children = first_children(db, self.collection, &l).await?;
            let (mut wrong, mut stale) = (Tally::default(), Tally::default());
            wrong.checked = l.seen.len() as u64;
            stale.checked = l.seen.len() as u64;
            for (id, copies, _) in &l.seen {
                let fetched = children
                    .get(&super::id_key(id))
                    .map_or(&[][..], Vec::as_slice);
                compare(&l, id, copies, fetched, &mut wrong, &mut stale);
            }
            let invariant = Invariant::Subset {
                relation: l.decision.id.clone(),
                n: l.n,
                sort_by: l.sort_by.to_owned(),
                descending: l.descending,
                children: l.children.to_owned(),
                back: l.back.clone(),
                named: l.named.map(str::to_owned),
                kept: l
                    .fields
                    .iter()
                    .map(|(_, name)| (*name).to_owned())
                    .collect(),
            };
            out.extend(wrong.finding(
                self.collection,
                FindingKind::WrongSubset,
                l.path,
                invariant.clone(),
            ));
            out.extend(stale.finding(self.collection, FindingKind::StaleSubset, l.path, invariant));
        }
        Ok(out)
    }
}

/// The copy of `child` the list would keep: its kept fields under the copy's names.
fn copy_of(l: &List<'_>, child: &Document, like: &Document) -> Document {
    if l.fields.is_empty() {
        return like
            .keys()
            .filter_map(|k| Some((k.clone(), child.get(k)?.clone())))
            .collect();
    }
    l.fields
        .iter()
        .filter_map(|(copy, name)| Some(((*copy).to_owned(), child.get(*name)?.clone())))
        .collect()
}

/// Whether `copy` equals `child` on every kept field.
fn is_copy_of(l: &List<'_>, copy: &Document, child: &Document) -> bool {
    let want = copy_of(l, child, copy);
    let names: Vec<&str> = if l.fields.is_empty() {
        copy.keys().map(String::as_str).collect()
    } else {
        l.fields.iter().map(|(c, _)| *c).collect()
    };
    names
        .iter()
        .all(|k| drift::same(copy.get(*k), want.get(*k)))
}

/// Compares one parent's copies with its first N + 1 children.
fn compare(
    l: &List<'_>,
    id: &Bson,
    copies_kept: &[Document],
    fetched: &[Document],
    wrong: &mut Tally,
    stale: &mut Tally,
) {
    let n = usize::try_from(l.n).unwrap_or(usize::MAX);
    let want: &[Document] = &fetched[..fetched.len().min(n)];
    let have_keys: Vec<Bson> = copies_kept
        .iter()
        .map(|c| c.get(l.sort_copy).cloned().unwrap_or(Bson::Null))
        .collect();
    let want_keys: Vec<Bson> = want
        .iter()
        .map(|c| c.get(l.sort_child).cloned().unwrap_or(Bson::Null))
        .collect();
    let (have_keys, want_keys) = (Bson::Array(have_keys), Bson::Array(want_keys));
    if !drift::same(Some(&have_keys), Some(&want_keys)) {
        wrong.add(
            id,
            Mismatch::new(id, None, Some(&have_keys), Some(&want_keys), false),
        );
        return;
    }
    // The child after the N-th: copies of its order value may be any of the tied children.
    let beyond = fetched.get(n).and_then(|c| c.get(l.sort_child));
    let mut unused: Vec<&Document> = fetched.iter().collect();
    for copy in copies_kept {
        let key = copy.get(l.sort_copy);
        let tied = |c: &&Document| drift::same(c.get(l.sort_child), key);
        if let Some(i) = unused
            .iter()
            .position(|c| tied(c) && is_copy_of(l, copy, c))
        {
            unused.remove(i);
            continue;
        }
        if beyond.is_some() && drift::same(beyond, key) {
            continue;
        }
        let child = unused.iter().find(|c| tied(c));
        let want = child.map(|c| Bson::Document(copy_of(l, c, copy)));
        stale.add(
            id,
            Mismatch::new(
                id,
                child.and_then(|c| c.get("_id")),
                Some(&Bson::Document(copy.clone())),
                want.as_ref(),
                l.sensitive,
            ),
        );
        break;
    }
}

/// Per parent of the sample (by [`super::id_key`]): its first N + 1 children in the list's
/// order, with the fields the copies keep.
async fn first_children(
    db: &Database,
    parents: &str,
    l: &List<'_>,
) -> mongodb::error::Result<std::collections::BTreeMap<String, Vec<Document>>> {
    let mut projection = doc! { "_id": 1, l.sort_child: 1 };
    for (_, name) in &l.fields {
        projection.insert(*name, 1);
    }
    let direction = if l.descending { -1 } else { 1 };
    let Some(back) = &l.back else {
        return named_children(db, l, projection).await;
    };
    let limit = i64::try_from(l.n.saturating_add(1)).unwrap_or(i64::MAX);
    let mut lookup = vec![
        doc! { "$match": { "$expr": { "$eq": [format!("${back}"), "$$parent"] } } },
        doc! { "$sort": { l.sort_child: direction, "_id": 1 } },
        doc! { "$limit": limit },
    ];
    if !l.fields.is_empty() {
        lookup.push(doc! { "$project": projection });
    }
    // About 100,000 children per query.
    let per_query = usize::try_from(100_000 / l.n.max(1))
        .unwrap_or(1)
        .clamp(1, super::IDS_PER_QUERY);
    let ids: Vec<Bson> = l.seen.iter().map(|(id, _, _)| id.clone()).collect();
    let mut out = std::collections::BTreeMap::new();
    for chunk in ids.chunks(per_query) {
        let pipeline = vec![
            doc! { "$match": { "_id": { "$in": chunk.to_vec() } } },
            doc! { "$lookup": {
                "from": l.children,
                "let": { "parent": "$_id" },
                "pipeline": lookup.clone(),
                "as": "children",
            } },
            doc! { "$project": { "children": 1 } },
        ];
        let mut cursor = db
            .collection::<Document>(parents)
            .aggregate(pipeline)
            .await?;
        while let Some(d) = cursor.try_next().await? {
            let Some(id) = d.get("_id") else { continue };
            let children = match d.get("children") {
                Some(Bson::Array(a)) => a.iter().filter_map(Bson::as_document).cloned().collect(),
                _ => Vec::new(),
            };
            out.insert(super::id_key(id), children);
        }
    }
    Ok(out)
}

/// [`first_children`] of parents that name their children: the children named, read a batch of
/// ids per query, sorted here.
async fn named_children(
    db: &Database,
    l: &List<'_>,
    projection: Document,
) -> mongodb::error::Result<std::collections::BTreeMap<String, Vec<Document>>> {
    let ids: Vec<Bson> = l.seen.iter().flat_map(|x| x.2.clone()).collect();
    let children = drift::fetch(db, l.children, &ids, projection).await?;
    let n = usize::try_from(l.n.saturating_add(1)).unwrap_or(usize::MAX);
    let mut out = std::collections::BTreeMap::new();
    for (id, _, named) in &l.seen {
        let mut mine: Vec<Document> = named
            .iter()
            .filter_map(|x| children.get(&super::id_key(x)).cloned())
            .collect();
        mine.sort_by(|a, b| {
            let order = match (a.get(l.sort_child), b.get(l.sort_child)) {
                (Some(x), Some(y)) => drift::compare(x, y).unwrap_or(std::cmp::Ordering::Equal),
                _ => std::cmp::Ordering::Equal,
            };
            if l.descending {
                order.reverse()
            } else {
                order
            }
        });
        mine.truncate(n);
        out.insert(super::id_key(id), mine);
    }
    Ok(out)
}
