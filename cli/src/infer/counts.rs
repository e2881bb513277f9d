//! Counting each link over the whole collection with aggregation: `$group` by parent, then by
//! count, so the server returns a histogram (one document per distinct count) and nothing the
//! size of the collection reaches `infer`. Each count is its own pipeline, shaped for what the
//! server does fast (measured on SecantusDB, `docs/benchmarks.md`): a `$group` straight on a
//! field path reads only that field, so references at the root are grouped without a `$match`
//! or `$project` before; references below arrays are projected to the one path (`$lines.product`)
//! and unwound as values, never as whole documents. One `$facet` over all of a collection's
//! counts, the first design, buffered the collection and was the slowest of all.

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;

use super::draft::Card;
use super::histogram::Histogram;
use super::layout::Measure;
use super::path::Loc;
use super::sample::Sampled;
use super::server::{is_refusal, Server};
use super::shape::number;
use super::words;

/// `embed_array_max` and `id_array_max` at their defaults: the draft writes no settings.
pub const EMBED_ARRAY_MAX: u64 = 200;
/// See [`EMBED_ARRAY_MAX`].
pub const ID_ARRAY_MAX: u64 = 5_000;

/// What a measure found.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    /// Per parent, how many.
    pub histogram: Histogram,
    /// How: `all 1,000 authors counted` or `in the sample`.
    pub how: String,
}

/// The size of an array at `path`, 0 when it is missing or not an array.
fn size(path: &str) -> Bson {
    Bson::Document(doc! {
        "$cond": [{ "$isArray": format!("${path}") }, { "$size": format!("${path}") }, 0]
    })
}

/// Adds `{_id: count, k: parents}` pairs to a histogram.
fn add_pairs(h: &mut Histogram, d: &Document) {
    let value = d.get("_id").and_then(number).unwrap_or(0.0).max(0.0) as u64;
    let n = d.get("k").and_then(number).unwrap_or(0.0).max(0.0) as u64;
    h.add(value, n);
}

/// Runs one counting pipeline: its histogram.
async fn histogram(
    db: &Database,
    coll: &str,
    pipeline: Vec<Document>,
) -> mongodb::error::Result<Histogram> {
    let mut cursor = db.collection::<Document>(coll).aggregate(pipeline).await?;
    let mut h = Histogram::default();
    while let Some(d) = cursor.try_next().await? {
        add_pairs(&mut h, &d);
    }
    Ok(h)
}

fn by_count() -> Document {
    doc! { "$group": { "_id": "$n", "k": { "$sum": 1 } } }
}

/// The values at `leaf` (a dotted path, or empty for the element itself) of every document at
/// `place`, as an expression: a field path at the root, nested `$map`s over each array on the
/// way below it (an array per array, `place.depth_in_arrays()` deep). SecantusDB does not
/// evaluate a field path through an array (`$lines.product` is missing there), and an inclusion
/// projection of one is slower than unwinding whole documents; a `$map` is the fastest
/// (`docs/benchmarks.md`). A value that is not an array where the place has one counts nothing.
fn values(place: &Loc, leaf: &str) -> Bson {
    fn go(steps: &[super::path::Step], base: String, leaf: &str, depth: usize) -> Bson {
        let mut path = base;
        for (i, s) in steps.iter().enumerate() {
            path = format!("{path}.{}", s.field);
            if s.each {
                let var = format!("v{depth}");
                let input = Bson::String(path);
                return Bson::Document(doc! {
                    "$cond": [
                        { "$isArray": input.clone() },
                        { "$map": {
                            "input": input,
                            "as": var.as_str(),
                            "in": go(&steps[i + 1..], format!("$${var}"), leaf, depth + 1),
                        } },
                        [],
                    ]
                });
            }
        }
        if !leaf.is_empty() {
            path = format!("{path}.{leaf}");
        }
        Bson::String(path)
    }
    let root = place
        .steps
        .first()
        .map_or(String::new(), |s| s.field.clone());
    match place.steps.split_first() {
        None => Bson::String(format!("${leaf}")),
        Some((first, rest)) if first.each => {
            let input = Bson::String(format!("${root}"));
            Bson::Document(doc! {
                "$cond": [
                    { "$isArray": input.clone() },
                    { "$map": { "input": input, "as": "v0", "in": go(rest, "$$v0".to_owned(), leaf, 1) } },
                    [],
                ]
            })
        }
        Some(_) => go(&place.steps[1..], format!("${root}"), leaf, 0),
    }
}

/// Per distinct value at `leaf` below `place` (a reference, or an element of an array of
/// them), how many hold it, then per count how many values. A reference at the root is
/// grouped as it is (a `$group` straight on a field path reads only that field); below arrays
/// the documents are reduced to their values and those unwound. Missing and null values are
/// not counted.
pub fn per_value(place: &Loc, leaf: &str) -> Vec<Document> {
    let mut p = Vec::new();
    let arrays = place.depth_in_arrays();
    let key = if arrays == 0 {
        values(place, leaf)
    } else {
        p.push(doc! { "$project": { "_id": 0, "v": values(place, leaf) } });
        p.extend((0..arrays).map(|_| doc! { "$unwind": "$v" }));
        Bson::String("$v".to_owned())
    };
    p.push(doc! { "$group": { "_id": key, "n": { "$sum": 1 } } });
    p.push(doc! { "$match": { "_id": { "$ne": null } } });
    p.push(by_count());
    p
}

/// The aggregation a measure needs: pipelines on one collection whose histograms add up, the
/// collection whose documents are the parents, and the one whose documents nothing refers to
/// are counted as zeros.
#[derive(Debug, Clone)]
struct Query {
    coll: usize,
    pipelines: Vec<Vec<Document>>,
    parents: usize,
    zeros_of: Option<usize>,
}

/// The query of a measure made by aggregation (`None` for `One` and sampled measures).
fn query(m: &Measure, samples: &[Sampled]) -> Option<Query> {
    let q = |coll: usize, pipelines: Vec<Vec<Document>>, parents: usize, zeros: bool| Query {
        coll,
        pipelines,
        parents,
        zeros_of: zeros.then_some(parents),
    };
    Some(match m {
        Measure::One | Measure::Sampled(_) => return None,
        Measure::Lengths { coll, place, field } => {
            let p = if place.is_root() {
                // Grouped on the size itself: a `$project` first costs a pass of its own.
                vec![doc! { "$group": { "_id": size(field), "k": { "$sum": 1 } } }]
            } else {
                let mut p = place.unwinds();
                p.push(doc! { "$project": { "n": size(&place.path(field)) } });
                p.push(by_count());
                p
            };
            q(*coll, vec![p], *coll, false)
        }
        Measure::PerTarget {
            coll,
            place,
            path,
            target,
        } => {
            let prefix = format!("{}.", place.dotted());
            let leaf = if place.is_root() {
                path.as_str()
            } else {
                path.strip_prefix(&prefix).unwrap_or(path)
            };
            q(*coll, vec![per_value(place, leaf)], *target, true)
        }
        Measure::HoldersPerTarget {
            coll,
            place,
            field,
            id,
            target,
        } => {
            let elements = place.child(field, true);
            let leaf = id.as_deref().unwrap_or("");
            q(*coll, vec![per_value(&elements, leaf)], *target, true)
        }
        Measure::BucketSums {
            coll,
            owner,
            count,
            target,
        } => {
            let p = vec![
                doc! { "$group": { "_id": format!("${owner}"), "n": { "$sum": format!("${count}") } } },
                by_count(),
            ];
            q(*coll, vec![p], *target, true)
        }
        Measure::Overflow {
            parent,
            array,
            flag,
            coll,
            owner,
            count,
        } => {
            // `$unwind` and `$group` rather than `$sum` over the looked-up array, which not
            // every server evaluates.
            let buckets = samples[*coll].name.as_str();
            let lookup = vec![
                doc! { "$lookup": { "from": buckets, "localField": "_id", "foreignField": owner, "as": "o" } },
                doc! { "$unwind": { "path": "$o", "preserveNullAndEmptyArrays": true } },
                doc! { "$group": {
                    "_id": "$_id",
                    "own": { "$first": size(array) },
                    "extra": { "$sum": format!("$o.{count}") },
                } },
                doc! { "$project": { "n": { "$add": ["$own", "$extra"] } } },
                by_count(),
            ];
            let pipelines = match flag {
                Some(flag) => {
                    let plain = vec![
                        doc! { "$match": { flag: { "$ne": true } } },
                        doc! { "$project": { "n": size(array) } },
                        by_count(),
                    ];
                    let mut flagged = vec![doc! { "$match": { flag: true } }];
                    flagged.extend(lookup);
                    vec![plain, flagged]
                }
                None => vec![lookup],
            };
            q(*parent, pipelines, *parent, false)
        }
    })
}

/// Measures every side of every link, each count by its own pipeline. `None` for `One`, or
/// when the server refused a count (then the note says so and the class is left to the sample).
pub async fn measure_all(
    db: &Database,
    server: &mut Server,
    samples: &[Sampled],
    measures: &[&Measure],
) -> mongodb::error::Result<Vec<Option<Counted>>> {
    let queries: Vec<Option<Query>> = measures.iter().map(|m| query(m, samples)).collect();
    let mut found: Vec<Option<Histogram>> = vec![None; measures.len()];
    let mut refused: Vec<Option<mongodb::error::Error>> = vec![None; measures.len()];
    for (i, q) in queries.iter().enumerate() {
        let Some(q) = q else { continue };
        let name = samples[q.coll].name.as_str();
        for pipeline in &q.pipelines {
            match histogram(db, name, pipeline.clone()).await {
                Ok(h) => found[i].get_or_insert_with(Histogram::default).merge(&h),
                Err(e) if is_refusal(&e) => refused[i] = Some(e),
                Err(e) => return Err(e),
            }
        }
    }
    let mut out = Vec::new();
    for (i, m) in measures.iter().enumerate() {
        if let Measure::Sampled(h) = m {
            out.push(Some(Counted {
                histogram: h.clone(),
                how: "in the sample, over every level".to_owned(),
            }));
            continue;
        }
        let Some(q) = &queries[i] else {
            out.push(None);
            continue;
        };
        if let Some(e) = &refused[i] {
            server.notes.push(format!(
                "a count could not be made ({}); its relation keeps the class the sample suggests",
                crate::database::describe(e)
            ));
            out.push(fallback(samples, m));
            continue;
        }
        let mut histogram = found[i].take().unwrap_or_default();
        // Parents nothing refers to do not appear in a `$group` by reference.
        if let Some(t) = q.zeros_of {
            let total = samples[t].estimated;
            histogram.add(0, total.saturating_sub(histogram.total()));
        }
        out.push(Some(Counted {
            how: format!(
                "all {} {} counted",
                words::n(histogram.total()),
                samples[q.parents].name
            ),
            histogram,
        }));
    }
    Ok(out)
}

/// What the sample says when the server would not count: array lengths only.
fn fallback(samples: &[Sampled], m: &Measure) -> Option<Counted> {
    let Measure::Lengths { coll, place, field } = m else {
        return None;
    };
    let f = place.shape(&samples[*coll].shape)?.fields.get(field)?;
    Some(Counted {
        histogram: f.array.as_ref()?.lengths.clone(),
        how: "in the sample only".to_owned(),
    })
}

/// The class a measured count says: up to `embed_array_max` few, up to `id_array_max` many,
/// beyond squillions; the largest count is the bound, and the median the typical count when
/// the largest is at least four times it (a skewed relation: the outlier pattern's case).
/// `one_side` measures parents per child: at most one makes it `one`.
pub fn card(h: &Histogram, one_side: bool) -> Card {
    let max = h.max().unwrap_or(0);
    if one_side && max <= 1 {
        return Card::One;
    }
    let p50 = h.p50().unwrap_or(0).max(1);
    let typical = (max >= 4 * p50 && max > 4).then_some(p50);
    if max <= EMBED_ARRAY_MAX {
        Card::Few {
            max: Some(max.max(1)),
            typical,
        }
    } else if max <= ID_ARRAY_MAX {
        Card::Many {
            max: Some(max),
            typical,
        }
    } else {
        Card::Squillions
    }
}

/// The parents of a place, for sentences: `per book`, `per books.notes[] value`.
pub fn per(samples: &[Sampled], coll: usize, place: &Loc) -> String {
    if place.is_root() {
        super::names::singular(&samples[coll].name)
    } else {
        format!("{} value", place.display(&samples[coll].name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn classes_follow_the_thresholds() {
        let h = |pairs: &[(u64, u64)]| Histogram::from_pairs(pairs.iter().copied());
        assert_eq!(
            card(&h(&[(3, 10), (12, 1)]), false),
            Card::Few {
                max: Some(12),
                typical: Some(3)
            }
        );
        assert_eq!(
            card(&h(&[(2, 10), (3, 1)]), false),
            Card::Few {
                max: Some(3),
                typical: None
            }
        );
        assert_eq!(
            card(&h(&[(0, 10)]), false),
            Card::Few {
                max: Some(1),
                typical: None
            }
        );
        assert_eq!(card(&h(&[(1, 10)]), true), Card::One);
        assert_eq!(
            card(&h(&[(50, 10), (287, 1)]), false),
            Card::Many {
                max: Some(287),
                typical: Some(50)
            }
        );
        assert_eq!(card(&h(&[(5001, 1)]), false), Card::Squillions);
    }

    proptest! {
        /// The class contains the largest count measured: the bound is never below it.
        #[test]
        fn the_bound_holds_the_largest_count(counts in proptest::collection::vec(0u64..20_000, 1..50)) {
            let h = Histogram::from_pairs(counts.iter().map(|c| (*c, 1)));
            let max = *counts.iter().max().unwrap();
            match card(&h, false) {
                Card::Few { max: Some(m), .. } => prop_assert!(m >= max && m <= EMBED_ARRAY_MAX),
                Card::Many { max: Some(m), .. } => prop_assert!(m == max && m > EMBED_ARRAY_MAX && m <= ID_ARRAY_MAX),
                Card::Squillions => prop_assert!(max > ID_ARRAY_MAX),
                other => prop_assert!(false, "{other:?}"),
            }
        }
    }
}
