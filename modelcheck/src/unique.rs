//! Unique indexes as the reference predicts them: the values a multikey index sees and whether a
//! document would collide with another on one.

use bson::{Bson, Document};
use squillion_codegen::plan::Collection;

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
