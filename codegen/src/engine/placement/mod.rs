//! From a [`Choice`] to where things live: the fields each document gets, the collections a
//! relationship adds (buckets, links, overflow), and the modifiers (subset, computed, outlier).

use crate::model::{Layout, Relation, RelationEnd, RelationKind, Side};
use crate::plan::{
    BucketPlan, CollectionRole, Computed, FieldKind, OutlierPlan, Placement, PlanField, Shape,
    SubsetPlan,
};

use super::basis::Obligation;
use super::context::{snake, Ctx};
use super::fields::{new_field, reference};
use super::relation::Choice;

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
                f.set_array(cap);
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
                    field: parent.field.clone(),
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
                f.set_array(child.cardinality.max(s));
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
    f.set_array(cap);
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

mod buckets;
mod modifiers;

use buckets::{bucket, outlier};
use modifiers::modifiers;
pub(crate) use modifiers::{mirror_kept_references, subset_children};
