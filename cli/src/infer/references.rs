//! References: fields (and arrays, and `{id, ...}` subdocuments) whose values are the `_id`s of
//! another collection's documents, found by looking the sampled values up there.

use std::collections::BTreeSet;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;

use super::names::{singular, snake};
use super::path::Loc;
use super::sample::Sampled;
use super::shape::{value_key, FieldShape, Kind, Shape};

/// Values looked up per field and target.
const LOOKED_UP: usize = 200;

/// How a field holds its references.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// One id.
    Scalar,
    /// An array of ids.
    Array,
    /// A subdocument holding the id in `id` (or `_id`) beside copied fields: an extended
    /// reference.
    Extended {
        /// The key of the id inside it.
        id: String,
    },
    /// An array of extended references.
    ExtendedArray {
        /// The key of the id inside each element.
        id: String,
    },
}

impl Form {
    /// Whether the field holds many references.
    pub fn is_array(&self) -> bool {
        matches!(self, Form::Array | Form::ExtendedArray { .. })
    }

    /// The key of the id inside extended references.
    pub fn id_key(&self) -> Option<&str> {
        match self {
            Form::Extended { id } | Form::ExtendedArray { id } => Some(id),
            _ => None,
        }
    }
}

/// A field whose values were looked up as ids.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The holding collection (index into the samples).
    pub holder: usize,
    /// The place of the documents holding the field.
    pub place: Loc,
    /// The field.
    pub field: String,
    /// How it holds them.
    pub form: Form,
    /// The kind of the values.
    pub kind: Kind,
    /// Distinct sampled values.
    pub values: Vec<Bson>,
}

/// A reference found.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The holding collection (index into the samples).
    pub holder: usize,
    /// The place of the documents holding the field.
    pub place: Loc,
    /// The field.
    pub field: String,
    /// How it holds them.
    pub form: Form,
    /// The referenced collection (index into the samples).
    pub target: usize,
    /// Distinct sampled values looked up.
    pub checked: u64,
    /// Of which found as `_id`s of the target.
    pub found: u64,
}

impl Reference {
    /// The dotted path of the id values (`author.id`, `notes.user`, `parts.id`).
    pub fn id_path(&self) -> String {
        let base = self.place.path(&self.field);
        match self.form.id_key() {
            Some(id) => format!("{base}.{id}"),
            None => base,
        }
    }
}

/// Every field of every sampled collection whose values could be ids.
pub fn candidates(samples: &[Sampled]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        walk(i, &s.shape, &Loc::root(), &mut out);
    }
    out
}

fn id_values(f: &FieldShape) -> Option<(Kind, Vec<Bson>)> {
    let (kind, _) = f.main_kind()?;
    (kind.is_id_like() && !f.values.distinct.is_empty()).then(|| (kind, f.values.distinct.clone()))
}

/// The key holding an id in an extended reference: `id` or `_id`.
fn extended_id(shape: &Shape) -> Option<(&str, &FieldShape)> {
    ["id", "_id"]
        .into_iter()
        .find_map(|k| shape.fields.get_key_value(k))
        .map(|(k, f)| (k.as_str(), f))
        .filter(|(_, f)| f.present * 10 >= shape.seen * 9)
}

fn walk(holder: usize, shape: &Shape, place: &Loc, out: &mut Vec<Candidate>) {
    let mut push = |field: &str, form: Form, kind: Kind, values: Vec<Bson>| {
        out.push(Candidate {
            holder,
            place: place.clone(),
            field: field.to_owned(),
            form,
            kind,
            values,
        });
    };
    let mut nested = Vec::new();
    for (key, f) in &shape.fields {
        if place.is_root() && key == "_id" {
            continue;
        }
        let main = f.main_kind().map(|(k, _)| k);
        match main {
            Some(Kind::Document) => {
                let Some(sub) = f.doc.as_deref() else {
                    continue;
                };
                if let Some((id, idf)) = extended_id(sub) {
                    if let Some((kind, values)) = id_values(idf) {
                        push(key, Form::Extended { id: id.to_owned() }, kind, values);
                    }
                }
                nested.push((key, false, sub));
            }
            Some(Kind::Array) => {
                let Some(a) = f.array.as_deref() else {
                    continue;
                };
                match a.main_kind().map(|(k, _)| k) {
                    Some(Kind::Document) => {
                        let Some(el) = a.doc.as_deref() else { continue };
                        if let Some((id, idf)) = extended_id(el) {
                            if let Some((kind, values)) = id_values(idf) {
                                push(key, Form::ExtendedArray { id: id.to_owned() }, kind, values);
                            }
                        }
                        nested.push((key, true, el));
                    }
                    Some(kind) if kind.is_id_like() && !a.values.distinct.is_empty() => {
                        push(key, Form::Array, kind, a.values.distinct.clone());
                    }
                    _ => {}
                }
            }
            Some(_) => {
                if let Some((kind, values)) = id_values(f) {
                    push(key, Form::Scalar, kind, values);
                }
            }
            None => {}
        }
    }
    for (key, each, sub) in nested {
        walk(holder, sub, &place.child(key, each), out);
    }
}

/// Whether the field's name points at the collection: `author`, `author_id` or `authorIds` at
/// `authors`, `sensor` at `sensor_readings`' sensors...
pub fn name_hint(field: &str, collection: &str) -> bool {
    let mut f = snake(field);
    for suffix in ["_ids", "_id", "_refs", "_ref"] {
        if let Some(stripped) = f.strip_suffix(suffix) {
            f = stripped.to_owned();
            break;
        }
    }
    let f = singular(&f);
    let c = singular(&snake(collection));
    let last = |s: &str| s.rsplit('_').next().unwrap_or(s).to_owned();
    f == c || last(&f) == last(&c) || f == "parent" || f == "ancestor"
}

fn compatible(value: Kind, id: Kind) -> bool {
    value == id || (value.is_number() && id.is_number())
}

/// How sure a lookup has to be before a field counts as a reference: ObjectIds and binary ids
/// are unique by construction; strings may collide with a lookup table by chance, so few values
/// need a hint in the name; numbers collide easily, so they always need one.
fn accepted(c: &Candidate, found: u64, checked: u64, hint: bool) -> bool {
    if found == 0 || found * 10 < checked * 8 {
        return false;
    }
    match c.kind {
        Kind::ObjectId | Kind::Binary => true,
        Kind::String => hint || found >= 3,
        _ => hint && found * 10 >= checked * 9,
    }
}

/// Looks every candidate up in every collection whose `_id`s have its kind, and keeps those
/// that point at one.
pub async fn find(
    db: &Database,
    samples: &[Sampled],
    candidates: &[Candidate],
) -> mongodb::error::Result<Vec<Reference>> {
    let mut out = Vec::new();
    for c in candidates {
        let values: Vec<Bson> = c.values.iter().take(LOOKED_UP).cloned().collect();
        let checked = values.len() as u64;
        let mut best: Option<(bool, u64, usize)> = None;
        for (t, target) in samples.iter().enumerate() {
            let Some(id_kind) = target.id_kind() else {
                continue;
            };
            if !compatible(c.kind, id_kind) || target.sampled == 0 {
                continue;
            }
            let found = found_ids(db, &target.name, &values).await?;
            let hint = name_hint(&c.field, &target.name);
            if accepted(c, found, checked, hint)
                && best.is_none_or(|(h, n, _)| (hint, found) > (h, n))
            {
                best = Some((hint, found, t));
            }
        }
        if let Some((_, found, target)) = best {
            out.push(Reference {
                holder: c.holder,
                place: c.place.clone(),
                field: c.field.clone(),
                form: c.form.clone(),
                target,
                checked,
                found,
            });
        }
    }
    // The id inside an extended reference is the reference: not a second one.
    let extended: Vec<(usize, Loc, String)> = out
        .iter()
        .filter_map(|r| {
            let id = r.form.id_key()?;
            let each = r.form.is_array();
            Some((r.holder, r.place.child(&r.field, each), id.to_owned()))
        })
        .collect();
    out.retain(|r| {
        !extended
            .iter()
            .any(|(h, place, id)| *h == r.holder && *place == r.place && *id == r.field)
    });
    Ok(out)
}

/// How many of `values` are `_id`s in `collection`.
async fn found_ids(
    db: &Database,
    collection: &str,
    values: &[Bson],
) -> mongodb::error::Result<u64> {
    let mut cursor = db
        .collection::<Document>(collection)
        .find(doc! { "_id": { "$in": values.to_vec() } })
        .projection(doc! { "_id": 1 })
        .await?;
    let mut found = BTreeSet::new();
    while let Some(d) = cursor.try_next().await? {
        if let Some(id) = d.get("_id") {
            found.insert(value_key(id));
        }
    }
    Ok(found.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::oid::ObjectId;

    #[test]
    fn names_hint_at_collections() {
        assert!(name_hint("author", "authors"));
        assert!(name_hint("author_id", "authors"));
        assert!(name_hint("authorIds", "authors"));
        assert!(name_hint("sensor", "sensors"));
        assert!(name_hint("customer", "customers"));
        assert!(name_hint("parent", "tree2"));
        assert!(!name_hint("pages", "authors"));
        assert!(!name_hint("qty", "sensors"));
    }

    #[test]
    fn candidates_cover_scalars_arrays_and_extended_references_at_every_level() {
        let mut shape = Shape::default();
        let o = ObjectId::new();
        shape.observe(
            &doc! {
                "_id": o,
                "author": { "id": o, "name": "a" },
                "tags": ["x"],
                "parts": [{ "id": o, "name": "p" }],
                "notes": [{ "user": "u1", "comments": [{ "user": "u2" }] }],
                "pages": 3,
                "when": mongodb::bson::DateTime::now(),
            },
            0,
        );
        let s = Sampled {
            name: "books".into(),
            estimated: 1,
            sampled: 1,
            shape,
            evidence: Default::default(),
            indexes: vec![],
        };
        let found: Vec<(String, Form)> = candidates(&[s])
            .into_iter()
            .map(|c| (c.place.path(&c.field), c.form))
            .collect();
        let id = || "id".to_owned();
        assert_eq!(
            found,
            vec![
                ("author".into(), Form::Extended { id: id() }),
                ("tags".into(), Form::Array),
                ("parts".into(), Form::ExtendedArray { id: id() }),
                ("pages".into(), Form::Scalar),
                ("author.id".into(), Form::Scalar),
                ("author.name".into(), Form::Scalar),
                ("parts.id".into(), Form::Scalar),
                ("parts.name".into(), Form::Scalar),
                ("notes.user".into(), Form::Scalar),
                ("notes.comments.user".into(), Form::Scalar),
            ]
        );
    }
}
