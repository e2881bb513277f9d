//! The documents operations write: new documents of a collection, with their references
//! pointing at documents the reference holds (carrying their copies) and the fields relationships
//! and patterns maintain at their starting values.

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, FieldKind, PlanField};

use crate::model::Reference;
use crate::ops::Schema;
use crate::values::{self, Context, Rng};

/// The zero of a BSON number type (`int` when not a number type).
pub(crate) fn zero(bson: &str) -> Bson {
    match bson {
        "long" => Bson::Int64(0),
        "double" => Bson::Double(0.0),
        _ => Bson::Int32(0),
    }
}

/// An extended reference (or a bare id) to a random document of `target`, with its copies.
pub(crate) fn reference_to(
    f: &PlanField,
    s: &Schema<'_>,
    r: &Reference,
    rng: &mut Rng,
) -> Option<Bson> {
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
        } else if c.kind == FieldKind::Scalar
            && c.source.is_none()
            && !(c.optional && rng.chance(30))
        {
            // A relationship's own field beside the reference (an order line's quantity).
            out.insert(c.name.clone(), values::value(c, rng, &Context::default()));
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
