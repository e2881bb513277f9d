//! The operations the harness runs, read off the Plan and the repositories' methods: what each
//! layout lets an application do, the call that does it, and what it must leave behind (applied
//! to the reference model).

use bson::{Bson, Document};
use serde::{Deserialize, Serialize};
use squillion_codegen::plan::{
    Collection, CollectionRole, ComputedFn, FieldKind, Layout, Plan, PlanField, Shape, SummaryFn,
};

use crate::driver::Method;
use crate::model::Reference;
use crate::values::{self, Context, Rng};

/// What an operation means, so the reference can apply it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Kind {
    /// Insert a document.
    Insert,
    /// Replace a document with one whose declared data changed.
    Replace,
    /// Delete a document nothing refers to.
    Delete,
    /// Append to a bounded embedded array (`push_<f>`); summaries of the array follow.
    Push {
        /// The array.
        path: String,
        /// Its bound.
        max: usize,
    },
    /// Remove the elements equal to one (`remove_<f>` on an embedded array).
    Pull {
        /// The array.
        path: String,
    },
    /// Add an id to a bounded id array (`add_<f>`), a no-op when present.
    AddRef {
        /// The array.
        path: String,
        /// Its bound.
        max: usize,
    },
    /// Link both sides of a two-way relationship (`link_<f>`).
    Link {
        /// This side's array.
        path: String,
        /// Its bound.
        max: usize,
        /// The other side's collection.
        other: String,
        /// The other side's field.
        inverse: String,
        /// The other side's bound, when it holds an array.
        inverse_max: Option<usize>,
    },
    /// Insert a child and keep it in the parent's subset (`push_<f>` of a subset).
    Subset {
        /// The subset array.
        path: String,
        /// The child's collection.
        child: String,
        /// How many are kept.
        n: usize,
        /// The field ordering them.
        sort_by: String,
        /// Largest first.
        desc: bool,
        /// The fields each copy holds.
        keep: Vec<String>,
    },
    /// Insert a child through its parent (`push_<f>` of a subset or top-N list refilled from
    /// the children): every list and summary of the parent follows.
    SubsetPush {
        /// The relationship (`Entity.field`).
        relation: String,
    },
    /// Replace a child through its parent (`replace_<f>`), perhaps moving it to another parent:
    /// the lists and summaries of both are refilled.
    SubsetReplace {
        /// The relationship.
        relation: String,
    },
    /// Delete a child through its parent (`remove_<f>`): the next child takes its place.
    SubsetRemove {
        /// The relationship.
        relation: String,
    },
    /// Set a copied field of a source document, fanning out to every copy (`set_<f>`).
    FanOut {
        /// The field.
        field: String,
    },
    /// Call a declared query ([`crate::queries`]).
    Query {
        /// The query's name.
        name: String,
    },
}

/// One operation, concrete enough to replay: the call and its meaning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// The collection whose repository is called.
    pub collection: String,
    /// The method.
    pub method: String,
    /// Its arguments, as relaxed extended JSON.
    pub args: Vec<serde_json::Value>,
    /// What it means.
    pub kind: Kind,
    /// Calls that complete it before the state is checked (inserting a child of a two-way
    /// relationship, then linking it from its parent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub then: Vec<Op>,
}

impl Op {
    pub(crate) fn new(collection: &str, method: String, args: Vec<Bson>, kind: Kind) -> Op {
        Op {
            collection: collection.to_owned(),
            method,
            args: args.into_iter().map(Bson::into_canonical_extjson).collect(),
            kind,
            then: Vec::new(),
        }
    }

    /// A call of the declared query `name` on `collection`'s repository.
    pub fn query(collection: &str, name: &str, args: Vec<Bson>) -> Op {
        Op::new(
            collection,
            name.to_owned(),
            args,
            Kind::Query {
                name: name.to_owned(),
            },
        )
    }

    /// The arguments as BSON.
    pub fn bson_args(&self) -> Vec<Bson> {
        self.args
            .iter()
            .map(|a| Bson::try_from(a.clone()).unwrap_or(Bson::Null))
            .collect()
    }

    /// One line describing the call.
    pub fn describe(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        let mut s = format!("{}.{}({})", self.collection, self.method, args.join(", "));
        for t in &self.then {
            s.push_str(" then ");
            s.push_str(&t.describe());
        }
        s
    }
}

/// What the repository must answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Success.
    Ok,
    /// `Error::BoundExceeded`.
    BoundExceeded,
    /// A duplicate key refused by a unique index.
    Duplicate,
    /// A declared query's answer: the `selected` documents, in `sort`'s order (path, descending),
    /// at most `limit`.
    Query {
        /// The documents the conditions select.
        selected: Vec<Document>,
        /// The sort keys.
        sort: Vec<(String, bool)>,
        /// The limit.
        limit: Option<usize>,
    },
}

/// The schema as the harness sees it: the Plan and the repositories' methods.
pub struct Schema<'a> {
    /// The Plan.
    pub plan: &'a Plan,
    /// Every repository method.
    pub methods: &'a [Method],
}

impl Schema<'_> {
    /// Whether `collection`'s repository has `name`.
    pub fn has(&self, collection: &str, name: &str) -> bool {
        self.methods
            .iter()
            .any(|m| m.collection == collection && m.name == name)
    }

    /// The collection holding `entity`'s own documents.
    pub fn home(&self, entity: &str) -> Option<&Collection> {
        self.plan
            .collections
            .iter()
            .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
    }
}

/// Collections whose documents the harness writes with `insert`: entity collections without a
/// pattern that needs its own write path (tree, queue, versioning).
pub fn writable(c: &Collection) -> bool {
    c.role == CollectionRole::Entity
        && !c
            .patterns
            .iter()
            .any(|p| matches!(p.name.as_str(), "tree" | "queue" | "document_versioning"))
}

fn zero(bson: &str) -> Bson {
    match bson {
        "long" => Bson::Int64(0),
        "double" => Bson::Double(0.0),
        _ => Bson::Int32(0),
    }
}

/// An extended reference (or a bare id) to a random document of `target`, with its copies.
fn reference_to(f: &PlanField, s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Bson> {
    let target = f.source.as_deref().and_then(|e| s.home(e))?;
    let doc = rng.pick(r.docs(&target.name))?.clone();
    let id = doc.get("_id")?.clone();
    if f.bson_type != "object" {
        return Some(id);
    }
    let mut out = Document::new();
    for c in &f.children {
        if c.name == "id" {
            out.insert("id", id.clone());
        } else if let Some(v) = copy_source(c, target, &doc) {
            out.insert(c.name.clone(), v);
        }
    }
    Some(Bson::Document(out))
}

/// The current value of the source of copy `c` in `doc` (a document of the source's collection).
pub fn copy_source(c: &PlanField, source: &Collection, doc: &Document) -> Option<Bson> {
    let field = c.source.as_deref()?.split_once('.')?.1;
    let stored = source
        .fields
        .iter()
        .find(|f| f.code_name == field || f.name == field)?;
    doc.get(&stored.name).cloned()
}

/// Fills the relationship and pattern fields of `doc` consistently with the reference: single
/// references point at existing documents with their copies, arrays maintained by relationships
/// start empty, summaries at zero, one-to-one children generated. `None` when a required
/// reference has nothing to point at yet.
pub fn fill(
    fields: &[PlanField],
    doc: &mut Document,
    s: &Schema<'_>,
    r: &Reference,
    rng: &mut Rng,
) -> Option<()> {
    for f in fields {
        if f.name == "_id" || !values::maintained(f) || doc.contains_key(&f.name) {
            continue;
        }
        if f.kind == FieldKind::Pattern {
            if f.name == "schema_version" {
                if let Some(v) = s
                    .plan
                    .collections
                    .iter()
                    .find(|c| c.fields.iter().any(|x| std::ptr::eq(x, f)))
                    .and_then(|c| c.schema_version)
                {
                    doc.insert("schema_version", Bson::Int32(i32::try_from(v).unwrap_or(0)));
                }
            }
            continue;
        }
        if f.array_depth > 0 {
            doc.insert(f.name.clone(), Bson::Array(vec![]));
            continue;
        }
        match f.kind {
            FieldKind::Ref => match reference_to(f, s, r, rng) {
                Some(v) => {
                    doc.insert(f.name.clone(), v);
                }
                None if f.optional => {}
                None => return None,
            },
            FieldKind::Computed if f.bson_type == "bool" => {
                doc.insert(f.name.clone(), false);
            }
            FieldKind::Computed if !f.optional => {
                doc.insert(f.name.clone(), zero(&f.bson_type));
            }
            FieldKind::Embedded if f.bson_type == "object" && !f.optional => {
                let mut child = values::document_of(&f.children, rng, &Context::default());
                fill(&f.children, &mut child, s, r, rng)?;
                doc.insert(f.name.clone(), child);
            }
            _ => {}
        }
    }
    Some(())
}

/// A new document for collection `c`, or `None` when its references have nothing to point at.
pub fn new_document(
    c: &Collection,
    s: &Schema<'_>,
    r: &Reference,
    rng: &mut Rng,
) -> Option<Document> {
    let cx = Context {
        collection: Some(c),
    };
    let mut doc = Document::new();
    doc.insert("_id", values::id(c, rng));
    doc.extend(values::document_of(&c.fields, rng, &cx));
    fill(&c.fields, &mut doc, s, r, rng)?;
    Some(doc)
}

/// The unique indexes' keys of `c`, as `(paths, sparse)`.
fn unique_keys(c: &Collection) -> Vec<(Vec<String>, bool)> {
    c.indexes
        .iter()
        .filter(|i| i.unique)
        .map(|i| (i.keys.iter().map(|k| k.path.clone()).collect(), i.sparse))
        .collect()
}

/// The values at dotted `path` of `doc`, through arrays (as a multikey index sees them).
pub fn values_at(doc: &Bson, path: &str) -> Vec<Bson> {
    let mut current = vec![doc.clone()];
    for seg in path.split('.') {
        let mut next = Vec::new();
        for v in current {
            match v {
                Bson::Document(d) => {
                    if let Some(x) = d.get(seg) {
                        match x {
                            Bson::Array(a) => next.extend(a.iter().cloned()),
                            other => next.push(other.clone()),
                        }
                    }
                }
                Bson::Array(a) => {
                    for e in a {
                        if let Bson::Document(d) = e {
                            if let Some(x) = d.get(seg) {
                                match x {
                                    Bson::Array(a) => next.extend(a.iter().cloned()),
                                    other => next.push(other.clone()),
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}

/// Whether `doc` would collide with another document of `docs` on a unique index of `c`.
pub fn collides(c: &Collection, docs: &[Document], doc: &Document) -> bool {
    let me = Bson::Document(doc.clone());
    let id = doc.get("_id");
    unique_keys(c).iter().any(|(paths, _sparse)| {
        // Single-key indexes only: the generated schemas declare no compound unique index.
        let Some(path) = paths.first() else {
            return false;
        };
        let fold = c.indexes.iter().any(|i| {
            i.unique
                && i.keys.first().is_some_and(|k| &k.path == path)
                && i.collation.as_ref().is_some_and(|col| col.strength <= 2)
        });
        let key = |v: &Bson| match v {
            Bson::String(s) if fold => Bson::String(s.to_lowercase()),
            other => other.clone(),
        };
        let mine: Vec<Bson> = values_at(&me, path).iter().map(key).collect();
        docs.iter().filter(|d| d.get("_id") != id).any(|d| {
            let theirs: Vec<Bson> = values_at(&Bson::Document(d.clone()), path)
                .iter()
                .map(key)
                .collect();
            mine.iter().any(|v| theirs.contains(v))
        })
    })
}

/// Draws one operation the current state allows, or `None` when none applies.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    for _ in 0..20 {
        if let Some(op) = draw_once(s, r, rng) {
            return Some(op);
        }
    }
    None
}

fn top_level<'a>(c: &'a Collection, path: &str) -> Option<&'a PlanField> {
    if path.contains('.') {
        None
    } else {
        c.field(path)
    }
}

fn draw_once(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    if rng.below(12) == 0 {
        if let Some(op) = crate::queries::draw(s, r, rng) {
            return Some(op);
        }
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
            op.then = links_of_new_child(s, r, c, &doc)?;
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
pub(crate) fn links_of_new_child(
    s: &Schema<'_>,
    r: &Reference,
    c: &Collection,
    doc: &Document,
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
        let Some(parent) = doc.get(&mine.path).cloned() else {
            continue;
        };
        let pc = s.plan.collection(&theirs.collection)?;
        let pf = pc.field(&theirs.path)?;
        let code = &pf.code_name;
        r.get(&pc.name, &parent)?;
        let max = theirs
            .max_items
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        if theirs.shape == Shape::ArrayOfExtendedRefs {
            // With copies beside the ids the derive has no `link_<f>`: the parent's array is an
            // embedded array of extended references, appended with `push_<f>`.
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
        if !s.has(&pc.name, &format!("link_{code}")) {
            // No two-way link when the child's side carries copies: the parent's id array is a
            // plain bounded array, appended with `push_<f>`.
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
                // A two-way array of extended references is only appended to when its child is
                // created (`links_of_new_child`): the derive has no link that moves a child.
                (Layout::Embed, Shape::ArrayOfSubdocuments) | (_, Shape::ArrayOfExtendedRefs)
                    if d.outlier.is_none()
                        && d.strategy != Layout::TwoWay
                        && s.has(&c.name, &format!("push_{code}")) =>
                {
                    let item = if p.shape == Shape::ArrayOfExtendedRefs
                        || f.kind == FieldKind::RefArray
                    {
                        reference_to(f, s, r, rng)
                    } else {
                        let mut item = values::document_of(&f.children, rng, &Context::default());
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
                (Layout::TwoWay, Shape::ArrayOfIds) if s.has(&c.name, &format!("link_{code}")) => {
                    let Some(other) = d
                        .placement
                        .iter()
                        .find(|o| o.collection != p.collection || o.path != p.path)
                    else {
                        continue;
                    };
                    if let Some(target) = reference_to(f, s, r, rng) {
                        options.push(Op::new(
                            &c.name,
                            format!("link_{code}"),
                            vec![id.clone(), target],
                            Kind::Link {
                                path: f.name.clone(),
                                max,
                                other: other.collection.clone(),
                                inverse: other.path.clone(),
                                inverse_max: (other.shape == Shape::ArrayOfIds).then(|| {
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
                        // The child belongs to this parent.
                        if let Some(back) = d
                            .placement
                            .iter()
                            .find(|p| p.collection == child.name && !p.path.contains('.'))
                        {
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
                        options.push(Op::new(
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
                        ));
                    }
                }
            }
        }
    }
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

/// Applies `op` to the reference and says what the repository must answer. `None`: the op does
/// not apply to this state (a replay after shrinking removed what it needed); it is skipped.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op) -> Option<Expect> {
    let args = op.bson_args();
    let plan = s.plan;
    let c = plan.collection(&op.collection)?;
    match &op.kind {
        Kind::Insert => {
            let doc = stamped(c, args.first()?.as_document()?.clone());
            let doc = settled(plan, r, &c.name, doc);
            if r.get(&c.name, doc.get("_id")?).is_some() || collides(c, r.docs(&c.name), &doc) {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(&c.name).push(doc);
            Some(Expect::Ok)
        }
        Kind::Replace => {
            let doc = stamped(c, args.first()?.as_document()?.clone());
            let doc = settled(plan, r, &c.name, doc);
            let id = doc.get("_id")?.clone();
            r.get(&c.name, &id)?;
            if collides(c, r.docs(&c.name), &doc) {
                return Some(Expect::Duplicate);
            }
            *r.get_mut(&c.name, &id)? = doc;
            Some(Expect::Ok)
        }
        Kind::Delete => {
            let id = args.first()?;
            r.remove(&c.name, id).then_some(Expect::Ok)
        }
        Kind::Push { path, max } => {
            let (id, item) = (args.first()?, args.get(1)?.clone());
            let before = r.get(&c.name, id)?.clone();
            let arr = before.get_array(path).ok()?;
            if arr.len() >= *max {
                return Some(Expect::BoundExceeded);
            }
            let mut after = before.clone();
            let mut items = arr.clone();
            items.push(item);
            after.insert(path.clone(), items);
            crate::checks::recompute_summaries(plan, c, &mut after);
            if collides(c, r.docs(&c.name), &after) {
                return Some(Expect::Duplicate);
            }
            *r.get_mut(&c.name, id)? = after;
            Some(Expect::Ok)
        }
        Kind::Pull { path } => {
            let (id, item) = (args.first()?, args.get(1)?);
            let doc = r.get_mut(&c.name, id)?;
            let mut items = doc.get_array(path).ok()?.clone();
            items.retain(|x| x != item);
            doc.insert(path.clone(), items);
            crate::checks::recompute_summaries(plan, c, doc);
            Some(Expect::Ok)
        }
        Kind::AddRef { path, max } => {
            let (id, item) = (args.first()?, args.get(1)?.clone());
            let doc = r.get_mut(&c.name, id)?;
            let mut items = doc.get_array(path).ok()?.clone();
            if items.contains(&item) {
                return Some(Expect::Ok);
            }
            if items.len() >= *max {
                return Some(Expect::BoundExceeded);
            }
            items.push(item);
            doc.insert(path.clone(), items);
            Some(Expect::Ok)
        }
        Kind::Link {
            path,
            max,
            other,
            inverse,
            inverse_max,
        } => {
            let (id, target) = (args.first()?.clone(), args.get(1)?.clone());
            r.get(other, &target)?;
            let mine = r.get(&c.name, &id)?.get_array(path).ok()?.clone();
            if !mine.contains(&target) && mine.len() >= *max {
                return Some(Expect::BoundExceeded);
            }
            match inverse_max {
                Some(im) => {
                    let theirs = r.get(other, &target)?.get_array(inverse).ok()?.clone();
                    if !theirs.contains(&id) && theirs.len() >= *im {
                        return Some(Expect::BoundExceeded);
                    }
                    let mut theirs = theirs;
                    if !theirs.contains(&id) {
                        theirs.push(id.clone());
                    }
                    r.get_mut(other, &target)?.insert(inverse.clone(), theirs);
                }
                None => {
                    // The other document leaves its previous owner.
                    for d in r.docs_mut(&c.name) {
                        if d.get("_id") != Some(&id) {
                            if let Ok(a) = d.get_array(path) {
                                let kept: Vec<Bson> =
                                    a.iter().filter(|x| **x != target).cloned().collect();
                                d.insert(path.clone(), kept);
                            }
                        }
                    }
                    r.get_mut(other, &target)?
                        .insert(inverse.clone(), id.clone());
                }
            }
            let doc = r.get_mut(&c.name, &id)?;
            let mut mine = mine;
            if !mine.contains(&target) {
                mine.push(target);
            }
            doc.insert(path.clone(), mine);
            Some(Expect::Ok)
        }
        Kind::Subset {
            path,
            child,
            n,
            sort_by,
            desc,
            keep,
        } => {
            let (id, item) = (args.first()?, args.get(1)?.as_document()?.clone());
            let cc = plan.collection(child)?;
            r.get(&c.name, id)?;
            let item = stamped(cc, item);
            if r.get(child, item.get("_id")?).is_some() || collides(cc, r.docs(child), &item) {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(child).push(item.clone());
            let copy: Document = item
                .iter()
                .filter(|(k, _)| keep.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let doc = r.get_mut(&c.name, id)?;
            let mut items = doc.get_array(path).ok()?.clone();
            items.push(Bson::Document(copy));
            crate::subsets::sort_copies(&mut items, sort_by, *desc);
            items.truncate(*n);
            doc.insert(path.clone(), items);
            // Nothing refills a subset its children do not name their parent in: the push adds
            // the child to the summaries (`$inc`, `$max`, `$min`).
            crate::subsets::add_to_summaries(plan, &c.name, path, doc, &item);
            Some(Expect::Ok)
        }
        Kind::SubsetPush { relation }
        | Kind::SubsetReplace { relation }
        | Kind::SubsetRemove { relation } => crate::subsets::expect(s, r, op, relation),
        Kind::Query { .. } => crate::queries::expect(s, r, op),
        Kind::FanOut { field } => {
            let (id, value) = (args.first()?, args.get(1)?.clone());
            r.get_mut(&c.name, id)?.insert(field.clone(), value);
            crate::checks::refresh_copies(plan, r);
            crate::subsets::refill_all(plan, r);
            Some(Expect::Ok)
        }
    }
}

/// `op` with the copies in the document it writes taken from their sources' current values.
pub fn settle(s: &Schema<'_>, r: &Reference, op: &Op) -> Op {
    let mut op = op.clone();
    if matches!(op.kind, Kind::Insert | Kind::Replace) {
        if let Some(Bson::Document(mut d)) = op.bson_args().first().cloned() {
            // A shrunk schema may have dropped fields the document was drawn with.
            if let Some(c) = s.plan.collection(&op.collection) {
                let gone: Vec<String> = d
                    .keys()
                    .filter(|k| *k != "_id" && c.field(k).is_none())
                    .cloned()
                    .collect();
                for k in gone {
                    d.remove(&k);
                }
            }
            let d = settled(s.plan, r, &op.collection, d);
            op.args = vec![Bson::Document(d).into_canonical_extjson()];
        }
    }
    op
}

/// `doc` with its copies taken from their sources' current values (a replayed, shrunk sequence
/// may have dropped the write that gave a source the value the copy was drawn with).
fn settled(plan: &Plan, r: &Reference, collection: &str, doc: Document) -> Document {
    let mut tmp = r.clone();
    let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
    tmp.remove(collection, &id);
    tmp.docs_mut(collection).push(doc.clone());
    crate::checks::refresh_copies(plan, &mut tmp);
    tmp.get(collection, &id).cloned().unwrap_or(doc)
}

/// `doc` as the repository stores it: with the schema version stamped.
pub(crate) fn stamped(c: &Collection, mut doc: Document) -> Document {
    if let Some(v) = c.schema_version {
        if c.field("schema_version").is_some() {
            doc.insert("schema_version", Bson::Int32(i32::try_from(v).unwrap_or(0)));
        }
    }
    doc
}
