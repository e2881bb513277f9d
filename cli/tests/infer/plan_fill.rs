//! Filling a database from a Plan alone, for schemas nobody wrote by hand: raw driver documents
//! shaped as the Plan says (its collections, fields, placements, buckets and link documents), with
//! data that realises each relation's declared facts.
//!
//! Every relation gets pairs `(left, right)` of entity instances such that the largest number of
//! rights one left has is in the left end's class, and the largest number of lefts one right has
//! in the right end's (`one`: 1, `few(N)`: N up to 200, `many(N)`: above 200 and at most N,
//! `squillions`: above 5,000), most instances having only a few. Instances are numbered per
//! entity; an entity with its own collection has that many documents, an embedded one as many
//! embedded documents as its embedding relation's pairs. Values are made from the entity, the
//! instance and the field's name, so a copy of a field equals the copied document's field.

use std::collections::{BTreeMap, HashSet};

use bson::oid::ObjectId;
use bson::{Bson, DateTime, Document};
use mongodb::Database;
use squillion_codegen::model::{CardinalityClass, Model};
use squillion_codegen::plan::{
    CollectionRole, ComputedFn, FieldKind, Plan, PlanField, Shape, SummaryFn,
};

use super::fill::Rng;
use super::plan_summaries::summarise;

/// What cannot be filled yet: the reason a schema is left out of the round trip.
pub fn unsupported(plan: &Plan) -> Option<String> {
    for d in &plan.relationships {
        if d.outlier.is_some() {
            return Some(format!("{}: outlier overflow documents", d.id));
        }
    }
    for c in &plan.collections {
        if c.role == CollectionRole::History {
            return Some(format!("{}: a history collection", c.name));
        }
    }
    None
}

/// The largest count a class is realised with.
fn target(class: CardinalityClass, bound: Option<u64>) -> u64 {
    match class {
        CardinalityClass::One => 1,
        CardinalityClass::Few => bound.unwrap_or(12).clamp(1, 200),
        CardinalityClass::Many => bound.unwrap_or(1000).min(240),
        CardinalityClass::Squillions => bound.map_or(5_001, |b| b.min(5_001)),
    }
}

/// Pairs of one relation, and each side's partners.
#[derive(Debug, Default, Clone)]
struct Pairs {
    /// For each left instance, its rights.
    of_left: Vec<Vec<u64>>,
    /// For each right instance, its lefts.
    of_right: Vec<Vec<u64>>,
}

/// Pairs between `nx` lefts and `ny` rights, at most `mx` rights per left and `my` lefts per
/// right, both reached once (a hub on each side), the rest small.
fn draw(nx: u64, ny: u64, mx: u64, my: u64, same: bool, rng: &mut Rng) -> Pairs {
    let mut p = Pairs {
        of_left: vec![Vec::new(); nx as usize],
        of_right: vec![Vec::new(); ny as usize],
    };
    let mut seen = HashSet::new();
    let mut add = |p: &mut Pairs, x: u64, y: u64| -> bool {
        if x >= nx
            || y >= ny
            || p.of_left[x as usize].len() as u64 >= mx
            || p.of_right[y as usize].len() as u64 >= my
            || (same && x == y)
            || !seen.insert((x, y))
        {
            return false;
        }
        p.of_left[x as usize].push(y);
        p.of_right[y as usize].push(x);
        true
    };
    // The hubs; with an entity related to itself, instance 0 is one hub and 1 the other.
    let hub = u64::from(same);
    for y in 0..=mx {
        add(&mut p, 0, y);
    }
    for x in 0..=my {
        add(&mut p, x, hub);
    }
    let mut cursor = mx;
    for x in 1..nx {
        let want = 1 + rng.below(mx.min(3));
        let mut got = p.of_left[x as usize].len() as u64;
        let mut tries = 0;
        while got < want && tries < 8 {
            let y = if my == 1 {
                cursor += 1;
                cursor % ny
            } else {
                rng.below(ny)
            };
            if add(&mut p, x, y) {
                got += 1;
            }
            tries += 1;
        }
    }
    p
}

/// Pairs of an embedding relation: each left gets its own new rights (the embedded instances).
fn embedded_pairs(nx: u64, mx: u64, optional_one: bool, rng: &mut Rng) -> (Pairs, u64) {
    let mut p = Pairs {
        of_left: vec![Vec::new(); nx as usize],
        of_right: Vec::new(),
    };
    let mut next = 0u64;
    for x in 0..nx {
        let k = if x == 0 {
            mx
        } else if mx == 1 {
            u64::from(!optional_one || rng.below(5) != 0)
        } else {
            rng.below(mx.min(3) + 1)
        };
        for _ in 0..k {
            p.of_left[x as usize].push(next);
            p.of_right.push(vec![x]);
            next += 1;
        }
    }
    (p, next)
}

/// The whole fill: instances per entity and pairs per relation.
pub struct Fill<'a> {
    model: &'a Model,
    pub plan: &'a Plan,
    count: BTreeMap<String, u64>,
    pairs: BTreeMap<String, Pairs>,
    tags: BTreeMap<String, u8>,
}

fn hash(parts: &[&str], i: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for p in parts {
        for b in p.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h ^= 0xff;
    }
    h
}

/// A scalar of a BSON type, made from `seed`.
fn scalar(ty: &str, seed: u64) -> Bson {
    let small = (seed % 1000) as i64;
    match ty {
        "int32" | "int" => Bson::Int32(small as i32),
        "int64" | "long" => Bson::Int64(small * 1000),
        "double" => Bson::Double(small as f64 / 4.0),
        "bool" => Bson::Boolean(seed % 2 == 0),
        "date" => Bson::DateTime(DateTime::from_millis(1_700_000_000_000 + small * 60_000)),
        "objectId" => Bson::ObjectId(ObjectId::from_bytes(
            seed.to_be_bytes()
                .iter()
                .chain(&[7, 7, 7, 7])
                .copied()
                .collect::<Vec<u8>>()
                .try_into()
                .unwrap_or([7; 12]),
        )),
        "decimal128" | "decimal" => {
            // `small` as a decimal128 with exponent 0.
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&(small as u64).to_le_bytes());
            b[14] = 0x40;
            b[15] = 0x30;
            Bson::Decimal128(bson::Decimal128::from_bytes(b))
        }
        "binary" | "binData" => Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: seed.to_le_bytes().to_vec(),
        }),
        _ => Bson::String(format!("v{}", seed % 100_000)),
    }
}

impl<'a> Fill<'a> {
    /// Sizes every entity and draws every relation's pairs.
    pub fn new(model: &'a Model, plan: &'a Plan, seed: u64) -> Fill<'a> {
        let mut rng = Rng::new(seed);
        let own: HashSet<String> = plan
            .collections
            .iter()
            .filter(|c| c.role == CollectionRole::Entity)
            .map(|c| c.entity.clone())
            .collect();
        let mut count: BTreeMap<String, u64> = BTreeMap::new();
        let mut tags = BTreeMap::new();
        for (k, e) in model.entities.iter().enumerate() {
            tags.insert(e.name.clone(), (k + 1) as u8);
            if own.contains(&e.name) {
                count.insert(e.name.clone(), 40);
            }
        }
        let ends = |r: &squillion_codegen::model::Relation| {
            (
                target(r.left.cardinality.class, r.left.cardinality.bound),
                target(r.right.cardinality.class, r.right.cardinality.bound),
            )
        };
        // Entities with their own collection hold enough documents for every hub.
        for r in &model.relations {
            let (mx, my) = ends(r);
            for (e, need) in [(&r.left.entity, my + 20), (&r.right.entity, mx + 20)] {
                if let Some(n) = count.get_mut(e) {
                    *n = (*n).max(need);
                }
            }
        }
        // Embedding relations make their children; repeat until every relation is drawn.
        let mut pairs = BTreeMap::new();
        for _ in 0..=model.relations.len() {
            for r in &model.relations {
                if pairs.contains_key(&r.id) {
                    continue;
                }
                let (mx, my) = ends(r);
                let p = match (count.get(&r.left.entity), count.get(&r.right.entity)) {
                    (Some(&nx), Some(&ny)) => {
                        let same = r.left.entity == r.right.entity;
                        draw(nx, ny, mx, my, same, &mut rng)
                    }
                    (Some(&nx), None) => {
                        let (p, n) = embedded_pairs(nx, mx, r.left.cardinality.optional, &mut rng);
                        count.insert(r.right.entity.clone(), n);
                        p
                    }
                    (None, Some(&ny)) => {
                        let (p, n) = embedded_pairs(ny, my, r.right.cardinality.optional, &mut rng);
                        count.insert(r.left.entity.clone(), n);
                        Pairs {
                            of_left: p.of_right,
                            of_right: p.of_left,
                        }
                    }
                    (None, None) => continue,
                };
                pairs.insert(r.id.clone(), p);
            }
        }
        Fill {
            model,
            plan,
            count,
            pairs,
            tags,
        }
    }

    /// The `_id` of instance `i` of `entity`, of the type its collection's `_id` has.
    fn id(&self, entity: &str, i: u64) -> Bson {
        let tag = self.tags.get(entity).copied().unwrap_or(0);
        let ty = self
            .plan
            .collections
            .iter()
            .find(|c| c.entity == entity && c.role == CollectionRole::Entity)
            .map_or("objectId", |c| c.id.bson_type.sqn_name());
        match ty {
            "objectId" => {
                let mut b = [0u8; 12];
                b[..4].copy_from_slice(&(1_700_000_000u32 + i as u32).to_be_bytes());
                b[4] = tag;
                b[5..].copy_from_slice(&i.to_be_bytes()[1..]);
                Bson::ObjectId(ObjectId::from_bytes(b))
            }
            "string" => Bson::String(format!("{}-{i}", entity.to_lowercase())),
            "int32" => Bson::Int32(i as i32 + 1),
            _ => Bson::Int64(i as i64 + 1),
        }
    }

    /// The partners of instance `i` of `holder` in relation `relation`, and their entity; for an
    /// entity related to itself, `field` (the holding field's name) tells the end.
    fn partners(
        &self,
        relation: &str,
        holder: &str,
        i: u64,
        field: &str,
    ) -> Option<(String, Vec<u64>)> {
        let r = self.model.relations.iter().find(|r| r.id == relation)?;
        let p = self.pairs.get(relation)?;
        let left = if r.left.entity == r.right.entity {
            field != r.right.field
        } else {
            r.left.entity == holder
        };
        if left {
            let list = p.of_left.get(i as usize).cloned().unwrap_or_default();
            Some((r.right.entity.clone(), list))
        } else if r.right.entity == holder {
            let list = p.of_right.get(i as usize).cloned().unwrap_or_default();
            Some((r.left.entity.clone(), list))
        } else {
            None
        }
    }

    /// A document of instance `i` of `entity` with `fields` (a collection's, or an embedded
    /// field's children).
    fn instance(
        &self,
        entity: &str,
        i: u64,
        fields: &[PlanField],
        variants: &[String],
    ) -> Document {
        let variant = (!variants.is_empty()).then(|| &variants[(i as usize) % variants.len()]);
        let mut d = Document::new();
        for f in fields {
            if f.variant.is_some() && f.variant.as_ref() != variant {
                continue;
            }
            if f.name == "_id" && f.kind != FieldKind::Embedded {
                d.insert("_id", self.id(entity, i));
                continue;
            }
            if let Some(v) = self.field(entity, i, f, variant) {
                d.insert(f.name.clone(), v);
            }
        }
        d
    }

    /// The value of field `f` in instance `i` of `entity`; `None` to leave it out.
    fn field(&self, entity: &str, i: u64, f: &PlanField, variant: Option<&String>) -> Option<Bson> {
        let seed = hash(&[entity, &f.code_name], i);
        if f.optional && seed % 5 == 0 && f.relation.is_none() {
            return None;
        }
        if f.kind == FieldKind::Pattern {
            if let (Some(v), Some(vs)) = (variant, self.variants_of(entity)) {
                if vs == f.name {
                    return Some(Bson::String(v.clone()));
                }
            }
        }
        if let Some(rel) = &f.relation {
            if let Some(v) = self.related(entity, i, f, rel) {
                return v;
            }
        }
        if f.kind == FieldKind::Denormalized {
            // A copy: the source field's value in the partner this instance refers to.
            if let (Some(rel), Some(source)) = (&f.relation, &f.source) {
                let (src_entity, src_field) = source.split_once('.')?;
                let (_, list) = self.partners(rel, entity, i, "")?;
                let first = *list.first()?;
                return Some(scalar(&f.bson_type, hash(&[src_entity, src_field], first)));
            }
        }
        Some(Self::generic(f, seed, f.array_depth))
    }

    fn variants_of(&self, entity: &str) -> Option<&str> {
        self.plan
            .collections
            .iter()
            .find(|c| c.entity == entity)
            .and_then(|c| c.variants.as_ref())
            .map(|v| v.discriminator.as_str())
    }

    /// A value with no relation: scalars, arrays, maps and subdocuments of generated values.
    fn generic(f: &PlanField, seed: u64, depth: u8) -> Bson {
        if depth > 0 {
            let n = f.max_items.unwrap_or(3).min(if depth == f.array_depth {
                1 + seed % 4
            } else {
                2
            });
            let items = (0..n)
                .map(|k| Self::generic(f, hash(&[&f.code_name], seed + k), depth - 1))
                .collect();
            return Bson::Array(items);
        }
        if f.map {
            let mut m = Document::new();
            for k in 0..(seed % 3 + 1) {
                let mut g = f.clone();
                g.map = false;
                m.insert(format!("k{k}"), Self::generic(&g, seed + k, 0));
            }
            return Bson::Document(m);
        }
        if f.is_geo_point() {
            let lng = (seed % 360) as f64 - 180.0;
            let lat = (seed % 180) as f64 - 90.0;
            return Bson::Document(bson::doc! { "type": "Point", "coordinates": [lng, lat] });
        }
        if !f.children.is_empty() {
            let mut d = Document::new();
            for c in &f.children {
                if c.optional && hash(&[&c.code_name], seed) % 5 == 0 {
                    continue;
                }
                let s = hash(&[&c.code_name], seed);
                d.insert(c.name.clone(), Self::generic(c, s, c.array_depth));
            }
            return Bson::Document(d);
        }
        if f.bson_type == "object" {
            return Bson::Document(Document::new());
        }
        scalar(&f.bson_type, seed)
    }

    /// A relation's field: `Some(None)` to leave it out, `None` when it is not this relation's
    /// placement (a computed field, say).
    fn related(&self, entity: &str, i: u64, f: &PlanField, rel: &str) -> Option<Option<Bson>> {
        let d = self.plan.relationship(rel)?;
        let (other, list) = self.partners(rel, entity, i, &f.code_name)?;
        let placement = d
            .placement
            .iter()
            .find(|p| p.holder == entity && p.target == other && p.path == f.path)?;
        let refer = |y: u64| -> Bson {
            if f.children.is_empty() {
                return self.id(&other, y);
            }
            // An extended reference: the id and copies of the referenced document's fields.
            let mut d = Document::new();
            for c in &f.children {
                let v = match (&c.source, c.kind) {
                    (_, FieldKind::Ref) => self.id(&other, y),
                    _ if c.name == "_id" || c.name == "id" => self.id(&other, y),
                    (Some(source), _) => {
                        let (e, field) = source
                            .split_once('.')
                            .unwrap_or((other.as_str(), c.code_name.as_str()));
                        scalar(&c.bson_type, hash(&[e, field], y))
                    }
                    (None, _) => scalar(&c.bson_type, hash(&[&other, &c.code_name], y)),
                };
                d.insert(c.name.clone(), v);
            }
            Bson::Document(d)
        };
        // A document repeating an enclosing type (`E0` embedded in `E0`) has that type's fields:
        // the Plan lists none under it (`recursive`), the generated code stores the whole type.
        let enclosing;
        let children = if f.recursive {
            enclosing = self.enclosing(&placement.collection, &other, &f.path);
            &enclosing
        } else {
            &f.children
        };
        let value = match placement.shape {
            Shape::Id | Shape::ExtendedRef => list.first().map(|y| refer(*y)),
            Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs => {
                Some(Bson::Array(list.iter().map(|y| refer(*y)).collect()))
            }
            Shape::Subdocument => list
                .first()
                .map(|y| Bson::Document(self.instance(&other, *y, children, &[]))),
            Shape::ArrayOfSubdocuments => Some(Bson::Array(
                list.iter()
                    .map(|y| Bson::Document(self.instance(&other, *y, children, &[])))
                    .collect(),
            )),
        };
        Some(value)
    }

    /// The fields of the type a recursive field at `path` of `collection` repeats: the
    /// collection's own (with `_id`: the generated type is the collection's document) when it
    /// holds `entity`, else those of the nearest enclosing field embedding `entity`. The
    /// repeated fields' own recursive arrays are written empty (the child was pushed before it
    /// had children of its own), its recursive subdocuments left out, so the fill ends.
    fn enclosing(&self, collection: &str, entity: &str, path: &str) -> Vec<PlanField> {
        let Some(c) = self.plan.collection(collection) else {
            return Vec::new();
        };
        let mut fields: &[PlanField] = if c.entity == entity { &c.fields } else { &[] };
        let mut level: &[PlanField] = &c.fields;
        for seg in path.split('.') {
            let Some(f) = level.iter().find(|f| f.name == seg) else {
                break;
            };
            if f.type_name.as_deref() == Some(entity) && !f.recursive {
                fields = &f.children;
            }
            level = &f.children;
        }
        fields
            .iter()
            .filter(|f| !f.recursive || f.array_depth > 0)
            .map(|f| {
                let mut f = f.clone();
                if f.recursive {
                    f.relation = None;
                    f.max_items = Some(0);
                }
                f
            })
            .collect()
    }

    /// Every collection's documents.
    pub fn documents(&self) -> Vec<(String, Vec<Document>)> {
        let mut out = Vec::new();
        for c in &self.plan.collections {
            let docs = match &c.role {
                CollectionRole::Entity => {
                    let variants = c
                        .variants
                        .as_ref()
                        .map(|v| v.names.clone())
                        .unwrap_or_default();
                    (0..self.count.get(&c.entity).copied().unwrap_or(0))
                        .map(|i| self.instance(&c.entity, i, &c.fields, &variants))
                        .collect()
                }
                CollectionRole::Link { relation } => self.links(c, relation),
                CollectionRole::Bucket { relation } => self.buckets(c, relation),
                _ => Vec::new(),
            };
            out.push((c.name.clone(), docs));
        }
        out
    }

    /// One link document per pair.
    fn links(&self, c: &squillion_codegen::plan::Collection, relation: &str) -> Vec<Document> {
        let (Some(r), Some(p)) = (
            self.model.relations.iter().find(|r| r.id == relation),
            self.pairs.get(relation),
        ) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut k = 0u64;
        for (x, ys) in p.of_left.iter().enumerate() {
            for y in ys {
                let mut d = Document::new();
                for f in &c.fields {
                    let v = match (f.kind, f.source.as_deref()) {
                        // A link of an entity with itself holds `from` (the left) and `to`.
                        (FieldKind::Ref, Some(s))
                            if s == r.left.entity
                                && (r.left.entity != r.right.entity || f.name != "to") =>
                        {
                            self.id(&r.left.entity, x as u64)
                        }
                        (FieldKind::Ref, Some(_)) => self.id(&r.right.entity, *y),
                        _ if f.name == "_id" => Bson::ObjectId(ObjectId::new()),
                        _ => Self::generic(f, hash(&[&f.code_name], k), f.array_depth),
                    };
                    d.insert(f.name.clone(), v);
                }
                out.push(d);
                k += 1;
            }
        }
        out
    }

    /// Each parent's children in full buckets, the last one partly full.
    fn buckets(&self, c: &squillion_codegen::plan::Collection, relation: &str) -> Vec<Document> {
        let (Some(d), Some(r), Some(p)) = (
            self.plan.relationship(relation),
            self.model.relations.iter().find(|r| r.id == relation),
            self.pairs.get(relation),
        ) else {
            return Vec::new();
        };
        let Some(b) = &d.bucket else {
            return Vec::new();
        };
        let (parent, child, lists) = if d.parent == r.left.entity {
            (&r.left.entity, &r.right.entity, &p.of_left)
        } else {
            (&r.right.entity, &r.left.entity, &p.of_right)
        };
        let mut out = Vec::new();
        let mut k = 0u64;
        let item_fields = c
            .fields
            .iter()
            .find(|f| f.path == b.items_path)
            .map(|f| f.children.clone())
            .unwrap_or_default();
        for (x, ys) in lists.iter().enumerate() {
            for chunk in ys.chunks(b.size.max(1) as usize) {
                let items: Vec<Document> = chunk
                    .iter()
                    .map(|y| self.instance(child, *y, &item_fields, &[]))
                    .collect();
                let mut doc = Document::new();
                for f in &c.fields {
                    // Summaries and time ranges are computed from the bucket's children, as the
                    // generated code maintains them.
                    let computed = d
                        .computed
                        .iter()
                        .find(|s| s.collection == c.name && s.path == f.path);
                    let range = b.time_range.as_ref().and_then(|t| {
                        if f.path == t.start_path {
                            Some((SummaryFn::Min, t.field.clone()))
                        } else if f.path == t.end_path {
                            Some((SummaryFn::Max, t.field.clone()))
                        } else {
                            None
                        }
                    });
                    let v = if f.name == "_id" {
                        Bson::ObjectId(ObjectId::new())
                    } else if f.path == b.parent_path {
                        self.id(parent, x as u64)
                    } else if f.path == b.count_path {
                        Bson::Int32(chunk.len() as i32)
                    } else if f.path == b.items_path {
                        Bson::Array(items.iter().cloned().map(Bson::Document).collect())
                    } else if let Some((how, field)) = range {
                        summarise(how, Some(&field), &items, &f.bson_type)
                    } else if let Some(ComputedFn::Summary { summary }) =
                        computed.map(|s| &s.function)
                    {
                        summarise(
                            *summary,
                            computed.and_then(|s| s.field.as_deref()),
                            &items,
                            &f.bson_type,
                        )
                    } else {
                        Self::generic(f, hash(&[&f.code_name], k), f.array_depth)
                    };
                    doc.insert(f.name.clone(), v);
                }
                out.push(doc);
                k += 1;
            }
        }
        out
    }
}

/// Writes every collection's documents.
pub async fn write(db: &Database, fill: &Fill<'_>) {
    // The Plan's indexes of link collections, as the generated repositories'
    // `ensure_indexes()` makes them (the fill's pairs are distinct, as their unique index
    // says). The other collections get none: the fill does not make unique fields' values
    // unique.
    for c in &fill.plan.collections {
        if !matches!(c.role, CollectionRole::Link { .. }) {
            continue;
        }
        let models: Vec<_> = c
            .indexes
            .iter()
            .map(squillion_cli::sync::index_model)
            .collect();
        if !models.is_empty() {
            db.collection::<Document>(&c.name)
                .create_indexes(models)
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        }
    }
    for (name, docs) in fill.documents() {
        if docs.is_empty() {
            continue;
        }
        let coll = db.collection::<Document>(&name);
        for chunk in docs.chunks(5_000) {
            coll.insert_many(chunk.to_vec())
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
