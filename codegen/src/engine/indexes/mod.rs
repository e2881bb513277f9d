//! Indexes: from declared field facts, relationship layouts, patterns and declared queries.
//!
//! Query indexes follow equality, sort, range. One compound index serves its prefixes, so an index
//! whose keys are a prefix of another's (with the same options) is folded into it.

use std::collections::BTreeMap;

use crate::model::{Layout, Navigate, Versioning};
use crate::plan::{
    Collection, CollectionRole, Decision, FieldKind, Index, IndexCollation, IndexKey, IndexUse,
    PlanField, RelationshipUse,
};

use super::context::Ctx;

/// An index wanted on a collection, before folding.
mod queries;

use queries::query;
pub(crate) use queries::{bson_path_in, resolve_path};

struct Want {
    collection: String,
    index: Index,
}

fn index(keys: &[(&str, i32)], reason: impl Into<String>, serves: IndexUse) -> Index {
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
        serves: vec![serves],
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
    {
        let by_name = crate::plan::CollectionsByName::new(collections);
        let by_id = crate::plan::DecisionsById::new(decisions);
        for q in &ctx.model.queries {
            query(ctx, q, &by_name, &by_id, &mut wants, &mut joins);
        }
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
                IndexUse::Declared {
                    path: f.path.clone(),
                },
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
                IndexUse::Declared {
                    path: f.path.clone(),
                },
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
            index: index(keys, reason, IndexUse::Pattern),
        })
    };
    match &c.role {
        CollectionRole::History => {
            // Unique: one record per version of a document, so a new version run again (a
            // loser of a race, a retry after a failure between its archive and its replace)
            // rewrites its record instead of adding a second one.
            let mut i = index(
                &[("document_id", 1), ("version", -1)],
                "document versioning: a document's history, newest first, one record per version",
                IndexUse::Pattern,
            );
            i.unique = true;
            out.push(Want {
                collection: c.name.clone(),
                index: i,
            });
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
    let mut add = |collection: &str,
                   keys: Vec<(String, i32)>,
                   reason: String,
                   role: RelationshipUse,
                   unique: bool| {
        if !collections.contains_key(collection) {
            return;
        }
        let k: Vec<(&str, i32)> = keys.iter().map(|(p, d)| (p.as_str(), *d)).collect();
        let serves = IndexUse::Relationship {
            id: d.id.clone(),
            role,
        };
        let mut i = index(&k, reason, serves);
        i.unique = unique;
        // A child that may have no parent (`one?`) is stored without the reference: a unique
        // index on it would hold every such child under one missing key, so it skips them.
        i.sparse = unique && rel.child().cardinality.optional;
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
                // `_id` after the ids: `find_by_<f>` pages the holders in `_id` order.
                add(
                    &p.collection,
                    vec![(path.clone(), 1), ("_id".to_owned(), 1)],
                    format!(
                        "one_way ({}): the other direction, through the multikey index on `{path}`",
                        d.id
                    ),
                    RelationshipUse::Holders,
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
                    vec![(path.clone(), 1), ("_id".to_owned(), 1)],
                    format!(
                        "parent_refs ({}): {}'s {} through the multikey index on `{path}`",
                        d.id,
                        crate::prose::a(&d.child),
                        d.parent
                    ),
                    RelationshipUse::Holders,
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
                RelationshipUse::Children,
                unique,
            );
        }
    }
    // Every update of a copied field's source finds the copies by the source's id: an index on
    // that path (folded into the layout's own index where it already leads one), or each
    // update scans the collection holding them.
    for copy in d.denormalized.iter().filter(|c| !c.immutable) {
        let f = &copy.fan_out;
        if f.match_path == "_id" {
            continue;
        }
        add(
            &f.collection,
            vec![(f.match_path.clone(), 1)],
            format!(
                "fan-out ({}): updating {} finds its copies through `{}`",
                d.id, copy.source, f.match_path
            ),
            RelationshipUse::FanOut,
            false,
        );
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
            RelationshipUse::Bucket,
            false,
        );
        if let Some(t) = &b.time_range {
            add(
                &b.collection,
                vec![(parent.clone(), 1), (t.start_path.clone(), 1)],
                format!("bucket ({}): reads by time range", d.id),
                RelationshipUse::Bucket,
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
                RelationshipUse::Bucket,
                false,
            );
        }
    }
    if d.strategy == Layout::LinkCollection {
        let (lk, rk) = super::placement::link_keys(rel);
        if let Some(link) = d.placement.first().map(|p| p.collection.clone()) {
            add(&link, vec![(lk.clone(), 1), (rk.clone(), 1)], format!("link_collection ({}): one document per pair (links are idempotent), {}'s partners", d.id, rel.left.entity), RelationshipUse::Link, true);
            add(
                &link,
                vec![(rk, 1), (lk, 1)],
                format!(
                    "link_collection ({}): {}'s partners",
                    d.id, rel.right.entity
                ),
                RelationshipUse::Link,
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
            RelationshipUse::Overflow,
            false,
        );
    }
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
                let (reasons, serves) = (candidate.reasons.clone(), candidate.serves.clone());
                let host = &mut wants[k];
                if host.keys == candidate.keys {
                    host.unique |= candidate.unique;
                }
                for r in reasons {
                    if !host.reasons.contains(&r) {
                        host.reasons.push(r);
                    }
                }
                for u in serves {
                    if !host.serves.contains(&u) {
                        host.serves.push(u);
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
