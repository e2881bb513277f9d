//! Atomic updates of one field of one element of an array (issue 13): `inc_<array>_<f>` adds to the
//! field of the element whose key (`id` of an order line, a `@unique` field of an embedded child)
//! is given, and the guarded `dec_<array>_<f>` takes from a counter only while the element keeps
//! at least the counter's floor. Each is one `findOneAndUpdate` whose filter finds the element and
//! whose `arrayFilters` name it, so racing writers never lose an update or go below the floor.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::ReturnDocument;
use mongodb::Collection;

use crate::error::Context;
use crate::{Error, Result};

use super::core::{describe, not_found_in};
use super::fields::{decrement_floor, negate};

/// Where a field of one element is: the array's path in the document, the element field that
/// identifies an element, and the element field changed.
#[derive(Debug, Clone, Copy)]
pub struct ElementField<'a> {
    /// The array's path (`products`).
    pub array: &'a str,
    /// The element field an element is found by (`id`).
    pub key: &'a str,
    /// The element field changed (`qty`).
    pub field: &'a str,
}

impl ElementField<'_> {
    /// `array.key`, the path a filter finds the element by.
    fn key_path(&self) -> String {
        format!("{}.{}", self.array, self.key)
    }

    /// `array.field`, the path the changed value is read back from.
    fn field_path(&self) -> String {
        format!("{}.{}", self.array, self.field)
    }
}

/// The value of `at.field` in the element of `doc`'s array whose key is `key`.
fn element_value(doc: &BsonDocument, at: &ElementField<'_>, key: &Bson) -> Option<Bson> {
    let mut here = doc;
    let mut parts = at.array.split('.').peekable();
    while let Some(part) = parts.next() {
        match here.get(part)? {
            Bson::Document(d) if parts.peek().is_some() => here = d,
            Bson::Array(items) if parts.peek().is_none() => {
                return items.iter().find_map(|i| match i {
                    Bson::Document(e) if e.get(at.key) == Some(key) => e.get(at.field).cloned(),
                    _ => None,
                });
            }
            _ => return None,
        }
    }
    None
}

/// `findOneAndUpdate(filter, {$inc: {"array.$[e].field": by}}, {arrayFilters: [{"e.key": key}]})`,
/// the new value read back in the same command; `None` when the filter matched nothing.
async fn inc_where(
    coll: &Collection<BsonDocument>,
    filter: BsonDocument,
    at: &ElementField<'_>,
    key: &Bson,
    by: Bson,
) -> Result<Option<Bson>> {
    let target = format!("{}.$[e].{}", at.array, at.field);
    let after = coll
        .find_one_and_update(filter, doc! { "$inc": { target: by } })
        .array_filters(vec![doc! { format!("e.{}", at.key): key.clone() }])
        .return_document(ReturnDocument::After)
        .projection(doc! { at.key_path(): 1, at.field_path(): 1 })
        .await
        .during("update", coll.name())?;
    Ok(after.map(|d| element_value(&d, at, key).unwrap_or(Bson::Null)))
}

/// Why an update of one element matched nothing: no document `id` ([`Error::NotFound`]), no
/// element with this key ([`Error::NoSuchElement`]), or the element is there (`Ok(())`: the
/// update's own guard refused it).
async fn why_missed(
    coll: &Collection<BsonDocument>,
    id: &Bson,
    at: &ElementField<'_>,
    key: &Bson,
) -> Result<()> {
    let found = coll
        .find_one(doc! { "_id": id.clone() })
        .projection(doc! { at.key_path(): 1 })
        .await
        .during("find", coll.name())?;
    let Some(d) = found else {
        return Err(not_found_in(coll, id));
    };
    let held = {
        // The element's key projected alone: look it up as the field itself.
        let probe = ElementField {
            field: at.key,
            ..*at
        };
        element_value(&d, &probe, key).is_some()
    };
    if held {
        Ok(())
    } else {
        Err(Error::NoSuchElement {
            field: format!("{}.{}", coll.name(), at.array),
            id: describe(id),
            key: at.key.to_owned(),
            value: describe(key),
        })
    }
}

/// Adds `by` to `at.field` of the element of document `id` whose `at.key` is `key`, in one atomic
/// update: `findOneAndUpdate({_id, "array.key": key}, {$inc: {"array.$[e].field": by}},
/// {arrayFilters: [{"e.key": key}]})`. Returns the new value. [`Error::NotFound`] if no document
/// has this id, [`Error::NoSuchElement`] if it holds no such element (nothing written).
pub async fn inc(
    coll: &Collection<BsonDocument>,
    id: Bson,
    at: &ElementField<'_>,
    key: Bson,
    by: Bson,
) -> Result<Bson> {
    let filter = doc! { "_id": id.clone(), at.key_path(): key.clone() };
    // A second attempt when the element was pushed between the update and the check.
    for _ in 0..2 {
        if let Some(v) = inc_where(coll, filter.clone(), at, &key, by.clone()).await? {
            return Ok(v);
        }
        why_missed(coll, &id, at, &key).await?;
    }
    Err(Error::NoSuchElement {
        field: format!("{}.{}", coll.name(), at.array),
        id: describe(&id),
        key: at.key.to_owned(),
        value: describe(&key),
    })
}

/// Takes `by` from the counter `at.field` of the element of document `id` whose `at.key` is `key`,
/// only while the result stays at or above `minimum`: `findOneAndUpdate({_id, array: {$elemMatch:
/// {key: key, field: {$gte: minimum + by}}}}, {$inc: {"array.$[e].field": -by}}, {arrayFilters:
/// [{"e.key": key}]})`. The server checks the filter and applies the update as one step, so racing
/// decrements never take the element below `minimum`. Returns the new value, or `None` when the
/// decrement was refused (nothing written); [`Error::NotFound`] if no document has this id,
/// [`Error::NoSuchElement`] if it holds no such element.
pub async fn dec_guarded(
    coll: &Collection<BsonDocument>,
    id: Bson,
    at: &ElementField<'_>,
    key: Bson,
    by: Bson,
    minimum: f64,
) -> Result<Option<Bson>> {
    let path = at.field_path();
    let floor = decrement_floor(minimum, &by, &path)?;
    let minus = negate(&by, &path)?;
    let filter = doc! {
        "_id": id.clone(),
        at.array: { "$elemMatch": { at.key: key.clone(), at.field: { "$gte": floor } } },
    };
    match inc_where(coll, filter, at, &key, minus).await? {
        Some(v) => Ok(Some(v)),
        None => why_missed(coll, &id, at, &key).await.map(|()| None),
    }
}

/// The summaries and lists the document keeps of `array`, set to those of the array after an
/// element's change ([`super::summaries::resync_kept`]). When other writers kept changing the
/// array meanwhile ([`Error::Contended`]), the change made is still reported: every repository
/// write of the array resyncs after itself, so the last of those writers leaves the summaries
/// right, and retrying an increment would count it twice.
pub async fn resync(
    coll: &Collection<BsonDocument>,
    id: Bson,
    array: &str,
    computed: &[super::arrays::ComputedField],
    lists: &[super::subsets::List],
) -> Result<()> {
    match super::summaries::resync_kept(coll, id, array, computed, lists).await {
        Err(Error::Contended { .. }) => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_read_from_the_element_with_the_key() {
        let at = ElementField {
            array: "lines",
            key: "id",
            field: "qty",
        };
        let d = doc! { "lines": [ { "id": 1, "qty": 4 }, { "id": 2, "qty": 9 } ] };
        assert_eq!(
            element_value(&d, &at, &Bson::Int32(2)),
            Some(Bson::Int32(9))
        );
        assert_eq!(element_value(&d, &at, &Bson::Int32(3)), None);
        let nested = doc! { "a": { "lines": [ { "id": "x", "qty": 1 } ] } };
        let deep = ElementField {
            array: "a.lines",
            ..at
        };
        assert_eq!(
            element_value(&nested, &deep, &Bson::String("x".into())),
            Some(Bson::Int32(1))
        );
    }
}
