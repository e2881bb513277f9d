//! Declared queries resolved against the collections: the stored path of every condition and
//! sort key, and the index that serves the query. Emitters read it to write query methods.

use crate::model::{ChildrenOf, Layout, Operator};
use crate::plan::{
    ChildrenPlan, Collection, CollectionRole, Decision, IndexKey, PlanField, QueryCondition,
    QueryOp, QueryPlan, Shape,
};

use super::context::Ctx;
use super::indexes::{bson_path_in, resolve_path};
use super::warnings::{codes, Emit};
use crate::plan::{CollectionsByName, DecisionsById, RuleId, Severity};

/// Where the children of a query on a parent's children (`on Post.comments`) are read.
pub(crate) struct ChildrenSite<'c> {
    /// The collection the query runs on.
    pub collection: &'c Collection,
    /// The stored path, in its documents, of the parent's id the children are found by.
    pub parent_path: String,
    /// The stored path of the array holding the children, and the fields of each child, when
    /// the children are elements of an array (embedded in the parent, or in buckets).
    pub array: Option<(String, &'c [PlanField])>,
}

/// The site of `of`'s children under the chosen layout, or `None` when no single query reads
/// them: children embedded in a parent that is itself embedded, kept in an id array only
/// (`parent_refs`), or split between the parent and overflow documents (the outlier pattern).
pub(crate) fn children_site<'c>(
    ctx: &Ctx<'_>,
    of: &ChildrenOf,
    collections: &CollectionsByName<'c>,
    decisions: &DecisionsById<'_>,
) -> Option<ChildrenSite<'c>> {
    let d = decisions.get(&of.relation)?;
    if d.outlier.is_some() {
        return None;
    }
    let own = |entity: &str| {
        let name = &ctx.entity(entity)?.collection;
        collections
            .get(name)
            .filter(|c| c.entity == entity && c.role == CollectionRole::Entity)
    };
    let array = |c: &'c Collection, path: &str| {
        let f = c.field_at(path)?;
        (f.array_depth > 0 && f.bson_type == "object").then(|| (path.to_owned(), &f.children[..]))
    };
    match d.strategy {
        Layout::Embed => {
            let c = own(&of.parent)?;
            let p = d.placement.iter().find(|p| {
                p.collection == c.name
                    && p.path == of.parent_end
                    && p.shape == Shape::ArrayOfSubdocuments
            })?;
            Some(ChildrenSite {
                collection: c,
                parent_path: "_id".to_owned(),
                array: Some(array(c, &p.path)?),
            })
        }
        Layout::ChildRef | Layout::TwoWay => {
            let c = own(&d.child)?;
            let p = d.placement.iter().find(|p| {
                p.collection == c.name
                    && p.path == of.child_end
                    && matches!(p.shape, Shape::Id | Shape::ExtendedRef)
            })?;
            c.field_at(&p.path)?;
            // A reference extended with copies stores the id under `id`.
            let parent_path = match p.shape {
                Shape::ExtendedRef => format!("{}.id", p.path),
                _ => p.path.clone(),
            };
            Some(ChildrenSite {
                collection: c,
                parent_path,
                array: None,
            })
        }
        Layout::Bucket => {
            let b = d.bucket.as_ref()?;
            let c = collections.get(&b.collection)?;
            Some(ChildrenSite {
                collection: c,
                parent_path: b.parent_path.clone(),
                array: Some(array(c, &b.items_path)?),
            })
        }
        Layout::ParentRefs | Layout::OneWay | Layout::LinkCollection => None,
    }
}

pub(crate) fn plan(
    ctx: &Ctx<'_>,
    collections: &[Collection],
    decisions: &[Decision],
) -> Vec<QueryPlan> {
    let by_id = DecisionsById::new(decisions);
    let collections = CollectionsByName::new(collections);
    let mut out = Vec::new();
    for q in &ctx.model.queries {
        let Some(entity) = ctx.entity(&q.entity) else {
            continue;
        };
        let mut unstored = Vec::new();
        let (c, children, elements) = match &q.children {
            Some(of) => {
                let end = format!("{}.{}", of.parent, of.parent_end);
                match children_site(ctx, of, &collections, &by_id) {
                    Some(site) => {
                        let plan = children_plan(ctx, of, &site);
                        (site.collection, Some(plan), site.array.map(|(_, f)| f))
                    }
                    None => {
                        // No single query reads them: no method (warning W119).
                        let Some(c) = collections.get(&entity.collection) else {
                            continue;
                        };
                        unstored.push(end);
                        (c, None, None)
                    }
                }
            }
            None => {
                let Some(c) = collections.get(&entity.collection) else {
                    continue;
                };
                (c, None, None)
            }
        };
        // Children in an array: their paths are relative to each child.
        let resolve = |path: &crate::model::FieldPath| match elements {
            Some(fields) => bson_path_in(fields, &path.segments),
            None => resolve_path(c, path, &by_id),
        };
        let mut conditions = Vec::new();
        let mut join = None;
        for cond in &q.conditions {
            match resolve(&cond.path) {
                Some((path, field)) => conditions.push(QueryCondition {
                    path,
                    written: cond.path.segments.join("."),
                    // An attribute's value is compared: the type of `v` in `[{k, v}]`.
                    bson_type: match field.children.iter().find(|f| f.name == "v") {
                        Some(v) if cond.attribute => v.bson_type.clone(),
                        _ => field.bson_type.clone(),
                    },
                    op: op(cond.op),
                    ignore_case: cond.ignore_case,
                    attribute: cond.attribute,
                }),
                None => match &cond.path.through {
                    Some(t) => join = Some(format!("{}.{}", t.entity, t.field)),
                    None => unstored.push(cond.path.segments.join(".")),
                },
            }
        }
        let mut sort = Vec::new();
        for k in &q.sort {
            match resolve(&k.path) {
                Some((path, _)) => {
                    sort.push(IndexKey::ordered(path, if k.descending { -1 } else { 1 }))
                }
                None => unstored.push(k.path.segments.join(".")),
            }
        }
        // A sorted query breaks ties by `_id` (its index ends the sort keys with it): its first N
        // are always the same N, and a stream reads them in the order its pages do. Not for
        // children read as elements of an array (they have no `_id`) nor for geo queries (the
        // sphere orders them).
        let geo = conditions
            .iter()
            .any(|c| matches!(c.op, QueryOp::Near | QueryOp::Within));
        if !sort.is_empty() && elements.is_none() && !geo && !sort.iter().any(|k| k.path == "_id") {
            sort.push(IndexKey::ordered("_id".to_owned(), 1));
        }
        // A returned field the layout does not store here is an error (W123), reported by the
        // warnings; the query is planned without it.
        // Children read as elements of an array are returned whole (no projection).
        let returns = match elements {
            Some(_) => Vec::new(),
            None => q
                .returns
                .iter()
                .filter_map(|f| returned_field(c, &f.name))
                .filter(|f| f.name != "_id")
                .map(|f| f.name.clone())
                .collect(),
        };
        let index = c
            .indexes
            .iter()
            .find(|i| i.serves_query(&q.name))
            .map(|i| i.name.clone());
        out.push(QueryPlan {
            name: q.name.clone(),
            docs: q.docs.clone(),
            entity: q.entity.clone(),
            collection: c.name.clone(),
            conditions,
            sort,
            limit: q.limit,
            rate_per_second: q.rate_per_second,
            index,
            join,
            unstored,
            children,
            returns,
        });
    }
    out
}

/// The Plan's view of a query on a parent's children, at `site`.
fn children_plan(ctx: &Ctx<'_>, of: &ChildrenOf, site: &ChildrenSite<'_>) -> ChildrenPlan {
    let parent_id_type = ctx
        .entity(&of.parent)
        .map(|e| match &e.identity {
            crate::model::Identity::Natural { bson_type, .. } => {
                bson_type.json_schema_name().to_owned()
            }
            crate::model::Identity::ObjectId => "objectId".to_owned(),
        })
        .unwrap_or_else(|| "objectId".to_owned());
    ChildrenPlan {
        relation: of.relation.clone(),
        parent: of.parent.clone(),
        parent_param: of.child_end.clone(),
        parent_id_type,
        parent_path: site.parent_path.clone(),
        array: site.array.as_ref().map(|(p, _)| p.clone()),
    }
}

/// The top-level field of collection `c` a query's `returns` names (`name` as written: a field,
/// relation end or pattern field of the entity), if the layout stores it there. A natural key
/// (`@key`) is `_id` itself, which every projection holds.
pub(crate) fn returned_field<'c>(c: &'c Collection, name: &str) -> Option<&'c PlanField> {
    c.fields.iter().find(|f| f.code_name == name)
}

/// W123: a query returns a field (a relation end, in practice) that the chosen layout keeps out
/// of the query's collection, e.g. `Author.books` when each Book references its Author. An error:
/// the projection struct would have a field no document holds.
pub(crate) fn returns_not_stored(e: &mut Emit<'_, '_>, collections: &[Collection]) {
    let ctx = e.ctx;
    let collections = CollectionsByName::new(collections);
    for q in &ctx.model.queries {
        let Some(entity) = ctx.entity(&q.entity) else {
            continue;
        };
        let Some(c) = collections.get(&entity.collection) else {
            continue;
        };
        for f in q
            .returns
            .iter()
            .filter(|f| returned_field(c, &f.name).is_none())
        {
            let stored: Vec<String> = c
                .fields
                .iter()
                .filter(|f| f.name != "_id")
                .map(|f| format!("`{}`", f.code_name))
                .collect();
            e.warn(
                codes::RETURNS_NOT_STORED,
                Severity::Error,
                RuleId::Rule6,
                f.span,
                format!(
                    "query `{}` returns `{}`, which the chosen layout does not store in `{}` documents",
                    q.name, f.name, c.name
                ),
                Some(format!(
                    "return fields `{}` documents hold ({}); read `{}` through its own collection or repository method",
                    c.name,
                    stored.join(", "),
                    f.name
                )),
                Some(&c.name),
                None,
            );
        }
    }
}

/// W124: a query on a parent's children declares `returns`, but the chosen layout keeps the
/// children as elements of an array (embedded in the parent, or in buckets). Its method reads the
/// matching elements whole, as the array's element type; returning a subset would need a second
/// element type for one array. An error rather than a silently ignored clause: the user asked for
/// less data than the method would give.
pub(crate) fn returns_array_children(e: &mut Emit<'_, '_>, queries: &[QueryPlan]) {
    let ctx = e.ctx;
    for q in &ctx.model.queries {
        let Some(first) = q.returns.first() else {
            continue;
        };
        let Some(plan) = queries.iter().find(|p| p.name == q.name) else {
            continue;
        };
        let Some((children, array)) = plan
            .children
            .as_ref()
            .and_then(|ch| ch.array.as_ref().map(|a| (ch, a)))
        else {
            continue;
        };
        let span = match q.returns.last() {
            Some(last) => first.span.to(last.span),
            None => first.span,
        };
        e.warn(
            codes::RETURNS_ARRAY_CHILDREN,
            Severity::Error,
            RuleId::Rule6,
            span,
            format!(
                "query `{}` returns some fields of the `{}` children of `{}`, but the chosen \
                 layout keeps them in the array `{array}` of `{}` documents, whose elements it \
                 reads whole",
                q.name, q.entity, children.parent, plan.collection
            ),
            Some(format!(
                "remove `returns` (the method returns whole `{}` elements, which the parent's \
                 document holds anyway), or make the children a collection of their own \
                 (`standalone {}`) so that a projection can leave fields out",
                q.entity, q.entity
            )),
            Some(&plan.collection),
            Some(&children.relation),
        );
    }
}

fn op(o: Operator) -> QueryOp {
    match o {
        Operator::Eq => QueryOp::Eq,
        Operator::Ne => QueryOp::Ne,
        Operator::Lt => QueryOp::Lt,
        Operator::Le => QueryOp::Le,
        Operator::Gt => QueryOp::Gt,
        Operator::Ge => QueryOp::Ge,
        Operator::StartsWith => QueryOp::StartsWith,
        Operator::Between => QueryOp::Between,
        Operator::In => QueryOp::In,
        Operator::Near => QueryOp::Near,
        Operator::Within => QueryOp::Within,
    }
}
