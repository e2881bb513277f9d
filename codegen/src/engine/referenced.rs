//! Entities other layouts refer to by `_id` are documents of their own (rule 2).
//!
//! Relationships are decided one at a time, so a layout may embed (or bucket) an entity that
//! another chosen layout refers to by `_id` (an id array, a reference to a parent, a link): it
//! would be stored twice. [`settle`] marks every such entity referenced
//! (`Ctx::referenced`, which makes it standalone) and decides again the relationships it is an
//! end of, until no embedded entity is referenced. A decision again can refer to one more entity
//! (a child that may no longer be embedded refers to its parent, which may itself be embedded in
//! its own parent): a chain of them settles in one walk of a work list, each relationship
//! decided again only when one of its ends changes, not in one pass over every relationship per
//! link of the chain. The set of referenced entities only grows, so the walk ends.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{Layout, Side};
use crate::plan::Shape;

use super::context::Ctx;
use super::placement;
use super::relation::{self, Choice, Ineligible};

/// Marks the entities `choices` embed while others refer to them by `_id` as referenced, and
/// decides again the relationships that touch them, until none is left. When the work list
/// found any, every relationship is decided once more and checked again: a decision may depend
/// on more than its own ends (the work list is the fast path, this pass the guarantee).
pub(super) fn settle(ctx: &Ctx<'_>, ineligible: &[Vec<Ineligible>], choices: &mut [Choice]) {
    while work_list(ctx, ineligible, choices) {
        let rels = &ctx.model.relations;
        ctx.decided.set(ctx.decided.get() + rels.len());
        for ((slot, rel), out) in choices.iter_mut().zip(rels).zip(ineligible) {
            *slot = relation::decide(ctx, rel, out);
        }
    }
}

/// One walk of the work list from `choices`; whether it found any entity to mark.
fn work_list(ctx: &Ctx<'_>, ineligible: &[Vec<Ineligible>], choices: &mut [Choice]) -> bool {
    let mut any = false;
    let rels = &ctx.model.relations;
    let mut incident: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (i, rel) in rels.iter().enumerate() {
        incident
            .entry(rel.left.entity.as_str())
            .or_default()
            .insert(i);
        incident
            .entry(rel.right.entity.as_str())
            .or_default()
            .insert(i);
    }
    let mut state = State::default();
    for (i, choice) in choices.iter().enumerate() {
        state.record(ctx, i, choice);
    }
    let mut pending: BTreeSet<usize> = (0..choices.len()).collect();
    loop {
        // The first relationship (in the schema's order) that refers to each entity found.
        let mut found: BTreeMap<String, (String, Layout)> = BTreeMap::new();
        for &i in &pending {
            let (Some(rel), Some(choice)) = (rels.get(i), choices.get(i)) else {
                continue;
            };
            for target in state.by_id.get(i).into_iter().flatten() {
                if state.is_embedded(target) && !ctx.is_standalone(target) {
                    found
                        .entry(target.clone())
                        .or_insert_with(|| (rel.id.clone(), choice.strategy));
                }
            }
        }
        pending.clear();
        if found.is_empty() {
            return any;
        }
        any = true;
        let touched: BTreeSet<usize> = found
            .keys()
            .filter_map(|e| incident.get(e.as_str()))
            .flatten()
            .copied()
            .collect();
        ctx.referenced.borrow_mut().extend(found);
        for i in touched {
            let (Some(rel), Some(out)) = (rels.get(i), ineligible.get(i)) else {
                continue;
            };
            ctx.decided.set(ctx.decided.get() + 1);
            let choice = relation::decide(ctx, rel, out);
            state.forget(i);
            let newly = state.record(ctx, i, &choice);
            if let Some(slot) = choices.get_mut(i) {
                *slot = choice;
            }
            pending.insert(i);
            // A relationship that now embeds an entity others already referred to.
            if let Some(e) = newly {
                pending.extend(state.referrers.get(&e).into_iter().flatten().copied());
            }
        }
    }
}

/// What each relationship's current choice embeds and refers to by `_id`.
#[derive(Default)]
struct State {
    /// The entity each relationship embeds or buckets without being forced to.
    embeds: Vec<Option<String>>,
    /// How many relationships embed each entity.
    embedded: HashMap<String, usize>,
    /// The entities each relationship's placement refers to by `_id`.
    by_id: Vec<Vec<String>>,
    /// The relationships that refer to each entity by `_id`.
    referrers: HashMap<String, BTreeSet<usize>>,
}

impl State {
    fn is_embedded(&self, entity: &str) -> bool {
        self.embedded.get(entity).is_some_and(|n| *n > 0)
    }

    /// Records relationship `i`'s choice; returns the entity it embeds when none did before.
    fn record(&mut self, ctx: &Ctx<'_>, i: usize, choice: &Choice) -> Option<String> {
        let rel = ctx.model.relations.get(i)?;
        let embeds = (matches!(choice.strategy, Layout::Embed | Layout::Bucket) && !choice.forced)
            .then(|| match choice.parent {
                Side::Left => rel.right.entity.clone(),
                Side::Right => rel.left.entity.clone(),
            });
        let by_id: Vec<String> = placement::place(ctx, rel, choice)
            .placement
            .into_iter()
            .filter(|p| {
                matches!(
                    p.shape,
                    Shape::Id | Shape::ArrayOfIds | Shape::ExtendedRef | Shape::ArrayOfExtendedRefs
                )
            })
            .map(|p| p.target)
            .collect();
        for t in &by_id {
            self.referrers.entry(t.clone()).or_default().insert(i);
        }
        if self.embeds.len() <= i {
            self.embeds.resize(i + 1, None);
            self.by_id.resize(i + 1, Vec::new());
        }
        self.by_id[i] = by_id;
        let mut newly = None;
        if let Some(e) = &embeds {
            let n = self.embedded.entry(e.clone()).or_default();
            if *n == 0 {
                newly = Some(e.clone());
            }
            *n += 1;
        }
        self.embeds[i] = embeds;
        newly
    }

    /// Forgets relationship `i`'s choice, before it is decided again.
    fn forget(&mut self, i: usize) {
        if let Some(e) = self.embeds.get_mut(i).and_then(Option::take) {
            if let Some(n) = self.embedded.get_mut(&e) {
                *n = n.saturating_sub(1);
            }
        }
        if let Some(targets) = self.by_id.get_mut(i) {
            for t in targets.drain(..) {
                if let Some(set) = self.referrers.get_mut(&t) {
                    set.remove(&i);
                }
            }
        }
    }
}
