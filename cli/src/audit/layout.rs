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
    let nested = !f.children.is_empty();
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

fn planned(d: &Decision, here: Option<&PlanField>) -> String {
    let places: Vec<String> = d
        .placement
        .iter()
        .map(|p| {
            format!(
                "{}.{} holds {}",
                p.collection,
                p.path,
                p.shape.describe(&p.target)
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

/// The layout findings of one sampled collection, by the relation ends of its entity.
pub fn findings(model: &Model, plan: &Plan, collection: &str, shape: &Shape) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(c) = plan.collection(collection) else {
        return out;
    };
    if c.role != squillion_codegen::plan::CollectionRole::Entity || shape.seen == 0 {
        return out;
    }
    let mut ends: BTreeMap<&str, &str> = BTreeMap::new();
    for r in &model.relations {
        if r.left.entity == c.entity {
            ends.insert(&r.left.field, &r.id);
        }
        if r.right.entity == c.entity {
            ends.insert(&r.right.field, &r.id);
        }
    }
    for (end, id) in ends {
        let Some(d) = plan.relationship(id) else {
            continue;
        };
        let here = c.field(end);
        let field = shape.fields.get(end);
        let detail = match (field.and_then(live), here) {
            (Some(found_shape), Some(p)) if same(kept(p), found_shape) => continue,
            (None, None) => continue,
            (Some(found_shape), _) => format!(
                "`{end}` holds {} in {} sampled documents; {}",
                found(field.unwrap_or(&FieldShape::default()), found_shape),
                words::n(field.map_or(0, |f| f.present)),
                planned(d, here)
            ),
            (None, Some(p)) if p.optional => continue,
            // Present but never holding anything (empty arrays): any planned shape fits.
            (None, Some(_)) if field.is_some_and(|f| f.present > 0) => continue,
            (None, Some(_)) => format!("no sampled document has `{end}`; {}", planned(d, here)),
        };
        out.push(Finding {
            collection: collection.to_owned(),
            kind: FindingKind::LayoutDiffers,
            path: Some(end.to_owned()),
            count: field.map_or(shape.seen, |f| f.present),
            example: None,
            detail,
            help: None,
            drift: None,
            cost: Default::default(),
        });
    }
    out
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
