//! Summaries of an embedded array recomputed from the array itself, for the writes that cannot
//! keep them with `$inc`/`$max`/`$min` (removing elements, replacing the array): issue 11,
//! defect 3.

use std::cmp::Ordering;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Collection;

use super::arrays::{lookup, ComputedField, Summary};
use super::subsets::List;
use crate::error::Context;
use crate::{Error, Result};

/// Attempts before giving up when other writers keep changing the array.
const ATTEMPTS: usize = 16;

/// Orders two values of one BSON type as MongoDB sorts them (numbers by value whatever their
/// width); values of other types compare equal.
fn compare(a: &Bson, b: &Bson) -> Ordering {
    // Decimals by their value as a double: the order of values 15 significant digits tell apart.
    let num = |v: &Bson| match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        _ => None,
    };
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.cmp(y),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => Ordering::Equal,
        },
    }
}

/// The value summary `s` holds over `items`, typed like `stored` (the value stored before, if
/// any); `None` when there is nothing to take a maximum or minimum of (the field is removed).
/// Summaries of decimals are not computed here: [`resync`] asks the server for them
/// ([`by_server`]).
pub fn summarise(s: Summary, items: &[Bson], stored: Option<&Bson>) -> Option<Bson> {
    let values = |field: &str| -> Vec<Bson> {
        items
            .iter()
            .filter_map(|i| lookup(i, field).cloned())
            .filter(|v| !matches!(v, Bson::Null))
            .collect()
    };
    match s {
        Summary::Count => {
            let n = items.len() as i64;
            Some(match stored {
                Some(Bson::Int64(_)) => Bson::Int64(n),
                Some(Bson::Double(_)) => Bson::Double(n as f64),
                _ => i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32),
            })
        }
        Summary::Sum(field) => {
            let vs = values(field);
            if vs.iter().any(|v| matches!(v, Bson::Double(_)))
                || matches!(stored, Some(Bson::Double(_)))
            {
                let total = vs
                    .iter()
                    .map(|v| match v {
                        Bson::Int32(x) => f64::from(*x),
                        Bson::Int64(x) => *x as f64,
                        Bson::Double(x) => *x,
                        _ => 0.0,
                    })
                    .sum();
                return Some(Bson::Double(total));
            }
            let total: i64 = vs
                .iter()
                .map(|v| match v {
                    Bson::Int32(x) => i64::from(*x),
                    Bson::Int64(x) => *x,
                    _ => 0,
                })
                .fold(0_i64, i64::saturating_add);
            // Totals of integers are stored as longs (`arrays::addend`).
            Some(Bson::Int64(total))
        }
        Summary::Max(field) => values(field).into_iter().max_by(compare),
        Summary::Min(field) => values(field).into_iter().min_by(compare),
    }
}

/// Sets the summaries `computed` of the array at `path` of document `id` to what the array holds
/// now. Reads the array, then writes the summaries with a filter on the array as read, so a
/// concurrent change of the array makes the write match nothing and the read is taken again:
/// the summaries written are always those of an array the document really held.
pub async fn resync(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    computed: &[ComputedField],
) -> Result<()> {
    resync_kept(coll, id, path, computed, &[]).await
}

/// [`resync`], and the owner's lists of copies of the array's items (`top N` of an embedded
/// array) set to the first `n` items in each list's order, in the same guarded write.
pub async fn resync_kept(
    coll: &Collection<BsonDocument>,
    id: Bson,
    path: &str,
    computed: &[ComputedField],
    lists: &[List],
) -> Result<()> {
    if computed.is_empty() && lists.is_empty() {
        return Ok(());
    }
    let mut projection = doc! { path: 1 };
    for c in computed {
        projection.insert(c.path, 1);
    }
    for _ in 0..ATTEMPTS {
        let Some(d) = coll
            .find_one(doc! { "_id": id.clone() })
            .projection(projection.clone())
            .await
            .during("find", coll.name())?
        else {
            return Err(super::core::not_found_in(coll, &id));
        };
        let whole = Bson::Document(d);
        let array = lookup(&whole, path).cloned();
        let items = match &array {
            Some(Bson::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        let (mut set, mut unset) = (refilled(lists, &items), BsonDocument::new());
        let mut server = BsonDocument::new();
        for c in computed {
            let stored = lookup(&whole, c.path);
            if let Some(expr) = by_server(c.summary, path, &items, stored) {
                server.insert(c.path, expr);
                continue;
            }
            match summarise(c.summary, &items, stored) {
                Some(v) => {
                    set.insert(c.path, v);
                }
                None => {
                    unset.insert(c.path, "");
                }
            }
        }
        let filter = match array {
            Some(a) => doc! { "_id": id.clone(), path: a },
            None => doc! { "_id": id.clone(), path: { "$exists": false } },
        };
        let update = if server.is_empty() {
            let mut update = BsonDocument::new();
            if !set.is_empty() {
                update.insert("$set", set);
            }
            if !unset.is_empty() {
                update.insert("$unset", unset);
            }
            update.into()
        } else {
            pipeline_update(set, unset, server)
        };
        let r = coll
            .update_one(filter, update)
            .await
            .during("update", coll.name())?;
        if r.matched_count == 1 {
            return Ok(());
        }
    }
    Err(Error::Contended {
        collection: coll.name().to_owned(),
        id: super::core::describe(&id),
    })
}

/// Each of `lists` as `items` make it: the first `n` items in the list's order (items without
/// the field first when ascending, as the server sorts missing values), copied; ties keep the
/// array's order.
fn refilled(lists: &[List], items: &[Bson]) -> BsonDocument {
    let mut set = BsonDocument::new();
    for l in lists {
        let mut children: Vec<&BsonDocument> =
            items.iter().filter_map(|i| i.as_document()).collect();
        let (direction, reversed) = l.ranking();
        children.sort_by(|a, b| {
            let key = |field: &str| match (a.get(field), b.get(field)) {
                (Some(x), Some(y)) => compare(x, y),
                (Some(_), None) => Ordering::Greater,
                (None, Some(_)) => Ordering::Less,
                (None, None) => Ordering::Equal,
            };
            // Ties by `_id` where the elements have one, as the push's `$sort` breaks them.
            let order = key(l.sort_by).then_with(|| match (a.get("_id"), b.get("_id")) {
                (Some(Bson::ObjectId(x)), Some(Bson::ObjectId(y))) => x.cmp(y),
                _ => Ordering::Equal,
            });
            if direction < 0 {
                order.reverse()
            } else {
                order
            }
        });
        children.truncate(usize::try_from(l.n).unwrap_or(0));
        if reversed {
            children.reverse();
        }
        let copies = children.into_iter().map(|c| Bson::Document(l.copy(c)));
        set.insert(l.path, Bson::Array(copies.collect()));
    }
    set
}

/// The server's expression for summary `s` of the array at `path` when it reads decimals (some
/// value, or the stored summary, is one): Rust has no decimal arithmetic or order to match the
/// server's. A total is `$sum` of the elements' field, as a decimal (the sum of nothing is an
/// `int` 0); a largest or smallest is `$max`/`$min`, removed when there is none. `None` for a
/// count and for summaries of other numbers.
fn by_server(s: Summary, path: &str, items: &[Bson], stored: Option<&Bson>) -> Option<Bson> {
    let field = match s {
        Summary::Sum(f) | Summary::Max(f) | Summary::Min(f) => f,
        Summary::Count => return None,
    };
    let decimal = matches!(stored, Some(Bson::Decimal128(_)))
        || items
            .iter()
            .any(|i| matches!(lookup(i, field), Some(Bson::Decimal128(_))));
    if !decimal {
        return None;
    }
    // `$map` rather than the path `$<array>.<field>`, which not every server resolves through an
    // array inside an expression.
    let values = doc! { "$map": {
        "input": { "$ifNull": [format!("${path}"), []] },
        "in": format!("$$this.{field}"),
    } };
    Some(Bson::Document(match s {
        Summary::Max(_) => doc! { "$ifNull": [{ "$max": values }, "$$REMOVE"] },
        Summary::Min(_) => doc! { "$ifNull": [{ "$min": values }, "$$REMOVE"] },
        _ => doc! { "$toDecimal": { "$sum": values } },
    }))
}

/// A pipeline update setting `set` (values computed here, taken literally) and `by_server`
/// (expressions the server evaluates on the document as it holds it), then removing `unset`.
fn pipeline_update(
    set: BsonDocument,
    unset: BsonDocument,
    by_server: BsonDocument,
) -> mongodb::options::UpdateModifications {
    let mut fields = BsonDocument::new();
    for (k, v) in set {
        fields.insert(k, doc! { "$literal": v });
    }
    fields.extend(by_server);
    let mut stages = vec![doc! { "$set": fields }];
    if !unset.is_empty() {
        let paths: Vec<Bson> = unset.into_iter().map(|(k, _)| Bson::String(k)).collect();
        stages.push(doc! { "$unset": paths });
    }
    stages.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_the_aggregates_of_the_array() {
        let items = vec![
            Bson::Document(doc! { "v": 3, "s": "b" }),
            Bson::Document(doc! { "v": 5, "s": "a" }),
            Bson::Document(doc! { "v": Bson::Null }),
        ];
        assert_eq!(
            summarise(Summary::Count, &items, None),
            Some(Bson::Int32(3))
        );
        assert_eq!(
            summarise(Summary::Count, &items, Some(&Bson::Int64(9))),
            Some(Bson::Int64(3))
        );
        assert_eq!(
            summarise(Summary::Sum("v"), &items, None),
            Some(Bson::Int64(8))
        );
        // A total of 32-bit integers past their largest: exact, as a long.
        let big = vec![
            Bson::Document(doc! { "v": i32::MAX }),
            Bson::Document(doc! { "v": i32::MAX }),
        ];
        assert_eq!(
            summarise(Summary::Sum("v"), &big, Some(&Bson::Int64(0))),
            Some(Bson::Int64(2 * i64::from(i32::MAX)))
        );
        // Decimals are totalled by the server, as a decimal.
        let dec = vec![Bson::Document(
            doc! { "v": "1.5".parse::<bson::Decimal128>().unwrap() },
        )];
        assert_eq!(
            by_server(Summary::Sum("v"), "lines", &dec, None),
            Some(Bson::Document(doc! { "$toDecimal": { "$sum": { "$map": {
                "input": { "$ifNull": ["$lines", []] },
                "in": "$$this.v",
            } } } }))
        );
        assert_eq!(by_server(Summary::Sum("v"), "lines", &items, None), None);
        assert_eq!(
            summarise(Summary::Max("v"), &items, None),
            Some(Bson::Int32(5))
        );
        assert_eq!(
            summarise(Summary::Min("s"), &items, None),
            Some(Bson::String("a".into()))
        );
        assert_eq!(summarise(Summary::Max("v"), &[], None), None);
        assert_eq!(
            summarise(Summary::Sum("v"), &[], Some(&Bson::Double(1.5))),
            Some(Bson::Double(0.0))
        );
    }
}
