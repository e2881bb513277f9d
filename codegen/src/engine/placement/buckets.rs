//! The layouts that add a collection of grouped children: buckets (time series, paging) and the
//! overflow documents of the outlier pattern.

use crate::model::{Relation, RelationEnd, SummaryFn};
use crate::plan::{
    BucketPlan, BucketPurpose, CollectionRole, Computed, ComputedFn, FieldKind, OutlierPlan,
    Placement, Shape, TimeRangePaths,
};

use crate::engine::basis::Obligation;
use crate::engine::context::{count, snake, Ctx};
use crate::engine::fields::{new_field, reference};
use crate::engine::relation::Choice;
use crate::prose::{n_of, plural};

use super::modifiers::{averages, sort_name, stored_summaries, summary_bson, summary_name};
use super::{collection_of, ExtraCollection, Holder, Layouted, Placed};

#[allow(clippy::too_many_arguments)]
pub(super) fn outlier(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    p_coll: &str,
    cap: u64,
    typical: u64,
    embedded: bool,
    out: &mut Layouted,
) {
    let overflow = format!("{}_{}_overflow", p_coll, snake(&parent.field));
    let flag = format!("{}_overflow", parent.field);
    let mut flag_field = new_field("", &flag, FieldKind::Computed, "bool");
    flag_field.optional = true;
    flag_field.relation = Some(rel.id.clone());
    flag_field.docs = vec![format!(
        "outlier ({}): set when this {} has more than {} and the rest overflow into `{overflow}`",
        rel.id,
        parent.entity,
        n_of(cap, &child.entity)
    )];
    out.placed.push(Placed {
        holder: Holder::Entity(parent.entity.clone()),
        field: flag_field,
        embed_entity: None,
    });
    // The names the runtime's outlier pattern writes (`squillion::__private::outlier`).
    let parent_key = "owner";
    let mut fields = vec![reference(ctx, "", parent_key, &parent.entity)];
    let mut items = if embedded {
        let mut f = new_field("", "items", FieldKind::Embedded, "object");
        f.type_name = Some(child.entity.clone());
        f
    } else {
        let mut f = new_field(
            "",
            "items",
            FieldKind::RefArray,
            crate::engine::fields::id_type(ctx, &child.entity).json_schema_name(),
        );
        f.source = Some(child.entity.clone());
        f
    };
    items.set_array(Some(ctx.settings.embed_array_max));
    items.relation = Some(rel.id.clone());
    let embed_items = embedded.then(|| ("items".to_owned(), child.entity.clone()));
    fields.push(items);
    fields.push(new_field("", "count", FieldKind::Computed, "int"));
    out.extra.push(ExtraCollection {
        name: overflow.clone(),
        entity: child.entity.clone(),
        role: CollectionRole::Overflow { relation: rel.id.clone() },
        docs: vec![format!(
            "Overflow of {}.{}: the {} beyond the first {} of the rare {} that have more (seed 002 outlier pattern).",
            parent.entity,
            parent.field,
            plural(&child.entity),
            count(cap),
            plural(&parent.entity)
        )],
        parent: parent.entity.clone(),
        fields,
        embed_items,
    });
    out.outlier = Some(OutlierPlan {
        collection: p_coll.to_owned(),
        path: parent.field.clone(),
        embedded_max: cap,
        flag_path: flag,
        overflow_collection: overflow.clone(),
        typical,
        max: parent.cardinality.max(ctx.settings),
    });
    out.obligations.push(Obligation::Overflow {
        parent: parent.entity.clone(),
        child: child.entity.clone(),
        cap,
        overflow: overflow.clone(),
    });
}

pub(super) fn bucket(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    choice: &Choice,
    rel_doc: &str,
    out: &mut Layouted,
) {
    let size = choice.bucket_size.unwrap_or(ctx.settings.bucket_size);
    let p_coll = collection_of(ctx, &parent.entity);
    let name = format!("{}_{}", snake(&parent.entity), snake(&parent.field));
    let parent_key = child.field.clone();
    let mut fields = vec![reference(ctx, "", &parent_key, &parent.entity)];
    fields[0].relation = Some(rel.id.clone());
    let mut items = new_field("", &parent.field, FieldKind::Embedded, "object");
    items.type_name = Some(child.entity.clone());
    items.set_array(Some(size));
    items.relation = Some(rel.id.clone());
    items.docs = vec![rel_doc.to_owned()];
    fields.push(items);
    let mut count_field = new_field("", "count", FieldKind::Computed, "int");
    count_field.docs = vec![format!(
        "number of {} in this bucket; appends are guarded by `count < {size}`",
        plural(&child.entity)
    )];
    fields.push(count_field);
    let f = &rel.facts;
    let time_range = f.time_range.as_ref().map(|field| {
        let bson = ctx
            .entity(&child.entity)
            .and_then(|e| e.field(field))
            .and_then(|fl| fl.ty.scalar())
            .map(|b| b.json_schema_name())
            .unwrap_or("date");
        for name in ["start", "end"] {
            let mut t = new_field("", name, FieldKind::Computed, bson);
            t.docs = vec![format!(
                "{} {field} of the {} in this bucket",
                if name == "start" {
                    "smallest"
                } else {
                    "largest"
                },
                plural(&child.entity)
            )];
            fields.push(t);
        }
        TimeRangePaths {
            field: sort_name(ctx, child, field),
            start_path: "start".to_owned(),
            end_path: "end".to_owned(),
        }
    });
    // Each bucket keeps summaries of its own children only when asked to (`per bucket`); else
    // the parent keeps them (placement::modifiers).
    let per_bucket: &[crate::model::Summary] = if f.summary_per_bucket.is_some() {
        &f.summary
    } else {
        &[]
    };
    let summaries = stored_summaries(per_bucket);
    for summary in &summaries {
        if summary.function == SummaryFn::Count {
            continue;
        }
        let path = summary_name(&summaries, summary.function, summary.field.as_deref(), None);
        let bson = summary_bson(
            ctx,
            &child.entity,
            summary.function,
            summary.field.as_deref(),
        );
        let mut sf = new_field("", &path, FieldKind::Computed, bson);
        sf.docs = vec![format!(
            "{} of {} over this bucket (computed on write)",
            summary.function.as_str(),
            summary.field.as_deref().unwrap_or("")
        )];
        fields.push(sf);
        out.computed.push(Computed {
            collection: name.clone(),
            path,
            function: ComputedFn::Summary {
                summary: summary.function,
            },
            field: summary.field.as_deref().map(|x| sort_name(ctx, child, x)),
        });
    }
    averages(per_bucket, &summaries, &name, None, &mut out.computed);
    if !per_bucket.is_empty() {
        out.computed.insert(
            0,
            Computed {
                collection: name.clone(),
                path: "count".to_owned(),
                function: ComputedFn::Summary {
                    summary: SummaryFn::Count,
                },
                field: None,
            },
        );
    }
    out.placement.push(Placement {
        holder: format!("{name} (bucket)"),
        collection: name.clone(),
        path: parent.field.clone(),
        shape: Shape::ArrayOfSubdocuments,
        target: child.entity.clone(),
        max_items: Some(size),
    });
    out.placement.push(Placement {
        holder: format!("{name} (bucket)"),
        collection: name.clone(),
        path: parent_key.clone(),
        shape: Shape::Id,
        target: parent.entity.clone(),
        max_items: None,
    });
    let purpose = if f.page.is_some() {
        BucketPurpose::Pages
    } else {
        BucketPurpose::TimeSeries
    };
    out.bucket = Some(BucketPlan {
        collection: name.clone(),
        size,
        parent_path: parent_key.clone(),
        items_path: parent.field.clone(),
        count_path: "count".to_owned(),
        time_range,
        order_by: f
            .page
            .as_ref()
            .and_then(|p| p.by.as_ref())
            .map(|b| sort_name(ctx, child, &b.field)),
        newest_first: f
            .page
            .as_ref()
            .and_then(|p| p.by.as_ref())
            .is_some_and(|b| b.descending),
        purpose,
    });
    out.child_ref = Some((Holder::Collection(name.clone()), parent_key.clone()));
    out.obligations.push(Obligation::BucketAppend {
        child: child.entity.clone(),
        collection: name.clone(),
        key: parent_key.clone(),
        size,
    });
    out.extra.push(ExtraCollection {
        name,
        entity: child.entity.clone(),
        role: CollectionRole::Bucket {
            relation: rel.id.clone(),
        },
        docs: vec![format!(
            "Buckets of up to {} of one {} ({}; {}).",
            n_of(size, &child.entity),
            parent.entity,
            rel.id,
            if purpose == BucketPurpose::Pages {
                "one bucket is one page"
            } else if f.summary.is_empty() {
                "a time series read by time range"
            } else {
                "a time series with summaries"
            }
        )],
        parent: parent.entity.clone(),
        fields,
        embed_items: Some((parent.field.clone(), child.entity.clone())),
    });
    let _ = p_coll;
}
