//! Applying an operation to the reference model: what it must leave behind, and what the
//! repository must answer (success, a bound, a duplicate, a query's documents).

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, Plan};

use crate::model::Reference;
use crate::ops::{Expect, Kind, Op, Schema};
use crate::unique::collides;

/// Applies `op` to the reference and says what the repository must answer. `None`: the op does
/// not apply to this state (a replay after shrinking removed what it needed); it is skipped.
pub fn expect(s: &Schema<'_>, r: &mut Reference, op: &Op) -> Option<Expect> {
    let args = op.bson_args();
    let plan = s.plan;
    let c = plan.collection(&op.collection)?;
    match &op.kind {
        Kind::Insert => {
            let doc = stamped(c, args.first()?.as_document()?.clone());
            if crate::checks::dangles(plan, r, &c.name, "", &Bson::Document(doc.clone())) {
                return Some(Expect::MissingReference);
            }
            let doc = settled(plan, r, &c.name, doc);
            if r.get(&c.name, doc.get("_id")?).is_some() || collides(c, r.docs(&c.name), &doc) {
                return Some(Expect::Duplicate);
            }
            r.docs_mut(&c.name).push(doc);
            Some(Expect::Ok)
        }
        Kind::Replace => {
            let doc = stamped(c, args.first()?.as_document()?.clone());
            let id = doc.get("_id")?.clone();
            r.get(&c.name, &id)?;
            if crate::checks::dangles(plan, r, &c.name, "", &Bson::Document(doc.clone())) {
                return Some(Expect::MissingReference);
            }
            let doc = settled(plan, r, &c.name, doc);
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
            if crate::checks::dangles(plan, r, &c.name, path, &item) {
                return Some(Expect::MissingReference);
            }
            let arr = before.get_array(path).ok()?;
            // The push's `$ne` guards refuse an element sharing a unique value with one already
            // in the array (`DuplicateElement`, before the bound is looked at).
            let unique = crate::unique::paths_in(c, path);
            if crate::unique::held(&before, path, &unique, &item) {
                return Some(Expect::Duplicate);
            }
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
            r.get(&c.name, id)?;
            if crate::checks::dangles(plan, r, &c.name, path, &item) {
                return Some(Expect::MissingReference);
            }
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
            let theirs_doc = r.get(other, &target)?.clone();
            let mine_doc = r.get(&c.name, &id)?.clone();
            let oc = plan.collection(other)?;
            // Each side's reference, an id or `{id, copies...}` taken from the document it names
            // (the link reads both in its transaction).
            let element = reference_value(c.field(path)?, &target, oc, &theirs_doc);
            let back = reference_value(oc.field(inverse)?, &id, c, &mine_doc);
            let mine = mine_doc.get_array(path).ok()?.clone();
            if !names(&mine, &target) && mine.len() >= *max {
                return Some(Expect::BoundExceeded);
            }
            match inverse_max {
                Some(im) => {
                    let theirs = theirs_doc.get_array(inverse).ok()?.clone();
                    if !names(&theirs, &id) && theirs.len() >= *im {
                        return Some(Expect::BoundExceeded);
                    }
                    let theirs = with_reference(theirs, &id, back);
                    r.get_mut(other, &target)?.insert(inverse.clone(), theirs);
                }
                None => {
                    // The other document leaves its previous owner.
                    for d in r.docs_mut(&c.name) {
                        if d.get("_id") != Some(&id) {
                            if let Ok(a) = d.get_array(path) {
                                let kept: Vec<Bson> = a
                                    .iter()
                                    .filter(|x| crate::checks::ref_id(x) != target)
                                    .cloned()
                                    .collect();
                                d.insert(path.clone(), kept);
                            }
                        }
                    }
                    r.get_mut(other, &target)?.insert(inverse.clone(), back);
                }
            }
            let mine = with_reference(mine, &target, element);
            r.get_mut(&c.name, &id)?.insert(path.clone(), mine);
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
        Kind::Element { .. } => crate::elements::expect(s, r, op),
        // A raw write `run::step` sends itself (`crate::outside`): not a repository call.
        Kind::OutsideEnum { .. } => None,
        Kind::Append { relation } | Kind::BucketRead { relation } => {
            crate::buckets::expect(s, r, op, relation)
        }
        Kind::LinkPair { .. } | Kind::Pattern { .. } if written_dangles(s, r, op) => {
            Some(Expect::MissingReference)
        }
        Kind::LinkPair { .. } => crate::links::expect(s, r, op),
        Kind::Pattern { .. } => crate::patterns::expect(s, r, op),
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
    // The document a pattern's write path, a link or a bucket append writes: its copies too.
    let at = match (&op.kind, op.method.as_str()) {
        (Kind::Pattern { .. }, "enqueue" | "new_version") | (Kind::LinkPair { .. }, "link") => {
            Some(0)
        }
        (Kind::Pattern { .. }, "insert_under") => Some(1),
        _ => None,
    };
    if let Some(i) = at {
        let mut args = op.bson_args();
        if let Some(Bson::Document(d)) = args.get(i).cloned() {
            args[i] = Bson::Document(settled(s.plan, r, &op.collection, d));
            op.args = args.into_iter().map(Bson::into_canonical_extjson).collect();
        }
        return op;
    }
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

/// Whether the document a pattern's write path or a link writes holds a reference with copies
/// naming no document.
fn written_dangles(s: &Schema<'_>, r: &Reference, op: &Op) -> bool {
    let at = match (&op.kind, op.method.as_str()) {
        (Kind::Pattern { .. }, "enqueue" | "new_version") | (Kind::LinkPair { .. }, "link") => 0,
        (Kind::Pattern { .. }, "insert_under") => 1,
        _ => return false,
    };
    op.bson_args()
        .get(at)
        .is_some_and(|d| crate::checks::dangles(s.plan, r, &op.collection, "", d))
}

/// `op` as sent to the repository: an insert's or a replacement's document with every copy
/// forged (the repository takes them from the sources).
pub fn forged(s: &Schema<'_>, op: &Op) -> Op {
    let mut op = op.clone();
    if matches!(op.kind, Kind::Insert | Kind::Replace) {
        if let Some(Bson::Document(mut d)) = op.bson_args().first().cloned() {
            crate::checks::forge_copies(s.plan, &op.collection, &mut d);
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

/// Whether the references `items` (ids or extended references) name `id`.
fn names(items: &[Bson], id: &Bson) -> bool {
    items.iter().any(|x| crate::checks::ref_id(x) == *id)
}

/// `items` with `reference` (naming `id`) in the place of the one naming `id`, or appended: a
/// link rewrites an extended reference already there, so its copies are the current ones.
fn with_reference(mut items: Vec<Bson>, id: &Bson, reference: Bson) -> Vec<Bson> {
    match items.iter().position(|x| crate::checks::ref_id(x) == *id) {
        Some(at) => items[at] = reference,
        None => items.push(reference),
    }
    items
}

/// The reference field `f` (or each element of it) holds to document `id` of `source`, stored
/// as `doc`: the id, or an extended reference holding it beside copies of `doc`'s fields.
fn reference_value(
    f: &squillion_codegen::plan::PlanField,
    id: &Bson,
    source: &Collection,
    doc: &Document,
) -> Bson {
    if f.children.is_empty() {
        return id.clone();
    }
    let mut ext = Document::new();
    for x in &f.children {
        if x.kind == squillion_codegen::plan::FieldKind::Ref {
            ext.insert(x.name.clone(), id.clone());
        } else if let Some(v) = crate::documents::copy_source(x, source, doc) {
            ext.insert(x.name.clone(), v);
        }
    }
    Bson::Document(ext)
}
