//! Stale copies: every copied field (rule 5) equals its source document's field, wherever the
//! copy lives (an extended reference at the top level, in a subdocument, in an embedded array or
//! an array inside one, in a bucket's items, in a subset or top-N copy): the Plan lists one
//! `Denormalized` per place ([`squillion_codegen::plan::Decision::denormalized`]).

use std::collections::BTreeMap;

use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;
use squillion_codegen::plan::{Collection, Denormalized, Plan, PlanField};

use super::checks::{Finding, FindingKind};
use super::drift::{self, Invariant, Mismatch, Tally};

/// One place of `c` holding copies of one source field.
struct Site<'p> {
    copy: &'p Denormalized,
    /// The path of the extended references holding the copy, split.
    holders: Vec<&'p str>,
    /// The copy's name inside each.
    name: &'p str,
    source_collection: &'p Collection,
    /// The copied field, as its collection stores it.
    source_field: &'p PlanField,
    sensitive: bool,
    /// `(document, source id, copy)` per extended reference seen.
    seen: Vec<(Bson, Bson, Option<Bson>)>,
    checked: u64,
}

/// The stale-copy check of one collection.
pub struct Check<'p> {
    collection: &'p str,
    sites: Vec<Site<'p>>,
}

impl<'p> Check<'p> {
    /// The copies that live in `c`.
    pub fn new(plan: &'p Plan, c: &'p Collection) -> Check<'p> {
        let mut sites = Vec::new();
        for x in plan
            .relationships
            .iter()
            .flat_map(|d| &d.denormalized)
            .filter(|x| x.collection == c.name)
        {
            let Some((entity, field)) = x.source.split_once('.') else {
                continue;
            };
            let Some(source_collection) = drift::entity_collection(plan, entity) else {
                continue;
            };
            let Some(source_field) = drift::field_named(&source_collection.fields, field) else {
                continue;
            };
            let mut holders: Vec<&str> = x.copy_path.split('.').collect();
            let Some(name) = holders.pop() else { continue };
            let sensitive = source_field.flags.sensitive
                || c.field_at(&x.copy_path).is_some_and(|f| f.flags.sensitive);
            sites.push(Site {
                copy: x,
                holders,
                name,
                source_collection,
                source_field,
                sensitive,
                seen: Vec::new(),
                checked: 0,
            });
        }
        Check {
            collection: &c.name,
            sites,
        }
    }

    /// Takes the copies of one sampled document.
    pub fn observe(&mut self, id: &Bson, doc: &Document) {
        for s in &mut self.sites {
            let before = s.seen.len();
            for holder in drift::documents_in(doc, &s.holders) {
                let Some(source) = holder.get("id").and_then(drift::reference_id) else {
                    continue;
                };
                s.seen
                    .push((id.clone(), source.clone(), holder.get(s.name).cloned()));
            }
            if s.seen.len() > before {
                s.checked += 1;
            }
        }
    }

    /// Compares every copy seen with its source, one `$in` query per batch of sources.
    pub async fn finish(self, db: &Database) -> mongodb::error::Result<Vec<Finding>> {
        let mut out = Vec::new();
        for s in self.sites {
            let mut ids: BTreeMap<String, Bson> = BTreeMap::new();
            for (_, source, _) in &s.seen {
                if ids.len() >= super::REFERENCES_CHECKED {
                    break;
                }
                ids.entry(super::id_key(source))
                    .or_insert_with(|| source.clone());
            }
            let ids: Vec<Bson> = ids.into_values().collect();
            let sources = drift::fetch(
                db,
                &s.source_collection.name,
                &ids,
                doc! { s.source_field.name.as_str(): 1 },
            )
            .await?;
            let mut tally = Tally::of(s.checked);
            for (id, source, copy) in &s.seen {
                // A source that does not exist is a dangling reference, reported as such.
                let Some(d) = sources.get(&super::id_key(source)) else {
                    continue;
                };
                let want = d.get(&s.source_field.name);
                if !drift::same(copy.as_ref(), want) {
                    tally.add(
                        id,
                        Mismatch::new(id, Some(source), copy.as_ref(), want, s.sensitive),
                    );
                }
            }
            out.extend(tally.finding(
                self.collection,
                FindingKind::StaleCopy,
                &s.copy.copy_path,
                Invariant::Copy {
                    source: s.copy.source.clone(),
                    source_collection: s.source_collection.name.clone(),
                    fan_out: s.copy.fan_out.clone(),
                },
            ));
        }
        Ok(out)
    }
}
