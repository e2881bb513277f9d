//! Indexes: from declared field facts, relationship layouts, patterns and declared queries.
//!
//! Query indexes follow equality, sort, range. One compound index serves its prefixes, so an index
//! whose keys are a prefix of another's (with the same options) is folded into it.

use std::collections::BTreeMap;

use crate::model::{Layout, Navigate, Operator, Query, Versioning};
use crate::plan::{
    Collection, CollectionRole, Decision, FieldKind, Index, IndexCollation, IndexKey, PlanField,
};

use super::context::Ctx;

/// An index wanted on a collection, before folding.
struct Want {
    collection: String,
    index: Index,
}

fn index(keys: &[(&str, i32)], reason: impl Into<String>) -> Index {
    Index {
        name: String::new(),
        keys: keys
            .iter()
            .map(|(p, d)| IndexKey::ordered(*p, *d))
            .collect(),
        unique: false,
        sparse: false,
        partial_filter: None,
        collation: None,
        expire_after_seconds: None,
        multikey: false,
        reasons: vec![reason.into()],
    }
}

fn case_insensitive() -> IndexCollation {
    IndexCollation {
        locale: "en".to_owned(),
        strength: 2,
    }
}

/// Adds every index to `collections`. Returns, for warnings, the queries that could not be served
/// by an index in their own collection (they join in the application).
pub(crate) fn plan(
    ctx: &Ctx<'_>,
    collections: &mut [Collection],
    decisions: &[Decision],
) -> Vec<(String, String)> {
    let mut wants = Vec::new();
    for c in collections.iter() {
        declared(c, &c.fields, None, &mut wants);
        patterns(ctx, c, &mut wants);
    }
    {
        let by_name: BTreeMap<&str, &Collection> =
            collections.iter().map(|c| (c.name.as_str(), c)).collect();
        let mut refs = BTreeMap::new();
        for c in collections.iter() {
            reference_fields(&c.name, &c.fields, &mut refs);
        }
        for d in decisions {
            relationship(ctx, d, &by_name, &refs, &mut wants);
        }
    }
    let mut joins = Vec::new();
    let by_name: BTreeMap<&str, usize> = collections
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    for q in &ctx.model.queries {
        query(
            ctx,
            q,
            collections,
            &by_name,
            decisions,
            &mut wants,
            &mut joins,
        );
    }
    let mut per_collection: BTreeMap<String, Vec<Index>> = BTreeMap::new();
    for w in wants {
        per_collection
            .entry(w.collection)
            .or_default()
            .push(w.index);
    }
    for c in collections.iter_mut() {
        let mine = per_collection.remove(&c.name).unwrap_or_default();
        c.indexes = fold(mine);
        for i in &mut c.indexes {
            i.multikey = i.keys.iter().any(|k| through_array(&c.fields, &k.path));
            i.name = name(i);
        }
        dedupe_names(&mut c.indexes);
    }
    joins
}

/// Indexes the fields declare (`@unique`, `@index`, `@expires`). `placed` is the kind of the
/// nearest enclosing field a relationship placed (an embedded child, a copy), if any:
/// - a TTL index deletes whole documents, so it is only ever made for the documents' own fields,
///   never for a child or a copy inside them (the child's own collection expires it);
/// - copies of another entity's fields (extended references, subsets, top-N lists) are indexed
///   only where a query needs them (the query adds that index), not for the source's own facts.
fn declared(c: &Collection, fields: &[PlanField], placed: Option<FieldKind>, out: &mut Vec<Want>) {
    for f in fields {
        if f.name == "_id" && f.path == "_id" {
            continue;
        }
        let flags = &f.flags;
        let copy = f.kind == FieldKind::Denormalized
            || matches!(placed, Some(FieldKind::Denormalized | FieldKind::Computed));
        if (flags.unique || flags.indexed) && !copy {
            let mut i = index(
                &[(&f.path, 1)],
                format!(
                    "{} `{}` is declared {}",
                    if f.variant.is_some() {
                        "variant field"
                    } else {
                        "field"
                    },
                    f.path,
                    if flags.unique { "@unique" } else { "@index" }
                ),
            );
            let in_array = path_in_array(&c.fields, &f.path);
            i.unique = flags.unique;
            // A unique multikey index keys a document whose array is empty as null: sparse, or
            // two documents without an element would collide.
            i.sparse = f.variant.is_some() || (flags.unique && (f.optional || in_array));
            if flags.unique && in_array {
                i.reasons.push(format!(
                    "`{}` is in an array: MongoDB's unique index refuses a value another document holds, not a second element of the same array with it; the generated push refuses that one (a `$ne` guard in its filter)",
                    f.path
                ));
            }
            if flags.ignore_case && f.bson_type == "string" {
                i.collation = Some(case_insensitive());
                i.reasons.push(format!(
                    "`{}` is looked up case-insensitively: collation strength 2",
                    f.path
                ));
            }
            out.push(Want {
                collection: c.name.clone(),
                index: i,
            });
        }
        if let (Some(ttl), None) = (flags.expire_after_seconds, placed) {
            let mut i = index(
                &[(&f.path, 1)],
                format!("documents expire {ttl} s after `{}` (TTL)", f.path),
            );
            i.expire_after_seconds = Some(ttl);
            out.push(Want {
                collection: c.name.clone(),
                index: i,
            });
        }
        let inner = match (&f.relation, placed) {
            (_, Some(kind)) => Some(kind),
            (Some(_), None) => Some(f.kind),
            (None, None) => None,
        };
        declared(c, &f.children, inner, out);
    }
}

fn patterns(ctx: &Ctx<'_>, c: &Collection, out: &mut Vec<Want>) {
    let mut add = |keys: &[(&str, i32)], reason: &str| {
        out.push(Want {
            collection: c.name.clone(),
            index: index(keys, reason),
        })
    };
    match &c.role {
        CollectionRole::History => {
            add(
                &[("document_id", 1), ("version", -1)],
                "document versioning: a document's history, newest first",
            );
            return;
        }
        CollectionRole::Entity => {}
        _ => return,
    }
    let Some(entity) = ctx.entity(&c.entity) else {
        return;
    };
    let p = &entity.patterns;
    if p.tree {
        add(&[("parent", 1)], "tree: children of a node");
        add(
            &[("ancestors", 1)],
            "tree: descendants of a node (multikey on ancestors)",
        );
    }
    if let Some(priority) = &p.queue {
        let path = entity
            .field(priority)
            .map(|f| f.bson_name.clone())
            .unwrap_or_else(|| priority.clone());
        // The claim's filter and its whole sort (`_id` breaks ties): a claim reads one entry.
        add(
            &[("in_progress", 1), (&path, -1), ("_id", 1)],
            "queue: claim the next job (find-and-modify on in_progress, highest priority first, oldest first among equals)",
        );
    }
    if p.versioned == Some(Versioning::ValidRange) {
        add(
            &[("document_id", 1), ("valid_to", 1), ("valid_from", -1)],
            "document versioning: the version current at a time (valid_to first: fewer future entries, seed 002)",
        );
    }
    for f in &c.fields {
        if f.kind == crate::plan::FieldKind::Pattern
            && f.array_depth == 1
            && f.children.len() == 2
            && f.children[0].name == "k"
        {
            let k = format!("{}.k", f.path);
            let v = format!("{}.v", f.path);
            add(
                &[(&k, 1), (&v, 1)],
                "attribute pattern: any attribute by name and value",
            );
        }
    }
}

/// Where each relationship's single references ended up: relation id -> (collection, path,
/// extended). Embedded children carry them inside their parent's documents (`notes.user`).
type RefSites = BTreeMap<String, Vec<(String, String, bool)>>;

fn reference_fields(collection: &str, fields: &[PlanField], out: &mut RefSites) {
    for f in fields {
        if let (Some(rel), FieldKind::Ref) = (&f.relation, f.kind) {
            let extended = f.bson_type == "object";
            out.entry(rel.clone()).or_default().push((
                collection.to_owned(),
                f.path.clone(),
                extended,
            ));
        }
        reference_fields(collection, &f.children, out);
    }
}

fn relationship(
    ctx: &Ctx<'_>,
    d: &Decision,
    collections: &BTreeMap<&str, &Collection>,
    refs: &RefSites,
    out: &mut Vec<Want>,
) {
    let Some(rel) = ctx.relation(&d.id) else {
        return;
    };
    let mut add = |collection: &str, keys: Vec<(String, i32)>, reason: String, unique: bool| {
        if !collections.contains_key(collection) {
            return;
        }
        let k: Vec<(&str, i32)> = keys.iter().map(|(p, d)| (p.as_str(), *d)).collect();
        let mut i = index(&k, reason);
        i.unique = unique;
        out.push(Want {
            collection: collection.to_owned(),
            index: i,
        });
    };
    let id_path = |collection: &str, path: &str| -> String {
        let extended = collections
            .get(collection)
            .and_then(|c| c.field_at(path))
            .is_some_and(|f| f.bson_type == "object");
        if extended {
            format!("{path}.id")
        } else {
            path.to_owned()
        }
    };
    let order = rel
        .facts
        .page
        .as_ref()
        .and_then(|p| p.by.clone())
        .or_else(|| rel.facts.latest.as_ref().map(|l| l.by.clone()))
        .map(|b| (b.field, if b.descending { -1 } else { 1 }))
        .or_else(|| rel.facts.time_range.clone().map(|f| (f, 1)));
    for p in &d.placement {
        let is_child_id =
            p.shape == crate::plan::Shape::Id || p.shape == crate::plan::Shape::ExtendedRef;
        match d.strategy {
            Layout::OneWay if !is_child_id => {
                let path = id_path(&p.collection, &p.path);
                add(
                    &p.collection,
                    vec![(path.clone(), 1)],
                    format!(
                        "one_way ({}): the other direction, through the multikey index on `{path}`",
                        d.id
                    ),
                    false,
                );
            }
            Layout::ParentRefs
                if !is_child_id
                    && (matches!(rel.facts.navigate, Navigate::Both)
                        || matches!(&rel.facts.navigate, Navigate::Entity(e) if *e == d.child)) =>
            {
                let path = id_path(&p.collection, &p.path);
                add(
                    &p.collection,
                    vec![(path.clone(), 1)],
                    format!(
                        "parent_refs ({}): {}'s {} through the multikey index on `{path}`",
                        d.id,
                        crate::prose::a(&d.child),
                        d.parent
                    ),
                    false,
                );
            }
            _ => {}
        }
    }
    if d.strategy == Layout::ChildRef {
        for (collection, path, extended) in refs.get(&d.id).map(Vec::as_slice).unwrap_or(&[]) {
            let path = if *extended {
                format!("{path}.id")
            } else {
                path.clone()
            };
            let top_level = !path.trim_end_matches(".id").contains('.');
            let mut keys = vec![(path.clone(), 1)];
            if let (Some((field, dir)), true) = (&order, top_level) {
                let bson = ctx
                    .entity(&d.child)
                    .and_then(|e| e.field(field))
                    .map(|f| f.bson_name.clone())
                    .unwrap_or_else(|| field.clone());
                keys.push((bson, *dir));
            }
            let one_to_one = d.kind == crate::model::RelationKind::OneToOne;
            let unique = one_to_one && top_level;
            // `find_by_<parent>` pages by keyset in this order then `_id`: `_id` last lets the
            // index serve it (not on a unique index, whose keys it would weaken).
            if !unique {
                keys.push(("_id".to_owned(), 1));
            }
            let children = if one_to_one {
                d.child.clone()
            } else {
                crate::prose::plural(&d.child)
            };
            add(
                collection,
                keys,
                format!(
                    "child_ref ({}): {}'s {children} through `{path}`",
                    d.id,
                    crate::prose::a(&d.parent)
                ),
                unique,
            );
        }
    }
    if let Some(b) = &d.bucket {
        let parent = id_path(&b.collection, &b.parent_path);
        add(
            &b.collection,
            vec![(parent.clone(), 1), (b.count_path.clone(), 1)],
            format!(
                "bucket ({}): the append upsert finds the open bucket by {{{parent}, count < {}}}",
                d.id, b.size
            ),
            false,
        );
        if let Some(t) = &b.time_range {
            add(
                &b.collection,
                vec![(parent.clone(), 1), (t.start_path.clone(), 1)],
                format!("bucket ({}): reads by time range", d.id),
                false,
            );
        } else {
            add(
                &b.collection,
                vec![(parent.clone(), 1), ("_id".to_owned(), 1)],
                format!(
                    "bucket ({}): page k of a parent (buckets in creation order)",
                    d.id
                ),
                false,
            );
        }
    }
    if d.strategy == Layout::LinkCollection {
        let (lk, rk) = super::placement::link_keys(rel);
        if let Some(link) = d.placement.first().map(|p| p.collection.clone()) {
            add(&link, vec![(lk.clone(), 1), (rk.clone(), 1)], format!("link_collection ({}): one document per pair (links are idempotent), {}'s partners", d.id, rel.left.entity), true);
            add(
                &link,
                vec![(rk, 1), (lk, 1)],
                format!(
                    "link_collection ({}): {}'s partners",
                    d.id, rel.right.entity
                ),
                false,
            );
        }
    }
    if let Some(o) = &d.outlier {
        // The overflow upsert's filter `{owner, count < chunk}`; reads use its prefix.
        add(
            &o.overflow_collection,
            vec![("owner".to_owned(), 1), ("count".to_owned(), 1)],
            format!(
                "outlier ({}): overflow documents of a flagged {}",
                d.id, d.parent
            ),
            false,
        );
    }
}

/// Resolves a query path (code names) to a BSON path in `c`, with the field found.
/// Where a query's field path lives in `c`: the field itself, its copy (denormalized from the
/// other side of a relation), or the id of a reference compared as a whole (`where author == ?`).
pub(crate) fn resolve_path<'a>(
    c: &'a Collection,
    path: &crate::model::FieldPath,
    decisions: &[Decision],
) -> Option<(String, &'a PlanField)> {
    let resolved = match &path.through {
        None => bson_path(c, &path.segments),
        Some(t) => {
            // Embedded, or copied into this collection: the path exists here.
            let copy = decisions
                .iter()
                .filter(|d| d.id == t.relation)
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

fn query(
    ctx: &Ctx<'_>,
    q: &Query,
    collections: &[Collection],
    by_name: &BTreeMap<&str, usize>,
    decisions: &[Decision],
    out: &mut Vec<Want>,
    joins: &mut Vec<(String, String)>,
) {
    let (c, mut eq) = match &q.children {
        // A parent's children in their own documents: found by the parent's reference first.
        // Children in an array are found with their parent's document (by its `_id` or the
        // bucket's key): no index of the query's own.
        Some(of) => match super::queries::children_site(ctx, of, collections, decisions) {
            Some(site) if site.array.is_none() => {
                (site.collection, vec![(site.parent_path.clone(), 1)])
            }
            _ => return,
        },
        None => {
            let Some(entity) = ctx.entity(&q.entity) else {
                return;
            };
            let Some(c) = by_name
                .get(entity.collection.as_str())
                .map(|&i| &collections[i])
            else {
                return;
            };
            (c, Vec::new())
        }
    };
    let mut range = Vec::new();
    let mut geo: Vec<(String, i32)> = Vec::new();
    let mut ignore_case = false;
    let mut sparse = false;
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
        match cond.op {
            Operator::Eq | Operator::In => eq.push((path, 1)),
            Operator::Near | Operator::Within => geo.push((path, 1)),
            _ => range.push((path, 1)),
        }
    }
    let mut sort = Vec::new();
    for key in &q.sort {
        let resolved = match &key.path.through {
            None => bson_path(c, &key.path.segments),
            Some(t) => decisions
                .iter()
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
    // then `_id`: `_id` after the sort keys lets the index serve that order, with no sort in
    // memory. Without a sort, `_id` goes last, after the range keys the index bounds on.
    let paged = q.limit.is_none() && spheres.is_empty();
    let id = || paged.then(|| ("_id".to_owned(), 1));
    let (id_after_sort, id_last) = if sort.is_empty() {
        (None, id())
    } else {
        (id(), None)
    };
    let id_is_last = id_last.is_some() && !range.is_empty();
    // Equality, then the 2dsphere key of `near`/`within` (MongoDB's compound geospatial index),
    // then sort, then range.
    for k in eq
        .into_iter()
        .chain(geo)
        .chain(sort)
        .chain(id_after_sort)
        .chain(range)
        .chain(id_last)
    {
        if !keys.iter().any(|(p, _)| *p == k.0) {
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
    } else if spheres.is_empty() {
        "equality, then sort, then range"
    } else {
        "equality, then the 2dsphere key, then sort, then range"
    };
    let mut i = index(&k, format!("query `{}`{rate} ({order})", q.name));
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

/// Folds indexes served by another: identical keys, or a prefix with the same options.
fn fold(mut wants: Vec<Index>) -> Vec<Index> {
    let mut out: Vec<Index> = Vec::new();
    // Longer indexes first, so prefixes find the index that serves them.
    let mut order: Vec<usize> = (0..wants.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(wants[i].keys.len()));
    let mut kept: Vec<usize> = Vec::new();
    for i in order {
        let candidate = wants[i].clone();
        let host = kept
            .iter()
            .copied()
            .find(|&k| serves(&wants[k], &candidate));
        match host {
            Some(k) => {
                let reasons = candidate.reasons.clone();
                let host = &mut wants[k];
                if host.keys == candidate.keys {
                    host.unique |= candidate.unique;
                }
                for r in reasons {
                    if !host.reasons.contains(&r) {
                        host.reasons.push(r);
                    }
                }
            }
            None => kept.push(i),
        }
    }
    kept.sort_unstable();
    for k in kept {
        out.push(wants[k].clone());
    }
    out
}

/// Whether `host` serves every query `wanted` serves.
fn serves(host: &Index, wanted: &Index) -> bool {
    let prefix =
        wanted.keys.len() <= host.keys.len() && host.keys[..wanted.keys.len()] == wanted.keys[..];
    if !prefix
        || host.collation != wanted.collation
        || host.sparse != wanted.sparse
        || host.partial_filter != wanted.partial_filter
    {
        return false;
    }
    if host.expire_after_seconds.is_some() || wanted.expire_after_seconds.is_some() {
        return host.keys == wanted.keys
            && host.expire_after_seconds == wanted.expire_after_seconds;
    }
    if wanted.unique {
        return host.keys == wanted.keys;
    }
    !host.unique || host.keys == wanted.keys
}

fn name(i: &Index) -> String {
    let keys: Vec<String> = i
        .keys
        .iter()
        .map(|k| format!("{}_{}", k.path, k.written()))
        .collect();
    keys.join("_")
}

fn dedupe_names(indexes: &mut [Index]) {
    for i in 0..indexes.len() {
        let mut suffix = 1;
        while indexes[..i].iter().any(|o| o.name == indexes[i].name) {
            suffix += 1;
            let base = name(&indexes[i]);
            let tag = if indexes[i].collation.is_some() {
                "ci"
            } else {
                "alt"
            };
            indexes[i].name = if suffix == 2 {
                format!("{base}_{tag}")
            } else {
                format!("{base}_{tag}{suffix}")
            };
        }
    }
}

fn through_array(fields: &[PlanField], path: &str) -> bool {
    let mut fields = fields;
    for segment in path.split('.') {
        let Some(f) = fields.iter().find(|f| f.name == segment) else {
            return false;
        };
        if f.array_depth > 0 || f.map {
            return true;
        }
        fields = &f.children;
    }
    false
}

fn path_in_array(fields: &[PlanField], path: &str) -> bool {
    through_array(fields, path)
}
