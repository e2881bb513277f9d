//! Updates of one field in place: setters (`$set`, `$unset` of an absent optional), increments
//! (`$inc`, the new value read back in the same command) and guarded decrements of counters
//! (`$inc` of `-by` only while the result stays at or above the counter's minimum, checked by the
//! update's own filter so racing decrements never take a counter below it).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::ReturnDocument;
use mongodb::Collection;

use crate::error::Context;
use crate::{Error, Result};

use super::core::not_found_in as not_found;

/// `value` when document `id` exists (the update's own filter stopped the write), else
/// [`Error::NotFound`].
async fn unless_missing<V>(coll: &Collection<BsonDocument>, id: &Bson, value: V) -> Result<V> {
    if super::core::id_exists(coll, id).await? {
        Ok(value)
    } else {
        Err(not_found(coll, id))
    }
}

/// The update that stores `value` at `path`: `$set`, or `$unset` when `value` is null and the
/// field is optional (an absent optional field is left out of the document, as on insert).
pub fn set_update(path: &str, value: Bson, optional: bool) -> BsonDocument {
    if optional && value == Bson::Null {
        doc! { "$unset": { path: "" } }
    } else {
        doc! { "$set": { path: value } }
    }
}

/// Sets `path` of document `id` to `value` (`updateOne({_id}, {$set: {path: value}})`, or
/// `$unset` for an absent optional value). [`Error::NotFound`] if no document has this id.
pub async fn set(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    value: Bson,
    optional: bool,
) -> Result<()> {
    let r = coll
        .update_one(
            doc! { "_id": id.clone() },
            set_update(path, value, optional),
        )
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(not_found(coll, &id));
    }
    Ok(())
}

/// Adds `by` to the counter at `slot` of the preallocated counters at `path` (dimensions `dims`,
/// outermost first): `updateOne({_id}, {$inc: {"path.i.j": by}})`. A slot outside `dims` is
/// refused before anything is sent: `$inc` on `path.24` of a 24-slot array would append slots.
pub async fn inc_slot(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    slot: &[usize],
    dims: &[usize],
    by: i64,
) -> Result<()> {
    let inside = slot.len() == dims.len() && slot.iter().zip(dims).all(|(s, d)| s < d);
    if !inside {
        let list =
            |v: &[usize], sep: &str| v.iter().map(usize::to_string).collect::<Vec<_>>().join(sep);
        return Err(Error::NoSuchSlot {
            field: format!("{}.{path}", coll.name()),
            slot: format!("[{}]", list(slot, ", ")),
            dims: list(dims, " x "),
        });
    }
    let mut at = path.to_owned();
    for s in slot {
        at.push('.');
        at.push_str(&s.to_string());
    }
    let r = coll
        .update_one(doc! { "_id": id.clone() }, doc! { "$inc": { at: by } })
        .await
        .during("update", coll.name())?;
    if r.matched_count == 0 {
        return Err(not_found(coll, &id));
    }
    Ok(())
}

fn invalid(path: &str, by: &Bson, reason: &'static str) -> Error {
    Error::InvalidAmount {
        field: path.to_owned(),
        amount: super::core::describe(by),
        reason,
    }
}

/// The value at dotted `path` of `doc`, if present.
fn at_path(doc: &BsonDocument, path: &str) -> Option<Bson> {
    let mut parts = path.split('.');
    let mut here = doc.get(parts.next()?)?;
    for part in parts {
        here = match here {
            Bson::Document(d) => d.get(part)?,
            _ => return None,
        };
    }
    Some(here.clone())
}

/// `findOneAndUpdate(filter, {$inc: {path: by}}, {returnDocument: "after", projection: {path: 1}})`:
/// the new value, or `None` when the filter matched nothing.
async fn inc_where(
    coll: &Collection<BsonDocument>,
    filter: BsonDocument,
    path: &str,
    by: Bson,
) -> Result<Option<Bson>> {
    let after = coll
        .find_one_and_update(filter, doc! { "$inc": { path: by } })
        .return_document(ReturnDocument::After)
        .projection(doc! { path: 1 })
        .await
        .during("update", coll.name())?;
    Ok(after.map(|d| at_path(&d, path).unwrap_or(Bson::Null)))
}

/// Adds `by` to the number at `path` of document `id` (`$inc`, atomic) and returns the new value.
/// [`Error::NotFound`] if no document has this id.
pub async fn inc(coll: &Collection<BsonDocument>, id: Bson, path: &str, by: Bson) -> Result<Bson> {
    match inc_where(coll, doc! { "_id": id.clone() }, path, by).await? {
        Some(v) => Ok(v),
        None => Err(not_found(coll, &id)),
    }
}

/// The smallest value a counter may hold before a decrement of `by`: `minimum + by`, computed in
/// the type of `by` (an integer stays an integer), refused when it does not fit.
pub fn decrement_floor(minimum: f64, by: &Bson, path: &str) -> Result<Bson> {
    let overflow = || invalid(path, by, "the result does not fit the number's type");
    match by {
        Bson::Int32(_) | Bson::Int64(_) if minimum.fract() != 0.0 || !minimum.is_finite() => {
            Ok(Bson::Double(minimum + by_f64(by)))
        }
        Bson::Int32(b) => (minimum as i64)
            .checked_add(i64::from(*b))
            .map(Bson::Int64)
            .ok_or_else(overflow),
        Bson::Int64(b) => (minimum as i64)
            .checked_add(*b)
            .map(Bson::Int64)
            .ok_or_else(overflow),
        Bson::Double(b) => Ok(Bson::Double(minimum + b)),
        _ => Err(invalid(path, by, "the amount is not a number")),
    }
}

fn by_f64(by: &Bson) -> f64 {
    match by {
        Bson::Int32(b) => f64::from(*b),
        Bson::Int64(b) => *b as f64,
        Bson::Double(b) => *b,
        _ => 0.0,
    }
}

/// `-by`, in the type of `by`; refused for the one integer whose negation does not fit.
pub fn negate(by: &Bson, path: &str) -> Result<Bson> {
    let overflow = || invalid(path, by, "the result does not fit the number's type");
    match by {
        Bson::Int32(b) => b.checked_neg().map(Bson::Int32).ok_or_else(overflow),
        Bson::Int64(b) => b.checked_neg().map(Bson::Int64).ok_or_else(overflow),
        Bson::Double(b) => Ok(Bson::Double(-b)),
        _ => Err(invalid(path, by, "the amount is not a number")),
    }
}

/// Takes `by` from the counter at `path` of document `id` only while the result stays at or above
/// `minimum`: `findOneAndUpdate({_id, path: {$gte: minimum + by}}, {$inc: {path: -by}})`. The
/// server checks the filter and applies the update as one step, so concurrent decrements never
/// take the counter below `minimum` (seed 002's `stock > 0`). Returns the new value, or `None`
/// when the decrement was refused (nothing written); [`Error::NotFound`] if no document has this
/// id.
pub async fn dec_guarded(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    by: Bson,
    minimum: f64,
) -> Result<Option<Bson>> {
    let floor = decrement_floor(minimum, &by, path)?;
    let minus = negate(&by, path)?;
    let filter = doc! { "_id": id.clone(), path: { "$gte": floor } };
    match inc_where(coll, filter, path, minus).await? {
        Some(v) => Ok(Some(v)),
        None => unless_missing(coll, &id, None).await,
    }
}

/// Replaces the element of the array at `path` whose `key` equals `item`'s with `item`:
/// `updateOne({_id, "path.key": k}, {$set: {"path.$[e]": item}}, {arrayFilters: [{"e.key": k}]})`.
/// True if document `id` holds such an element; [`Error::NotFound`] if no document has this id.
pub async fn replace_element(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    key: &str,
    item: Bson,
) -> Result<bool> {
    let k = item
        .as_document()
        .and_then(|d| d.get(key))
        .cloned()
        .unwrap_or(Bson::Null);
    let r = coll
        .update_one(
            doc! { "_id": id.clone(), format!("{path}.{key}"): k.clone() },
            doc! { "$set": { format!("{path}.$[e]"): item } },
        )
        .array_filters(vec![doc! { format!("e.{key}"): k }])
        .await
        .during("update", coll.name())?;
    if r.matched_count == 1 {
        return Ok(true);
    }
    unless_missing(coll, &id, false).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_optional_is_unset_and_anything_else_is_set() {
        assert_eq!(
            set_update("a.b", Bson::Null, true),
            doc! { "$unset": { "a.b": "" } }
        );
        assert_eq!(
            set_update("a", Bson::Null, false),
            doc! { "$set": { "a": Bson::Null } }
        );
        assert_eq!(
            set_update("a", Bson::Int32(3), true),
            doc! { "$set": { "a": 3 } }
        );
    }

    #[test]
    fn the_floor_keeps_the_type_of_the_decrement_and_refuses_overflow() {
        assert_eq!(
            decrement_floor(0.0, &Bson::Int32(3), "n").ok(),
            Some(Bson::Int64(3))
        );
        assert_eq!(
            decrement_floor(-2.0, &Bson::Int64(5), "n").ok(),
            Some(Bson::Int64(3))
        );
        assert_eq!(
            decrement_floor(0.5, &Bson::Int32(1), "n").ok(),
            Some(Bson::Double(1.5))
        );
        assert_eq!(
            decrement_floor(1.0, &Bson::Double(0.25), "n").ok(),
            Some(Bson::Double(1.25))
        );
        assert!(decrement_floor(1.0, &Bson::Int64(i64::MAX), "n").is_err());
        assert!(negate(&Bson::Int32(i32::MIN), "n").is_err());
        assert_eq!(negate(&Bson::Int64(4), "n").ok(), Some(Bson::Int64(-4)));
        assert!(negate(&Bson::String("x".into()), "n").is_err());
    }

    #[test]
    fn paths_reach_into_subdocuments() {
        let d = doc! { "a": { "b": 4 }, "c": 1 };
        assert_eq!(at_path(&d, "a.b"), Some(Bson::Int32(4)));
        assert_eq!(at_path(&d, "c"), Some(Bson::Int32(1)));
        assert_eq!(at_path(&d, "c.d"), None);
    }
}
