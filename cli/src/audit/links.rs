//! Two-way links: each id one side holds names a document whose reference names it back. Both
//! sides are sampled, so a link broken on either side is found from the side still holding it.
//! An id that names no document at all is a dangling reference, reported by that check.

use std::collections::BTreeMap;

use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::plan::{Collection, CollectionRole, Decision, Layout, Placement, Plan};

use super::checks::{Finding, FindingKind};
use super::drift::{self, Invariant, Mismatch, Tally};

/// One side of a two-way link stored in the sampled collection.
struct Side<'p> {
    decision: &'p Decision,
    here: &'p Placement,
    other: &'p Placement,
    /// `(document, id it names)` per id seen.
    seen: Vec<(Bson, Bson)>,
    checked: u64,
}

/// The two-way check of one collection.
pub struct Check<'p> {
    collection: &'p str,
    sides: Vec<Side<'p>>,
}

/// Whether a placement is a top-level field of an entity's own collection.
fn top_level(plan: &Plan, p: &Placement) -> bool {
    !p.path.contains('.')
        && plan
            .collection(&p.collection)
            .is_some_and(|c| c.role == CollectionRole::Entity)
}

impl<'p> Check<'p> {
    /// The sides of two-way links that `c` holds.
    pub fn new(plan: &'p Plan, c: &'p Collection) -> Check<'p> {
        let mut sides = Vec::new();
        for d in plan
            .relationships
            .iter()
            .filter(|d| d.strategy == Layout::TwoWay)
        {
            let [a, b] = d.placement.as_slice() else {
                continue;
            };
            if !top_level(plan, a) || !top_level(plan, b) {
                continue;
            }
            for (here, other) in [(a, b), (b, a)] {
                if here.collection == c.name {
                    sides.push(Side {
                        decision: d,
                        here,
                        other,
                        seen: Vec::new(),
                        checked: 0,
                    });
                }
            }
        }
        Check {
            collection: &c.name,
            sides,
        }
    }

    /// Takes the ids one sampled document's sides hold.
    pub fn observe(&mut self, id: &Bson, doc: &Document) {
        for s in &mut self.sides {
            let named = drift::reference_ids(doc.get(&s.here.path));
            if !named.is_empty() {
                s.checked += 1;
            }
            s.seen
                .extend(named.into_iter().map(|n| (id.clone(), n.clone())));
        }
    }

    /// Reads the documents named, a batch of ids per query, and checks that each names back.
    pub async fn finish(self, db: &Database) -> mongodb::error::Result<Vec<Finding>> {
        let mut out = Vec::new();
        for s in self.sides {
            let mut ids: BTreeMap<String, Bson> = BTreeMap::new();
            for (_, named) in &s.seen {
                if ids.len() >= super::REFERENCES_CHECKED {
                    break;
                }
                ids.entry(super::id_key(named))
                    .or_insert_with(|| named.clone());
            }
            let ids: Vec<Bson> = ids.into_values().collect();
            let others = drift::fetch(
                db,
                &s.other.collection,
                &ids,
                doc! { s.other.path.as_str(): 1 },
            )
            .await?;
            let mut tally = Tally::of(s.checked);
            for (id, named) in &s.seen {
                let Some(o) = others.get(&super::id_key(named)) else {
                    continue;
                };
                let back = o.get(&s.other.path);
                let key = super::id_key(id);
                if !drift::reference_ids(back)
                    .iter()
                    .any(|b| super::id_key(b) == key)
                {
                    tally.add(id, Mismatch::new(id, Some(named), back, Some(id), false));
                }
            }
            out.extend(tally.finding(
                self.collection,
                FindingKind::BrokenLink,
                &s.here.path,
                Invariant::TwoWay {
                    relation: s.decision.id.clone(),
                    other_collection: s.other.collection.clone(),
                    other_path: s.other.path.clone(),
                    other_shape: s.other.shape,
                    shape: s.here.shape,
                },
            ));
        }
        Ok(out)
    }
}
