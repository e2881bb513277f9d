//! What an audit looks for in one sampled document, as pure functions of the document and the
//! planned collection.

use mongodb::bson::{Bson, Document};
use serde::Serialize;
use squillion_codegen::plan::{
    Collection, Container, ContainerKind, FieldKind, PlanField, Settings,
};

/// The kinds of contradiction between data and design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// An array longer than its declared bound (or, unbounded, than the embedding threshold).
    ArrayOverBound,
    /// A map with more entries than its declared bound (`map<T; N>`).
    MapOverBound,
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
    /// A relation held in another place or shape than the plan keeps it.
    LayoutDiffers,
    /// A collection the plan needs does not exist.
    MissingCollection,
    /// A copied field (rule 5) that differs from its source.
    StaleCopy,
    /// A subset or top-N list that does not hold the right children in the right order.
    WrongSubset,
    /// A subset or top-N copy that differs from the child it copies.
    StaleSubset,
    /// A summary that differs from the aggregate of what it summarises.
    WrongSummary,
    /// One side of a two-way link names a document that does not name it back.
    BrokenLink,
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
    /// What to do about it: the command, repository method or update that repairs it.
    pub help: Option<String>,
    /// For the data invariants: the invariant, the documents compared and the first mismatches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<super::drift::Drift>,
    /// What it concerns, and its rank among the findings.
    pub cost: super::rank::Cost,
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
    fields(&c.fields, doc, "", settings, &mut Vec::new(), &mut out);
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

fn fields<'a>(
    planned: &'a [PlanField],
    doc: &Document,
    prefix: &str,
    settings: &Settings,
    ancestors: &mut Vec<&'a PlanField>,
    out: &mut Vec<Observation>,
) {
    for (key, value) in doc {
        let path = join(prefix, key);
        let Some(field) = planned.iter().find(|f| &f.name == key) else {
            out.push(Observation {
                kind: FindingKind::UnknownField,
                path: Some(path),
                value: 0,
                limit: 0,
            });
            continue;
        };
        value_checks(field, value, &path, settings, ancestors, out);
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The fields of an embedded document: its own, or for a recursive field (a tree of replies)
/// those of the enclosing field of the same type.
fn children<'a>(field: &'a PlanField, ancestors: &[&'a PlanField]) -> &'a [PlanField] {
    if field.recursive {
        ancestors
            .iter()
            .rev()
            .find(|a| !a.recursive && a.type_name.is_some() && a.type_name == field.type_name)
            .map_or(&[], |a| a.children.as_slice())
    } else {
        &field.children
    }
}

fn value_checks<'a>(
    field: &'a PlanField,
    value: &Bson,
    path: &str,
    settings: &Settings,
    ancestors: &mut Vec<&'a PlanField>,
    out: &mut Vec<Observation>,
) {
    let planned = children(field, ancestors);
    ancestors.push(field);
    levels(
        &Walk {
            field,
            planned,
            settings,
        },
        &field.containers,
        true,
        value,
        path,
        ancestors,
        out,
    );
    ancestors.pop();
}

/// What [`levels`] checks a value against.
struct Walk<'a, 's> {
    field: &'a PlanField,
    planned: &'a [PlanField],
    settings: &'s Settings,
}

/// Checks `value` against the field's container levels `rest` (outermost first): each array
/// and map within its bound, then the innermost documents' fields. A value of another shape is
/// not this check's business (the validator's).
fn levels<'a>(
    walk: &Walk<'a, '_>,
    rest: &[Container],
    outermost: bool,
    value: &Bson,
    path: &str,
    ancestors: &mut Vec<&'a PlanField>,
    out: &mut Vec<Observation>,
) {
    match (rest.split_first(), value) {
        (Some((level, inner)), Bson::Array(items)) if level.kind == ContainerKind::Array => {
            // An unbounded outer array is held to the threshold its kind is embedded under.
            let limit = match (level.bound, walk.field.kind, outermost) {
                (Some(m), _, _) => Some(m),
                (None, FieldKind::Pattern, _) | (None, _, false) => None,
                (None, FieldKind::RefArray, true) => Some(walk.settings.id_array_max),
                (None, _, true) => Some(walk.settings.embed_array_max),
            };
            over(FindingKind::ArrayOverBound, items.len(), limit, path, out);
            for item in items {
                levels(walk, inner, false, item, path, ancestors, out);
            }
        }
        // A map: the keys are data.
        (Some((level, inner)), Bson::Document(d)) if level.kind == ContainerKind::Map => {
            over(FindingKind::MapOverBound, d.len(), level.bound, path, out);
            let path = format!("{path}.*");
            for v in d.values() {
                levels(walk, inner, false, v, &path, ancestors, out);
            }
        }
        (None, Bson::Document(d)) if !walk.planned.is_empty() => {
            fields(walk.planned, d, path, walk.settings, ancestors, out);
        }
        _ => {}
    }
}

/// An observation of `kind` when `len` exceeds `limit`.
fn over(kind: FindingKind, len: usize, limit: Option<u64>, path: &str, out: &mut Vec<Observation>) {
    let len = len as u64;
    if let Some(limit) = limit.filter(|&l| len > l) {
        out.push(Observation {
            kind,
            path: Some(path.to_owned()),
            value: len,
            limit,
        });
    }
}

/// One reference found in a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// The referencing field's path (array levels not written).
    pub path: String,
    /// The entity referenced.
    pub target: String,
    /// The referenced `_id`.
    pub id: Bson,
}

/// The ids referenced by a document, with the field holding each, for the dangling-reference
/// check.
pub fn references(c: &Collection, doc: &Document) -> Vec<Reference> {
    let mut out = Vec::new();
    collect_refs(&c.fields, doc, "", &mut Vec::new(), &mut out);
    out
}

fn collect_refs<'a>(
    planned: &'a [PlanField],
    doc: &Document,
    prefix: &str,
    ancestors: &mut Vec<&'a PlanField>,
    out: &mut Vec<Reference>,
) {
    for f in planned {
        let Some(value) = doc.get(&f.name) else {
            continue;
        };
        let path = join(prefix, &f.name);
        match f.kind {
            FieldKind::Ref | FieldKind::RefArray if f.name != "_id" => {
                let Some(target) = &f.source else { continue };
                let mut push = |v: &Bson| {
                    let id = match v {
                        Bson::Document(d) => d.get("id"),
                        Bson::Null => None,
                        other => Some(other),
                    };
                    if let Some(id) = id {
                        out.push(Reference {
                            path: path.clone(),
                            target: target.clone(),
                            id: id.clone(),
                        });
                    }
                };
                match value {
                    Bson::Array(items) => items.iter().for_each(&mut push),
                    other => push(other),
                }
            }
            _ => {
                let planned = children(f, ancestors);
                if planned.is_empty() {
                    continue;
                }
                ancestors.push(f);
                match value {
                    Bson::Document(d) if f.is_map() => {
                        let path = format!("{path}.*");
                        for v in d.values() {
                            if let Bson::Document(inner) = v {
                                collect_refs(planned, inner, &path, ancestors, out);
                            }
                        }
                    }
                    Bson::Document(d) => collect_refs(planned, d, &path, ancestors, out),
                    Bson::Array(items) => {
                        for item in items {
                            if let Bson::Document(d) = item {
                                collect_refs(planned, d, &path, ancestors, out);
                            }
                        }
                    }
                    _ => {}
                }
                ancestors.pop();
            }
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
            containers: vec![Container::array(max); usize::from(depth)],
            array_depth: depth,
            max_items: max,
            typical_items: None,
            inner_dims: vec![],
            map: false,
            max_entries: None,
            optional: false,
            type_name: None,
            enum_values: Vec::new(),
            range: None,
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
            vec![Reference {
                path: "author".to_owned(),
                target: "Author".to_owned(),
                id: Bson::Int32(7)
            }]
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

    #[test]
    fn recursive_trees_and_map_values_are_checked_with_the_fields_they_repeat() {
        let mut user = field("user", FieldKind::Ref, "string", 0, None);
        user.source = Some("User".into());
        let mut replies = field("replies", FieldKind::Embedded, "object", 1, Some(2));
        replies.recursive = true;
        replies.type_name = Some("Comment".into());
        let mut comments = field("comments", FieldKind::Embedded, "object", 1, Some(5));
        comments.type_name = Some("Comment".into());
        comments.children = vec![
            field("text", FieldKind::Scalar, "string", 0, None),
            replies,
            user,
        ];
        let mut results = field("results", FieldKind::Embedded, "object", 0, None);
        results.containers = vec![Container::map(None)];
        results.summarise_containers();
        results.children = vec![field("score", FieldKind::Scalar, "int", 0, None)];
        let c = collection(vec![
            field("_id", FieldKind::Scalar, "objectId", 0, None),
            comments,
            results,
        ]);
        let d = doc! {
            "_id": 1,
            "comments": [{ "text": "a", "user": "ann", "replies": [
                { "text": "b", "user": "bob", "replies": [
                    { "text": "c", "user": "cy", "mood": 1, "replies": [{}, {}, {}] },
                ] },
            ] }],
            "results": { "ann": { "score": 3 }, "bob": { "score": 4, "bonus": 1 } },
        };
        let obs = check_document(&c, &Settings::default(), &d, None);
        let paths: Vec<(FindingKind, &str)> = obs
            .iter()
            .map(|o| (o.kind, o.path.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            paths,
            vec![
                (FindingKind::UnknownField, "comments.replies.replies.mood"),
                (
                    FindingKind::ArrayOverBound,
                    "comments.replies.replies.replies"
                ),
                (FindingKind::UnknownField, "results.*.bonus"),
            ]
        );
        let mut refs: Vec<(String, String)> = references(&c, &d)
            .into_iter()
            .map(|r| (r.path, r.id.to_string()))
            .collect();
        refs.sort();
        assert_eq!(
            refs,
            vec![
                (
                    "comments.replies.replies.user".to_owned(),
                    "\"cy\"".to_owned()
                ),
                ("comments.replies.user".to_owned(), "\"bob\"".to_owned()),
                ("comments.user".to_owned(), "\"ann\"".to_owned()),
            ]
        );
    }
}
