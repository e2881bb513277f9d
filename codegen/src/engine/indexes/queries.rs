//! Indexes for declared queries (equality, sort, range) and the paths they resolve to.

use crate::model::{Operator, Query};
use crate::plan::{
    Collection, CollectionsByName, DecisionsById, FieldKind, Index, IndexUse, PlanField,
};

use super::{case_insensitive, index, Want};
use crate::engine::context::Ctx;

/// Resolves a query path (code names) to a BSON path in `c`, with the field found.
///
/// Where a query's field path lives in `c`: the field itself, its copy (denormalized from the
/// other side of a relation), or the id of a reference compared as a whole (`where author == ?`).
pub(crate) fn resolve_path<'a>(
    c: &'a Collection,
    path: &crate::model::FieldPath,
    decisions: &DecisionsById<'_>,
) -> Option<(String, &'a PlanField)> {
    let resolved = match &path.through {
        None => bson_path(c, &path.segments),
        Some(t) => {
            // Embedded, or copied into this collection: the path exists here.
            let copy = decisions
                .get(&t.relation)
                .into_iter()
                .flat_map(|d| d.denormalized.iter())
                .find(|x| {
                    x.collection == c.name && x.source == format!("{}.{}", t.entity, t.field)
                });
            match copy {
                Some(x) => c.field_at(&x.copy_path).map(|f| (x.copy_path.clone(), f)),
                None => bson_path(c, &path.segments),
            }
        }
    };
    resolved.map(
        |(path, field)| match field.children.iter().find(|c| c.name == "id") {
            Some(id)
                if matches!(field.kind, FieldKind::Ref | FieldKind::RefArray)
                    || field.relation.is_some() && field.source.is_some() =>
            {
                (format!("{path}.id"), id)
            }
            _ => (path, field),
        },
    )
}

fn bson_path<'a>(c: &'a Collection, segments: &[String]) -> Option<(String, &'a PlanField)> {
    bson_path_in(&c.fields, segments)
}

/// The stored path of `segments` (code names) among `fields`, and the field it ends at.
pub(crate) fn bson_path_in<'a>(
    fields: &'a [PlanField],
    segments: &[String],
) -> Option<(String, &'a PlanField)> {
    let mut fields = fields;
    let mut path = Vec::new();
    let mut found = None;
    for s in segments {
        let f = fields
            .iter()
            .find(|f| &f.code_name == s || (f.name == "_id" && (s == "_id" || s == "id")))?;
        path.push(f.name.clone());
        fields = &f.children;
        found = Some(f);
    }
    found.map(|f| (path.join("."), f))
}

pub(super) fn query(
    ctx: &Ctx<'_>,
    q: &Query,
    collections: &CollectionsByName<'_>,
    decisions: &DecisionsById<'_>,
    out: &mut Vec<Want>,
    joins: &mut Vec<(String, String)>,
) {
    let (c, mut eq) = match &q.children {
        // A parent's children in their own documents: found by the parent's reference first.
        // Children in an array are found with their parent's document (by its `_id` or the
        // bucket's key): no index of the query's own.
        Some(of) => match crate::engine::queries::children_site(ctx, of, collections, decisions) {
            Some(site) if site.array.is_none() => {
                (site.collection, vec![(site.parent_path.clone(), 1)])
            }
            _ => return,
        },
        None => {
            let Some(entity) = ctx.entity(&q.entity) else {
                return;
            };
            let Some(c) = collections.get(&entity.collection) else {
                return;
            };
            (c, Vec::new())
        }
    };
    let mut range = Vec::new();
    let mut geo: Vec<(String, i32)> = Vec::new();
    // `has (k == ?, v <op> ?)`: the stored path of the first `@attributes` map a condition reads.
    let mut attributes: Option<String> = None;
    // The first attribute's value is compared by a range (`v < ?`): the keys after it bound less.
    let mut attribute_range = false;
    let mut ignore_case = false;
    let mut sparse = false;
    // An equality on a field with its own unique index: that index finds the one document.
    let mut unique_eq: Option<Index> = None;
    let rate = q
        .rate_per_second
        .map(|r| {
            format!(
                ", {}/s",
                if r >= 1.0 {
                    format!("{r:.0}")
                } else {
                    format!("{r:.3}")
                }
            )
        })
        .unwrap_or_default();
    for cond in &q.conditions {
        let resolved = resolve_path(c, &cond.path, decisions);
        let Some((path, field)) = resolved else {
            if let Some(t) = &cond.path.through {
                joins.push((q.name.clone(), format!("{}.{}", t.entity, t.field)));
                // The application joins: index the target field in its own collection.
                if let Some(target) = ctx.entity(&t.entity) {
                    let mut i = index(
                        &[(&t.field, 1)],
                        format!(
                            "query `{}` joins through {}: first step",
                            q.name, t.relation
                        ),
                        IndexUse::Query {
                            name: q.name.clone(),
                        },
                    );
                    if cond.ignore_case {
                        i.collation = Some(case_insensitive());
                    }
                    for key in &mut i.keys {
                        key.sphere = matches!(cond.op, Operator::Near | Operator::Within);
                    }
                    out.push(Want {
                        collection: target.collection.clone(),
                        index: i,
                    });
                }
            }
            continue;
        };
        sparse |= field.variant.is_some();
        ignore_case |= cond.ignore_case;
        if cond.attribute {
            if attributes.is_none() {
                attribute_range = !matches!(cond.op, Operator::Eq | Operator::In);
                attributes = Some(path);
            }
            continue;
        }
        if cond.op == Operator::Eq && unique_eq.is_none() {
            unique_eq = unique_single(c, &path, field, cond.ignore_case);
        }
        match cond.op {
            Operator::Eq | Operator::In => eq.push((path, 1)),
            Operator::Near | Operator::Within => geo.push((path, 1)),
            _ => range.push((path, 1)),
        }
    }
    if let Some(mut i) = unique_eq {
        // Folds into the declared unique index (same keys and options): no second index.
        i.reasons = vec![format!(
            "query `{}`{rate} (equality on the unique `{}`: at most one document)",
            q.name, i.keys[0].path
        )];
        i.serves = vec![IndexUse::Query {
            name: q.name.clone(),
        }];
        out.push(Want {
            collection: c.name.clone(),
            index: i,
        });
        return;
    }
    let mut sort = Vec::new();
    for key in &q.sort {
        let resolved = match &key.path.through {
            None => bson_path(c, &key.path.segments),
            Some(t) => decisions
                .get(&t.relation)
                .into_iter()
                .flat_map(|d| d.denormalized.iter())
                .find(|x| x.collection == c.name && x.source == format!("{}.{}", t.entity, t.field))
                .and_then(|x| c.field_at(&x.copy_path).map(|f| (x.copy_path.clone(), f))),
        };
        if let Some((path, _)) = resolved {
            sort.push((path, if key.descending { -1 } else { 1 }));
        }
    }
    let mut keys: Vec<(String, i32)> = Vec::new();
    let spheres: Vec<String> = geo.iter().map(|(p, _)| p.clone()).collect();
    // A paged query (no `limit`: it has a `_page` method) reads its pages in its sort order and
    // then `_id`; a sorted query with a limit breaks ties by `_id` too, so its first N are always
    // the same N. `_id` after the sort keys lets the index serve that order, with no sort in
    // memory. Without a sort, `_id` goes last, after the range keys the index bounds on.
    let paged = q.limit.is_none() && spheres.is_empty();
    let by_id = spheres.is_empty() && (paged || !sort.is_empty());
    let id = || by_id.then(|| ("_id".to_owned(), 1));
    let (id_after_sort, id_last) = if sort.is_empty() {
        (None, id())
    } else {
        (id(), None)
    };
    let id_is_last = id_last.is_some() && !range.is_empty();
    // An attribute's key and value come first, in the order of the attribute pattern's own index
    // (`{attrs.k: 1, attrs.v: 1}`), which is then a prefix of this one and folds into it: no
    // second index for the attributes. The `$elemMatch` bounds both keys. MongoDB indexes at
    // most one array per compound index ("cannot index parallel arrays"), so the other keys
    // through an array (another map's, a second array's) are left out: the server filters them.
    let attribute_keys = attributes
        .iter()
        .flat_map(|p| [(format!("{p}.k"), 1), (format!("{p}.v"), 1)])
        .collect::<Vec<_>>();
    let own_array = |p: &str| match &attributes {
        Some(a) => p
            .strip_prefix(a.as_str())
            .is_some_and(|r| r.starts_with('.')),
        None => false,
    };
    // Equality, then the 2dsphere key of `near`/`within` (MongoDB's compound geospatial index),
    // then sort, then range.
    for k in attribute_keys
        .into_iter()
        .chain(eq)
        .chain(geo)
        .chain(sort)
        .chain(id_after_sort)
        .chain(range)
        .chain(id_last)
    {
        let parallel =
            attributes.is_some() && !own_array(&k.0) && super::through_array(&c.fields, &k.0);
        if !parallel && !keys.iter().any(|(p, _)| *p == k.0) {
            keys.push(k);
        }
    }
    if keys.is_empty() || (keys.len() == 1 && keys[0].0 == "_id") {
        return;
    }
    let k: Vec<(&str, i32)> = keys.iter().map(|(p, d)| (p.as_str(), *d)).collect();
    let order = if id_is_last {
        "equality, then range, then `_id` for keyset pages"
    } else if paged {
        "equality, then sort and `_id` for keyset pages, then range"
    } else if by_id {
        "equality, then sort and `_id` to break ties, then range"
    } else if spheres.is_empty() {
        "equality, then sort, then range"
    } else {
        "equality, then the 2dsphere key, then sort, then range"
    };
    let reason = match &attributes {
        Some(a) if keys.len() == 2 => format!(
            "query `{}`{rate} (the attribute pattern's index: `{a}` by key, then value)",
            q.name
        ),
        Some(a) => format!(
            "query `{}`{rate} (the attribute pattern's key and value of `{a}` first, as its own \
             index has them, then {order}{})",
            q.name,
            if attribute_range {
                "; the value is compared by a range, so the keys after it narrow the scan less \
                 and an order on them is sorted in memory"
            } else {
                ""
            }
        ),
        None => format!("query `{}`{rate} ({order})", q.name),
    };
    let mut i = index(
        &k,
        reason,
        IndexUse::Query {
            name: q.name.clone(),
        },
    );
    for key in &mut i.keys {
        key.sphere = spheres.contains(&key.path);
    }
    i.sparse = sparse;
    if ignore_case {
        i.collation = Some(case_insensitive());
    }
    out.push(Want {
        collection: c.name.clone(),
        index: i,
    });
}

/// The declared unique index on `path` alone (as `declared` makes it) when it serves an equality
/// on `path` compared as the query compares (`ignore_case` or not): a top-level field of the
/// document's own, not in an array, not a variant's, not a copy.
fn unique_single(c: &Collection, path: &str, f: &PlanField, ignore_case: bool) -> Option<Index> {
    let flags = &f.flags;
    let collated = flags.ignore_case && f.bson_type == "string";
    if !flags.unique
        || f.variant.is_some()
        || f.kind == FieldKind::Denormalized
        || super::path_in_array(&c.fields, path)
        || collated != ((ignore_case || flags.ignore_case) && f.bson_type == "string")
    {
        return None;
    }
    let mut i = index(
        &[(path, 1)],
        String::new(),
        IndexUse::Declared {
            path: path.to_owned(),
        },
    );
    i.unique = true;
    i.sparse = f.optional;
    if collated {
        i.collation = Some(case_insensitive());
    }
    Some(i)
}
