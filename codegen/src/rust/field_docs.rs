//! The doc line of a generated field the schema does not document: what it holds, its shape
//! and who maintains it.

use super::field_attrs;
use crate::plan::{ContainerKind, PlanField};

/// The doc line of a field the schema does not document: what it holds and who maintains it.
pub(super) fn default_doc(f: &PlanField) -> String {
    use crate::plan::FieldKind;
    let optional = if f.optional { ", optional" } else { "" };
    match f.kind {
        _ if f.name == "_id" => "The document's id (`_id`).".to_owned(),
        _ if f.is_map() => match f.max_entries {
            Some(n) => format!(
                "`{}`: a map whose keys are data, at most {n} entries (`map(max = {n})`:                  `set_{}_entry` refuses a new key when it is full){optional}.",
                f.name, f.code_name
            ),
            None => format!("`{}`: a map whose keys are data{optional}.", f.name),
        },
        FieldKind::Ref | FieldKind::RefArray if f.name == "id" => {
            "The id of the referenced document.".to_owned()
        }
        FieldKind::Ref => format!("`{}`: a reference (id){optional}.", f.name),
        FieldKind::RefArray => format!("`{}`: references (ids){optional}.", f.name),
        FieldKind::Computed => format!(
            "`{}`: computed, kept up to date by every write that changes what it summarises.",
            f.name
        ),
        _ if f.attributes_value().is_some() => field_attrs::attributes_doc(f),
        FieldKind::Pattern if f.is_counters() => {
            let dims: Vec<String> = f
                .containers
                .iter()
                .filter_map(|c| c.bound)
                .map(|b| b.to_string())
                .collect();
            format!(
                "`{}`: preallocated counters ({}), all zero at insert; `inc_{}` adds to one.",
                f.name,
                dims.join(" x "),
                f.code_name
            )
        }
        FieldKind::Pattern => format!(
            "`{}`: maintained by the repository for the collection's pattern.",
            f.name
        ),
        FieldKind::Denormalized => format!("`{}`: a copy kept in step with its source.", f.name),
        FieldKind::Embedded => format!("`{}`: an embedded document{optional}.", f.name),
        FieldKind::Scalar if f.is_geo_point() => format!(
            "`{}`: a geospatial point, stored as GeoJSON{optional}.",
            f.name
        ),
        FieldKind::Scalar if f.containers.is_empty() => {
            format!("`{}` (BSON `{}`{optional}).", f.name, f.bson_type)
        }
        FieldKind::Scalar => format!(
            "`{}` (BSON `{}` values in `{}`{optional}).",
            f.name,
            f.bson_type,
            container_shape(f)
        ),
    }
}

/// The field's container levels as the schema language writes them, `_` for the value:
/// `[map<_?; 2>]`.
fn container_shape(f: &PlanField) -> String {
    let mut shape = "_".to_owned();
    for level in f.containers.iter().rev() {
        let q = if level.nullable { "?" } else { "" };
        let bound = level.bound.map(|n| format!("; {n}")).unwrap_or_default();
        shape = match level.kind {
            ContainerKind::Array => format!("[{shape}{q}{bound}]"),
            ContainerKind::Map => format!("map<{shape}{q}{bound}>"),
        };
    }
    shape
}
