//! What to change first: each finding's cost, the documents of the whole collection it concerns
//! (the sampled share scaled to the server's count) times the plan's average document size, and
//! the findings ranked by it, largest first.

use std::collections::BTreeMap;

use serde::Serialize;
use squillion_codegen::plan::Plan;

use super::checks::{Finding, FindingKind};

/// A finding's cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    /// 1 for what to change first.
    pub rank: usize,
    /// Documents of the collection concerned, estimated from the sample and the server's count.
    pub documents: u64,
    /// Their bytes, by the plan's average document size.
    pub bytes: u64,
}

/// Documents of the whole collection a finding concerns.
fn documents(f: &Finding, sampled: u64, estimated: u64) -> u64 {
    match f.kind {
        FindingKind::MissingCollection => 0,
        // Every query the index serves reads the whole collection without it.
        FindingKind::MissingIndex => estimated,
        _ if sampled == 0 => 0,
        _ => {
            let share = f.count.min(sampled) as f64 / sampled as f64;
            (share * estimated as f64).ceil() as u64
        }
    }
}

/// Sets every finding's cost and orders them by it, largest first (ties keep their order).
pub fn rank(
    findings: &mut [Finding],
    plan: &Plan,
    sampled: &BTreeMap<String, u64>,
    estimated: &BTreeMap<String, u64>,
) {
    for f in findings.iter_mut() {
        let n = |m: &BTreeMap<String, u64>| m.get(&f.collection).copied().unwrap_or(0);
        let docs = documents(f, n(sampled), n(estimated));
        let average = plan.collection(&f.collection).map_or(0, |c| c.size.average);
        f.cost = Cost {
            rank: 0,
            documents: docs,
            bytes: docs.saturating_mul(average),
        };
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.cost.bytes));
    for (i, f) in findings.iter_mut().enumerate() {
        f.cost.rank = i + 1;
    }
}

/// Bytes for people: `512 B`, `3.2 KB`, `41 MB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    if v < 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(collection: &str, kind: FindingKind, count: u64) -> Finding {
        Finding {
            collection: collection.into(),
            kind,
            path: None,
            count,
            example: None,
            detail: String::new(),
            help: None,
            drift: None,
            cost: Cost::default(),
        }
    }

    #[test]
    fn findings_are_ranked_by_the_data_they_concern() {
        let plan = squillion_codegen::engine::plan(
            &squillion_codegen::load(&squillion_grammar::SourceFile::new(
                "t.sqn",
                "entity Book { title: string @size(1KB) } entity Tag { name: string }",
            ))
            .unwrap()
            .model,
            &squillion_grammar::SourceFile::new("t.sqn", ""),
        );
        let sampled: BTreeMap<String, u64> = [("books".into(), 100), ("tags".into(), 100)].into();
        let estimated: BTreeMap<String, u64> =
            [("books".into(), 10_000), ("tags".into(), 1_000_000)].into();
        let mut f = vec![
            finding("books", FindingKind::UnknownField, 10),
            finding("tags", FindingKind::MissingIndex, 1),
            finding("books", FindingKind::ArrayOverBound, 50),
            finding("nowhere", FindingKind::MissingCollection, 0),
        ];
        // The reference model: documents from the sampled share, bytes from the plan's average
        // size, ranks by bytes (ties in the given order).
        let book = plan.collection("books").unwrap().size.average;
        let tag = plan.collection("tags").unwrap().size.average;
        let mut expected = vec![
            (FindingKind::UnknownField, 1_000, 1_000 * book),
            (FindingKind::MissingIndex, 1_000_000, 1_000_000 * tag),
            (FindingKind::ArrayOverBound, 5_000, 5_000 * book),
            (FindingKind::MissingCollection, 0, 0),
        ];
        expected.sort_by_key(|e| std::cmp::Reverse(e.2));
        rank(&mut f, &plan, &sampled, &estimated);
        let got: Vec<(FindingKind, u64, u64)> = f
            .iter()
            .map(|f| (f.kind, f.cost.documents, f.cost.bytes))
            .collect();
        assert_eq!(got, expected);
        let ranks: Vec<usize> = f.iter().map(|f| f.cost.rank).collect();
        assert_eq!(ranks, vec![1, 2, 3, 4]);
        assert_eq!(size(512), "512 B");
        assert_eq!(size(3_300), "3.2 KB");
        assert_eq!(size(41 * 1024 * 1024), "41 MB");
    }
}
