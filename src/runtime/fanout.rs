//! Denormalized copies: when a source field changes, every copy is updated (rule of thumb 5).

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use super::core::RepoCore;
use crate::error::Context;
use crate::{Document, Result};

/// Where copies of a source field live.
///
/// `by` and `copy` are dotted paths in which `[]` marks each array on the way (`lines[].product.id`
/// and `lines[].product.name`: copies in the elements of `lines`; `a[].b[].ref.name`: in an array
/// nested in an array). Both paths cross the same arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy {
    /// The collection holding the copies.
    pub collection: &'static str,
    /// Path of the source document's id beside the copy (inside `array`'s elements when set).
    pub by: &'static str,
    /// Path of the copy (inside `array`'s elements when set).
    pub copy: &'static str,
    /// The array whose elements hold the copies (extended references), if any: the same as
    /// writing `array[].` before `by` and `copy`.
    pub array: Option<&'static str>,
}

/// What a fan-out did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FanOutReport {
    /// Source and copies were written in one transaction.
    pub atomic: bool,
    /// Documents holding copies that matched.
    pub copies_matched: u64,
    /// Documents whose copies changed.
    pub copies_modified: u64,
}

/// The `updateMany` of one copy: `(filter, update, arrayFilters)`.
///
/// The filter matches the documents holding a copy (`{"lines.product.id": id}`); the update sets
/// every copy through one filtered positional operator per array
/// (`{$set: {"lines.$[e0].product.name": value}}` with `arrayFilters: [{"e0.product.id": id}]`),
/// so only the elements that copy this source change, at any depth.
pub fn copy_update(
    c: &Copy,
    id: &Bson,
    value: &Bson,
) -> (BsonDocument, BsonDocument, Option<Vec<BsonDocument>>) {
    let (by, copy) = match c.array {
        None => (c.by.to_owned(), c.copy.to_owned()),
        Some(array) => (
            format!("{array}[].{}", c.by),
            format!("{array}[].{}", c.copy),
        ),
    };
    let by_parts: Vec<&str> = by.split("[]").collect();
    let copy_parts: Vec<&str> = copy.split("[]").collect();
    let filter = doc! { by_parts.concat(): id.clone() };
    if copy_parts.len() == 1 {
        return (filter, doc! { "$set": { copy: value.clone() } }, None);
    }
    let mut set = String::new();
    let mut array_filters = Vec::new();
    for (level, part) in copy_parts.iter().enumerate() {
        set.push_str(part);
        if level + 1 < copy_parts.len() {
            let ident = format!("e{level}");
            set.push_str(&format!(".$[{ident}]"));
            // The rest of `by` after this array, inside one of its elements.
            let rest = by_parts
                .get(level + 1..)
                .map(<[&str]>::concat)
                .unwrap_or_default();
            array_filters.push(doc! { format!("{ident}{rest}"): id.clone() });
        }
    }
    (
        filter,
        doc! { "$set": { set: value.clone() } },
        Some(array_filters),
    )
}

async fn body<T: Document>(
    core: &RepoCore<T>,
    id: &Bson,
    path: &str,
    value: &Bson,
    copies: &[Copy],
    mut session: Option<&mut ClientSession>,
) -> Result<FanOutReport> {
    // The parents keeping lists or summaries that read the field: refilled after the write (the
    // field is both copied and kept, so the copies alone would leave them stale).
    let keepers = T::keepers();
    let top = path.split('.').next().unwrap_or(path);
    let before = if super::kept::read_by(&keepers, top) {
        crate::__squillion_in_session!(core.raw().find_one(doc! { "_id": id.clone() }), session)
            .during("find", core.name())?
    } else {
        None
    };
    let r = crate::__squillion_in_session!(
        core.raw().update_one(
            doc! { "_id": id.clone() },
            doc! { "$set": { path: value.clone() } }
        ),
        session
    )
    .during("update", core.name())?;
    if r.matched_count == 0 {
        return Err(core.not_found(id));
    }
    if let Some(before) = &before {
        super::kept::refill_owners(core.database(), &keepers, before, session.as_deref_mut())
            .await?;
    }
    let mut report = FanOutReport {
        atomic: session.is_some(),
        ..FanOutReport::default()
    };
    for c in copies {
        let coll = core.database().collection::<BsonDocument>(c.collection);
        let (filter, update, array_filters) = copy_update(c, id, value);
        let mut action = coll.update_many(filter, update);
        if let Some(af) = array_filters {
            action = action.array_filters(af);
        }
        let r = crate::__squillion_in_session!(action, session).during("update", c.collection)?;
        report.copies_matched += r.matched_count;
        report.copies_modified += r.modified_count;
    }
    Ok(report)
}

/// Sets `path` of document `id` to `value` and updates every copy, in one transaction where the
/// deployment runs them, else source first, then each copy.
pub async fn set_and_fan_out<T: Document>(
    core: &RepoCore<T>,
    id: Bson,
    path: &str,
    value: Bson,
    copies: &[Copy],
) -> Result<FanOutReport> {
    if core.transactions_supported().await? {
        let client = core.raw().client();
        crate::__squillion_transaction!(client, |session| body(
            core,
            &id,
            path,
            &value,
            copies,
            Some(&mut session)
        )
        .await)
    } else {
        body(core, &id, path, &value, copies, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(by: &'static str, copy: &'static str, array: Option<&'static str>) -> Copy {
        Copy {
            collection: "c",
            by,
            copy,
            array,
        }
    }

    #[test]
    fn every_array_on_the_way_gets_a_filtered_positional_operator() {
        let id = Bson::Int32(7);
        let v = Bson::String("new".into());
        let (f, u, a) = copy_update(&copy("product.id", "product.name", None), &id, &v);
        assert_eq!(f, doc! { "product.id": 7 });
        assert_eq!(u, doc! { "$set": { "product.name": "new" } });
        assert_eq!(a, None);
        let (f, u, a) = copy_update(
            &copy("lines[].product.id", "lines[].product.name", None),
            &id,
            &v,
        );
        assert_eq!(f, doc! { "lines.product.id": 7 });
        assert_eq!(u, doc! { "$set": { "lines.$[e0].product.name": "new" } });
        assert_eq!(a, Some(vec![doc! { "e0.product.id": 7 }]));
        // The older form, `array` apart, means the same.
        assert_eq!(
            copy_update(&copy("product.id", "product.name", Some("lines")), &id, &v),
            copy_update(
                &copy("lines[].product.id", "lines[].product.name", None),
                &id,
                &v
            )
        );
        let (f, u, a) = copy_update(&copy("a[].b[].r[].id", "a[].b[].r[].name", None), &id, &v);
        assert_eq!(f, doc! { "a.b.r.id": 7 });
        assert_eq!(
            u,
            doc! { "$set": { "a.$[e0].b.$[e1].r.$[e2].name": "new" } }
        );
        assert_eq!(
            a,
            Some(vec![
                doc! { "e0.b.r.id": 7 },
                doc! { "e1.r.id": 7 },
                doc! { "e2.id": 7 }
            ])
        );
    }
}
