//! The words of the audit's data findings, in one place: the detail sentence of a data finding
//! and the help line of every finding, made from the finding's data (the invariant the Plan
//! states, the documents compared, the first mismatch).

use squillion_codegen::plan::Shape;

use super::checks::{Finding, FindingKind};
use super::drift::{Drift, Invariant, Mismatch};

/// A value as the report shows it: as mongosh writes it, `nothing` when absent.
fn show(v: Option<&serde_json::Value>) -> String {
    v.map_or_else(|| "nothing".to_owned(), shell)
}

/// A value (relaxed extended JSON) as mongosh takes it: `ObjectId("...")`, `ISODate("...")`,
/// `NumberLong("...")`, `NumberDecimal("...")`, documents and arrays element by element.
pub fn shell(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Object(m) if m.len() == 1 => {
            let (k, inner) = m.iter().next().map_or(("", v), |(k, x)| (k.as_str(), x));
            let wrap = |name: &str| {
                let text = match inner {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => o
                        .get("$numberLong")
                        .and_then(Value::as_str)
                        .map_or_else(|| inner.to_string(), |ms| ms.to_owned()),
                    other => other.to_string(),
                };
                format!("{name}({})", Value::String(text))
            };
            match k {
                "$oid" => wrap("ObjectId"),
                "$date" if inner.is_string() => wrap("ISODate"),
                "$date" => wrap("new Date"),
                "$numberLong" => wrap("NumberLong"),
                "$numberDecimal" => wrap("NumberDecimal"),
                _ => object(m),
            }
        }
        Value::Object(m) => object(m),
        Value::Array(items) => {
            let each: Vec<String> = items.iter().map(shell).collect();
            format!("[{}]", each.join(", "))
        }
        other => other.to_string(),
    }
}

fn object(m: &serde_json::Map<String, serde_json::Value>) -> String {
    let each: Vec<String> = m
        .iter()
        .map(|(k, v)| format!("{}: {}", key(k), shell(v)))
        .collect();
    format!("{{{}}}", each.join(", "))
}

/// `3 of 40 sampled documents`.
fn of_checked(f: &Finding, d: &Drift) -> String {
    let noun = if d.checked == 1 {
        "document"
    } else {
        "documents"
    };
    format!("{} of {} sampled {noun}", f.count, d.checked)
}

/// The detail of a data finding.
pub fn detail(f: &Finding) -> String {
    let Some(d) = &f.drift else {
        return f.detail.clone();
    };
    let Some(m) = d.examples.first() else {
        return String::new();
    };
    let path = f.path.as_deref().unwrap_or_default();
    let (id, found, expected) = (
        show(Some(&m.id)),
        show(m.found.as_ref()),
        show(m.expected.as_ref()),
    );
    let from = show(m.from.as_ref());
    let counted = of_checked(f, d);
    match (&d.invariant, f.kind) {
        (
            Invariant::Copy {
                source,
                source_collection,
                ..
            },
            _,
        ) => format!(
            "{counted} hold a copy of {source} that differs from its source (e.g. {id} holds \
             {found} where {source_collection} {from} holds {expected})"
        ),
        (
            Invariant::Subset {
                n,
                sort_by,
                descending,
                children,
                ..
            },
            FindingKind::WrongSubset,
        ) => format!(
            "{counted} do not keep their first {n} children of {children} by {sort_by} {} \
             (e.g. {id} keeps {sort_by} {found} where its children give {expected})",
            order(*descending)
        ),
        (Invariant::Subset { children, .. }, _) => format!(
            "{counted} keep a copy in `{path}` that differs from the child of {children} it \
             copies (e.g. {id} keeps {found} where child {from} gives {expected})"
        ),
        (
            Invariant::Summary {
                function,
                field,
                of,
                ..
            },
            _,
        ) => format!(
            "{counted} hold a {function}{} that is not the aggregate of {of} (e.g. {id} holds \
             {found} where {of} gives {expected})",
            field
                .as_deref()
                .map(|x| format!(" of {x}"))
                .unwrap_or_default()
        ),
        (
            Invariant::TwoWay {
                other_collection,
                other_path,
                ..
            },
            _,
        ) => format!(
            "{counted} name a document of {other_collection} whose `{other_path}` does not name \
             them back (e.g. {id} names {from}, whose `{other_path}` holds {found})"
        ),
    }
}

fn order(descending: bool) -> &'static str {
    if descending {
        "descending"
    } else {
        "ascending"
    }
}

/// A JSON object's key as mongosh takes it.
fn key(path: &str) -> String {
    serde_json::Value::String(path.to_owned()).to_string()
}

/// What to do about a finding.
pub fn help(f: &Finding) -> Option<String> {
    let c = &f.collection;
    let path = f.path.as_deref().unwrap_or_default();
    let example = f
        .drift
        .as_ref()
        .and_then(|d| d.examples.first())
        .cloned()
        .unwrap_or_else(|| Mismatch {
            id: serde_json::Value::String("<_id>".to_owned()),
            from: None,
            found: None,
            expected: None,
        });
    let id = show(Some(&example.id));
    let from = example
        .from
        .as_ref()
        .map_or_else(|| "<id>".to_owned(), shell);
    let expected = example
        .expected
        .as_ref()
        .filter(|v| v.as_str() != Some("(sensitive)"))
        .map_or_else(|| "<value>".to_owned(), shell);
    Some(match (f.kind, f.drift.as_ref().map(|d| &d.invariant)) {
        (
            FindingKind::StaleCopy,
            Some(Invariant::Copy {
                source, fan_out, ..
            }),
        ) => {
            let filters = if fan_out.array_filters.is_empty() {
                String::new()
            } else {
                let each: Vec<String> = fan_out
                    .array_filters
                    .iter()
                    .map(|p| format!("{{{}: {from}}}", key(p)))
                    .collect();
                format!(", {{arrayFilters: [{}]}}", each.join(", "))
            };
            format!(
                "update {source} through its repository (the generated update rewrites every \
                 copy), or repair the copies of one source: db.{}.updateMany({{{}: {from}}}, \
                 {{$set: {{{}: {expected}}}}}{filters})",
                fan_out.collection,
                key(&fan_out.match_path),
                key(&fan_out.set_path)
            )
        }
        (
            FindingKind::WrongSubset | FindingKind::StaleSubset,
            Some(Invariant::Subset {
                n,
                sort_by,
                descending,
                children,
                back,
                named,
                kept,
                ..
            }),
        ) => {
            let filter = match (back, named) {
                (Some(back), _) => format!("{{{}: {id}}}", key(back)),
                (None, named) => format!(
                    "{{_id: {{$in: db.{c}.findOne({{_id: {id}}}).{}}}}}",
                    named.as_deref().unwrap_or_default()
                ),
            };
            let mut projection: Vec<String> =
                kept.iter().map(|k| format!("{}: 1", key(k))).collect();
            if !kept.iter().any(|k| k == "_id") {
                projection.insert(0, "_id: 0".to_owned());
            }
            format!(
                "add and remove children through the generated repository (it keeps the list in \
                 step), or rebuild one parent's list: db.{c}.updateOne({{_id: {id}}}, {{$set: \
                 {{{}: db.{children}.find({filter}, {{{}}}).sort({{{}: {}}}).limit({n}).toArray()}}}})",
                key(path),
                projection.join(", "),
                key(sort_by),
                if *descending { -1 } else { 1 }
            )
        }
        (FindingKind::WrongSummary, Some(Invariant::Summary { of, .. })) => format!(
            "add and remove children through the generated repository (it maintains the summary \
             in the same write), or set it to the aggregate of {of}: db.{c}.updateOne({{_id: \
             {id}}}, {{$set: {{{}: {expected}}}}})",
            key(path)
        ),
        (
            FindingKind::BrokenLink,
            Some(Invariant::TwoWay {
                other_collection,
                other_path,
                other_shape,
                shape,
                ..
            }),
        ) => {
            let relink = match other_shape {
                Shape::ArrayOfIds => format!(
                    "db.{other_collection}.updateOne({{_id: {from}}}, {{$addToSet: {{{}: {id}}}}})",
                    key(other_path)
                ),
                Shape::Id => format!(
                    "db.{other_collection}.updateOne({{_id: {from}}}, {{$set: {{{}: {id}}}}})",
                    key(other_path)
                ),
                _ => "the generated repository's link method".to_owned(),
            };
            let drop = match shape {
                Shape::ArrayOfIds => format!(
                    ", or drop the half link: db.{c}.updateOne({{_id: {id}}}, {{$pull: {{{}: \
                     {from}}}}})",
                    key(path)
                ),
                _ => String::new(),
            };
            format!(
                "link and unlink through the generated repository (it writes both sides in one \
                 transaction); name it back with {relink}{drop}"
            )
        }
        (FindingKind::ArrayOverBound, _) => {
            "raise the bound in the schema (squillion plan shows the layout it then gets) or \
             move the extra elements elsewhere"
                .to_owned()
        }
        (FindingKind::MapOverBound, _) => {
            "raise the map's bound in the schema, or remove the extra entries through the \
             generated repository (remove_<field>_entry)"
                .to_owned()
        }
        (FindingKind::DocumentSize, _) => "move large or growing fields out of these documents: \
             @large or @payload fields, or a relationship referenced instead of embedded"
            .to_owned(),
        (FindingKind::MissingIndex | FindingKind::MissingCollection, _) => {
            "squillion indexes --apply creates it".to_owned()
        }
        (FindingKind::UnknownField, _) if !path.contains('.') => format!(
            "declare `{path}` in the schema, or remove it: db.{c}.updateMany({{{}: {{$exists: \
             true}}}}, {{$unset: {{{}: \"\"}}}})",
            key(path),
            key(path)
        ),
        (FindingKind::UnknownField, _) => {
            format!("declare `{path}` in the schema, or remove it from the documents")
        }
        (FindingKind::OldSchemaVersion, _) => "rewrite these documents at the current schema \
             version (a migration through the generated repository)"
            .to_owned(),
        (FindingKind::DanglingReference, _) => {
            "restore the documents named, or remove the references to them".to_owned()
        }
        (FindingKind::LayoutDiffers, _) => "migrate the data to the planned layout, or `force` \
             the layout the data has on the relationship"
            .to_owned(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::{doc, oid::ObjectId, Bson, DateTime};

    #[test]
    fn values_are_written_as_mongosh_takes_them() {
        let id = ObjectId::new();
        let v = Bson::Document(doc! {
            "id": id,
            "at": DateTime::from_millis(0),
            "n": 3_i64,
            "d": Bson::Decimal128("1.5".parse().unwrap()),
            "tags": ["a", 1],
        })
        .into_relaxed_extjson();
        assert_eq!(
            shell(&v),
            format!(
                "{{\"id\": ObjectId(\"{}\"), \"at\": ISODate(\"1970-01-01T00:00:00Z\"), \"n\": 3, \
                 \"d\": NumberDecimal(\"1.5\"), \"tags\": [\"a\", 1]}}",
                id.to_hex()
            )
        );
    }
}
