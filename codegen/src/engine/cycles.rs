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

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::model::{Layout, RelationKind, Side};
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

/// The embeddings of the chosen layouts and the entities a collection reaches through them,
/// kept up to date as cycles are broken: breaking one only ever adds to what is reached (the
/// edges broken lie between unreached entities), so each entity is reached once and each edge
/// followed once over all the rounds, however many cycles there are.
struct Embeddings {
    edges: Vec<Edge>,
    /// Edges still embedding (an edge broken into a reference is no longer one).
    live: Vec<bool>,
    /// Edges into each child and out of each parent, in relationship order.
    into: HashMap<String, Vec<usize>>,
    out: HashMap<String, Vec<usize>>,
    /// Entities stored in a collection of their own, or inside documents one of those reaches.
    reached: HashSet<String>,
}

impl Embeddings {
    fn new(ctx: &Ctx<'_>, choices: &[Choice]) -> Self {
        let edges: Vec<Edge> = ctx
            .model
            .relations
            .iter()
            .zip(choices)
            .enumerate()
            .filter(|(_, (_, c))| c.strategy == Layout::Embed)
            .map(|(i, (rel, c))| Edge {
                rel: i,
                parent: rel.end(c.parent).entity.clone(),
                child: match c.parent {
                    Side::Left => rel.right.entity.clone(),
                    Side::Right => rel.left.entity.clone(),
                },
            })
            .collect();
        let mut into: HashMap<String, Vec<usize>> = HashMap::new();
        let mut out: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in edges.iter().enumerate() {
            into.entry(e.child.clone()).or_default().push(i);
            out.entry(e.parent.clone()).or_default().push(i);
        }
        let mut this = Embeddings {
            live: vec![true; edges.len()],
            edges,
            into,
            out,
            reached: HashSet::new(),
        };
        for e in &ctx.model.entities {
            if !this.into.contains_key(&e.name) || ctx.is_standalone(&e.name) {
                this.reach(ctx, &e.name);
            }
        }
        this
    }

    /// Marks `entity` reached, and everything it embeds: a walk along the live edges.
    fn reach(&mut self, ctx: &Ctx<'_>, entity: &str) {
        if !self.reached.insert(entity.to_owned()) {
            return;
        }
        let mut todo = vec![entity.to_owned()];
        while let Some(at) = todo.pop() {
            ctx.walked.set(ctx.walked.get() + 1);
            for &i in self.out.get(&at).into_iter().flatten() {
                let child = &self.edges[i].child;
                if self.live[i] && self.reached.insert(child.clone()) {
                    todo.push(child.clone());
                }
            }
        }
    }

    /// The first live edge that embeds `child` in an entity not reached.
    fn unreached_parent(&self, child: &str) -> Option<usize> {
        self.into
            .get(child)?
            .iter()
            .copied()
            .find(|&i| self.live[i] && !self.reached.contains(&self.edges[i].parent))
    }

    /// Edge `i` became a reference: its child is reached if nothing else embeds it.
    fn unembed(&mut self, ctx: &Ctx<'_>, i: usize) {
        self.live[i] = false;
        let child = self.edges[i].child.clone();
        let embedded = self
            .into
            .get(&child)
            .is_some_and(|v| v.iter().any(|&j| self.live[j]));
        if !embedded {
            self.reach(ctx, &child);
        }
    }
}

/// Breaks every embedding cycle that leaves entities without a collection; see the module docs.
pub(crate) fn break_cycles(ctx: &Ctx<'_>, choices: &mut [Choice]) -> Broken {
    let mut broken = Broken::default();
    let mut graph = Embeddings::new(ctx, choices);
    let entities = &ctx.model.entities;
    // The first entity not reached only moves forward: what is reached only grows.
    let mut next = 0;
    // Each round breaks one edge or adds one root, so it ends within edges + entities rounds.
    for _ in 0..=(choices.len() + entities.len()) {
        if ctx.exhaustive {
            graph = Embeddings::new(ctx, choices);
            for root in &broken.roots {
                graph.reach(ctx, root);
            }
            next = 0;
        }
        while entities
            .get(next)
            .is_some_and(|e| graph.reached.contains(&e.name))
        {
            next += 1;
        }
        let Some(start) = entities.get(next) else {
            return broken;
        };
        // An unreached entity is embedded only by unreached parents: walking back through them
        // must come round to an entity already seen.
        let mut path: Vec<usize> = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut at = start.name.as_str();
        let cycle: Vec<usize> = loop {
            ctx.walked.set(ctx.walked.get() + 1);
            let Some(i) = graph.unreached_parent(at) else {
                break Vec::new();
            };
            let edge = &graph.edges[i];
            if let Some(&pos) = seen.get(edge.child.as_str()) {
                break path[pos..].to_vec();
            }
            seen.insert(edge.child.as_str(), path.len());
            path.push(i);
            at = edge.parent.as_str();
        };
        let edges: Vec<&Edge> = cycle.iter().map(|&i| &graph.edges[i]).collect();
        // A tree of its own kind (forced or not) needs a root, not a break.
        let tree = cycle.iter().copied().find(|&i| {
            let e = &graph.edges[i];
            e.parent == e.child && ctx.model.relations[e.rel].kind != RelationKind::OneToOne
        });
        let breakable = tree
            .into_iter()
            .chain(
                cycle
                    .iter()
                    .copied()
                    .filter(|&i| !choices[graph.edges[i].rel].forced),
            )
            .min_by_key(|&i| {
                let rel = graph.edges[i].rel;
                let one_to_one = ctx.model.relations[rel].kind == RelationKind::OneToOne;
                (one_to_one, rel)
            });
        match breakable {
            Some(i) => {
                let edge = &graph.edges[i];
                let (rel, parent, child) = (edge.rel, edge.parent.clone(), edge.child.clone());
                let root = break_edge(
                    ctx,
                    &mut choices[rel],
                    rel,
                    &parent,
                    &child,
                    &edges,
                    &mut broken,
                );
                if root {
                    graph.reach(ctx, &child);
                } else {
                    graph.unembed(ctx, i);
                }
            }
            None => {
                broken.forced.push(ForcedCycle {
                    relations: edges.iter().map(|e| e.rel).collect(),
                });
                broken.roots.insert(start.name.clone());
                let name = start.name.clone();
                graph.reach(ctx, &name);
            }
        }
    }
    broken
}

/// Breaks `rel`'s embedding of `child` in `parent`: true when the child stays embedded under a
/// root of its own kind (a tree), false when the embedding became a reference.
fn break_edge(
    ctx: &Ctx<'_>,
    choice: &mut Choice,
    rel: usize,
    parent: &str,
    child: &str,
    cycle: &[&Edge],
    broken: &mut Broken,
) -> bool {
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
        return true;
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
    if let Some(cost) = choice.cost.as_mut() {
        let now = super::cost::Alternative {
            layout: choice.strategy,
            bucket_size: None,
        };
        super::cost::rechoose(cost, now, &super::cost::workload(ctx, relation));
    }
    let chosen = Some(choice.strategy);
    choice.rejected.retain(|r| r.strategy != chosen);
    choice.rules = vec![RuleId::Rule4];
    choice.outlier_cap = None;
    choice.bucket_size = None;
    false
}
