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
use crate::plan::{Rejected, RuleId};

use super::context::{plural, Ctx};
use super::relation::Choice;

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
    loop {
        let before = out.len();
        for e in edges {
            if out.contains(&e.parent) {
                out.insert(e.child.clone());
            }
        }
        if out.len() == before {
            return out;
        }
    }
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
        let mut path: Vec<&Edge> = Vec::new();
        let mut at = start.name.as_str();
        let cycle = loop {
            let Some(edge) = edges
                .iter()
                .find(|e| e.child == at && !reached.contains(&e.parent))
            else {
                break Vec::new();
            };
            if let Some(pos) = path.iter().position(|e| e.child == edge.child) {
                break path[pos..].to_vec();
            }
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
    let names: Vec<&str> = cycle.iter().map(|e| e.parent.as_str()).collect();
    let chain = if parent == child {
        format!("{child} embeds itself")
    } else {
        let mut chain = names.join(" embeds ");
        chain.push_str(&format!(" embeds {}", names[0]));
        chain
    };
    choice.facts.push(if parent == child {
        format!("{chain}: no {child} would be stored in a collection")
    } else {
        format!("{chain}: with each inside another, none would be stored in a collection")
    });
    let one_to_one = relation.kind == RelationKind::OneToOne;
    if parent == child && !one_to_one {
        // A tree of its own kind: the nodes nest inside a root node, which needs a collection.
        broken.roots.insert(child.to_owned());
        choice.because.push_str(&format!(
            ". Nothing else holds a {child}, so the {} at the top of each tree are documents of a collection of their own",
            plural(child)
        ));
        choice.rules.push(RuleId::Rule2);
        return;
    }
    let embed_because = std::mem::take(&mut choice.because);
    choice.rejected.insert(
        0,
        Rejected {
            strategy: Layout::Embed.as_str().to_owned(),
            why: format!(
                "{chain}: embedded both ways, no {} would be stored anywhere ({embed_because})",
                if parent == child {
                    child.to_owned()
                } else {
                    format!("{parent} or {child}")
                }
            ),
            rules: vec![RuleId::Rule1],
        },
    );
    if parent == child {
        choice.strategy = Layout::ChildRef;
        choice.because = format!(
            "a {child} related to another {child} one-to-one cannot hold it embedded (its partner would hold it in turn, without end): each {child} is a document of its own collection and the partner stores its id (rule 4)"
        );
    } else {
        choice.strategy = Layout::ParentRefs;
        choice.because = format!(
            "{chain}, so embedding here too would leave them without a collection: the cycle is broken with a reference, {} keep a collection of their own and each {parent} holds their ids (rule 4: an application-level join is cheap)",
            plural(child)
        );
    }
    let chosen = choice.strategy.as_str();
    choice.rejected.retain(|r| r.strategy != chosen);
    choice.rules = vec![RuleId::Rule4];
    choice.outlier_cap = None;
    choice.bucket_size = None;
}
