//! Fields and their BSON types.

use serde::Serialize;
use squillion_grammar::Span;

/// The BSON types a field can have (seed 000's list plus decimal128).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum BsonType {
    /// 64-bit float.
    Double,
    /// UTF-8 string.
    String,
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
    /// A geospatial point, stored as the GeoJSON document `{type: "Point", coordinates: [lng, lat]}`
    /// (not a BSON type of its own: the language's one structured scalar).
    Point,
}

impl BsonType {
    /// Every BSON type, in the order of the language reference.
    pub const ALL: [BsonType; 13] = [
        BsonType::Double,
        BsonType::String,
        BsonType::Binary,
        BsonType::ObjectId,
        BsonType::Bool,
        BsonType::Date,
        BsonType::Null,
        BsonType::Regex,
        BsonType::Int32,
        BsonType::Timestamp,
        BsonType::Int64,
        BsonType::Decimal128,
        BsonType::Point,
    ];

    /// The name used in `.sqn` files.
    pub fn sqn_name(self) -> &'static str {
        match self {
            BsonType::Double => "double",
            BsonType::String => "string",
            BsonType::Binary => "binary",
            BsonType::ObjectId => "objectId",
            BsonType::Bool => "bool",
            BsonType::Date => "date",
            BsonType::Null => "null",
            BsonType::Regex => "regex",
            BsonType::Int32 => "int32",
            BsonType::Timestamp => "timestamp",
            BsonType::Int64 => "int64",
            BsonType::Decimal128 => "decimal128",
            BsonType::Point => "point",
        }
    }

    /// The `$jsonSchema` `bsonType` name.
    pub fn json_schema_name(self) -> &'static str {
        match self {
            BsonType::Double => "double",
            BsonType::String => "string",
            BsonType::Binary => "binData",
            BsonType::ObjectId => "objectId",
            BsonType::Bool => "bool",
            BsonType::Date => "date",
            BsonType::Null => "null",
            BsonType::Regex => "regex",
            BsonType::Int32 => "int",
            BsonType::Timestamp => "timestamp",
            BsonType::Int64 => "long",
            BsonType::Decimal128 => "decimal",
            BsonType::Point => "object",
        }
    }

    /// The type named `name` in a `.sqn` file.
    pub fn from_sqn(name: &str) -> Option<BsonType> {
        BsonType::ALL.into_iter().find(|t| t.sqn_name() == name)
    }

    /// Whether a value of this type can be a document's `_id` (a natural key): MongoDB refuses a
    /// regular expression there, and null is no key.
    pub fn can_be_key(self) -> bool {
        !matches!(self, BsonType::Regex | BsonType::Null)
    }

    /// Whether values can be summed, compared as numbers.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            BsonType::Double | BsonType::Int32 | BsonType::Int64 | BsonType::Decimal128
        )
    }

    /// Whether values are ordered (usable by `time_range`, `<`, sorting meaningfully).
    pub fn is_ordered(self) -> bool {
        self.is_numeric()
            || matches!(
                self,
                BsonType::String | BsonType::Date | BsonType::Timestamp | BsonType::ObjectId
            )
    }

    /// Size of the value in BSON, for fixed-size types; `None` for strings, binary, regex.
    pub fn fixed_size(self) -> Option<u64> {
        match self {
            BsonType::Double | BsonType::Date | BsonType::Int64 | BsonType::Timestamp => Some(8),
            BsonType::ObjectId => Some(12),
            BsonType::Bool => Some(1),
            BsonType::Null => Some(0),
            BsonType::Int32 => Some(4),
            BsonType::Decimal128 => Some(16),
            // {type: "Point", coordinates: [lng, lat]}: 4 + (1 + 5 + 10) + (1 + 12 + 27) + 1.
            BsonType::Point => Some(61),
            BsonType::String | BsonType::Binary | BsonType::Regex => None,
        }
    }
}

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FieldType {
    /// A BSON scalar.
    Scalar {
        /// The type.
        bson: BsonType,
    },
    /// An embedded value type.
    Value {
        /// The value type's name.
        name: String,
    },
    /// An array.
    Array {
        /// Element type.
        elem: Box<FieldType>,
        /// Elements may be null.
        elem_optional: bool,
        /// Declared maximum number of elements.
        bound: Option<u64>,
    },
    /// An object whose keys are data.
    Map {
        /// Value type.
        value: Box<FieldType>,
        /// Values may be null (`map<T?>`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        value_optional: bool,
        /// Declared maximum number of entries (`map<T; N>`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bound: Option<u64>,
    },
    /// Preallocated int64 counters, `dims` long in each dimension (`[1440]` or `[24, 60]`).
    Counters {
        /// Dimensions.
        dims: Vec<u32>,
    },
}

impl FieldType {
    /// The scalar BSON type, if this is one.
    pub fn scalar(&self) -> Option<BsonType> {
        match self {
            FieldType::Scalar { bson } => Some(*bson),
            _ => None,
        }
    }

    /// The type as written in a `.sqn` file.
    pub fn sqn(&self) -> String {
        match self {
            FieldType::Scalar { bson } => bson.sqn_name().to_owned(),
            FieldType::Value { name } => name.clone(),
            FieldType::Array {
                elem,
                elem_optional,
                bound,
            } => {
                let q = if *elem_optional { "?" } else { "" };
                match bound {
                    Some(b) => format!("[{}{q}; {b}]", elem.sqn()),
                    None => format!("[{}{q}]", elem.sqn()),
                }
            }
            FieldType::Map {
                value,
                value_optional,
                bound,
            } => {
                let q = if *value_optional { "?" } else { "" };
                match bound {
                    Some(b) => format!("map<{}{q}; {b}>", value.sqn()),
                    None => format!("map<{}{q}>", value.sqn()),
                }
            }
            FieldType::Counters { dims } => {
                let d: Vec<String> = dims.iter().map(u32::to_string).collect();
                format!("counters({})", d.join(" x "))
            }
        }
    }
}

/// Facts declared on a field with attributes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FieldFacts {
    /// `@key`: the natural key, stored as `_id`.
    pub key: bool,
    /// `@unique`.
    pub unique: bool,
    /// `@index`.
    pub indexed: bool,
    /// `@ignore_case`: looked up case-insensitively.
    pub ignore_case: bool,
    /// `@immutable` (also implied by `@key`).
    pub immutable: bool,
    /// `@sensitive`: never shown in samples.
    pub sensitive: bool,
    /// `@seldom_read`.
    pub seldom_read: bool,
    /// `@payload`: stored, never queried.
    pub payload: bool,
    /// `@attributes`: open-ended attributes (a map stored as `[{k, v}]`).
    pub attributes: bool,
    /// `@counter`: a number changed by increments and guarded decrements, never below 0.
    pub counter: bool,
    /// `@large(size)`: a large value, bytes.
    pub large_bytes: Option<u64>,
    /// `@size(size)`: average size of the value, bytes.
    pub size_bytes: Option<u64>,
    /// `@updates(rate)`: updates per day.
    pub updates_per_day: Option<f64>,
    /// `@expires(duration)`: TTL, seconds.
    pub expires_after_seconds: Option<u64>,
    /// `one_of("new", "paid")`: the values a string field (or each string of an array or map
    /// field) takes, in the order declared; empty when the field is not an enumeration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_of: Vec<String>,
    /// `@range(min, max)`: the smallest and largest value of a number (or of each number of an
    /// array or map field), both included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<NumberRange>,
}

/// The inclusive bounds of a number field, `@range(min, max)`, exact as written (a whole number
/// stays an integer, so every `int64` bound is exact).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct NumberRange {
    /// The smallest value allowed.
    pub min: serde_json::Number,
    /// The largest value allowed.
    pub max: serde_json::Number,
}

impl NumberRange {
    /// The bounds as `f64`, for comparisons and generated Rust literals.
    pub fn as_f64(&self) -> (f64, f64) {
        (
            self.min.as_f64().unwrap_or(f64::NEG_INFINITY),
            self.max.as_f64().unwrap_or(f64::INFINITY),
        )
    }
}

/// A field of an entity, value type, variant or relationship.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The name used in code.
    pub name: String,
    /// The name stored in BSON (`@stored`, `_id` for a natural key).
    pub bson_name: String,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// Its type.
    pub ty: FieldType,
    /// May be absent.
    pub optional: bool,
    /// Declared facts.
    pub facts: FieldFacts,
    /// The field's declaration.
    pub span: Span,
}
