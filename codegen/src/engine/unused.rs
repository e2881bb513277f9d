//! W128, unused value types: a `value` declared in the schema that no stored field uses. A value
//! has no collection of its own; it exists only inside the documents whose fields have its type,
//! so a value no field reaches describes nothing the database holds, and no Rust type is
//! generated for it.
//!
//! A value is used when a field of an entity (its common fields or a variant's), or a
//! relationship's own `fields { }`, has its type: directly, as an array's element, as a map's
//! value, optional or not. A value used by a used value is used too, through any number of values.
//! A value used only by values nothing uses is unused, like them.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{FieldType, Model, ValueType};

/// A value type that no stored field uses, with the unused values whose fields use it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UnusedValue<'m> {
    /// The declaration.
    pub value: &'m ValueType,
    /// The other unused value types that have a field of this type, in declaration order
    /// (empty when no field anywhere uses it).
    pub used_by: Vec<&'m str>,
}

/// The value types of `model` that no entity, variant or relationship reaches through its
/// fields, in declaration order.
pub(crate) fn find(model: &Model) -> Vec<UnusedValue<'_>> {
    if model.values.is_empty() {
        return Vec::new();
    }
    let roots = model
        .entities
        .iter()
        .flat_map(|e| e.all_fields())
        .chain(model.relations.iter().flat_map(|r| r.fields.iter()));
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut pending: Vec<&str> = Vec::new();
    for f in roots {
        reach(&f.ty, &mut used, &mut pending);
    }
    while let Some(name) = pending.pop() {
        // A name that resolves to no value is left out: validation reports unknown types.
        if let Some(v) = model.value(name) {
            for f in &v.fields {
                reach(&f.ty, &mut used, &mut pending);
            }
        }
    }
    let unused: Vec<&ValueType> = model
        .values
        .iter()
        .filter(|v| !used.contains(v.name.as_str()))
        .collect();
    // Which unused values name each unused value, from one walk of their fields.
    let mut users: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for v in &unused {
        let mut named = BTreeSet::new();
        let mut ignored = Vec::new();
        for f in &v.fields {
            reach(&f.ty, &mut named, &mut ignored);
        }
        for n in named {
            users.entry(n).or_default().push(v.name.as_str());
        }
    }
    unused
        .into_iter()
        .map(|v| UnusedValue {
            value: v,
            used_by: users.remove(v.name.as_str()).unwrap_or_default(),
        })
        .collect()
}

/// Marks the value types `ty` names (inside arrays and maps too) as used, queueing the newly
/// used ones so that their fields are walked.
fn reach<'m>(ty: &'m FieldType, used: &mut BTreeSet<&'m str>, pending: &mut Vec<&'m str>) {
    match ty {
        FieldType::Value { name } => {
            if used.insert(name.as_str()) {
                pending.push(name.as_str());
            }
        }
        FieldType::Array { elem, .. } => reach(elem, used, pending),
        FieldType::Map { value, .. } => reach(value, used, pending),
        FieldType::Scalar { .. } | FieldType::Counters { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squillion_grammar::SourceFile;

    /// The unused values of `src` and the unused values using each; `None` when `src` does not
    /// check.
    fn unused(src: &str) -> Option<Vec<(String, Vec<String>)>> {
        let source = SourceFile::new("t.sqn", src);
        let checked = crate::load(&source).ok()?;
        let found = find(&checked.model)
            .into_iter()
            .map(|u| {
                (
                    u.value.name.clone(),
                    u.used_by.iter().map(|s| (*s).to_owned()).collect(),
                )
            })
            .collect();
        Some(found)
    }

    #[test]
    fn a_value_no_field_reaches_is_unused_and_says_which_unused_values_use_it() {
        let src = "value Point2 { x: double  y: double }\n\
                   value Shape { corners: [Point2; 8] }\n\
                   value Tag { label: string }\n\
                   value Label { text: string }\n\
                   entity Drawing { tags: map<Tag?> }\n";
        assert_eq!(
            unused(src),
            Some(vec![
                ("Point2".to_owned(), vec!["Shape".to_owned()]),
                ("Shape".to_owned(), vec![]),
                ("Label".to_owned(), vec![]),
            ])
        );
    }

    #[test]
    fn values_reached_through_other_values_are_used() {
        let src = "value C { n: int32 }\n\
                   value B { c: [C?; 3] }\n\
                   value A { b: B? }\n\
                   entity E { a: A }\n";
        assert_eq!(unused(src), Some(vec![]));
    }
}
