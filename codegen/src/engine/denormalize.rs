//! Rule 5: copying fields shown with the other side (extended references), by read/write ratio.
//!
//! A `show A.f on B ratio r` fact, or a query on B that filters on `rel.f`, asks for A's fields
//! when B is read. With references, the copy lives at B's reference to A (`author: {id, name}`),
//! and every copy creates a fan-out obligation: updating A.f must update every B that holds it.

use crate::model::{Layout, Relation, Show};
use crate::plan::{Denormalized, FanOut, FieldKind, Rejected, RuleId};

use super::context::Ctx;
use super::fields::{declared, join};
use super::placement::{Holder, Layouted};
use super::relation::Choice;

/// A copy that rule 5 declined, or that could not be placed.
pub(crate) struct Declined {
    pub source: String,
    pub reason: String,
    /// A query needed it (the query must join in the application).
    pub for_query: Option<String>,
}

/// The outcome for one relationship.
pub(crate) struct Copies {
    pub denormalized: Vec<Denormalized>,
    pub declined: Vec<Declined>,
    pub rules: Vec<RuleId>,
    pub facts: Vec<String>,
}

struct Want {
    from: String,
    fields: Vec<String>,
    on: String,
    ratio: Option<f64>,
    query: Option<String>,
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
        })
        .collect();
    // Queries that filter or sort through this relationship need the copy too.
    for q in ctx.queries_through(&rel.id) {
        let paths = q
            .conditions
            .iter()
            .map(|c| &c.path)
            .chain(q.sort.iter().map(|s| &s.path));
        for path in paths {
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
                    w.query.get_or_insert_with(|| q.name.clone());
                }
                continue;
            }
            out.push(Want {
                from: through.entity.clone(),
                fields: vec![through.field.clone()],
                on: q.entity.clone(),
                ratio: None,
                query: Some(q.name.clone()),
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
    {
        let sources: Vec<String> = want
            .fields
            .iter()
            .map(|f| format!("{}.{f}", want.from))
            .collect();
        let source_words = sources.join(", ");
        if choice.strategy == Layout::Embed
            || (choice.strategy == Layout::Bucket && want.on == rel.parent().entity)
        {
            result.facts.push(format!(
                "{source_words} is read with {} without a copy: they share a document",
                want.on
            ));
            continue;
        }
        let immutable = ctx
            .entity(&want.from)
            .map(|e| {
                want.fields
                    .iter()
                    .all(|f| e.field(f).is_some_and(|fl| fl.facts.immutable))
            })
            .unwrap_or(false);
        let ratio_words = match want.ratio {
            _ if immutable => "never updated (immutable)".to_owned(),
            Some(r) => format!("{} reads per update", trim(r)),
            None => "no read/write ratio given".to_owned(),
        };
        result.facts.push(match &want.query {
            Some(q) => format!(
                "query `{q}` on {} filters on {source_words} ({ratio_words})",
                want.on
            ),
            None => format!(
                "{source_words} is shown with every {} ({ratio_words})",
                want.on
            ),
        });
        let copy = match want.ratio {
            // An immutable field never changes: its copies never fan out, whatever the ratio.
            _ if immutable => Ok(()),
            Some(r) if r <= 1.0 => Err(format!(
                "{source_words} is updated at least as often as it is read (ratio {}): copies would cost more writes than the reads they save (rule 5)",
                trim(r)
            )),
            Some(r) if r < threshold => Err(format!(
                "{source_words} is read {} times per update, below the threshold of {} (rule 5): an application-level join is cheaper (rule 4)",
                trim(r),
                trim(threshold)
            )),
            Some(_) => Ok(()),
            None if immutable || want.query.is_some() => Ok(()),
            None => Err(format!(
                "no read/write ratio is given for {source_words}: state `ratio` to let rule 5 decide; until then the application joins (rule 4)"
            )),
        };
        if let Err(reason) = copy {
            result.declined.push(Declined {
                source: source_words,
                reason,
                for_query: want.query.clone(),
            });
            continue;
        }
        match place_copy(ctx, rel, lay, &want, choice.strategy) {
            Ok(copies) => {
                result.denormalized.extend(copies);
                if !result.rules.contains(&RuleId::Rule5) {
                    result.rules.push(RuleId::Rule5);
                    result.rules.push(RuleId::ExtendedReference);
                }
            }
            Err(reason) => result.declined.push(Declined {
                source: source_words,
                reason,
                for_query: want.query.clone(),
            }),
        }
    }
    result
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
    vec![
        Want {
            fields: fixed,
            from: want.from.clone(),
            on: want.on.clone(),
            ratio: want.ratio,
            query: want.query.clone(),
        },
        Want {
            fields: other,
            ..want
        },
    ]
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
    strategy: Layout,
) -> Result<Vec<Denormalized>, String> {
    let from_entity = ctx
        .entity(&want.from)
        .ok_or_else(|| format!("unknown entity {}", want.from))?;
    let (parent, child) = (rel.parent(), rel.child());
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
    let (holder, path, in_array) = match (single, array) {
        (Some((h, p)), _) => (h, p, false),
        (None, Some((h, p))) => (h, p, true),
        (None, None)
            if strategy == Layout::ParentRefs
                && child.entity == want.on
                && parent.entity == want.from =>
        {
            // A parent_refs child holds no reference to its parent: it gets one, to carry the copies.
            let mut f = super::fields::reference(ctx, "", &child.field, &want.from);
            f.relation = Some(rel.id.clone());
            f.docs = vec![format!(
                "extended reference ({}): the {}'s id, carried so the copies can be kept in step",
                rel.id, want.from
            )];
            let holder = Holder::Entity(want.on.clone());
            lay.placed.push(super::placement::Placed {
                holder: holder.clone(),
                field: f,
                embed_entity: None,
            });
            lay.child_ref = Some((holder.clone(), child.field.clone()));
            (holder, child.field.clone(), false)
        }
        _ => {
            return Err(format!(
                "a {} holds no reference to {} in the {} layout{}",
                want.on,
                want.from,
                strategy.as_str(),
                if strategy == Layout::OneWay || strategy == Layout::ChildRef {
                    ", and giving it one would need an unbounded array (rule 3)"
                } else {
                    ""
                }
            ));
        }
    };
    let collection = holder_collection(ctx, &holder);
    let placed = lay
        .placed
        .iter_mut()
        .find(|p| p.holder == holder && p.field.name == path)
        .ok_or_else(|| format!("no reference field {path} to extend"))?;
    super::fields::extend_reference(&mut placed.field, &want.from);
    let mut out = Vec::new();
    for field_name in &want.fields {
        let Some(field) = from_entity.field(field_name) else {
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
        if !placed.field.children.iter().any(|c| c.name == copy.name) {
            placed.field.children.push(copy.clone());
        }
        let copy_path = join(&path, &field.bson_name);
        let fan_out = if in_array {
            FanOut {
                collection: collection.clone(),
                match_path: join(&path, "id"),
                set_path: format!("{path}.$[elem].{}", field.bson_name),
                array_filter: Some("elem.id".to_owned()),
            }
        } else {
            FanOut {
                collection: collection.clone(),
                match_path: join(&path, "id"),
                set_path: copy_path.clone(),
                array_filter: None,
            }
        };
        if field.facts.immutable {
            lay.obligations.push(format!(
                "{}.{} is immutable: its copies in `{}` never need updating",
                want.from, field.name, collection
            ));
        } else {
            lay.obligations.push(format!(
            "updating {}.{} fans out to every copy: updateMany on `{}` where {} is the {}'s id, setting {}{}",
            want.from,
            field.name,
            collection,
            fan_out.match_path,
            want.from,
            fan_out.set_path,
            match want.ratio {
                Some(r) => format!(" (about 1 update per {} reads)", trim(r)),
                None => String::new(),
            }
        ));
        }
        out.push(Denormalized {
            source: format!("{}.{}", want.from, field.name),
            collection: collection.clone(),
            copy_path,
            reads_per_update: want.ratio,
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
pub(crate) fn rejected(declined: &[Declined]) -> Vec<Rejected> {
    declined
        .iter()
        .map(|d| Rejected {
            strategy: "denormalized".to_owned(),
            why: format!("copying {}: {}", d.source, d.reason),
            rules: vec![RuleId::Rule5],
        })
        .collect()
}
