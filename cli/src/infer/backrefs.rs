//! References held on both sides: an array of ids in one collection's documents and, in the
//! documents it refers to, a reference (or array) back. Two such fields are one relation only
//! when the data says so: the documents an array names name its holder back. Shapes alone
//! cannot tell, for an entity related to itself more than once (`E0.r0` an array of `E0` ids,
//! `E0.q2` a reference to another `E0` for another relation) or two relations between the same
//! two collections.

use std::collections::{BTreeMap, BTreeSet};

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;

use super::references::{Form, Reference};
use super::sample::Sampled;
use super::shape::value_key;

/// Holders read per candidate pair.
const HOLDERS: i64 = 100;
/// Ids of the array looked up per candidate pair.
const LOOKED_UP: usize = 200;
/// Ids looked up per holder: a holder with hundreds of ids (a hub) must not decide alone.
const PER_HOLDER: usize = 3;

/// A pair of references checked on the data: `array` (an array of ids at a collection's root)
/// and `back` (at its target's root, referring to the array's collection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The array of references (index into the references).
    pub array: usize,
    /// The reference back.
    pub back: usize,
    /// Ids of the array looked up in their documents.
    pub checked: u64,
    /// Of which refer back to the array's holder.
    pub agreeing: u64,
}

impl Checked {
    /// The data says the two fields hold one relation: nine in ten ids point back (stale
    /// links aside), and at least one was checked.
    pub fn holds(&self) -> bool {
        self.checked > 0 && self.agreeing * 10 >= self.checked * 9
    }
}

/// The pairs of references that could hold one relation by their shapes.
pub fn candidates(refs: &[Reference]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (r, rf) in refs.iter().enumerate() {
        if !rf.form.is_array() || !rf.place.is_root() {
            continue;
        }
        for (b, bf) in refs.iter().enumerate() {
            if b != r && bf.holder == rf.target && bf.target == rf.holder && bf.place.is_root() {
                out.push((r, b));
            }
        }
    }
    out
}

/// The ids a field's value holds: one id, an array of them, extended references by `id_key`.
fn ids(value: Option<&Bson>, form: &Form) -> Vec<Bson> {
    let one = |v: &Bson| match (v, form.id_key()) {
        (Bson::Document(d), Some(k)) => d.get(k).cloned(),
        (Bson::Document(_), None) => None,
        (v, _) => Some(v.clone()),
    };
    match value {
        Some(Bson::Array(items)) => items.iter().filter_map(one).collect(),
        Some(v) => one(v).into_iter().collect(),
        None => Vec::new(),
    }
}

/// Checks each candidate pair on the data: for sampled holders of the array, whether the
/// documents it names refer back to them.
pub async fn check(
    db: &Database,
    samples: &[Sampled],
    refs: &[Reference],
) -> mongodb::error::Result<Vec<Checked>> {
    let mut out = Vec::new();
    for (r, b) in candidates(refs) {
        let (rf, bf) = (&refs[r], &refs[b]);
        let holders = db.collection::<Document>(&samples[rf.holder].name);
        let mut cursor = holders
            .find(doc! { rf.field.as_str(): { "$exists": true } })
            .projection(doc! { "_id": 1, rf.field.as_str(): 1 })
            .limit(HOLDERS)
            .await?;
        // Each named id with the holders naming it.
        let mut named: BTreeMap<String, (Bson, BTreeSet<String>)> = BTreeMap::new();
        while let Some(d) = cursor.try_next().await? {
            let Some(holder) = d.get("_id") else {
                continue;
            };
            for id in ids(d.get(&rf.field), &rf.form).into_iter().take(PER_HOLDER) {
                if named.len() >= LOOKED_UP && !named.contains_key(&value_key(&id)) {
                    continue;
                }
                named
                    .entry(value_key(&id))
                    .or_insert_with(|| (id.clone(), BTreeSet::new()))
                    .1
                    .insert(value_key(holder));
            }
        }
        let wanted: Vec<Bson> = named.values().map(|(id, _)| id.clone()).collect();
        let mut checked = 0u64;
        let mut agreeing = 0u64;
        if !wanted.is_empty() {
            let targets = db.collection::<Document>(&samples[bf.holder].name);
            let mut cursor = targets
                .find(doc! { "_id": { "$in": wanted } })
                .projection(doc! { "_id": 1, bf.field.as_str(): 1 })
                .await?;
            while let Some(d) = cursor.try_next().await? {
                let Some((_, holders)) = d.get("_id").and_then(|id| named.get(&value_key(id)))
                else {
                    continue;
                };
                let back: BTreeSet<String> = ids(d.get(&bf.field), &bf.form)
                    .iter()
                    .map(value_key)
                    .collect();
                checked += holders.len() as u64;
                agreeing += holders.iter().filter(|h| back.contains(*h)).count() as u64;
            }
        }
        out.push(Checked {
            array: r,
            back: b,
            checked,
            agreeing,
        });
    }
    Ok(out)
}
