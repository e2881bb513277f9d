//! The audit as a table for the terminal, what to change first at the top.

use super::rank::size;
use super::AuditReport;

/// A table of findings, or a line saying the sample agrees with the design.
pub fn text(report: &AuditReport) -> String {
    let sampled: u64 = report.sampled.values().sum();
    let mut out = format!(
        "sampled {sampled} documents in {} collections\n",
        report.sampled.len()
    );
    if report.findings.is_empty() {
        out.push_str("the sample agrees with the design\n");
        return out;
    }
    out.push_str(
        "what to change first: each finding is ranked by the documents it concerns (the sampled \
         share of the collection's count) times the plan's average document size\n",
    );
    out.push_str(&format!(
        "{:>4}  {:<24} {:<20} {:<28} {:>6} {:>10} {:>9}  {}\n",
        "rank", "collection", "finding", "path", "count", "~documents", "~size", "detail"
    ));
    for f in &report.findings {
        let kind = serde_json::to_value(f.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:>4}  {:<24} {:<20} {:<28} {:>6} {:>10} {:>9}  {}\n",
            f.cost.rank,
            f.collection,
            kind,
            f.path.as_deref().unwrap_or("-"),
            f.count,
            f.cost.documents,
            size(f.cost.bytes),
            f.detail
        ));
        if let Some(help) = &f.help {
            out.push_str(&format!("{:>6}help: {help}\n", ""));
        }
    }
    out
}
