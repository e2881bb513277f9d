//! Two-way referencing: both sides hold references, so linking writes two documents, in one
//! transaction (seed 004: no single atomic update can move a child between parents).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection};

use super::arrays::{add_ref_filter, lookup, missing_or_full, room_for_one};
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

async fn link_body(
    side: &Side<'_>,
    this_id: &Bson,
    other_id: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let r = crate::__squillion_in_session!(
        side.this.update_one(
            add_ref_filter(
                this_id.clone(),
                side.this_path,
                side.this_max,
                other_id.clone()
            ),
            doc! { "$addToSet": { side.this_path: other_id.clone() } },
        ),
        session
    )
    .during("update", side.this.name())?;
    if r.matched_count == 0 {
        return Err(missing_or_full(side.this, this_id, side.this_path, side.this_max).await);
    }
    match side.inverse {
        Inverse::Many { max } => {
            let r = crate::__squillion_in_session!(
                side.other.update_one(
                    add_ref_filter(other_id.clone(), side.other_path, max, this_id.clone()),
                    doc! { "$addToSet": { side.other_path: this_id.clone() } },
                ),
                session
            )
            .during("update", side.other.name())?;
            if r.matched_count == 0 {
                return Err(missing_or_full(side.other, other_id, side.other_path, max).await);
            }
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
                    doc! { side.this_path: other_id.clone(), "_id": { "$ne": this_id.clone() } },
                    doc! { "$pull": { side.this_path: other_id.clone() } },
                ),
                session
            )
            .during("update", side.this.name())?;
            let r = crate::__squillion_in_session!(
                side.other.update_one(
                    doc! { "_id": other_id.clone() },
                    doc! { "$set": { side.other_path: this_id.clone() } },
                ),
                session
            )
            .during("update", side.other.name())?;
            if r.matched_count == 0 {
                return Err(super::core::not_found_in(side.other, other_id));
            }
            let mut owners = vec![this_id];
            // An extended reference names its owner at `<path>.id`.
            let before = match before {
                Some(Bson::Document(d)) => d.get("id").cloned(),
                other => other,
            };
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
            doc! { "$pull": { side.this_path: other_id.clone() } },
        ),
        session
    )
    .during("update", side.this.name())?;
    match side.inverse {
        Inverse::Many { .. } => {
            crate::__squillion_in_session!(
                side.other.update_one(
                    doc! { "_id": other_id.clone() },
                    doc! { "$pull": { side.other_path: this_id.clone() } },
                ),
                session
            )
            .during("update", side.other.name())?;
        }
        Inverse::One => {
            crate::__squillion_in_session!(
                side.other.update_one(
                    doc! { "_id": other_id.clone(), side.other_path: this_id.clone() },
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
    let _ = room_for_one;
    crate::__squillion_transaction!(client, |session| unlink_body(
        side,
        &this_id,
        &other_id,
        Some(&mut session)
    )
    .await)
}
