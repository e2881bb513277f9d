//! Unique indexes as the reference predicts them: the values a multikey index sees and whether a
//! document would collide with another on one.

use bson::{Bson, Document};
use squillion_codegen::plan::{Collection, FieldKind};

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
        if paths.len() > 1 {
            // A compound unique index (a link collection's pair): the whole tuple collides
            // (absent values index as null).
            let tuple = |d: &Bson| -> Vec<Bson> {
                paths
                    .iter()
                    .map(|p| values_at(d, p).into_iter().next().unwrap_or(Bson::Null))
                    .collect()
            };
            let mine = tuple(&me);
            return docs
                .iter()
                .filter(|d| d.get("_id") != id)
                .any(|d| tuple(&Bson::Document(d.clone())) == mine);
        }
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

/// The paths, inside one element of `array`, of values `c`'s unique indexes hold (`@unique` on a
/// field of an embedded entity): MongoDB enforces them across documents, the generated pushes
/// within one array (`$ne` guards).
pub fn paths_in(c: &Collection, array: &str) -> Vec<String> {
    let prefix = format!("{array}.");
    let mut out: Vec<String> = c
        .indexes
        .iter()
        .filter(|i| i.unique)
        .filter_map(|i| i.keys.first())
        .filter_map(|k| k.path.strip_prefix(&prefix).map(str::to_owned))
        .collect();
    // An array of references with copies or relationship fields holds each reference once
    // (the generated `embed(max, unique("id"))`).
    let id = c
        .field(array)
        .filter(|f| f.kind == FieldKind::RefArray)
        .and_then(|f| f.children.iter().find(|x| x.kind == FieldKind::Ref));
    if let Some(id) = id {
        if !out.contains(&id.name) {
            out.insert(0, id.name.clone());
        }
    }
    out
}

/// The value at dotted `path` of `v`.
fn at<'a>(v: &'a Bson, path: &str) -> Option<&'a Bson> {
    let mut v = v;
    for seg in path.split('.') {
        v = v.as_document()?.get(seg)?;
    }
    Some(v)
}

/// Whether `doc`'s `array` already holds an element sharing one of `item`'s values at `paths`
/// (absent and null values do not count: the indexes are sparse).
pub fn held(doc: &Document, array: &str, paths: &[String], item: &Bson) -> bool {
    let elements = doc.get_array(array).map(Vec::as_slice).unwrap_or(&[]);
    paths.iter().any(|p| match at(item, p) {
        None | Some(Bson::Null) => false,
        Some(v) => elements.iter().any(|e| at(e, p) == Some(v)),
    })
}

/// `item` with the values at `paths` taken from `other` (an element already in the array), so
/// that pushing it must be refused.
pub fn with_values_of(item: &mut Document, other: &Bson, paths: &[String]) {
    for p in paths {
        // Top-level fields of the element only: a nested path would need its subdocument.
        if let (false, Some(v)) = (p.contains('.'), at(other, p)) {
            item.insert(p.clone(), v.clone());
        }
    }
}
