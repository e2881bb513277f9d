//! What one sampled document says about relations between its own top-level fields: a count equal
//! to an array's length (buckets), a value equal to the smallest, largest or total of the elements'
//! field (bucket summaries and time ranges), a reference equal to an array's last element (trees),
//! and which keys come with which value of a string field (variants).

use std::collections::BTreeMap;

use mongodb::bson::{Bson, Document};

use super::shape::{compare, number, value_key};

/// Documents with more top-level keys than this are not examined pairwise.
const MAX_KEYS: usize = 24;
/// Values of one string field tracked as a discriminator before it is given up.
const MAX_VARIANTS: usize = 16;
/// Fields tracked as possible discriminators.
const MAX_DISCRIMINATORS: usize = 8;

/// How a value is computed from the elements of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agg {
    /// The smallest element value.
    Min,
    /// The largest.
    Max,
    /// The total.
    Sum,
}

/// The values of one string field and the keys documents with each value have.
#[derive(Debug, Clone, Default)]
pub struct Discriminator {
    /// Per value: documents with it, and per key, how many of them have the key.
    pub values: BTreeMap<String, (u64, BTreeMap<String, u64>)>,
    /// More values than [`MAX_VARIANTS`] were seen: not a discriminator.
    pub overflowed: bool,
}

/// The evidence of a collection's sampled documents.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// Documents examined pairwise.
    pub examined: u64,
    /// `(count field, array field)`: documents where the count equals the array's length.
    pub counts: BTreeMap<(String, String), u64>,
    /// `(field, array field, element field, how)`: documents where the field equals the
    /// aggregate of the elements' field.
    pub summaries: BTreeMap<(String, String, String, Agg), u64>,
    /// `(field, array field)`: documents where the field equals the array's last element.
    pub last: BTreeMap<(String, String), u64>,
    /// Possible discriminators, by field.
    pub discriminators: BTreeMap<String, Discriminator>,
}

impl Evidence {
    /// Adds one sampled document.
    pub fn observe(&mut self, doc: &Document) {
        if doc.len() > MAX_KEYS {
            return;
        }
        self.examined += 1;
        let arrays: Vec<(&String, &Vec<Bson>)> = doc
            .iter()
            .filter_map(|(k, v)| match v {
                Bson::Array(a) => Some((k, a)),
                _ => None,
            })
            .collect();
        for (key, value) in doc {
            for (akey, items) in &arrays {
                if matches!(value, Bson::Array(_)) {
                    continue;
                }
                if number(value).is_some_and(|n| n == items.len() as f64) {
                    *self
                        .counts
                        .entry((key.clone(), (*akey).clone()))
                        .or_default() += 1;
                }
                if let Some(last) = items.last() {
                    if key != "_id" && value_key(last) == value_key(value) {
                        *self.last.entry((key.clone(), (*akey).clone())).or_default() += 1;
                    }
                }
                self.summaries_of(key, value, akey, items);
            }
        }
        self.variants(doc);
    }

    fn summaries_of(&mut self, key: &str, value: &Bson, akey: &str, items: &[Bson]) {
        if !matches!(
            value,
            Bson::DateTime(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)
        ) {
            return;
        }
        let Some(Bson::Document(first)) = items.first() else {
            return;
        };
        for ekey in first.keys() {
            let values: Vec<&Bson> = items
                .iter()
                .filter_map(|i| match i {
                    Bson::Document(d) => d.get(ekey),
                    _ => None,
                })
                .collect();
            if values.len() != items.len() {
                continue;
            }
            let mut found = Vec::new();
            let min = values
                .iter()
                .copied()
                .try_fold(None::<&Bson>, |m, v| match m {
                    None => Some(Some(v)),
                    Some(m) => compare(v, m).map(|o| Some(if o.is_lt() { v } else { m })),
                })
                .flatten();
            let max = values
                .iter()
                .copied()
                .try_fold(None::<&Bson>, |m, v| match m {
                    None => Some(Some(v)),
                    Some(m) => compare(v, m).map(|o| Some(if o.is_gt() { v } else { m })),
                })
                .flatten();
            if min.is_some_and(|m| compare(m, value).is_some_and(|o| o.is_eq())) {
                found.push(Agg::Min);
            }
            if max.is_some_and(|m| compare(m, value).is_some_and(|o| o.is_eq())) {
                found.push(Agg::Max);
            }
            let sum: Option<f64> = values.iter().map(|v| number(v)).sum();
            if let (Some(s), Some(v)) = (sum, number(value)) {
                if (s - v).abs() <= 1e-9 * s.abs().max(1.0) && values.len() > 1 {
                    found.push(Agg::Sum);
                }
            }
            for how in found {
                *self
                    .summaries
                    .entry((key.to_owned(), akey.to_owned(), ekey.clone(), how))
                    .or_default() += 1;
            }
        }
    }

    fn variants(&mut self, doc: &Document) {
        for (key, value) in doc {
            let Bson::String(v) = value else { continue };
            if key == "_id" || v.len() > 64 {
                continue;
            }
            if !self.discriminators.contains_key(key)
                && self.discriminators.len() >= MAX_DISCRIMINATORS
            {
                continue;
            }
            let d = self.discriminators.entry(key.clone()).or_default();
            if d.overflowed {
                continue;
            }
            if !d.values.contains_key(v) && d.values.len() >= MAX_VARIANTS {
                d.overflowed = true;
                d.values.clear();
                continue;
            }
            let (n, keys) = d.values.entry(v.clone()).or_default();
            *n += 1;
            for k in doc.keys() {
                *keys.entry(k.clone()).or_default() += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::{doc, DateTime};

    #[test]
    fn buckets_trees_and_variants_leave_evidence() {
        let mut e = Evidence::default();
        let t = |ms| Bson::DateTime(DateTime::from_millis(ms));
        e.observe(&doc! {
            "sensor": 1, "count": 2, "start": t(10), "end": t(20), "total": 3.5,
            "readings": [{ "ts": t(10), "v": 1.5 }, { "ts": t(20), "v": 2.0 }],
        });
        assert_eq!(e.counts[&("count".into(), "readings".into())], 1);
        let s = |f: &str, el: &str, a| (f.to_owned(), "readings".to_owned(), el.to_owned(), a);
        assert_eq!(e.summaries[&s("start", "ts", Agg::Min)], 1);
        assert_eq!(e.summaries[&s("end", "ts", Agg::Max)], 1);
        assert_eq!(e.summaries[&s("total", "v", Agg::Sum)], 1);
        e.observe(&doc! { "_id": "f", "parent": "c", "ancestors": ["a", "c"] });
        assert_eq!(e.last[&("parent".into(), "ancestors".into())], 1);
        e.observe(&doc! { "type": "circle", "radius": 2.0 });
        e.observe(&doc! { "type": "rect", "w": 2.0 });
        let d = &e.discriminators["type"];
        assert_eq!(d.values["circle"].1["radius"], 1);
        assert!(!d.values["rect"].1.contains_key("radius"));
    }

    #[test]
    fn a_field_with_many_values_is_no_discriminator() {
        let mut e = Evidence::default();
        for i in 0..40 {
            e.observe(&doc! { "title": format!("t{i}") });
        }
        assert!(e.discriminators["title"].overflowed);
    }
}
