//! The errors every repository operation returns.

mod driver;

pub use driver::{Context, DriverError};

/// What can go wrong in a repository operation.
///
/// Layout rules that the database enforces (a bound on an array, a schema version) come back as
/// their own variants, so an application can tell "this array is full" from a network failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An array declared with a bound is full: the update that would have grown it past `max`
    /// matched nothing, and nothing was written.
    #[error("`{field}` is full: it holds at most {max} elements (rule of thumb 3: arrays must not grow without bound)")]
    BoundExceeded {
        /// `collection.path` of the array.
        field: String,
        /// The declared bound.
        max: usize,
    },
    /// A map declared with a bound (`map<T; N>`) holds `max` entries: the update that would
    /// have added a new key matched nothing, and nothing was written. Setting a key it already
    /// holds still works.
    #[error("`{field}` is full: it holds at most {max} entries; set a key it already holds, or remove one first")]
    MapFull {
        /// `collection.path` of the map.
        field: String,
        /// The declared bound.
        max: usize,
    },
    /// A map key that cannot be stored as one key: MongoDB reads `.` in an update's path as a
    /// step into a subdocument and `$` at its start as an operator, so such a key would address
    /// another path. Nothing was written.
    #[error("`{key}` cannot be a key of `{field}`: {reason}; choose a key without it")]
    InvalidMapKey {
        /// `collection.path` of the map.
        field: String,
        /// The key, as given.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An element of an embedded array would repeat a value the array's elements keep unique
    /// (`@unique` on a field of an embedded entity): nothing was written. MongoDB's unique index
    /// refuses a value held by another document; the push refuses one held by this document.
    #[error("`{field}` already holds {value} in this document: the elements' values are unique")]
    DuplicateElement {
        /// `collection.array.field` of the unique value.
        field: String,
        /// The value, as extended JSON.
        value: String,
    },
    /// The document an operation needs does not exist.
    #[error("no document with _id {id} in `{collection}`")]
    NotFound {
        /// The collection searched.
        collection: String,
        /// The id, as extended JSON.
        id: String,
    },
    /// Other writers kept changing a document while an operation recomputed the values it
    /// derives from it (the summaries of an array after a removal); nothing inconsistent was
    /// written, and the operation can be retried.
    #[error("the document with _id {id} in `{collection}` kept changing while its summaries were recomputed; retry the operation")]
    Contended {
        /// The collection.
        collection: String,
        /// The id, as extended JSON.
        id: String,
    },
    /// Another new version of a document versioned with a history was made between this new
    /// version's read of the current one (`version`) and its replace: nothing of this one was
    /// kept (the winner's version is current). Read the document again and make the new version
    /// from it.
    #[error("the document with _id {id} in `{collection}` got another new version after version {} was read; nothing was written: read it again and retry", version.map_or_else(|| "none".to_owned(), |v| v.to_string()))]
    VersionConflict {
        /// The collection of the current versions.
        collection: String,
        /// The id, as extended JSON.
        id: String,
        /// The version read (`None`: the document had no version number).
        version: Option<i64>,
    },
    /// A child given to its parent's subset or top-N list names another parent (or one that
    /// does not exist): nothing was written.
    #[error("the child {child} of `{collection}` does not name {parent} in `{key}`: it is not that parent's child")]
    WrongParent {
        /// The children's collection.
        collection: String,
        /// The child's field holding its parent's id.
        key: String,
        /// The child's id, as extended JSON.
        child: String,
        /// The parent's id, as extended JSON.
        parent: String,
    },
    /// A reference whose copies the document holds names no stored document: the copies cannot
    /// be taken from their source, and nothing was written (a reference with copies never
    /// dangles).
    #[error("`{field}` names no document of `{collection}` (_id {id}): a reference with copies must name a stored document; nothing was written")]
    MissingReference {
        /// `collection.path` of the reference's id in the written document.
        field: String,
        /// The collection of the referenced documents.
        collection: String,
        /// The id, as extended JSON.
        id: String,
    },
    /// The deployment cannot run multi-document transactions (a standalone server): operations
    /// that must update two documents atomically refuse to run half of their work.
    #[error("this operation needs a multi-document transaction, and the deployment cannot run one (a standalone server; use a replica set)")]
    TransactionsUnsupported,
    /// A document was written by a schema version this code does not read.
    #[error("document has schema version {}, this code reads versions {min_accepted} to {expected}", found.map_or_else(|| "none".to_owned(), |v| v.to_string()))]
    SchemaVersion {
        /// The version stored in the document (`None`: the field is missing).
        found: Option<i64>,
        /// The version this code writes.
        expected: i64,
        /// The oldest version this code still reads.
        min_accepted: i64,
    },
    /// A value could not be converted to BSON.
    #[error("cannot convert to BSON: {0}")]
    Serialize(#[from] bson::ser::Error),
    /// A stored document does not have the shape of the Rust type.
    #[error("stored document does not match the Rust type: {0}")]
    Deserialize(#[from] bson::de::Error),
    /// A value declared in an attribute (a partial filter, a validator) is not valid extended JSON.
    #[error("invalid declaration `{what}`: {reason}")]
    Declaration {
        /// What was being read.
        what: String,
        /// Why it failed.
        reason: String,
    },
    /// A page cursor was given to a query it does not continue (it was made for other sort keys).
    #[error("the page cursor does not continue this query: it was made for the sort {made_for}, the query sorts by {expected}")]
    InvalidCursor {
        /// The sort keys the cursor was made for.
        made_for: String,
        /// The sort keys of the query.
        expected: String,
    },
    /// An increment or decrement whose amount cannot be applied to the field (its negation or
    /// the counter's floor does not fit the number's type, or the amount is not a number).
    #[error("cannot change `{field}` by {amount}: {reason}")]
    InvalidAmount {
        /// The field changed.
        field: String,
        /// The amount, as extended JSON.
        amount: String,
        /// Why it cannot be applied.
        reason: &'static str,
    },
    /// A slot of preallocated counters outside their dimensions (`[24, 0]` of 24 x 60): nothing
    /// was written (`$inc` there would have grown the array instead).
    #[error("`{field}` has no counter at {slot}: its counters are {dims}, counted from 0")]
    NoSuchSlot {
        /// `collection.path` of the counters.
        field: String,
        /// The slot, as given.
        slot: String,
        /// The dimensions.
        dims: String,
    },
    /// The document exists but its array holds no element with the key given (an `inc_` or
    /// `dec_` of one element's field): nothing was written.
    #[error("document {id} of `{field}` holds no element whose `{key}` is {value}; push the element first, or check the key")]
    NoSuchElement {
        /// `collection.array` searched.
        field: String,
        /// The document's id, as extended JSON.
        id: String,
        /// The element field that identifies an element (`id`, a `@unique` field).
        key: String,
        /// The key given, as extended JSON.
        value: String,
    },
    /// The driver or the server failed. Its `Display` is one line: the operation, the
    /// collection, the server's code and message; [`DriverError::driver`] is the driver's error.
    #[error("{0}")]
    Driver(DriverError),
}

impl From<mongodb::error::Error> for Error {
    fn from(e: mongodb::error::Error) -> Self {
        Error::Driver(DriverError::new(e))
    }
}

impl Error {
    /// The server's error code, when the server refused the operation.
    pub fn server_code(&self) -> Option<i32> {
        match self {
            Error::Driver(e) => e.code(),
            _ => None,
        }
    }

    /// The server refused a document that fails the collection's validator (code 121).
    pub fn is_validation_failure(&self) -> bool {
        self.server_code() == Some(121)
    }

    /// A unique index refused a duplicate (code 11000), or a push refused an element repeating a
    /// value unique among an array's elements ([`Error::DuplicateElement`]).
    pub fn is_duplicate_key(&self) -> bool {
        self.server_code() == Some(11000) || matches!(self, Error::DuplicateElement { .. })
    }
}

/// The result of every repository operation.
pub type Result<T, E = Error> = core::result::Result<T, E>;
