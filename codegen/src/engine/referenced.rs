//! The referenced-entity fixpoint: an entity another chosen layout refers to by `_id` must be a
//! document of its own (rule 2), so a relationship that embeds (or buckets) it without being
//! forced to is decided again with the entity standalone, until no embedded entity is referenced.
//!
//! Each round's answer is the one deciding every relationship again would give, but only the
//! relationships whose decision or placement asked about an entity found in the round are
//! decided and placed again (`Ctx::watching` records what each asked). A one-to-one chain whose
//! last entity another lists by id turns standalone one level per round; deciding all of it
//! every round was quadratic in the chain's length.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{Layout, Relation, RelationKind, Side};

use super::context::Ctx;
use super::placement;
use super::relation::{self, Choice, Ineligible};

/// What one relationship's choice contributes to the fixpoint.
struct Part {
    choice: Choice,
    /// The entity it embeds or buckets without being forced to.
    embeds: Option<String>,
    /// Its parent entity, when it embeds a child of another kind through a one-to-many or
    /// one-to-one relationship: what a second such embedding of the same child would duplicate.
    holds: Option<String>,
    /// The entities its placement refers to by `_id`.
    targets: Vec<String>,
}

/// The relationships' choices and the indexes the fixpoint looks entities up in.
struct Fixpoint<'c, 'a> {
    ctx: &'c Ctx<'a>,
    ineligible: &'c [Vec<Ineligible>],
    parts: Vec<Part>,
    /// Relationships whose decision or placement asked whether each entity is standalone.
    readers: HashMap<String, BTreeSet<usize>>,
    /// Where each entity is held, over all parts.
    held: Held,
}

/// The fixpoint's indexes of what the parts embed and refer to.
#[derive(Default)]
struct Held {
    /// How many unforced layouts embed or bucket each entity.
    embedded: HashMap<String, usize>,
    /// Relationships whose placement refers to each entity by `_id`.
    referrers: HashMap<String, BTreeSet<usize>>,
    /// The relationships that embed each entity under a parent of another kind (`holds`), with
    /// that parent.
    holders: HashMap<String, BTreeMap<usize, String>>,
}

impl Fixpoint<'_, '_> {
    /// Decides and places relationship `i`, and indexes what it asked and what it holds.
    fn part(&mut self, i: usize) -> Part {
        let ctx = self.ctx;
        let rel = &ctx.model.relations[i];
        let none: &[Ineligible] = &[];
        let out = self.ineligible.get(i).map_or(none, Vec::as_slice);
        ctx.decided.set(ctx.decided.get() + 1);
        let (choice, mut asked) = ctx.watching(|| relation::decide(ctx, rel, out));
        let (placed, asked_placing) = ctx.watching(|| placement::place(ctx, rel, &choice));
        asked.extend(asked_placing);
        for entity in asked {
            self.readers.entry(entity).or_default().insert(i);
        }
        let embeds = embedded_child(rel, &choice).map(str::to_owned);
        let holds = embeds.as_ref().and_then(|child| {
            let parent = &rel.end(choice.parent).entity;
            (rel.kind != RelationKind::ManyToMany && parent != child).then(|| parent.clone())
        });
        let targets = placed
            .placement
            .into_iter()
            .filter(|p| p.shape.refers_by_id())
            .map(|p| p.target)
            .collect();
        Part {
            choice,
            embeds,
            holds,
            targets,
        }
    }

    /// Of `candidates`, the entities embedded while referenced by `_id` and not yet standalone,
    /// each with the first relationship that refers to it and its layout.
    fn found(&self, candidates: &BTreeSet<String>) -> BTreeMap<String, (String, Layout)> {
        candidates
            .iter()
            .filter(|e| self.held.embedded.get(*e).is_some_and(|n| *n > 0))
            .filter(|e| !self.ctx.is_standalone(e))
            .filter_map(|e| {
                let first = *self.held.referrers.get(e)?.first()?;
                let rel = &self.ctx.model.relations[first];
                let layout = self.parts.get(first)?.choice.strategy;
                Some((e.clone(), (rel.id.clone(), layout)))
            })
            .collect()
    }

    /// Of `candidates`, the entities two or more relationships embed under their parents
    /// (stored twice if both did) and not yet standalone, each with those relationships and
    /// their parents.
    fn shared(&self, candidates: &BTreeSet<String>) -> BTreeMap<String, Vec<(String, String)>> {
        candidates
            .iter()
            .filter(|e| !self.ctx.is_standalone(e))
            .filter_map(|e| {
                let holders = self.held.holders.get(e).filter(|h| h.len() > 1)?;
                let parents = holders
                    .iter()
                    .filter_map(|(i, parent)| {
                        let rel = self.ctx.model.relations.get(*i)?;
                        Some((rel.id.clone(), parent.clone()))
                    })
                    .collect();
                Some((e.clone(), parents))
            })
            .collect()
    }
}

/// The entity `rel`'s choice embeds or buckets without being forced to.
fn embedded_child<'r>(rel: &'r Relation, choice: &Choice) -> Option<&'r str> {
    let embeds = matches!(choice.strategy, Layout::Embed | Layout::Bucket) && !choice.forced;
    let child = match choice.parent {
        Side::Left => rel.right.entity.as_str(),
        Side::Right => rel.left.entity.as_str(),
    };
    embeds.then_some(child)
}

/// Adds (`add`) or removes relationship `i`'s part from the fixpoint's indexes; returns the
/// entities it touches.
fn index(held: &mut Held, i: usize, part: &Part, add: bool) -> Vec<String> {
    let (embedded, referrers) = (&mut held.embedded, &mut held.referrers);
    let mut touched = Vec::new();
    if let Some(e) = &part.embeds {
        let n = embedded.entry(e.clone()).or_default();
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
        if let Some(parent) = &part.holds {
            let holders = held.holders.entry(e.clone()).or_default();
            if add {
                holders.insert(i, parent.clone());
            } else {
                holders.remove(&i);
            }
        }
        touched.push(e.clone());
    }
    for t in &part.targets {
        let set = referrers.entry(t.clone()).or_default();
        if add {
            set.insert(i);
        } else {
            set.remove(&i);
        }
        touched.push(t.clone());
    }
    touched
}

/// Every relationship decided with the `ineligible` alternatives ruled out, each entity that
/// some layout refers to by `_id` standalone (added to the referenced set, which the caller
/// clears for each attempt: a trial of an alternative must not leave its references behind).
pub(super) fn decide_all(ctx: &Ctx<'_>, ineligible: &[Vec<Ineligible>]) -> Vec<Choice> {
    let mut fix = Fixpoint {
        ctx,
        ineligible,
        parts: Vec::with_capacity(ctx.model.relations.len()),
        readers: HashMap::new(),
        held: Held::default(),
    };
    let mut touched = BTreeSet::new();
    for i in 0..ctx.model.relations.len() {
        let part = fix.part(i);
        touched.extend(index(&mut fix.held, i, &part, true));
        fix.parts.push(part);
    }
    // Within one attempt the referenced set only grows (an entity found is standalone from then
    // on), so this ends after at most one round per entity; only entities that a changed part
    // touches can be found in the next round.
    loop {
        let found = fix.found(&touched);
        let shared = fix.shared(&touched);
        if found.is_empty() && shared.is_empty() {
            break;
        }
        let again: BTreeSet<usize> = if ctx.exhaustive {
            (0..fix.parts.len()).collect()
        } else {
            found
                .keys()
                .chain(shared.keys())
                .filter_map(|e| fix.readers.get(e))
                .flatten()
                .copied()
                .collect()
        };
        ctx.referenced.borrow_mut().extend(found);
        ctx.shared.borrow_mut().extend(shared);
        touched.clear();
        for i in again {
            let part = fix.part(i);
            // The old part leaves the indexes before the new one enters (both may refer to the
            // same entity).
            if let Some(slot) = fix.parts.get_mut(i) {
                let old = std::mem::replace(slot, part);
                touched.extend(index(&mut fix.held, i, &old, false));
                touched.extend(index(&mut fix.held, i, slot, true));
            }
        }
    }
    fix.parts.into_iter().map(|p| p.choice).collect()
}

/// The entities that relationships `changed` (since the fixpoint) refer to by `_id` while an
/// unforced layout embeds or buckets them and they are not standalone, each with the first of
/// those relationships and its layout.
pub(super) fn embedded_but_named(
    ctx: &Ctx<'_>,
    choices: &[Choice],
    changed: &[usize],
) -> BTreeMap<String, (String, Layout)> {
    let rels = &ctx.model.relations;
    let embedded: BTreeSet<&str> = rels
        .iter()
        .zip(choices)
        .filter_map(|(rel, c)| embedded_child(rel, c))
        .collect();
    let mut found = BTreeMap::new();
    for &i in changed {
        let (Some(rel), Some(choice)) = (rels.get(i), choices.get(i)) else {
            continue;
        };
        for p in placement::place(ctx, rel, choice).placement {
            if p.shape.refers_by_id()
                && embedded.contains(p.target.as_str())
                && !ctx.is_standalone(&p.target)
            {
                found
                    .entry(p.target)
                    .or_insert_with(|| (rel.id.clone(), choice.strategy));
            }
        }
    }
    found
}
