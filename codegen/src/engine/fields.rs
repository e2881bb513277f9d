//! Building [`PlanField`]s: from declared fields, and for references, copies and pattern fields.

use super::context::Ctx;
use crate::model::{BsonType, Field, FieldType, Identity, Model};
use crate::plan::{Container, FieldFlags, FieldKind, PlanField, SizeEstimate};

/// A field of `kind` named `name` at `prefix.name`.
pub(crate) fn new_field(prefix: &str, name: &str, kind: FieldKind, bson_type: &str) -> PlanField {
    PlanField {
        name: name.to_owned(),
        path: join(prefix, name),
        code_name: name.to_owned(),
        kind,
        bson_type: bson_type.to_owned(),
        containers: Vec::new(),
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
        out.type_name = Some(format!("{}Attribute", pascal(&field.name)));
        let path = out.path.clone();
        let mut k = new_field(&path, "k", FieldKind::Scalar, "string");
        k.code_name = "k".to_owned();
        // A bounded map (`map<T; N> @attributes`) is a bounded array of its entries; a value the
        // map may hold as null (`map<T?>`) is a `v` that may be null.
        let (value_type, value_optional, bound) = match &field.ty {
            FieldType::Map {
                value,
                value_optional,
                bound,
            } => ((**value).clone(), *value_optional, *bound),
            other => (other.clone(), false, None),
        };
        out.set_array(bound);
        out.typical_items = bound.map(|n| super::size::map_entries(Some(n)).0);
        let mut v = shape_of(model, &value_type, &path, "v", depth + 1);
        v.code_name = "v".to_owned();
        v.optional = value_optional;
        out.children = vec![k, v];
        return out;
    }
    let shaped = shape_of(model, &field.ty, prefix, &field.bson_name, depth);
    out.kind = shaped.kind;
    out.bson_type = shaped.bson_type;
    out.containers = shaped.containers;
    out.summarise_containers();
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
            coordinates.set_array(Some(2));
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
        // A container level goes outside the levels of its elements (values).
        FieldType::Array {
            elem,
            elem_optional,
            bound,
        } => {
            out = shape_of(model, elem, prefix, name, depth);
            let level = Container {
                nullable: *elem_optional,
                ..Container::array(*bound)
            };
            out.containers.insert(0, level);
        }
        FieldType::Map {
            value,
            value_optional,
            bound,
        } => {
            out = shape_of(model, value, prefix, name, depth);
            let level = Container {
                nullable: *value_optional,
                ..Container::map(*bound)
            };
            out.containers.insert(0, level);
        }
        FieldType::Counters { dims } => {
            out.kind = FieldKind::Pattern;
            out.bson_type = "long".to_owned();
            out.containers = counter_dims(dims)
                .into_iter()
                .map(|d| Container {
                    preallocated: true,
                    ..Container::array(Some(d))
                })
                .collect();
        }
    }
    out.summarise_containers();
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
