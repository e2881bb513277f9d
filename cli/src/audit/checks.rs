//! What an audit looks for in one sampled document, as pure functions of the document and the
//! planned collection.

use mongodb::bson::{Bson, Document};
use serde::Serialize;
use squillion_codegen::plan::{Collection, FieldKind, PlanField, Settings};

/// The kinds of contradiction between data and design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// An array longer than its declared bound (or, unbounded, than the embedding threshold).
    ArrayOverBound,
    /// A document near or over the size limits (2 MB warning, 16 MB limit).
    DocumentSize,
    /// A declared index is missing on the server.
    MissingIndex,
    /// A field the schema does not declare.
    UnknownField,
    /// A document written by an older schema version.
    OldSchemaVersion,
    /// A reference to a document that does not exist.
    DanglingReference,
}

/// One contradiction, aggregated over the sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The collection.
    pub collection: String,
    /// What kind.
    pub kind: FindingKind,
    /// The field's path, if it is about a field.
    pub path: Option<String>,
    /// Sampled documents showing it.
    pub count: u64,
    /// The `_id` of one of them, as text.
    pub example: Option<String>,
    /// The numbers: the largest length found and the bound, the size, the version...
    pub detail: String,
}

/// What one document shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// What kind.
    pub kind: FindingKind,
    /// The field.
    pub path: Option<String>,
    /// The measured value (array length, bytes, version).
    pub value: u64,
    /// The limit it broke.
    pub limit: u64,
}

/// Checks one document against its planned collection.
pub fn check_document(
    c: &Collection,
    settings: &Settings,
    doc: &Document,
    schema_version: Option<u32>,
) -> Vec<Observation> {
    let mut out = Vec::new();
    let size = mongodb::bson::to_vec(doc)
        .map(|v| v.len() as u64)
        .unwrap_or(0);
    if size > settings.doc_warn_size {
        out.push(Observation {
            kind: FindingKind::DocumentSize,
            path: None,
            value: size,
            limit: settings.doc_warn_size,
        });
    }
    fields(&c.fields, doc, "", settings, &mut out);
    if let Some(version) = schema_version {
        let found = match doc.get("schema_version") {
            Some(Bson::Int32(v)) => Some(i64::from(*v)),
            Some(Bson::Int64(v)) => Some(*v),
            Some(Bson::Double(v)) => Some(*v as i64),
            _ => None,
        };
        match found {
            Some(v) if v >= i64::from(version) => {}
            other => out.push(Observation {
                kind: FindingKind::OldSchemaVersion,
                path: Some("schema_version".to_owned()),
                value: other.and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
                limit: u64::from(version),
            }),
        }
    }
    out
}

fn fields(
    planned: &[PlanField],
    doc: &Document,
    prefix: &str,
    settings: &Settings,
    out: &mut Vec<Observation>,
) {
    for (key, value) in doc {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let Some(field) = planned.iter().find(|f| &f.name == key) else {
            out.push(Observation {
                kind: FindingKind::UnknownField,
                path: Some(path),
                value: 0,
                limit: 0,
            });
            continue;
        };
        value_checks(field, value, &path, settings, out);
    }
}

fn value_checks(
    field: &PlanField,
    value: &Bson,
    path: &str,
    settings: &Settings,
    out: &mut Vec<Observation>,
) {
    match value {
        Bson::Array(items) if field.array_depth > 0 => {
            let limit = match (field.max_items, field.kind) {
                (Some(m), _) => Some(m),
                (None, FieldKind::Pattern) => None,
                (None, FieldKind::RefArray) => Some(settings.id_array_max),
                (None, _) => Some(settings.embed_array_max),
            };
            let len = items.len() as u64;
            if let Some(limit) = limit {
                if len > limit {
                    out.push(Observation {
                        kind: FindingKind::ArrayOverBound,
                        path: Some(path.to_owned()),
                        value: len,
                        limit,
                    });
                }
            }
            if !field.children.is_empty() && !field.map {
                for item in items {
                    if let Bson::Document(d) = item {
                        fields(&field.children, d, path, settings, out);
                    }
                }
            }
        }
        Bson::Document(d) if !field.children.is_empty() && !field.map => {
            fields(&field.children, d, path, settings, out);
        }
        _ => {}
    }
}

/// The ids referenced by a document, per target entity, for the dangling-reference check.
pub fn references(c: &Collection, doc: &Document) -> Vec<(String, Bson)> {
    let mut out = Vec::new();
    collect_refs(&c.fields, doc, &mut out);
    out
}

fn collect_refs(planned: &[PlanField], doc: &Document, out: &mut Vec<(String, Bson)>) {
    for f in planned {
        let Some(value) = doc.get(&f.name) else {
            continue;
        };
        match f.kind {
            FieldKind::Ref | FieldKind::RefArray if f.name != "_id" => {
                let Some(target) = &f.source else { continue };
                let mut push = |v: &Bson| match v {
                    Bson::Document(d) => {
                        if let Some(id) = d.get("id") {
                            out.push((target.clone(), id.clone()));
                        }
                    }
                    Bson::Null => {}
                    other => out.push((target.clone(), other.clone())),
                };
                match value {
                    Bson::Array(items) => items.iter().for_each(&mut push),
                    other => push(other),
                }
            }
            _ => match value {
                Bson::Document(d) => collect_refs(&f.children, d, out),
                Bson::Array(items) if !f.children.is_empty() => {
                    for item in items {
                        if let Bson::Document(d) = item {
                            collect_refs(&f.children, d, out);
                        }
                    }
                }
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;
    use squillion_codegen::plan::{CollectionRole, FieldFlags, IdPlan, SizeEstimate};

    fn field(name: &str, kind: FieldKind, bson: &str, depth: u8, max: Option<u64>) -> PlanField {
        PlanField {
            name: name.into(),
            path: name.into(),
            code_name: name.into(),
            kind,
            bson_type: bson.into(),
            array_depth: depth,
            max_items: max,
            inner_dims: vec![],
            map: false,
            optional: false,
            type_name: None,
            children: vec![],
            recursive: false,
            source: None,
            relation: None,
            variant: None,
            flags: FieldFlags::default(),
            docs: vec![],
            size: SizeEstimate::default(),
        }
    }

    fn collection(fields: Vec<PlanField>) -> Collection {
        Collection {
            name: "books".into(),
            entity: "Book".into(),
            role: CollectionRole::Entity,
            docs: vec![],
            id: IdPlan {
                bson_type: squillion_codegen::plan::BsonType::ObjectId,
                natural_key: None,
            },
            fields,
            indexes: vec![],
            size: SizeEstimate::default(),
            patterns: vec![],
            variants: None,
            schema_version: None,
        }
    }

    #[test]
    fn arrays_over_their_bound_and_unknown_fields_are_found() {
        let mut author = field("author", FieldKind::Ref, "objectId", 0, None);
        author.source = Some("Author".into());
        let c = collection(vec![
            field("_id", FieldKind::Scalar, "objectId", 0, None),
            field("subjects", FieldKind::Scalar, "string", 1, Some(2)),
            author,
        ]);
        let d = doc! { "_id": 1, "subjects": ["a", "b", "c"], "shelf": 4, "author": 7 };
        let obs = check_document(&c, &Settings::default(), &d, None);
        assert!(obs
            .iter()
            .any(|o| o.kind == FindingKind::ArrayOverBound && o.value == 3 && o.limit == 2));
        assert!(obs
            .iter()
            .any(|o| o.kind == FindingKind::UnknownField && o.path.as_deref() == Some("shelf")));
        assert_eq!(
            references(&c, &d),
            vec![("Author".to_owned(), Bson::Int32(7))]
        );
    }

    #[test]
    fn old_schema_versions_are_found() {
        let c = collection(vec![
            field("_id", FieldKind::Scalar, "objectId", 0, None),
            field("schema_version", FieldKind::Pattern, "int", 0, None),
        ]);
        let old = doc! { "_id": 1, "schema_version": 1 };
        let new = doc! { "_id": 2, "schema_version": 2 };
        assert_eq!(
            check_document(&c, &Settings::default(), &old, Some(2))[0].kind,
            FindingKind::OldSchemaVersion
        );
        assert!(check_document(&c, &Settings::default(), &new, Some(2)).is_empty());
    }
}
