//! Copies: fields beside a reference whose values equal a field of the referenced document
//! (extended references, and older layouts' `author_name` next to `author_id`), with how many of
//! the sampled copies differ from their source (the staleness rate).

use std::collections::BTreeMap;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::Database;

use super::path::Loc;
use super::references::{Form, Reference};
use super::sample::Sampled;
use super::shape::{value_key, Kind};

/// Copies compared per reference.
const COMPARED: usize = 64;

/// A field copied from the referenced document.
#[derive(Debug, Clone, PartialEq)]
pub struct Copy {
    /// The reference (index into the references).
    pub reference: usize,
    /// The copy's key in the holder (inside the extended reference for those).
    pub key: String,
    /// The source field's key in the referenced document.
    pub source: String,
    /// Copies compared with their source.
    pub compared: u64,
    /// Of which different: stale, or never a copy.
    pub stale: u64,
}

/// The records holding a reference and its copies: the holder's own for a plain reference, the
/// extended reference's for the others.
fn records<'a>(samples: &'a [Sampled], r: &Reference) -> &'a [Document] {
    let place = match &r.form {
        Form::Scalar => r.place.clone(),
        Form::Extended { .. } => r.place.child(&r.field, false),
        Form::ExtendedArray { .. } => r.place.child(&r.field, true),
        Form::Array => return &[],
    };
    place
        .shape(&samples[r.holder].shape)
        .map_or(&[], |s| s.records.as_slice())
}

/// The copies of every reference, found by fetching the referenced documents of up to
/// [`COMPARED`] sampled holders.
pub async fn find(
    db: &Database,
    samples: &[Sampled],
    refs: &[Reference],
) -> mongodb::error::Result<Vec<Copy>> {
    let mut out = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let id_key = r.form.id_key().unwrap_or(&r.field).to_owned();
        let holders: Vec<&Document> = records(samples, r)
            .iter()
            .filter(|d| d.get(&id_key).is_some_and(|v| !matches!(v, Bson::Null)))
            .take(COMPARED)
            .collect();
        if holders.is_empty() {
            continue;
        }
        let ids: Vec<Bson> = holders
            .iter()
            .filter_map(|d| d.get(&id_key).cloned())
            .collect();
        let mut cursor = db
            .collection::<Document>(&samples[r.target].name)
            .find(doc! { "_id": { "$in": ids } })
            .await?;
        let mut targets: BTreeMap<String, Document> = BTreeMap::new();
        while let Some(d) = cursor.try_next().await? {
            if let Some(id) = d.get("_id") {
                targets.insert(value_key(id), d);
            }
        }
        out.extend(not_references(
            refs,
            r,
            compare(i, r, &id_key, &holders, &targets),
        ));
    }
    Ok(out)
}

/// The copies of reference `r` that are neither a reference beside it nor a copy of one:
/// references are links of their own. An entity related to itself more than once shows why:
/// most `E0`s name the same `q2` parent as the `E0` their `q0` names, which read `q2` as a copy
/// of the source's `q2`, lost its relation and wrote `show E0.q2`, a field the draft does not
/// have (the draft failed `check`).
fn not_references(refs: &[Reference], r: &Reference, copies: Vec<Copy>) -> Vec<Copy> {
    let beside = match &r.form {
        Form::Scalar | Form::Array => r.place.clone(),
        Form::Extended { .. } => r.place.child(&r.field, false),
        Form::ExtendedArray { .. } => r.place.child(&r.field, true),
    };
    let is_reference = |holder: usize, place: &Loc, key: &str| {
        refs.iter()
            .any(|o| o.holder == holder && o.place == *place && o.field == key)
    };
    copies
        .into_iter()
        .filter(|c| {
            !is_reference(r.holder, &beside, &c.key)
                && !is_reference(r.target, &Loc::root(), &c.source)
        })
        .collect()
}

/// Pairs each holder key with the target key its values equal most often. Inside an extended
/// reference a key the source also has is compared with that field (a copy however stale);
/// any other key, inside one (a copy stored under another name) or beside a plain reference,
/// may copy any source field of its kind, and is a copy when half its values equal the
/// source's at least, over two distinct values or more.
fn compare(
    reference: usize,
    r: &Reference,
    id_key: &str,
    holders: &[&Document],
    targets: &BTreeMap<String, Document>,
) -> Vec<Copy> {
    let extended = r.form.id_key().is_some();
    let mut keys: Vec<&String> = Vec::new();
    for h in holders {
        for k in h.keys() {
            if k != id_key && k != "_id" && !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let pairs: Vec<(&Bson, &Document)> = holders
            .iter()
            .filter_map(|h| {
                let target = targets.get(&value_key(h.get(id_key)?))?;
                Some((h.get(key)?, target))
            })
            .collect();
        if pairs.is_empty() {
            continue;
        }
        let same_name = extended && pairs.iter().any(|(_, t)| t.contains_key(key));
        let sources: Vec<String> = if same_name {
            vec![key.clone()]
        } else {
            let mut s: Vec<String> = pairs[0]
                .1
                .iter()
                .filter(|(k, v)| *k != "_id" && same_kind(pairs[0].0, v))
                .map(|(k, _)| k.clone())
                .collect();
            s.sort();
            s
        };
        let best = sources
            .iter()
            .map(|source| {
                let equal = pairs
                    .iter()
                    .filter(|(v, t)| t.get(source).is_some_and(|s| value_key(s) == value_key(v)))
                    .count() as u64;
                (equal, source)
            })
            .max_by_key(|(equal, _)| *equal);
        let Some((equal, source)) = best else {
            continue;
        };
        let compared = pairs.len() as u64;
        let distinct = pairs
            .iter()
            .map(|(v, _)| value_key(v))
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        // Under another name, a field is a copy when most of its values (half at least: legacy
        // copies go stale) equal the source's, over at least two distinct values.
        let plausible = same_name || (equal * 2 >= compared && distinct >= 2);
        if plausible && (same_name || equal > 0) {
            out.push(Copy {
                reference,
                key: key.clone(),
                source: source.clone(),
                compared,
                stale: compared - equal,
            });
        }
    }
    out
}

fn same_kind(a: &Bson, b: &Bson) -> bool {
    let (ka, kb) = (Kind::of(a), Kind::of(b));
    ka == kb && !matches!(ka, Kind::Bool | Kind::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(form: Form) -> Reference {
        Reference {
            holder: 0,
            place: Loc::root(),
            field: "author".into(),
            form,
            target: 1,
            checked: 3,
            found: 3,
        }
    }

    #[test]
    fn copies_beside_a_plain_reference_are_found_with_their_staleness() {
        let targets: BTreeMap<String, Document> = (1..=5)
            .map(|i| {
                let d = doc! { "_id": i, "name": format!("n{i}"), "born": 1900 + i };
                (value_key(&Bson::Int32(i)), d)
            })
            .collect();
        let holders: Vec<Document> = (1..=5)
            .map(|i| {
                let name = if i == 5 {
                    "old".to_owned()
                } else {
                    format!("n{i}")
                };
                doc! { "_id": 100 + i, "author": i, "author_name": name, "pages": 7 }
            })
            .collect();
        let refs: Vec<&Document> = holders.iter().collect();
        let copies = compare(0, &reference(Form::Scalar), "author", &refs, &targets);
        assert_eq!(
            copies,
            vec![Copy {
                reference: 0,
                key: "author_name".into(),
                source: "name".into(),
                compared: 5,
                stale: 1
            }]
        );
    }

    /// A reference beside another one, equal to the referenced document's reference (an entity
    /// related to itself twice, most children under one parent), is a reference, not a copy; so
    /// is a copy whose source is a reference.
    #[test]
    fn references_are_not_copies() {
        let mut q0 = reference(Form::Scalar);
        q0.field = "q0".into();
        q0.target = 0;
        let mut q2 = q0.clone();
        q2.field = "q2".into();
        let mut other = q0.clone();
        other.holder = 1;
        other.field = "boss".into();
        let copy = |key: &str, source: &str| Copy {
            reference: 0,
            key: key.into(),
            source: source.into(),
            compared: 4,
            stale: 0,
        };
        let refs = [q0.clone(), q2, other];
        let kept = not_references(
            &refs,
            &q0,
            vec![
                copy("q2", "q2"),
                copy("q2_name", "q2"),
                copy("name", "name"),
            ],
        );
        assert_eq!(kept, vec![copy("name", "name")]);
        // `boss` is a reference of another collection: a field of that name here may copy it.
        let kept = not_references(&refs, &q0, vec![copy("boss", "name")]);
        assert_eq!(kept, vec![copy("boss", "name")]);
    }

    #[test]
    fn extended_references_copy_their_own_keys() {
        let targets: BTreeMap<String, Document> = [(
            value_key(&Bson::Int32(1)),
            doc! { "_id": 1, "first": "F", "last": "L" },
        )]
        .into();
        let holder = doc! { "id": 1, "first": "F", "last": "X" };
        let copies = compare(
            0,
            &reference(Form::Extended { id: "id".into() }),
            "id",
            &[&holder],
            &targets,
        );
        let found: Vec<(String, u64)> = copies.iter().map(|c| (c.key.clone(), c.stale)).collect();
        assert_eq!(found, vec![("first".into(), 0), ("last".into(), 1)]);
    }

    proptest::proptest! {
        /// A copy is found whatever name it is stored under, inside an extended reference or
        /// beside a plain one, with its source and its stale share; a field that equals no
        /// source field is no copy.
        #[test]
        fn copies_are_found_under_any_name(
            name in "[a-z]{1,8}(_[a-z]{1,8})?",
            extended in proptest::bool::ANY,
            stale in 0usize..3,
        ) {
            proptest::prop_assume!(!["_id", "id", "author", "name", "born", "pages"].contains(&name.as_str()));
            let targets: BTreeMap<String, Document> = (1..=6)
                .map(|i| {
                    let d = doc! { "_id": i, "name": format!("n{i}"), "born": 1900 + i };
                    (value_key(&Bson::Int32(i)), d)
                })
                .collect();
            let (form, id_key) = if extended {
                (Form::Extended { id: "id".into() }, "id")
            } else {
                (Form::Scalar, "author")
            };
            let holders: Vec<Document> = (1..=6)
                .map(|i| {
                    let copy = if (i as usize) <= stale { format!("old{i}") } else { format!("n{i}") };
                    let mut d = doc! { id_key: i };
                    d.insert(name.clone(), copy);
                    d.insert("pages", format!("p{i}"));
                    d
                })
                .collect();
            let refs: Vec<&Document> = holders.iter().collect();
            let copies = compare(0, &reference(form), id_key, &refs, &targets);
            proptest::prop_assert_eq!(
                copies,
                vec![Copy {
                    reference: 0,
                    key: name.clone(),
                    source: "name".into(),
                    compared: 6,
                    stale: stale as u64,
                }]
            );
        }
    }
}
