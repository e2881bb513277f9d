//! The collections of two Plans compared: which were added, removed or renamed, and in those on
//! both sides, the stored fields, indexes and validator rules that differ, and whether the
//! stored shape changed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::plan::{Collection, Index, Plan, PlanField};

use super::{
    CollectionChange, CollectionKey, CollectionState, FieldChange, FieldState, IndexChange,
    IndexState, Moved, PlanDiff, PropertyChange, ValidatorChange, VersionChange,
};

/// Fills the collection, field, index, validator and version changes of `d`.
pub(super) fn collections(old: &Plan, new: &Plan, d: &mut PlanDiff) {
    let keyed = |p: &Plan| -> BTreeMap<CollectionKey, Collection> {
        p.collections
            .iter()
            .map(|c| (CollectionKey::of(c), c.clone()))
            .collect()
    };
    let (olds, news) = (keyed(old), keyed(new));
    let keys: BTreeSet<&CollectionKey> = olds.keys().chain(news.keys()).collect();
    for key in keys {
        match (olds.get(key), news.get(key)) {
            (Some(o), Some(n)) => {
                if o.name != n.name {
                    d.collections.push(CollectionChange {
                        key: key.clone(),
                        old: Some(state(o)),
                        new: Some(state(n)),
                    });
                }
                let before = d.fields.len();
                fields(key, o, n, &mut d.fields);
                indexes(key, o, n, &mut d.indexes);
                validator(key, o, n, &mut d.validators);
                let shape_changed = d.fields[before..]
                    .iter()
                    .any(FieldChange::changes_stored_shape);
                if shape_changed || o.schema_version != n.schema_version {
                    d.versions.push(VersionChange {
                        collection: key.clone(),
                        old_collection: o.name.clone(),
                        new_collection: n.name.clone(),
                        old: o.schema_version,
                        new: n.schema_version,
                        shape_changed,
                        must_bump: VersionChange::needs_bump(
                            shape_changed,
                            o.schema_version,
                            n.schema_version,
                        ),
                    });
                }
            }
            (o, n) => d.collections.push(CollectionChange {
                key: key.clone(),
                old: o.map(state),
                new: n.map(state),
            }),
        }
    }
}

fn state(c: &Collection) -> CollectionState {
    CollectionState {
        name: c.name.clone(),
        fields: c.fields.len(),
        indexes: c.indexes.len(),
        average_bytes: c.size.average,
    }
}

/// Every field of a document, by its path of code names, outermost first.
fn flatten<'a>(fields: &'a [PlanField], prefix: &str, out: &mut BTreeMap<String, &'a PlanField>) {
    for f in fields {
        let path = if prefix.is_empty() {
            f.code_name.clone()
        } else {
            format!("{prefix}.{}", f.code_name)
        };
        // A recursive field repeats its enclosing type: its children are the enclosing ones.
        if !f.recursive {
            flatten(&f.children, &path, out);
        }
        out.insert(path, f);
    }
}

fn field_state(collection: &str, f: &PlanField) -> FieldState {
    FieldState {
        collection: collection.to_owned(),
        path: f.path.clone(),
        kind: f.kind.as_str().to_owned(),
        bson_type: f.bson_type.clone(),
        containers: f.containers.clone(),
        array_depth: f.array_depth,
        map: f.map,
        optional: f.optional,
        max_items: f.max_items,
        max_entries: f.max_entries,
        enum_values: f.enum_values.clone(),
        source: f.source.clone(),
        average_bytes: f.size.average,
    }
}

/// Whether two fields are stored alike (the collection's name and the size estimate aside).
fn same_field(a: &FieldState, b: &FieldState) -> bool {
    let plain = |f: &FieldState| FieldState {
        collection: String::new(),
        average_bytes: 0,
        ..f.clone()
    };
    plain(a) == plain(b)
}

fn fields(key: &CollectionKey, old: &Collection, new: &Collection, out: &mut Vec<FieldChange>) {
    let (mut of, mut nf) = (BTreeMap::new(), BTreeMap::new());
    flatten(&old.fields, "", &mut of);
    flatten(&new.fields, "", &mut nf);
    let paths: BTreeSet<&String> = of.keys().chain(nf.keys()).collect();
    // Paths added or removed whole: their descendants are not listed again.
    let mut whole: Vec<&String> = Vec::new();
    for path in paths {
        let (o, n) = (of.get(path), nf.get(path));
        let inside_whole = whole
            .iter()
            .any(|w| path.starts_with(w.as_str()) && path[w.len()..].starts_with('.'));
        if inside_whole {
            continue;
        }
        let (os, ns) = (
            o.map(|f| field_state(&old.name, f)),
            n.map(|f| field_state(&new.name, f)),
        );
        let changed = match (&os, &ns) {
            (Some(a), Some(b)) => !same_field(a, b),
            (None, None) => false,
            _ => {
                whole.push(path);
                true
            }
        };
        if changed {
            let moved = Moved::of_field(os.as_ref(), ns.as_ref());
            out.push(FieldChange {
                collection: key.clone(),
                code_path: path.clone(),
                old: os,
                new: ns,
                moved,
            });
        }
    }
}

fn index_state(c: &Collection, i: &Index) -> IndexState {
    IndexState {
        collection: c.name.clone(),
        keys: i
            .keys
            .iter()
            .map(|k| format!("{} {}", k.path, k.written()))
            .collect(),
        unique: i.unique,
        sparse: i.sparse,
        partial_filter: i.partial_filter.clone(),
        collation_strength: i.collation.as_ref().map(|c| c.strength),
        expire_after_seconds: i.expire_after_seconds,
        reasons: i.reasons.clone(),
        entry_bytes: key_bytes(c, i),
    }
}

/// Bytes of one index entry: the keys' values as the size model estimates them.
fn key_bytes(c: &Collection, i: &Index) -> u64 {
    i.keys
        .iter()
        .map(|k| c.field_at(&k.path).map(|f| f.size.average).unwrap_or(0))
        .fold(0u64, u64::saturating_add)
}

fn indexes(key: &CollectionKey, old: &Collection, new: &Collection, out: &mut Vec<IndexChange>) {
    let names: BTreeSet<&String> = old
        .indexes
        .iter()
        .chain(&new.indexes)
        .map(|i| &i.name)
        .collect();
    for name in names {
        let o = old.indexes.iter().find(|i| &i.name == name);
        let n = new.indexes.iter().find(|i| &i.name == name);
        let (os, ns) = (
            o.map(|i| index_state(old, i)),
            n.map(|i| index_state(new, i)),
        );
        let changed = match (&os, &ns) {
            (Some(a), Some(b)) => !a.same_definition(b),
            (None, None) => false,
            _ => true,
        };
        if changed {
            let moved = Moved::of_index(os.as_ref(), ns.as_ref());
            out.push(IndexChange {
                collection: key.clone(),
                name: name.clone(),
                old: os,
                new: ns,
                moved,
            });
        }
    }
}

/// Each property's rule without its nested properties (those have paths of their own), with
/// whether it is required, by stored path.
fn rules(schema: &Value, prefix: &str, out: &mut BTreeMap<String, Value>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    let required: BTreeSet<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, rule) in props {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            out.insert(
                path.clone(),
                own_rule(rule, required.contains(name.as_str())),
            );
            nested(rule, &path, out);
        }
    }
}

/// The documents inside a rule: its own properties, or its elements' (each array level).
fn nested(rule: &Value, path: &str, out: &mut BTreeMap<String, Value>) {
    rules(rule, path, out);
    if let Some(items) = rule.get("items") {
        nested(items, path, out);
    }
    if let Some(values) = rule.get("additionalProperties") {
        nested(values, path, out);
    }
}

/// A rule without what [`nested`] lists under paths of its own, and without its description
/// (the decision's words: a changed decision is listed with the decisions).
fn own_rule(rule: &Value, required: bool) -> Value {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| {
                        !matches!(k.as_str(), "properties" | "required" | "description")
                    })
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let mut own = strip(rule);
    if let Some(map) = own.as_object_mut() {
        map.insert("required".to_owned(), Value::Bool(required));
    }
    own
}

fn validator(
    key: &CollectionKey,
    old: &Collection,
    new: &Collection,
    out: &mut Vec<ValidatorChange>,
) {
    let (mut or, mut nr) = (BTreeMap::new(), BTreeMap::new());
    rules(&crate::validator::document_schema(old), "", &mut or);
    rules(&crate::validator::document_schema(new), "", &mut nr);
    let paths: BTreeSet<&String> = or.keys().chain(nr.keys()).collect();
    let properties: Vec<PropertyChange> = paths
        .into_iter()
        .filter_map(|path| {
            let (o, n) = (or.get(path).cloned(), nr.get(path).cloned());
            (o != n).then(|| PropertyChange {
                path: path.clone(),
                old: o,
                new: n,
            })
        })
        .collect();
    if !properties.is_empty() {
        out.push(ValidatorChange {
            collection: key.clone(),
            old_collection: old.name.clone(),
            new_collection: new.name.clone(),
            properties,
        });
    }
}
