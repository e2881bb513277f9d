//! Where the live layout differs from the plan: a relation end whose field holds something else
//! than the plan keeps there (an array of embedded documents where the plan keeps a reference,
//! ids where it embeds), or holds the relation where the plan keeps it elsewhere, and collections
//! the plan needs that do not exist.

use std::collections::BTreeMap;

use squillion_codegen::model::Model;
use squillion_codegen::plan::{Decision, FieldKind, Plan, PlanField, Shape as Stored};

use super::checks::{Finding, FindingKind};
use crate::infer::shape::{FieldShape, Kind, Shape};
use crate::infer::words;

/// What a live field holds, as the plan's vocabulary says it.
fn live(f: &FieldShape) -> Option<Stored> {
    let (kind, _) = f.main_kind()?;
    Some(match kind {
        Kind::Array => match f.array.as_ref()?.main_kind()?.0 {
            Kind::Document => {
                let el = f.array.as_ref()?.doc.as_deref()?;
                if el.fields.contains_key("id") {
                    Stored::ArrayOfExtendedRefs
                } else {
                    Stored::ArrayOfSubdocuments
                }
            }
            _ => Stored::ArrayOfIds,
        },
        Kind::Document => {
            if f.doc
                .as_deref()
                .is_some_and(|d| d.fields.contains_key("id"))
            {
                Stored::ExtendedRef
            } else {
                Stored::Subdocument
            }
        }
        _ => Stored::Id,
    })
}

/// Whether the live shape is the planned one (an extended reference holds an id too).
fn same(planned: Stored, found: Stored) -> bool {
    planned == found
        || matches!(
            (planned, found),
            (Stored::ArrayOfExtendedRefs, Stored::ArrayOfSubdocuments)
                | (Stored::ExtendedRef, Stored::Subdocument)
        )
}

/// What the field holds, with its numbers: `an array of subdocuments (p50 3, p99 41, max 405
/// elements)`.
fn found(f: &FieldShape, shape: Stored) -> String {
    let what = match shape {
        Stored::ArrayOfSubdocuments => "an array of embedded documents",
        Stored::ArrayOfExtendedRefs => "an array of extended references",
        Stored::ArrayOfIds => "an array of ids",
        Stored::Subdocument => "an embedded document",
        Stored::ExtendedRef => "an extended reference",
        Stored::Id => "an id",
    };
    match &f.array {
        Some(a) => format!("{what} ({} elements)", words::spread(&a.lengths)),
        None => what.to_owned(),
    }
}

/// What the plan keeps in a field of a collection: placements, subsets, top-N lists and
/// overflowing arrays alike are fields of the planned collection.
fn kept(f: &PlanField) -> Stored {
    // An embedding cycle's field (an entity embedded in itself) holds documents whose fields the
    // Plan leaves out, as they repeat an enclosing type: it is nested all the same.
    let nested = !f.children.is_empty() || f.recursive;
    match (f.kind, f.array_depth > 0, nested) {
        (FieldKind::Ref, _, true) => Stored::ExtendedRef,
        (FieldKind::Ref, _, false) => Stored::Id,
        (FieldKind::RefArray, _, true) => Stored::ArrayOfExtendedRefs,
        (FieldKind::RefArray, _, false) => Stored::ArrayOfIds,
        (_, true, true) => Stored::ArrayOfSubdocuments,
        (_, true, false) => Stored::ArrayOfIds,
        (_, false, true) => Stored::Subdocument,
        (_, false, false) => Stored::Id,
    }
}

fn planned(plan: &Plan, d: &Decision, here: Option<&PlanField>) -> String {
    let places: Vec<String> = d
        .placement
        .iter()
        .map(|p| {
            format!(
                "{}.{} holds {}",
                p.collection,
                p.path,
                squillion_codegen::prose::holds(&plan.collections, p)
            )
        })
        .collect();
    let what = match here {
        None => "nothing here".to_owned(),
        Some(f) => kept(f).describe(f.source.as_deref().unwrap_or(&d.child)),
    };
    format!(
        "the plan keeps {what} for {} ({}: {})",
        d.id,
        d.strategy.as_str(),
        places.join("; ")
    )
}

/// The layout findings of one sampled collection, by the relation ends of its entity and of
/// every entity the plan embeds in it (a `Line` embedded in `orders.lines` whose `product` end
/// is kept elsewhere holds that end at `lines.product`).
pub fn findings(model: &Model, plan: &Plan, collection: &str, shape: &Shape) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(c) = plan.collection(collection) else {
        return out;
    };
    if c.role != squillion_codegen::plan::CollectionRole::Entity || shape.seen == 0 {
        return out;
    }
    let mut places: Vec<(&str, String)> = vec![(c.entity.as_str(), String::new())];
    for d in &plan.relationships {
        for p in &d.placement {
            if p.collection == collection
                && matches!(p.shape, Stored::Subdocument | Stored::ArrayOfSubdocuments)
                && !places.iter().any(|(e, at)| *e == p.target && *at == p.path)
            {
                places.push((p.target.as_str(), p.path.clone()));
            }
        }
    }
    for (entity, at) in places {
        let (live_here, planned_here) = if at.is_empty() {
            (Some(shape), Some(c.fields.as_slice()))
        } else {
            (
                live_at(shape, &at),
                c.field_at(&at).map(|f| f.children.as_slice()),
            )
        };
        // Nothing sampled at the place: the relation that embeds it says so at its parent.
        let (Some(live_here), Some(planned_here)) = (live_here, planned_here) else {
            continue;
        };
        ends_at(
            model,
            plan,
            collection,
            entity,
            &at,
            live_here,
            planned_here,
            &mut out,
        );
    }
    // Below an array the count is of values; a finding concerns documents.
    for f in &mut out {
        f.count = f.count.min(shape.seen);
    }
    out
}

/// The live shape of the documents at a dotted path: its subdocuments or document elements.
fn live_at<'a>(root: &'a Shape, path: &str) -> Option<&'a Shape> {
    let mut shape = root;
    for seg in path.split('.') {
        let f = shape.fields.get(seg)?;
        shape = match f.array.as_ref().and_then(|a| a.doc.as_deref()) {
            Some(d) => d,
            None => f.doc.as_deref()?,
        };
    }
    Some(shape)
}

/// The findings of the relation ends of `entity`, kept (or not) in the fields `planned` at
/// path `at` of the collection, against the live `shape` there.
#[allow(clippy::too_many_arguments)]
fn ends_at(
    model: &Model,
    plan: &Plan,
    collection: &str,
    entity: &str,
    at: &str,
    shape: &Shape,
    planned_fields: &[PlanField],
    out: &mut Vec<Finding>,
) {
    let mut ends: BTreeMap<&str, &str> = BTreeMap::new();
    for r in &model.relations {
        if r.left.entity == entity {
            ends.insert(&r.left.field, &r.id);
        }
        if r.right.entity == entity {
            ends.insert(&r.right.field, &r.id);
        }
    }
    let holders = if at.is_empty() {
        "documents".to_owned()
    } else {
        format!("`{at}` values")
    };
    for (end, id) in ends {
        let Some(d) = plan.relationship(id) else {
            continue;
        };
        let path = if at.is_empty() {
            end.to_owned()
        } else {
            format!("{at}.{end}")
        };
        let here = planned_fields.iter().find(|f| f.name == end);
        let field = shape.fields.get(end);
        let detail = match (field.and_then(live), here) {
            (Some(found_shape), Some(p)) if same(kept(p), found_shape) => continue,
            (None, None) => continue,
            (Some(found_shape), _) => format!(
                "`{path}` holds {} in {} sampled {holders}; {}",
                found(field.unwrap_or(&FieldShape::default()), found_shape),
                words::n(field.map_or(0, |f| f.present)),
                planned(plan, d, here)
            ),
            (None, Some(p)) if p.optional => continue,
            // Present but never holding anything (empty arrays): any planned shape fits.
            (None, Some(_)) if field.is_some_and(|f| f.present > 0) => continue,
            (None, Some(_)) => format!(
                "no sampled {} has `{path}`; {}",
                if at.is_empty() {
                    "document".to_owned()
                } else {
                    format!("`{at}` value")
                },
                planned(plan, d, here)
            ),
        };
        out.push(Finding {
            collection: collection.to_owned(),
            kind: FindingKind::LayoutDiffers,
            path: Some(path),
            count: field.map_or(shape.seen, |f| f.present),
            example: None,
            detail,
            help: None,
            drift: None,
            cost: Default::default(),
        });
    }
}

/// A collection of the plan that the database does not have.
pub fn missing_collection(plan: &Plan, name: &str) -> Option<Finding> {
    let c = plan.collection(name)?;
    let role = match &c.role {
        squillion_codegen::plan::CollectionRole::Entity => format!("{} documents", c.entity),
        squillion_codegen::plan::CollectionRole::Bucket { relation } => {
            format!("buckets of {relation}")
        }
        squillion_codegen::plan::CollectionRole::Link { relation } => {
            format!("the pairs of {relation}")
        }
        squillion_codegen::plan::CollectionRole::Overflow { relation } => {
            format!("the overflow of {relation}")
        }
        squillion_codegen::plan::CollectionRole::History => {
            format!("past versions of {}", c.entity)
        }
    };
    Some(Finding {
        collection: name.to_owned(),
        kind: FindingKind::MissingCollection,
        path: None,
        count: 0,
        example: None,
        detail: format!("the plan keeps {role} in `{name}`, which does not exist"),
        help: None,
        drift: None,
        cost: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the audit expects at every field a relationship places is the placement's own shape,
    /// over the Plans of a generated batch (embedding cycles among them: the Plan leaves a
    /// recursive field's children out, and the audit read such an array as ids).
    #[test]
    fn the_audit_expects_what_the_plan_places() {
        let mut recursive = 0;
        let mut checked = 0;
        for (_, schema) in squillion_schemagen::covering_batch(1, 80, Default::default()) {
            let text = squillion_schemagen::render(&schema);
            let source = squillion_grammar::SourceFile::new("gen.sqn", text.clone());
            let model = match squillion_codegen::load(&source) {
                Ok(c) => c.model,
                Err(d) => panic!("generated schema does not check: {d:?}\n{text}"),
            };
            let plan = squillion_codegen::engine::plan(&model, &source);
            for d in &plan.relationships {
                for p in &d.placement {
                    let Some(f) = plan
                        .collection(&p.collection)
                        .and_then(|c| c.field_at(&p.path))
                    else {
                        continue;
                    };
                    checked += 1;
                    recursive += usize::from(f.recursive);
                    assert!(
                        same(p.shape, kept(f)),
                        "{}.{}: the audit expects {:?} where the plan places {:?}\n{text}",
                        p.collection,
                        p.path,
                        kept(f),
                        p.shape
                    );
                }
            }
        }
        assert!(checked > 100, "only {checked} placements checked");
        assert!(recursive > 0, "the batch has no embedding cycle");
    }
}
