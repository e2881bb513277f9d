//! The shapes of sampled documents: per field, how often it is present, its BSON types, the
//! lengths of its arrays, the shapes of its subdocuments and array elements, a bounded set of its
//! distinct values (for references and discriminators) and the first few records of each place
//! (for copies). Everything kept is bounded by constants, never by the collection's size.

use std::collections::{BTreeMap, HashSet};

use indexmap::IndexMap;
use mongodb::bson::{Bson, Document};

use super::histogram::Histogram;

/// Subdocuments nested deeper than this are counted but not described.
pub const MAX_DEPTH: usize = 24;
/// Distinct keys described per place; more make it a map (keys are data).
pub const MAX_KEYS: usize = 200;
/// Distinct values kept per field, for reference lookups and discriminators.
pub const MAX_VALUES: usize = 256;
/// Records (scalar fields only) kept per place, for copies and subsets.
pub const MAX_RECORDS: usize = 64;
/// Elements of one array whose shapes are examined (every element is counted).
pub const MAX_ELEMENTS: usize = 5_000;
/// Longest string kept as a value or in a record.
const MAX_STRING: usize = 512;

/// A BSON type, as `$type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// 64-bit float.
    Double,
    /// UTF-8 string.
    String,
    /// Embedded document.
    Document,
    /// Array.
    Array,
    /// Binary data.
    Binary,
    /// ObjectId.
    ObjectId,
    /// Boolean.
    Bool,
    /// UTC datetime.
    Date,
    /// Null.
    Null,
    /// Regular expression.
    Regex,
    /// 32-bit integer.
    Int32,
    /// Internal timestamp.
    Timestamp,
    /// 64-bit integer.
    Int64,
    /// 128-bit decimal.
    Decimal128,
    /// A type the language has no name for (JavaScript code, symbols, min/max keys...).
    Unsupported(&'static str),
}

impl Kind {
    /// The kind of a value.
    pub fn of(v: &Bson) -> Kind {
        match v {
            Bson::Double(_) => Kind::Double,
            Bson::String(_) => Kind::String,
            Bson::Document(_) => Kind::Document,
            Bson::Array(_) => Kind::Array,
            Bson::Binary(_) => Kind::Binary,
            Bson::ObjectId(_) => Kind::ObjectId,
            Bson::Boolean(_) => Kind::Bool,
            Bson::DateTime(_) => Kind::Date,
            Bson::Null => Kind::Null,
            Bson::RegularExpression(_) => Kind::Regex,
            Bson::Int32(_) => Kind::Int32,
            Bson::Timestamp(_) => Kind::Timestamp,
            Bson::Int64(_) => Kind::Int64,
            Bson::Decimal128(_) => Kind::Decimal128,
            Bson::JavaScriptCode(_) => Kind::Unsupported("javascript"),
            Bson::JavaScriptCodeWithScope(_) => Kind::Unsupported("javascriptWithScope"),
            Bson::Symbol(_) => Kind::Unsupported("symbol"),
            Bson::Undefined => Kind::Unsupported("undefined"),
            Bson::MaxKey => Kind::Unsupported("maxKey"),
            Bson::MinKey => Kind::Unsupported("minKey"),
            Bson::DbPointer(_) => Kind::Unsupported("dbPointer"),
        }
    }

    /// The type's name in the language, for scalar kinds.
    pub fn sqn(self) -> Option<&'static str> {
        Some(match self {
            Kind::Double => "double",
            Kind::String => "string",
            Kind::Binary => "binary",
            Kind::ObjectId => "objectId",
            Kind::Bool => "bool",
            Kind::Date => "date",
            Kind::Null => "null",
            Kind::Regex => "regex",
            Kind::Int32 => "int32",
            Kind::Timestamp => "timestamp",
            Kind::Int64 => "int64",
            Kind::Decimal128 => "decimal128",
            Kind::Document | Kind::Array | Kind::Unsupported(_) => return None,
        })
    }

    /// The name `$type` gives it, for comments.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Double => "double",
            Kind::String => "string",
            Kind::Document => "object",
            Kind::Array => "array",
            Kind::Binary => "binData",
            Kind::ObjectId => "objectId",
            Kind::Bool => "bool",
            Kind::Date => "date",
            Kind::Null => "null",
            Kind::Regex => "regex",
            Kind::Int32 => "int",
            Kind::Timestamp => "timestamp",
            Kind::Int64 => "long",
            Kind::Decimal128 => "decimal",
            Kind::Unsupported(n) => n,
        }
    }

    /// Numbers compare by value (`$in` finds an int64 `_id` from an int32 reference).
    pub fn is_number(self) -> bool {
        matches!(self, Kind::Int32 | Kind::Int64 | Kind::Double)
    }

    /// Kinds whose values can be `_id`s worth looking up.
    pub fn is_id_like(self) -> bool {
        matches!(
            self,
            Kind::ObjectId | Kind::String | Kind::Int32 | Kind::Int64 | Kind::Binary
        )
    }
}

/// A key under which equal values compare equal: numbers by value, everything else by its
/// canonical extended JSON.
pub fn value_key(v: &Bson) -> String {
    match v {
        Bson::Int32(n) => format!("n:{}", f64::from(*n)),
        Bson::Int64(n) => format!("n:{}", *n as f64),
        Bson::Double(n) => format!("n:{n}"),
        other => other.clone().into_canonical_extjson().to_string(),
    }
}

/// Distinct values seen in a field, up to [`MAX_VALUES`].
#[derive(Debug, Clone, Default)]
pub struct Values {
    /// The values, in the order first seen.
    pub distinct: Vec<Bson>,
    keys: HashSet<String>,
    /// More distinct values were seen than kept.
    pub overflowed: bool,
    /// Values offered (kept or not), counting repeats.
    pub offered: u64,
}

impl Values {
    fn offer(&mut self, v: &Bson) {
        let keep = match v {
            Bson::String(s) => s.len() <= MAX_STRING,
            Bson::Binary(b) => b.bytes.len() <= 64,
            Bson::ObjectId(_) | Bson::Int32(_) | Bson::Int64(_) => true,
            _ => false,
        };
        if !keep {
            return;
        }
        self.offered += 1;
        if self.overflowed {
            return;
        }
        let key = value_key(v);
        if self.keys.contains(&key) {
            return;
        }
        if self.distinct.len() >= MAX_VALUES {
            self.overflowed = true;
            return;
        }
        self.keys.insert(key);
        self.distinct.push(v.clone());
    }
}

/// How the elements of arrays of documents are ordered by one of their fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Order {
    /// Arrays (of at least two elements, all with the field) checked.
    pub checked: u64,
    /// Of which ascending (never decreasing).
    pub ascending: u64,
    /// Of which descending (never increasing).
    pub descending: u64,
}

/// The documents found at one place: a collection's documents, the values of a subdocument field,
/// or the elements of an array of documents.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// Documents observed here.
    pub seen: u64,
    /// Their fields, in the order first seen.
    pub fields: IndexMap<String, FieldShape>,
    /// Keys not described because the place already had [`MAX_KEYS`] (its keys are data).
    pub untracked_keys: u64,
    /// The first [`MAX_RECORDS`] documents, scalar fields only.
    pub records: Vec<Document>,
    /// Documents here nested deeper than [`MAX_DEPTH`], not described.
    pub too_deep: u64,
}

/// One field of a [`Shape`].
#[derive(Debug, Clone, Default)]
pub struct FieldShape {
    /// Documents holding the field.
    pub present: u64,
    /// How many values of each kind.
    pub kinds: BTreeMap<Kind, u64>,
    /// The shape of its document values.
    pub doc: Option<Box<Shape>>,
    /// Its array values.
    pub array: Option<Box<ArrayShape>>,
    /// Its distinct scalar values.
    pub values: Values,
}

impl FieldShape {
    /// The kind most values have, and how many have it.
    pub fn main_kind(&self) -> Option<(Kind, u64)> {
        main_kind(&self.kinds)
    }

    /// Values that are not null.
    pub fn non_null(&self) -> u64 {
        self.kinds
            .iter()
            .filter(|(k, _)| **k != Kind::Null)
            .map(|(_, n)| n)
            .sum()
    }
}

/// The most common kind other than null (null when it is the only one), with its count.
pub fn main_kind(kinds: &BTreeMap<Kind, u64>) -> Option<(Kind, u64)> {
    let best = kinds
        .iter()
        .filter(|(k, _)| **k != Kind::Null)
        .max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k)))
        .map(|(k, n)| (*k, *n));
    best.or_else(|| kinds.get(&Kind::Null).map(|n| (Kind::Null, *n)))
}

/// The arrays found in one field (or nested in another array).
#[derive(Debug, Clone, Default)]
pub struct ArrayShape {
    /// Their lengths.
    pub lengths: Histogram,
    /// How many elements of each kind (of the examined elements).
    pub kinds: BTreeMap<Kind, u64>,
    /// The shape of document elements.
    pub doc: Option<Box<Shape>>,
    /// Nested arrays.
    pub array: Option<Box<ArrayShape>>,
    /// Distinct scalar elements.
    pub values: Values,
    /// Per field of document elements: how arrays are ordered by it.
    pub order: BTreeMap<String, Order>,
    /// Arrays longer than [`MAX_ELEMENTS`]: only their first elements were examined.
    pub truncated: u64,
}

impl ArrayShape {
    /// The kind most elements have.
    pub fn main_kind(&self) -> Option<(Kind, u64)> {
        main_kind(&self.kinds)
    }
}

impl Shape {
    /// Adds one document found here.
    pub fn observe(&mut self, doc: &Document, depth: usize) {
        self.seen += 1;
        if depth > MAX_DEPTH {
            self.too_deep += 1;
            return;
        }
        if self.records.len() < MAX_RECORDS {
            self.records.push(record(doc));
        }
        for (key, value) in doc {
            if !self.fields.contains_key(key) && self.fields.len() >= MAX_KEYS {
                self.untracked_keys += 1;
                continue;
            }
            let field = self.fields.entry(key.clone()).or_default();
            field.present += 1;
            field.observe(value, depth);
        }
    }

    /// Whether the keys of this place look like data (a map): more keys than are described, or
    /// many keys each in few documents.
    pub fn is_map(&self) -> bool {
        if self.untracked_keys > 0 {
            return true;
        }
        let keys = self.fields.len() as u64;
        if keys < 24 || self.seen == 0 {
            return false;
        }
        let common = self
            .fields
            .values()
            .filter(|f| f.present * 2 >= self.seen)
            .count();
        common == 0
    }
}

impl FieldShape {
    fn observe(&mut self, value: &Bson, depth: usize) {
        *self.kinds.entry(Kind::of(value)).or_default() += 1;
        match value {
            Bson::Document(d) => self
                .doc
                .get_or_insert_with(Default::default)
                .observe(d, depth + 1),
            Bson::Array(items) => self
                .array
                .get_or_insert_with(Default::default)
                .observe(items, depth + 1),
            other => self.values.offer(other),
        }
    }
}

impl ArrayShape {
    fn observe(&mut self, items: &[Bson], depth: usize) {
        self.lengths.add(items.len() as u64, 1);
        if depth > MAX_DEPTH {
            return;
        }
        if items.len() > MAX_ELEMENTS {
            self.truncated += 1;
        }
        let examined = &items[..items.len().min(MAX_ELEMENTS)];
        for item in examined {
            *self.kinds.entry(Kind::of(item)).or_default() += 1;
            match item {
                Bson::Document(d) => self
                    .doc
                    .get_or_insert_with(Default::default)
                    .observe(d, depth + 1),
                Bson::Array(inner) => self
                    .array
                    .get_or_insert_with(Default::default)
                    .observe(inner, depth + 1),
                other => self.values.offer(other),
            }
        }
        self.observe_order(examined);
    }

    /// For arrays of documents: which of their scalar fields they are sorted by.
    fn observe_order(&mut self, items: &[Bson]) {
        if items.len() < 2 {
            return;
        }
        let Some(Bson::Document(first)) = items.first() else {
            return;
        };
        for (key, v) in first {
            if !orderable(v) {
                continue;
            }
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Bson::Document(d) => match d.get(key) {
                        Some(v) if orderable(v) => values.push(v),
                        _ => break,
                    },
                    _ => break,
                }
            }
            if values.len() != items.len() {
                continue;
            }
            let o = self.order.entry(key.clone()).or_default();
            o.checked += 1;
            let pairs = || values.windows(2).map(|w| compare(w[0], w[1]));
            if pairs().all(|c| c != Some(std::cmp::Ordering::Greater)) {
                o.ascending += 1;
            }
            if pairs().all(|c| c != Some(std::cmp::Ordering::Less)) {
                o.descending += 1;
            }
        }
    }
}

fn orderable(v: &Bson) -> bool {
    matches!(
        v,
        Bson::DateTime(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::String(_)
    )
}

/// Orders two scalars of comparable kinds (numbers by value); `None` across kinds.
pub fn compare(a: &Bson, b: &Bson) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::String(x), Bson::String(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

/// A number's value.
pub fn number(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        _ => None,
    }
}

/// The scalar fields of a document, long strings and large binaries left out.
fn record(doc: &Document) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        let keep = match v {
            Bson::Document(_) | Bson::Array(_) => false,
            Bson::String(s) => s.len() <= MAX_STRING,
            Bson::Binary(b) => b.bytes.len() <= 64,
            _ => true,
        };
        if keep {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    #[test]
    fn presence_kinds_arrays_and_subdocuments_are_counted() {
        let mut s = Shape::default();
        s.observe(
            &doc! { "_id": 1, "t": "a", "tags": ["x", "y"], "p": { "c": "L" }, "n": [{ "d": 1 }, { "d": 2 }] },
            0,
        );
        s.observe(&doc! { "_id": 2, "t": 5, "tags": [], "n": [{ "d": 3 }] }, 0);
        assert_eq!(s.seen, 2);
        let t = &s.fields["t"];
        assert_eq!((t.present, t.kinds.len()), (2, 2));
        let tags = s.fields["tags"].array.as_ref().unwrap();
        assert_eq!(tags.lengths.max(), Some(2));
        assert_eq!(tags.lengths.total(), 2);
        assert_eq!(s.fields["p"].present, 1);
        let n = s.fields["n"].array.as_ref().unwrap();
        assert_eq!(n.doc.as_ref().unwrap().seen, 3);
        assert_eq!(
            n.order["d"],
            Order {
                checked: 1,
                ascending: 1,
                descending: 0
            }
        );
        assert_eq!(s.records.len(), 2);
        assert!(!s.records[0].contains_key("tags"));
    }

    #[test]
    fn deep_nesting_wide_keys_and_huge_arrays_stay_bounded() {
        let mut d = doc! { "leaf": 1 };
        for _ in 0..200 {
            d = doc! { "x": d };
        }
        let mut s = Shape::default();
        s.observe(&d, 0);
        let mut wide = Document::new();
        for i in 0..1000 {
            wide.insert(format!("k{i}"), i);
        }
        s.observe(&wide, 0);
        assert_eq!(s.fields.len(), MAX_KEYS);
        assert!(s.untracked_keys > 0 && s.is_map());
        let big: Vec<Bson> = (0..(MAX_ELEMENTS as i32 + 10)).map(Bson::Int32).collect();
        let mut a = Shape::default();
        a.observe(&doc! { "a": big }, 0);
        let arr = a.fields["a"].array.as_ref().unwrap();
        assert_eq!(arr.truncated, 1);
        assert_eq!(arr.lengths.max(), Some(MAX_ELEMENTS as u64 + 10));
        assert!(arr.values.overflowed && arr.values.distinct.len() == MAX_VALUES);
    }
}
