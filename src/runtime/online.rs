//! The online mode of a migration (issue 15): a repository generated from a new schema with the
//! old one beside it (`squillion generate NEW --from OLD`) reads documents of the old version
//! while the background migration moves them. A stored document's `schema_version` decides: one
//! below the current version is upgraded in memory by its type's [`Upgrade`] (fields renamed,
//! plain references wrapped into extended ones) and then, by the repository, has its copies taken
//! from their sources, as the migration's backfill gives them; one at the current version is read
//! as it is.
//!
//! Writes: inserts and replaces write the whole document at the current version. Every other
//! write of a document by its id first gives the stored document the new shape, server side and
//! atomically ([`shape_pipeline`], one `updateOne` guarded by the version: renames and wraps, the
//! same moves as the migration's steps), so that an update relative to the stored value (`$inc`,
//! `$push`) finds it under its new name; the document keeps its version, which the migration
//! raises once its copies are backfilled. Every step of an in-place migration leaves alone what
//! the new code writes (a rename moves the old field only where the new one is absent, a wrap
//! only a plain reference, a backfill writes a copy only where it is still absent),
//! so a write through the new code is never undone by the migration.

use bson::{doc, Bson, Document as BsonDocument};

use crate::{Document, Error, Result, SchemaVersion};

/// How documents stored at version `from` become documents of the current version, in memory.
/// Written by the derive (`upgrade(from = N, rename(...), wrap(...))`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upgrade {
    /// The oldest version this upgrade reads (0: documents without `schema_version`).
    pub from: i64,
    /// Stored fields renamed, `(old path, new path)`, outermost first: the old value is moved to
    /// the new path where the new path is absent, and removed.
    pub renames: &'static [(&'static str, &'static str)],
    /// Plain references wrapped into extended ones, `(path, id name)`: a value at `path` that
    /// is not a document becomes `{id name: value}` (its copies are filled afterwards).
    pub wraps: &'static [(&'static str, &'static str)],
}

/// The version stored in `doc` (`None`: absent or not a whole number).
pub fn stored_version(doc: &BsonDocument) -> Option<i64> {
    match doc.get(SchemaVersion::FIELD) {
        Some(Bson::Int32(n)) => Some(i64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Double(f)) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    }
}

/// Whether `T` reads documents of an older version through an [`Upgrade`].
pub fn upgrades<T: Document>() -> bool {
    T::SCHEMA_VERSION.is_some() && !T::UPGRADES.is_empty()
}

/// Upgrades `doc` in memory when it is stored at an older version `T` reads: returns whether
/// it did (the caller then fills its copies). A document at the current version is left as it
/// is; one at a version `T` neither writes nor upgrades is [`Error::SchemaVersion`].
pub fn upgrade<T: Document>(doc: &mut BsonDocument) -> Result<bool> {
    let Some(v) = T::SCHEMA_VERSION else {
        return Ok(false);
    };
    let found = stored_version(doc);
    let version = found.unwrap_or(0);
    if found.is_some() && version >= v.min_accepted && version <= v.current {
        return Ok(false);
    }
    // The upgrade for the oldest version it reads, at or below the stored one.
    let chosen = T::UPGRADES
        .iter()
        .filter(|u| u.from <= version && version < v.min_accepted.min(v.current))
        .max_by_key(|u| u.from);
    let Some(u) = chosen else {
        return Err(Error::SchemaVersion {
            found,
            expected: v.current,
            min_accepted: T::UPGRADES
                .iter()
                .map(|u| u.from)
                .min()
                .unwrap_or(v.min_accepted),
        });
    };
    apply(u, doc);
    doc.insert(SchemaVersion::FIELD, SchemaVersion::stored(v.current));
    Ok(true)
}

/// The renames and wraps of `u`, on `doc`.
fn apply(u: &Upgrade, doc: &mut BsonDocument) {
    for (from, to) in u.renames {
        if let Some(old) = remove_at(doc, from) {
            if get_at(doc, to).is_none() {
                set_at(doc, to, old);
            }
        }
    }
    for (path, id) in u.wraps {
        let plain = get_at(doc, path).is_some_and(|v| !matches!(v, Bson::Document(_)));
        if plain {
            if let Some(value) = remove_at(doc, path) {
                let mut wrapped = BsonDocument::new();
                wrapped.insert(*id, value);
                set_at(doc, path, Bson::Document(wrapped));
            }
        }
    }
}

/// The pipeline update giving a stored document of an older version the current shape, in place:
/// for each rename, the old value moved to the new path where that is absent, and removed; for
/// each wrap, a reference that is not yet a document wrapped into `{id name: value}`. Running it
/// again changes nothing. Empty when the shape does not change (fields added or removed only).
pub fn shape_pipeline<T: Document>() -> Vec<BsonDocument> {
    let mut stages = Vec::new();
    let mut upgrades: Vec<&Upgrade> = T::UPGRADES.iter().collect();
    upgrades.sort_by_key(|u| u.from);
    for u in upgrades {
        for (from, to) in u.renames {
            stages.push(doc! { "$set": { *to: { "$cond": [
                { "$eq": [{ "$type": format!("${to}") }, "missing"] },
                format!("${from}"),
                format!("${to}"),
            ] } } });
            stages.push(doc! { "$unset": *from });
        }
        for (path, id) in u.wraps {
            stages.push(doc! { "$set": { *path: { "$cond": [
                { "$in": [{ "$type": format!("${path}") }, ["object", "missing", "null"]] },
                format!("${path}"),
                { *id: format!("${path}") },
            ] } } });
        }
    }
    stages
}

/// The filter of documents stored below `T`'s current version (or without a version).
pub fn below_current<T: Document>(id: Bson) -> Option<BsonDocument> {
    let mut filter = doc! { "_id": id };
    filter.extend(stored_below_current::<T>()?);
    Some(filter)
}

/// `{$or: [{schema_version: {$lt: current}}, {schema_version: {$exists: false}}]}`: the
/// documents stored below `T`'s current version (or without a version), whose copies the
/// migration has not backfilled yet.
pub fn stored_below_current<T: Document>() -> Option<BsonDocument> {
    let v = T::SCHEMA_VERSION?;
    Some(doc! { "$or": [
        { SchemaVersion::FIELD: { "$lt": SchemaVersion::stored(v.current) } },
        { SchemaVersion::FIELD: { "$exists": false } },
    ] })
}

/// The aggregation expression true of a document stored below `T`'s current version (or without
/// a version): [`stored_below_current`] as `$expr`.
pub fn is_below_current<T: Document>() -> Option<Bson> {
    let v = T::SCHEMA_VERSION?;
    let version = format!("${}", SchemaVersion::FIELD);
    Some(Bson::Document(doc! { "$lt": [
        { "$ifNull": [version, -1] },
        SchemaVersion::stored(v.current),
    ] }))
}

/// The value at a dotted path (through subdocuments only).
fn get_at<'a>(doc: &'a BsonDocument, path: &str) -> Option<&'a Bson> {
    let (parent, last) = match path.rsplit_once('.') {
        Some((p, l)) => (parent_of(doc, p)?, l),
        None => (doc, path),
    };
    parent.get(last)
}

fn parent_of<'a>(doc: &'a BsonDocument, path: &str) -> Option<&'a BsonDocument> {
    path.split('.')
        .try_fold(doc, |d, segment| d.get(segment)?.as_document())
}

fn parent_of_mut<'a>(doc: &'a mut BsonDocument, path: &str) -> Option<&'a mut BsonDocument> {
    path.split('.')
        .try_fold(doc, |d, segment| d.get_mut(segment)?.as_document_mut())
}

/// Removes the value at a dotted path, returning it.
fn remove_at(doc: &mut BsonDocument, path: &str) -> Option<Bson> {
    match path.rsplit_once('.') {
        Some((p, last)) => parent_of_mut(doc, p)?.remove(last),
        None => doc.remove(path),
    }
}

/// Sets the value at a dotted path, making the subdocuments on the way (a value that is not a
/// subdocument on the way leaves the document as it was).
fn set_at(doc: &mut BsonDocument, path: &str, value: Bson) {
    let mut segments: Vec<&str> = path.split('.').collect();
    let Some(last) = segments.pop() else {
        return;
    };
    let mut here = doc;
    for s in segments {
        let next = here
            .entry(s.to_owned())
            .or_insert_with(|| Bson::Document(BsonDocument::new()));
        match next.as_document_mut() {
            Some(d) => here = d,
            None => return,
        }
    }
    here.insert(last, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: Upgrade = Upgrade {
        from: 1,
        renames: &[("pages", "page_count"), ("meta.old", "meta.new")],
        wraps: &[("author", "id")],
    };

    #[test]
    fn an_old_document_is_renamed_and_wrapped() {
        let mut d = doc! { "pages": 3, "meta": { "old": "x" }, "author": 7 };
        apply(&U, &mut d);
        assert_eq!(
            d,
            doc! { "meta": { "new": "x" }, "author": { "id": 7 }, "page_count": 3 }
        );
    }

    #[test]
    fn a_value_the_new_code_wrote_wins_over_the_old_one() {
        let mut d = doc! { "pages": 3, "page_count": 9, "author": { "id": 7, "name": "n" } };
        apply(&U, &mut d);
        assert_eq!(
            d,
            doc! { "page_count": 9, "author": { "id": 7, "name": "n" } }
        );
    }
}
