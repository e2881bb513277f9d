//! The data side of `migrate`'s tests: the old layout filled by its Plan, the logical data of
//! a collection (count and checksum), the whole database as text, and the checks of the new
//! Plan (validators, copies).

use super::*;
use squillion_codegen::plan::{Collection, CollectionRole, Decision, Shape};
use squillion_testkit::Lcg;

/// A value of a planned scalar field.
pub(super) fn scalar(f: &PlanField, rng: &mut Lcg) -> Bson {
    let one = |rng: &mut Lcg| match f.bson_type.as_str() {
        "string" => Bson::String(format!("v{}", rng.below(1_000_000))),
        "int" => Bson::Int32(rng.below(10_000) as i32),
        "double" => Bson::Double(rng.below(10_000) as f64 / 8.0),
        "objectId" => Bson::ObjectId(ObjectId::new()),
        "date" => Bson::DateTime(DateTime::from_millis(
            1_600_000_000_000 + rng.below(1_000_000_000) as i64,
        )),
        other => panic!("no filler for {other} ({})", f.path),
    };
    if f.array_depth == 0 {
        return one(rng);
    }
    let max = f.max_items.unwrap_or(3);
    Bson::Array((0..rng.below(max + 1)).map(|_| one(rng)).collect())
}

/// Fills every collection of the old Plan: parents first, then children referring to them, by
/// the Plan's fields (plain or extended references, copies of the parent's fields).
pub(super) async fn fill(
    db: &Database,
    plan: &Plan,
    parents: usize,
    children: usize,
    rng: &mut Lcg,
) {
    let mut stored: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    let mut order: Vec<&squillion_codegen::plan::Collection> = plan.collections.iter().collect();
    let refers = |c: &squillion_codegen::plan::Collection| {
        c.fields
            .iter()
            .any(|f| matches!(f.kind, FieldKind::Ref | FieldKind::RefArray))
    };
    order.sort_by_key(|c| refers(c));
    for c in order {
        let count = if refers(c) { children } else { parents };
        let mut docs = Vec::new();
        for _ in 0..count {
            let mut d = Document::new();
            for f in &c.fields {
                let value = match f.kind {
                    FieldKind::Scalar if f.path == "_id" => Bson::ObjectId(ObjectId::new()),
                    FieldKind::Scalar => scalar(f, rng),
                    FieldKind::Embedded if f.array_depth == 0 && !f.map => {
                        let mut inner = Document::new();
                        for child in &f.children {
                            inner.insert(child.name.clone(), scalar(child, rng));
                        }
                        Bson::Document(inner)
                    }
                    FieldKind::Pattern if f.name == "schema_version" => {
                        Bson::Int32(c.schema_version.unwrap() as i32)
                    }
                    FieldKind::Ref => {
                        let pool = pool_of(plan, &stored, f);
                        let parent = &pool[rng.below(pool.len() as u64) as usize];
                        reference(f, parent)
                    }
                    FieldKind::RefArray if f.array_depth == 1 => {
                        let pool = pool_of(plan, &stored, f);
                        let max = f.max_items.unwrap_or(5).min(5);
                        let picked = (0..rng.below(max + 1))
                            .map(|_| reference(f, &pool[rng.below(pool.len() as u64) as usize]))
                            .collect();
                        Bson::Array(picked)
                    }
                    k => panic!("no filler for {k:?} ({})", f.path),
                };
                d.insert(f.name.clone(), value);
            }
            docs.push(d);
        }
        db.collection::<Document>(&c.name)
            .insert_many(docs.clone())
            .await
            .unwrap_or_else(|e| panic!("the old validator of {} refuses the filler: {e}", c.name));
        stored.insert(c.name.clone(), docs);
    }
}

/// The documents already stored of the entity a reference points at.
fn pool_of<'a>(
    plan: &Plan,
    stored: &'a BTreeMap<String, Vec<Document>>,
    f: &PlanField,
) -> &'a Vec<Document> {
    let target = f.source.clone().unwrap();
    stored
        .iter()
        .find(|(name, _)| plan.collection(name).unwrap().entity == target)
        .map(|(_, docs)| docs)
        .unwrap_or_else(|| panic!("{} refers to {target}, not filled yet", f.path))
}

/// A reference to `target` as the field stores it: its id, or an extended reference with the
/// id and copies of the target's fields.
fn reference(f: &PlanField, target: &Document) -> Bson {
    if f.children.is_empty() {
        return target.get("_id").unwrap().clone();
    }
    let mut ext = Document::new();
    for child in &f.children {
        let v = match child.kind {
            FieldKind::Ref => target.get("_id").unwrap().clone(),
            FieldKind::Denormalized => {
                let field = child.source.as_ref().unwrap();
                let (_, name) = field.split_once('.').unwrap();
                target.get(name).unwrap().clone()
            }
            k => panic!("no filler for {k:?} in a reference"),
        };
        ext.insert(child.name.clone(), v);
    }
    Bson::Document(ext)
}

/// The id a reference holds: itself, or the id inside an extended reference.
fn id_of(f: &PlanField, value: &Bson) -> Bson {
    match value {
        Bson::Document(ext) => f
            .children
            .iter()
            .find(|c| c.kind == FieldKind::Ref)
            .and_then(|c| ext.get(&c.name))
            .cloned()
            .unwrap_or(Bson::Null),
        plain => plain.clone(),
    }
}

/// The logical data of one document by the Plan: each stored field by its path of code names,
/// a reference by the id it holds (plain or inside an extended reference); copies, computed and
/// pattern fields are derived and left out.
pub(super) fn logical(
    d: &Document,
    fields: &[PlanField],
    prefix: &str,
    keep: &BTreeSet<String>,
    out: &mut BTreeMap<String, String>,
) {
    for f in fields {
        let code = if prefix.is_empty() {
            f.code_name.clone()
        } else {
            format!("{prefix}.{}", f.code_name)
        };
        let Some(value) = d.get(&f.name) else {
            continue;
        };
        match f.kind {
            FieldKind::Denormalized | FieldKind::Computed | FieldKind::Pattern => {}
            FieldKind::Ref => {
                if keep.contains(&code) {
                    out.insert(code, format!("{}", id_of(f, value)));
                }
            }
            FieldKind::RefArray => {
                let ids: Vec<Bson> = match value {
                    Bson::Array(items) => items.iter().map(|i| id_of(f, i)).collect(),
                    other => vec![other.clone()],
                };
                if keep.contains(&code) {
                    out.insert(code, format!("{ids:?}"));
                }
            }
            _ if !f.children.is_empty() && f.array_depth == 0 => {
                if let Bson::Document(inner) = value {
                    logical(inner, &f.children, &code, keep, out);
                }
            }
            _ => {
                if keep.contains(&code) {
                    out.insert(code, format!("{value}"));
                }
            }
        }
    }
}

/// The code paths of the top-level and nested fields of a collection.
pub(super) fn code_paths(fields: &[PlanField], prefix: &str, out: &mut BTreeSet<String>) {
    for f in fields {
        let code = if prefix.is_empty() {
            f.code_name.clone()
        } else {
            format!("{prefix}.{}", f.code_name)
        };
        code_paths(&f.children, &code, out);
        out.insert(code);
    }
}

/// Per entity: the number of documents and a checksum of their logical data, restricted to the
/// code paths both Plans store; per relationship whose layout differs between the Plans
/// (`rel Author.books`), the relation as data ([`relation_data`]), its fields left out of the
/// entities'.
pub(super) async fn logical_data(
    db: &Database,
    plan: &Plan,
    other: &Plan,
) -> BTreeMap<String, (usize, u64)> {
    let mut out = BTreeMap::new();
    let moved: BTreeSet<String> = plan
        .relationships
        .iter()
        .filter(|d| {
            other
                .relationship(&d.id)
                .is_some_and(|o| o.strategy != d.strategy)
        })
        .map(|d| d.id.clone())
        .collect();
    for r in &moved {
        out.insert(format!("rel {r}"), relation_data(db, plan, r).await);
    }
    // Entities' own documents only: buckets are read as their relationship's data.
    let own = |c: &&Collection| c.role == CollectionRole::Entity;
    for c in plan.collections.iter().filter(own) {
        let Some(o) = other
            .collections
            .iter()
            .filter(own)
            .find(|o| o.entity == c.entity)
        else {
            continue;
        };
        let (mut mine, mut theirs) = (BTreeSet::new(), BTreeSet::new());
        code_paths(&c.fields, "", &mut mine);
        code_paths(&o.fields, "", &mut theirs);
        let of_moved = |fields: &[PlanField]| -> BTreeSet<String> {
            fields
                .iter()
                .filter(|f| f.relation.as_ref().is_some_and(|r| moved.contains(r)))
                .map(|f| f.code_name.clone())
                .collect()
        };
        let (gone, gone_too) = (of_moved(&c.fields), of_moved(&o.fields));
        let keep: BTreeSet<String> = mine
            .intersection(&theirs)
            .filter(|p| {
                let top = p.split('.').next().unwrap_or(p);
                !gone.contains(top) && !gone_too.contains(top)
            })
            .cloned()
            .collect();
        let docs: Vec<Document> = docs_by_id(db, &c.name).await;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for d in &docs {
            let mut m = BTreeMap::new();
            logical(d, &c.fields, "", &keep, &mut m);
            for byte in format!("{m:?}").bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        out.insert(c.entity.clone(), (docs.len(), hash));
    }
    out
}

/// The whole database as text: every collection's documents, indexes and options, sorted.
pub(super) async fn dump(db: &Database) -> String {
    let mut out = String::new();
    for name in collection_names(db).await {
        let docs: Vec<Document> = docs_by_id(db, &name).await;
        let specs: Vec<mongodb::results::CollectionSpecification> = db
            .list_collections()
            .filter(doc! { "name": &name })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        out.push_str(&format!(
            "== {name}\n{:?}\n{:?}\n{docs:?}\n",
            specs.first().map(|s| format!("{:?}", s.options)),
            index_models(db, &name)
                .await
                .into_iter()
                .map(|(n, m)| (n, m.keys))
                .collect::<Vec<_>>()
        ));
    }
    out
}

/// Every document of every collection of the new Plan passes its validator: each one inserted
/// again into a scratch collection created with it.
pub(super) async fn assert_new_validators_accept_everything(db: &Database, plan: &Plan) {
    for c in &plan.collections {
        let docs: Vec<Document> = all_docs(db, &c.name).await;
        let scratch = format!("check_{}", c.name);
        db.create_collection(&scratch)
            .validator(squillion_cli::sync::validator_document(c))
            .await
            .unwrap();
        for d in docs {
            db.collection::<Document>(&scratch)
                .insert_one(d.clone())
                .await
                .unwrap_or_else(|e| panic!("the new validator of {} refuses {d}: {e}", c.name));
        }
        db.collection::<Document>(&scratch).drop().await.unwrap();
    }
}

/// Every copy the new Plan keeps equals its source.
pub(super) async fn assert_copies_equal_sources(db: &Database, plan: &Plan) {
    for copy in plan.relationships.iter().flat_map(|r| &r.denormalized) {
        let (entity, field) = copy.source.split_once('.').unwrap();
        let source = plan
            .collections
            .iter()
            .find(|c| c.entity == entity)
            .unwrap();
        let stored = source
            .fields
            .iter()
            .find(|f| f.code_name == field)
            .unwrap()
            .name
            .clone();
        let sources: BTreeMap<String, Bson> = all_docs(db, &source.name)
            .await
            .into_iter()
            .map(|d| {
                (
                    d.get("_id").unwrap().to_string(),
                    d.get(&stored).unwrap().clone(),
                )
            })
            .collect();
        let holders: Vec<Document> = all_docs(db, &copy.collection).await;
        assert!(!holders.is_empty());
        let at = |d: &Document, path: &str| -> Option<Bson> {
            let mut v = Bson::Document(d.clone());
            for s in path.split('.') {
                v = v.as_document()?.get(s)?.clone();
            }
            Some(v)
        };
        let mut checked = 0;
        for h in &holders {
            // A copy in an array of references (one filtered positional level): each element.
            let pairs: Vec<(Option<Bson>, Option<Bson>)> = if copy.fan_out.array_filters.is_empty()
            {
                vec![(at(h, &copy.fan_out.match_path), at(h, &copy.copy_path))]
            } else {
                let (array, copied) = copy.copy_path.rsplit_once('.').unwrap();
                let (_, id) = copy.fan_out.match_path.rsplit_once('.').unwrap();
                let items = at(h, array)
                    .and_then(|a| a.as_array().cloned())
                    .unwrap_or_default();
                items
                    .iter()
                    .map(|e| {
                        let e = e.as_document().unwrap();
                        (e.get(id).cloned(), e.get(copied).cloned())
                    })
                    .collect()
            };
            for (id, value) in pairs {
                let id = id.unwrap_or_else(|| panic!("no {} in {h}", copy.fan_out.match_path));
                assert_eq!(
                    value.as_ref(),
                    sources.get(&id.to_string()),
                    "copy {} of {} in {h}",
                    copy.copy_path,
                    copy.source
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "no copy of {} to check", copy.source);
    }
}

pub(super) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The relationship of a schema whose layout the move kinds change (the first one).
fn moved_relation(plan: &Plan) -> &Decision {
    plan.relationships.first().expect("a relationship")
}

/// The collection of an entity's own documents.
fn own_collection<'a>(plan: &'a Plan, entity: &str) -> Option<&'a Collection> {
    plan.collections
        .iter()
        .find(|c| c.entity == entity && c.role == CollectionRole::Entity)
}

/// Fills a parent and its children as the Plan's layout of its first relationship keeps them
/// (one-to-many): `parents` parents, `children` children each given a drawn parent with room
/// under the array's bound, and `crowded` more children for the first parent (beyond the bound
/// a new layout has: the over-bound case). Embedded children in the parent's array, ids in the
/// parent's array, a reference in each child, or both, by the placements; everything inserted
/// through the old validators.
pub(super) async fn fill_layout(
    db: &Database,
    plan: &Plan,
    parents: usize,
    children: usize,
    crowded: usize,
    rng: &mut Lcg,
) {
    let d = moved_relation(plan);
    let parent = own_collection(plan, &d.parent).unwrap();
    let child = own_collection(plan, &d.child);
    let array = d
        .placement
        .iter()
        .find(|p| p.holder == d.parent && p.collection == parent.name);
    let bound = array.and_then(|p| p.max_items).unwrap_or(u64::MAX) as usize;
    let embedded = array.filter(|p| p.shape == Shape::ArrayOfSubdocuments);
    let child_fields: Vec<PlanField> = match (child, embedded) {
        (Some(c), _) => c
            .fields
            .iter()
            .filter(|f| f.kind == FieldKind::Scalar && f.name != "_id")
            .cloned()
            .collect(),
        (None, Some(p)) => parent.field_at(&p.path).unwrap().children.clone(),
        (None, None) => panic!("{}: no children anywhere", d.id),
    };
    let mut docs: Vec<Document> = (0..parents)
        .map(|_| {
            let mut doc = doc! { "_id": ObjectId::new() };
            for f in parent.fields.iter().filter(|f| f.kind == FieldKind::Scalar) {
                if f.name != "_id" {
                    doc.insert(f.name.clone(), scalar(f, rng));
                }
            }
            doc
        })
        .collect();
    let mut kids: Vec<Vec<Document>> = vec![Vec::new(); parents];
    for i in 0..children + crowded {
        let at = if i >= children {
            0
        } else {
            loop {
                let at = rng.below(parents as u64) as usize;
                if kids[at].len() < bound {
                    break at;
                }
            }
        };
        let mut kid = doc! { "_id": ObjectId::new() };
        for f in &child_fields {
            kid.insert(f.name.clone(), scalar(f, rng));
        }
        kids[at].push(kid);
    }
    let mut stored_children = Vec::new();
    for (p, kids) in docs.iter_mut().zip(&kids) {
        let pid = p.get("_id").unwrap().clone();
        for place in &d.placement {
            match place.shape {
                Shape::ArrayOfSubdocuments => {
                    let elements: Vec<Bson> = kids
                        .iter()
                        .map(|k| {
                            let mut e = k.clone();
                            e.remove("_id");
                            Bson::Document(e)
                        })
                        .collect();
                    p.insert(place.path.clone(), elements);
                }
                Shape::ArrayOfIds => {
                    let ids: Vec<Bson> =
                        kids.iter().map(|k| k.get("_id").unwrap().clone()).collect();
                    p.insert(place.path.clone(), ids);
                }
                Shape::Id => {}
                other => panic!("no filler for {other:?} ({})", d.id),
            }
        }
        for k in kids {
            let mut k = k.clone();
            for place in d.placement.iter().filter(|p| p.shape == Shape::Id) {
                k.insert(place.path.clone(), pid.clone());
            }
            stored_children.push(k);
        }
    }
    db.collection::<Document>(&parent.name)
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "the old validator of {} refuses the filler: {e}",
                parent.name
            )
        });
    if let Some(c) = child {
        if !stored_children.is_empty() {
            db.collection::<Document>(&c.name)
                .insert_many(stored_children)
                .await
                .unwrap_or_else(|e| {
                    panic!("the old validator of {} refuses the filler: {e}", c.name)
                });
        }
    }
}

/// The content of one child as the relation's logical data reads it: its scalar fields by code
/// name (not its `_id`, which embedded children lack).
fn child_content(d: &Document, fields: &[PlanField]) -> String {
    let m: BTreeMap<&str, String> = fields
        .iter()
        .filter(|f| f.kind == FieldKind::Scalar && f.name != "_id")
        .filter_map(|f| {
            d.get(&f.name)
                .map(|v| (f.code_name.as_str(), format!("{v}")))
        })
        .collect();
    format!("{m:?}")
}

/// The relationship as data, whatever its layout: each parent's `_id` with the sorted contents
/// of its children, read from every side the layout stores (an embedded array, an id array, the
/// children's references), which must agree. Returns the number of children and a checksum.
pub(super) async fn relation_data(db: &Database, plan: &Plan, relation: &str) -> (usize, u64) {
    let d = plan.relationship(relation).unwrap();
    let parent = own_collection(plan, &d.parent).unwrap();
    let all = |name: String| async move { docs_by_id(db, &name).await };
    let parents = all(parent.name.clone()).await;
    let child = own_collection(plan, &d.child);
    let children = match child {
        Some(c) => all(c.name.clone()).await,
        None => Vec::new(),
    };
    let by_id: BTreeMap<String, &Document> = children
        .iter()
        .map(|c| (c.get("_id").unwrap().to_string(), c))
        .collect();
    let mut views: Vec<(String, BTreeMap<String, Vec<String>>)> = Vec::new();
    if let Some(b) = &d.bucket {
        // Buckets: each bucket's items under the parent it refers to.
        let mut view: BTreeMap<String, Vec<String>> = parents
            .iter()
            .map(|p| (p.get("_id").unwrap().to_string(), Vec::new()))
            .collect();
        let holder = plan.collection(&b.collection).unwrap();
        let fields = &holder.field_at(&b.items_path).unwrap().children;
        for bucket in all(b.collection.clone()).await {
            let pid = bucket.get(&b.parent_path).unwrap().to_string();
            let items = bucket.get_array(&b.items_path).cloned().unwrap_or_default();
            view.get_mut(&pid)
                .unwrap_or_else(|| panic!("{relation}: {bucket} refers to no parent"))
                .extend(
                    items
                        .iter()
                        .map(|i| child_content(i.as_document().unwrap(), fields)),
                );
        }
        for kids in view.values_mut() {
            kids.sort();
        }
        views.push((format!("{}.{}", b.collection, b.items_path), view));
    }
    for place in d.placement.iter().filter(|_| d.bucket.is_none()) {
        let mut view: BTreeMap<String, Vec<String>> = parents
            .iter()
            .map(|p| (p.get("_id").unwrap().to_string(), Vec::new()))
            .collect();
        match place.shape {
            Shape::ArrayOfSubdocuments | Shape::ArrayOfIds => {
                for p in &parents {
                    let items = p.get_array(&place.path).cloned().unwrap_or_default();
                    let contents = items.iter().map(|item| match item {
                        Bson::Document(e) => {
                            child_content(e, &parent.field_at(&place.path).unwrap().children)
                        }
                        id => child_content(
                            by_id
                                .get(&id.to_string())
                                .unwrap_or_else(|| panic!("{relation}: dangling id {id}")),
                            &child.unwrap().fields,
                        ),
                    });
                    view.get_mut(&p.get("_id").unwrap().to_string())
                        .unwrap()
                        .extend(contents);
                }
            }
            Shape::Id => {
                for c in &children {
                    let pid = c
                        .get(&place.path)
                        .unwrap_or_else(|| panic!("{relation}: no {} in {c}", place.path));
                    view.get_mut(&pid.to_string())
                        .unwrap_or_else(|| panic!("{relation}: {c} refers to no parent"))
                        .push(child_content(c, &child.unwrap().fields));
                }
            }
            other => panic!("no reader for {other:?} ({relation})"),
        }
        for kids in view.values_mut() {
            kids.sort();
        }
        views.push((format!("{}.{}", place.collection, place.path), view));
    }
    let (first_place, first) = views.first().unwrap();
    for (place, view) in &views[1..] {
        assert_eq!(
            view, first,
            "{relation}: {place} and {first_place} disagree"
        );
    }
    let text = format!("{first:?}");
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (first.values().map(Vec::len).sum(), hash)
}
