//! Two-way referencing: both sides hold references, so linking writes two documents, in one
//! transaction (seed 004: no single atomic update can move a child between parents).
//!
//! Either side's references may be extended references (`{id, name}`: the id and copies of the
//! other document's fields, `copy_of`): a link then reads both documents in its transaction and
//! writes each side's reference with the other's current values, the same copies
//! [`super::copies`] takes on every other write; the fan-out keeps them in step afterwards.
//! The link writes both documents it copies from, so a rename of either racing it conflicts with
//! the transaction and one of the two retries: no link writes a copy older than its source.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection};

use super::arrays::{add_ref_filter, lookup, missing_or_full, room_for_one};
use super::copies::{reference_copies, CopyOf};
use super::subsets::{refill_body, Subset};
use crate::error::Context;
use crate::Result;

/// The other side's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inverse {
    /// A single reference (one-to-many: a task's owner).
    One,
    /// A bounded array of references (many-to-many: a book's authors).
    Many {
        /// Its bound.
        max: usize,
    },
}

/// Both sides of a two-way relationship.
#[derive(Debug)]
pub struct Side<'a> {
    /// This side's collection.
    pub this: &'a Collection<BsonDocument>,
    /// This side's array of references.
    pub this_path: &'a str,
    /// Its bound.
    pub this_max: usize,
    /// The other side's collection.
    pub other: &'a Collection<BsonDocument>,
    /// The other side's field.
    pub other_path: &'a str,
    /// What the other side's field holds.
    pub inverse: Inverse,
    /// What this side keeps of its children in other collections (its `Document::KEEPS`): the
    /// lists and summaries of the other side, refilled when a link moves a child.
    pub keeps: &'a [Subset],
    /// Where the other document's id sits in each element of this side's array when the
    /// elements are extended references (`Some("id")` for `{id, name}`); `None`: they are ids.
    pub this_id: Option<&'a str>,
    /// Where this document's id sits in the other side's reference (or in each element of its
    /// array) when it is an extended reference; `None`: it is the id.
    pub other_id: Option<&'a str>,
    /// The copies this side's documents hold (its `Document::COPIES`).
    pub this_copies: &'a [CopyOf],
    /// The copies the other side's documents hold (their `Document::COPIES`).
    pub other_copies: &'a [CopyOf],
}

impl Side<'_> {
    /// What this side keeps of the other side's documents through their reference to it.
    fn kept(&self) -> impl Iterator<Item = &Subset> {
        let (children, path) = (self.other.name(), self.other_path);
        self.keeps.iter().filter(move |s| {
            s.children == children
                && (s.key == path || s.key.strip_prefix(path).is_some_and(|r| r.starts_with('.')))
        })
    }

    /// Refills what this side keeps of the other side's documents in each of `owners`.
    async fn refill(
        &self,
        owners: &[&Bson],
        mut session: Option<&mut ClientSession>,
    ) -> Result<()> {
        for s in self.kept() {
            for owner in owners {
                // A parent that is not stored keeps nothing.
                refill_body(self.this, s, owner, session.as_deref_mut()).await?;
            }
        }
        Ok(())
    }
}

/// The path of the id inside the references at `path`: `doctors.id` for extended references
/// keyed `id`, `doctors` for ids.
fn id_path(path: &str, key: Option<&str>) -> String {
    match key {
        Some(k) => format!("{path}.{k}"),
        None => path.to_owned(),
    }
}

/// The `$pull` condition taking the reference to `id` out of an array of references.
fn pull_condition(key: Option<&str>, id: &Bson) -> Bson {
    match key {
        Some(k) => Bson::Document(doc! { k: id.clone() }),
        None => id.clone(),
    }
}

/// The id a stored reference holds: the reference itself, or its field `key` for an extended
/// reference (`Null` when it holds none). `load_<f>` reads the ids of an array with it.
pub fn reference_id(reference: Bson, key: Option<&str>) -> Bson {
    match (key, reference) {
        (Some(k), Bson::Document(mut d)) => d.remove(k).unwrap_or(Bson::Null),
        (_, r) => r,
    }
}

/// The reference written at the marked path `at` of a document holding `copies` to the
/// document `id` of `source`: the id itself, or `{key: id, copies...}` with the copies read
/// from that document in the transaction. [`crate::Error::NotFound`] when it is not stored.
async fn reference(
    source: &Collection<BsonDocument>,
    id: &Bson,
    key: Option<&str>,
    (copies, at): (&[CopyOf], &str),
    session: &mut Option<&mut ClientSession>,
) -> Result<Bson> {
    let Some(key) = key else {
        return Ok(id.clone());
    };
    let found =
        crate::__squillion_in_session!(source.find_one(doc! { "_id": id.clone() }), session)
            .during("find", source.name())?;
    let Some(found) = found else {
        return Err(super::core::not_found_in(source, id));
    };
    let mut out = doc! { key: id.clone() };
    out.extend(reference_copies(copies, source.name(), at, &found));
    Ok(Bson::Document(out))
}

/// Adds `reference` (naming `named`) to the array at `path` of document `id`, within its bound
/// `max`; a reference already there is kept (an extended one is rewritten, so its copies are
/// the current ones). [`crate::Error::BoundExceeded`] or [`crate::Error::NotFound`] otherwise.
async fn add_reference(
    coll: &Collection<BsonDocument>,
    (id, path, max): (&Bson, &str, usize),
    (key, named, reference): (Option<&str>, &Bson, Bson),
    session: &mut Option<&mut ClientSession>,
) -> Result<()> {
    let Some(key) = key else {
        let r = crate::__squillion_in_session!(
            coll.update_one(
                add_ref_filter(id.clone(), path, max, named.clone()),
                doc! { "$addToSet": { path: reference } },
            ),
            session
        )
        .during("update", coll.name())?;
        if r.matched_count == 0 {
            return Err(missing_or_full(coll, id, path, max).await);
        }
        return Ok(());
    };
    let at = format!("{path}.{key}");
    let mut absent = room_for_one(path, max);
    absent.insert("_id", id.clone());
    absent.insert(at.as_str(), doc! { "$ne": named.clone() });
    let r = crate::__squillion_in_session!(
        coll.update_one(absent, doc! { "$push": { path: reference.clone() } }),
        session
    )
    .during("update", coll.name())?;
    if r.matched_count > 0 {
        return Ok(());
    }
    let r = crate::__squillion_in_session!(
        coll.update_one(
            doc! { "_id": id.clone(), at.as_str(): named.clone() },
            doc! { "$set": { format!("{path}.$"): reference } },
        ),
        session
    )
    .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(missing_or_full(coll, id, path, max).await);
    }
    Ok(())
}

async fn link_body(
    side: &Side<'_>,
    this_id: &Bson,
    other_id: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let here = format!("{}[]", side.this_path);
    let element = reference(
        side.other,
        other_id,
        side.this_id,
        (side.this_copies, &here),
        &mut session,
    )
    .await?;
    let there = match side.inverse {
        Inverse::One => side.other_path.to_owned(),
        Inverse::Many { .. } => format!("{}[]", side.other_path),
    };
    let back = reference(
        side.this,
        this_id,
        side.other_id,
        (side.other_copies, &there),
        &mut session,
    )
    .await?;
    add_reference(
        side.this,
        (this_id, side.this_path, side.this_max),
        (side.this_id, other_id, element),
        &mut session,
    )
    .await?;
    match side.inverse {
        Inverse::Many { max } => {
            add_reference(
                side.other,
                (other_id, side.other_path, max),
                (side.other_id, this_id, back),
                &mut session,
            )
            .await?;
        }
        Inverse::One => {
            // The owner it had before, whose lists and summaries lose it.
            let before = if side.kept().next().is_some() {
                crate::__squillion_in_session!(
                    side.other.find_one(doc! { "_id": other_id.clone() }),
                    session
                )
                .during("find", side.other.name())?
                .and_then(|d| lookup(&Bson::Document(d), side.other_path).cloned())
            } else {
                None
            };
            // The other document had another owner: that owner no longer lists it.
            crate::__squillion_in_session!(
                side.this.update_many(
                    doc! {
                        id_path(side.this_path, side.this_id): other_id.clone(),
                        "_id": { "$ne": this_id.clone() },
                    },
                    doc! { "$pull": { side.this_path: pull_condition(side.this_id, other_id) } },
                ),
                session
            )
            .during("update", side.this.name())?;
            let r = crate::__squillion_in_session!(
                side.other.update_one(
                    doc! { "_id": other_id.clone() },
                    doc! { "$set": { side.other_path: back } },
                ),
                session
            )
            .during("update", side.other.name())?;
            if r.matched_count == 0 {
                return Err(super::core::not_found_in(side.other, other_id));
            }
            let mut owners = vec![this_id];
            // An extended reference names its owner at `<path>.id`.
            let before = before.map(|b| reference_id(b, side.other_id.or(Some("id"))));
            if let Some(b) = before
                .as_ref()
                .filter(|b| *b != this_id && **b != Bson::Null)
            {
                owners.push(b);
            }
            side.refill(&owners, session).await?;
        }
    }
    Ok(())
}

/// Links both sides in one transaction; nothing is written when either side is missing or full.
pub async fn link(side: &Side<'_>, this_id: Bson, other_id: Bson) -> Result<()> {
    let client = side.this.client();
    crate::__squillion_transaction!(client, |session| link_body(
        side,
        &this_id,
        &other_id,
        Some(&mut session)
    )
    .await)
}

async fn unlink_body(
    side: &Side<'_>,
    this_id: &Bson,
    other_id: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    crate::__squillion_in_session!(
        side.this.update_one(
            doc! { "_id": this_id.clone() },
            doc! { "$pull": { side.this_path: pull_condition(side.this_id, other_id) } },
        ),
        session
    )
    .during("update", side.this.name())?;
    match side.inverse {
        Inverse::Many { .. } => {
            crate::__squillion_in_session!(
                side.other.update_one(
                    doc! { "_id": other_id.clone() },
                    doc! { "$pull": { side.other_path: pull_condition(side.other_id, this_id) } },
                ),
                session
            )
            .during("update", side.other.name())?;
        }
        Inverse::One => {
            crate::__squillion_in_session!(
                side.other.update_one(
                    doc! {
                        "_id": other_id.clone(),
                        id_path(side.other_path, side.other_id): this_id.clone(),
                    },
                    doc! { "$unset": { side.other_path: "" } },
                ),
                session
            )
            .during("update", side.other.name())?;
            side.refill(&[this_id], session).await?;
        }
    }
    Ok(())
}

/// Unlinks both sides in one transaction.
pub async fn unlink(side: &Side<'_>, this_id: Bson, other_id: Bson) -> Result<()> {
    let client = side.this.client();
    crate::__squillion_transaction!(client, |session| unlink_body(
        side,
        &this_id,
        &other_id,
        Some(&mut session)
    )
    .await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_named_by_their_id_or_by_the_id_inside() {
        let id = Bson::Int32(7);
        assert_eq!(id_path("doctors", Some("id")), "doctors.id");
        assert_eq!(id_path("doctors", None), "doctors");
        assert_eq!(
            pull_condition(Some("id"), &id),
            Bson::Document(doc! { "id": 7 })
        );
        assert_eq!(pull_condition(None, &id), id);
        let extended = Bson::Document(doc! { "id": 7, "name": "Ada" });
        assert_eq!(reference_id(extended.clone(), Some("id")), id);
        assert_eq!(
            reference_id(Bson::Document(doc! { "name": "Ada" }), Some("id")),
            Bson::Null
        );
        assert_eq!(reference_id(id.clone(), None), id);
        assert_eq!(reference_id(extended.clone(), None), extended);
    }
}
