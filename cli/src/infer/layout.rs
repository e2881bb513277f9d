//! The live layout read as facts: which places hold entities, which fields are plain values, and
//! which links (embedded arrays, references, buckets...) relate entities. Pure: it reads the
//! samples, references, copies and patterns found, and says what to measure for each link.

use std::collections::{BTreeMap, BTreeSet};

use super::copies::Copy;
use super::draft::{Attr, EntityDecl, Fact, FactKind, FieldDecl, Summary, TypeExpr, ValueDecl};
use super::evidence::Agg;
use super::histogram::Histogram;
use super::names::{self, field_name, is_ident, pascal, plural, singular, snake, Namer};
use super::path::{step, Loc};
use super::patterns::{Bucket, Outlier, Subset, Tree, Variants};
use super::references::{Form, Reference};
use super::sample::Sampled;
use super::shape::{main_kind, ArrayShape, FieldShape, Kind, Shape};
use super::words;

/// Everything found before the layout is read.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    /// The sampled collections.
    pub samples: &'a [Sampled],
    /// References.
    pub refs: &'a [Reference],
    /// Copies beside references.
    pub copies: &'a [Copy],
    /// Bucket collections.
    pub buckets: &'a [Bucket],
    /// Overflow of parent arrays into buckets.
    pub outliers: &'a [Outlier],
    /// Trees.
    pub trees: &'a [Tree],
    /// Polymorphic collections.
    pub variants: &'a [Variants],
    /// Subsets and top-N lists, with how many sampled parents they were checked on and mirrored
    /// their children in.
    pub subsets: &'a [(Subset, u64, u64)],
}

/// How to measure how many of the other side one side has.
#[derive(Debug, Clone, PartialEq)]
pub enum Measure {
    /// Exactly one (a single reference or subdocument).
    One,
    /// The lengths of an array at a place.
    Lengths {
        /// The collection.
        coll: usize,
        /// The place of the documents holding the array.
        place: Loc,
        /// The array field.
        field: String,
    },
    /// Per `_id` of the target: how many documents at a place refer to it.
    PerTarget {
        /// The holding collection.
        coll: usize,
        /// The place of the holding documents.
        place: Loc,
        /// The dotted path of the id.
        path: String,
        /// The referenced collection.
        target: usize,
    },
    /// Per `_id` of the target: how many arrays at a place hold it.
    HoldersPerTarget {
        /// The holding collection.
        coll: usize,
        /// The place of the holding documents.
        place: Loc,
        /// The array field.
        field: String,
        /// The key of the id inside extended references.
        id: Option<String>,
        /// The referenced collection.
        target: usize,
    },
    /// Per owner: the children of all its buckets.
    BucketSums {
        /// The bucket collection.
        coll: usize,
        /// The field referencing the owner.
        owner: String,
        /// The count field.
        count: String,
        /// The owner's collection.
        target: usize,
    },
    /// Per parent: the elements of its array plus those of its overflow buckets.
    Overflow {
        /// The parent collection.
        parent: usize,
        /// The array in the parent.
        array: String,
        /// The flag marking parents that overflowed.
        flag: Option<String>,
        /// The overflow bucket collection.
        coll: usize,
        /// The buckets' field referencing the parent.
        owner: String,
        /// The buckets' count field.
        count: String,
    },
    /// Measured on the sample only (arrays repeating inside themselves).
    Sampled(Histogram),
}

/// The layout a link had in the live database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// An array of subdocuments.
    Embedded,
    /// One subdocument.
    EmbeddedOne,
    /// An array of subdocuments of the same shape as their holder (a tree inside a document).
    Recursive,
    /// A reference in each child.
    ChildRef,
    /// An array of references in the parent.
    ParentRefs,
    /// Both: arrays or references on each side.
    TwoWay,
    /// Children in bucket documents.
    Bucket,
    /// Children in an array, the rare overflow in bucket documents.
    Outlier,
}

/// A relation found in the layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Its layout.
    pub kind: LinkKind,
    /// Left entity (index into the entities) and end name.
    pub left: (usize, String),
    /// Right entity and end name.
    pub right: (usize, String),
    /// How many of the right one left has.
    pub left_measure: Measure,
    /// How many of the left one right has.
    pub right_measure: Measure,
    /// Facts already known (copies, pages, subsets...).
    pub facts: Vec<Fact>,
    /// What it is, in words: `books.author holds the _id of an authors document`.
    pub comments: Vec<String>,
    /// The references it stands for (indexes into the references).
    pub refs: Vec<usize>,
}

/// An entity and where its documents are.
#[derive(Debug, Clone, PartialEq)]
pub struct Ent {
    /// Its declaration, fields done.
    pub decl: EntityDecl,
    /// Its collection (for embedded entities, the collection of their holder).
    pub coll: usize,
    /// The place of its documents.
    pub place: Loc,
    /// Per BSON key at its place: the name of the field or relation end it became.
    pub names: BTreeMap<String, String>,
    /// Names used by its fields and relation ends.
    namer: Namer,
}

/// The layout read as entities, value types and links.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Entities: one per collection (but buckets), then the embedded ones.
    pub entities: Vec<Ent>,
    /// Value types.
    pub values: Vec<ValueDecl>,
    /// Links, in the order found.
    pub links: Vec<Link>,
}

/// Which end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

/// A link whose far end is named once every entity's fields are known.
struct Pending {
    link: Link,
    /// Which end still needs a name, and the name wanted.
    wanted: Option<(Side, String)>,
}

struct Assembly<'a> {
    f: Found<'a>,
    types: Namer,
    entities: Vec<Ent>,
    values: Vec<ValueDecl>,
    pending: Vec<Pending>,
    /// The root entity of each collection.
    roots: BTreeMap<usize, usize>,
    /// Keys turned into patterns, facts or parts of a link: (collection, place, key).
    consumed: BTreeSet<(usize, Loc, String)>,
    /// References already part of a link.
    linked: BTreeSet<usize>,
    /// Arrays of references paired with the reference back from their target: both sides hold
    /// the link.
    pairs: BTreeMap<usize, usize>,
}

/// Reads the layout.
pub fn read(f: Found<'_>) -> Layout {
    let mut a = Assembly {
        f,
        types: Namer::default(),
        entities: Vec::new(),
        values: Vec::new(),
        pending: Vec::new(),
        roots: BTreeMap::new(),
        consumed: BTreeSet::new(),
        linked: BTreeSet::new(),
        pairs: BTreeMap::new(),
    };
    a.consume_patterns();
    a.pair();
    let bucket_colls: BTreeSet<usize> = f.buckets.iter().map(|b| b.coll).collect();
    for (i, s) in f.samples.iter().enumerate() {
        if bucket_colls.contains(&i) {
            continue;
        }
        let name = a.types.unique(&pascal(&singular(&snake(&s.name))));
        let e = a.new_entity(name, i, Loc::root(), Some(s.name.clone()));
        a.roots.insert(i, e);
    }
    for (i, _) in f.samples.iter().enumerate() {
        if let Some(&e) = a.roots.get(&i) {
            a.describe(e);
        }
    }
    a.buckets();
    a.finish()
}

impl<'a> Assembly<'a> {
    fn new_entity(
        &mut self,
        name: String,
        coll: usize,
        place: Loc,
        collection: Option<String>,
    ) -> usize {
        self.entities.push(Ent {
            decl: EntityDecl {
                name,
                place: place.display(&self.f.samples[coll].name),
                collection,
                comments: Vec::new(),
                tree: false,
                discriminator: None,
                schema_version: None,
                fields: Vec::new(),
                variants: Vec::new(),
            },
            coll,
            place,
            names: BTreeMap::new(),
            namer: Namer::default(),
        });
        self.entities.len() - 1
    }

    fn consume(&mut self, coll: usize, place: &Loc, key: &str) {
        self.consumed.insert((coll, place.clone(), key.to_owned()));
    }

    fn is_consumed(&self, coll: usize, place: &Loc, key: &str) -> bool {
        self.consumed
            .contains(&(coll, place.clone(), key.to_owned()))
    }

    /// Marks the keys patterns account for, so they are not declared as fields.
    fn consume_patterns(&mut self) {
        let f = self.f;
        let root = Loc::root();
        for t in f.trees {
            self.consume(t.coll, &root, &t.parent);
            self.consume(t.coll, &root, &t.ancestors);
        }
        for v in f.variants {
            self.consume(v.coll, &root, &v.field);
        }
        for o in f.outliers {
            let b = &f.buckets[o.bucket];
            let parent = f.refs[b.owner].target;
            if let Some(flag) = &o.flag {
                self.consume(parent, &root, flag);
            }
            self.consume(parent, &root, &o.array);
        }
        for (s, _, _) in f.subsets {
            self.consume(s.parent, &root, &s.field);
        }
        for (i, r) in f.refs.iter().enumerate() {
            // The reference fields of trees are the pattern's.
            if f.trees.iter().any(|t| {
                t.coll == r.holder
                    && r.place.is_root()
                    && (r.field == t.parent || r.field == t.ancestors)
            }) {
                self.linked.insert(i);
            }
        }
    }

    fn sample(&self, coll: usize) -> &'a Sampled {
        &self.f.samples[coll]
    }

    /// What the documents at a place are called in comments: `books`, `books.notes[] elements`.
    fn noun(&self, coll: usize, place: &Loc) -> String {
        if place.is_root() {
            self.sample(coll).name.clone()
        } else {
            format!("{} values", place.display(&self.sample(coll).name))
        }
    }

    /// Declares the fields of entity `e` and the links of its place.
    fn describe(&mut self, e: usize) {
        let coll = self.entities[e].coll;
        let place = self.entities[e].place.clone();
        let Some(shape) = place.shape(&self.sample(coll).shape) else {
            return;
        };
        let noun = self.noun(coll, &place);
        self.entity_patterns(e, coll, &place, shape);
        let variant_keys: BTreeSet<String> = self
            .f
            .variants
            .iter()
            .filter(|v| v.coll == coll && place.is_root())
            .flat_map(|v| {
                v.variants
                    .iter()
                    .flat_map(|(_, _, keys)| keys.iter().cloned())
            })
            .collect();
        for (key, field) in &shape.fields {
            if variant_keys.contains(key) {
                continue;
            }
            if let Some(decl) = self.field(e, coll, &place, shape, key, field, &noun) {
                self.entities[e].decl.fields.push(decl);
            }
        }
        if shape.untracked_keys > 0 {
            let comment = format!(
                "{} more keys seen in {noun} are not described (more than {} distinct keys: they look like data)",
                words::n(shape.untracked_keys),
                super::shape::MAX_KEYS
            );
            self.entities[e].decl.comments.push(comment);
        }
        if shape.too_deep > 0 {
            let comment = format!(
                "{} of them nest deeper than {} levels: the deeper levels are not described",
                words::n(shape.too_deep),
                super::shape::MAX_DEPTH
            );
            self.entities[e].decl.comments.push(comment);
        }
        self.variant_decls(e, coll, &place, shape, &noun);
    }

    /// Trees, schema versions and natural keys of a collection's root entity.
    fn entity_patterns(&mut self, e: usize, coll: usize, place: &Loc, shape: &Shape) {
        if !place.is_root() {
            return;
        }
        let s = self.sample(coll);
        if let Some(t) = self.f.trees.iter().find(|t| t.coll == coll) {
            let ent = &mut self.entities[e];
            ent.decl.tree = true;
            ent.decl.comments.push(format!(
                "measured: a tree; `{}` is the last of `{}` in {} of {} sampled {} with a parent",
                t.parent,
                t.ancestors,
                words::n(t.agreeing),
                words::n(t.with_parent),
                s.name
            ));
        }
        if let Some((v, present)) = super::patterns::schema_version(s) {
            self.consume(coll, place, "schema_version");
            let ent = &mut self.entities[e];
            ent.decl.schema_version = Some(v);
            ent.decl.comments.push(format!(
                "measured: `schema_version` {}, newest {v}",
                words::presence(present, s.sampled, &s.name)
            ));
        }
        if let Some(v) = self.f.variants.iter().find(|v| v.coll == coll) {
            self.entities[e].decl.discriminator = Some(v.field.clone());
        }
        let _ = shape;
    }

    fn variant_decls(&mut self, e: usize, coll: usize, place: &Loc, shape: &Shape, noun: &str) {
        let Some(v) = self
            .f
            .variants
            .iter()
            .find(|v| v.coll == coll && place.is_root())
        else {
            return;
        };
        for (value, docs, keys) in &v.variants {
            let mut fields = Vec::new();
            for key in keys {
                if let Some(field) = shape.fields.get(key) {
                    let mut decl = self.field(e, coll, place, shape, key, field, noun);
                    if let Some(d) = decl.as_mut() {
                        // Inside its variant a field is optional only if some of its documents lack it.
                        d.optional = field.present < *docs || field.kinds.contains_key(&Kind::Null);
                        d.trailing = Some(format!(
                            "measured: in {} of {} sampled {noun} with `{}: {value}`",
                            words::n(field.present),
                            words::n(*docs),
                            v.field
                        ));
                    }
                    fields.extend(decl);
                }
            }
            let comment = format!(
                "measured: `{}: \"{value}\"` in {} of {} sampled {noun}",
                v.field,
                words::n(*docs),
                words::n(self.sample(coll).sampled)
            );
            self.entities[e]
                .decl
                .variants
                .push(super::draft::VariantDecl {
                    name: value.clone(),
                    comments: vec![comment],
                    fields,
                });
        }
    }

    /// Reserves a name for a key at entity `e`: the key itself when it is an identifier.
    fn name_for(&mut self, e: usize, key: &str) -> String {
        let name = self.entities[e].namer.unique(&field_name(key));
        self.entities[e].names.insert(key.to_owned(), name.clone());
        name
    }

    /// The declaration of one field, or `None` when it became a link, a pattern or is skipped.
    #[allow(clippy::too_many_arguments)]
    fn field(
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

    fn decl(
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
                    super::shape::MAX_ELEMENTS
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
    fn natural_key(
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
        let ty = kind.sqn().filter(|t| *t != "null")?;
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
    fn plain(&self, coll: usize, place: &Loc, shape: &Shape) -> bool {
        let refs_under = self.f.refs.iter().any(|r| {
            r.holder == coll
                && r.place.steps.len() >= place.steps.len()
                && r.place.steps[..place.steps.len()] == place.steps[..]
        });
        !refs_under && plain_shape(shape)
    }

    fn value_type(&mut self, key: &str, coll: usize, place: &Loc, shape: &Shape) -> String {
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
                super::shape::MAX_DEPTH
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
    fn map_type(&mut self, shape: &Shape) -> TypeExpr {
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

    fn map_value(&mut self, d: &Shape) -> String {
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

    fn array_type(&mut self, a: &ArrayShape) -> TypeExpr {
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
    fn attributes(
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
    fn recursive(&self, e: usize, a: &ArrayShape) -> bool {
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

    /// An array of documents shaped like their holder: a tree inside the document.
    fn self_link(&mut self, e: usize, coll: usize, place: &Loc, key: &str, a: &ArrayShape) {
        let mut lengths = a.lengths.clone();
        let mut level = a.doc.as_deref();
        let mut depth = 1;
        while let Some(d) = level {
            match d.fields.get(key).and_then(|f| f.array.as_deref()) {
                Some(next) => {
                    lengths.merge(&next.lengths);
                    level = next.doc.as_deref();
                    depth += 1;
                }
                None => level = None,
            }
        }
        let end = self.name_for(e, key);
        let name = self.entities[e].decl.name.clone();
        let here = place.child(key, true).display(&self.sample(coll).name);
        self.pending.push(Pending {
            link: Link {
                kind: LinkKind::Recursive,
                left: (e, end),
                right: (e, String::new()),
                left_measure: Measure::Sampled(lengths),
                right_measure: Measure::One,
                facts: Vec::new(),
                comments: vec![format!(
                    "{here} holds {name} documents inside {name} documents, {depth} levels deep in the sample"
                )],
                refs: Vec::new(),
            },
            wanted: Some((Side::Right, format!("parent_{}", snake(&name)))),
        });
    }

    /// A subdocument or array of subdocuments that is an entity of its own, embedded.
    fn embedded(
        &mut self,
        e: usize,
        coll: usize,
        place: &Loc,
        key: &str,
        array: bool,
        presence: &str,
    ) {
        let end = self.name_for(e, key);
        let child_place = place.child(key, array);
        let wanted = pascal(&singular(&snake(key)));
        let name = if self.types.is_taken(&wanted) {
            self.types
                .unique(&format!("{}{wanted}", self.entities[e].decl.name))
        } else {
            self.types.unique(&wanted)
        };
        let here = child_place.display(&self.sample(coll).name);
        let child = self.new_entity(name, coll, child_place.clone(), None);
        self.entities[child]
            .decl
            .comments
            .push(format!("measured: embedded in {here}, {presence}"));
        let parent_name = self.entities[e].decl.name.clone();
        let (kind, measure, what) = if array {
            (
                LinkKind::Embedded,
                Measure::Lengths {
                    coll,
                    place: place.clone(),
                    field: key.to_owned(),
                },
                "an array of embedded",
            )
        } else {
            (LinkKind::EmbeddedOne, Measure::One, "one embedded")
        };
        let child_name = self.entities[child].decl.name.clone();
        self.pending.push(Pending {
            link: Link {
                kind,
                left: (e, end),
                right: (child, String::new()),
                left_measure: measure,
                right_measure: Measure::One,
                facts: Vec::new(),
                comments: vec![format!(
                    "{here} is {what} {child_name} in each {parent_name}"
                )],
                refs: Vec::new(),
            },
            wanted: Some((Side::Right, snake(&parent_name))),
        });
        self.describe(child);
    }

    /// Pairs each array of references at a collection's root with a reference back from its
    /// target's root, if there is one: the two are one relation held on both sides.
    fn pair(&mut self) {
        let refs = self.f.refs;
        let mut taken = BTreeSet::new();
        for (r, rf) in refs.iter().enumerate() {
            if !rf.form.is_array()
                || !rf.place.is_root()
                || self.linked.contains(&r)
                || taken.contains(&r)
                || self.is_consumed(rf.holder, &rf.place, &rf.field)
            {
                continue;
            }
            let back = refs.iter().enumerate().find(|(b, bf)| {
                *b != r
                    && bf.holder == rf.target
                    && bf.target == rf.holder
                    && bf.place.is_root()
                    && !self.linked.contains(b)
                    && !taken.contains(b)
            });
            if let Some((b, _)) = back {
                taken.insert(r);
                taken.insert(b);
                self.pairs.insert(r, b);
                self.pairs.insert(b, r);
            }
        }
    }

    /// A reference held at entity `e`'s place.
    fn reference(&mut self, e: usize, r: usize) {
        if let Some(&b) = self.pairs.get(&r) {
            let (array, back) = if self.f.refs[r].form.is_array() {
                (r, b)
            } else {
                (b, r)
            };
            self.two_way(array, back);
            return;
        }
        let f = self.f;
        let rf = &f.refs[r];
        self.linked.insert(r);
        let Some(&target) = self.roots.get(&rf.target) else {
            return;
        };
        let holder_name = self.entities[e].decl.name.clone();
        let target_name = self.entities[target].decl.name.clone();
        let here = self.here(r);
        let found = self.found(r);
        let end = self.name_for(e, &rf.field);
        let facts = self.copies(r, e, target);
        let link = if rf.form.is_array() {
            Pending {
                link: Link {
                    kind: LinkKind::ParentRefs,
                    left: (e, end),
                    right: (target, String::new()),
                    left_measure: Measure::Lengths {
                        coll: rf.holder,
                        place: rf.place.clone(),
                        field: rf.field.clone(),
                    },
                    right_measure: Measure::HoldersPerTarget {
                        coll: rf.holder,
                        place: rf.place.clone(),
                        field: rf.field.clone(),
                        id: rf.form.id_key().map(str::to_owned),
                        target: rf.target,
                    },
                    facts,
                    comments: vec![format!("{here} holds {target_name} ids: {found}")],
                    refs: vec![r],
                },
                wanted: Some((Side::Right, plural(&snake(&holder_name)))),
            }
        } else {
            Pending {
                link: Link {
                    kind: LinkKind::ChildRef,
                    left: (target, String::new()),
                    right: (e, end),
                    left_measure: Measure::PerTarget {
                        coll: rf.holder,
                        place: rf.place.clone(),
                        path: rf.id_path(),
                        target: rf.target,
                    },
                    right_measure: Measure::One,
                    facts,
                    comments: vec![format!(
                        "{here} holds the _id of {}: {found}",
                        names::a(&target_name)
                    )],
                    refs: vec![r],
                },
                wanted: Some((Side::Left, plural(&snake(&holder_name)))),
            }
        };
        self.pending.push(link);
    }

    /// Where a reference is, for people: `books.author`.
    fn here(&self, r: usize) -> String {
        let rf = &self.f.refs[r];
        rf.place
            .child(&rf.field, false)
            .display(&self.sample(rf.holder).name)
    }

    /// How the lookups found a reference.
    fn found(&self, r: usize) -> String {
        let rf = &self.f.refs[r];
        format!(
            "{} of {} distinct sampled values are _ids in {}",
            words::n(rf.found),
            words::n(rf.checked),
            self.sample(rf.target).name
        )
    }

    /// An array of references at one root and a reference (or array) back at the other's.
    fn two_way(&mut self, r: usize, b: usize) {
        let f = self.f;
        let (rf, bf) = (&f.refs[r], &f.refs[b]);
        self.linked.insert(r);
        self.linked.insert(b);
        let (Some(&holder), Some(&target)) =
            (self.roots.get(&rf.holder), self.roots.get(&bf.holder))
        else {
            return;
        };
        let end = self.name_for(holder, &rf.field);
        let back_end = self.name_for(target, &bf.field);
        let right_measure = if bf.form.is_array() {
            Measure::Lengths {
                coll: bf.holder,
                place: Loc::root(),
                field: bf.field.clone(),
            }
        } else {
            Measure::One
        };
        let mut facts = self.copies(r, holder, target);
        facts.extend(self.copies(b, target, holder));
        let (here, there) = (self.here(r), self.here(b));
        facts.push(Fact {
            comments: vec![format!(
                "measured: both sides hold the link ({here} and {there})"
            )],
            kind: FactKind::NavigateBoth,
        });
        let comments = vec![
            format!("{here}: {}", self.found(r)),
            format!("{there}: {}", self.found(b)),
        ];
        self.pending.push(Pending {
            link: Link {
                kind: LinkKind::TwoWay,
                left: (holder, end),
                right: (target, back_end),
                left_measure: Measure::Lengths {
                    coll: rf.holder,
                    place: Loc::root(),
                    field: rf.field.clone(),
                },
                right_measure,
                facts,
                comments,
                refs: vec![r, b],
            },
            wanted: None,
        });
    }

    /// `show` facts for the copies beside reference `r`, held by `holder` and copied from
    /// `source`; plain copies beside the reference are consumed.
    fn copies(&mut self, r: usize, holder: usize, source: usize) -> Vec<Fact> {
        let f = self.f;
        let rf = &f.refs[r];
        let copies: Vec<&Copy> = f.copies.iter().filter(|c| c.reference == r).collect();
        if copies.is_empty() {
            return Vec::new();
        }
        let source_name = self.entities[source].decl.name.clone();
        let holder_name = self.entities[holder].decl.name.clone();
        let mut fields = Vec::new();
        let mut comments = Vec::new();
        for c in copies {
            if rf.form == Form::Scalar {
                self.consume(rf.holder, &rf.place, &c.key);
            }
            let source_field = self.entities[source]
                .names
                .get(&c.source)
                .cloned()
                .unwrap_or_else(|| field_name(&c.source));
            let path = format!("{source_name}.{source_field}");
            if !fields.contains(&path) {
                fields.push(path.clone());
            }
            comments.push(format!(
                "measured: `{}` copies {path}; {} of {} sampled copies differ ({} stale)",
                c.key,
                words::n(c.stale),
                words::n(c.compared),
                words::percent(c.stale, c.compared)
            ));
        }
        vec![Fact {
            comments,
            kind: FactKind::Show {
                fields,
                on: holder_name,
                ratio: None,
            },
        }]
    }

    /// Bucket collections: their children become an entity of their owner.
    fn buckets(&mut self) {
        let f = self.f;
        for (bi, b) in f.buckets.iter().enumerate() {
            let owner = &f.refs[b.owner];
            self.linked.insert(b.owner);
            let Some(&parent) = self.roots.get(&owner.target) else {
                continue;
            };
            let bucket_name = self.sample(b.coll).name.clone();
            let parent_name = self.entities[parent].decl.name.clone();
            if let Some(o) = f.outliers.iter().find(|o| o.bucket == bi) {
                self.outlier(parent, o, b);
                continue;
            }
            let wanted = pascal(&singular(&snake(&b.items)));
            let name = self.types.unique(&wanted);
            let place = Loc::root().child(&b.items, true);
            let child = self.new_entity(name, b.coll, place.clone(), None);
            self.entities[child].decl.comments.push(format!(
                "measured: kept in buckets of up to {} in {} (`{}` counts them)",
                words::n(b.size),
                place.display(&bucket_name),
                b.count
            ));
            self.describe(child);
            let child_names = self.entities[child].names.clone();
            let name_of = |k: &str| child_names.get(k).cloned().unwrap_or_else(|| field_name(k));
            let end = self.entities[child].namer.unique(&field_name(&owner.field));
            let mut facts = Vec::new();
            let mut summaries: Vec<Summary> = b
                .summaries
                .iter()
                .map(|(_, how, field)| match how {
                    Agg::Sum => Summary::Total(name_of(field)),
                    Agg::Max => Summary::Max(name_of(field)),
                    Agg::Min => Summary::Min(name_of(field)),
                })
                .collect();
            match &b.time_range {
                Some((start, end_field, field)) => {
                    facts.push(Fact {
                        comments: vec![format!(
                            "measured: each bucket keeps the first and last `{field}` in `{start}` and `{end_field}`"
                        )],
                        kind: FactKind::TimeRange(name_of(field)),
                    });
                    summaries.insert(0, Summary::Count);
                }
                None => facts.push(Fact {
                    comments: vec![format!(
                        "measured: the largest bucket holds {}{}",
                        words::n(b.size),
                        b.order.as_ref().map_or(String::new(), |(f, desc)| format!(
                            ", ordered by `{f}` {}",
                            if *desc { "descending" } else { "ascending" }
                        ))
                    )],
                    kind: FactKind::Page {
                        size: b.size.max(1),
                        by: b.order.as_ref().map(|(f, d)| (name_of(f), *d)),
                    },
                }),
            }
            if !b.summaries.is_empty() {
                if !summaries.contains(&Summary::Count) {
                    summaries.insert(0, Summary::Count);
                }
                let list: Vec<String> = b
                    .summaries
                    .iter()
                    .map(|(k, how, f)| format!("`{k}` = {how:?}({f})").to_lowercase())
                    .collect();
                facts.push(Fact {
                    comments: vec![format!("measured: each bucket keeps {}", list.join(", "))],
                    kind: FactKind::Summary(summaries),
                });
            }
            let child_name = self.entities[child].decl.name.clone();
            self.pending.push(Pending {
                link: Link {
                    kind: LinkKind::Bucket,
                    left: (parent, String::new()),
                    right: (child, end),
                    left_measure: Measure::BucketSums {
                        coll: b.coll,
                        owner: owner.field.clone(),
                        count: b.count.clone(),
                        target: owner.target,
                    },
                    right_measure: Measure::One,
                    facts,
                    comments: vec![format!(
                        "{} holds {child_name} documents of one {parent_name} in buckets ({bucket_name}.{} refers to the {parent_name})",
                        place.display(&bucket_name),
                        owner.field
                    )],
                    refs: vec![b.owner],
                },
                wanted: Some((Side::Left, field_name(&b.items))),
            });
        }
    }

    /// An array in a parent whose overflow goes to buckets: one relation, counted over both.
    fn outlier(&mut self, parent: usize, o: &Outlier, b: &Bucket) {
        let f = self.f;
        let owner = &f.refs[b.owner];
        let coll = owner.target;
        let end = self.name_for(parent, &o.array);
        let wanted = pascal(&singular(&snake(&o.array)));
        let name = self.types.unique(&wanted);
        let place = Loc::root().child(&o.array, true);
        let child = self.new_entity(name, coll, place.clone(), None);
        let coll_name = self.sample(coll).name.clone();
        let bucket_name = self.sample(b.coll).name.clone();
        self.entities[child].decl.comments.push(format!(
            "measured: embedded in {}, the overflow in {bucket_name}",
            place.display(&coll_name)
        ));
        self.describe(child);
        let parent_name = self.entities[parent].decl.name.clone();
        let child_name = self.entities[child].decl.name.clone();
        self.pending.push(Pending {
            link: Link {
                kind: LinkKind::Outlier,
                left: (parent, end),
                right: (child, String::new()),
                left_measure: Measure::Overflow {
                    parent: coll,
                    array: o.array.clone(),
                    flag: o.flag.clone(),
                    coll: b.coll,
                    owner: owner.field.clone(),
                    count: b.count.clone(),
                },
                right_measure: Measure::One,
                facts: Vec::new(),
                comments: vec![format!(
                    "{} holds {child_name} documents of each {parent_name}; those that do not fit go to {bucket_name}{}",
                    place.display(&coll_name),
                    o.flag.as_ref().map_or(String::new(), |f| format!(" (`{f}` marks the {parent_name}s that overflowed)"))
                )],
                refs: vec![b.owner],
            },
            wanted: Some((Side::Right, snake(&parent_name))),
        });
    }

    /// Names the far ends, attaches subset facts, and returns the layout.
    fn finish(mut self) -> Layout {
        let f = self.f;
        for (s, checked, mirrored) in f.subsets {
            let Some(pos) = self
                .pending
                .iter()
                .position(|p| p.link.refs.contains(&s.child_ref))
            else {
                continue;
            };
            let child = self.pending[pos].link.right.0;
            let names = self.entities[child].names.clone();
            let name_of = |k: &str| names.get(k).cloned().unwrap_or_else(|| field_name(k));
            let by = (name_of(&s.by.0), s.by.1);
            let keep: Vec<String> = s.keep.iter().map(|k| name_of(k)).collect();
            let parent_name = &self.sample(s.parent).name;
            let comment = format!(
                "measured: {} keeps up to {} of them ordered by `{}`; it mirrors their newest in {} of {} sampled {parent_name} checked",
                Loc::root().child(&s.field, true).display(parent_name),
                words::n(s.n),
                s.by.0,
                words::n(*mirrored),
                words::n(*checked)
            );
            let kind = if s.latest {
                FactKind::Latest {
                    n: s.n.max(1),
                    by,
                    keep,
                }
            } else {
                FactKind::Top {
                    n: s.n.max(1),
                    by,
                    keep,
                }
            };
            self.pending[pos].link.facts.push(Fact {
                comments: vec![comment],
                kind,
            });
        }
        let mut links = Vec::new();
        for p in std::mem::take(&mut self.pending) {
            let mut link = p.link;
            match p.wanted {
                Some((Side::Left, wanted)) => {
                    link.left.1 = self.entities[link.left.0].namer.unique(&wanted);
                }
                Some((Side::Right, wanted)) => {
                    link.right.1 = self.entities[link.right.0].namer.unique(&wanted);
                }
                None => {}
            }
            links.push(link);
        }
        Layout {
            entities: self.entities,
            values: self.values,
            links,
        }
    }
}

/// `[{k, v}]` arrays.
fn attribute_pairs(a: &ArrayShape) -> bool {
    a.doc.as_deref().is_some_and(|d| {
        let keys: Vec<&String> = d.fields.keys().collect();
        keys.len() == 2 && d.fields.contains_key("k") && d.fields.contains_key("v")
    })
}

/// No `_id` and no arrays of documents anywhere inside.
fn plain_shape(shape: &Shape) -> bool {
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
fn scalar(f: &FieldShape) -> TypeExpr {
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

/// Whether `name` could be written as an identifier (variant names must be).
pub fn is_name(name: &str) -> bool {
    is_ident(name)
}
