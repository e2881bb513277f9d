//! The fields of an entity: scalars, arrays, maps, value types and natural keys, with the
//! measurement each declaration carries.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

impl Assembly<'_> {
    /// Reserves a name for a key at entity `e`: the key itself when it is an identifier.
    pub(super) fn name_for(&mut self, e: usize, key: &str) -> String {
        let name = self.entities[e].namer.unique(&field_name(key));
        self.entities[e].names.insert(key.to_owned(), name.clone());
        name
    }

    /// The declaration of one field, or `None` when it became a link, a pattern or is skipped.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn field(
        &mut self,
        e: usize,
        coll: usize,
        place: &Loc,
        shape: &Shape,
        key: &str,
        f: &FieldShape,
        noun: &str,
    ) -> Option<FieldDecl> {
        if key == "_id" {
            return self.natural_key(e, f, shape.seen, noun);
        }
        if self.is_consumed(coll, place, key) {
            return None;
        }
        if let Some(why) = names::unstorable(key) {
            self.entities[e].decl.comments.push(format!(
                "a field is left out: {why} ({})",
                words::presence(f.present, shape.seen, noun)
            ));
            return None;
        }
        let r = self
            .f
            .refs
            .iter()
            .position(|r| r.holder == coll && r.place == *place && r.field == key);
        if let Some(r) = r {
            if !self.linked.contains(&r) {
                self.reference(e, r);
            }
            return None;
        }
        let optional = f.present < shape.seen || f.kinds.contains_key(&Kind::Null);
        let presence = words::presence(f.present, shape.seen, noun);
        let (main, _) = f.main_kind()?;
        let ty = match main {
            Kind::Document => {
                let sub = f.doc.as_deref()?;
                let sub_place = place.child(key, false);
                if sub.is_map() {
                    self.map_type(sub)
                } else if optional || !self.plain(coll, &sub_place, sub) {
                    self.embedded(e, coll, place, key, false, &presence);
                    return None;
                } else {
                    TypeExpr::Named(self.value_type(key, coll, &sub_place, sub))
                }
            }
            Kind::Array => {
                let a = f.array.as_deref()?;
                match a.main_kind().map(|(k, _)| k) {
                    Some(Kind::Document) if attribute_pairs(a) => {
                        let name = self.name_for(e, key);
                        return Some(self.attributes(name, key, a, optional, &presence));
                    }
                    Some(Kind::Document) if self.recursive(e, a) => {
                        self.self_link(e, coll, place, key, a);
                        return None;
                    }
                    Some(Kind::Document) => {
                        self.embedded(e, coll, place, key, true, &presence);
                        return None;
                    }
                    _ => self.array_type(a),
                }
            }
            _ => scalar(f),
        };
        let name = self.name_for(e, key);
        Some(self.decl(name, key, ty, optional, f, &presence))
    }

    pub(super) fn decl(
        &self,
        name: String,
        key: &str,
        ty: TypeExpr,
        optional: bool,
        f: &FieldShape,
        presence: &str,
    ) -> FieldDecl {
        let mut attrs = Vec::new();
        if name != key {
            attrs.push(Attr::Stored(key.to_owned()));
        }
        let mut trailing = format!("measured: {presence}");
        let non_null: Vec<(&Kind, &u64)> =
            f.kinds.iter().filter(|(k, _)| **k != Kind::Null).collect();
        if non_null.len() > 1 {
            trailing.push_str(&format!("; mixed types: {}", words::kinds(&f.kinds)));
        } else if let Some(nulls) = f.kinds.get(&Kind::Null) {
            trailing.push_str(&format!("; null in {}", words::n(*nulls)));
        }
        if let Some(a) = &f.array {
            trailing.push_str(&format!("; {} elements", words::spread(&a.lengths)));
            if a.kinds.len() > 1 {
                trailing.push_str(&format!(" of mixed types ({})", words::kinds(&a.kinds)));
            }
            if a.truncated > 0 {
                trailing.push_str(&format!(
                    " ({} arrays longer than {} were examined in part)",
                    words::n(a.truncated),
                    crate::infer::shape::MAX_ELEMENTS
                ));
            }
            if a.lengths.max() == Some(0) {
                trailing.push_str("; always empty, so the element type is a guess");
            }
        }
        if let Some(unsupported) = f.kinds.keys().find_map(|k| match k {
            Kind::Unsupported(n) => Some(*n),
            _ => None,
        }) {
            trailing.push_str(&format!(
                "; BSON type {unsupported} has no name in the language"
            ));
        }
        FieldDecl {
            name,
            ty,
            optional,
            attrs,
            comments: Vec::new(),
            trailing: Some(trailing),
        }
    }

    /// A non-ObjectId `_id` is a natural key.
    pub(super) fn natural_key(
        &mut self,
        e: usize,
        f: &FieldShape,
        seen: u64,
        noun: &str,
    ) -> Option<FieldDecl> {
        let (kind, n) = f.main_kind()?;
        if kind == Kind::ObjectId {
            return None;
        }
        // Only a type `check` accepts as a key (a regex `_id` stored by some tool is not one).
        let ty = kind.sqn().filter(|t| {
            squillion_codegen::model::BsonType::from_sqn(t).is_some_and(|b| b.can_be_key())
        })?;
        let name = self.entities[e].namer.unique("key");
        self.entities[e]
            .names
            .insert("_id".to_owned(), name.clone());
        let mut trailing = format!(
            "measured: `_id` is {} {}: a natural key",
            kind.name(),
            words::presence(n, seen, noun)
        );
        if f.kinds.len() > 1 {
            trailing.push_str(&format!("; mixed types: {}", words::kinds(&f.kinds)));
        }
        Some(FieldDecl {
            name,
            ty: TypeExpr::Named(ty.to_owned()),
            optional: false,
            attrs: vec![Attr::Key],
            comments: Vec::new(),
            trailing: Some(trailing),
        })
    }

    /// Whether a subdocument can be a value type: no references and no arrays of documents in
    /// it, at any depth.
    pub(super) fn plain(&self, coll: usize, place: &Loc, shape: &Shape) -> bool {
        let refs_under = self.f.refs.iter().any(|r| {
            r.holder == coll
                && r.place.steps.len() >= place.steps.len()
                && r.place.steps[..place.steps.len()] == place.steps[..]
        });
        !refs_under && plain_shape(shape)
    }

    pub(super) fn value_type(
        &mut self,
        key: &str,
        coll: usize,
        place: &Loc,
        shape: &Shape,
    ) -> String {
        let mut fields = Vec::new();
        let noun = self.noun(coll, place);
        let mut namer = Namer::default();
        for (k, f) in &shape.fields {
            if names::unstorable(k).is_some() {
                continue;
            }
            let presence = words::presence(f.present, shape.seen, &noun);
            let optional = f.present < shape.seen || f.kinds.contains_key(&Kind::Null);
            let Some((main, _)) = f.main_kind() else {
                continue;
            };
            let ty = match main {
                Kind::Document => match f.doc.as_deref() {
                    Some(sub) if sub.is_map() => self.map_type(sub),
                    Some(sub) => {
                        TypeExpr::Named(self.value_type(k, coll, &place.child(k, false), sub))
                    }
                    None => continue,
                },
                Kind::Array => match f.array.as_deref() {
                    Some(a) if attribute_pairs(a) => {
                        let name = namer.unique(&field_name(k));
                        fields.push(self.attributes(name, k, a, optional, &presence));
                        continue;
                    }
                    Some(a) => self.array_type(a),
                    None => continue,
                },
                _ => scalar(f),
            };
            let name = namer.unique(&field_name(k));
            fields.push(self.decl(name, k, ty, optional, f, &presence));
        }
        // The same shape under the same name is one value type.
        let wanted = pascal(&singular(&snake(key)));
        if let Some(v) = self
            .values
            .iter()
            .find(|v| v.fields == fields && (v.name == wanted || v.name.starts_with(&wanted)))
        {
            return v.name.clone();
        }
        let name = self.types.unique(&wanted);
        let mut comments = vec![format!("measured: the shape of {noun}")];
        if shape.too_deep > 0 {
            comments.push(format!(
                "they nest deeper than {} levels: the deeper levels are not described",
                crate::infer::shape::MAX_DEPTH
            ));
        }
        self.values.push(ValueDecl {
            name: name.clone(),
            comments,
            fields,
        });
        name
    }

    /// A map's value type: the kind most values have, or the shape of the most common document.
    pub(super) fn map_type(&mut self, shape: &Shape) -> TypeExpr {
        let mut kinds: BTreeMap<Kind, u64> = BTreeMap::new();
        for f in shape.fields.values() {
            for (k, n) in &f.kinds {
                *kinds.entry(*k).or_default() += n;
            }
        }
        let inner = match main_kind(&kinds).map(|(k, _)| k) {
            Some(Kind::Document) => {
                let biggest = shape
                    .fields
                    .iter()
                    .filter_map(|(k, f)| f.doc.as_deref().map(|d| (k, d)))
                    .max_by_key(|(_, d)| d.seen);
                match biggest {
                    Some((_, d)) if plain_shape(d) && !d.is_map() => {
                        TypeExpr::Named(self.map_value(d))
                    }
                    _ => TypeExpr::Named("string".to_owned()),
                }
            }
            Some(k) => TypeExpr::Named(k.sqn().unwrap_or("string").to_owned()),
            None => TypeExpr::Named("string".to_owned()),
        };
        TypeExpr::Map(Box::new(inner))
    }

    pub(super) fn map_value(&mut self, d: &Shape) -> String {
        let mut fields = Vec::new();
        let mut namer = Namer::default();
        for (k, f) in &d.fields {
            if names::unstorable(k).is_some() {
                continue;
            }
            let Some((main, _)) = f.main_kind() else {
                continue;
            };
            let ty = match main {
                Kind::Array => match f.array.as_deref() {
                    Some(a) => self.array_type(a),
                    None => continue,
                },
                Kind::Document => continue,
                _ => scalar(f),
            };
            let presence = words::presence(f.present, d.seen, "map values");
            let optional = f.present < d.seen || f.kinds.contains_key(&Kind::Null);
            let name = namer.unique(&field_name(k));
            fields.push(self.decl(name, k, ty, optional, f, &presence));
        }
        let name = self.types.unique("MapValue");
        self.values.push(ValueDecl {
            name: name.clone(),
            comments: vec!["measured: the shape of the values of a map".to_owned()],
            fields,
        });
        name
    }

    pub(super) fn array_type(&mut self, a: &ArrayShape) -> TypeExpr {
        let nullable = a.kinds.contains_key(&Kind::Null);
        let element = match a.main_kind().map(|(k, _)| k) {
            Some(Kind::Array) => match a.array.as_deref() {
                Some(inner) => self.array_type(inner),
                None => TypeExpr::Named("string".to_owned()),
            },
            Some(Kind::Document) => match a.doc.as_deref() {
                Some(d) if d.is_map() => self.map_type(d),
                Some(d) if plain_shape(d) => TypeExpr::Named(self.map_value(d)),
                _ => TypeExpr::Named("string".to_owned()),
            },
            Some(k) => TypeExpr::Named(k.sqn().unwrap_or("string").to_owned()),
            None => TypeExpr::Named("string".to_owned()),
        };
        TypeExpr::Array {
            element: Box::new(element),
            nullable,
            max: a.lengths.max().filter(|m| *m > 0),
        }
    }

    /// `[{k, v}]`: the attribute pattern.
    pub(super) fn attributes(
        &mut self,
        name: String,
        key: &str,
        a: &ArrayShape,
        optional: bool,
        presence: &str,
    ) -> FieldDecl {
        let v = a
            .doc
            .as_deref()
            .and_then(|d| d.fields.get("v"))
            .and_then(|f| f.main_kind())
            .and_then(|(k, _)| k.sqn())
            .unwrap_or("string");
        let mut attrs = vec![Attr::Attributes];
        if name != key {
            attrs.push(Attr::Stored(key.to_owned()));
        }
        FieldDecl {
            name,
            ty: TypeExpr::Map(Box::new(TypeExpr::Named(v.to_owned()))),
            optional,
            attrs,
            comments: Vec::new(),
            trailing: Some(format!(
                "measured: {presence}; {} `{{k, v}}` pairs (the attribute pattern)",
                words::spread(&a.lengths)
            )),
        }
    }

    /// Whether an array's elements have the shape of entity `e`'s own documents.
    pub(super) fn recursive(&self, e: usize, a: &ArrayShape) -> bool {
        let ent = &self.entities[e];
        if ent.place.is_root() {
            return false;
        }
        let (Some(own), Some(el)) = (
            ent.place.shape(&self.sample(ent.coll).shape),
            a.doc.as_deref(),
        ) else {
            return false;
        };
        let keys = |s: &Shape| s.fields.keys().cloned().collect::<BTreeSet<_>>();
        keys(el).is_subset(&keys(own)) && !el.fields.is_empty()
    }
}

/// `[{k, v}]` arrays.
pub(super) fn attribute_pairs(a: &ArrayShape) -> bool {
    a.doc.as_deref().is_some_and(|d| {
        let keys: Vec<&String> = d.fields.keys().collect();
        keys.len() == 2 && d.fields.contains_key("k") && d.fields.contains_key("v")
    })
}

/// No `_id` and no arrays of documents anywhere inside.
pub(super) fn plain_shape(shape: &Shape) -> bool {
    !shape.fields.contains_key("_id")
        && shape.fields.values().all(|f| {
            let arrays_ok = f.array.as_deref().is_none_or(|a| {
                a.doc.as_deref().is_none_or(|_| attribute_pairs(a))
                    && a.array.as_deref().is_none_or(|inner| inner.doc.is_none())
            });
            arrays_ok && step(f, false).is_none_or(plain_shape)
        })
}

/// The type of a scalar field: its one kind; `int64` for int32 and int64; `double` for numbers
/// mixing integers and doubles; else the kind most values have.
pub(super) fn scalar(f: &FieldShape) -> TypeExpr {
    let kinds: BTreeSet<Kind> = f
        .kinds
        .keys()
        .copied()
        .filter(|k| *k != Kind::Null)
        .collect();
    let name = if !kinds.is_empty() && kinds.iter().all(|k| matches!(k, Kind::Int32 | Kind::Int64))
    {
        if kinds.contains(&Kind::Int64) {
            "int64"
        } else {
            "int32"
        }
    } else if !kinds.is_empty() && kinds.iter().all(|k| k.is_number()) {
        "double"
    } else {
        f.main_kind().and_then(|(k, _)| k.sqn()).unwrap_or("string")
    };
    TypeExpr::Named(name.to_owned())
}
