//! [`Document`]: what `#[derive(squillion::Document)]` implements, and the static descriptions
//! (indexes, schema versions) a repository reads.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A Rust type stored as the documents of one collection.
///
/// Implemented by `#[derive(squillion::Document)]`, which also writes the type's repository
/// (`<Name>Repo`). Implementing it by hand is possible but the derive keeps it in step with the
/// struct's attributes.
pub trait Document: Serialize + DeserializeOwned + Send + Sync + Unpin + 'static {
    /// The type of `_id`.
    type Id: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;

    /// The collection's name.
    const COLLECTION: &'static str;

    /// The schema version written into every document (`schema_version` field), if versioned.
    const SCHEMA_VERSION: Option<SchemaVersion> = None;

    /// The secondary indexes (`_id` is implicit).
    const INDEXES: &'static [IndexSpec] = &[];

    /// What documents of this type keep of their children in other collections (subsets and
    /// top-N lists refilled from the children, summaries of all the children): the children's
    /// own repository reads it to keep them in step with its writes. Written by the derive.
    #[doc(hidden)]
    const KEEPS: &'static [crate::__private::subsets::Subset] = &[];

    /// The copies documents of this type hold of other documents' fields (denormalized
    /// extended references): every write of a reference takes them from its source. Written by
    /// the derive (`copy_of(...)`).
    #[doc(hidden)]
    const COPIES: &'static [crate::__private::copies::CopyOf] = &[];

    /// How documents of older schema versions are read (the online mode of a migration,
    /// [`crate::__private::online`]): renames and wraps applied in memory, copies filled from
    /// their sources. Written by the derive (`upgrade(...)`).
    #[doc(hidden)]
    const UPGRADES: &'static [crate::__private::online::Upgrade] = &[];

    /// The parents that keep lists or summaries of documents of this type (the type is declared
    /// `kept_by` them), each with what it keeps: every write of such a document, through its own
    /// repository or through one parent's `push_`/`replace_`/`remove_`, keeps all of them in
    /// step. Written by the derive.
    #[doc(hidden)]
    fn keepers() -> Vec<crate::__private::kept::Keeper> {
        Vec::new()
    }

    /// The `_id` of this document.
    fn id(&self) -> &Self::Id;

    /// The collection's validator (`{"$jsonSchema": ...}` or a query expression), if any.
    fn validator() -> crate::Result<Option<bson::Document>> {
        Ok(None)
    }
}

/// The schema version a type writes and the oldest it still reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaVersion {
    /// Written on every insert and replace.
    pub current: i64,
    /// The oldest version readers accept.
    pub min_accepted: i64,
}

impl SchemaVersion {
    /// The field holding the version in every document.
    pub const FIELD: &'static str = "schema_version";

    /// A version as stored: a 32-bit integer, as the Plan's validator (`bsonType: "int"`) and the
    /// generated `i32` field have it; only a version beyond `i32` is stored as a 64-bit one.
    pub fn stored(version: i64) -> bson::Bson {
        i32::try_from(version).map_or(bson::Bson::Int64(version), bson::Bson::Int32)
    }
}

/// One key of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// Ascending (`1`).
    Asc,
    /// Descending (`-1`).
    Desc,
    /// Text (`"text"`).
    Text,
    /// Hashed (`"hashed"`).
    Hashed,
    /// Geospatial on a sphere (`"2dsphere"`).
    Sphere2d,
}

impl IndexKind {
    /// The value in the index's key document.
    pub fn to_bson(self) -> bson::Bson {
        match self {
            IndexKind::Asc => bson::Bson::Int32(1),
            IndexKind::Desc => bson::Bson::Int32(-1),
            IndexKind::Text => bson::Bson::String("text".into()),
            IndexKind::Hashed => bson::Bson::String("hashed".into()),
            IndexKind::Sphere2d => bson::Bson::String("2dsphere".into()),
        }
    }

    fn name_part(self) -> &'static str {
        match self {
            IndexKind::Asc => "1",
            IndexKind::Desc => "-1",
            IndexKind::Text => "text",
            IndexKind::Hashed => "hashed",
            IndexKind::Sphere2d => "2dsphere",
        }
    }
}

/// A collation on an index (strength 2: case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexCollation {
    /// Locale, e.g. `en`.
    pub locale: &'static str,
    /// Comparison strength, 1 to 5.
    pub strength: i32,
}

/// A secondary index, as declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexSpec {
    /// Stable name; `None`: MongoDB's default (`field_1_other_-1`).
    pub name: Option<&'static str>,
    /// Keys in order.
    pub keys: &'static [(&'static str, IndexKind)],
    /// Unique.
    pub unique: bool,
    /// Sparse.
    pub sparse: bool,
    /// Documents expire this many seconds after the (date) key's value.
    pub expire_after_seconds: Option<u64>,
    /// Partial filter expression, as extended JSON.
    pub partial_filter: Option<&'static str>,
    /// Collation.
    pub collation: Option<IndexCollation>,
}

impl IndexSpec {
    /// The index's name: the declared one, or MongoDB's default form.
    pub fn name(&self) -> String {
        match self.name {
            Some(n) => n.to_owned(),
            None => self
                .keys
                .iter()
                .map(|(path, kind)| format!("{path}_{}", kind.name_part()))
                .collect::<Vec<_>>()
                .join("_"),
        }
    }

    /// The key document.
    pub fn key_document(&self) -> bson::Document {
        self.keys
            .iter()
            .map(|(path, kind)| ((*path).to_owned(), kind.to_bson()))
            .collect()
    }

    /// The index document of a `createIndexes` command.
    pub fn to_document(&self) -> crate::Result<bson::Document> {
        let mut d = bson::doc! { "key": self.key_document(), "name": self.name() };
        if self.unique {
            d.insert("unique", true);
        }
        if self.sparse {
            d.insert("sparse", true);
        }
        if let Some(s) = self.expire_after_seconds {
            d.insert("expireAfterSeconds", i64::try_from(s).unwrap_or(i64::MAX));
        }
        if let Some(p) = self.partial_filter {
            d.insert(
                "partialFilterExpression",
                crate::__private::json::document(p, "partial filter")?,
            );
        }
        if let Some(c) = self.collation {
            d.insert(
                "collation",
                bson::doc! { "locale": c.locale, "strength": c.strength },
            );
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_follow_mongodb() {
        let spec = IndexSpec {
            name: None,
            keys: &[("a", IndexKind::Asc), ("b.c", IndexKind::Desc)],
            unique: false,
            sparse: false,
            expire_after_seconds: None,
            partial_filter: None,
            collation: None,
        };
        assert_eq!(spec.name(), "a_1_b.c_-1");
    }
}
