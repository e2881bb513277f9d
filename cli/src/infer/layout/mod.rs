//! The live layout read as facts: which places hold entities, which fields are plain values, and
//! which links (embedded arrays, references, buckets...) relate entities. Pure: it reads the
//! samples, references, copies and patterns found, and says what to measure for each link.

use std::collections::{BTreeMap, BTreeSet};

mod fields;
mod links;
mod pairs;

use super::backrefs::Checked;
use super::copies::Copy;
use super::draft::{Attr, EntityDecl, Fact, FactKind, FieldDecl, Summary, TypeExpr, ValueDecl};
use super::evidence::Agg;
use super::histogram::Histogram;
use super::link_collections::LinkCollection;
use super::names::{self, field_name, pascal, plural, singular, snake, Namer};
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
    /// Link collections (one document per pair of a many-to-many relation).
    pub link_collections: &'a [LinkCollection],
    /// Arrays of references and references back, checked on the data.
    pub backrefs: &'a [Checked],
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
    /// One document per pair in a collection of its own.
    LinkCollection,
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

/// A reference, the entity holding it and the entity its copies come from.
type CopyOf = (usize, usize, usize);

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
    /// For each paired array: how many of the ids looked up referred back, of how many.
    agreement: BTreeMap<usize, (u64, u64)>,
    /// Copies beside references, stated once every entity has its fields' names (a source
    /// collection may be described after its holder): the pending link, then (reference,
    /// holder, source) in the order their `show` facts come first in the link's facts.
    copy_facts: Vec<(usize, Vec<CopyOf>)>,
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
        agreement: BTreeMap::new(),
        copy_facts: Vec::new(),
    };
    a.consume_patterns();
    a.pair();
    let mut apart: BTreeSet<usize> = f.buckets.iter().map(|b| b.coll).collect();
    apart.extend(f.link_collections.iter().map(|l| l.coll));
    for (i, s) in f.samples.iter().enumerate() {
        if apart.contains(&i) {
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
    a.link_collections();
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
                versioned_future: false,
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
        for l in f.link_collections {
            self.linked.insert(l.left);
            self.linked.insert(l.right);
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
        if let Some(present) = super::patterns::versioned_future(s) {
            // The pattern declares the four fields and the index of `current_at`.
            for f in super::patterns::VERSION_FIELDS {
                self.consume(coll, place, f);
            }
            let ent = &mut self.entities[e];
            ent.decl.versioned_future = true;
            ent.decl.comments.push(format!(
                "measured: versions of documents: `document_id`, `version`, `valid_from` and `valid_to` {}",
                words::presence(present, s.sampled, &s.name)
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
}
