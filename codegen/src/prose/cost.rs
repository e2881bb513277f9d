//! The cost model's numbers in words: the workload a relationship's costs assume, and each
//! alternative's estimate beside the chosen one (`plan --explain` and the review share these).

use crate::plan::{AlternativeCost, CostPlan, WorkloadPlan};

/// A number as the cost lines show it: whole when it is, else at most two decimals.
fn num(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.005 {
        // A small rate keeps two significant digits: 0.00023, not 0.
        let digits = (1 - x.abs().log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.digits$}");
        return s.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    if (x - x.round()).abs() < 0.005 {
        format!("{}", x.round() as i64)
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// `1 read` / `2.5 reads`.
fn per(x: f64, one: &str, many: &str) -> String {
    let n = num(x);
    if n == "1" {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The workload, per unit of time: `1 read of 100 children together, 0.1 children added
/// (default rates: no query rate declared)`.
pub fn workload(w: &WorkloadPlan) -> String {
    let mut parts = Vec::new();
    if w.list_reads > 0.0 {
        let window = match w.range_window {
            Some(_) => " (the time range's declared window)",
            None => "",
        };
        parts.push(format!(
            "{} of {} together{window}",
            per(w.list_reads, "read", "reads"),
            per(w.children_per_list, "child", "children")
        ));
    }
    if w.alone_reads > 0.0 {
        parts.push(format!(
            "{} of one child alone",
            per(w.alone_reads, "read", "reads")
        ));
    }
    parts.push(format!("{} added", per(w.appends, "child", "children")));
    if w.parent_reads > 0.0 {
        parts.push(format!(
            "{} read by the parent's own queries",
            per(w.parent_reads, "parent document", "parent documents")
        ));
    }
    let reads = (w.list_reads + w.alone_reads).max(1.0);
    let source = match (w.declared, w.appends_declared) {
        (true, true) => "from the declared query and growth rates".to_owned(),
        (true, false) if w.appends > 0.0 => format!(
            "from the declared query rates; the children added are the default, {} per read, \
             until `growth ... rate` declares them",
            num(w.appends / reads)
        ),
        (true, false) => "from the declared query rates".to_owned(),
        (false, true) => "from the declared growth rate, reads at the default rate".to_owned(),
        (false, false) if w.parent_reads > 0.0 => {
            "from the declared rates of the parent's own queries; the children's reads at the \
             default rate"
                .to_owned()
        }
        (false, false) => "default rates: no query rate declared, so the rules decide".to_owned(),
    };
    format!(
        "per unit of workload, {} ({}; a child ~{}, its parent ~{} on average)",
        parts.join(", "),
        source,
        super::bytes(w.child_bytes),
        super::bytes(w.parent_bytes)
    )
}

/// The alternative's name: `bucket(200)`, `child_ref`.
pub fn name(a: &AlternativeCost) -> String {
    let layout = match a.bucket_size {
        Some(n) => format!("{}({n})", a.layout.as_str()),
        None => a.layout.as_str().to_owned(),
    };
    if a.nothing_copied {
        format!("{layout}, nothing copied")
    } else {
        layout
    }
}

/// One alternative's estimate, per unit of workload, as labelled figures (no plural to agree
/// with a fraction): `~0.92 ms (chosen); round trips 2; documents read 101 (12.3 KB); index
/// entries written 0.2; documents written 0.1 (rewritten 0: 0 B)`.
pub fn alternative(a: &AlternativeCost) -> String {
    let standing = if a.chosen {
        "chosen".to_owned()
    } else if a.nothing_copied {
        format!(
            "{}x the chosen cost; rule 5 copies the fields for their read/update ratio",
            num(a.relative)
        )
    } else if a.acceptable {
        format!("{}x the chosen cost; the rules accept it", num(a.relative))
    } else {
        format!(
            "{}x the chosen cost; ruled out by the rules",
            num(a.relative)
        )
    };
    let transactions = if a.transactions > 0.0 {
        format!("; transactions {}", num(a.transactions))
    } else {
        String::new()
    };
    format!(
        "~{} ms ({standing}); round trips {}; documents read {} ({}); index entries written {}; documents written {} (rewritten {}: {}){transactions}",
        num(a.micros / 1000.0),
        num(a.round_trips),
        num(a.documents_read),
        super::bytes(a.bytes_read.round() as u64),
        num(a.index_entries_written),
        num(a.documents_written),
        num(a.documents_rewritten),
        super::bytes(a.bytes_rewritten.round() as u64),
    )
}

/// Every alternative as `(name, estimate)`, the chosen first, then by estimated cost.
pub fn lines(c: &CostPlan) -> Vec<(String, String)> {
    let mut alts: Vec<&AlternativeCost> = c.alternatives.iter().collect();
    alts.sort_by(|a, b| {
        b.chosen
            .cmp(&a.chosen)
            .then(a.micros.total_cmp(&b.micros))
            .then(name(a).cmp(&name(b)))
    });
    alts.into_iter()
        .map(|a| (name(a), alternative(a)))
        .collect()
}
