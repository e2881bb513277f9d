//! The audit as a table for the terminal.

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
    out.push_str(&format!(
        "{:<24} {:<20} {:<28} {:>6}  {}\n",
        "collection", "finding", "path", "count", "detail"
    ));
    for f in &report.findings {
        let kind = serde_json::to_value(f.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<24} {:<20} {:<28} {:>6}  {}\n",
            f.collection,
            kind,
            f.path.as_deref().unwrap_or("-"),
            f.count,
            f.detail
        ));
    }
    out
}
