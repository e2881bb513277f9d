//! Random values of the shapes the Plan gives, from a seeded generator: the same seed gives the
//! same operations on every machine. Values come from small pools, so equal strings, numbers and
//! dates recur (unique indexes meet duplicates, queries match several documents).

use bson::{doc, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128, Document};
use squillion_codegen::plan::{Collection, Container, ContainerKind, FieldKind, PlanField};

/// A small, seeded generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.bits() % n as u64).unwrap_or(0)
        }
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.bits() % 100 < p
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }
}

/// A scalar of BSON type `bson`.
pub fn scalar(bson: &str, rng: &mut Rng) -> Bson {
    let k = rng.below(12);
    match bson {
        "string" => Bson::String(format!("{}{k}", ["ab", "Ab", "cd", "x"][rng.below(4)])),
        "int" => Bson::Int32(i32::try_from(k).unwrap_or(0) * 7 - 20),
        "long" => Bson::Int64(i64::try_from(k).unwrap_or(0) * 1000 - 3000),
        "double" => Bson::Double(k as f64 * 1.5 - 4.0),
        "bool" => Bson::Boolean(k.is_multiple_of(2)),
        // Days in 2030: far enough ahead that a TTL index (`@expires`) never removes a document
        // while a run lasts.
        "date" => Bson::DateTime(DateTime::from_millis(
            1_900_000_000_000 + i64::try_from(k).unwrap_or(0) * 86_400_000,
        )),
        "objectId" => Bson::ObjectId(bson::oid::ObjectId::new()),
        "decimal" => {
            // k x 10^-2: the low bits of the coefficient, exponent 6176 - 2.
            let mut bytes = [0u8; 16];
            bytes[0] = u8::try_from(k).unwrap_or(0);
            bytes[14] = 0x3C << 1;
            bytes[15] = 0x30;
            Bson::Decimal128(Decimal128::from_bytes(bytes))
        }
        "binData" => Bson::Binary(Binary {
            subtype: BinarySubtype::Generic,
            bytes: vec![u8::try_from(k).unwrap_or(0); 3],
        }),
        _ => Bson::Null,
    }
}

/// A counter's value of BSON type `bson`: 0 or more, from a small pool like [`scalar`]'s (0, 1
/// and 2 recur, so guarded decrements meet their floor).
pub fn counted(bson: &str, rng: &mut Rng) -> Bson {
    let k = rng.below(12);
    let small = if k < 6 { k % 3 } else { k * 7 };
    match bson {
        "long" => Bson::Int64(i64::try_from(small).unwrap_or(0)),
        "double" => Bson::Double(small as f64 * 1.5),
        _ => Bson::Int32(i32::try_from(small).unwrap_or(0)),
    }
}

/// A number of BSON type `bson` within `range`: its bounds and evenly spaced values between them,
/// from a small pool like [`scalar`]'s.
pub fn ranged(bson: &str, range: &squillion_codegen::model::NumberRange, rng: &mut Rng) -> Bson {
    let k = rng.below(12) as u32;
    let exact = match (range.min.as_i64(), range.max.as_i64()) {
        (Some(lo), Some(hi)) => {
            let span = i128::from(hi) - i128::from(lo);
            i64::try_from(i128::from(lo) + span * i128::from(k) / 11).ok()
        }
        _ => None,
    };
    let real = {
        let (lo, hi) = range.as_f64();
        (lo + (hi - lo) * f64::from(k) / 11.0).clamp(lo, hi)
    };
    match (bson, exact) {
        ("int", Some(v)) => Bson::Int32(i32::try_from(v).unwrap_or(0)),
        ("long", Some(v)) => Bson::Int64(v),
        ("decimal", Some(v)) => decimal(&v.to_string()),
        ("decimal", None) => decimal(&format!("{real:?}")),
        (_, _) => Bson::Double(real),
    }
}

fn decimal(text: &str) -> Bson {
    text.parse::<Decimal128>()
        .map(Bson::Decimal128)
        .unwrap_or(Bson::Null)
}

/// A value of `f`'s shape: its container levels (arrays, maps), then an embedded document or a
/// scalar. Relationship-maintained parts are left to the caller ([`document`] skips them).
pub fn value(f: &PlanField, rng: &mut Rng, cx: &Context<'_>) -> Bson {
    levels(f, &f.containers, rng, cx)
}

/// A value inside the container levels `rest` (outermost first). A level holds up to its
/// bound, at most two elements (entries); a preallocated one (counters) exactly its bound, of
/// zeros. Elements a level allows to be null are null one time in four.
fn levels(f: &PlanField, rest: &[Container], rng: &mut Rng, cx: &Context<'_>) -> Bson {
    let Some((level, inner)) = rest.split_first() else {
        return element(f, rng, cx);
    };
    let count = match (level.preallocated, level.bound) {
        (true, Some(m)) => usize::try_from(m).unwrap_or(0),
        (false, Some(m)) => rng.below(usize::try_from(m.min(2)).unwrap_or(2) + 1),
        (_, None) => rng.below(3),
    };
    let item = |rng: &mut Rng| -> Bson {
        if level.nullable && rng.below(4) == 0 {
            Bson::Null
        } else if level.preallocated && inner.is_empty() {
            if f.bson_type == "int" {
                Bson::Int32(0)
            } else {
                Bson::Int64(0)
            }
        } else {
            levels(f, inner, rng, cx)
        }
    };
    match level.kind {
        ContainerKind::Array => Bson::Array((0..count).map(|_| item(rng)).collect()),
        ContainerKind::Map => {
            let mut m = Document::new();
            for i in 0..count {
                m.insert(format!("k{i}"), item(rng));
            }
            Bson::Document(m)
        }
    }
}

/// One innermost value of `f`: an embedded document, an enumeration's value, a number in its
/// range, or a scalar.
fn element(f: &PlanField, rng: &mut Rng, cx: &Context<'_>) -> Bson {
    if f.bson_type == "object" {
        Bson::Document(document_of(&f.children, rng, cx))
    } else if let Some(v) = rng.pick(&f.enum_values) {
        // An enumeration holds one of its values: the validator refuses any other.
        Bson::String(v.clone())
    } else if let Some(range) = &f.range {
        // A range holds values between its bounds: the validator refuses any other.
        ranged(&f.bson_type, range, rng)
    } else if f.flags.counter {
        // A counter is never below 0: the validator refuses any other.
        counted(&f.bson_type, rng)
    } else {
        scalar(&f.bson_type, rng)
    }
}

/// What a document generator needs beyond the fields: the variants of the collection.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The collection, when generating a whole top-level document.
    pub collection: Option<&'a Collection>,
}

/// Whether the field is maintained by a relationship or a pattern rather than declared data.
pub fn maintained(f: &PlanField) -> bool {
    f.relation.is_some()
        || matches!(
            f.kind,
            FieldKind::Ref | FieldKind::RefArray | FieldKind::Denormalized | FieldKind::Computed
        )
        || (f.kind == FieldKind::Pattern && !pattern_data(f))
}

/// Pattern fields that hold declared data: counters and attribute maps (stored as `[{k, v}]`).
pub fn pattern_data(f: &PlanField) -> bool {
    f.kind == FieldKind::Pattern
        && f.array_depth > 0
        && (f.containers.iter().any(|c| c.preallocated)
            || (f.bson_type == "object" && f.children.iter().any(|c| c.name == "k")))
}

/// A document with `fields`: declared data generated, optional fields sometimes absent;
/// relationship and pattern fields skipped.
pub fn document_of(fields: &[PlanField], rng: &mut Rng, cx: &Context<'_>) -> Document {
    let mut out = Document::new();
    let variant = cx
        .collection
        .and_then(|c| c.variants.as_ref())
        .and_then(|v| {
            rng.pick(&v.names)
                .cloned()
                .map(|n| (v.discriminator.clone(), n))
        });
    let inner = Context::default();
    for f in fields {
        if f.name == "_id" {
            continue;
        }
        if let Some((disc, name)) = &variant {
            if f.name == *disc {
                out.insert(disc.clone(), name.clone());
                continue;
            }
            match &f.variant {
                Some(v) if v != name => continue,
                Some(_) => {
                    out.insert(f.name.clone(), value(f, rng, &inner));
                    continue;
                }
                None => {}
            }
        }
        if maintained(f) {
            continue;
        }
        if f.optional && rng.chance(30) {
            continue;
        }
        out.insert(f.name.clone(), value(f, rng, &inner));
    }
    out
}

/// A fresh `_id` of the collection's id type (natural keys are strings or numbers).
pub fn id(c: &Collection, rng: &mut Rng) -> Bson {
    match c.id.bson_type.json_schema_name() {
        "objectId" => Bson::ObjectId(bson::oid::ObjectId::new()),
        "string" => Bson::String(format!("key{}", rng.bits() % 1_000_000)),
        "int" => Bson::Int32(i32::try_from(rng.bits() % 1_000_000).unwrap_or(1)),
        "long" => Bson::Int64(i64::try_from(rng.bits() % 1_000_000).unwrap_or(1)),
        other => scalar(other, rng),
    }
}

/// `{_id: id}`.
pub fn id_filter(id: &Bson) -> Document {
    doc! { "_id": id.clone() }
}
