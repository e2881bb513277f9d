//! The `$jsonSchema` validator of a planned collection, derived from its fields only.
//!
//! `bsonType`, `required` (non-optional fields), `properties`, `maxItems` from bounds (each nested
//! array level, in the order the field's containers nest), `maxProperties` from a map's bound,
//! null where elements or values may be null (`[T?]`, `map<T?>`), `enum` for discriminators and enumerations (`one_of`), `minimum: 0` for counters,
//! `minimum`/`maximum` for ranges (`@range`), `additionalProperties` left open so that older and
//! newer schema versions can coexist (schema versioning, seed 002).

use serde_json::{json, Map, Value};

use crate::plan::{Collection, ContainerKind, FieldKind, PlanField};

/// The validator document: `{"$jsonSchema": {...}}`.
pub fn validator(collection: &Collection) -> Value {
    json!({ "$jsonSchema": document_schema(collection) })
}

/// The validator of the new shape while a migration moves documents into it: the same, but the
/// values the migration fills after a document takes the new shape (copies, values computed from
/// children) are not required yet. A document the online mode's writes gave the new shape in
/// place, before the backfill reached it, is then a valid document.
pub fn filling_validator(collection: &Collection) -> Value {
    json!({ "$jsonSchema": schema(collection, Required::Filled) })
}

/// Which fields a schema requires.
#[derive(Clone, Copy, PartialEq)]
enum Required {
    /// Every field that is not optional.
    All,
    /// Those, less copies and computed values (filled by a migration after the shape changes).
    Filled,
}

/// The `$jsonSchema` of one collection's documents.
pub fn document_schema(collection: &Collection) -> Value {
    schema(collection, Required::All)
}

fn schema(collection: &Collection, required: Required) -> Value {
    let mut schema = object_schema(&collection.fields, required);
    if let (Some(v), Some(obj)) = (&collection.variants, schema.as_object_mut()) {
        if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert(
                v.discriminator.clone(),
                json!({ "bsonType": "string", "enum": v.names }),
            );
        }
    }
    if let Some(obj) = schema.as_object_mut() {
        obj.insert(
            "title".to_owned(),
            Value::String(format!("{} documents", collection.name)),
        );
    }
    schema
}

fn object_schema(fields: &[PlanField], which: Required) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        properties.insert(f.name.clone(), field_schema(f, which));
        let filled_later = matches!(f.kind, FieldKind::Denormalized | FieldKind::Computed);
        if !f.optional && f.variant.is_none() && !(which == Required::Filled && filled_later) {
            required.push(Value::String(f.name.clone()));
        }
    }
    let mut obj = Map::new();
    obj.insert("bsonType".to_owned(), json!("object"));
    if !required.is_empty() {
        obj.insert("required".to_owned(), Value::Array(required));
    }
    obj.insert("properties".to_owned(), Value::Object(properties));
    Value::Object(obj)
}

/// A GeoJSON point, as a `2dsphere` index accepts it: `{type: "Point", coordinates: [lng, lat]}`
/// with coordinates in [-180, 180] (the `2dsphere` index refuses latitudes beyond [-90, 90]).
fn geo_point_schema() -> Value {
    let number = json!(["double", "int", "long", "decimal"]);
    json!({
        "bsonType": "object",
        "required": ["type", "coordinates"],
        "properties": {
            "type": { "enum": ["Point"] },
            "coordinates": {
                "bsonType": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": { "bsonType": number, "minimum": -180, "maximum": 180 }
            }
        }
    })
}

fn field_schema(f: &PlanField, which: Required) -> Value {
    let mut value = if f.is_geo_point() {
        geo_point_schema()
    } else if f.bson_type == "object" && !f.recursive {
        object_schema(&f.children, which)
    } else if f.bson_type == "object" {
        json!({ "bsonType": "object" })
    } else if !f.enum_values.is_empty() {
        json!({ "bsonType": f.bson_type, "enum": f.enum_values })
    } else if let Some(range) = &f.range {
        // `@range(min, max)`: the server refuses any write outside it (a counter's range starts
        // at 0 or more, so its floor is kept too).
        json!({ "bsonType": f.bson_type, "minimum": range.min, "maximum": range.max })
    } else if f.flags.counter {
        // A counter never goes below 0: the repository's guarded decrements keep it there, and
        // the server refuses any other write that would.
        json!({ "bsonType": f.bson_type, "minimum": 0 })
    } else {
        json!({ "bsonType": f.bson_type })
    };
    // Container levels, innermost first: each wraps the schema of its elements (values).
    for level in f.containers.iter().rev() {
        if level.nullable {
            value = nullable(value);
        }
        value = match (level.kind, level.bound) {
            (ContainerKind::Array, Some(n)) => {
                json!({ "bsonType": "array", "maxItems": n, "items": value })
            }
            (ContainerKind::Array, None) => json!({ "bsonType": "array", "items": value }),
            // A bounded map (`map<T; N>`): the server refuses a document with more entries.
            (ContainerKind::Map, Some(n)) => {
                json!({ "bsonType": "object", "maxProperties": n, "additionalProperties": value })
            }
            (ContainerKind::Map, None) => {
                json!({ "bsonType": "object", "additionalProperties": value })
            }
        };
    }
    if f.optional {
        value = nullable(value);
    }
    if let Some(doc) = f.docs.first() {
        if let Some(obj) = value.as_object_mut() {
            let mut d = doc.clone();
            if d.len() > 200 {
                let cut = d.char_indices().nth(200).map(|(i, _)| i).unwrap_or(d.len());
                d.truncate(cut);
                d.push_str("...");
            }
            obj.insert("description".to_owned(), Value::String(d));
        }
    }
    value
}

/// `schema` that also accepts null: its `bsonType` gains `"null"`, and an enumeration's `enum`
/// (which lists every value the field may hold) gains null too.
fn nullable(mut schema: Value) -> Value {
    if let Some(obj) = schema.as_object_mut() {
        if let Some(t) = obj.get("bsonType").cloned() {
            obj.insert("bsonType".to_owned(), json!([t, "null"]));
        }
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.push(Value::Null);
        }
    }
    schema
}
