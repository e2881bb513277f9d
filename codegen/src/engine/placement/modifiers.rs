//! What a relationship keeps on the parent beside its layout: subsets (`latest N`), computed top-N
//! lists and summaries, and the copies they hold.

use crate::model::{Layout, Relation, RelationEnd, SummaryFn};
use crate::plan::{Computed, ComputedFn, FieldKind, PlanField, SubsetPlan};

use crate::engine::basis::Obligation;
use crate::engine::context::Ctx;
use crate::engine::fields::{new_field, reference};
use crate::engine::relation::Choice;
use crate::prose::{n_of, plural};

use super::{Holder, Layouted, Placed, ID};

pub(super) fn summary_name(
    all: &[crate::model::Summary],
    function: SummaryFn,
    field: Option<&str>,
    prefix: Option<&str>,
) -> String {
    let same_fn = all.iter().filter(|s| s.function == function).count();
    let base = match (function, field) {
        (SummaryFn::Count, _) => "count".to_owned(),
        (f, Some(field)) if same_fn > 1 => format!("{}_{field}", f.as_str()),
        (f, _) => f.as_str().to_owned(),
    };
    match prefix {
        Some(p) => format!("{p}_{base}"),
        None => base,
    }
}

pub(super) fn summary_bson(
    ctx: &Ctx<'_>,
    child: &str,
    function: SummaryFn,
    field: Option<&str>,
) -> &'static str {
    if function == SummaryFn::Count {
        return "int";
    }
    let source = field
        .and_then(|f| ctx.entity(child).and_then(|e| e.field(f)))
        .and_then(|f| f.ty.scalar())
        .map(|b| b.json_schema_name())
        .unwrap_or("double");
    // A total of 32-bit integers outgrows them (a listener's milliseconds played): the server
    // widens an overflowing `$inc` to a long, which an `int` validator would then refuse.
    if function == SummaryFn::Total && source == "int" {
        "long"
    } else {
        source
    }
}

/// Subset (`latest N`), computed top-N (`top N`) and summaries kept on the parent.
pub(super) fn modifiers(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    p_coll: &str,
    choice: &Choice,
    out: &mut Layouted,
) {
    let f = &rel.facts;
    let holder = Holder::Entity(parent.entity.clone());
    let taken: Vec<String> = out
        .placed
        .iter()
        .filter(|p| p.holder == holder)
        .map(|p| p.field.name.clone())
        .collect();
    // The children of a bucket or of an embedded array are its elements, whose writes keep the
    // copies (`Decision::copies_kept_by_layout`), even when their entity has a collection of its
    // own (as the parent, for an entity bucketed under its own kind, or for another relationship):
    // bucket elements have no `_id`, nor have embedded children unless they embed their own kind
    // (an entity embedded in itself keeps its id), so their copies hold the kept fields only.
    // Children stored as documents are copied with their `_id`, which finds them.
    let embedded_with_id = child.entity == parent.entity;
    let with_id = match choice.strategy {
        Layout::Bucket => false,
        Layout::Embed => embedded_with_id,
        _ => true,
    };
    let child_id = if with_id {
        ID.to_owned()
    } else {
        String::new()
    };
    if let Some(latest) = &f.latest {
        // Embedded children are the latest N already; under the outlier pattern the newest of a
        // large parent are in the overflow, so the parent keeps a copy of them, as for children
        // stored apart (every push, embedded or overflowing, pushes the copy).
        if choice.strategy == Layout::Embed && choice.outlier_cap.is_none() {
            out.obligations.push(Obligation::LatestEmbedded {
                n: latest.n,
                child: child.entity.clone(),
                cap: choice.outlier_cap,
            });
        } else {
            let name = if taken.contains(&parent.field) {
                format!("latest_{}", parent.field)
            } else {
                parent.field.clone()
            };
            let kept = subset_keep(ctx, child, &latest.keep, &latest.by.field);
            let mut field = copies_field(ctx, &name, (&parent.entity, child), &kept, rel, with_id);
            field.set_outer_bound(Some(latest.n));
            field.docs = vec![format!(
                "subset ({}): the latest {} by {}, copied here so the {} reads them in one go; all of them stay in their own place (seed 004: latest 1000 log messages)",
                rel.id,
                n_of(latest.n, &child.entity),
                latest.by.field,
                parent.entity
            )];
            let keep = copy_names(&field);
            out.placed.push(Placed {
                holder: holder.clone(),
                field,
                embed_entity: None,
            });
            out.subset = Some(SubsetPlan {
                collection: p_coll.to_owned(),
                path: name.clone(),
                n: latest.n,
                sort_by: sort_name(ctx, child, &latest.by.field),
                descending: latest.by.descending,
                child_id: child_id.clone(),
                keep,
                children: None,
            });
            out.obligations.push(Obligation::SubsetPush {
                child: child.entity.clone(),
                path: name.clone(),
                by: latest.by.field.clone(),
                n: latest.n,
            });
        }
    }
    if let Some(top) = &f.top {
        let name = format!("top_{}", parent.field);
        let kept = subset_keep(ctx, child, &top.keep, &top.by.field);
        let mut field = copies_field(ctx, &name, (&parent.entity, child), &kept, rel, with_id);
        field.kind = FieldKind::Computed;
        field.set_outer_bound(Some(top.n));
        field.docs = vec![format!(
            "computed top-{} ({}): the best {} by {} {}, maintained on write with $push, $each, $sort and $slice (seed 002 best times)",
            top.n,
            rel.id,
            n_of(top.n, &child.entity),
            top.by.field,
            if top.by.descending { "descending" } else { "ascending" }
        )];
        let keep = copy_names(&field);
        out.placed.push(Placed {
            holder: holder.clone(),
            field,
            embed_entity: None,
        });
        out.computed.push(Computed {
            collection: p_coll.to_owned(),
            path: name.clone(),
            function: ComputedFn::TopN {
                n: top.n,
                sort_by: sort_name(ctx, child, &top.by.field),
                descending: top.by.descending,
                child_id: child_id.clone(),
                keep,
                children: None,
            },
            field: Some(top.by.field.clone()),
        });
        out.obligations.push(Obligation::TopPush {
            child: child.entity.clone(),
            path: name.clone(),
            by: top.by.field.clone(),
            n: top.n,
            same_write: crate::engine::cost::parent_rewritten_by_append(choice.strategy),
        });
    }
    // Under buckets the parent keeps the summaries unless each bucket keeps its own
    // (`per bucket`).
    if choice.strategy != Layout::Bucket || f.summary_per_bucket.is_none() {
        let summaries = stored_summaries(&f.summary);
        for summary in &summaries {
            let path = summary_name(
                &summaries,
                summary.function,
                summary.field.as_deref(),
                Some(&parent.field),
            );
            let bson = summary_bson(
                ctx,
                &child.entity,
                summary.function,
                summary.field.as_deref(),
            );
            let mut sf = new_field("", &path, FieldKind::Computed, bson);
            // A parent exists before its first child: the largest or smallest of no children is
            // absent, not a made-up value a later `$max`/`$min` would compare against.
            sf.optional = matches!(summary.function, SummaryFn::Max | SummaryFn::Min);
            sf.docs = vec![format!(
                "computed ({}): {}{} over the {}'s {}, maintained on write",
                rel.id,
                summary.function.as_str(),
                summary
                    .field
                    .as_deref()
                    .map_or(String::new(), |f| format!("({f})")),
                parent.entity,
                plural(&child.entity)
            )];
            sf.relation = Some(rel.id.clone());
            out.placed.push(Placed {
                holder: holder.clone(),
                field: sf,
                embed_entity: None,
            });
            out.computed.push(Computed {
                collection: p_coll.to_owned(),
                path: path.clone(),
                function: ComputedFn::Summary {
                    summary: summary.function,
                },
                field: summary.field.as_deref().map(|x| sort_name(ctx, child, x)),
            });
            out.obligations.push(Obligation::SummaryUpdate {
                child: child.entity.clone(),
                path: path.clone(),
                same_write: crate::engine::cost::parent_rewritten_by_append(choice.strategy),
            });
        }
        averages(
            &f.summary,
            &summaries,
            p_coll,
            Some(&parent.field),
            &mut out.computed,
        );
    }
}

/// The summaries stored on write: those declared, less `avg`, plus the total and the count each
/// `avg(f)` divides (the mean itself is never stored: it is read as total / count).
pub(super) fn stored_summaries(declared: &[crate::model::Summary]) -> Vec<crate::model::Summary> {
    use crate::model::Summary;
    let mut out: Vec<Summary> = declared
        .iter()
        .filter(|s| s.function != SummaryFn::Avg)
        .cloned()
        .collect();
    for avg in declared.iter().filter(|s| s.function == SummaryFn::Avg) {
        let total = Summary {
            function: SummaryFn::Total,
            field: avg.field.clone(),
        };
        if !out.contains(&total) {
            out.push(total);
        }
        if !out.iter().any(|s| s.function == SummaryFn::Count) {
            out.insert(
                0,
                Summary {
                    function: SummaryFn::Count,
                    field: None,
                },
            );
        }
    }
    out
}

/// One computed `Average` per `avg(f)`, naming the stored total and count it divides.
pub(super) fn averages(
    declared: &[crate::model::Summary],
    stored: &[crate::model::Summary],
    collection: &str,
    prefix: Option<&str>,
    out: &mut Vec<Computed>,
) {
    for avg in declared.iter().filter(|s| s.function == SummaryFn::Avg) {
        let field = avg.field.as_deref();
        out.push(Computed {
            collection: collection.to_owned(),
            path: summary_name(declared, SummaryFn::Avg, field, prefix),
            function: ComputedFn::Average {
                total_path: summary_name(stored, SummaryFn::Total, field, prefix),
                count_path: summary_name(stored, SummaryFn::Count, None, prefix),
            },
            field: avg.field.clone(),
        });
    }
}

/// One kept field of a child's copy: a declared field, the child's id (`_id`), or a relation end
/// through which the child holds one other entity (its reference, as the child stores it; see
/// [`mirror_kept_references`]).
fn kept_field(
    ctx: &Ctx<'_>,
    entity: &crate::model::Entity,
    keep: &str,
    prefix: &str,
) -> Option<PlanField> {
    if keep == "_id" {
        let mut id = new_field(
            prefix,
            "_id",
            FieldKind::Ref,
            crate::engine::fields::id_type(ctx, &entity.name).json_schema_name(),
        );
        id.code_name = "id".to_owned();
        id.source = Some(entity.name.clone());
        return Some(id);
    }
    if let Some(f) = entity.field(keep) {
        return Some(crate::engine::fields::declared(ctx.model, f, prefix, 0));
    }
    let other = ctx.relations_at(&entity.name).iter().find_map(|r| {
        [(&r.left, &r.right), (&r.right, &r.left)]
            .into_iter()
            .find(|(end, _)| end.entity == entity.name && end.field == keep)
            .map(|(_, other)| other)
    })?;
    // A copy of the reference, not where that relationship is stored: no `relation`, so no
    // index or placement is derived from it.
    Some(reference(ctx, prefix, keep, &other.entity))
}

/// A kept reference (`keep user`) copies the child's reference as the child stores it: when
/// another relationship extended that reference with copies (`user: {id, name}`), the kept copy
/// takes the same shape.
pub(crate) fn mirror_kept_references(layouts: &mut [Layouted]) {
    let mut placed: std::collections::HashMap<(Holder, String), PlanField> = Default::default();
    for lay in layouts.iter() {
        for p in &lay.placed {
            if p.field.kind == FieldKind::Ref {
                placed.insert((p.holder.clone(), p.field.name.clone()), p.field.clone());
            }
        }
    }
    for lay in layouts.iter_mut() {
        for p in &mut lay.placed {
            if p.field.kind != FieldKind::Denormalized && p.field.kind != FieldKind::Computed {
                continue;
            }
            let Some(child) = p.field.source.clone() else {
                continue;
            };
            let prefix = p.field.path.clone();
            for kept in &mut p.field.children {
                if kept.kind != FieldKind::Ref || kept.name == "_id" {
                    continue;
                }
                if let Some(real) = placed.get(&(Holder::Entity(child.clone()), kept.name.clone()))
                {
                    let mut copy = real.clone();
                    crate::engine::fields::reroot(&mut copy, &prefix);
                    copy.relation = None;
                    *kept = copy;
                }
            }
        }
    }
}

/// The child fields a subset's or top-N list's copy keeps besides its `_id`: those of `keep`
/// (every declared field when empty), less the child's reference back to the parent (the parent's
/// own id, which the parent holds already), plus the field that orders them (the `$sort` of every
/// push reads it from the copies).
fn subset_keep(ctx: &Ctx<'_>, child: &RelationEnd, keep: &[String], by: &str) -> Vec<String> {
    let mut kept: Vec<String> = if keep.is_empty() {
        ctx.entity(&child.entity)
            .map(|e| e.fields.iter().map(|f| f.name.clone()).collect())
            .unwrap_or_default()
    } else {
        keep.to_vec()
    };
    kept.retain(|k| k != ID && *k != child.field);
    if !kept.iter().any(|k| k == by) {
        kept.push(by.to_owned());
    }
    kept
}

/// The BSON names of a copy's fields besides `_id`.
fn copy_names(field: &PlanField) -> Vec<String> {
    field
        .children
        .iter()
        .filter(|c| c.name != ID)
        .map(|c| c.name.clone())
        .collect()
}

/// The BSON name of the child's field `field` (`@stored` renames it): what sorts, summaries and
/// time ranges read in the child's documents or array elements.
pub(super) fn sort_name(ctx: &Ctx<'_>, child: &RelationEnd, field: &str) -> String {
    ctx.entity(&child.entity)
        .and_then(|e| e.field(field))
        .map_or_else(|| field.to_owned(), |f| f.bson_name.clone())
}

/// An array of copies of a child: its `_id` (which finds the copy when the child changes or goes;
/// not for bucket elements, which have none), then the fields `keep`.
fn copies_field(
    ctx: &Ctx<'_>,
    name: &str,
    (parent, child): (&str, &RelationEnd),
    keep: &[String],
    rel: &Relation,
    with_id: bool,
) -> PlanField {
    let mut field = new_field("", name, FieldKind::Denormalized, "object");
    if let Some(entity) = ctx.entity(&child.entity) {
        let mut children: Vec<PlanField> = Vec::new();
        let id = with_id.then_some(ID);
        let kept = keep
            .iter()
            .map(String::as_str)
            .filter(|k| with_id || *k != ID);
        for k in id.into_iter().chain(kept) {
            if let Some(f) = kept_field(ctx, entity, k, name) {
                if !children.iter().any(|c| c.name == f.name) {
                    children.push(f);
                }
            }
        }
        field.children = children;
    }
    field.set_array(None);
    // Named after the list it types, as an array of extended references is (`TicketEvents` for
    // a Ticket's `events`, `ShelfTopBins` for its `top_bins`), never child + list (`EventEvents`).
    field.type_name = Some(format!("{parent}{}", crate::engine::fields::pascal(name)));
    field.relation = Some(rel.id.clone());
    field.source = Some(child.entity.clone());
    field
}

/// Where each subset's and top-N list's children live, read off the final placements: the child's
/// own collection and its top-level reference to the parent (`post`, `post.id` when copies
/// extended it). Layouts without one (the parent holds the ids, buckets, embedding) keep `None`.
pub(crate) fn subset_children(
    decisions: &mut [crate::plan::Decision],
    collections: &[crate::plan::Collection],
) {
    let collections = crate::plan::CollectionsByName::new(collections);
    for d in decisions.iter_mut() {
        let found = d.children_in(&collections);
        if let Some(s) = &mut d.subset {
            s.children = found.clone();
        }
        for x in &mut d.computed {
            if let ComputedFn::TopN { children, .. } = &mut x.function {
                *children = found.clone();
            }
        }
    }
}
