//! No collection gets an index another of its indexes already serves. MongoDB walks an index in
//! either direction, so an index serves every query of another whose keys are a prefix of its own
//! (`{a: 1}` beside `{a: 1, b: 1}`) or that prefix reversed as a whole (`{a: -1, _id: -1}` beside
//! `{a: 1, _id: 1, b: 1}`), with the same options (unique, sparse, partial filter, collation, TTL).
//! A second such index only costs writes and memory (DOMAIN.md: unnecessary indexes). And every
//! index says, as data (`serves`), what it is for, naming what exists: the code generator finds
//! a relationship's indexes by it (never by reading the reasons' sentences). Over generated
//! schemas (`schemagen`, elements on and off), every example and the real-world corpus.

use std::path::PathBuf;

use squillion_codegen::plan::{Index, IndexUse, Layout, Plan, RelationshipUse, Shape};
use squillion_grammar::SourceFile;

fn plan_of(name: &str, text: &str) -> Option<Plan> {
    let source = SourceFile::new(name, text);
    let checked = squillion_codegen::load(&source).ok()?;
    Some(squillion_codegen::engine::plan(&checked.model, &source))
}

fn same_options(a: &Index, b: &Index) -> bool {
    a.unique == b.unique
        && a.sparse == b.sparse
        && a.partial_filter == b.partial_filter
        && a.collation == b.collation
        && a.expire_after_seconds == b.expire_after_seconds
}

/// Whether `host` serves every query `wanted` serves.
fn serves(host: &Index, wanted: &Index) -> bool {
    if wanted.keys.len() > host.keys.len() || !same_options(host, wanted) {
        return false;
    }
    // A unique or TTL index means its own keys exactly.
    if wanted.unique || wanted.expire_after_seconds.is_some() {
        return false;
    }
    let prefix = &host.keys[..wanted.keys.len()];
    let forward = prefix
        .iter()
        .zip(&wanted.keys)
        .all(|(h, w)| h.path == w.path && h.sphere == w.sphere && h.direction == w.direction);
    let reversed = prefix
        .iter()
        .zip(&wanted.keys)
        .all(|(h, w)| h.path == w.path && !h.sphere && !w.sphere && h.direction == -w.direction);
    forward || reversed
}

fn redundant(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for c in &plan.collections {
        for (i, a) in c.indexes.iter().enumerate() {
            for (j, b) in c.indexes.iter().enumerate() {
                if i != j && serves(b, a) && (a.keys.len() < b.keys.len() || i < j) {
                    out.push(format!("{}: {} is served by {}", c.name, a.name, b.name));
                }
            }
        }
    }
    out
}

fn sqn_files(dir: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sqn"))
        .collect();
    files.sort();
    files
}

/// Every example, evolution and generated-example schema, the real-world corpus and 120
/// generated schemas, by name.
fn schemas() -> Vec<(String, String)> {
    let mut texts: Vec<(String, String)> = Vec::new();
    for dir in [
        "../examples",
        "../examples/generated/schemas",
        "../examples/evolution",
        "tests/decisions/real_world",
    ] {
        for f in sqn_files(dir) {
            texts.push((
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    for elements in [false, true] {
        let config = squillion_schemagen::Config {
            elements,
            ..Default::default()
        };
        for (n, (_, schema)) in squillion_schemagen::batch(0x1d3, 60, config)
            .into_iter()
            .enumerate()
        {
            let text = squillion_schemagen::render(&schema);
            texts.push((format!("generated {n} (elements {elements})\n{text}"), text));
        }
    }
    texts
}

/// The plans of [`schemas`] that check, by name; at least 150 of them.
fn plans() -> Vec<(String, Plan)> {
    let plans: Vec<(String, Plan)> = schemas()
        .into_iter()
        .filter_map(|(name, text)| Some((name, plan_of("gen.sqn", &text)?)))
        .collect();
    assert!(plans.len() >= 150, "only {} schemas planned", plans.len());
    plans
}

#[test]
fn no_index_is_served_by_another() {
    let mut failures = Vec::new();
    for (name, plan) in plans() {
        for r in redundant(&plan) {
            failures.push(format!("{name}: {r}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What is wrong with the `serves` of `plan`'s indexes: an index serving nothing, a use naming a
/// relationship, query or field that does not exist, a query whose Plan names an index that
/// does not serve it, a `child_ref` reference with no index listing the children by it.
fn uses_wrong(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for c in &plan.collections {
        for i in &c.indexes {
            if i.serves.is_empty() {
                out.push(format!("{}: {} serves nothing", c.name, i.name));
            }
            for u in &i.serves {
                let exists = match u {
                    IndexUse::Declared { path } => c.field_at(path).is_some(),
                    IndexUse::Query { name } => plan.queries.iter().any(|q| q.name == *name),
                    IndexUse::Pattern => true,
                    IndexUse::Relationship { id, .. } => plan.relationship(id).is_some(),
                };
                if !exists {
                    out.push(format!(
                        "{}: {} serves {u:?}, which is not there",
                        c.name, i.name
                    ));
                }
            }
        }
    }
    for q in &plan.queries {
        let Some(name) = &q.index else { continue };
        let served = plan
            .collections
            .iter()
            .filter(|c| c.name == q.collection)
            .flat_map(|c| &c.indexes)
            .any(|i| i.name == *name && i.serves_query(&q.name));
        if !served {
            out.push(format!(
                "query {}: its index {name} does not serve it",
                q.name
            ));
        }
    }
    for d in plan
        .relationships
        .iter()
        .filter(|d| d.strategy == Layout::ChildRef)
    {
        for p in &d.placement {
            let top_level =
                matches!(p.shape, Shape::Id | Shape::ExtendedRef) && !p.path.contains('.');
            let Some(c) = plan.collections.iter().find(|c| c.name == p.collection) else {
                continue;
            };
            if !top_level || c.field_at(&p.path).is_none() {
                continue;
            }
            let key = match c.field_at(&p.path) {
                Some(f) if f.bson_type == "object" => format!("{}.id", p.path),
                _ => p.path.clone(),
            };
            let listed = c.indexes.iter().any(|i| {
                i.keys.first().is_some_and(|k| k.path == key)
                    && i.serves_relationship(&d.id, RelationshipUse::Children)
            });
            if !listed {
                out.push(format!(
                    "{}: no index lists its children by {}.{key}",
                    d.id, c.name
                ));
            }
        }
    }
    out
}

#[test]
fn every_index_says_what_it_serves() {
    let mut failures = Vec::new();
    let mut relationship_uses = 0;
    for (name, plan) in plans() {
        for r in uses_wrong(&plan) {
            failures.push(format!("{name}: {r}"));
        }
        relationship_uses += plan
            .collections
            .iter()
            .flat_map(|c| &c.indexes)
            .flat_map(|i| &i.serves)
            .filter(|u| matches!(u, IndexUse::Relationship { .. }))
            .count();
    }
    assert!(
        relationship_uses >= 100,
        "only {relationship_uses} relationship indexes"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checker itself: a prefix, and a prefix reversed as a whole, are served; a prefix with one
/// direction flipped, other options, or a unique index are not.
#[test]
fn the_checker_finds_what_it_should() {
    let index = |keys: &[(&str, i32)]| Index {
        name: keys
            .iter()
            .map(|(p, d)| format!("{p}_{d}"))
            .collect::<Vec<_>>()
            .join("_"),
        keys: keys
            .iter()
            .map(|(p, d)| squillion_codegen::plan::IndexKey {
                path: (*p).to_owned(),
                direction: *d,
                sphere: false,
            })
            .collect(),
        unique: false,
        sparse: false,
        partial_filter: None,
        collation: None,
        expire_after_seconds: None,
        multikey: false,
        reasons: Vec::new(),
        serves: Vec::new(),
    };
    let host = index(&[("a", 1), ("_id", 1), ("b", -1)]);
    assert!(serves(&host, &index(&[("a", 1)])));
    assert!(serves(&host, &index(&[("a", -1), ("_id", -1)])));
    assert!(serves(&host, &index(&[("a", 1), ("_id", 1), ("b", -1)])));
    assert!(!serves(&host, &index(&[("a", 1), ("_id", -1)])));
    assert!(!serves(&host, &index(&[("_id", 1)])));
    let mut unique = index(&[("a", 1)]);
    unique.unique = true;
    assert!(!serves(&host, &unique));
    let mut sparse = index(&[("a", 1)]);
    sparse.sparse = true;
    assert!(!serves(&host, &sparse));
}
