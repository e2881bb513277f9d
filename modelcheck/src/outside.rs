//! Values outside an enumeration: the generated types cannot hold one, so only a raw write can
//! send it, and the Plan's validator must refuse it. The operation takes a stored document,
//! changes one enumeration value in it (at the top level, in an array, a map, a subdocument or
//! an embedded child) to a text the enumeration does not list, and replaces the document with it
//! through the driver, bypassing the repositories: the server must refuse it
//! (`DocumentValidationFailure`) and leave the document as it was.

use bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::plan::PlanField;

use crate::model::Reference;
use crate::ops::{Kind, Op, Schema};
use crate::values::Rng;

/// The text put in place of an enumeration's value: no generated enumeration lists it.
pub const OUTSIDE: &str = "not-listed";

/// One step of a path into a document.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The places of `value` (the value of `f`) holding an enumeration's value, each as a path.
fn places(f: &PlanField, value: &Bson, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Bson::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(Step::Index(i));
                places(f, item, at, out);
                at.pop();
            }
        }
        Bson::String(_) if !f.enum_values.is_empty() => out.push(at.clone()),
        Bson::Document(d) if f.is_map() && !f.enum_values.is_empty() => {
            for (k, v) in d {
                at.push(Step::Key(k.clone()));
                places(f, v, at, out);
                at.pop();
            }
        }
        Bson::Document(d) => within(&f.children, d, at, out),
        _ => {}
    }
}

fn within(fields: &[PlanField], d: &Document, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    for f in fields {
        if let Some(v) = d.get(&f.name) {
            at.push(Step::Key(f.name.clone()));
            places(f, v, at, out);
            at.pop();
        }
    }
}

/// `value` with the place at `path` set to `to`.
fn set(value: &mut Bson, path: &[Step], to: Bson) {
    let Some((first, rest)) = path.split_first() else {
        *value = to;
        return;
    };
    let next = match (value, first) {
        (Bson::Document(d), Step::Key(k)) => d.get_mut(k),
        (Bson::Array(a), Step::Index(i)) => a.get_mut(*i),
        _ => None,
    };
    if let Some(next) = next {
        set(next, rest, to);
    }
}

fn dotted(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => k.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A stored document with one enumeration value changed to [`OUTSIDE`], written raw; `None`
/// when no stored document holds an enumeration value.
pub fn draw(s: &Schema<'_>, r: &Reference, rng: &mut Rng) -> Option<Op> {
    let mut candidates = Vec::new();
    for c in &s.plan.collections {
        for d in r.docs(&c.name) {
            let mut found = Vec::new();
            within(&c.fields, d, &mut Vec::new(), &mut found);
            candidates.extend(found.into_iter().map(|p| (c, d, p)));
        }
    }
    let (c, d, path) = rng.pick(&candidates)?;
    let mut changed = Bson::Document((*d).clone());
    set(&mut changed, path, Bson::String(OUTSIDE.to_owned()));
    Some(Op::new(
        &c.name,
        "raw_replace".into(),
        vec![changed],
        Kind::OutsideEnum { path: dotted(path) },
    ))
}

/// Sends the changed document with the driver's `replaceOne`: `Ok(None)` when the document is
/// no longer stored (a shrunk sequence dropped its insert), `Ok(Some(()))` when the server
/// refused it as the validator must, else what went wrong.
pub async fn run(db: &Database, r: &Reference, op: &Op) -> Result<Option<()>, String> {
    let Some(Bson::Document(changed)) = op.bson_args().into_iter().next() else {
        return Ok(None);
    };
    let Some(id) = changed.get("_id").cloned() else {
        return Ok(None);
    };
    if r.get(&op.collection, &id).is_none() {
        return Ok(None);
    }
    let path = match &op.kind {
        Kind::OutsideEnum { path } => path.clone(),
        _ => String::new(),
    };
    match db
        .collection::<Document>(&op.collection)
        .replace_one(doc! { "_id": id }, changed)
        .await
    {
        Err(e) if squillion::Error::from(e.clone()).is_validation_failure() => Ok(Some(())),
        Err(e) => Err(format!(
            "{}: the server refused `{OUTSIDE}` at `{path}` with another error than the validator's: {e}",
            op.describe()
        )),
        Ok(_) => Err(format!(
            "{}: the server stored `{OUTSIDE}` at `{path}`, which the enumeration does not list: the collection's validator does not hold the field to its values",
            op.describe()
        )),
    }
}
