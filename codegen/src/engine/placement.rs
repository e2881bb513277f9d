//! From a [`Choice`] to where things live: the fields each document gets, the collections a
//! relationship adds (buckets, links, overflow), and the modifiers (subset, computed, outlier).

use crate::model::{Layout, Relation, RelationEnd, RelationKind, Side, SummaryFn};
use crate::plan::{
    BucketPlan, BucketPurpose, CollectionRole, Computed, ComputedFn, FieldKind, OutlierPlan,
    Placement, PlanField, Shape, SubsetPlan, TimeRangePaths,
};

use super::basis::Obligation;
use super::context::{count, snake, Ctx};
use super::fields::{new_field, reference};
use super::relation::Choice;
use crate::prose::{n_of, plural};

/// The `_id` of a child, held by each of its copies in a subset or top-N list.
const ID: &str = "_id";

/// Whose documents a placed field goes into.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Holder {
    /// Every document of this entity (wherever it is stored, even embedded).
    Entity(String),
    /// Documents of a collection a relationship adds.
    Collection(String),
}

/// A field placed by a relationship.
pub(crate) struct Placed {
    pub holder: Holder,
    pub field: PlanField,
    /// Fill the field's children with this entity's document (embedding).
    pub embed_entity: Option<String>,
}

/// A collection a relationship adds.
pub(crate) struct ExtraCollection {
    pub name: String,
    pub entity: String,
    pub role: CollectionRole,
    pub docs: Vec<String>,
    pub parent: String,
    pub fields: Vec<PlanField>,
    pub embed_items: Option<(String, String)>,
}

/// Everything placement decides for one relationship.
pub(crate) struct Layouted {
    pub placement: Vec<Placement>,
    pub placed: Vec<Placed>,
    pub extra: Vec<ExtraCollection>,
    pub subset: Option<SubsetPlan>,
    pub bucket: Option<BucketPlan>,
    pub computed: Vec<Computed>,
    pub outlier: Option<OutlierPlan>,
    pub obligations: Vec<Obligation>,
    /// The id reference to the parent stored in children (child_ref, two_way, bucket), and its
    /// holder: where copies of parent fields go.
    pub child_ref: Option<(Holder, String)>,
    /// The id array in the parent (parent_refs, two_way, one_way).
    pub parent_array: Option<(Holder, String)>,
    /// The id array of parents in each child (many-to-many two_way).
    pub child_array: Option<(Holder, String)>,
}

fn collection_of(ctx: &Ctx<'_>, entity: &str) -> String {
    ctx.entity(entity)
        .map(|e| e.collection.clone())
        .unwrap_or_else(|| snake(entity))
}

pub(crate) fn place(ctx: &Ctx<'_>, rel: &Relation, choice: &Choice) -> Layouted {
    let s = ctx.settings;
    let parent = rel.end(choice.parent);
    let child = match choice.parent {
        Side::Left => &rel.right,
        Side::Right => &rel.left,
    };
    let p_coll = collection_of(ctx, &parent.entity);
    let c_coll = collection_of(ctx, &child.entity);
    let n_max = parent.cardinality.max(s);
    let mut out = Layouted {
        placement: Vec::new(),
        placed: Vec::new(),
        extra: Vec::new(),
        subset: None,
        bucket: None,
        computed: Vec::new(),
        outlier: None,
        obligations: Vec::new(),
        child_ref: None,
        parent_array: None,
        child_array: None,
    };
    let rel_doc = format!(
        "{} ({}): {}",
        choice.strategy.as_str(),
        rel.id,
        crate::prose::decision::reason(&choice.reason)
    );
    let holder_p = Holder::Entity(parent.entity.clone());
    let holder_c = Holder::Entity(child.entity.clone());

    match choice.strategy {
        Layout::Embed => {
            let one = rel.kind == RelationKind::OneToOne;
            let cap = choice.outlier_cap.or(n_max);
            let mut f = new_field("", &parent.field, FieldKind::Embedded, "object");
            f.type_name = Some(child.entity.clone());
            if !one {
                f.array_depth = 1;
                f.max_items = cap;
                f.typical_items = parent.cardinality.typical;
            } else {
                // `one?`: the owner may have none; `one`: it always has one.
                f.optional = parent.cardinality.optional;
            }
            f.relation = Some(rel.id.clone());
            f.docs = vec![rel_doc.clone()];
            out.placement.push(Placement {
                holder: parent.entity.clone(),
                collection: p_coll.clone(),
                path: parent.field.clone(),
                shape: if one {
                    Shape::Subdocument
                } else {
                    Shape::ArrayOfSubdocuments
                },
                target: child.entity.clone(),
                max_items: if one { None } else { cap },
            });
            out.placed.push(Placed {
                holder: holder_p.clone(),
                field: f,
                embed_entity: Some(child.entity.clone()),
            });
            if let (Some(cap), Some(typical)) = (choice.outlier_cap, parent.cardinality.typical) {
                outlier(
                    ctx, rel, parent, child, &p_coll, cap, typical, true, &mut out,
                );
            }
        }
        Layout::ParentRefs | Layout::OneWay => {
            parent_ids(ctx, rel, parent, child, &p_coll, choice, &rel_doc, &mut out);
        }
        Layout::ChildRef => {
            child_id(ctx, rel, parent, child, &c_coll, &rel_doc, &mut out);
            if rel.kind == RelationKind::OneToOne
                || ctx.is_standalone(&child.entity)
                || n_max.is_none()
            {
                out.obligations.push(Obligation::ListByIndex {
                    parent: parent.entity.clone(),
                    child: child.entity.clone(),
                });
            }
        }
        Layout::TwoWay => {
            parent_ids(ctx, rel, parent, child, &p_coll, choice, &rel_doc, &mut out);
            if rel.kind == RelationKind::ManyToMany {
                // Both sides hold arrays of ids.
                let mut f = new_field(
                    "",
                    &child.field,
                    FieldKind::RefArray,
                    super::fields::id_type(ctx, &parent.entity).json_schema_name(),
                );
                f.array_depth = 1;
                f.max_items = child.cardinality.max(s);
                f.typical_items = child.cardinality.typical;
                f.source = Some(parent.entity.clone());
                f.relation = Some(rel.id.clone());
                f.docs = vec![rel_doc.clone()];
                out.placement.push(Placement {
                    holder: child.entity.clone(),
                    collection: c_coll.clone(),
                    path: child.field.clone(),
                    shape: Shape::ArrayOfIds,
                    target: parent.entity.clone(),
                    max_items: f.max_items,
                });
                out.placed.push(Placed {
                    holder: holder_c.clone(),
                    field: f,
                    embed_entity: None,
                });
                out.child_array = Some((holder_c.clone(), child.field.clone()));
            } else {
                child_id(ctx, rel, parent, child, &c_coll, &rel_doc, &mut out);
            }
            out.obligations.push(Obligation::LinkBoth {
                parent: parent.entity.clone(),
                child: child.entity.clone(),
            });
        }
        Layout::Bucket => bucket(ctx, rel, parent, child, choice, &rel_doc, &mut out),
        Layout::LinkCollection => link(ctx, rel, &rel_doc, &mut out),
    }

    if !rel.fields.is_empty() && choice.strategy != Layout::LinkCollection {
        link_fields(ctx, rel, parent, child, choice, &mut out);
    }
    modifiers(ctx, rel, parent, child, &p_coll, choice, &mut out);
    out
}

/// The relationship's own fields (`fields { ... }`) travel with the link wherever the layout
/// stores it: in each embedded child, in each element of the parent's array (`{id, qty, ...}`:
/// order lines), in the child's reference (`{id, role}`), or in each bucket item.
fn link_fields(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    choice: &Choice,
    out: &mut Layouted,
) {
    let declared = |prefix: &str| -> Vec<PlanField> {
        rel.fields
            .iter()
            .map(|f| {
                let mut pf = super::fields::declared(ctx.model, f, prefix, 0);
                pf.relation = Some(rel.id.clone());
                pf.docs = vec![format!("field of the relationship {} itself", rel.id)];
                pf
            })
            .collect()
    };
    if choice.strategy == Layout::Bucket {
        if let Some(items) = out
            .extra
            .iter_mut()
            .flat_map(|x| x.fields.iter_mut())
            .find(|f| f.relation.as_deref() == Some(rel.id.as_str()) && f.name == parent.field)
        {
            items.children = declared(&items.path);
        }
        return;
    }
    let (holder, path, target) = match choice.strategy {
        Layout::Embed => (
            Holder::Entity(parent.entity.clone()),
            parent.field.clone(),
            None,
        ),
        Layout::ChildRef => match &out.child_ref {
            Some((h, p)) => (h.clone(), p.clone(), Some(parent.entity.clone())),
            None => return,
        },
        _ => match &out.parent_array {
            Some((h, p)) => (h.clone(), p.clone(), Some(child.entity.clone())),
            None => return,
        },
    };
    let Some(placed) = out
        .placed
        .iter_mut()
        .find(|p| p.holder == holder && p.field.name == path)
    else {
        return;
    };
    if let Some(target) = &target {
        super::fields::extend_reference(&mut placed.field, target);
        let owner = match &holder {
            Holder::Entity(e) | Holder::Collection(e) => e.clone(),
        };
        placed.field.type_name = Some(format!(
            "{}{}",
            super::fields::pascal(&owner),
            super::fields::pascal(&path)
        ));
    }
    let prefix = placed.field.path.clone();
    placed.field.children.extend(declared(&prefix));
    for p in &mut out.placement {
        if p.path == path && target.is_some() {
            p.shape = match p.shape {
                Shape::ArrayOfIds => Shape::ArrayOfExtendedRefs,
                Shape::Id => Shape::ExtendedRef,
                other => other,
            };
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn parent_ids(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    p_coll: &str,
    choice: &Choice,
    rel_doc: &str,
    out: &mut Layouted,
) {
    let s = ctx.settings;
    let cap = choice.outlier_cap.or(parent.cardinality.max(s));
    let mut f = new_field(
        "",
        &parent.field,
        FieldKind::RefArray,
        super::fields::id_type(ctx, &child.entity).json_schema_name(),
    );
    f.array_depth = 1;
    f.max_items = cap;
    f.typical_items = parent.cardinality.typical;
    f.source = Some(child.entity.clone());
    f.relation = Some(rel.id.clone());
    f.docs = vec![rel_doc.to_owned()];
    out.placement.push(Placement {
        holder: parent.entity.clone(),
        collection: p_coll.to_owned(),
        path: parent.field.clone(),
        shape: Shape::ArrayOfIds,
        target: child.entity.clone(),
        max_items: cap,
    });
    out.parent_array = Some((Holder::Entity(parent.entity.clone()), parent.field.clone()));
    out.placed.push(Placed {
        holder: Holder::Entity(parent.entity.clone()),
        field: f,
        embed_entity: None,
    });
    out.obligations.push(Obligation::AddToArray {
        parent: parent.entity.clone(),
        child: child.entity.clone(),
        cap,
    });
    if let (Some(cap), Some(typical)) = (choice.outlier_cap, parent.cardinality.typical) {
        outlier(ctx, rel, parent, child, p_coll, cap, typical, false, out);
    }
}

fn child_id(
    ctx: &Ctx<'_>,
    rel: &Relation,
    parent: &RelationEnd,
    child: &RelationEnd,
    c_coll: &str,
    rel_doc: &str,
    out: &mut Layouted,
) {
    let mut f = reference(ctx, "", &child.field, &parent.entity);
    f.relation = Some(rel.id.clone());
    // `Book.author: one?`: a child may have no parent.
    f.optional = child.cardinality.optional;
    f.docs = vec![rel_doc.to_owned()];
    out.placement.push(Placement {
        holder: child.entity.clone(),
        collection: c_coll.to_owned(),
        path: child.field.clone(),
        shape: Shape::Id,
        target: parent.entity.clone(),
        max_items: None,
    });
    out.child_ref = Some((Holder::Entity(child.entity.clone()), child.field.clone()));
    out.placed.push(Placed {
        holder: Holder::Entity(child.entity.clone()),
        field: f,
        embed_entity: None,
    });
}

#[allow(clippy::too_many_arguments)]
fn outlier(
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
            super::fields::id_type(ctx, &child.entity).json_schema_name(),
        );
        f.source = Some(child.entity.clone());
        f
    };
    items.array_depth = 1;
    items.max_items = Some(ctx.settings.embed_array_max);
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

fn bucket(
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
    items.array_depth = 1;
    items.max_items = Some(size);
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
    let summaries = stored_summaries(&f.summary);
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
    averages(&f.summary, &summaries, &name, None, &mut out.computed);
    if !f.summary.is_empty() {
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
            .map(|b| b.field.clone()),
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

fn link(ctx: &Ctx<'_>, rel: &Relation, rel_doc: &str, out: &mut Layouted) {
    let name = format!("{}_{}", snake(&rel.left.entity), snake(&rel.left.field));
    let (lk, rk) = link_keys(rel);
    let mut l = reference(ctx, "", &lk, &rel.left.entity);
    l.relation = Some(rel.id.clone());
    let mut r = reference(ctx, "", &rk, &rel.right.entity);
    r.relation = Some(rel.id.clone());
    let mut fields = vec![l, r];
    for f in &rel.fields {
        fields.push(super::fields::declared(ctx.model, f, "", 0));
    }
    for (key, entity) in [(&lk, &rel.left.entity), (&rk, &rel.right.entity)] {
        out.placement.push(Placement {
            holder: format!("{name} (link)"),
            collection: name.clone(),
            path: key.clone(),
            shape: Shape::Id,
            target: entity.clone(),
            max_items: None,
        });
    }
    out.obligations.push(Obligation::LinkInsert {
        collection: name.clone(),
    });
    out.extra.push(ExtraCollection {
        name,
        entity: rel.left.entity.clone(),
        role: CollectionRole::Link {
            relation: rel.id.clone(),
        },
        docs: vec![rel_doc.to_owned()],
        parent: rel.left.entity.clone(),
        fields,
        embed_items: None,
    });
}

/// Names of the two id fields of a link document.
pub(crate) fn link_keys(rel: &Relation) -> (String, String) {
    if rel.left.entity == rel.right.entity {
        ("from".to_owned(), "to".to_owned())
    } else {
        (snake(&rel.left.entity), snake(&rel.right.entity))
    }
}

fn summary_name(
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

fn summary_bson(
    ctx: &Ctx<'_>,
    child: &str,
    function: SummaryFn,
    field: Option<&str>,
) -> &'static str {
    if function == SummaryFn::Count {
        return "int";
    }
    field
        .and_then(|f| ctx.entity(child).and_then(|e| e.field(f)))
        .and_then(|f| f.ty.scalar())
        .map(|b| b.json_schema_name())
        .unwrap_or("double")
}

/// Subset (`latest N`), computed top-N (`top N`) and summaries kept on the parent.
fn modifiers(
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
    if let Some(latest) = &f.latest {
        if choice.strategy == Layout::Embed {
            out.obligations.push(Obligation::LatestEmbedded {
                n: latest.n,
                child: child.entity.clone(),
            });
        } else {
            let name = if taken.contains(&parent.field) {
                format!("latest_{}", parent.field)
            } else {
                parent.field.clone()
            };
            let kept = subset_keep(ctx, child, &latest.keep, &latest.by.field);
            let mut field = copies_field(ctx, &name, child, &kept, rel);
            field.max_items = Some(latest.n);
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
                child_id: ID.to_owned(),
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
        let mut field = copies_field(ctx, &name, child, &kept, rel);
        field.kind = FieldKind::Computed;
        field.max_items = Some(top.n);
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
                child_id: ID.to_owned(),
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
        });
    }
    if choice.strategy != Layout::Bucket {
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
                "computed ({}): {} of the {}'s {}, maintained on write",
                rel.id,
                summary.function.as_str(),
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
fn stored_summaries(declared: &[crate::model::Summary]) -> Vec<crate::model::Summary> {
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
fn averages(
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
            super::fields::id_type(ctx, &entity.name).json_schema_name(),
        );
        id.code_name = "id".to_owned();
        id.source = Some(entity.name.clone());
        return Some(id);
    }
    if let Some(f) = entity.field(keep) {
        return Some(super::fields::declared(ctx.model, f, prefix, 0));
    }
    let other = ctx.model.relations.iter().find_map(|r| {
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
                    super::fields::reroot(&mut copy, &prefix);
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
fn sort_name(ctx: &Ctx<'_>, child: &RelationEnd, field: &str) -> String {
    ctx.entity(&child.entity)
        .and_then(|e| e.field(field))
        .map_or_else(|| field.to_owned(), |f| f.bson_name.clone())
}

/// An array of copies of a child: its `_id` (which finds the copy when the child changes or goes),
/// then the fields `keep`.
fn copies_field(
    ctx: &Ctx<'_>,
    name: &str,
    child: &RelationEnd,
    keep: &[String],
    rel: &Relation,
) -> PlanField {
    let mut field = new_field("", name, FieldKind::Denormalized, "object");
    if let Some(entity) = ctx.entity(&child.entity) {
        let mut children: Vec<PlanField> = Vec::new();
        for k in std::iter::once(ID).chain(keep.iter().map(String::as_str)) {
            if let Some(f) = kept_field(ctx, entity, k, name) {
                if !children.iter().any(|c| c.name == f.name) {
                    children.push(f);
                }
            }
        }
        field.children = children;
    }
    field.array_depth = 1;
    field.type_name = Some(format!("{}{}", child.entity, super::fields::pascal(name)));
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
    for d in decisions.iter_mut() {
        let found = d.children_in(collections);
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
