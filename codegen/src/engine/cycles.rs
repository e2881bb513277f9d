//! Embedding cycles: every entity must be stored somewhere reachable from a collection.
//!
//! An entity embedded in its parent lives in the parent's documents; a parent embedded in its own
//! child (A embeds B embeds A, or an entity embedding itself one-to-one) would leave neither with a
//! collection, and the entities would vanish from the Plan. After every relationship is decided,
//! this pass finds the entities no collection reaches and breaks each cycle they sit on with a
//! reference: one entity of the cycle, the root, keeps a collection of its own, and the
//! relationship that embedded it now holds its ids instead (`parent_refs`; an entity related to
//! itself one-to-one references its partner, `child_ref`). A self-embedding one-to-many (a tree of
//! replies) stays embedded under a root collection. A cycle made only of forced embeddings cannot
//! be broken without overriding the schema: it is error W121.

use std::collections::BTreeSet;

use crate::model::{Layout, Model, RelationKind, Side};
use crate::plan::RuleId;

use super::basis::{Against, Fact, Reason};
use super::context::Ctx;
use super::relation::{Choice, Rejection};

/// A cycle of forced embeddings, for error W121: the relationships, in cycle order.
pub(crate) struct ForcedCycle {
    pub relations: Vec<usize>,
}

/// What breaking the cycles decided.
#[derive(Default)]
pub(crate) struct Broken {
    /// Entities that keep a collection of their own although something embeds them (roots of
    /// self-embedding trees, and roots of forced cycles so that the plan stays whole).
    pub roots: BTreeSet<String>,
    /// Cycles of forced embeddings (error W121).
    pub forced: Vec<ForcedCycle>,
}

/// One embedding: relationship `rel` puts `child` inside `parent`'s documents.
struct Edge {
    rel: usize,
    parent: String,
    child: String,
}

fn edges(model: &Model, choices: &[Choice]) -> Vec<Edge> {
    model
        .relations
        .iter()
        .zip(choices)
        .enumerate()
        .filter(|(_, (_, c))| c.strategy == Layout::Embed)
        .map(|(i, (rel, c))| {
            let parent = rel.end(c.parent).entity.clone();
            let child = match c.parent {
                Side::Left => rel.right.entity.clone(),
                Side::Right => rel.left.entity.clone(),
            };
            Edge {
                rel: i,
                parent,
                child,
            }
        })
        .collect()
}

/// Entities stored in a collection of their own, or inside documents one of those reaches.
fn reachable(ctx: &Ctx<'_>, edges: &[Edge], roots: &BTreeSet<String>) -> BTreeSet<String> {
    let embedded: BTreeSet<&str> = edges.iter().map(|e| e.child.as_str()).collect();
    let mut out: BTreeSet<String> = ctx
        .model
        .entities
        .iter()
        .map(|e| e.name.clone())
        .filter(|e| !embedded.contains(e.as_str()) || ctx.is_standalone(e) || roots.contains(e))
        .collect();
    // A walk from the roots along parent -> child edges: each edge is followed once (a loop
    // over every edge until nothing changes takes one pass per level of a deep chain).
    let mut children: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for e in edges {
        children
            .entry(e.parent.as_str())
            .or_default()
            .push(e.child.as_str());
    }
    let mut todo: Vec<String> = out.iter().cloned().collect();
    while let Some(at) = todo.pop() {
        for child in children.get(at.as_str()).into_iter().flatten() {
            if out.insert((*child).to_owned()) {
                todo.push((*child).to_owned());
            }
        }
    }
    out
}

/// Breaks every embedding cycle that leaves entities without a collection; see the module docs.
pub(crate) fn break_cycles(ctx: &Ctx<'_>, choices: &mut [Choice]) -> Broken {
    let mut broken = Broken::default();
    // Each round breaks one edge or adds one root, so it ends within edges + entities rounds.
    for _ in 0..=(choices.len() + ctx.model.entities.len()) {
        let edges = edges(ctx.model, choices);
        let reached = reachable(ctx, &edges, &broken.roots);
        let Some(start) = ctx
            .model
            .entities
            .iter()
            .find(|e| !reached.contains(&e.name))
        else {
            return broken;
        };
        // An unreached entity is embedded only by unreached parents: walking back through them
        // must come round to an entity already seen.
        let mut parents: std::collections::HashMap<&str, &Edge> = std::collections::HashMap::new();
        for e in edges.iter().rev() {
            if !reached.contains(&e.parent) {
                parents.insert(e.child.as_str(), e);
            }
        }
        let mut path: Vec<&Edge> = Vec::new();
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut at = start.name.as_str();
        let cycle = loop {
            let Some(&edge) = parents.get(at) else {
                break Vec::new();
            };
            if let Some(&pos) = seen.get(edge.child.as_str()) {
                break path[pos..].to_vec();
            }
            seen.insert(edge.child.as_str(), path.len());
            path.push(edge);
            at = edge.parent.as_str();
        };
        // A tree of its own kind (forced or not) needs a root, not a break.
        let tree = cycle.iter().find(|e| {
            e.parent == e.child && ctx.model.relations[e.rel].kind != RelationKind::OneToOne
        });
        let breakable = tree
            .into_iter()
            .chain(cycle.iter().filter(|e| !choices[e.rel].forced))
            .min_by_key(|e| {
                let one_to_one = ctx.model.relations[e.rel].kind == RelationKind::OneToOne;
                (one_to_one, e.rel)
            });
        match breakable {
            Some(edge) => {
                let (rel, parent, child) = (edge.rel, edge.parent.clone(), edge.child.clone());
                break_edge(
                    ctx,
                    &mut choices[rel],
                    rel,
                    &parent,
                    &child,
                    &cycle,
                    &mut broken,
                );
            }
            None => {
                broken.forced.push(ForcedCycle {
                    relations: cycle.iter().map(|e| e.rel).collect(),
                });
                broken.roots.insert(start.name.clone());
            }
        }
    }
    broken
}

fn break_edge(
    ctx: &Ctx<'_>,
    choice: &mut Choice,
    rel: usize,
    parent: &str,
    child: &str,
    cycle: &[&Edge],
    broken: &mut Broken,
) {
    let relation = &ctx.model.relations[rel];
    let names: Vec<String> = if parent == child {
        vec![child.to_owned()]
    } else {
        cycle.iter().map(|e| e.parent.clone()).collect()
    };
    choice.facts.push(Fact::EmbedCycle {
        names: names.clone(),
    });
    let one_to_one = relation.kind == RelationKind::OneToOne;
    if parent == child && !one_to_one {
        // A tree of its own kind: the nodes nest inside a root node, which needs a collection.
        broken.roots.insert(child.to_owned());
        choice.reason = Reason::TreeRoots {
            base: Box::new(choice.reason.clone()),
            child: child.to_owned(),
        };
        choice.rules.push(RuleId::Rule2);
        return;
    }
    choice.rejected.insert(
        0,
        Rejection {
            strategy: Some(Layout::Embed),
            rules: vec![RuleId::Rule1],
            against: Against::EmbedCycle {
                names: names.clone(),
                reason: Box::new(choice.reason.clone()),
            },
        },
    );
    if parent == child {
        choice.strategy = Layout::ChildRef;
        choice.reason = Reason::SelfOneToOne {
            child: child.to_owned(),
        };
    } else {
        choice.strategy = Layout::ParentRefs;
        choice.reason = Reason::CycleBroken {
            names,
            parent: parent.to_owned(),
            child: child.to_owned(),
        };
    }
    let chosen = Some(choice.strategy);
    choice.rejected.retain(|r| r.strategy != chosen);
    choice.rules = vec![RuleId::Rule4];
    choice.outlier_cap = None;
    choice.bucket_size = None;
}
