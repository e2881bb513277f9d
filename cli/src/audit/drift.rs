//! The Plan's data invariants on a live database: copies equal their source, subsets and top-N
//! lists hold the right children in the right order, summaries equal the aggregate of what they
//! summarise, and both sides of a two-way link agree. Each check collects what it needs from the
//! sampled documents ([`Collector::observe`]), then compares with the documents the design derives
//! them from, reading those in batches (`$in` of up to [`super::IDS_PER_QUERY`] ids), never one
//! query per document ([`Collector::finish`]).

use std::cmp::Ordering;

use mongodb::bson::{Bson, Document};
use mongodb::Database;
use serde::Serialize;
use squillion_codegen::plan::{Collection, CollectionRole, Plan, PlanField};

use super::checks::{Finding, FindingKind};
use super::{copies, links, subsets, summaries};

/// One document whose stored value is not the one the design derives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// The `_id` of the document holding the value (relaxed extended JSON).
    pub id: serde_json::Value,
    /// The `_id` of the document the value is derived from, where there is one: the copy's
    /// source, the other side of the link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<serde_json::Value>,
    /// The value stored (`None`: absent).
    pub found: Option<serde_json::Value>,
    /// The value the design derives (`None`: absent).
    pub expected: Option<serde_json::Value>,
}

impl Mismatch {
    /// A mismatch in document `id`, values shown unless `sensitive`.
    pub fn new(
        id: &Bson,
        from: Option<&Bson>,
        found: Option<&Bson>,
        expected: Option<&Bson>,
        sensitive: bool,
    ) -> Mismatch {
        let show = |v: &Bson| {
            if sensitive {
                serde_json::Value::String("(sensitive)".to_owned())
            } else {
                v.clone().into_relaxed_extjson()
            }
        };
        Mismatch {
            id: id.clone().into_relaxed_extjson(),
            from: from.map(|v| v.clone().into_relaxed_extjson()),
            found: found.map(show),
            expected: expected.map(show),
        }
    }
}

/// Which invariant a drift finding breaks, with the Plan's data the report words it from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "invariant", rename_all = "snake_case")]
pub enum Invariant {
    /// A copied field (rule 5) differs from its source.
    Copy {
        /// `Entity.field` of the source.
        source: String,
        /// The source's collection.
        source_collection: String,
        /// The update that keeps the copies in step (the Plan's fan-out).
        fan_out: squillion_codegen::plan::FanOut,
    },
    /// A subset or top-N list differs from the children it keeps.
    Subset {
        /// The relationship.
        relation: String,
        /// How many it keeps.
        n: u64,
        /// The child's field that orders them.
        sort_by: String,
        /// Largest first.
        descending: bool,
        /// The children's collection.
        children: String,
        /// The children's reference to their parent (`None`: the parent names them).
        back: Option<String>,
        /// The parent's array naming its children (parent references).
        named: Option<String>,
        /// The children's fields each copy keeps (empty: as the copies hold them).
        kept: Vec<String>,
    },
    /// A summary differs from the aggregate of what it summarises.
    Summary {
        /// The relationship.
        relation: String,
        /// count, total, max, min.
        function: String,
        /// The child's field it reads (none for count).
        field: Option<String>,
        /// What it summarises: the array in the same document, or `collection.reference` of
        /// the children's collection.
        of: String,
    },
    /// One side of a two-way link names a document that does not name it back.
    TwoWay {
        /// The relationship.
        relation: String,
        /// The other side's collection.
        other_collection: String,
        /// The other side's field.
        other_path: String,
        /// What the other side's field holds.
        other_shape: squillion_codegen::plan::Shape,
        /// What this side's field holds.
        shape: squillion_codegen::plan::Shape,
    },
}

/// What a data finding found: the invariant, the documents checked, and a few mismatches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// The invariant broken.
    #[serde(flatten)]
    pub invariant: Invariant,
    /// Sampled documents the check compared.
    pub checked: u64,
    /// The first mismatches (at most [`EXAMPLES`]).
    pub examples: Vec<Mismatch>,
}

/// Mismatches kept per finding.
pub const EXAMPLES: usize = 3;

/// The mismatches of one check, as they accumulate.
#[derive(Debug, Default)]
pub struct Tally {
    /// Distinct documents with at least one mismatch, by [`super::id_key`].
    documents: std::collections::BTreeSet<String>,
    /// The first of them.
    first: Option<String>,
    examples: Vec<Mismatch>,
    /// Documents compared.
    pub checked: u64,
}

impl Tally {
    /// No mismatch yet, `checked` documents compared.
    pub fn of(checked: u64) -> Tally {
        Tally {
            checked,
            ..Tally::default()
        }
    }

    /// Records a mismatch in document `id`.
    pub fn add(&mut self, id: &Bson, m: Mismatch) {
        if self.first.is_none() {
            self.first = Some(id.to_string());
        }
        self.documents.insert(super::id_key(id));
        if self.examples.len() < EXAMPLES {
            self.examples.push(m);
        }
    }

    /// The finding, if anything differed.
    pub fn finding(
        self,
        collection: &str,
        kind: FindingKind,
        path: &str,
        invariant: Invariant,
    ) -> Option<Finding> {
        if self.documents.is_empty() {
            return None;
        }
        let drift = Drift {
            invariant,
            checked: self.checked,
            examples: self.examples,
        };
        let mut f = Finding {
            collection: collection.to_owned(),
            kind,
            path: Some(path.to_owned()),
            count: self.documents.len() as u64,
            example: self.first,
            detail: String::new(),
            help: None,
            drift: Some(drift),
            cost: Default::default(),
        };
        f.detail = super::prose::detail(&f);
        f.help = super::prose::help(&f);
        Some(f)
    }
}

/// The data checks of one sampled collection.
pub struct Collector<'p> {
    copies: copies::Check<'p>,
    subsets: subsets::Check<'p>,
    summaries: summaries::Check<'p>,
    links: links::Check<'p>,
}

impl<'p> Collector<'p> {
    /// The checks that apply to the documents of `c`.
    pub fn new(plan: &'p Plan, c: &'p Collection) -> Collector<'p> {
        Collector {
            copies: copies::Check::new(plan, c),
            subsets: subsets::Check::new(plan, c),
            summaries: summaries::Check::new(plan, c),
            links: links::Check::new(plan, c),
        }
    }

    /// Takes what the checks need from one sampled document.
    pub fn observe(&mut self, doc: &Document) {
        let Some(id) = doc.get("_id") else { return };
        self.copies.observe(id, doc);
        self.subsets.observe(id, doc);
        self.summaries.observe(id, doc);
        self.links.observe(id, doc);
    }

    /// Compares with the documents the values derive from.
    pub async fn finish(self, db: &Database) -> mongodb::error::Result<Vec<Finding>> {
        let mut out = self.copies.finish(db).await?;
        out.extend(self.subsets.finish(db).await?);
        out.extend(self.summaries.finish(db).await?);
        out.extend(self.links.finish(db).await?);
        Ok(out)
    }
}

/// The collection holding the documents of `entity`.
pub fn entity_collection<'p>(plan: &'p Plan, entity: &str) -> Option<&'p Collection> {
    plan.collections
        .iter()
        .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
}

/// The top-level field of `c` a schema names `name` (its name in code or its stored name).
pub fn field_named<'c>(fields: &'c [PlanField], name: &str) -> Option<&'c PlanField> {
    fields
        .iter()
        .find(|f| f.code_name == name)
        .or_else(|| fields.iter().find(|f| f.name == name))
}

/// Every document at `path` in `doc` (`[]`: the document itself), through arrays.
pub fn documents_in<'d>(doc: &'d Document, path: &[&str]) -> Vec<&'d Document> {
    let mut out = Vec::new();
    match path {
        [] => out.push(doc),
        [first, rest @ ..] => {
            if let Some(v) = doc.get(*first) {
                documents_at(v, rest, &mut out);
            }
        }
    }
    out
}

/// The documents of `collection` whose `_id` is one of `ids`, by [`super::id_key`], with the
/// fields of `projection`: one `$in` query per [`super::IDS_PER_QUERY`] ids.
pub async fn fetch(
    db: &Database,
    collection: &str,
    ids: &[Bson],
    projection: Document,
) -> mongodb::error::Result<std::collections::BTreeMap<String, Document>> {
    use futures::TryStreamExt;
    let mut out = std::collections::BTreeMap::new();
    for chunk in ids.chunks(super::IDS_PER_QUERY) {
        let mut cursor = db
            .collection::<Document>(collection)
            .find(mongodb::bson::doc! { "_id": { "$in": chunk.to_vec() } })
            .projection(projection.clone())
            .await?;
        while let Some(d) = cursor.try_next().await? {
            if let Some(id) = d.get("_id") {
                out.insert(super::id_key(id), d);
            }
        }
    }
    Ok(out)
}

/// Every document at dotted `path` under `value`, through arrays (nested ones too).
pub fn documents_at<'d>(value: &'d Bson, path: &[&str], out: &mut Vec<&'d Document>) {
    match value {
        Bson::Array(items) => items.iter().for_each(|v| documents_at(v, path, out)),
        Bson::Document(d) => match path {
            [] => out.push(d),
            [first, rest @ ..] => {
                if let Some(v) = d.get(*first) {
                    documents_at(v, rest, out);
                }
            }
        },
        _ => {}
    }
}

/// The id a reference holds: the value, or the `id` of an extended reference.
pub fn reference_id(v: &Bson) -> Option<&Bson> {
    match v {
        Bson::Document(d) => d.get("id").filter(|v| !matches!(v, Bson::Null)),
        Bson::Null => None,
        other => Some(other),
    }
}

/// The ids a reference field holds: one, or each of an array.
pub fn reference_ids(v: Option<&Bson>) -> Vec<&Bson> {
    match v {
        Some(Bson::Array(items)) => items.iter().filter_map(reference_id).collect(),
        Some(v) => reference_id(v).into_iter().collect(),
        None => vec![],
    }
}

fn number(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        _ => None,
    }
}

/// Orders two values as MongoDB sorts values of one type (numbers by value whatever their
/// width); values of different types are `None`.
pub fn compare(a: &Bson, b: &Bson) -> Option<Ordering> {
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => Some(x.cmp(y)),
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => Some(x.bytes().cmp(&y.bytes())),
        (Bson::Boolean(x), Bson::Boolean(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

/// Whether a stored value is the derived one: numbers by value (a sum of doubles up to rounding),
/// documents and arrays element by element, an absent value the same as `null`.
pub fn same(a: Option<&Bson>, b: Option<&Bson>) -> bool {
    let a = a.filter(|v| !matches!(v, Bson::Null));
    let b = b.filter(|v| !matches!(v, Bson::Null));
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => same_value(x, y),
        _ => false,
    }
}

fn same_value(a: &Bson, b: &Bson) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    }
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| same(Some(v), y.get(k)))
        }
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_value(v, w))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    #[test]
    fn values_compare_as_the_server_stores_them() {
        assert!(same(Some(&Bson::Int32(3)), Some(&Bson::Int64(3))));
        assert!(same(
            Some(&Bson::Double(0.1 + 0.2)),
            Some(&Bson::Double(0.3))
        ));
        assert!(!same(Some(&Bson::Double(0.31)), Some(&Bson::Double(0.3))));
        assert!(same(None, Some(&Bson::Null)));
        assert!(!same(None, Some(&Bson::Int32(0))));
        assert!(same(
            Some(&Bson::Document(doc! { "a": 1, "b": [1, 2] })),
            Some(&Bson::Document(doc! { "a": 1_i64, "b": [1.0, 2] }))
        ));
        assert!(!same(
            Some(&Bson::String("a".into())),
            Some(&Bson::String("b".into()))
        ));
        let d = Bson::Document(doc! { "lines": [
            { "parts": [{ "product": { "id": 1 } }, { "product": { "id": 2 } }] },
            { "parts": [{ "product": { "id": 3 } }] },
        ] });
        let mut found = Vec::new();
        documents_at(&d, &["lines", "parts", "product"], &mut found);
        let ids: Vec<&Bson> = found.iter().filter_map(|d| d.get("id")).collect();
        assert_eq!(ids, vec![&Bson::Int32(1), &Bson::Int32(2), &Bson::Int32(3)]);
        assert_eq!(
            reference_ids(Some(&Bson::Array(vec![
                Bson::Document(doc! { "id": 4, "name": "x" }),
                Bson::Int32(5),
                Bson::Null
            ]))),
            vec![&Bson::Int32(4), &Bson::Int32(5)]
        );
    }
}
