//! Rule 5: copying fields shown with the other side (extended references), by read/write ratio.
//!
//! A `show A.f on B ratio r` fact, or a query on B that filters on `rel.f`, asks for A's fields
//! when B is read. With references, the copy lives at B's reference to A (`author: {id, name}`),
//! and every copy creates a fan-out obligation: updating A.f must update every B that holds it.

use crate::model::{Layout, Relation, Show};
use crate::plan::{Denormalized, FanOut, FieldKind, RuleId};

use super::basis::{self, Against, Fact, Obligation, Ratio};
use super::context::Ctx;
use super::fields::{declared, join};
use super::placement::{Holder, Layouted};
use super::relation::Choice;

/// A copy that rule 5 declined, or that could not be placed.
pub(crate) struct Declined {
    pub source: String,
    pub reason: basis::Declined,
    /// A query needed it (the query must join in the application).
    pub for_query: Option<String>,
}

/// The outcome for one relationship.
pub(crate) struct Copies {
    pub denormalized: Vec<Denormalized>,
    pub declined: Vec<Declined>,
    pub rules: Vec<RuleId>,
    pub facts: Vec<Fact>,
}

struct Want {
    from: String,
    fields: Vec<String>,
    on: String,
    ratio: Option<f64>,
    query: Option<basis::QueryUse>,
    /// The fields `query` reads (a show of several fields may be read by a query through one).
    queried: Vec<String>,
}

impl Want {
    /// The want for some of its fields, in their order: the query stays with the fields it reads.
    fn part(&self, fields: Vec<String>) -> Want {
        let queried: Vec<String> = self
            .queried
            .iter()
            .filter(|f| fields.contains(f))
            .cloned()
            .collect();
        Want {
            from: self.from.clone(),
            fields,
            on: self.on.clone(),
            ratio: self.ratio,
            query: self.query.clone().filter(|_| !queried.is_empty()),
            queried,
        }
    }

    /// Split into runs of fields the query reads and fields it does not (in the fields' order),
    /// so that a fact names a query only beside the fields it reads (`show Depot.name,
    /// Depot.city` read through `where depot.city == ?`: the query filters on the city only).
    fn split_by_query(self) -> Vec<Want> {
        if self.query.is_none() || self.fields.iter().all(|f| self.queried.contains(f)) {
            return vec![self];
        }
        let mut runs: Vec<Vec<String>> = Vec::new();
        let mut last: Option<bool> = None;
        for f in &self.fields {
            let read = self.queried.contains(f);
            match runs.last_mut() {
                Some(run) if last == Some(read) => run.push(f.clone()),
                _ => runs.push(vec![f.clone()]),
            }
            last = Some(read);
        }
        runs.into_iter().map(|run| self.part(run)).collect()
    }
}

fn wants(ctx: &Ctx<'_>, rel: &Relation) -> Vec<Want> {
    let mut out: Vec<Want> = rel
        .facts
        .shows
        .iter()
        .map(|s: &Show| Want {
            from: s.from.clone(),
            fields: s.fields.clone(),
            on: s.on.clone(),
            ratio: s.ratio,
            query: None,
            queried: Vec::new(),
        })
        .collect();
    // Queries that filter or sort through this relationship need the copy too.
    for q in ctx.queries_through(&rel.id) {
        let paths = q
            .conditions
            .iter()
            .map(|c| (&c.path, false))
            .chain(q.sort.iter().map(|s| (&s.path, true)));
        for (path, sorts) in paths {
            let Some(through) = &path.through else {
                continue;
            };
            if through.relation != rel.id {
                continue;
            }
            let covered = out.iter().any(|w| {
                w.on == q.entity && w.from == through.entity && w.fields.contains(&through.field)
            });
            if covered {
                if let Some(w) = out
                    .iter_mut()
                    .find(|w| w.on == q.entity && w.fields.contains(&through.field))
                {
                    let used = w.query.get_or_insert_with(|| basis::QueryUse {
                        name: q.name.clone(),
                        filters: false,
                        sorts: false,
                    });
                    if used.name == q.name {
                        used.filters |= !sorts;
                        used.sorts |= sorts;
                        if !w.queried.contains(&through.field) {
                            w.queried.push(through.field.clone());
                        }
                    }
                }
                continue;
            }
            out.push(Want {
                from: through.entity.clone(),
                fields: vec![through.field.clone()],
                on: q.entity.clone(),
                ratio: None,
                query: Some(basis::QueryUse {
                    name: q.name.clone(),
                    filters: !sorts,
                    sorts,
                }),
                queried: vec![through.field.clone()],
            });
        }
    }
    out
}

pub(crate) fn copies(ctx: &Ctx<'_>, rel: &Relation, choice: &Choice, lay: &mut Layouted) -> Copies {
    let threshold = ctx.settings.denormalize_min_ratio;
    let mut result = Copies {
        denormalized: Vec::new(),
        declined: Vec::new(),
        rules: Vec::new(),
        facts: Vec::new(),
    };
    for want in wants(ctx, rel)
        .into_iter()
        .flat_map(|w| split_immutable(ctx, w))
        .flat_map(Want::split_by_query)
    {
        if choice.strategy == Layout::Embed
            || (choice.strategy == Layout::Bucket && want.on == rel.parent().entity)
        {
            result.facts.push(Fact::SharedDocument {
                sources: want
                    .fields
                    .iter()
                    .map(|f| format!("{}.{f}", want.from))
                    .collect(),
                on: want.on.clone(),
            });
            continue;
        }
        // The source's natural key is the value its reference holds: no copy beside it.
        let (keys, rest) = split_keys(ctx, &want);
        if !keys.is_empty() {
            result.facts.push(Fact::KeyInReference {
                sources: keys.iter().map(|f| format!("{}.{f}", want.from)).collect(),
                on: want.on.clone(),
            });
        }
        let want = match (keys.is_empty(), rest.is_empty()) {
            (true, _) => want,
            (false, false) => want.part(rest),
            // Only the key: the reference is all it takes. A parent_refs child holds none, and
            // gets one (place_copy copies no key into it).
            (false, true) => {
                let (parent, child) = sides(rel, choice);
                let unreferenced = held_reference(rel, choice, lay, &want).is_none()
                    && choice.strategy == Layout::ParentRefs
                    && child.entity == want.on
                    && parent.entity == want.from;
                if unreferenced {
                    let first = result.denormalized.len();
                    if let Err(reason) = place_copy(ctx, rel, lay, &want, choice, first) {
                        result.declined.push(Declined {
                            source: keys.join(", "),
                            reason,
                            for_query: want.query.as_ref().map(|u| u.name.clone()),
                        });
                    }
                }
                continue;
            }
        };
        let sources: Vec<String> = want
            .fields
            .iter()
            .map(|f| format!("{}.{f}", want.from))
            .collect();
        let source_words = sources.join(", ");
        let immutable = all_immutable(ctx, &want);
        result.facts.push(Fact::Shown {
            sources,
            on: want.on.clone(),
            ratio: match want.ratio {
                _ if immutable => Ratio::Immutable,
                Some(r) => Ratio::Reads(r),
                None => Ratio::Unknown,
            },
            query: want.query.clone(),
        });
        if let Err(reason) = verdict(&want, immutable, threshold) {
            result.declined.push(Declined {
                source: source_words,
                reason,
                for_query: want.query.as_ref().map(|u| u.name.clone()),
            });
            continue;
        }
        match place_copy(ctx, rel, lay, &want, choice, result.denormalized.len()) {
            Ok(copies) => {
                result.denormalized.extend(copies);
                if !result.rules.contains(&RuleId::Rule5) {
                    result.rules.push(RuleId::Rule5);
                    result.rules.push(RuleId::ExtendedReference);
                }
                // Copied for a query, no ratio saying so: rule 6 (model for the reads).
                let for_query = want.ratio.is_none() && !immutable && want.query.is_some();
                if for_query && !result.rules.contains(&RuleId::Rule6) {
                    result.rules.push(RuleId::Rule6);
                }
            }
            Err(reason) => result.declined.push(Declined {
                source: source_words,
                reason,
                for_query: want.query.as_ref().map(|u| u.name.clone()),
            }),
        }
    }
    result
}

/// Rule 5's verdict on a wanted copy, before it is placed.
fn verdict(want: &Want, immutable: bool, threshold: f64) -> Result<(), basis::Declined> {
    match want.ratio {
        // An immutable field never changes: its copies never fan out, whatever the ratio.
        _ if immutable => Ok(()),
        Some(r) if r <= 1.0 => Err(basis::Declined::UpdatedOften { ratio: r }),
        Some(r) if r < threshold => Err(basis::Declined::BelowThreshold {
            ratio: r,
            threshold,
        }),
        Some(_) => Ok(()),
        None if want.query.is_some() => Ok(()),
        None => Err(basis::Declined::NoRatio),
    }
}

/// The fields `want` asks for that are its source's natural key (`@key`), and the others.
fn split_keys(ctx: &Ctx<'_>, want: &Want) -> (Vec<String>, Vec<String>) {
    want.fields
        .iter()
        .cloned()
        .partition(|f| ctx.entity(&want.from).is_some_and(|e| e.is_key(f)))
}

/// Whether every field `want` asks for is `@immutable`.
fn all_immutable(ctx: &Ctx<'_>, want: &Want) -> bool {
    ctx.entity(&want.from).is_some_and(|e| {
        want.fields
            .iter()
            .all(|f| e.field(f).is_some_and(|fl| fl.facts.immutable))
    })
}

/// The copies of a one-to-many relationship rule 5 will keep, by where they live: whether its
/// children carry mutable fields of their parent (kept in step by a fan-out that finds them by
/// the parent's id), and whether its parent shows any of its children's fields. Read before the
/// layout is chosen: the same verdicts [`copies`] gives after.
pub(crate) struct CopySides {
    /// The parent's mutable fields its children carry (`Customer.name`); empty when none.
    pub mutable_on_child: Vec<String>,
    pub on_parent: bool,
}

pub(crate) fn copy_sides(ctx: &Ctx<'_>, rel: &Relation) -> CopySides {
    let threshold = ctx.settings.denormalize_min_ratio;
    let (parent, child) = (&rel.parent().entity, &rel.child().entity);
    let mut sides = CopySides {
        mutable_on_child: Vec::new(),
        on_parent: false,
    };
    for want in wants(ctx, rel)
        .into_iter()
        .flat_map(|w| split_immutable(ctx, w))
    {
        let immutable = all_immutable(ctx, &want);
        if verdict(&want, immutable, threshold).is_err() {
            continue;
        }
        if want.on == *child && want.from == *parent {
            if !immutable {
                let fields = want.fields.iter().map(|f| format!("{parent}.{f}"));
                sides.mutable_on_child.extend(fields);
            }
        } else if want.on == *parent {
            sides.on_parent = true;
        }
    }
    sides
}

/// Rule 5 decides per field: the `@immutable` fields of a `show` are copied whatever the ratio
/// says about the others, so a want is split into its immutable and its other fields.
fn split_immutable(ctx: &Ctx<'_>, want: Want) -> Vec<Want> {
    let Some(entity) = ctx.entity(&want.from) else {
        return vec![want];
    };
    let (fixed, other): (Vec<String>, Vec<String>) = want
        .fields
        .iter()
        .cloned()
        .partition(|f| entity.field(f).is_some_and(|fl| fl.facts.immutable));
    if fixed.is_empty() || other.is_empty() {
        return vec![want];
    }
    vec![want.part(fixed), want.part(other)]
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

/// Turns the reference to `want.from` held by `want.on` into an extended reference carrying the
/// copies, and states the fan-out.
fn place_copy(
    ctx: &Ctx<'_>,
    rel: &Relation,
    lay: &mut Layouted,
    want: &Want,
    choice: &Choice,
    first: usize,
) -> Result<Vec<Denormalized>, basis::Declined> {
    let strategy = choice.strategy;
    let from_entity = ctx
        .entity(&want.from)
        .ok_or_else(|| basis::Declined::Unknown {
            what: want.from.clone(),
        })?;
    let (parent, child) = sides(rel, choice);
    let (holder, path, in_array) = match held_reference(rel, choice, lay, want) {
        Some(held) => held,
        None if strategy == Layout::ParentRefs
            && child.entity == want.on
            && parent.entity == want.from =>
        {
            // A parent_refs child holds no reference to its parent: it gets one, to carry the copies.
            let mut f = super::fields::reference(ctx, "", &child.field, &want.from);
            f.relation = Some(rel.id.clone());
            f.docs = vec![if want.fields.iter().all(|f| from_entity.is_key(f)) {
                format!(
                    "reference ({}): the {}'s key, shown with this document",
                    rel.id, want.from
                )
            } else {
                format!(
                    "extended reference ({}): the {}'s id, carried so the copies can be kept in step",
                    rel.id, want.from
                )
            }];
            let holder = Holder::Entity(want.on.clone());
            lay.placed.push(super::placement::Placed {
                holder: holder.clone(),
                field: f,
                embed_entity: None,
            });
            lay.child_ref = Some((holder.clone(), child.field.clone()));
            if want.fields.iter().all(|f| from_entity.is_key(f)) {
                // Only the key is shown: the plain reference holds it.
                return Ok(Vec::new());
            }
            (holder, child.field.clone(), false)
        }
        _ => {
            // A reference would take an array of as many as `want.on` has of `want.from`.
            let needed = [&rel.left, &rel.right]
                .into_iter()
                .find(|e| e.entity == want.on)
                .and_then(|e| e.cardinality.max(ctx.settings));
            return Err(basis::Declined::NoReference {
                on: want.on.clone(),
                from: want.from.clone(),
                layout: strategy,
                needed,
            });
        }
    };
    let collection = holder_collection(ctx, &holder);
    // The reference: a field placed in the holder's documents, or in a collection the
    // relationship adds (the parent reference of each bucket).
    let in_extra = match &holder {
        Holder::Collection(name) => lay
            .extra
            .iter_mut()
            .filter(|x| x.name == *name)
            .flat_map(|x| x.fields.iter_mut())
            .find(|f| f.name == path),
        Holder::Entity(_) => None,
    };
    let reference = match in_extra {
        Some(f) => f,
        None => lay
            .placed
            .iter_mut()
            .find(|p| p.holder == holder && p.field.name == path)
            .map(|p| &mut p.field)
            .ok_or_else(|| basis::Declined::Unknown {
                what: format!("the reference field {path}"),
            })?,
    };
    super::fields::extend_reference(reference, &want.from);
    let mut out = Vec::new();
    for field_name in &want.fields {
        // The key is the reference's own value: never a copy beside it.
        let Some(field) = from_entity
            .field(field_name)
            .filter(|_| !from_entity.is_key(field_name))
        else {
            continue;
        };
        let mut copy = declared(ctx.model, field, &path, 0);
        copy.kind = FieldKind::Denormalized;
        // A copy is neither unique (many documents copy one source) nor indexed or expiring on
        // its own account: queries that need it get their index from the query.
        copy.flags.unique = false;
        copy.flags.indexed = false;
        copy.flags.expire_after_seconds = None;
        copy.source = Some(format!("{}.{}", want.from, field.name));
        copy.docs = vec![format!(
            "copy of {}.{} (rule 5, extended reference): {}",
            want.from,
            field.name,
            match want.ratio {
                _ if field.facts.immutable => "never updated (immutable)".to_owned(),
                Some(r) => format!("read {} times per update", trim(r)),
                None => "needed by a query".to_owned(),
            }
        )];
        if !reference.children.iter().any(|c| c.name == copy.name) {
            reference.children.push(copy.clone());
        }
        let copy_path = join(&path, &field.bson_name);
        let fan_out = if in_array {
            FanOut {
                collection: collection.clone(),
                match_path: join(&path, "id"),
                set_path: format!("{path}.$[elem].{}", field.bson_name),
                array_filters: vec!["elem.id".to_owned()],
            }
        } else {
            FanOut {
                collection: collection.clone(),
                match_path: join(&path, "id"),
                set_path: copy_path.clone(),
                array_filters: Vec::new(),
            }
        };
        lay.obligations.push(Obligation::FanOut(first + out.len()));
        out.push(Denormalized {
            source: format!("{}.{}", want.from, field.name),
            collection: collection.clone(),
            copy_path,
            reads_per_update: want.ratio,
            immutable: field.facts.immutable,
            fan_out,
        });
    }
    for p in &mut lay.placement {
        if p.path == path && p.collection == collection {
            p.shape = if in_array {
                crate::plan::Shape::ArrayOfExtendedRefs
            } else {
                crate::plan::Shape::ExtendedRef
            };
        }
    }
    Ok(out)
}

/// The parent as the decision sees it (for one_way, the side holding the id array), and the child.
fn sides<'r>(
    rel: &'r Relation,
    choice: &Choice,
) -> (&'r crate::model::RelationEnd, &'r crate::model::RelationEnd) {
    let parent = rel.end(choice.parent);
    let child = match choice.parent {
        crate::model::Side::Left => &rel.right,
        crate::model::Side::Right => &rel.left,
    };
    (parent, child)
}

/// The reference to `want.from` the layout already gives `want.on`: its holder, its path, and
/// whether it is an array of references.
fn held_reference(
    rel: &Relation,
    choice: &Choice,
    lay: &Layouted,
    want: &Want,
) -> Option<(Holder, String, bool)> {
    let (parent, child) = sides(rel, choice);
    // The single reference to the parent, held by the child (child_ref, two_way) or by buckets.
    let single = lay.child_ref.clone().filter(|(h, _)| {
        want.from == parent.entity
            && match h {
                Holder::Entity(e) => *e == want.on,
                Holder::Collection(_) => child.entity == want.on,
            }
    });
    // The array of references to the children, held by the parent (parent_refs, two_way, one_way).
    let array = lay
        .parent_array
        .clone()
        .filter(|(h, _)| want.from == child.entity && holder_is(h, &want.on));
    // The array of references to the parents, held by each child (many-to-many two_way).
    let array = array.or_else(|| {
        lay.child_array
            .clone()
            .filter(|(h, _)| want.from == parent.entity && holder_is(h, &want.on))
    });
    match (single, array) {
        (Some((h, p)), _) => Some((h, p, false)),
        (None, Some((h, p))) => Some((h, p, true)),
        (None, None) => None,
    }
}

fn holder_is(holder: &Holder, entity: &str) -> bool {
    matches!(holder, Holder::Entity(e) if e == entity)
}

fn holder_collection(ctx: &Ctx<'_>, holder: &Holder) -> String {
    match holder {
        Holder::Entity(e) => ctx
            .entity(e)
            .map(|e| e.collection.clone())
            .unwrap_or_else(|| e.clone()),
        Holder::Collection(c) => c.clone(),
    }
}

/// Declined copies as rejected alternatives of the decision.
pub(crate) fn rejected(declined: &[Declined]) -> Vec<super::relation::Rejection> {
    declined
        .iter()
        .map(|d| super::relation::Rejection {
            strategy: None,
            rules: vec![RuleId::Rule5],
            against: Against::Copy {
                sources: d.source.clone(),
                why: d.reason.clone(),
            },
        })
        .collect()
}
