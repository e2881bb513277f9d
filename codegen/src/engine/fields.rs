//! Building [`PlanField`]s: from declared fields, and for references, copies and pattern fields.

use super::context::Ctx;
use crate::model::{BsonType, Field, FieldType, Identity, Model};
use crate::plan::{FieldFlags, FieldKind, PlanField, SizeEstimate};

/// A field of `kind` named `name` at `prefix.name`.
pub(crate) fn new_field(prefix: &str, name: &str, kind: FieldKind, bson_type: &str) -> PlanField {
    PlanField {
        name: name.to_owned(),
        path: join(prefix, name),
        code_name: name.to_owned(),
        kind,
        bson_type: bson_type.to_owned(),
        array_depth: 0,
        max_items: None,
        typical_items: None,
        inner_dims: Vec::new(),
        map: false,
        max_entries: None,
        optional: false,
        type_name: None,
        enum_values: Vec::new(),
        range: None,
        children: Vec::new(),
        recursive: false,
        source: None,
        relation: None,
        variant: None,
        flags: FieldFlags::default(),
        docs: Vec::new(),
        size: SizeEstimate::default(),
    }
}

pub(crate) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Re-roots a field (and its children) under `prefix`.
pub(crate) fn reroot(field: &mut PlanField, prefix: &str) {
    field.path = join(prefix, &field.name);
    let path = field.path.clone();
    for child in &mut field.children {
        reroot(child, &path);
    }
}

/// The BSON type of an entity's `_id`.
pub(crate) fn id_type(ctx: &Ctx<'_>, entity: &str) -> BsonType {
    match ctx.entity(entity).map(|e| &e.identity) {
        Some(Identity::Natural { bson_type, .. }) => *bson_type,
        _ => BsonType::ObjectId,
    }
}

/// A declared field as a plan field. Value types are expanded (the model has no cycles).
pub(crate) fn declared(model: &Model, field: &Field, prefix: &str, depth: usize) -> PlanField {
    let mut out = new_field(prefix, &field.bson_name, FieldKind::Scalar, "");
    out.code_name = field.name.clone();
    out.optional = field.optional;
    out.docs = field.docs.clone();
    out.flags = FieldFlags {
        sensitive: field.facts.sensitive,
        payload: field.facts.payload,
        immutable: field.facts.immutable,
        large: field.facts.large_bytes.is_some(),
        seldom_read: field.facts.seldom_read,
        unique: field.facts.unique && !field.facts.key,
        indexed: field.facts.indexed,
        ignore_case: field.facts.ignore_case,
        expire_after_seconds: field.facts.expires_after_seconds,
        counter: field.facts.counter,
    };
    out.size = SizeEstimate {
        average: field
            .facts
            .size_bytes
            .or(field.facts.large_bytes)
            .unwrap_or(0),
        worst: field
            .facts
            .large_bytes
            .or(field.facts.size_bytes.map(|s| s.saturating_mul(4))),
    };
    if field.facts.attributes {
        // Attribute pattern: a map of open-ended attributes is stored as [{k, v}].
        out.kind = FieldKind::Pattern;
        out.bson_type = "object".to_owned();
        out.array_depth = 1;
        out.type_name = Some(format!("{}Attribute", pascal(&field.name)));
        let path = out.path.clone();
        let mut k = new_field(&path, "k", FieldKind::Scalar, "string");
        k.code_name = "k".to_owned();
        // A bounded map (`map<T; N> @attributes`) is a bounded array of its entries.
        let (value_type, bound) = match &field.ty {
            FieldType::Map { value, bound } => ((**value).clone(), *bound),
            other => (other.clone(), None),
        };
        out.max_items = bound;
        out.typical_items = bound.map(|n| super::size::map_entries(Some(n)).0);
        let mut v = shape_of(model, &value_type, &path, "v", depth + 1);
        v.code_name = "v".to_owned();
        out.children = vec![k, v];
        return out;
    }
    let shaped = shape_of(model, &field.ty, prefix, &field.bson_name, depth);
    out.kind = shaped.kind;
    out.bson_type = shaped.bson_type;
    out.array_depth = shaped.array_depth;
    out.max_items = shaped.max_items;
    out.inner_dims = shaped.inner_dims;
    out.map = shaped.map;
    out.max_entries = shaped.max_entries;
    out.type_name = shaped.type_name;
    out.children = shaped.children;
    if out.bson_type == "string" {
        out.enum_values = field.facts.one_of.clone();
    }
    // The resolver keeps a range only on numbers (or arrays and maps of them).
    out.range = field.facts.range.clone();
    out
}

/// The shape of a value of type `ty` stored as `name` under `prefix`.
fn shape_of(model: &Model, ty: &FieldType, prefix: &str, name: &str, depth: usize) -> PlanField {
    let mut out = new_field(prefix, name, FieldKind::Scalar, "");
    match ty {
        FieldType::Scalar {
            bson: BsonType::Point,
        } => {
            out.bson_type = "object".to_owned();
            out.type_name = Some(crate::plan::GEO_POINT.to_owned());
            let path = out.path.clone();
            let kind = new_field(&path, "type", FieldKind::Scalar, "string");
            let mut coordinates = new_field(&path, "coordinates", FieldKind::Scalar, "double");
            coordinates.array_depth = 1;
            coordinates.max_items = Some(2);
            out.children = vec![kind, coordinates];
        }
        FieldType::Scalar { bson } => out.bson_type = bson.json_schema_name().to_owned(),
        FieldType::Value { name: value } => {
            out.kind = FieldKind::Embedded;
            out.bson_type = "object".to_owned();
            out.type_name = Some(value.clone());
            // The resolver refuses deeper nesting (E0320): nothing is ever cut here.
            if depth < crate::model::MAX_VALUE_NESTING {
                if let Some(v) = model.value(value) {
                    let path = out.path.clone();
                    out.children = v
                        .fields
                        .iter()
                        .map(|f| declared(model, f, &path, depth + 1))
                        .collect();
                }
            }
        }
        FieldType::Array { elem, bound, .. } => {
            let inner = shape_of(model, elem, prefix, name, depth);
            out = inner;
            out.array_depth += 1;
            if out.array_depth > 1 {
                if let Some(m) = out.max_items {
                    out.inner_dims.insert(0, m);
                }
            }
            out.max_items = *bound;
        }
        FieldType::Map { value, bound } => {
            let inner = shape_of(model, value, prefix, name, depth);
            out = inner;
            out.map = true;
            out.max_entries = *bound;
        }
        FieldType::Counters { dims } => {
            out.kind = FieldKind::Pattern;
            out.bson_type = "long".to_owned();
            let dims = counter_dims(dims);
            out.array_depth = dims.len().min(255) as u8;
            out.max_items = dims.first().copied();
            out.inner_dims = dims.iter().skip(1).copied().collect();
        }
    }
    out
}

/// Counter dimensions as stored: a flat run of more than 200 counters is split in two levels
/// (seed 002: 24 x 60, not 1,440).
pub(crate) fn counter_dims(dims: &[u32]) -> Vec<u64> {
    let dims: Vec<u64> = dims.iter().map(|&d| u64::from(d)).collect();
    match dims.as_slice() {
        [n] if *n > 200 => {
            let n = *n;
            if n % 60 == 0 && n / 60 <= 200 {
                vec![n / 60, 60]
            } else {
                let mut best = (1, n);
                let mut a = 2;
                while a * a <= n {
                    if n % a == 0 && a + n / a < best.0 + best.1 {
                        best = (a, n / a);
                    }
                    a += 1;
                }
                if best.0 == 1 {
                    vec![n]
                } else {
                    vec![best.0, best.1]
                }
            }
        }
        _ => dims,
    }
}

/// `PascalCase` of a snake or camel name.
pub(crate) fn pascal(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A reference to `target` (its `_id` type), named `name`.
pub(crate) fn reference(ctx: &Ctx<'_>, prefix: &str, name: &str, target: &str) -> PlanField {
    let mut f = new_field(
        prefix,
        name,
        FieldKind::Ref,
        id_type(ctx, target).json_schema_name(),
    );
    f.source = Some(target.to_owned());
    f
}

/// A plain id (or array of ids) becomes `{id, ...}` (or an array of them), ready to carry copies
/// (extended reference) or the relationship's own fields. A reference that is already a document
/// is left as it is.
pub(crate) fn extend_reference(field: &mut PlanField, target: &str) {
    if field.bson_type == "object" {
        return;
    }
    let id_type = field.bson_type.clone();
    let mut id = new_field(&field.path, "id", FieldKind::Ref, &id_type);
    id.code_name = "id".to_owned();
    id.source = Some(target.to_owned());
    field.bson_type = "object".to_owned();
    field.type_name = Some(format!("{}Ref", target));
    field.children = vec![id];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_day_of_minutes_becomes_24_by_60() {
        assert_eq!(counter_dims(&[1440]), vec![24, 60]);
        assert_eq!(counter_dims(&[24, 60]), vec![24, 60]);
        assert_eq!(counter_dims(&[100]), vec![100]);
        assert_eq!(counter_dims(&[1000]), vec![25, 40]);
    }

    #[test]
    fn pascal_names() {
        assert_eq!(pascal("attrs"), "Attrs");
        assert_eq!(pascal("product_attrs"), "ProductAttrs");
    }
}
