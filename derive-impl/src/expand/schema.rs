//! The `$jsonSchema` validator derived from the fields: BSON types, required fields, array and
//! map bounds and the declared facts (minimum, pattern, ...).

use serde_json::{json, Map, Value};

use crate::ast::Item;
use crate::types;

/// The validator document, as JSON text.
pub fn derived_validator(item: &Item<'_>) -> String {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in &item.fields {
        if f.attrs.serde_skip || f.attrs.serde_flatten {
            continue;
        }
        let mut p = Map::new();
        if let Some(t) = types::bson_types(f.ty) {
            p.insert(
                "bsonType".into(),
                if t.len() == 1 { json!(t[0]) } else { json!(t) },
            );
        }
        if let Some((_, Some(max))) = &f.bound {
            p.insert("maxItems".into(), json!(max));
        }
        if let Some((_, Some(max))) = &f.attrs.map {
            p.insert("maxProperties".into(), json!(max));
        }
        let facts = &f.attrs.facts;
        if let Some(m) = facts.minimum {
            p.insert("minimum".into(), number(m));
        } else if f.attrs.counter.is_some() {
            // A counter's floor without a declared minimum is 0, as its guarded `dec_` keeps it.
            p.insert("minimum".into(), json!(0));
        }
        if let Some(m) = facts.maximum {
            p.insert("maximum".into(), number(m));
        }
        if let Some(m) = facts.min_length {
            p.insert("minLength".into(), json!(m));
        }
        if let Some(m) = facts.max_length {
            p.insert("maxLength".into(), json!(m));
        }
        if let Some(m) = &facts.pattern {
            p.insert("pattern".into(), json!(m));
        }
        if !facts.one_of.is_empty() {
            p.insert("enum".into(), json!(facts.one_of));
        }
        let optional =
            types::option_inner(f.ty).is_some() || f.attrs.serde_default || f.attrs.serde_skip_if;
        if !optional {
            required.push(json!(f.bson));
        }
        properties.insert(f.bson.clone(), Value::Object(p));
    }
    if let Some((current, min)) = item.schema_version() {
        properties.insert(
            "schema_version".into(),
            json!({ "bsonType": ["int", "long"], "minimum": min, "maximum": current }),
        );
        required.push(json!("schema_version"));
    }
    let schema = json!({
        "$jsonSchema": {
            "bsonType": "object",
            "required": required,
            "properties": properties,
        }
    });
    schema.to_string()
}

fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
