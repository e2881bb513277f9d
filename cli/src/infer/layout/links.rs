//! The links of the layout: embedded documents and arrays, references (one way or both),
//! copies beside them, buckets and outlier overflow, and the far ends' names.

use super::*;

impl Assembly<'_> {
    /// An array of documents shaped like their holder: a tree inside the document.
    pub(super) fn self_link(
        &mut self,
        e: usize,
        coll: usize,
        place: &Loc,
        key: &str,
        a: &ArrayShape,
    ) {
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
    pub(super) fn embedded(
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

    /// Pairs each array of references at a collection's root with the reference back from its
    /// target's root that the data confirms (the documents it names name its holder back): the
    /// two are one relation held on both sides. Shapes alone pair wrongly when an entity is
    /// related to another (or itself) more than once.
    pub(super) fn pair(&mut self) {
        let refs = self.f.refs;
        let mut checked: Vec<&Checked> = self.f.backrefs.iter().filter(|c| c.holds()).collect();
        // The best agreement first, then the order found.
        checked.sort_by(|a, b| {
            (b.agreeing * a.checked.max(1))
                .cmp(&(a.agreeing * b.checked.max(1)))
                .then((a.array, a.back).cmp(&(b.array, b.back)))
        });
        let mut taken = BTreeSet::new();
        for c in checked {
            let (r, b) = (c.array, c.back);
            let rf = &refs[r];
            if [r, b]
                .iter()
                .any(|x| self.linked.contains(x) || taken.contains(x))
                || self.is_consumed(rf.holder, &rf.place, &rf.field)
            {
                continue;
            }
            taken.insert(r);
            taken.insert(b);
            self.pairs.insert(r, b);
            self.pairs.insert(b, r);
            self.agreement.insert(r, (c.agreeing, c.checked));
        }
    }

    /// A reference held at entity `e`'s place.
    pub(super) fn reference(&mut self, e: usize, r: usize) {
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
        self.consume_copies(r, target);
        self.copy_facts
            .push((self.pending.len(), vec![(r, e, target)]));
        let facts = Vec::new();
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
    pub(super) fn here(&self, r: usize) -> String {
        let rf = &self.f.refs[r];
        rf.place
            .child(&rf.field, false)
            .display(&self.sample(rf.holder).name)
    }

    /// How the lookups found a reference.
    pub(super) fn found(&self, r: usize) -> String {
        let rf = &self.f.refs[r];
        format!(
            "{} of {} distinct sampled values are _ids in {}",
            words::n(rf.found),
            words::n(rf.checked),
            self.sample(rf.target).name
        )
    }

    /// An array of references at one root and a reference (or array) back at the other's.
    pub(super) fn two_way(&mut self, r: usize, b: usize) {
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
        self.consume_copies(r, target);
        self.consume_copies(b, holder);
        self.copy_facts.push((
            self.pending.len(),
            vec![(r, holder, target), (b, target, holder)],
        ));
        let mut facts = Vec::new();
        let (here, there) = (self.here(r), self.here(b));
        let (agreeing, checked) = self.agreement.get(&r).copied().unwrap_or_default();
        facts.push(Fact {
            comments: vec![format!(
                "measured: both sides hold the link ({here} and {there}: {} of {} ids looked up refer back)",
                words::n(agreeing),
                words::n(checked)
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

    /// Whether copy `c` has a source field: only a field of the source can be copied, not a
    /// key that becomes no field there (a variant's discriminator, equal between documents of
    /// one variant, or a key a pattern or link takes).
    fn has_source(&self, c: &Copy, source: usize) -> bool {
        let ent = &self.entities[source];
        if ent.names.is_empty() {
            // Not described yet: its sampled root keys that nothing else takes.
            c.source != "_id"
                && ent
                    .place
                    .shape(&self.sample(ent.coll).shape)
                    .is_some_and(|s| s.fields.contains_key(&c.source))
                && !self.is_consumed(ent.coll, &ent.place, &c.source)
        } else {
            ent.names.contains_key(&c.source)
        }
    }

    /// Consumes the plain copies beside reference `r` (copied from entity `source`), so that
    /// the holder does not declare them as fields: the `show` fact states them.
    pub(super) fn consume_copies(&mut self, r: usize, source: usize) {
        let f = self.f;
        let rf = &f.refs[r];
        if rf.form != Form::Scalar {
            return;
        }
        for c in f.copies.iter().filter(|c| c.reference == r) {
            if self.has_source(c, source) {
                self.consume(rf.holder, &rf.place, &c.key);
            }
        }
    }

    /// `show` facts for the copies beside reference `r`, held by `holder` and copied from
    /// `source`, once every entity is described.
    pub(super) fn copies(&self, r: usize, holder: usize, source: usize) -> Vec<Fact> {
        let f = self.f;
        let copies: Vec<&Copy> = f.copies.iter().filter(|c| c.reference == r).collect();
        if copies.is_empty() {
            return Vec::new();
        }
        let source_name = self.entities[source].decl.name.clone();
        let holder_name = self.entities[holder].decl.name.clone();
        let mut fields = Vec::new();
        let mut comments = Vec::new();
        for c in copies {
            let Some(source_field) = self.entities[source].names.get(&c.source).cloned() else {
                continue;
            };
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
        if fields.is_empty() {
            return Vec::new();
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
    pub(super) fn buckets(&mut self) {
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
                    kind: FactKind::Summary {
                        items: summaries,
                        per_bucket: true,
                    },
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
    pub(super) fn outlier(&mut self, parent: usize, o: &Outlier, b: &Bucket) {
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
    pub(super) fn finish(mut self) -> Layout {
        let f = self.f;
        for (pos, requests) in std::mem::take(&mut self.copy_facts) {
            let facts: Vec<Fact> = requests
                .iter()
                .flat_map(|&(r, holder, source)| self.copies(r, holder, source))
                .collect();
            if let Some(p) = self.pending.get_mut(pos) {
                p.link.facts.splice(0..0, facts);
            }
        }
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
