//! The operations the harness runs, read off the Plan and the repositories' methods: what each
//! layout lets an application do, the call that does it, and what it must leave behind (applied
//! to the reference model). This module holds the operations' types; drawing them is
//! [`crate::draw`], applying them to the reference [`crate::apply`], the documents they write
//! [`crate::documents`], and the unique indexes they must respect [`crate::unique`].

use bson::{Bson, Document};
use serde::{Deserialize, Serialize};
use squillion_codegen::plan::{Collection, CollectionRole, Plan};

use crate::driver::Method;

/// What an operation means, so the reference can apply it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Kind {
    /// Insert a document.
    Insert,
    /// Replace a document with one whose declared data changed.
    Replace,
    /// Delete a document nothing refers to.
    Delete,
    /// Append to a bounded embedded array (`push_<f>`); summaries of the array follow.
    Push {
        /// The array.
        path: String,
        /// Its bound.
        max: usize,
    },
    /// Remove the elements equal to one (`remove_<f>` on an embedded array).
    Pull {
        /// The array.
        path: String,
    },
    /// Add an id to a bounded id array (`add_<f>`), a no-op when present.
    AddRef {
        /// The array.
        path: String,
        /// Its bound.
        max: usize,
    },
    /// Link both sides of a two-way relationship (`link_<f>`).
    Link {
        /// This side's array.
        path: String,
        /// Its bound.
        max: usize,
        /// The other side's collection.
        other: String,
        /// The other side's field.
        inverse: String,
        /// The other side's bound, when it holds an array.
        inverse_max: Option<usize>,
    },
    /// Insert a child and keep it in the parent's subset (`push_<f>` of a subset).
    Subset {
        /// The subset array.
        path: String,
        /// The child's collection.
        child: String,
        /// How many are kept.
        n: usize,
        /// The field ordering them.
        sort_by: String,
        /// Largest first.
        desc: bool,
        /// The fields each copy holds.
        keep: Vec<String>,
    },
    /// Insert a child through its parent (`push_<f>` of a subset or top-N list refilled from
    /// the children): every list and summary of the parent follows.
    SubsetPush {
        /// The relationship (`Entity.field`).
        relation: String,
    },
    /// Replace a child through its parent (`replace_<f>`), perhaps moving it to another parent:
    /// the lists and summaries of both are refilled.
    SubsetReplace {
        /// The relationship.
        relation: String,
    },
    /// Delete a child through its parent (`remove_<f>`): the next child takes its place.
    SubsetRemove {
        /// The relationship.
        relation: String,
    },
    /// Set a copied field of a source document, fanning out to every copy (`set_<f>`).
    FanOut {
        /// The field.
        field: String,
    },
    /// Append a child to its owner's bucket (`append_<f>`), or read buckets back (`<f>_bucket`,
    /// `<f>_buckets`) ([`crate::buckets`]).
    Append {
        /// The relationship.
        relation: String,
    },
    /// Read an owner's buckets back ([`crate::buckets`]).
    BucketRead {
        /// The relationship.
        relation: String,
    },
    /// Link, unlink or read pairs of a link collection ([`crate::links`]).
    LinkPair {
        /// The link collection.
        collection: String,
    },
    /// Call a method of a tree, a queue or versioned documents ([`crate::patterns`]).
    Pattern {
        /// The collection following the pattern.
        collection: String,
    },
    /// Add to one number of one element of a keyed array (`inc_<array>_<n>`), or take from a
    /// counter while it stays at its floor or above (`dec_<array>_<n>`) ([`crate::elements`]).
    Element {
        /// The array.
        path: String,
        /// The element field an element is found by.
        key: String,
        /// The number changed.
        field: String,
        /// The guarded decrement.
        decrement: bool,
    },
    /// Call a declared query ([`crate::queries`]).
    Query {
        /// The query's name.
        name: String,
    },
    /// Replace a document, with the driver and not its repository, by itself with one
    /// enumeration value changed to one the enumeration does not list: the validator must refuse
    /// it ([`crate::outside`]).
    OutsideEnum {
        /// Where the value was changed (a dotted path, array indexes included).
        path: String,
    },
}

/// One operation, concrete enough to replay: the call and its meaning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// The collection whose repository is called.
    pub collection: String,
    /// The method.
    pub method: String,
    /// Its arguments, as relaxed extended JSON.
    pub args: Vec<serde_json::Value>,
    /// What it means.
    pub kind: Kind,
    /// Calls that complete it before the state is checked (inserting a child of a two-way
    /// relationship, then linking it from its parent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub then: Vec<Op>,
}

impl Op {
    pub(crate) fn new(collection: &str, method: String, args: Vec<Bson>, kind: Kind) -> Op {
        Op {
            collection: collection.to_owned(),
            method,
            args: args.into_iter().map(Bson::into_canonical_extjson).collect(),
            kind,
            then: Vec::new(),
        }
    }

    /// A call of the declared query `name` on `collection`'s repository.
    pub fn query(collection: &str, name: &str, args: Vec<Bson>) -> Op {
        Op::new(
            collection,
            name.to_owned(),
            args,
            Kind::Query {
                name: name.to_owned(),
            },
        )
    }

    /// The arguments as BSON.
    pub fn bson_args(&self) -> Vec<Bson> {
        self.args
            .iter()
            .map(|a| Bson::try_from(a.clone()).unwrap_or(Bson::Null))
            .collect()
    }

    /// One line describing the call.
    pub fn describe(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        let mut s = format!("{}.{}({})", self.collection, self.method, args.join(", "));
        for t in &self.then {
            s.push_str(" then ");
            s.push_str(&t.describe());
        }
        s
    }
}

/// What the repository must answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Success.
    Ok,
    /// `Error::BoundExceeded`.
    BoundExceeded,
    /// A duplicate key refused by a unique index.
    Duplicate,
    /// `Error::MissingReference`: a reference with copies names no document; nothing written.
    MissingReference,
    /// `Error::NotFound`: no document has the id; nothing written.
    NotFound,
    /// `Error::NoSuchElement`: the document's array holds no element with the key; nothing
    /// written.
    NoSuchElement,
    /// The validator refused the write (a number leaving its `@range`); nothing written.
    Invalid,
    /// Exactly this value (a read, or what a write answers: `link`'s "the pair is new").
    Value(Bson),
    /// The job a queue's `claim_next` hands out: `job` as the reference holds it, with its
    /// `started` field set to the claim time (taken from the answer).
    Claimed {
        /// The job, claimed.
        job: Document,
        /// The field holding the claim time.
        started: String,
    },
    /// A declared query's answer: the `selected` documents, in `sort`'s order (path, descending),
    /// at most `limit`.
    Query {
        /// The documents the conditions select.
        selected: Vec<Document>,
        /// The sort keys.
        sort: Vec<(String, bool)>,
        /// The limit.
        limit: Option<usize>,
    },
}

/// The schema as the harness sees it: the Plan and the repositories' methods.
pub struct Schema<'a> {
    /// The Plan.
    pub plan: &'a Plan,
    /// Every repository method.
    pub methods: &'a [Method],
}

impl Schema<'_> {
    /// Whether `collection`'s repository has `name`.
    pub fn has(&self, collection: &str, name: &str) -> bool {
        self.methods
            .iter()
            .any(|m| m.collection == collection && m.name == name)
    }

    /// The collection holding `entity`'s own documents.
    pub fn home(&self, entity: &str) -> Option<&Collection> {
        self.plan
            .collections
            .iter()
            .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
    }
}

/// Collections whose documents the harness writes with `insert`: entity collections without a
/// pattern that needs its own write path (tree, queue, versioning).
pub fn writable(c: &Collection) -> bool {
    c.role == CollectionRole::Entity
        && !c
            .patterns
            .iter()
            .any(|p| matches!(p.name.as_str(), "tree" | "queue" | "document_versioning"))
}
