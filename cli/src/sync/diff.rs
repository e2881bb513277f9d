//! Declared indexes against the ones a collection has: missing, extra, different.
//!
//! Pure functions over plain data, so the rules are unit-tested without a server. An index
//! squillion did not declare is reported as `Extra` and is only ever dropped with `--prune`.

use serde::Serialize;
use squillion_codegen::plan::Index;

/// An index as the server reports it (`listIndexes`), reduced to what squillion compares.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExistingIndex {
    /// Its name.
    pub name: String,
    /// Keys in order: path and direction (or index type such as `"2dsphere"`, as text).
    pub keys: Vec<(String, String)>,
    /// Unique.
    pub unique: bool,
    /// Sparse.
    pub sparse: bool,
    /// Partial filter, as canonical JSON text.
    pub partial_filter: Option<String>,
    /// Collation locale and strength.
    pub collation: Option<(String, u8)>,
    /// TTL seconds.
    pub expire_after_seconds: Option<u64>,
}

/// One difference between declared and existing indexes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexDrift {
    /// Declared, not on the server.
    Missing {
        /// The declared index's name.
        name: String,
        /// Its keys, as `path: direction` text.
        keys: String,
    },
    /// On the server, not declared (kept unless `--prune`).
    Extra {
        /// The existing index's name.
        name: String,
        /// Its keys.
        keys: String,
    },
    /// Same name or keys, different options.
    Different {
        /// The name.
        name: String,
        /// What differs.
        differences: Vec<String>,
    },
}

impl IndexDrift {
    /// The index's name.
    pub fn name(&self) -> &str {
        match self {
            IndexDrift::Missing { name, .. }
            | IndexDrift::Extra { name, .. }
            | IndexDrift::Different { name, .. } => name,
        }
    }
}

pub(crate) fn declared_keys(i: &Index) -> Vec<(String, String)> {
    i.keys
        .iter()
        .map(|k| (k.path.clone(), k.written()))
        .collect()
}

pub(crate) fn keys_text(keys: &[(String, String)]) -> String {
    let parts: Vec<String> = keys.iter().map(|(p, d)| format!("{p}: {d}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Compares one collection's declared indexes with its existing ones (`_id_` is ignored).
pub fn diff(declared: &[Index], existing: &[ExistingIndex]) -> Vec<IndexDrift> {
    let existing: Vec<&ExistingIndex> = existing.iter().filter(|e| e.name != "_id_").collect();
    let mut out = Vec::new();
    let mut matched = vec![false; existing.len()];
    for d in declared {
        let keys = declared_keys(d);
        let found = existing.iter().position(|e| e.name == d.name).or_else(|| {
            existing
                .iter()
                .position(|e| e.keys == keys && differences(d, e).is_empty())
        });
        match found {
            None => out.push(IndexDrift::Missing {
                name: d.name.clone(),
                keys: keys_text(&keys),
            }),
            Some(i) => {
                matched[i] = true;
                let diffs = differences(d, existing[i]);
                if !diffs.is_empty() {
                    out.push(IndexDrift::Different {
                        name: d.name.clone(),
                        differences: diffs,
                    });
                }
            }
        }
    }
    for (i, e) in existing.iter().enumerate() {
        if !matched[i] {
            out.push(IndexDrift::Extra {
                name: e.name.clone(),
                keys: keys_text(&e.keys),
            });
        }
    }
    out
}

/// What differs between a declared index and an existing one.
pub fn differences(d: &Index, e: &ExistingIndex) -> Vec<String> {
    let mut out = Vec::new();
    let keys = declared_keys(d);
    if keys != e.keys {
        out.push(format!(
            "keys: declared {}, existing {}",
            keys_text(&keys),
            keys_text(&e.keys)
        ));
    }
    if d.unique != e.unique {
        out.push(format!(
            "unique: declared {}, existing {}",
            d.unique, e.unique
        ));
    }
    if d.sparse != e.sparse {
        out.push(format!(
            "sparse: declared {}, existing {}",
            d.sparse, e.sparse
        ));
    }
    let declared_collation = d.collation.as_ref().map(|c| (c.locale.clone(), c.strength));
    if declared_collation != e.collation {
        out.push(format!(
            "collation: declared {}, existing {}",
            collation_text(&declared_collation),
            collation_text(&e.collation)
        ));
    }
    if d.expire_after_seconds != e.expire_after_seconds {
        let ttl = |s: Option<u64>| s.map_or("none".to_owned(), |s| format!("{s} s"));
        out.push(format!(
            "expireAfterSeconds: declared {}, existing {}",
            ttl(d.expire_after_seconds),
            ttl(e.expire_after_seconds)
        ));
    }
    let declared_partial = d.partial_filter.as_ref().map(|p| p.to_string());
    if declared_partial != e.partial_filter {
        out.push("partialFilterExpression differs".to_owned());
    }
    out
}

fn collation_text(c: &Option<(String, u8)>) -> String {
    match c {
        Some((locale, strength)) => format!("{locale}/strength {strength}"),
        None => "none".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squillion_codegen::plan::{IndexCollation, IndexKey};

    fn declared(name: &str, keys: &[(&str, i32)]) -> Index {
        Index {
            name: name.to_owned(),
            keys: keys
                .iter()
                .map(|(p, d)| IndexKey::ordered(*p, *d))
                .collect(),
            unique: false,
            sparse: false,
            partial_filter: None,
            collation: None,
            expire_after_seconds: None,
            multikey: false,
            reasons: vec![],
            serves: vec![],
        }
    }

    fn existing(name: &str, keys: &[(&str, &str)]) -> ExistingIndex {
        ExistingIndex {
            name: name.to_owned(),
            keys: keys
                .iter()
                .map(|(p, d)| ((*p).to_owned(), (*d).to_owned()))
                .collect(),
            unique: false,
            sparse: false,
            partial_filter: None,
            collation: None,
            expire_after_seconds: None,
        }
    }

    #[test]
    fn in_sync_reports_nothing_and_ignores_the_id_index() {
        let d = [declared("title_1", &[("title", 1)])];
        let e = [
            existing("_id_", &[("_id", "1")]),
            existing("title_1", &[("title", "1")]),
        ];
        assert!(diff(&d, &e).is_empty());
    }

    #[test]
    fn missing_extra_and_different_are_told_apart() {
        let mut unique = declared("isbn_1", &[("isbn", 1)]);
        unique.unique = true;
        let mut ci = declared("name_1", &[("name", 1)]);
        ci.collation = Some(IndexCollation {
            locale: "en".into(),
            strength: 2,
        });
        let d = [declared("title_1", &[("title", 1)]), unique, ci];
        let e = [
            existing("isbn_1", &[("isbn", "1")]),
            existing("name_1", &[("name", "1")]),
            existing("hand_made", &[("pages", "-1")]),
        ];
        let drift = diff(&d, &e);
        assert_eq!(drift.len(), 4, "{drift:#?}");
        assert!(matches!(&drift[0], IndexDrift::Missing { name, .. } if name == "title_1"));
        assert!(
            matches!(&drift[1], IndexDrift::Different { name, differences } if name == "isbn_1" && differences[0].contains("unique"))
        );
        assert!(
            matches!(&drift[2], IndexDrift::Different { name, differences } if name == "name_1" && differences[0].contains("collation"))
        );
        assert!(matches!(&drift[3], IndexDrift::Extra { name, .. } if name == "hand_made"));
    }

    #[test]
    fn an_index_with_the_same_keys_under_another_name_counts_as_present() {
        let d = [declared("title_1", &[("title", 1)])];
        let e = [existing("my_title_index", &[("title", "1")])];
        assert!(diff(&d, &e).is_empty());
    }

    /// Every option that can differ, each way round, is said in words: never `Some(3600)` or
    /// `None` (the TTL was printed with Debug formatting).
    #[test]
    fn every_difference_is_said_in_words() {
        let mut checked = 0;
        for k in 0..6u8 {
            for swap in [false, true] {
                let mut d = declared("i", &[("a", 1)]);
                let mut e = existing("i", &[("a", "1")]);
                match k {
                    0 => d.unique = true,
                    1 => d.sparse = true,
                    2 => {
                        d.collation = Some(IndexCollation {
                            locale: "fr".into(),
                            strength: 1,
                        })
                    }
                    3 => d.expire_after_seconds = Some(3600),
                    4 => d.partial_filter = Some(serde_json::json!({ "a": { "$exists": true } })),
                    _ => e.keys = vec![("a".into(), "-1".into()), ("b".into(), "1".into())],
                }
                if swap {
                    // The existing index has the option and the declared one not.
                    std::mem::swap(&mut d.unique, &mut e.unique);
                    std::mem::swap(&mut d.sparse, &mut e.sparse);
                    std::mem::swap(&mut d.expire_after_seconds, &mut e.expire_after_seconds);
                }
                let said = differences(&d, &e);
                assert!(
                    !said.is_empty(),
                    "option {k}, swapped {swap}: no difference"
                );
                for line in &said {
                    assert!(
                        !line.contains("Some(") && !line.contains("None"),
                        "option {k}: `{line}`"
                    );
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 12);
    }
}
